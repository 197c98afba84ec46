/* inexact_dependences.c -- a region whose exact dependence analysis runs
 * past its isl budget is compiled with memory-based dependences (issue 17,
 * finding 14: twenty nested loops with a twenty-term subscript took minutes
 * in the exact analysis).
 *
 *   heat:  for t: B[i][j] = 5-point average of A;   A[i][j] = B[i][j] (copy back)
 *   scan:  C[i][j] = C[i][j-1] * 0.5 + A[i][j]       (carried by j: i is parallel)
 *   reset: A[0][j] = 0 then A[0][j] = C[1][j]       (the first write is killed)
 * The tiny --max-dependence-operations makes the exact analysis give up; flextile
 * then takes every earlier access to the same element as a dependence (more
 * than there are: the killed write still "reaches" later reads), warns, and
 * only marks parallel or tiles what is legal for those. Overlapped tiling
 * needs value-based flow and does not apply.
 * Input: LCG noise. Output: A, B and C in full (hashed above 4096 elements).
 *
 * flextile-test: args: 12 3 | 1 1 | 2 2 | 17 0 | 30 5
 * flextile-test: options: default | --max-dependence-operations 1000 | --max-dependence-operations 1000 --tile | --max-dependence-operations 1000 --tile --tile-sizes 2,3,4 | --max-dependence-operations 1000 --no-openmp | --tile --tile-sizes 2,3,4
 * flextile-test: falls-back: --rectangle --max-dependence-operations 1000 | --scalene --max-dependence-operations 1000 --tile-sizes 2,4,8
 * flextile-test: fallback-warning: overlapped tiling needs the exact (value-based) dependences
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

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel(int tsteps, int n, DATA_TYPE A[n][n], DATA_TYPE B[n][n], DATA_TYPE C[n][n])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                A[i][j] = B[i][j];
    }
    for (i = 0; i < _PB_N; i++)
        for (j = 1; j < _PB_N; j++)
            C[i][j] = C[i][j-1] * SCALAR_VAL(0.5) + A[i][j];
    for (j = 0; j < _PB_N; j++)
        A[0][j] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++)
        A[0][j] = C[_PB_N - 1][j] + A[0][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 12, 1);
    int tsteps = arg_int(argc, argv, 2, 3, 0);
    double (*A)[n] = xmalloc(sizeof(double) * n * n);
    double (*B)[n] = xmalloc(sizeof(double) * n * n);
    double (*C)[n] = xmalloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = next_value();
            B[i][j] = next_value();
            C[i][j] = next_value();
        }
    kernel(tsteps, n, A, B, C);
    int dims[2] = {n, n};
    dump("A", &A[0][0], 2, dims);
    dump("B", &B[0][0], 2, dims);
    dump("C", &C[0][0], 2, dims);
    free(A);
    free(B);
    free(C);
    return 0;
}
