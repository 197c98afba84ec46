/* chain_rows_supertile.c -- tiles of tiles ('tile' as the treatment of the
 * loops over tiles) on chains whose rows are independent.
 *
 * Every chain below runs the same two nests on its own arrays:
 *   nest 1: T[y][x] = IN[y][x-1] + 0.5*IN[y][x+1]          over 0..H-1 x 1..W-2
 *   nest 2: O[y][x] = T[y][x-1] - 0.25*T[y][x+1] + T[y][x]  over 0..H-1 x 2..W-3
 * Fusion needs shifts (0,0),(0,1); every dependence stays inside a row, with
 * column distances 0..2, so rows are independent and columns are not.
 * chain 1, schedule(fuse(), tile((4,5), tile((3), serial, serial), serial)):
 *   the loops over 4x5 tiles are tiled again (the row tile loop by 3). The
 *   column tile loop carries dependences and must not run in parallel.
 * chain 2, schedule(fuse(), tile((8,8), tile((2,2), wavefront, serial), serial)):
 *   2x2 super-tiles of 8x8 tiles run as wavefronts (legal: permutable band).
 * chain 3, schedule(fuse(), tile((4,8), tile((2,3), parallel, serial), serial)):
 *   the super-tile row loop is parallel (legal: rows are independent).
 * Exercises: two-level tiling of the tile loops, with serial, wavefront and
 * parallel super-tile loops, over a fused band with a column shift.
 * Output: T, O, T2, O2, T3, O3 in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 30 | 5 3 | 1 1 | 2 5 | 3 6 | 47 93 | 64 100
 * flextile-test: options: default | --no-openmp | --rectangle | --scalene | --rectangle --tile-sizes 7,5,3 | --scalene --tile-sizes 5,3,2
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

static void kernel(int H, int W, double IN[H][W], double T[H][W], double O[H][W], double T2[H][W],
                   double O2[H][W], double T3[H][W], double O3[H][W])
{
#pragma omplc loopchain schedule(fuse(), tile((4,5), tile((3), serial, serial), serial))
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x+1)}, write T {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                T[y][x] = IN[y][x-1] + 0.5 * IN[y][x+1];
#pragma omplc for domain(0:H-1, 2:W-3) with (y, x) read T {(y,x-1),(y,x),(y,x+1)}, write O {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 2; x <= W - 3; x++)
                O[y][x] = T[y][x-1] - 0.25 * T[y][x+1] + T[y][x];
    }

#pragma omplc loopchain schedule(fuse(), tile((8,8), tile((2,2), wavefront, serial), serial))
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x+1)}, write T2 {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                T2[y][x] = IN[y][x-1] + 0.5 * IN[y][x+1];
#pragma omplc for domain(0:H-1, 2:W-3) with (y, x) read T2 {(y,x-1),(y,x),(y,x+1)}, write O2 {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 2; x <= W - 3; x++)
                O2[y][x] = T2[y][x-1] - 0.25 * T2[y][x+1] + T2[y][x];
    }

#pragma omplc loopchain schedule(fuse(), tile((4,8), tile((2,3), parallel, serial), serial))
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x+1)}, write T3 {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                T3[y][x] = IN[y][x-1] + 0.5 * IN[y][x+1];
#pragma omplc for domain(0:H-1, 2:W-3) with (y, x) read T3 {(y,x-1),(y,x),(y,x+1)}, write O3 {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 2; x <= W - 3; x++)
                O3[y][x] = T3[y][x-1] - 0.25 * T3[y][x+1] + T3[y][x];
    }
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 20, 1);
    int W = arg_int(argc, argv, 2, 30, 1);
    double (*IN)[W] = xmalloc(sizeof(double) * H * W);
    double (*A[6])[W];
    for (int k = 0; k < 6; k++)
        A[k] = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = next_value();
            for (int k = 0; k < 6; k++)
                A[k][i][j] = -1.0 - k;
        }
    kernel(H, W, IN, A[0], A[1], A[2], A[3], A[4], A[5]);
    const char *names[6] = {"T", "O", "T2", "O2", "T3", "O3"};
    int dims[2] = {H, W};
    for (int k = 0; k < 6; k++)
        dump(names[k], &A[k][0][0], 2, dims);
    free(IN);
    for (int k = 0; k < 6; k++)
        free(A[k]);
    return 0;
}
