/* pipeline_blur2d.c -- a 2-D image pipeline (blur x, blur y, unsharp mask) as a loop chain
 * whose nests use different iterator names.
 *
 *   nest 1 (y, x): BX[y][x] = (IN[y][x-1] + 2*IN[y][x] + IN[y][x+1]) * 0.25
 *                  over 0..H-1 x 1..W-2
 *   nest 2 (i, j): BY[i][j] = (BX[i-1][j] + 2*BX[i][j] + BX[i+1][j]) * 0.25
 *                  over 1..H-2 x 1..W-2
 *   nest 3 (r, c): OUT[r][c] = IN[r][c] + 1.5*(IN[r][c] - BY[r][c]), clamped to
 *                  [0, 1] with an if/else inside the body, over 1..H-2 x 1..W-2
 * Schedule: fuse(), tile((8,16), serial, serial). Legal shifts: (0,0) for
 * nest 1, (1,0) for nests 2 and 3 (nest 2 reads BX one row ahead). The fused
 * band then has dependence distances (0,0), (1,0) and (2,0): permutable, so
 * tileable, and the row loops carry dependences (a 'parallel' treatment of the
 * tile loops would be illegal: the outer tile loop runs over rows).
 * Exercises: fusion by loop position across nests whose iterators have
 * different names, non-square images (H x W), float data (evaluated in float,
 * literals with f), a body with several statements, a local variable and
 * data-dependent if/else.
 * Output: BX, BY and OUT in full (hashed above 4096 elements), as doubles.
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33 | 64 100
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --tile --tile-sizes 5,3 | --no-openmp | --rectangle | --scalene | --rectangle --tile-sizes 7,5,3 | --scalene --tile-sizes 5,3,2 | --rectangle --overlap-dims 1 --tile-sizes 4,8 | --scalene --overlap-dims 0 --tile-sizes 5,3 | --rectangle --overlap-dims 0 --tile-sizes 3,2 | --rectangle --overlap-dims 0 --tile-sizes 4,16 --point-chunk 3 | --rectangle --overlap-dims 1 --tile-sizes 4,8 --point-chunk 2
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

static void pipeline(int H, int W, float IN[H][W], float BX[H][W], float BY[H][W], float OUT[H][W])
{
#pragma omplc loopchain schedule(fuse(), tile((8,16), serial, serial))
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x),(y,x+1)}, write BX {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                BX[y][x] = (IN[y][x-1] + 2.0f * IN[y][x] + IN[y][x+1]) * 0.25f;

#pragma omplc for domain(1:H-2, 1:W-2) with (i, j) read BX {(i-1,j),(i,j),(i+1,j)}, write BY {(i,j)}
        for (int i = 1; i <= H - 2; i++)
            for (int j = 1; j <= W - 2; j++)
                BY[i][j] = (BX[i-1][j] + 2.0f * BX[i][j] + BX[i+1][j]) * 0.25f;

#pragma omplc for domain(1:H-2, 1:W-2) with (r, c) read IN {(r,c)}, read BY {(r,c)}, write OUT {(r,c)}
        for (int r = 1; r <= H - 2; r++)
            for (int c = 1; c <= W - 2; c++) {
                float v = IN[r][c] + 1.5f * (IN[r][c] - BY[r][c]);
                if (v < 0.0f)
                    OUT[r][c] = 0.0f;
                else if (v > 1.0f)
                    OUT[r][c] = 1.0f;
                else
                    OUT[r][c] = v;
            }
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
    float (*IN)[W] = xmalloc(sizeof(float) * H * W);
    float (*BX)[W] = xmalloc(sizeof(float) * H * W);
    float (*BY)[W] = xmalloc(sizeof(float) * H * W);
    float (*OUT)[W] = xmalloc(sizeof(float) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            BX[i][j] = BY[i][j] = OUT[i][j] = -1.0f;
        }
    pipeline(H, W, IN, BX, BY, OUT);
    dumpf("BX", H, W, BX);
    dumpf("BY", H, W, BY);
    dumpf("OUT", H, W, OUT);
    free(IN);
    free(BX);
    free(BY);
    free(OUT);
    return 0;
}
