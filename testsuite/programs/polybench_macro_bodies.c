/* polybench_macro_bodies.c -- PolyBench-style jacobi-2d and heat-3d bodies whose
 * macros expand to plain arithmetic (issue 17, findings 1 and 3).
 *
 *   jacobi-2d: for t: B[i][j] = SCALAR_VAL(0.2) * (5-point sum of A)
 *                     A[i][j] = SQRT_FUN(POW_FUN(B[i][j], SCALAR_VAL(2.0)) + B[i-1][j] * B[i+1][j])
 *                               * SCALAR_VAL(0.5)
 *   heat-3d:   for t: B = A + 0.125 * (3-D second differences of A), A likewise from B,
 *                     every constant written SCALAR_VAL(...)
 * Statements end in a function-like macro invocation (their extent used to be
 * cut inside it: output that did not build) and macros sit in the middle.
 * Their bodies are analysed through the expansion (SCALAR_VAL(x) -> x,
 * SQRT_FUN(x) -> sqrt(x), POW_FUN(a,b) -> pow(a,b)) and overlapped tiling
 * applies (it used to refuse them as "not analysable"); the output keeps the
 * macros' spelling. Each time step's nests are parallel (double buffering);
 * the time loop is serial.
 * Sizes: _PB_N / _PB_TSTEPS name the arguments, as PolyBench's bound macros do.
 * Input: LCG noise. Output: A and B of both kernels in full (hashed above 4096).
 *
 * flextile-test: args: 12 3 | 3 1 | 1 1 | 20 0 | 33 4
 * flextile-test: options: default | --tile | --tile --tile-sizes 2,5,7 | --rectangle --fatal-warnings | --scalene --fatal-warnings | --rectangle --tile-sizes 2,4,8 | --scalene --tile-sizes 3,5,7
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

#include <math.h>

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define POW_FUN(x, y) pow(x, y)
#define POLYBENCH_2D(var, dim1, dim2) var[dim1][dim2]
#define POLYBENCH_3D(var, dim1, dim2, dim3) var[dim1][dim2][dim3]
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, n, n),
                             DATA_TYPE POLYBENCH_2D(B, n, n))
{
    int t, i, j;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                A[i][j] = SQRT_FUN(POW_FUN(B[i][j], SCALAR_VAL(2.0)) + B[i-1][j] * B[i+1][j]) * SCALAR_VAL(0.5);
    }
#pragma endscop
}

static void kernel_heat_3d(int tsteps, int n, DATA_TYPE POLYBENCH_3D(A, n, n, n),
                           DATA_TYPE POLYBENCH_3D(B, n, n, n))
{
    int t, i, j, k;
#pragma scop
    for (t = 1; t <= _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++) {
            for (j = 1; j < _PB_N - 1; j++) {
                for (k = 1; k < _PB_N - 1; k++) {
                    B[i][j][k] = SCALAR_VAL(0.125) * (A[i+1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i-1][j][k])
                               + SCALAR_VAL(0.125) * (A[i][j+1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j-1][k])
                               + SCALAR_VAL(0.125) * (A[i][j][k+1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k-1])
                               + A[i][j][k];
                }
            }
        }
        for (i = 1; i < _PB_N - 1; i++) {
            for (j = 1; j < _PB_N - 1; j++) {
                for (k = 1; k < _PB_N - 1; k++) {
                    A[i][j][k] = SCALAR_VAL(0.125) * (B[i+1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i-1][j][k])
                               + SCALAR_VAL(0.125) * (B[i][j+1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j-1][k])
                               + SCALAR_VAL(0.125) * (B[i][j][k+1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k-1])
                               + B[i][j][k];
                }
            }
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 12, 1);
    int tsteps = arg_int(argc, argv, 2, 3, 0);
    double (*A)[n] = xmalloc(sizeof(double) * n * n);
    double (*B)[n] = xmalloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = next_value();
            B[i][j] = next_value();
        }
    kernel_jacobi_2d(tsteps, n, A, B);
    int dims2[2] = {n, n};
    dump("A2", &A[0][0], 2, dims2);
    dump("B2", &B[0][0], 2, dims2);
    double (*C)[n][n] = xmalloc(sizeof(double) * n * n * n);
    double (*D)[n][n] = xmalloc(sizeof(double) * n * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                C[i][j][k] = next_value();
                D[i][j][k] = next_value();
            }
    kernel_heat_3d(tsteps, n, C, D);
    int dims3[3] = {n, n, n};
    dump("A3", &C[0][0][0], 3, dims3);
    dump("B3", &D[0][0][0], 3, dims3);
    free(D);
    free(C);
    free(B);
    free(A);
    return 0;
}
