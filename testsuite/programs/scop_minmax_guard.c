/* scop_minmax_guard.c -- scop with min/max loop bounds and an if guard.
 *
 *   for i in 1..N-1, for j in max(1, i-3)..min(N-1, i+3):
 *       if (i + j < N)  A[i][j] = 0.5*A[i-1][j] + 0.25*A[i][j-1] + B[i][j]
 *   for i in 1..N-1, for j in 0..N-1:
 *       C[i][j] = A[i-1][j] + A[i][j]
 * max/min are the usual macros (clang sees conditional expressions). The first
 * statement carries dependences (1,0) and (0,1) on itself, inside a band-shaped,
 * guarded domain; the second reads its results with distance (1,0) and (0,0).
 * Exercises: non-rectangular domains from min/max bounds and affine guards,
 * loop-carried flow dependences that forbid parallel outer loops, tiling of a
 * non-rectangular domain (legal: all distances non-negative), statements of
 * different domains in one scop.
 * Output: A and C in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 | 5 | 1 | 2 | 9 | 33 | 70
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 7,3 | --no-openmp | --tile --tile-sizes 1 | --rectangle | --scalene --tile-sizes 7,3
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

#define max(x, y) ((x) > (y) ? (x) : (y))
#define min(x, y) ((x) < (y) ? (x) : (y))

static void kernel(int N, double A[N][N], double B[N][N], double C[N][N])
{
    int i, j;
#pragma scop
    for (i = 1; i < N; i++)
        for (j = max(1, i - 3); j <= min(N - 1, i + 3); j++)
            if (i + j < N)
                A[i][j] = 0.5 * A[i-1][j] + 0.25 * A[i][j-1] + B[i][j];
    for (i = 1; i < N; i++)
        for (j = 0; j < N; j++)
            C[i][j] = A[i-1][j] + A[i][j];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    double (*A)[N] = xmalloc(sizeof(double) * N * N);
    double (*B)[N] = xmalloc(sizeof(double) * N * N);
    double (*C)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = next_value();
            B[i][j] = next_value();
            C[i][j] = -1.0;
        }
    kernel(N, A, B, C);
    int dims[2] = {N, N};
    dump("A", &A[0][0], 2, dims);
    dump("C", &C[0][0], 2, dims);
    free(A);
    free(B);
    free(C);
    return 0;
}
