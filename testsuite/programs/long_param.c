/* long_param.c -- loop counters wider than int (issue 17, finding 11).
 *
 * the kernel (scop, `long N`): for t in 0..T-1, a 3-point smoothing of A into B
 * over i in N-20 .. N+20 (subscript i - N + 21), then B copied back to A.
 * N is a long of about 3e9 (or near INT_MAX, or negative): the iterator's
 * values do not fit in an int, so the generated counters, min/max helpers and
 * parameter arithmetic must be long long (int counters wrapped and wrote
 * far outside the arrays: a crash).
 * The schedule is the region's own order (a time loop over two sweeps).
 * int_big_tiles.c checks the other reason for long long counters: huge tile sizes.
 * Input: LCG values. Output: A and B (43 elements).
 *
 * flextile-test: args: 3000000000 5 | 2147483647 3 | -3000000000 4 | 7 0 | 2147483628 2 | -2147483648 1
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --tile --tile-sizes 2147483647,2147483647 | --tile --tile-sizes 1099511627776 | --rectangle | --scalene | --rectangle --tile-sizes 3,16 --point-chunk 2147483647 | --rectangle --tile-sizes 2,2147483646 | --scalene --tile-sizes 2,2147483647
 */
#include <stdio.h>
#include <stdlib.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

static void dump1(const char *name, const double *x, int n)
{
    for (int k = 0; k < n; k++)
        printf("%s[%d] = %.17g\n", name, k, x[k]);
}

/* A and B hold 43 elements: i - N + 21 runs over 1..41, neighbours 0..42. */
static void smooth(long N, int T, double *A, double *B)
{
    long i;
    int t;
#pragma scop
    for (t = 0; t < T; t++) {
        for (i = N - 20; i <= N + 20; i++)
            B[i - N + 21] = 0.25 * (A[i - N + 20] + 2.0 * A[i - N + 21] + A[i - N + 22]);
        for (i = N - 20; i <= N + 20; i++)
            A[i - N + 21] = B[i - N + 21];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    long N = argc > 1 ? atol(argv[1]) : 3000000000L;
    int T = argc > 2 ? atoi(argv[2]) : 5;
    if (T < 0) {
        fprintf(stderr, "T must be >= 0\n");
        return 1;
    }
    double A[43], B[43];
    for (int k = 0; k < 43; k++) {
        A[k] = next_value();
        B[k] = -1.0;
    }
    smooth(N, T, A, B);
    dump1("A", A, 43);
    dump1("B", B, 43);

    return 0;
}
