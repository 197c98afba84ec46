/* pipeline_sampling2d.c -- a 2-D pyramid step: down-sample, blur at the
 * coarse level, up-sample, combine at the fine level (alignment and scaling,
 * core paper §3.7).
 *
 *   nest 1 (x, y) coarse: D[x][y] = (IN[2x-1][2y] + 2*IN[2x][2y] + IN[2x+1][2y]) / 4
 *   nest 2 (x, y) coarse: C[x][y] = (D[x][y-1] + 2*D[x][y] + D[x][y+1]) / 4
 *   nest 3 (xh, yh) coarse, writes four fine points:
 *                  U[2xh+a][2yh+b] from C[xh][yh], C[xh+1][yh], C[xh][yh+1]
 *   nest 4 (x, y) fine: OUT[x][y] = IN[x][y] - U[x][y]
 * Nest 4 depends on nest 3 through U[2xh+a][2yh+b]: the distance is not
 * constant until nests 1-3 are scaled by 2 against nest 4 in both loops.
 * Overlapped tiling must then tile in scaled coordinates (tile sizes that are
 * multiples of 2) and fuse all four nests (with 3,5 the fine nest is left
 * out of the group, as it cannot be aligned). Sizes 1 or 2 leave empty coarse
 * domains. With --stack-limit 0 the scratchpads (a union of two among them)
 * live on the heap, allocated once per thread (per tile without OpenMP).
 * Output: every array.
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 37 41
 * flextile-test: options: default | --tile --tile-sizes 4,6 | --rectangle | --scalene | --scalene --tile-sizes 3,5 | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 6,2 | --rectangle --tile-sizes 2,2 | --rectangle --overlap-dims 1 --tile-sizes 4,8 | --scalene --overlap-dims 0 --tile-sizes 6,4 | --rectangle --tile-sizes 4,8 --point-chunk 0 | --rectangle --tile-sizes 4,16 --point-chunk 3 | --scalene --stack-limit 0 | --rectangle --tile-sizes 4,8 --stack-limit 0 | --no-openmp --scalene --stack-limit 0
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

static void pipeline(int H, int W, double IN[2*H+2][2*W+2], double D[H+2][W+2], double C[H+2][W+2],
                     double U[2*H+2][2*W+2], double OUT[2*H+2][2*W+2])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:H, 1:W) with (x, y) read IN {(2*x-1,2*y),(2*x,2*y),(2*x+1,2*y)}, write D {(x,y)}
        for (int x = 1; x <= H; x++)
            for (int y = 1; y <= W; y++)
                D[x][y] = (IN[2*x-1][2*y] + 2.0 * IN[2*x][2*y] + IN[2*x+1][2*y]) * 0.25;

#pragma omplc for domain(1:H, 2:W-1) with (x, y) read D {(x,y-1),(x,y),(x,y+1)}, write C {(x,y)}
        for (int x = 1; x <= H; x++)
            for (int y = 2; y <= W - 1; y++)
                C[x][y] = (D[x][y-1] + 2.0 * D[x][y] + D[x][y+1]) * 0.25;

#pragma omplc for domain(1:H-1, 2:W-2) with (xh, yh) read C {(xh,yh),(xh+1,yh),(xh,yh+1)}, \
    write U {(2*xh,2*yh),(2*xh+1,2*yh),(2*xh,2*yh+1),(2*xh+1,2*yh+1)}
        for (int xh = 1; xh <= H - 1; xh++)
            for (int yh = 2; yh <= W - 2; yh++) {
                U[2*xh][2*yh] = C[xh][yh];
                U[2*xh+1][2*yh] = 0.5 * (C[xh][yh] + C[xh+1][yh]);
                U[2*xh][2*yh+1] = 0.5 * (C[xh][yh] + C[xh][yh+1]);
                U[2*xh+1][2*yh+1] = 0.25 * (2.0 * C[xh][yh] + C[xh+1][yh] + C[xh][yh+1]);
            }

#pragma omplc for domain(2:2*H-1, 4:2*W-3) with (x, y) read IN {(x,y)}, read U {(x,y)}, write OUT {(x,y)}
        for (int x = 2; x <= 2*H - 1; x++)
            for (int y = 4; y <= 2*W - 3; y++)
                OUT[x][y] = IN[x][y] - 0.75 * U[x][y];
    }
}

static void dump2(const char *name, int R, int S, double a[R][S])
{
    int dims[2] = {R, S};
    dump(name, &a[0][0], 2, dims);
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 20, 1);
    int W = arg_int(argc, argv, 2, 30, 1);
    double (*IN)[2*W+2] = xmalloc(sizeof(double) * (2*H+2) * (2*W+2));
    double (*D)[W+2] = xmalloc(sizeof(double) * (H+2) * (W+2));
    double (*C)[W+2] = xmalloc(sizeof(double) * (H+2) * (W+2));
    double (*U)[2*W+2] = xmalloc(sizeof(double) * (2*H+2) * (2*W+2));
    double (*OUT)[2*W+2] = xmalloc(sizeof(double) * (2*H+2) * (2*W+2));
    for (int i = 0; i < 2*H+2; i++)
        for (int j = 0; j < 2*W+2; j++) {
            IN[i][j] = next_value();
            U[i][j] = OUT[i][j] = -1.0;
        }
    for (int i = 0; i < H+2; i++)
        for (int j = 0; j < W+2; j++)
            D[i][j] = C[i][j] = -2.0;
    pipeline(H, W, IN, D, C, U, OUT);
    dump2("D", H+2, W+2, D);
    dump2("C", H+2, W+2, C);
    dump2("U", 2*H+2, 2*W+2, U);
    dump2("OUT", 2*H+2, 2*W+2, OUT);
    free(IN);
    free(D);
    free(C);
    free(U);
    free(OUT);
    return 0;
}
