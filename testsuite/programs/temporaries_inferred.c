/* temporaries_inferred.c -- intermediate images the function owns (issue 18,
 * item 1): flextile proves them temporary without a temporary(...) clause,
 * so overlapped tiles keep them in scratchpads and never store them.
 *
 * pipeline(): a loop chain over three arrays that only the function sees:
 *   BX, an automatic array (MAXH x MAXW), BY, a VLA (H x W), and BZ, a
 *   malloc'ed block (checked for NULL, freed); OUT is the caller's.
 *   BX[y][x] = (IN[y][x-1] + 2*IN[y][x] + IN[y][x+1]) / 4     over 0..H-1 x 1..W-2
 *   BY[i][j] = (BX[i-1][j] + 2*BX[i][j] + BX[i+1][j]) / 4     over 1..H-2 x 1..W-2
 *   BZ[p][q] = BY[p][q] * IN[p][q]                            over 1..H-2 x 1..W-2
 *   OUT[r][c] = IN[r][c] + 1.5 * (IN[r][c] - BZ[r][c])        over 1..H-2 x 1..W-2
 *   Before the region the function writes and reads elements of BX; after
 *   it, it writes an element of BY and takes sizeof BX.
 * rows(): a scop over a malloc'ed T (T = 3-point row average of IN) and the
 *   caller's E and F (E = T + 0.5*T[.][+1], F = 2*E).
 * The program prints OUT, E and F.
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33 | 64 64
 * flextile-test: options: default | --tile | --no-openmp | --rectangle --fatal-warnings | --scalene --fatal-warnings | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 5,3 | --rectangle --overlap-dims 1 --tile-sizes 4,8 | --rectangle --no-infer-temporaries | --scalene --no-infer-temporaries --tile-sizes 3,5
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

#define MAXH 64
#define MAXW 64

static double pipeline(int H, int W, float IN[H][W], float OUT[H][W])
{
    float BX[MAXH][MAXW];
    float BY[H][W];
    float (*BZ)[W] = malloc(sizeof(float) * H * W);
    if (!BZ) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    double before = 0.0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            BX[y][x] = (float)(y - x);
            before += BX[y][x];
        }
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x),(y,x+1)}, write BX {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                BX[y][x] = (IN[y][x-1] + 2.0f * IN[y][x] + IN[y][x+1]) * 0.25f;
#pragma omplc for domain(1:H-2, 1:W-2) with (i, j) read BX {(i-1,j),(i,j),(i+1,j)}, write BY {(i,j)}
        for (int i = 1; i <= H - 2; i++)
            for (int j = 1; j <= W - 2; j++)
                BY[i][j] = (BX[i-1][j] + 2.0f * BX[i][j] + BX[i+1][j]) * 0.25f;
#pragma omplc for domain(1:H-2, 1:W-2) with (p, q) read BY {(p,q)}, read IN {(p,q)}, write BZ {(p,q)}
        for (int p = 1; p <= H - 2; p++)
            for (int q = 1; q <= W - 2; q++)
                BZ[p][q] = BY[p][q] * IN[p][q];
#pragma omplc for domain(1:H-2, 1:W-2) with (r, c) read IN {(r,c)}, read BZ {(r,c)}, write OUT {(r,c)}
        for (int r = 1; r <= H - 2; r++)
            for (int c = 1; c <= W - 2; c++)
                OUT[r][c] = IN[r][c] + 1.5f * (IN[r][c] - BZ[r][c]);
    }
    BY[0][0] = 0.0f;
    free(BZ);
    return before + (double)(sizeof BX / sizeof(float));
}

static void rows(int H, int W, double IN[H][W], double E[H][W], double F[H][W])
{
    int i, j;
    double (*T)[W];
    T = calloc((size_t)H * W, sizeof(double));
    if (T == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
#pragma scop
    for (i = 0; i < H; i++)
        for (j = 1; j < W - 1; j++)
            T[i][j] = (IN[i][j-1] + IN[i][j] + IN[i][j+1]) / 3.0;
    for (i = 0; i < H; i++)
        for (j = 1; j < W - 2; j++)
            E[i][j] = T[i][j] + 0.5 * T[i][j+1];
    for (i = 0; i < H; i++)
        for (j = 1; j < W - 2; j++)
            F[i][j] = E[i][j] * 2.0;
#pragma endscop
    free(T);
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
    if (H > MAXH || W > MAXW) {
        fprintf(stderr, "at most %d x %d\n", MAXH, MAXW);
        return 1;
    }
    float (*IN)[W] = xmalloc(sizeof(float) * H * W);
    float (*OUT)[W] = xmalloc(sizeof(float) * H * W);
    double (*DIN)[W] = xmalloc(sizeof(double) * H * W);
    double (*E)[W] = xmalloc(sizeof(double) * H * W);
    double (*F)[W] = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            DIN[i][j] = next_value();
            OUT[i][j] = -1.0f;
            E[i][j] = F[i][j] = -1.0;
        }
    double before = pipeline(H, W, IN, OUT);
    rows(H, W, DIN, E, F);
    printf("before = %.17g\n", before);
    int dims[2] = {H, W};
    dumpf("OUT", H, W, OUT);
    dump("E", &E[0][0], 2, dims);
    dump("F", &F[0][0], 2, dims);
    free(IN);
    free(OUT);
    free(DIN);
    free(E);
    free(F);
    return 0;
}
