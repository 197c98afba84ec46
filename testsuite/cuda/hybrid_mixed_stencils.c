/* hybrid_mixed_stencils.c -- hybrid register tiles of five stages that
 * alternate a 3-point average along j (A1, A3, OUT2) and along i (A2, A4),
 * each over a domain one point smaller on every side. A wrong result until
 * 2026-11-29 (found 2026-11-28): under `--scalene --gpu-tiling hybrid`,
 * buffer sharing overlaid A2's scratchpad with A4's (their phases of the
 * shared-memory part are disjoint), but the register parts run after the
 * whole shared-memory part and A3's read A2's scratchpad left of its
 * register part: OUT2 differed near the j = 32 boundary (arguments 17 45:
 * OUT2[5][32..35] and OUT2[8][32..35]). Hybrid tiles now keep every
 * scratchpad in an allocation of its own. `tests/cuda_emulation.rs` runs it
 * under the CUDA emulation.
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


static void pipeline(int H, int W, double IN[H][W], double OUT2[H][W])
{
    double A1[H][W];
    double A2[H][W];
    double A3[H][W];
    double A4[H][W];
    int i, j;
#pragma scop
    for (i = 1; i <= H - 1 - 1; i++)
        for (j = 1; j <= W - 1 - 1; j++)
            A1[i][j] = (IN[i][j - 1] + 2.0 * IN[i][j] + IN[i][j + 1]) * 0.25;
    for (i = 2; i <= H - 1 - 2; i++)
        for (j = 2; j <= W - 1 - 2; j++)
            A2[i][j] = (A1[i - 1][j] + 2.0 * A1[i][j] + A1[i + 1][j]) * 0.25;
    for (i = 3; i <= H - 1 - 3; i++)
        for (j = 3; j <= W - 1 - 3; j++)
            A3[i][j] = (A2[i][j - 1] + 2.0 * A2[i][j] + A2[i][j + 1]) * 0.25;
    for (i = 4; i <= H - 1 - 4; i++)
        for (j = 4; j <= W - 1 - 4; j++)
            A4[i][j] = (A3[i - 1][j] + 2.0 * A3[i][j] + A3[i + 1][j]) * 0.25;
    for (i = 5; i <= H - 1 - 5; i++)
        for (j = 5; j <= W - 1 - 5; j++)
            OUT2[i][j] = (A4[i][j - 1] + 2.0 * A4[i][j] + A4[i][j + 1]) * 0.25;
#pragma endscop
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 30, 1);
    int W = arg_int(argc, argv, 2, 30, 1);
    double (*IN)[W] = xmalloc(sizeof(double) * H * W);
    double (*OUT2)[W] = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++) for (int j = 0; j < W; j++) { IN[i][j] = next_value(); OUT2[i][j] = -1.0; }
    pipeline(H, W, IN, OUT2);
    int dims[2] = {H, W};
    dump("OUT2", &OUT2[0][0], 2, dims);
    return 0;
}
