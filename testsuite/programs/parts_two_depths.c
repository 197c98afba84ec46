/* parts_two_depths.c -- a scop of 24 nests whose depth changes once (issue
 * 19): 12 two-dimensional nests, then 12 one-dimensional ones. Under
 * overlapped tiling flextile lowers such a region in two parts, in parallel
 * (no group spans nests of different depths), and must give what lowering it
 * whole gives.
 *
 * A1..A12: A_k = a 3-point average of A_{k-1} along j (k odd) or along the
 *   diagonal (k even),
 *   over i, j in [k, H-1-k] x [k, W-1-k], A_0 = IN; A1..A11 are the
 *   function's own arrays (VLAs: temporaries flextile proves), A12 is OUT2.
 * B1..B12: B1[i] = A6[i][6] + 0.5 * A12[i][12] over [12, H-13]; B_k[i] =
 *   0.5 * B_{k-1}[i] + 0.25 * B_{k-1}[i-1] over [11+k, H-13]; B1..B11 are
 *   the function's own, B12 is OUT1.
 *   A6 is read by the second part: it must reach memory although the first
 *   part's groups hold it in their scratchpads (it is no temporary of the
 *   first part), while A1..A5 and A7..A11 never do.
 * The program prints OUT2 and OUT1.
 *
 * flextile-test: args: 30 30 | 25 25 | 40 61 | 64 33 | 47 26
 * flextile-test: options: default | --tile | --rectangle --fatal-warnings | --scalene --fatal-warnings | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 5,3 | --rectangle --tile-sizes 16,16 --grouping none | --rectangle --overlap-dims 1 --tile-sizes 4,8 | --rectangle --no-infer-temporaries
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


static void pipeline(int H, int W, double IN[H][W], double OUT2[H][W], double OUT1[H])
{
    double A1[H][W];
    double A2[H][W];
    double A3[H][W];
    double A4[H][W];
    double A5[H][W];
    double A6[H][W];
    double A7[H][W];
    double A8[H][W];
    double A9[H][W];
    double A10[H][W];
    double A11[H][W];
    double B1[H];
    double B2[H];
    double B3[H];
    double B4[H];
    double B5[H];
    double B6[H];
    double B7[H];
    double B8[H];
    double B9[H];
    double B10[H];
    double B11[H];
    int i, j;
#pragma scop
    for (i = 1; i <= H - 1 - 1; i++)
        for (j = 1; j <= W - 1 - 1; j++)
            A1[i][j] = (IN[i][j - 1] + 2.0 * IN[i][j] + IN[i][j + 1]) * 0.25;
    for (i = 2; i <= H - 1 - 2; i++)
        for (j = 2; j <= W - 1 - 2; j++)
            A2[i][j] = (A1[i - 1][j - 1] + 2.0 * A1[i][j] + A1[i + 1][j + 1]) * 0.25;
    for (i = 3; i <= H - 1 - 3; i++)
        for (j = 3; j <= W - 1 - 3; j++)
            A3[i][j] = (A2[i][j - 1] + 2.0 * A2[i][j] + A2[i][j + 1]) * 0.25;
    for (i = 4; i <= H - 1 - 4; i++)
        for (j = 4; j <= W - 1 - 4; j++)
            A4[i][j] = (A3[i - 1][j - 1] + 2.0 * A3[i][j] + A3[i + 1][j + 1]) * 0.25;
    for (i = 5; i <= H - 1 - 5; i++)
        for (j = 5; j <= W - 1 - 5; j++)
            A5[i][j] = (A4[i][j - 1] + 2.0 * A4[i][j] + A4[i][j + 1]) * 0.25;
    for (i = 6; i <= H - 1 - 6; i++)
        for (j = 6; j <= W - 1 - 6; j++)
            A6[i][j] = (A5[i - 1][j - 1] + 2.0 * A5[i][j] + A5[i + 1][j + 1]) * 0.25;
    for (i = 7; i <= H - 1 - 7; i++)
        for (j = 7; j <= W - 1 - 7; j++)
            A7[i][j] = (A6[i][j - 1] + 2.0 * A6[i][j] + A6[i][j + 1]) * 0.25;
    for (i = 8; i <= H - 1 - 8; i++)
        for (j = 8; j <= W - 1 - 8; j++)
            A8[i][j] = (A7[i - 1][j - 1] + 2.0 * A7[i][j] + A7[i + 1][j + 1]) * 0.25;
    for (i = 9; i <= H - 1 - 9; i++)
        for (j = 9; j <= W - 1 - 9; j++)
            A9[i][j] = (A8[i][j - 1] + 2.0 * A8[i][j] + A8[i][j + 1]) * 0.25;
    for (i = 10; i <= H - 1 - 10; i++)
        for (j = 10; j <= W - 1 - 10; j++)
            A10[i][j] = (A9[i - 1][j - 1] + 2.0 * A9[i][j] + A9[i + 1][j + 1]) * 0.25;
    for (i = 11; i <= H - 1 - 11; i++)
        for (j = 11; j <= W - 1 - 11; j++)
            A11[i][j] = (A10[i][j - 1] + 2.0 * A10[i][j] + A10[i][j + 1]) * 0.25;
    for (i = 12; i <= H - 1 - 12; i++)
        for (j = 12; j <= W - 1 - 12; j++)
            OUT2[i][j] = (A11[i - 1][j - 1] + 2.0 * A11[i][j] + A11[i + 1][j + 1]) * 0.25;
    for (i = 12; i <= H - 13; i++)
        B1[i] = A6[i][6] + 0.5 * OUT2[i][12];
    for (i = 13; i <= H - 13; i++)
        B2[i] = 0.5 * B1[i] + 0.25 * B1[i - 1];
    for (i = 14; i <= H - 13; i++)
        B3[i] = 0.5 * B2[i] + 0.25 * B2[i - 1];
    for (i = 15; i <= H - 13; i++)
        B4[i] = 0.5 * B3[i] + 0.25 * B3[i - 1];
    for (i = 16; i <= H - 13; i++)
        B5[i] = 0.5 * B4[i] + 0.25 * B4[i - 1];
    for (i = 17; i <= H - 13; i++)
        B6[i] = 0.5 * B5[i] + 0.25 * B5[i - 1];
    for (i = 18; i <= H - 13; i++)
        B7[i] = 0.5 * B6[i] + 0.25 * B6[i - 1];
    for (i = 19; i <= H - 13; i++)
        B8[i] = 0.5 * B7[i] + 0.25 * B7[i - 1];
    for (i = 20; i <= H - 13; i++)
        B9[i] = 0.5 * B8[i] + 0.25 * B8[i - 1];
    for (i = 21; i <= H - 13; i++)
        B10[i] = 0.5 * B9[i] + 0.25 * B9[i - 1];
    for (i = 22; i <= H - 13; i++)
        B11[i] = 0.5 * B10[i] + 0.25 * B10[i - 1];
    for (i = 23; i <= H - 13; i++)
        OUT1[i] = 0.5 * B11[i] + 0.25 * B11[i - 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 30, 25);
    int W = arg_int(argc, argv, 2, 30, 25);
    double (*IN)[W] = xmalloc(sizeof(double) * H * W);
    double (*OUT2)[W] = xmalloc(sizeof(double) * H * W);
    double *OUT1 = xmalloc(sizeof(double) * H);
    for (int i = 0; i < H; i++) {
        OUT1[i] = -1.0;
        for (int j = 0; j < W; j++) {
            IN[i][j] = next_value();
            OUT2[i][j] = -1.0;
        }
    }
    pipeline(H, W, IN, OUT2, OUT1);
    int dims[2] = {H, W};
    dump("OUT2", &OUT2[0][0], 2, dims);
    dump1("OUT1", OUT1, H);
    free(IN);
    free(OUT2);
    free(OUT1);
    return 0;
}
