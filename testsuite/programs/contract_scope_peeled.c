/* contract_scope_peeled.c -- found by the random tester (tools/difftest,
 * seed 202600665, minimised): under --tile the last point loop of a fused
 * chain is split by isl into a loop and a peeled last iteration, and the
 * contracted temporaries D and E (scalars) each have a buffer scope there,
 * E's inside D's. When the C back end gathered the copies of D's scope into
 * one, it also removed E's scope from the peeled copy, which then used
 * 'ft_E' undeclared: the output did not build. Only the gathered scope's own
 * marks are removed now.
 *
 * flextile-test: args: 1 1 1 0 | 5 5 5 2 | 3 2 40 1
 * flextile-test: options: default | --tile | --tile --tile-sizes 4 | --rectangle | --scalene
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

static void kernel(int N, int M, int K, int T, double A[N+16][2*M+16][K+16], double C[N+16][2*M+16][K+16], double D[N+16][2*M+16][K+16], double E[N+16][2*M+16][K+16])
{
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule(fuse()) temporary(C, D, E)
    {
#pragma omplc for domain(8:N+7, 8:2*M+7, 8:K+7) with (x, y, z) read A {(x,y,z)}, write C {(x,y,z)}
        for (int x = 8; x <= N+7; x++)
            for (int y = 8; y < 2*M+7 + 1; ++y)
                for (int z = 8; z <= K+7; z += 1)
                    {
                        C[x][y][z] = (-0.375 * A[x][y][z]);
                    }
#pragma omplc for domain(8:N+7, 7:2*M+7, 9:K+7) with (i, j, k) read C {(i,j,k+1)}, write D {(i,j,k)}
        for (int i = 8; i <= N+7; i++)
            for (int j = 7; j < 2*M+7 + 1; ++j)
                for (int k = 9; k <= K+7; k += 1)
                    {
                        D[i][j][k] = (0.034482758620689655 * C[i][j][k+1]);
                    }
#pragma omplc for domain(8:N+7, 8:2*M+7, 9:K+7) with (ii, jj, kk) read D {(ii,jj,kk)}, write E {(ii,jj,kk)}
        for (int ii = 8; ii <= N+7; ii++)
            for (int jj = 8; jj < 2*M+7 + 1; ++jj)
                for (int kk = 9; kk <= K+7; kk += 1)
                    {
                        E[ii][jj][kk] = (0.05 * D[ii][jj][kk]);
                    }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*A)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*C)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*D)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*E)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    fill((double *)A, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)C, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)D, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)E, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
#ifdef FT_SENTINEL
    memset(C, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    memset(D, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    memset(E, 0x5A, sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
#endif
    kernel(N, M, K, T, A, C, D, E);
#ifdef FT_SENTINEL
    {
        const unsigned char *p_ = (const unsigned char *)C;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL C untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)D;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL D untouched: %s\n", n_ ? "no" : "yes");
    }
    {
        const unsigned char *p_ = (const unsigned char *)E;
        size_t k_, n_ = 0;
        for (k_ = 0; k_ < sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16); k_++)
            n_ += p_[k_] != 0x5A;
        printf("SENTINEL E untouched: %s\n", n_ ? "no" : "yes");
    }
#endif
    dump("A", (const double *)A, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    free(A);
    free(C);
    free(D);
    free(E);
    return 0;
}
