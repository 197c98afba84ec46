/* inline_pointwise.c -- expression inlining (Jangda & Bondhugula, TOPLAS'20, §5.1, Algorithm 3)
 * under the model's grouping (--rectangle / --scalene without sizes).
 *
 * chain(): temporaries produced by one-assignment nests and read by later
 * nests. Inlined: point-wise producers (GXX after GX goes, HD whose double
 * expression is stored as float, QI stored as int, T1 and T2 in turn, D2
 * whose write has an offset) and producers with one consumer reading them
 * at one point (GX, B, SXX, SH, SQS, RD, ST into OUT). Not inlined: SQ
 * (calls sqrtf, read at two points), LO (live-out).
 * guarded(): P reads K, which the next nest overwrites before OUT2 reads
 * P: inlining P into OUT2 would read the new K, so P keeps its nest.
 * The consumers read each inlined value through a cast to its array's type,
 * so the results stay bit-identical (float, int truncation).
 * Output: OUT, LO, OUT2, K.
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33
 * flextile-test: options: default | --rectangle | --scalene | --rectangle --no-inline | --scalene --no-openmp | --rectangle --tile-sizes 4,8 | --tile
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

static void chain(int H, int W, float IN[H][W], float GX[H][W], float GXX[H][W], float SXX[H][W],
                  float HD[H][W], float SH[H][W], int QI[H][W], float SQ[H][W], float SQS[H][W],
                  float B[H][W], float D2[H][W], float RD[H][W], float T1[H][W], float T2[H][W],
                  float ST[H][W], float LO[H][W], float OUT[H][W])
{
#pragma omplc loopchain schedule() temporary(GX, GXX, SXX, HD, SH, QI, SQ, SQS, B, D2, RD, T1, T2, ST)
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x+1),(y,x-1)}, write GX {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                GX[y][x] = IN[y][x+1] - IN[y][x-1];
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read GX {(y,x)}, write GXX {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                GXX[y][x] = GX[y][x] * GX[y][x];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read GXX {(y-1,x),(y,x),(y+1,x)}, write SXX {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                SXX[y][x] = GXX[y-1][x] + GXX[y][x] + GXX[y+1][x];
#pragma omplc for domain(0:H-1, 0:W-1) with (y, x) read IN {(y,x)}, write HD {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 0; x <= W - 1; x++)
                HD[y][x] = IN[y][x] * 0.1;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read HD {(y,x-1),(y,x),(y,x+1)}, write SH {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                SH[y][x] = HD[y][x-1] + HD[y][x] + HD[y][x+1];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y,x)}, write QI {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                QI[y][x] = IN[y][x] * 100.0f;
#pragma omplc for domain(1:H-2, 0:W-1) with (y, x) read IN {(y,x)}, write SQ {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 0; x <= W - 1; x++)
                SQ[y][x] = sqrtf(IN[y][x] + 1.0f);
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read SQ {(y,x-1),(y,x+1)}, write SQS {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                SQS[y][x] = SQ[y][x-1] - SQ[y][x+1];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y-1,x),(y+1,x)}, write B {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                B[y][x] = IN[y-1][x] + IN[y+1][x];
#pragma omplc for domain(0:H-1, 0:W-2) with (y, x) read IN {(y,x)}, write D2 {(y,x+1)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 0; x <= W - 2; x++)
                D2[y][x+1] = IN[y][x] * 2.0f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read D2 {(y,x),(y,x+1)}, write RD {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                RD[y][x] = D2[y][x] - D2[y][x+1];
#pragma omplc for domain(1:H-2, 0:W-1) with (y, x) read IN {(y,x)}, write T1 {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 0; x <= W - 1; x++)
                T1[y][x] = IN[y][x] * IN[y][x];
#pragma omplc for domain(1:H-2, 0:W-1) with (y, x) read T1 {(y,x)}, write T2 {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 0; x <= W - 1; x++)
                T2[y][x] = T1[y][x] + 1.0f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read T2 {(y,x-1),(y,x+1)}, write ST {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                ST[y][x] = T2[y][x-1] * T2[y][x+1];
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) read IN {(y,x)}, write LO {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                LO[y][x] = IN[y][x] * 3.0f;
#pragma omplc for domain(1:H-2, 1:W-2) with (y, x) \
            read SXX {(y,x)}, read SH {(y,x)}, read QI {(y,x)}, read SQS {(y,x)}, read B {(y,x)}, \
            read RD {(y,x)}, read ST {(y,x)}, read LO {(y,x)}, write OUT {(y,x)}
        for (int y = 1; y <= H - 2; y++)
            for (int x = 1; x <= W - 2; x++)
                OUT[y][x] = SXX[y][x] + SH[y][x] + QI[y][x] * 0.5f + SQS[y][x] + B[y][x]
                            + RD[y][x] + ST[y][x] - LO[y][x];
    }
}

static void guarded(int H, int W, float IN[H][W], float K[H][W], float P[H][W], float OUT2[H][W])
{
#pragma omplc loopchain schedule() temporary(P)
    {
#pragma omplc for domain(0:H-1, 0:W-1) with (y, x) read K {(y,x)}, write P {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 0; x <= W - 1; x++)
                P[y][x] = K[y][x] * 3.0f;
#pragma omplc for domain(0:H-1, 0:W-1) with (y, x) read IN {(y,x)}, write K {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 0; x <= W - 1; x++)
                K[y][x] = IN[y][x] * 0.5f;
#pragma omplc for domain(0:H-1, 0:W-1) with (y, x) read P {(y,x)}, read K {(y,x)}, write OUT2 {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 0; x <= W - 1; x++)
                OUT2[y][x] = P[y][x] + K[y][x];
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
    float (*K)[W] = xmalloc(sizeof(float) * n);
    float (*f[17])[W];
    for (int k = 0; k < 17; k++)
        f[k] = xmalloc(sizeof(float) * n);
    int (*QI)[W] = xmalloc(sizeof(int) * n);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            K[i][j] = (float)next_value();
            for (int k = 0; k < 17; k++)
                f[k][i][j] = -1.0f;
            QI[i][j] = -1;
        }
    chain(H, W, IN, f[0], f[1], f[2], f[3], f[4], QI, f[5], f[6], f[7], f[8], f[9], f[10], f[11],
          f[12], f[13], f[14]);
    guarded(H, W, IN, K, f[15], f[16]);
    dumpf("OUT", H, W, f[14]);
    dumpf("LO", H, W, f[13]);
    dumpf("OUT2", H, W, f[16]);
    dumpf("K", H, W, K);
    for (int k = 0; k < 17; k++)
        free(f[k]);
    free(IN);
    free(K);
    free(QI);
    return 0;
}
