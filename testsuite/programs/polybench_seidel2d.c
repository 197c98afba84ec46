/* polybench_seidel2d.c -- PolyBench/C 4.2 seidel-2d written as PolyBench writes it:
 * DATA_TYPE, SCALAR_VAL(x), POLYBENCH_2D array parameters, _PB_N / _PB_TSTEPS bounds.
 *
 *   for t in 0.._PB_TSTEPS-1, i in 1.._PB_N-2, j in 1.._PB_N-2:
 *     A[i][j] = (A[i-1][j-1] + ... + A[i+1][j+1]) / SCALAR_VAL(9.0)
 * One statement, updated in place (in-place 9-point Gauss-Seidel): no loop is
 * parallel and (t, i, j) cannot be tiled rectangularly without skewing.
 * Issue 17, findings 1 and 2: the statement ends in a function-like macro
 * invocation. Its extent used to stop inside the invocation: the output
 * lost the closing ')' and ';', and the assignment's '=' could not be read,
 * so the write was taken for a read and all three loops were marked parallel.
 * A statement outside the loops (tmp[0] = SCALAR_VAL(0.0);) and a second nest
 * ending in SCALAR_VAL(...) check the same for other statements.
 * Input: PolyBench's A[i][j] = ((double) i*(j+2) + 2) / N plus LCG noise (the
 * bilinear values alone are a fixed point of the average up to rounding).
 * Output: A and tmp in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 5 | 5 2 | 1 1 | 3 3 | 37 4 | 10 0
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4,4 | --tile --tile-sizes 2,7,5 | --tile --no-openmp
 * Overlapped tiling cannot apply: the Gauss-Seidel update reads, in place, values
 * of the same time step; flextile warns and keeps the original loops.
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 2,4,8
 * flextile-test: fallback-warning: overlapped tiling found no nest it can tile
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
#define POLYBENCH_2D(var, dim1, dim2) var[dim1][dim2]
#define POLYBENCH_1D(var, dim1) var[dim1]
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_seidel_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, n, n),
                             DATA_TYPE POLYBENCH_1D(tmp, n))
{
    int t, i, j;
#pragma scop
    tmp[0] = SCALAR_VAL(0.0);
    for (t = 0; t <= _PB_TSTEPS - 1; t++)
        for (i = 1; i <= _PB_N - 2; i++)
            for (j = 1; j <= _PB_N - 2; j++)
                A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                           + A[i][j-1] + A[i][j] + A[i][j+1]
                           + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / SCALAR_VAL(9.0);
    for (i = 1; i < _PB_N; i++)
        tmp[i] = tmp[i - 1] + A[i][i] * SCALAR_VAL(0.5);
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int tsteps = arg_int(argc, argv, 2, 5, 0);
    double (*A)[n] = xmalloc(sizeof(double) * n * n);
    double *tmp = xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        tmp[i] = -1.0;
        for (int j = 0; j < n; j++)
            A[i][j] = ((double)i * (j + 2) + 2) / n + next_value();
    }
    kernel_seidel_2d(tsteps, n, A, tmp);
    int dims[2] = {n, n};
    dump("A", &A[0][0], 2, dims);
    dump1("tmp", tmp, n);
    free(tmp);
    free(A);
    return 0;
}
