/* overlap_blowup.c -- overlapped tiling of four 2-D stages with different
 * domains runs out of memory or time (found by tools/difftest: program
 * 7700001 of seed 77, minimised).
 *
 * A chain of four 2-D stages (pointwise and small stencils), each with its
 * own domain (lower bounds 7..11, upper bounds N+4..N+9), one of them
 * writing G at an offset (x+3, y+3). `flextile --rectangle` (any tile sizes)
 * needs more than 3 GB within 8 s (isl's imath then asserts on a failed
 * allocation); `flextile --scalene` runs past 120 s. The classic options
 * compile it at once. (The same happens with three 3-D stencils, program
 * 400136 of seed 4.) Probably unions of per-tile regions and loads that isl
 * never simplifies; overlapped tiling should bound them (e.g. by
 * coalescing, simple hulls, or a box per stage and tile).
 * Fixed: each stage's per-tile region is now the trapezoid (box) of eq. 3
 * around its exact region (overlap.rs, `box_region`), and the loads' loops
 * are atomic; flextile now takes under 2 s. Kept as a regression test.
 *
 * flextile-test: args: 1 1 1 0 | 13 9 1 0 | 45 50 1 0
 * flextile-test: options: --rectangle | --scalene | --rectangle --tile-sizes 8,8 | --scalene --tile-sizes 5,7 | --rectangle --tile-sizes 40,40 | --scalene --overlap-dims 1 --tile-sizes 7,5 | --rectangle --overlap-dims 0 --tile-sizes 3,4
 * flextile-test: cuda-refused: more than a CUDA thread block's 49152 bytes of static shared memory
 * flextile-test: cuda-refused-options: --rectangle --tile-sizes 40,40
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16], double B[N+16][M+16], double C[N+16][M+16], double D[N+16][M+16], double E[N+16][M+16], double F[N+16][M+16], double G[N+16][M+16], double H[N+16][M+16], double J[N+16][M+16], double L[N+16][M+16], double P[N+16][M+16], double Q[N+16][M+16], double R[N+16][M+16], double U[2*N+16][2*M+16], double V[2*N+16][2*M+16], double W[2*N+16][2*M+16], double X[2*N+16][2*M+16], double Y[2*N+16][2*M+16])
{
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule()
    {
#pragma omplc for domain(8:N+4, 11:M+9) with (i, j) read A {(i+3,j)}, write E {(i,j)}
        for (int i = 8; i <= N+4; i++)
            for (int j = 11; j < M+9 + 1; ++j)
                {
                    E[i][j] = (-0.375 * A[i+3][j]);
                }
#pragma omplc for domain(7:N+7, 9:M+4) with (x, y) read E {(x,y)}, write G {(x+3,y+3)}
        for (int x = 7; x <= N+7; x++)
            for (int y = 9; y < M+4 + 1; ++y)
                {
                    G[x+3][y+3] = (-0.5384615384615384 * E[x][y]);
                }
#pragma omplc for domain(10:N+8, 9:M+9) with (c0, c1) read G {(c0,c1)}, write H {(c0,c1)}
        for (int c0 = 10; c0 <= N+8; c0++)
            for (int c1 = 9; c1 < M+9 + 1; ++c1)
                {
                    H[c0][c1] = (0.1 * G[c0][c1]);
                }
#pragma omplc for domain(8:N+9, 10:M+7) with (i0, i1) read H {(i0+6,i1-3),(i0,i1-4)}, write J {(i0,i1)}
        for (int i0 = 8; N+9 >= i0; i0 = i0 + 1)
            for (int i1 = 10; i1 <= M+7; i1++)
                {
                    J[i0][i1] = (-0.25 * H[i0+6][i1-3] + 0.16666666666666666 * H[i0][i1-4] + -0.25 * 0.5);
                }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*A)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*B)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*C)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*D)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*E)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*F)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*G)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*H)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*J)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*L)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*P)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*Q)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*R)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*U)[2*M+16] = xmalloc(sizeof(double) * (size_t)(2*N+16) * (size_t)(2*M+16));
    double (*V)[2*M+16] = xmalloc(sizeof(double) * (size_t)(2*N+16) * (size_t)(2*M+16));
    double (*W)[2*M+16] = xmalloc(sizeof(double) * (size_t)(2*N+16) * (size_t)(2*M+16));
    double (*X)[2*M+16] = xmalloc(sizeof(double) * (size_t)(2*N+16) * (size_t)(2*M+16));
    double (*Y)[2*M+16] = xmalloc(sizeof(double) * (size_t)(2*N+16) * (size_t)(2*M+16));
    fill((double *)A, (long)(N+16) * (long)(M+16));
    fill((double *)B, (long)(N+16) * (long)(M+16));
    fill((double *)C, (long)(N+16) * (long)(M+16));
    fill((double *)D, (long)(N+16) * (long)(M+16));
    fill((double *)E, (long)(N+16) * (long)(M+16));
    fill((double *)F, (long)(N+16) * (long)(M+16));
    fill((double *)G, (long)(N+16) * (long)(M+16));
    fill((double *)H, (long)(N+16) * (long)(M+16));
    fill((double *)J, (long)(N+16) * (long)(M+16));
    fill((double *)L, (long)(N+16) * (long)(M+16));
    fill((double *)P, (long)(N+16) * (long)(M+16));
    fill((double *)Q, (long)(N+16) * (long)(M+16));
    fill((double *)R, (long)(N+16) * (long)(M+16));
    fill((double *)U, (long)(2*N+16) * (long)(2*M+16));
    fill((double *)V, (long)(2*N+16) * (long)(2*M+16));
    fill((double *)W, (long)(2*N+16) * (long)(2*M+16));
    fill((double *)X, (long)(2*N+16) * (long)(2*M+16));
    fill((double *)Y, (long)(2*N+16) * (long)(2*M+16));
    kernel(N, M, K, T, A, B, C, D, E, F, G, H, J, L, P, Q, R, U, V, W, X, Y);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(M+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(M+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(M+16));
    dump("F", (const double *)F, (long)(N+16) * (long)(M+16));
    dump("G", (const double *)G, (long)(N+16) * (long)(M+16));
    dump("H", (const double *)H, (long)(N+16) * (long)(M+16));
    dump("J", (const double *)J, (long)(N+16) * (long)(M+16));
    dump("L", (const double *)L, (long)(N+16) * (long)(M+16));
    dump("P", (const double *)P, (long)(N+16) * (long)(M+16));
    dump("Q", (const double *)Q, (long)(N+16) * (long)(M+16));
    dump("R", (const double *)R, (long)(N+16) * (long)(M+16));
    dump("U", (const double *)U, (long)(2*N+16) * (long)(2*M+16));
    dump("V", (const double *)V, (long)(2*N+16) * (long)(2*M+16));
    dump("W", (const double *)W, (long)(2*N+16) * (long)(2*M+16));
    dump("X", (const double *)X, (long)(2*N+16) * (long)(2*M+16));
    dump("Y", (const double *)Y, (long)(2*N+16) * (long)(2*M+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    free(G);
    free(H);
    free(J);
    free(L);
    free(P);
    free(Q);
    free(R);
    free(U);
    free(V);
    free(W);
    free(X);
    free(Y);
    return 0;
}
