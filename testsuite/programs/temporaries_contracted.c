/* temporaries_contracted.c -- temporaries outside overlapped tiles live in
 * contracted buffers (issue 18): a scalar for pointwise producer-consumer
 * fusion, a few rows for a stencil fused with its producer, a row per outer
 * iteration; their arrays are never touched.
 *
 * Fused loop chain, temporary(BX, BY, P):
 *   BX[y][x] = (IN[y][x-1] + 2*IN[y][x] + IN[y][x+1]) / 4     over 0..H-1 x 1..W-2
 *   BY[i][j] = (BX[i-1][j] + 2*BX[i][j] + BX[i+1][j]) / 4     over 1..H-2 x 1..W-2
 *   P[r][c]  = BY[r][c] * BY[r][c]                            over 1..H-2 x 1..W-2
 *   OUT[r][c] = IN[r][c] - P[r][c]                            over 1..H-2 x 1..W-2
 * Scop, temporary(T, U): per row i, T = IN / 2 over the row, then
 *   U = T[i][j] + T[i][j+1] and E = U * U in one body.
 * The program prints OUT and E. Built with -DSENTINEL_CHECK, it fills the
 * temporaries with a sentinel byte before the regions and reports whether
 * they are untouched after them (tests/temporaries.rs).
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33 | 4 1
 * flextile-test: options: default | --no-openmp | --tile | --tile --no-openmp | --tile --tile-sizes 4,8 | --rectangle | --scalene --tile-sizes 5,3 | --rectangle --tile-sizes 4,8 --no-openmp | --fatal-warnings --no-openmp
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

static void pipeline(int H, int W, float IN[H][W], float BX[H][W], float BY[H][W], float P[H][W], float OUT[H][W])
{
#pragma omplc loopchain schedule(fuse()) temporary(BX, BY, P)
    {
#pragma omplc for domain(0:H-1, 1:W-2) with (y, x) read IN {(y,x-1),(y,x),(y,x+1)}, write BX {(y,x)}
        for (int y = 0; y <= H - 1; y++)
            for (int x = 1; x <= W - 2; x++)
                BX[y][x] = (IN[y][x-1] + 2.0f * IN[y][x] + IN[y][x+1]) * 0.25f;
#pragma omplc for domain(1:H-2, 1:W-2) with (i, j) read BX {(i-1,j),(i,j),(i+1,j)}, write BY {(i,j)}
        for (int i = 1; i <= H - 2; i++)
            for (int j = 1; j <= W - 2; j++)
                BY[i][j] = (BX[i-1][j] + 2.0f * BX[i][j] + BX[i+1][j]) * 0.25f;
#pragma omplc for domain(1:H-2, 1:W-2) with (r, c) read BY {(r,c)}, write P {(r,c)}
        for (int r = 1; r <= H - 2; r++)
            for (int c = 1; c <= W - 2; c++)
                P[r][c] = BY[r][c] * BY[r][c];
#pragma omplc for domain(1:H-2, 1:W-2) with (r, c) read IN {(r,c)}, read P {(r,c)}, write OUT {(r,c)}
        for (int r = 1; r <= H - 2; r++)
            for (int c = 1; c <= W - 2; c++)
                OUT[r][c] = IN[r][c] - P[r][c];
    }
}

static void rows(int H, int W, double IN[H][W], double T[H][W], double U[H][W], double E[H][W])
{
    int i, j;
#pragma scop temporary(T, U)
    for (i = 0; i < H; i++) {
        for (j = 0; j < W; j++)
            T[i][j] = IN[i][j] * 0.5;
        for (j = 0; j < W - 1; j++) {
            U[i][j] = T[i][j] + T[i][j+1];
            E[i][j] = U[i][j] * U[i][j];
        }
    }
#pragma endscop
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

#ifdef SENTINEL_CHECK
/* Whether every byte of x[0..bytes-1] is the sentinel byte 0x5A. */
static int untouched(const void *x, size_t bytes)
{
    const unsigned char *p = x;
    for (size_t k = 0; k < bytes; k++)
        if (p[k] != 0x5A)
            return 0;
    return 1;
}
#endif

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 20, 1);
    int W = arg_int(argc, argv, 2, 30, 1);
    float (*IN)[W] = xmalloc(sizeof(float) * H * W);
    float (*BX)[W] = xmalloc(sizeof(float) * H * W);
    float (*BY)[W] = xmalloc(sizeof(float) * H * W);
    float (*P)[W] = xmalloc(sizeof(float) * H * W);
    float (*OUT)[W] = xmalloc(sizeof(float) * H * W);
    double (*DIN)[W] = xmalloc(sizeof(double) * H * W);
    double (*T)[W] = xmalloc(sizeof(double) * H * W);
    double (*U)[W] = xmalloc(sizeof(double) * H * W);
    double (*E)[W] = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = (float)next_value();
            DIN[i][j] = next_value();
            BX[i][j] = BY[i][j] = P[i][j] = OUT[i][j] = -1.0f;
            T[i][j] = U[i][j] = E[i][j] = -1.0;
        }
#ifdef SENTINEL_CHECK
    memset(BX, 0x5A, sizeof(float) * H * W);
    memset(BY, 0x5A, sizeof(float) * H * W);
    memset(P, 0x5A, sizeof(float) * H * W);
    memset(T, 0x5A, sizeof(double) * H * W);
    memset(U, 0x5A, sizeof(double) * H * W);
#endif
    pipeline(H, W, IN, BX, BY, P, OUT);
    rows(H, W, DIN, T, U, E);
#ifdef SENTINEL_CHECK
    printf("BX untouched: %s\n", untouched(BX, sizeof(float) * H * W) ? "yes" : "no");
    printf("BY untouched: %s\n", untouched(BY, sizeof(float) * H * W) ? "yes" : "no");
    printf("P untouched: %s\n", untouched(P, sizeof(float) * H * W) ? "yes" : "no");
    printf("T untouched: %s\n", untouched(T, sizeof(double) * H * W) ? "yes" : "no");
    printf("U untouched: %s\n", untouched(U, sizeof(double) * H * W) ? "yes" : "no");
#endif
    int dims[2] = {H, W};
    dumpf("OUT", H, W, OUT);
    dump("E", &E[0][0], 2, dims);
    free(IN);
    free(BX);
    free(BY);
    free(P);
    free(OUT);
    free(DIN);
    free(T);
    free(U);
    free(E);
    return 0;
}
