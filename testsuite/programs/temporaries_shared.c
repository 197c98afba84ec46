/* temporaries_shared.c -- contracted temporaries share allocations
 * (issue 18, item 4): per row i of a scop, three row temporaries live one
 * after another:
 *   T = IN / 2,        E[j] = T[j] + T[W-1-j]       (T: a whole row alive)
 *   V = IN + 1,        F[j] = E[j] * V[W-1-j]       (V: a whole row alive)
 *   G = (float) IN/4,  Z[j] = F[j] - G[W-1-j]       (G: float)
 * T and V (double) are never alive at once: they take one allocation, the
 * size of the larger. G has another element type and keeps its own. The
 * row loop is parallel: each thread allocates its buffers once per region
 * call (an OpenMP team around the worksharing loop), not once per row.
 * Overlapped tiling does not apply (the row's loops are not one nest).
 * The program prints E, F and Z. Built with -DSENTINEL_CHECK, it reports
 * whether T, V and G are untouched (tests/temporaries.rs).
 *
 * flextile-test: args: 20 30 | 5 3 | 3 3 | 1 1 | 2 9 | 47 33 | 1 64
 * flextile-test: options: default | --no-openmp | --tile | --tile --no-openmp | --fatal-warnings
 * flextile-test: falls-back: --rectangle | --scalene
 * flextile-test: fallback-warning: its nest is not a multi-statement stage
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

static void rows(int H, int W, double IN[H][W], double T[H][W], double V[H][W], float G[H][W],
                 double E[H][W], double F[H][W], double Z[H][W])
{
    int i, j;
#pragma scop temporary(T, V, G)
    for (i = 0; i < H; i++) {
        for (j = 0; j < W; j++)
            T[i][j] = IN[i][j] * 0.5;
        for (j = 0; j < W; j++)
            E[i][j] = T[i][j] + T[i][W - 1 - j];
        for (j = 0; j < W; j++)
            V[i][j] = IN[i][j] + 1.0;
        for (j = 0; j < W; j++)
            F[i][j] = E[i][j] * V[i][W - 1 - j];
        for (j = 0; j < W; j++)
            G[i][j] = (float)(IN[i][j] * 0.25);
        for (j = 0; j < W; j++)
            Z[i][j] = F[i][j] - G[i][W - 1 - j];
    }
#pragma endscop
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
    double (*IN)[W] = xmalloc(sizeof(double) * H * W);
    double (*T)[W] = xmalloc(sizeof(double) * H * W);
    double (*V)[W] = xmalloc(sizeof(double) * H * W);
    float (*G)[W] = xmalloc(sizeof(float) * H * W);
    double (*E)[W] = xmalloc(sizeof(double) * H * W);
    double (*F)[W] = xmalloc(sizeof(double) * H * W);
    double (*Z)[W] = xmalloc(sizeof(double) * H * W);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            IN[i][j] = next_value();
            T[i][j] = V[i][j] = E[i][j] = F[i][j] = Z[i][j] = -1.0;
            G[i][j] = -1.0f;
        }
#ifdef SENTINEL_CHECK
    memset(T, 0x5A, sizeof(double) * H * W);
    memset(V, 0x5A, sizeof(double) * H * W);
    memset(G, 0x5A, sizeof(float) * H * W);
#endif
    rows(H, W, IN, T, V, G, E, F, Z);
#ifdef SENTINEL_CHECK
    printf("T untouched: %s\n", untouched(T, sizeof(double) * H * W) ? "yes" : "no");
    printf("V untouched: %s\n", untouched(V, sizeof(double) * H * W) ? "yes" : "no");
    printf("G untouched: %s\n", untouched(G, sizeof(float) * H * W) ? "yes" : "no");
#endif
    int dims[2] = {H, W};
    dump("E", &E[0][0], 2, dims);
    dump("F", &F[0][0], 2, dims);
    dump("Z", &Z[0][0], 2, dims);
    free(IN);
    free(T);
    free(V);
    free(G);
    free(E);
    free(F);
    free(Z);
    return 0;
}
