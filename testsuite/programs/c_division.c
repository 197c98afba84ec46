/* c_division.c -- C's `/` and `%` on negative numerators, in loop bounds and
 * subscripts (issue 17: the model must keep C's meaning).
 *
 * C rounds a quotient toward zero, isl's floor rounds down: they differ when
 * the numerator is negative ((M - 10) / 2 is -2 in C for M = 5, floor gives
 * -3). flextile used to model `/` as floor: the generated loop of nest 1 then
 * ran one iteration more than the original (M = 5), and the subscripts of
 * nests 2 and 3 pointed at other elements than the ones C touches.
 *
 *   for i in (M-10)/2 .. N-1:  A[i + 8] = 2 A[i + 8] + 1
 *   for i in 0 .. N-1:         B[(i - 5) / 2 + 5] = A[i + 8] - 0.5 B[(i - 5) / 2 + 5]
 *   for i in 0 .. N-1:         C[i] = B[(i - 7) % 4 + 4] + A[(i - 3) / 4 + 8]
 * Output: A, B and C in full.
 *
 * flextile-test: args: 20 5 | 20 12 | 1 0 | 7 9 | 33 1 | 2 3
 * flextile-test: options: default | --tile | --tile --tile-sizes 3 | --rectangle | --scalene | --rectangle --tile-sizes 4 | --scalene --tile-sizes 3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

/* Prints an FNV-1a hash of the bits of each run of 64 elements of x[0..total-1]. */
static inline void dump_hashed(const char *name, const double *x, long total)
{
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t b = 0; b < sizeof bytes; b++) {
                h ^= bytes[b];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[flat %ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

/* Prints every element with its index (%.17g round-trips doubles exactly); for
 * arrays over 4096 elements, prints dump_hashed's run hashes instead. Either way, equal stdout means bit-identical arrays. */
static void dump(const char *name, const double *x, int nd, const int *dims)
{
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= dims[d] > 0 ? dims[d] : 0;
    if (total > 4096) {
        dump_hashed(name, x, total);
        return;
    }
    for (long k = 0; k < total; k++) {
        int idx[8];
        long r = k;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = (int)(r % dims[d]);
            r /= dims[d];
        }
        printf("%s", name);
        for (int d = 0; d < nd; d++)
            printf("[%d]", idx[d]);
        printf(" = %.17g\n", x[k]);
    }
}

static inline void dump1(const char *name, const double *x, int n)
{
    int dims[1] = {n};
    dump(name, x, 1, dims);
}

/* Reads argv[k] as an int >= min, or returns def when absent. */
static int arg_int(int argc, char **argv, int k, int def, int min)
{
    int v = argc > k ? atoi(argv[k]) : def;
    if (v < min) {
        fprintf(stderr, "argument %d must be >= %d\n", k, min);
        exit(1);
    }
    return v;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void kernel(int N, int M, double A[N + 16], double B[N + 16], double C[N + 16])
{
    int i;
#pragma scop
    for (i = (M - 10) / 2; i < N; i++)
        A[i + 8] = 2.0 * A[i + 8] + 1.0;
    for (i = 0; i < N; i++)
        B[(i - 5) / 2 + 5] = A[i + 8] - 0.5 * B[(i - 5) / 2 + 5];
    for (i = 0; i < N; i++)
        C[i] = B[(i - 7) % 4 + 4] + A[(i - 3) / 4 + 8];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int m = arg_int(argc, argv, 2, 5, 0);
    double *A = xmalloc(sizeof(double) * (n + 16));
    double *B = xmalloc(sizeof(double) * (n + 16));
    double *C = xmalloc(sizeof(double) * (n + 16));
    for (int k = 0; k < n + 16; k++) {
        A[k] = next_value();
        B[k] = next_value();
        C[k] = next_value();
    }
    kernel(n, m, A, B, C);
    dump1("A", A, n + 16);
    dump1("B", B, n + 16);
    dump1("C", C, n + 16);
    free(A);
    free(B);
    free(C);
    return 0;
}
