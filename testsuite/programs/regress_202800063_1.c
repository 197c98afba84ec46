/* regress_202800063_1.c -- seven independent nests fused into one band
 * whose domains differ (one starts a row early, one ends two columns
 * short), each writing a temporary that nothing reads. Under --tile, isl
 * splits the fused band, and one storage mark (a nest's scalar buffer) sits
 * in one branch of a conditional while another mark's copies sit in its
 * other branch and in the next node. flextile stopped with an internal
 * error ("interleave with another group's"); the second mark is now
 * gathered over both nodes and the first within it. Found by
 * tools/difftest/run.py (seed 2028, program 202800063).
 *
 * flextile-test: args: 1 1 1 0 | 5 3 6 2 | 12 9 5 2
 * flextile-test: options: --tile | --tile --tile-sizes 4 | default | --tile --no-openmp | --rectangle | --scalene --tile-sizes 4
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Deterministic input: a 64-bit LCG; every value is k / 2^24 in [-1, 1), exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 8388608.0 - 1.0;
}

static void fill(double *x, long n)
{
    for (long k = 0; k < n; k++)
        x[k] = next_value();
}

/* Histogram bucket of a double: bits 44..47 of its representation (never UB). */
static int bucket(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (int)((b >> 44) & 15u);
}

/* Prints every element (%.17g round-trips doubles) up to 4096 elements, else
 * an FNV-1a hash of the bits of each run of 64 elements. */
static void dump(const char *name, const double *x, long total)
{
    if (total <= 4096) {
        for (long k = 0; k < total; k++)
            printf("%s[%ld] = %.17g\n", name, k, x[k]);
        return;
    }
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t q = 0; q < sizeof bytes; q++) {
                h ^= bytes[q];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[%ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

static void dump_int(const char *name, const int *x, long total)
{
    for (long k = 0; k < total; k++)
        printf("%s[%ld] = %d\n", name, k, x[k]);
}

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

static void kernel(int N, int M, int K, int T, double B[N+16][M+16][K+16], double E[N+16][M+16][K+16], double G[N+16][M+16][K+16], double H[N+16][M+16][K+16], double L[N+16][M+16][K+16], double P[N+16][M+16][K+16], double R[N+16][M+16][K+16], double U[N+16][M+16][K+16], double W[N+16][M+16][K+16])
{
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule(fuse()) temporary(G, H, L, P, R, U, W)
    {
#pragma omplc for domain(8:N+7, 8:M+7, 11:K+8) with (row, col, dep) read B {(row,col,dep)}, write G {(row,col,dep)}
        for (int row = 8; row <= N+7; row++)
            for (int col = 8; col < M+7 + 1; ++col)
                for (int dep = 11; dep <= K+8; dep += 1)
                    {
                        G[row][col][dep] = (-0.25 * B[row][col][dep]);
                    }
#pragma omplc for domain(8:N+7, 8:M+7, 8:K+7) with (c0, c1, c2) write H {(c0,c1,c2)}
        for (int c0 = 8; c0 <= N+7; c0++)
            for (int c1 = 8; c1 < M+7 + 1; ++c1)
                for (int c2 = 8; c2 <= K+7; c2 += 1)
                    {
                        H[c0][c1][c2] = (0.125 * (double)((3 * c0 + 7 * c1 + 6 * c2 - 4) % 7) * 0.0625);
                    }
#pragma omplc for domain(8:N+7, 8:M+7, 8:K+7) with (row, col, dep) write L {(row,col,dep)}
        for (int row = 8; row <= N+7; row++)
            for (int col = 8; col < M+7 + 1; ++col)
                for (int dep = 8; dep <= K+7; dep += 1)
                    {
                        L[row][col][dep] = (0.125 * (double)((3 * row + 7 * col + 5 * dep - 24) % 9) * 0.0625);
                    }
#pragma omplc for domain(8:N+7, 8:M+7, 8:K+7) with (i, j, k) read E {(i,j,k)}, write P {(i,j,k)}
        for (int i = 8; i <= N+7; i++)
            for (int j = 8; j < M+7 + 1; ++j)
                for (int k = 8; k <= K+7; k += 1)
                    {
                        P[i][j][k] = (0.5 * E[i][j][k]);
                    }
#pragma omplc for domain(8:N+7, 8:M+7, 8:K+7) with (i, j, k) write R {(i,j,k)}
        for (int i = 8; i <= N+7; i++)
            for (int j = 8; j < M+7 + 1; ++j)
                for (int k = 8; k <= K+7; k += 1)
                    {
                        R[i][j][k] = (0.2 * (double)((7 * i + 5 * j + 6 * k - 16) % 3) * 0.0625);
                    }
#pragma omplc for domain(7:N+7, 9:M+7, 8:K+9) with (ii, jj, kk) write U {(ii,jj,kk)}
        for (int ii = 7; ii <= N+7; ii++)
            for (int jj = 9; jj < M+7 + 1; ++jj)
                for (int kk = 8; kk <= K+9; kk += 1)
                    {
                        U[ii][jj][kk] = (0.375 * 1.0);
                    }
#pragma omplc for domain(8:N+7, 8:M+5, 6:K+7) with (row, col, dep) write W {(row,col,dep)}
        for (int row = 8; row <= N+7; row++)
            for (int col = 8; col < M+5 + 1; ++col)
                for (int dep = 6; dep <= K+7; dep += 1)
                    {
                        W[row][col][dep] = (0.05 * 0.5);
                    }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*B)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*E)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*G)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*H)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*L)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*P)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*R)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*U)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*W)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    fill((double *)B, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)E, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)G, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)H, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)L, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)P, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)R, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)U, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)W, (long)(N+16) * (long)(M+16) * (long)(K+16));
#ifdef FT_SENTINEL
    memset(G, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(H, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(L, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(P, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(R, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(U, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    memset(W, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
#endif
    kernel(N, M, K, T, B, E, G, H, L, P, R, U, W);
#ifdef FT_SENTINEL
    {
        const unsigned char *p_ = (const unsigned char *)G;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL G untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)H;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL H untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)L;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL L untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)P;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL P untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)R;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL R untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)U;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL U untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)W;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL W untouched: %s\n", n_ ? "no" : "yes");
    }
#endif
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(M+16) * (long)(K+16));
    free(B);
    free(E);
    free(G);
    free(H);
    free(L);
    free(P);
    free(R);
    free(U);
    free(W);
    return 0;
}
