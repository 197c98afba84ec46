/* jacobi2d_scop.c -- PolyBench/C 4.2 jacobi-2d, time loop inside #pragma scop.
 *
 *   for t in 0..TSTEPS-1:
 *     B[i][j] = 0.2*(A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j])
 *     A[i][j] = 0.2*(B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j])
 *   both for i, j in 1..N-2 (loop bounds written "i < N - 1" as in PolyBench).
 * Compare with jacobi2d_chain.c, where the time loop is outside an omplc chain.
 * Exercises: scop mode, two statements per time step (fusion across them needs
 * a shift), time tiling (needs skewing).
 * Input: PolyBench's A[i][j] = ((double) i*(j+2) + 2)/N, B[i][j] = ((double)
 * i*(j+3) + 3)/N, plus LCG noise: PolyBench's values alone are bilinear, a fixed
 * point of the 5-point average up to rounding, so a wrong order would barely
 * change them.
 * Output: A and B in full (hashed above 4096 elements).
 *
 * flextile-test: args: 30 20 | 5 3 | 1 1 | 3 2 | 45 6 | 64 1 | 10 0
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8,8 | --tile --tile-sizes 3,7,5 | --tile --no-openmp | --rectangle --tile-sizes 4,8,8 | --scalene --tile-sizes 3,7,5 | --scalene --overlap-dims 1 --tile-sizes 2,4,8 | --rectangle --tile-sizes 3,4,16 --point-chunk 4 | --rectangle --overlap-dims 1 --tile-sizes 2,4,8 --point-chunk 3
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

static void kernel(int TSTEPS, int N, double A[N][N], double B[N][N])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < TSTEPS; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 30, 1);
    int TSTEPS = arg_int(argc, argv, 2, 20, 0);
    double (*A)[N] = xmalloc(sizeof(double) * N * N);
    double (*B)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = ((double)i * (j + 2) + 2) / N + next_value();
            B[i][j] = ((double)i * (j + 3) + 3) / N + next_value();
        }
    kernel(TSTEPS, N, A, B);
    int dims[2] = {N, N};
    dump("A", &A[0][0], 2, dims);
    dump("B", &B[0][0], 2, dims);
    free(A);
    free(B);
    return 0;
}
