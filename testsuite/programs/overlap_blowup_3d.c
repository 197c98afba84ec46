/* overlap_blowup_3d.c -- overlapped tiling of four 3-D stencils with one
 * common domain runs out of memory (found by tools/difftest: program 2000015
 * of seed 20).
 *
 * Four 3-D stencils with asymmetric offsets (up to 4), all over the same
 * domain. With a 3 GB limit, `flextile --rectangle` aborts after 53 s and
 * `flextile --scalene` after 195 s (isl's imath asserts on a failed
 * allocation); `--tile` takes 0.1 s. Same family as overlap_blowup.c, without
 * the differing domains.
 * Fixed: each stage's per-tile region is now the trapezoid (box) of eq. 3
 * around its exact region (overlap.rs, `box_region`), and the loads' loops
 * are atomic; flextile now takes under 2 s. Kept as a regression test.
 *
 * flextile-test: args: 1 1 1 0 | 3 4 5 0 | 9 11 10 0
 * flextile-test: options: --rectangle | --scalene | --rectangle --tile-sizes 2,3,4 | --scalene --tile-sizes 4,3,2 | --rectangle --overlap-dims 0,2 --tile-sizes 2,3,4 | --scalene --overlap-dims 1,2 --tile-sizes 3,2,2
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16][K+16], double B[N+16][M+16][K+16], double C[N+16][M+16][K+16], double D[N+16][M+16][K+16], double E[N+16][M+16][K+16], double F[N+16][M+16][K+16])
{
    int col, dep, i, j, k, row, x, y, z;
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain \
        schedule(parallel)
    {
#pragma omplc for /* nest */ domain(11:N+9, 8:M+4, 8:K+6) with (x, y, z) \
    read B {(x-3,y-4,z),(x-1,y+1,z+3)}, /* access 0 */ \
    read C {(x+1,y-2,z-1)}, /* access 1 */ \
    write A {(x,y,z)} /* access 2 */
        for (x = 11; N+9 >= x; x = x + 1)
            for (y = 8; y <= M+4; y++)
                for (z = 8; z < K+6 + 1; ++z)
                    {
                        A[x][y][z] = (0.3 * B[x-3][y-4][z] + 0.375 * B[x-1][y+1][z+3] + -0.05 * C[x+1][y-2][z-1]);
                    }
#pragma omplc for domain(11:N+9, 8:M+4, 8:K+6) with (i, j, k) read A {(i,j+1,k-3)}, read C {(i,j-4,k-4),(i,j+2,k)}, write D {(i,j,k)}
        for (i = 11; N+9 >= i; i = i + 1)
            for (j = 8; j <= M+4; j++)
                for (k = 8; k < K+6 + 1; ++k)
                    {
                        D[i][j][k] = fmax((0.3333333333333333 * A[i][j+1][k-3]), (-0.25 * C[i][j-4][k-4] + -0.0625 * C[i][j+2][k] + 0.3 * 0.125));
                    }
#pragma omplc for /* nest */ domain(11:N+9, 8:M+4, 8:K+6) with (x, y, z) \
    read A {(x-3,y+4,z-4)}, /* access 0 */ \
    read D {(x,y+2,z-1),(x,y,z+1)}, /* access 1 */ \
    write E {(x,y,z)} /* access 2 */
        for (x = 11; x <= N+9; x++)
            for (y = 8; y < M+4 + 1; ++y)
                for (z = 8; z <= K+6; z += 1)
                    {
                        E[x][y][z] = fmax((-0.05 * A[x-3][y+4][z-4]), (0.0625 * D[x][y+2][z-1] + 0.125 * D[x][y][z+1]));
                    }
#pragma omplc for domain(11:N+9, 8:M+4, 8:K+6) with (row, col, dep) read B {(row+1,col-2,dep)}, read E {(row-2,col+2,dep)}, read C {(row,col,dep+3)}, write F {(row,col,dep)}
        for (row = 11; row <= N+9; row++)
            for (col = 8; col < M+4 + 1; ++col)
                for (dep = 8; dep <= K+6; dep += 1)
                    {
                        F[row][col][dep] = (0.375 * B[row+1][col-2][dep] + 0.25 * E[row-2][col+2][dep] + -0.2 * C[row][col][dep+3]);
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
    double (*B)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*C)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*D)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*E)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    double (*F)[M+16][K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(K+16));
    fill((double *)A, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)B, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)C, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)D, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)E, (long)(N+16) * (long)(M+16) * (long)(K+16));
    fill((double *)F, (long)(N+16) * (long)(M+16) * (long)(K+16));
    kernel(N, M, K, T, A, B, C, D, E, F);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(M+16) * (long)(K+16));
    dump("F", (const double *)F, (long)(N+16) * (long)(M+16) * (long)(K+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    return 0;
}
