/* gather_lut.c -- data-dependent subscripts (gathers and a scatter), the
 * forms of Local Laplacian, Bilateral Grid and Camera Pipeline (issue 20).
 *
 *   for k in 0..L-1:           lut[k] = 0.25 k + X[k]            (LUT built in the region)
 *   for i, j:                  Q[i][j] = (int)(IMG[i][j] * L) & (L - 1)
 *   for i, j:                  G[i][j] = lut[Q[i][j]] + W[1][Q[i][j] & 15] (gathers, a
 *                              subscript that holds an access; W read
 *                              only by gathers, in its inner dimension)
 *   for i, j:                  H[i][Q[i][j] & 7] += G[i][j]      (a scatter into an inner
 *                              dimension: serial in j)
 *   for i, j:                  OUT[i][j] = G[i][j] * H[i][(i + j) & 7] (the inner dimension
 *                              read at a cast subscript)
 * The model reads the gathered arrays at any index; flextile's C keeps those
 * bodies' text, CUDA respells every access into device buffers: lut's box
 * from the nest that writes it, W's and H's inner dimension from their
 * declarations, each gather checked against its buffer at run time.
 * Output: G, H and OUT in full.
 *
 * flextile-test: args: 20 24 | 1 1 | 7 33 | 3 64
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,16
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

static void kernel(int N, int M, int L, double lut[restrict L], double X[restrict L],
                   double IMG[restrict N][M], int Q[restrict N][M], double G[restrict N][M],
                   double H[restrict N][8], double OUT[restrict N][M],
                   double W[restrict 2][16])
{
    int i, j, k;
#pragma scop
    for (k = 0; k < L; k++)
        lut[k] = 0.25 * k + X[k];
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            Q[i][j] = (int)(IMG[i][j] * L) & (L - 1);
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            G[i][j] = lut[Q[i][j]] + W[1][Q[i][j] & 15];
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            H[i][Q[i][j] & 7] += G[i][j];
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            OUT[i][j] = G[i][j] * H[i][(unsigned char)(i + j) & 7];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int m = arg_int(argc, argv, 2, 24, 1);
    enum { L = 64 };
    double *lut = xmalloc(sizeof(double) * L), *X = xmalloc(sizeof(double) * L);
    double (*IMG)[m] = xmalloc(sizeof(double) * n * m);
    int (*Q)[m] = xmalloc(sizeof(int) * n * m);
    double (*G)[m] = xmalloc(sizeof(double) * n * m);
    double (*H)[8] = xmalloc(sizeof(double) * n * 8);
    double (*OUT)[m] = xmalloc(sizeof(double) * n * m);
    double (*W)[16] = xmalloc(sizeof(double) * 32);
    for (int k = 0; k < 32; k++)
        W[k / 16][k % 16] = next_value();
    for (int k = 0; k < L; k++) {
        X[k] = next_value();
        lut[k] = -1.0;
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            IMG[i][j] = next_value();
            Q[i][j] = -1;
            G[i][j] = -2.0;
            OUT[i][j] = -3.0;
        }
        for (int b = 0; b < 8; b++)
            H[i][b] = 0.125 * b;
    }
    kernel(n, m, L, lut, X, IMG, Q, G, H, OUT, W);
    int d2[2] = {n, m}, h2[2] = {n, 8};
    dump("G", &G[0][0], 2, d2);
    dump("H", &H[0][0], 2, h2);
    dump("OUT", &OUT[0][0], 2, d2);
    free(lut); free(X); free(IMG); free(Q); free(G); free(H); free(OUT); free(W);
    return 0;
}
