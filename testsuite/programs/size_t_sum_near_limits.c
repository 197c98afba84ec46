/* size_t_sum_near_limits.c -- a scop whose bound converts a sum of two
 * `size_t` parameters to `unsigned int`: `(unsigned int)(n + m)`.
 * Issue 54, class 1: the model checks that the conversion does not change
 * the value (a run-time guard, `n + m <= 4294967295`, with the original code
 * otherwise). The guard is computed in `long long`; for n and m near 2^62
 * or past 2^63 that sum itself overflows there, so the guard first checks
 * that the parameters lie where its arithmetic fits.
 * The arguments: small values; two values near 2^62 whose sum converts to
 * 10 (`2^63 + 10` in `size_t`); two past 2^63 whose sum wraps to 10.
 * Output: A in full.
 *
 * flextile-test: args: 10 20 | 4611686018427387909 4611686018427387909 | 9223372036854775813 9223372036854775813 | 0 0
 * flextile-test: options: default | --tile | --tile --tile-sizes 4 | --no-openmp | --rectangle | --scalene
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

static void kernel(size_t n, size_t m, double *A, const double *B)
{
#pragma scop
    for (unsigned int i = 0; i < (unsigned int)(n + m); i++)
        A[i] = B[i] * 2.0 + 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    size_t n = argc > 2 ? strtoull(argv[1], 0, 10) : 10;
    size_t m = argc > 2 ? strtoull(argv[2], 0, 10) : 20;
    double A[64], B[64];
    for (int i = 0; i < 64; i++) {
        A[i] = 0.0;
        B[i] = i * 0.25;
    }
    if ((unsigned int)(n + m) <= 64)
        kernel(n, m, A, B);
    for (int i = 0; i < 64; i++)
        printf("%d %.17g\n", i, A[i]);
    return 0;
}
