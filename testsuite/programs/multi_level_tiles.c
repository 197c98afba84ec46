/* multi_level_tiles.c -- multi-level tiling (Jangda & Bondhugula, TOPLAS'20, §5.2, Algorithm 4):
 * scalene tiles the cost model sizes for L2 run inner tiles sized for L1,
 * one after another, every stage in each, each producer's inner tile
 * reaching as far right as its consumers read.
 *
 * chain(): B blurs IN (3x3), C reads B two rows above and below and to
 * its right, D reads C likewise, E reads D and B at the same point. The small L1
 * of --cache-sizes makes L1 tiles recompute more than they compute, so the
 * model sizes the tiles for L2 and cuts them for L1 inside.
 * Output: D, E.
 *
 * flextile-test: args: 40 70 | 5 3 | 1 1 | 12 9 | 97 33 | 150 130
 * flextile-test: options: default | --scalene --cache-sizes 2K,256K | --scalene --cache-sizes 8K,256K | --scalene --cache-sizes 8K,256K --no-multi-level | --scalene --cache-sizes 8K,256K --no-openmp | --rectangle --cache-sizes 8K,256K | --scalene --cache-sizes 2K,256K --estimate H=100 --estimate W=100
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

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

static void chain(int H, int W, float IN[H][W], float B[H][W], float C[H][W], float D[H][W],
                  float E[H][W])
{
#pragma omplc loopchain schedule() temporary(B, C)
    {
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y-1,x-1),(y-1,x),(y-1,x+1),(y,x-1),(y,x),(y,x+1),(y+1,x-1),(y+1,x),(y+1,x+1)}, write B {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                B[y][x] = (IN[y-1][x-1] + IN[y-1][x] * 2.0f + IN[y-1][x+1]
                           + IN[y][x-1] * 2.0f + IN[y][x] * 4.0f + IN[y][x+1] * 2.0f
                           + IN[y+1][x-1] + IN[y+1][x] * 2.0f + IN[y+1][x+1]) * 0.0625f;
#pragma omplc for domain(3:H-4, 1:W-3) with (y, x) read B {(y,x+1),(y+2,x),(y-2,x)}, write C {(y,x)}
        for (int y = 3; y <= H - 4; y++)
            for (int x = 1; x <= W - 3; x++)
                C[y][x] = B[y][x+1] - B[y+2][x] * 0.5f + B[y-2][x] * 0.25f;
#pragma omplc for domain(5:H-6, 1:W-5) with (y, x) read C {(y,x+2),(y-2,x),(y+2,x)}, write D {(y,x)}
        for (int y = 5; y <= H - 6; y++)
            for (int x = 1; x <= W - 5; x++)
                D[y][x] = C[y][x+2] * C[y-2][x] + C[y+2][x];
#pragma omplc for domain(5:H-6, 1:W-5) with (y, x) read D {(y,x)}, read B {(y,x)}, write E {(y,x)}
        for (int y = 5; y <= H - 6; y++)
            for (int x = 1; x <= W - 5; x++)
                E[y][x] = D[y][x] - B[y][x] * 3.0f;
    }
}

static void dumpf(const char *name, int H, int W, float a[H][W])
{
    double *tmp = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
            tmp[i * W + j] = a[i][j];
    int dims[2] = {H, W};
    dump(name, tmp, 2, dims);
    free(tmp);
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 40, 1);
    int W = arg_int(argc, argv, 2, 70, 1);
    size_t n = (size_t)H * W;
    float (*IN)[W] = xmalloc(sizeof(float) * n);
    float (*f[4])[W];
    for (int k = 0; k < 4; k++)
        f[k] = xmalloc(sizeof(float) * n);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            for (int k = 0; k < 4; k++)
                f[k][i][j] = -1.0f;
        }
    chain(H, W, IN, f[0], f[1], f[2], f[3]);
    dumpf("D", H, W, f[2]);
    dumpf("E", H, W, f[3]);
    for (int k = 0; k < 4; k++)
        free(f[k]);
    free(IN);
    return 0;
}
