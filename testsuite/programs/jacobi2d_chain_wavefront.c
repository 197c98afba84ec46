/* jacobi2d_chain_wavefront.c -- 2-D Jacobi flip/flop loop chain inside an ordinary time loop.
 *
 * for t in 0..T-1 (a plain C loop, not part of the chain):
 *   nest 1: B[i][j] = 0.2*(A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])
 *   nest 2: A[i][j] = 0.2*(B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j])
 * both over 1..N-2 x 1..N-2 (PolyBench jacobi-2d's update).
 * Schedule: fuse((0,0),(1,1)), tile((8,8), wavefront, serial). With these shifts
 * every dependence distance of the fused band is non-negative ((0,1), (1,0),
 * (1,1), (1,2), (2,1)), so the band is tileable; tiles are not independent in
 * either dimension (so "parallel" tile loops would be illegal) but tiles on
 * one anti-diagonal are: wavefront parallelism is legal.
 * The pragmas continue over several lines with backslashes and carry C comments
 * between their clauses, as in the original tool's jacobi demo.
 * Arrays are C99 variably modified parameters (double A[N][N]); both are
 * initialised to different values, so B's boundary matters.
 * Output: A and B in full.
 *
 * flextile-test: args: 20 5 | 5 3 | 33 4 | 3 2 | 2 1 | 1 1 | 50 2
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 7,5 | --rectangle --tile-sizes 4,4 | --scalene --tile-sizes 7,5
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

static void kernel(int T, int N, double A[N][N], double B[N][N])
{
    for (int t = 0; t < T; t++) {
#pragma omplc loopchain schedule(fuse((0,0),(1,1)), /* user shifts */ \
            tile((8,8), wavefront, serial) /* tiles run in wavefronts */)
        {
#pragma omplc for /* first sweep: A -> B */ domain(1:N-2, /* rows */ 1:N-2 /* cols */) \
            /* iterators */ with (i, j) \
            read A { (i,j), (i,j-1), (i,j+1), (i+1,j), (i-1,j) } /* 5 points */, \
            /* result */ write B { (i,j) }
            for (int i = 1; i <= N - 2; i++)
                for (int j = 1; j <= N - 2; j++)
                    B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][1+j] + A[1+i][j] + A[i-1][j]);

#pragma omplc for /* second sweep: B -> A */ domain(1:N-2, 1:N-2) /* same domain */ \
            with (i, j) /* same iterators */ \
            read B { (i,j), (i,j-1), (i,j+1), (i+1,j), (i-1,j) }, /* 5 points */ \
            write A { (i,j) } /* result */
            for (int i = 1; i <= N - 2; i++)
                for (int j = 1; j <= N - 2; j++)
                    A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][1+j] + B[1+i][j] + B[i-1][j]);
        }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int T = arg_int(argc, argv, 2, 5, 0);
    double (*A)[N] = xmalloc(sizeof(double) * N * N);
    double (*B)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = next_value();
            B[i][j] = next_value();
        }
    kernel(T, N, A, B);
    int dims[2] = {N, N};
    dump("A", &A[0][0], 2, dims);
    dump("B", &B[0][0], 2, dims);
    free(A);
    free(B);
    return 0;
}
