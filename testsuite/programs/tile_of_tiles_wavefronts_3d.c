/* tile_of_tiles_wavefronts_3d.c -- difftest program, seed 202601349 (tools/difftest/gen.py), mixed flavor.
 *
 * region 1: scop with a time loop
 *   2-D rowred nest (plain body)
 * region 2: loop chain in a time loop, schedule fuse(), tile((4,7,5), serial, tile((3,4,2), wavefront, wavefront))
 *   3-D stencil nest (macro body)
 *   3-D accum nest (call body)
 *   3-D accum nest (call body)
 *   3-D stencil nest (plain body)
 *   3-D stencil nest (macro body)
 * Arguments: N M K T.
 * Regression test (tools/difftest, seed 2026, `--no-openmp`): five fused 3-D
 * nests with different domains, tiled (4,7,5) and their points tiled again
 * (3,4,2), with wavefronts over the inner tiles and over the points. isl's
 * code generator took more than two minutes (it ran past its default budget
 * of 3M operations per statement, and the serial fallback came too late):
 * every level of every tile was separated into the pieces where different
 * statements run, and the inner tiles (lattice of 3,4,2 from the origin) cut
 * the outer ones (4,7,5) at different places in every tile. Fixed in
 * transform/tile.rs: a tiled-again point band is tiled in the outer tile's
 * local coordinates (inner tiles aligned on its origin), and tiled loops are
 * generated atomic except the innermost one: under 1M operations per
 * statement, about 10 s (tests/budget.rs checks that it fits the default
 * budget without a warning).
 * flextile-test: args: 1 2 1 2 | 4 5 7 2 | 11 10 5 2 | 2 1 3 1
 * flextile-test: options: default | --no-openmp
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 * Overlapped tiling does not apply to the scop: in its time loop two statements
 * share a loop nest (not supported in time-iterated scops); flextile warns and
 * keeps the scop's original loops (the loop chains are tiled).
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 2,3,4
 * flextile-test: fallback-warning: shares its loop nest with another statement
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

#define STAGE1(p0_, p1_, p2_) \
    do { \
        C[(p0_)][(p1_)][(p2_)] = (0.25 * D[(p0_)][(p1_)+4][(p2_)-1] + -0.25 * D[(p0_)][(p1_)][(p2_)-3]); \
    } while (0)

#define STAGE5(p0_, p1_, p2_) \
    do { \
        D[(p0_)][(p1_)][(p2_)] = (0.18461538461538463 * E[(p0_)][(p1_)-1][(p2_)-2] + -0.27692307692307694 * J[(p0_)-3][(p1_)-1][(p2_)-1] + 0.23076923076923078 * E[(p0_)+1][(p1_)+1][(p2_)-3] + 0.3076923076923077 * 0.125); \
    } while (0)

static void stage2(int N, int M, int K, int i0, int i1, int i2, double C[N+16][2*M+16][K+16], double E[N+16][2*M+16][K+16])
{
    E[i0][i1][i2] += (0.3333333333333333 * C[i0][i1][i2-6]);
}

static void stage3(int N, int M, int K, int x, int y, int z, double E[N+16][2*M+16][K+16], double D[N+16][2*M+16][K+16], double G[N+16][2*M+16][K+16], double F[N+16][2*M+16][K+16])
{
    F[x][y][z] += (0.6222222222222222 * E[x-1][y-4][z+2] + 0.3333333333333333 * D[x+3][y][z-2] + 0.044444444444444446 * G[x+3][y][z-1]);
}

/* restrict: the arrays never overlap; flextile cannot check that at run time for
 * the chain's logical data set D_E, and without the promise it would
 * leave the chain as written. */
static void kernel(int N, int M, int K, int T, double A[restrict N+16][M+16][K+16], double B[restrict N+16][M+16], double C[restrict N+16][2*M+16][K+16], double D[restrict N+16][2*M+16][K+16], double E[restrict N+16][2*M+16][K+16], double F[restrict N+16][2*M+16][K+16], double G[restrict N+16][2*M+16][K+16], double H[restrict N+16][2*M+16][K+16], double J[restrict N+16][2*M+16][K+16])
{
    int i0, i1, i2, ii, jj, kk, q, t, x, y, z;
    (void)N; (void)M; (void)K; (void)T;
#pragma scop
    for (t = 0; t < T; t++) {
        for (ii = 6; ii < N+9 + 1; ++ii)
            for (jj = 6; jj <= M+5; jj += 1) {
                B[ii][jj] = 0.0;
                for (q = 8; q <= K+7; q++)
                    B[ii][jj] = 0.5 * B[ii][jj] + 0.5 * A[ii+1][jj][q];
            }
    }
#pragma endscop
    for (int tt = 0; tt < T; tt++) {
        #pragma omplc loopchain /* chain */ schedule( fuse(), tile((4,7,5), serial, tile((3,4,2), wavefront, wavefront)) )
        {
#pragma omplc for domain(7:N+7, 6:2*M+5, 7:K+5) \
    with (ii, jj, kk) \
    read D {(ii,jj+4,kk-1),(ii,jj,kk-3)}, write C {(ii,jj,kk)}
            for (int ii = 7; ii < N+7 + 1; ++ii)
                for (int jj = 6; jj <= 2*M+5; jj += 1)
                    for (int kk = 7; K+5 >= kk; kk = kk + 1)
                        STAGE1(ii, jj, kk);
#pragma omplc for domain(11:N+7, 6:2*M+6, 8:K+9) with (i0, i1, i2) read C {(i0,i1,i2-6)}, read D_E {(i0,i1,i2)}, write D_E {(i0,i1,i2)}
            for (int i0 = 11; i0 <= N+7; i0++)
                for (int i1 = 6; i1 < 2*M+6 + 1; ++i1)
                    for (int i2 = 8; i2 <= K+9; i2 += 1)
                        stage2(N, M, K, i0, i1, i2, C, E);
#pragma omplc for domain(11:N+7, 8:2*M+4, 11:K+7) with (x, y, z) read D_E {(x-1,y-4,z+2)}, read D {(x+3,y,z-2)}, read G {(x+3,y,z-1)}, read F {(x,y,z),(x+1,y+1,z+1)}, write F {(x,y,z)}
            for (int x = 11; N+7 >= x; x = x + 1)
                for (int y = 8; y <= 2*M+4; y++)
                    for (int z = 11; z < K+7 + 1; ++z)
                        stage3(N, M, K, x, y, z, E, D, G, F);
#pragma omplc for domain(8:N+7, 8:2*M+8, 7:K+5) \
    with (x, y, z) \
    read D {(x-1,y+1,z+3)}, read F {(x-1,y+2,z-1)}, write H {(x,y,z)}
            for (int x = 8; x < N+7 + 1; ++x)
                for (int y = 8; y <= 2*M+8; y += 1)
                    for (int z = 7; K+5 >= z; z = z + 1)
                        {
                            if (D[x-1][y+1][z+3] > 0.0)
                                H[x][y][z] = (-0.375 * F[x-1][y+2][z-1] + -0.3 * -0.25);
                        }
#pragma omplc for domain(8:N+6, 9:2*M+6, 11:K+8) with (x, y, z) read D_E {(x,y-1,z-2),(x+1,y+1,z-3)}, read J {(x-3,y-1,z-1)}, write D {(x,y,z)}
            for (int x = 8; x < N+6 + 1; ++x)
                for (int y = 9; y <= 2*M+6; y += 1)
                    for (int z = 11; K+8 >= z; z = z + 1)
                        STAGE5(x, y, z);
        }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*A)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*B)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*C)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*D)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*E)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*F)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*G)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*H)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    double (*J)[2*M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(2*M+16) * (size_t)(K+16));
    fill((double *)A, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)B, (long)(N+16) * (long)(M+16));
    fill((double *)C, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)D, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)E, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)F, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)G, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)H, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    fill((double *)J, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    kernel(N, M, K, T, A, B, C, D, E, F, G, H, J);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("F", (const double *)F, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("G", (const double *)G, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("H", (const double *)H, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    dump("J", (const double *)J, (long)(N+16) * (long)(2*M+16) * (long)(K+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    free(G);
    free(H);
    free(J);
    return 0;
}
