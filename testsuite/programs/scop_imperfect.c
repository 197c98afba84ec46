/* scop_imperfect.c -- a scop with imperfectly nested statements, statements
 * outside every loop, a scalar accumulator, a math call and a strided loop.
 *
 *   total = 0.0;                                  (no enclosing loop)
 *   for i in 0..N-1:
 *       s[i] = 0.0;
 *       for j in 0..M-1: s[i] = s[i] + A[i][j]*x[j];   (reduction over j)
 *       y[i] = sqrt(s[i]*s[i] + 1.0);
 *       total = total + y[i];                     (scalar: serialises i)
 *   for i in 3, 6, 9, ... < N: z[i] = 0.5*z[i-3] + y[i]   (step 3, recurrence)
 *   out[0] = total;
 * Every statement's order matters for the bits: the j reduction and the
 * scalar sum must run in their original order (no parallel i loop either,
 * because of total), and the strided recurrence must stay sequential.
 * Exercises: statements at depths 0, 1 and 2 in one scop, a 0-dimensional data
 * set (the scalar total, declared outside the region), a call to a pure math
 * function in a statement, a loop with step 3, constant subscripts, two
 * parameters (N, M) with a non-square matrix.
 * Output: s, y, z, out and total.
 *
 * flextile-test: args: 20 7 | 5 1 | 1 1 | 3 40 | 64 33 | 2 3
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 5,3 | --no-openmp
 * Overlapped tiling does not apply: no nest can be tiled (the statements outside
 * loops; the i nest is not a multi-statement stage, its statements sit at
 * different depths, and the scalar sum serialises it; the strided recurrence).
 * flextile warns and keeps the original loops.
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 4
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

#include <math.h>

static double kernel(int N, int M, double A[N][M], double *x, double *s, double *y, double *z,
                     double *out)
{
    int i, j;
    double total;
#pragma scop
    total = 0.0;
    for (i = 0; i < N; i++) {
        s[i] = 0.0;
        for (j = 0; j < M; j++)
            s[i] = s[i] + A[i][j] * x[j];
        y[i] = sqrt(s[i] * s[i] + 1.0);
        total = total + y[i];
    }
    for (i = 3; i < N; i += 3)
        z[i] = 0.5 * z[i - 3] + y[i];
    out[0] = total;
#pragma endscop
    return total;
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M = arg_int(argc, argv, 2, 7, 1);
    double (*A)[M] = xmalloc(sizeof(double) * N * M);
    double *x = xmalloc(sizeof(double) * M);
    double *s = xmalloc(sizeof(double) * N);
    double *y = xmalloc(sizeof(double) * N);
    double *z = xmalloc(sizeof(double) * N);
    double out[1] = {-1.0};
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = next_value() - 0.5;
    for (int j = 0; j < M; j++)
        x[j] = next_value();
    for (int i = 0; i < N; i++) {
        s[i] = y[i] = -1.0;
        z[i] = next_value();
    }
    double total = kernel(N, M, A, x, s, y, z, out);
    dump1("s", s, N);
    dump1("y", y, N);
    dump1("z", z, N);
    dump1("out", out, 1);
    printf("total = %.17g\n", total);
    free(A);
    free(x);
    free(s);
    free(y);
    free(z);
    return 0;
}
