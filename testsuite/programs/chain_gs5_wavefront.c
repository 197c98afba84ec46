/* chain_gs5_wavefront.c -- in-place 5-point Gauss-Seidel sweeps run as
 * wavefronts, inside an ordinary time loop.
 *
 * for t in 0..T-1 (plain C loop):
 *   chain 1, schedule(wavefront):
 *     A[i][j] = 0.25*(A[i-1][j] + A[i][j-1] + A[i][j+1] + A[i+1][j]) + 0.125*A[i][j]
 *     over 1..N-2 x 1..N-2, updated in place
 *   chain 2, schedule(tile((4,4), wavefront, serial)): the same update on G
 *   chain 3, schedule(tile((8,8), serial, wavefront)): the same update on V
 *            (serial tiles, wavefronts of points inside each tile)
 * The in-place update reads the new A[i-1][j], A[i][j-1] and the old
 * A[i+1][j], A[i][j+1]: dependence distances (1,0) and (0,1) (flow and anti),
 * all non-negative, so the band is permutable and both wavefronts are legal,
 * but neither loop is parallel on its own.
 * Exercises: the 'wavefront' schedule item alone, as the tile-loop
 * treatment and as the point-loop treatment, in-place updates with flow and anti dependences on one array,
 * single-nest chains, two chains in one loop body.
 * Output: A, G and V in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 3 | 5 2 | 3 1 | 2 1 | 37 2 | 70 1 | 9 0
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 3,5 | --tile --tile-sizes 1
 * Overlapped tiling cannot apply: every nest reads what it computed itself (a
 * recurrence), so no tile can run independently of its neighbours; flextile
 * warns and compiles each region as without the shape option.
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 3,5
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
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

static void kernel(int T, int N, double A[N][N], double G[N][N], double V[N][N])
{
    for (int t = 0; t < T; t++) {
#pragma omplc loopchain schedule(wavefront)
        {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) \
            read A {(i-1,j),(i,j-1),(i,j),(i,j+1),(i+1,j)}, write A {(i,j)}
            for (int i = 1; i <= N - 2; i++)
                for (int j = 1; j <= N - 2; j++)
                    A[i][j] = 0.25 * (A[i-1][j] + A[i][j-1] + A[i][j+1] + A[i+1][j]) + 0.125 * A[i][j];
        }
#pragma omplc loopchain schedule(tile((4,4), wavefront, serial))
        {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) \
            read G {(i-1,j),(i,j-1),(i,j),(i,j+1),(i+1,j)}, write G {(i,j)}
            for (int i = 1; i <= N - 2; i++)
                for (int j = 1; j <= N - 2; j++)
                    G[i][j] = 0.25 * (G[i-1][j] + G[i][j-1] + G[i][j+1] + G[i+1][j]) + 0.125 * G[i][j];
        }
#pragma omplc loopchain schedule(tile((8,8), serial, wavefront))
        {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) \
            read V {(i-1,j),(i,j-1),(i,j),(i,j+1),(i+1,j)}, write V {(i,j)}
            for (int i = 1; i <= N - 2; i++)
                for (int j = 1; j <= N - 2; j++)
                    V[i][j] = 0.25 * (V[i-1][j] + V[i][j-1] + V[i][j+1] + V[i+1][j]) + 0.125 * V[i][j];
        }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int T = arg_int(argc, argv, 2, 3, 0);
    double (*A)[N] = xmalloc(sizeof(double) * N * N);
    double (*G)[N] = xmalloc(sizeof(double) * N * N);
    double (*V)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = G[i][j] = V[i][j] = next_value();
    kernel(T, N, A, G, V);
    int dims[2] = {N, N};
    dump("A", &A[0][0], 2, dims);
    dump("G", &G[0][0], 2, dims);
    dump("V", &V[0][0], 2, dims);
    free(A);
    free(G);
    free(V);
    return 0;
}
