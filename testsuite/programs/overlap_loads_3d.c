/* overlap_loads_3d.c -- overlapped tiling of chains of 3-D nests whose
 * scratchpad data sets are also read from before the chain ("loads") made
 * isl's code generator need more than 3 GB (found by tools/difftest: program
 * 202602101 of seed 2026, `--scalene`).
 *
 * The elements a tile loads (read from before the chain) form a union of
 * translated strips clipped by the stages' domains and by the first and last
 * tiles; as a loop domain it made isl separate dozens of pieces at every
 * level. Fixed: a load now runs over the scratchpad's box, guarded by the
 * (tile-independent) set of elements the group reads from before the chain
 * (storage.rs, `boxed_load`); flextile takes about a second.
 * Region 1: four 3-D stencils (pragma tile((8,5,16), parallel, wavefront));
 * region 2: two fused 3-D stencils. Kept as a regression test. With
 * --stack-limit 0 the tiles' scratchpads live on the heap.
 *
 * flextile-test: args: 1 1 7 1 | 7 8 8 1 | 14 11 8 2
 * flextile-test: options: --scalene | --rectangle | --scalene --tile-sizes 5,8,8 | --rectangle --tile-sizes 3,2,4 | --scalene --overlap-dims 0,2 --tile-sizes 4,3,5 | default | --rectangle --tile-sizes 5,8,8 --stack-limit 0
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16][2*K+16], double B[N+16][M+16][2*K+16], double C[N+16][M+16][2*K+16], double D[N+16][M+16][2*K+16], double E[N+16][M+16][2*K+16], double F[N+16][M+16][2*K+16], double G[N+16][M+16][2*K+16], double ft_floord[N+16][M+16][2*K+16])
{
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule(tile((8,5,16), parallel, wavefront), parallel)
    {
#pragma omplc for domain(8:N+6, 7:M+6, 11:2*K+6) with (x, y, z) read B {(x-1,y,z),(x,y,z-1),(x,y-1,z+6),(x+3,y-2,z)}, write A {(x,y,z)}
        for (int x = 8; N+6 >= x; x = x + 1)
            for (int y = 7; y <= M+6; y++)
                for (int z = 11; z < 2*K+6 + 1; ++z)
                    {
                        A[x][y][z] = sqrt(fabs((-0.5 * B[x-1][y][z] + -0.05 * B[x][y][z-1] + 0.05 * B[x][y-1][z+6] + 0.0625 * B[x+3][y-2][z])));
                    }
#pragma omplc for /* nest */ domain(7:N+7, 7:M+9, 7:2*K+4) with (i0, i1, i2) \
    read A {(i0,i1-1,i2-1),(i0-1,i1-2,i2),(i0,i1,i2+3)}, /* access 0 */ \
    write C {(i0,i1+2,i2-1)} /* access 1 */
        for (int i0 = 7; i0 <= N+7; i0 += 1)
            for (int i1 = 7; M+9 >= i1; i1 = i1 + 1)
                for (int i2 = 7; i2 <= 2*K+4; i2++)
                    {
                        C[i0][i1+2][i2-1] = (0.05 * A[i0][i1-1][i2-1] + 0.3 * A[i0-1][i1-2][i2] + 0.125 * A[i0][i1][i2+3]);
                    }
#pragma omplc for domain(8:N+7, 8:M+7, 8:2*K+6) with (row, col, dep) read B {(row+4,col-1,dep+3)}, read C {(row,col,dep-2)}, read E {(row,col+2,dep-1),(row+1,col-3,dep)}, write D {(row,col,dep)}
        for (int row = 8; row <= N+7; row++)
            for (int col = 8; col < M+7 + 1; ++col)
                for (int dep = 8; dep <= 2*K+6; dep += 1)
                    {
                        D[row][col][dep] = (0.14010507880910683 * B[row+4][col-1][dep+3] + 0.14010507880910683 * C[row][col][dep-2] + 0.10507880910683014 * E[row][col+2][dep-1] + -0.29422066549912435 * E[row+1][col-3][dep] + 0.29422066549912435 * 0.5 + 0.026269702276707534 * (double)((2 * row + 1 * col + 6 * dep) % 3) * 0.0625);
                    }
#pragma omplc for domain(6:N+6, 8:M+8, 6:2*K+6) \
    with (c0, c1, c2) \
    read E {(c0,c1-1,c2)}, read B {(c0+2,c1+1,c2)}, write F {(c0,c1,c2)}
        for (int c0 = 6; c0 <= N+6; c0++)
            for (int c1 = 8; c1 < M+8 + 1; ++c1)
                for (int c2 = 6; c2 <= 2*K+6; c2 += 1)
                    {
                        F[c0][c1][c2] = (-0.05 * E[c0][c1-1][c2] + 0.3333333333333333 * B[c0+2][c1+1][c2]);
                    }
    }
    #pragma omplc loopchain schedule(fuse(), tile((5), parallel, parallel))
    {
#pragma omplc for domain( 9:N+8 ,  7:M+7 ,  8:2*K+7 ) with( i0, i1, i2 ) read F {(i0-2,i1,i2+1),(i0-1,i1,i2)} , write G {(i0,i1,i2)}
        for (int i0 = 9; i0 <= N+8; i0 += 1)
            for (int i1 = 7; M+7 >= i1; i1 = i1 + 1)
                for (int i2 = 8; i2 <= 2*K+7; i2++)
                    {
                        G[i0][i1][i2] = sqrt(fabs((0.05 * F[i0-2][i1][i2+1] + 0.125 * F[i0-1][i1][i2])));
                    }
#pragma omplc for domain(9:N+8, 7:M+7, 8:2*K+7) with (x, y, z) read F {(x-1,y,z+1)}, write ft_floord {(x,y,z)}
        for (int x = 9; x <= N+8; x++)
            for (int y = 7; y < M+7 + 1; ++y)
                for (int z = 8; z <= 2*K+7; z += 1)
                    {
                        ft_floord[x][y][z] = (0.5 * F[x-1][y][z+1]);
                    }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*A)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*B)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*C)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*D)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*E)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*F)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*G)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    double (*ft_floord)[M+16][2*K+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16) * (size_t)(2*K+16));
    fill((double *)A, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)B, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)C, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)D, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)E, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)F, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)G, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    fill((double *)ft_floord, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    kernel(N, M, K, T, A, B, C, D, E, F, G, ft_floord);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("F", (const double *)F, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("G", (const double *)G, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    dump("ft_floord", (const double *)ft_floord, (long)(N+16) * (long)(M+16) * (long)(2*K+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    free(G);
    free(ft_floord);
    return 0;
}
