/* scop_resample.c -- down- and up-sampling in scop mode: strided and
 * quasi-affine subscripts (2*i, 2*i+1, i/2) and bounds with integer division.
 *
 *   for i in 1 .. N/2-1:        D[i] = 0.25*(A[2*i-1] + 2.0*A[2*i] + A[2*i+1])
 *   for i in 0 .. 2*(N/2)-1:    U[i] = 0.5*D[i/2] + 0.5*A[i]
 *   for i in 0 .. N/2-1, j in 0 .. M/2-1:
 *       Q[i][j] = 0.25*((P[2*i][2*j] + P[2*i+1][2*j]) + (P[2*i][2*j+1] + P[2*i+1][2*j+1]))
 *   for i in 0 .. 2*(N/2)-1, j in 0 .. 2*(M/2)-1:
 *       R[i][j] = P[i][j] - Q[i/2][j/2]
 * (D[0] is written before the region, so U reads only defined values.)
 * Each consumer reads its producer at i/2: the dependence distance grows with
 * i, so no constant fusion shift exists; tiling and parallel loops are legal.
 * Exercises: quasi-affine subscripts and bounds (floor division by a
 * constant), subscripts with a factor 2, sizes with odd N and M.
 * Output: D, U, Q and R in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 14 | 5 3 | 1 1 | 2 2 | 3 7 | 64 50 | 101 33
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 3,5 | --no-openmp | --rectangle | --scalene --tile-sizes 6 | --rectangle --tile-sizes 4,8 --no-openmp
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

static void kernel(int N, int M, double *A, double *D, double *U, double P[N][M],
                   double Q[N][M], double R[N][M])
{
#pragma scop
    for (int i = 1; i < N / 2; i++)
        D[i] = 0.25 * (A[2 * i - 1] + 2.0 * A[2 * i] + A[2 * i + 1]);
    for (int i = 0; i < 2 * (N / 2); i++)
        U[i] = 0.5 * D[i / 2] + 0.5 * A[i];
    for (int i = 0; i < N / 2; i++)
        for (int j = 0; j < M / 2; j++)
            Q[i][j] = 0.25 * ((P[2 * i][2 * j] + P[2 * i + 1][2 * j])
                              + (P[2 * i][2 * j + 1] + P[2 * i + 1][2 * j + 1]));
    for (int i = 0; i < 2 * (N / 2); i++)
        for (int j = 0; j < 2 * (M / 2); j++)
            R[i][j] = P[i][j] - Q[i / 2][j / 2];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M = arg_int(argc, argv, 2, 14, 1);
    double *A = xmalloc(sizeof(double) * (N + 1));
    double *D = xmalloc(sizeof(double) * N);
    double *U = xmalloc(sizeof(double) * N);
    double (*P)[M] = xmalloc(sizeof(double) * N * M);
    double (*Q)[M] = xmalloc(sizeof(double) * N * M);
    double (*R)[M] = xmalloc(sizeof(double) * N * M);
    for (int i = 0; i <= N; i++)
        A[i] = next_value();
    for (int i = 0; i < N; i++) {
        D[i] = next_value();
        U[i] = -1.0;
        for (int j = 0; j < M; j++) {
            P[i][j] = next_value();
            Q[i][j] = R[i][j] = -1.0;
        }
    }
    kernel(N, M, A, D, U, P, Q, R);
    int dims[2] = {N, M};
    dump1("D", D, N);
    dump1("U", U, N);
    dump("Q", &Q[0][0], 2, dims);
    dump("R", &R[0][0], 2, dims);
    free(A);
    free(D);
    free(U);
    free(P);
    free(Q);
    free(R);
    return 0;
}
