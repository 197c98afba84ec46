/* overlap_blowup_2d.c -- overlapped tiling of four 2-D stages over one common
 * domain runs past a minute (found by tools/difftest: program 10000436 of
 * seed 100).
 *
 * Four 2-D stages (three stencils, one pointwise) over the same domain, with
 * offsets up to 6 and several consumers of A and C. `flextile --rectangle`
 * and `flextile --scalene` both run past 90 s; the first three nests alone
 * take 1.7 s; `--tile` is instant. Same family as overlap_blowup.c and
 * overlap_blowup_3d.c (without their differing domains or third dimension).
 * Fixed: each stage's per-tile region is now the trapezoid (box) of eq. 3
 * around its exact region (overlap.rs, `box_region`), and the loads' loops
 * are atomic; flextile now takes under 2 s. Kept as a regression test.
 *
 * flextile-test: args: 1 1 1 0 | 9 12 1 0 | 40 37 1 0
 * The last option set gives isl's code generator a budget this chain's
 * group of four stages runs past: flextile splits it in groups of two
 * (tests/budget.rs checks the warning).
 *
 * flextile-test: options: --rectangle | --scalene | --rectangle --tile-sizes 5,5 | --scalene --tile-sizes 3,7 | --rectangle --overlap-dims 1 --tile-sizes 3,4 | --scalene --overlap-dims 0 --tile-sizes 4,3 | --rectangle --max-isl-operations 40000
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16], double B[N+16][M+16], double C[N+16][M+16], double D[N+16][M+16], double E[N+16][M+16])
{
    int col, i0, i1, row, x, y;
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule(wavefront)
    {
#pragma omplc for domain(8:N+7, 11:M+5) with (i0, i1) read B {(i0-1,i1-2)}, write A {(i0,i1)}
        for (i0 = 8; N+7 >= i0; i0 = i0 + 1)
            for (i1 = 11; i1 <= M+5; i1++)
                {
                    A[i0][i1] = (0.3333333333333333 * B[i0-1][i1-2] + 0.375 * -0.25);
                }
#pragma omplc for domain(8:N+7, 11:M+5) with (row, col) read B {(row,col)}, read A {(row,col)}, write C {(row,col)}
        for (row = 8; N+7 >= row; row = row + 1)
            for (col = 11; col <= M+5; col++)
                {
                    C[row][col] = sqrt(fabs((0.3333333333333333 * B[row][col] + 0.375 * A[row][col] + 0.1 * B[row][col])));
                }
#pragma omplc for domain(8:N+7, 11:M+5) with (x, y) read A {(x+3,y),(x+1,y)}, read C {(x,y+2),(x,y+5)}, write D {(x,y)}
        for (x = 8; x <= N+7; x++)
            for (y = 11; y < M+5 + 1; ++y)
                {
                    D[x][y] = sqrt(fabs((-0.11235955056179778 * A[x+3][y] + -0.31460674157303375 * C[x][y+2] + 0.202247191011236 * C[x][y+5] + 0.202247191011236 * A[x+1][y] + -0.16853932584269665 * (double)((6 * x + 4 * y) % 8) * 0.0625)));
                }
#pragma omplc for domain(8:N+7, 11:M+5) with (x, y) read D {(x-1,y-6),(x+3,y),(x,y+5)}, read C {(x+1,y+1)}, write E {(x,y)}
        for (x = 8; x <= N+7; x += 1)
            for (y = 11; M+5 >= y; y = y + 1)
                {
                    E[x][y] = (-0.125 * D[x-1][y-6] + 0.125 * C[x+1][y+1] + 0.25 * D[x+3][y] + 0.125 * D[x][y+5]);
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
    fill((double *)A, (long)(N+16) * (long)(M+16));
    fill((double *)B, (long)(N+16) * (long)(M+16));
    fill((double *)C, (long)(N+16) * (long)(M+16));
    fill((double *)D, (long)(N+16) * (long)(M+16));
    fill((double *)E, (long)(N+16) * (long)(M+16));
    kernel(N, M, K, T, A, B, C, D, E);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(M+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(M+16));
    dump("E", (const double *)E, (long)(N+16) * (long)(M+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    return 0;
}
