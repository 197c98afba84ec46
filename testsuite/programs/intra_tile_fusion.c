/* intra_tile_fusion.c -- intra-tile loop fusion for register reuse (seed
 * 002 §5.3) under overlapped tiling.
 *
 * chain(): GX and GY read IN at points that overlap (IN[y-1][x-1]), over
 * the same domain, are read by OUT at the same points and are independent:
 * their point loops are fused inside a tile; GV reads IN[y+1][x] as GY
 * does and joins them (three stages in one loop). GZ reads GX (a
 * dependence: not fused with it), GD runs over a smaller domain (other
 * points per tile: not fused), GW reads IN at points no other stage reads
 * at the same point (no common input: not fused), LA and LB are live-out
 * (stored to their arrays in the tile: not fused).
 * Output: OUT, LA, LB.
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33
 * flextile-test: options: default | --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,5 | --rectangle --no-intra-tile-fusion | --rectangle --point-chunk 3 --tile-sizes 4,16 | --scalene --no-openmp
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

static void chain(int H, int W, float IN[H][W], float GX[H][W], float GY[H][W], float GV[H][W],
                  float GZ[H][W], float GD[H][W], float GW[H][W], float LA[H][W], float LB[H][W],
                  float OUT[H][W])
{
#pragma omplc loopchain schedule() temporary(GX, GY, GV, GZ, GD, GW)
    {
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y,x-1),(y,x+1),(y-1,x-1)}, write GX {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                GX[y][x] = IN[y][x-1] * 0.25f - IN[y][x+1] + IN[y-1][x-1];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y-1,x),(y+1,x),(y-1,x-1)}, write GY {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                GY[y][x] = IN[y-1][x] - IN[y+1][x] * 0.5f - IN[y-1][x-1];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y+1,x),(y,x)}, write GV {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                GV[y][x] = IN[y+1][x] * IN[y][x] + 0.125f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read GX {(y,x)}, read IN {(y,x)}, write GZ {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                GZ[y][x] = GX[y][x] * IN[y][x];
#pragma omplc for domain(2:H-3, 2:W-3) with (y, x) read IN {(y,x)}, write GD {(y,x)}
        for (int y = 2; y <= H - 3; y++)
            for (int x = 2; x <= W - 3; x++)
                GD[y][x] = IN[y][x] - 1.0f;
#pragma omplc for domain(2:H-3, 2:W-3) with (y, x) read IN {(y+2,x+2)}, write GW {(y,x)}
        for (int y = 2; y <= H - 3; y++)
            for (int x = 2; x <= W - 3; x++)
                GW[y][x] = IN[y+2][x+2] * 3.0f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y,x)}, write LA {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                LA[y][x] = IN[y][x] * 2.0f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y,x)}, write LB {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                LB[y][x] = IN[y][x] + 2.0f;
#pragma omplc for domain(2:H-3, 2:W-3) with (y, x) \
            read GX {(y,x-1),(y,x),(y-1,x)}, read GY {(y,x-1),(y,x),(y-1,x)}, read GV {(y,x-1),(y,x),(y-1,x)}, \
            read GZ {(y,x)}, read GD {(y,x)}, read GW {(y,x)}, read LA {(y,x)}, write OUT {(y,x)}
        for (int y = 2; y <= H - 3; y++)
            for (int x = 2; x <= W - 3; x++)
                OUT[y][x] = GX[y][x-1] * GX[y][x] - GX[y-1][x] + GY[y-1][x] - GY[y][x-1] * GY[y][x]
                            + GV[y][x] * GV[y-1][x] + GV[y][x-1]
                            + GZ[y][x] + GD[y][x] * GW[y][x] + LA[y][x];
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
    int H = arg_int(argc, argv, 1, 20, 1);
    int W = arg_int(argc, argv, 2, 30, 1);
    size_t n = (size_t)H * W;
    float (*IN)[W] = xmalloc(sizeof(float) * n);
    float (*f[9])[W];
    for (int k = 0; k < 9; k++)
        f[k] = xmalloc(sizeof(float) * n);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            for (int k = 0; k < 9; k++)
                f[k][i][j] = -1.0f;
        }
    chain(H, W, IN, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
    dumpf("OUT", H, W, f[8]);
    dumpf("LA", H, W, f[6]);
    dumpf("LB", H, W, f[7]);
    for (int k = 0; k < 9; k++)
        free(f[k]);
    free(IN);
    return 0;
}
