/* overlap_inplace_shadow.c -- overlapped tiling of a 2-D chain that updates
 * an array in place, through a shadow copy (src/transform/shadow.rs).
 *
 * Nest 1: B = 5-point blur of A.
 * Nest 2: A[i][j] = A[i][j] + cross of B: A is read from before the chain and
 *         overwritten in it; a tile's stores of A would overwrite values a
 *         neighbouring tile still reads. Nest 2 writes a heap copy of A
 *         instead, copied back after the chain.
 * Nest 3: C = difference of the new A at offsets (it reads the copy); every
 *         element it reads is one nest 2 writes.
 * Exercises: the shadow of a 2-D array (rows of a VLA), a writer that reads
 * the old values of what it writes, a reader of the new values at offsets,
 * domains of different extents, sizes smaller than a tile, dividing and not
 * dividing.
 * Output: A, B and C in full.
 *
 * flextile-test: args: 20 17 | 3 3 | 4 5 | 64 40 | 9 33
 * flextile-test: options: default | --tile | --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 5,7 | --rectangle --tile-sizes 1,1 | --scalene --overlap-dims 0 --tile-sizes 4,8 | --rectangle --overlap-dims 1 --tile-sizes 8,4
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

static void chain(int N, int M, double (*A)[M], double (*B)[M], double (*C)[M])
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2, 1:M-2) with (i, j) read A { (i,j), (i-1,j), (i+1,j), (i,j-1), (i,j+1) }, write B { (i,j) }
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= M - 2; j++)
                B[i][j] = (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]) * 0.2;

#pragma omplc for domain(2:N-3, 2:M-3) with (i, j) read A { (i,j) }, read B { (i,j), (i-1,j), (i+1,j), (i,j-1), (i,j+1) }, write A { (i,j) }
        for (int i = 2; i <= N - 3; i++)
            for (int j = 2; j <= M - 3; j++)
                A[i][j] = A[i][j] + 0.125 * (B[i-1][j] + B[i+1][j] + B[i][j-1] + B[i][j+1]) - 0.5 * B[i][j];

#pragma omplc for domain(3:N-4, 3:M-4) with (i, j) read A { (i-1,j), (i,j+1) }, write C { (i,j) }
        for (int i = 3; i <= N - 4; i++)
            for (int j = 3; j <= M - 4; j++)
                C[i][j] = A[i-1][j] - A[i][j+1];
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M = arg_int(argc, argv, 2, 17, 1);
    double (*A)[M] = xmalloc(sizeof(double) * N * M);
    double (*B)[M] = xmalloc(sizeof(double) * N * M);
    double (*C)[M] = xmalloc(sizeof(double) * N * M);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            A[i][j] = next_value();
            B[i][j] = next_value();
            C[i][j] = next_value();
        }
    chain(N, M, A, B, C);
    int dims[2] = {N, M};
    dump("A", &A[0][0], 2, dims);
    dump("B", &B[0][0], 2, dims);
    dump("C", &C[0][0], 2, dims);
    free(A);
    free(B);
    free(C);
    return 0;
}
