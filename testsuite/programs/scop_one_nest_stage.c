/* scop_one_nest_stage.c -- a scop that is one loop nest over an image with
 * several statements (gradients and their products, as a corner detector's
 * legacy code computes them in one sweep): one multi-statement stage
 * (Zhao & Cohen §3.6), tiled alone. Its outer loop indexes the arrays, so it
 * is not a time loop (time-iterated scops are blocked in time instead).
 *
 *   for i in 1..N-2, j in 1..M-2:
 *       Ix[i][j]  = A[i][j+1] - A[i][j-1]
 *       Iy[i][j]  = A[i+1][j] - A[i-1][j]
 *       Ixy[i][j] = Ix[i][j] * Iy[i][j]          (reads both, same iteration)
 *
 * Output: Ix, Iy and Ixy in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 14 | 5 3 | 1 1 | 3 7 | 64 50
 * flextile-test: options: default | --tile --tile-sizes 4,4 | --rectangle | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,5 | --scalene --tile-sizes 64,64 --no-openmp
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

static void kernel(int N, int M, double A[N][M], double Ix[N][M], double Iy[N][M], double Ixy[N][M])
{
#pragma scop
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < M - 1; j++) {
            Ix[i][j] = A[i][j + 1] - A[i][j - 1];
            Iy[i][j] = A[i + 1][j] - A[i - 1][j];
            Ixy[i][j] = Ix[i][j] * Iy[i][j];
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M = arg_int(argc, argv, 2, 14, 1);
    double (*A)[M] = xmalloc(sizeof(double) * N * M);
    double (*Ix)[M] = xmalloc(sizeof(double) * N * M);
    double (*Iy)[M] = xmalloc(sizeof(double) * N * M);
    double (*Ixy)[M] = xmalloc(sizeof(double) * N * M);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j] = next_value();
            Ix[i][j] = Iy[i][j] = Ixy[i][j] = -1.0;
        }
    kernel(N, M, A, Ix, Iy, Ixy);
    int dims[2] = {N, M};
    dump("Ix", &Ix[0][0], 2, dims);
    dump("Iy", &Iy[0][0], 2, dims);
    dump("Ixy", &Ixy[0][0], 2, dims);
    free(A);
    free(Ix);
    free(Iy);
    free(Ixy);
    return 0;
}
