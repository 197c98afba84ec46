/* overlap_conditional_write.c -- overlapped tiling of a stage whose write is
 * conditional (found by tools/difftest: program 500014 of seed 5, minimised).
 *
 * Nest 1 writes H[i0] only where G[i0-3] > 0 (declared `write H {(i0)}`,
 * a superset as the pragma language allows; the analysed body shows the
 * `if`); nest 2 reads H[ii]. Under --rectangle and --scalene, H lives in a
 * tile-local scratchpad that is not loaded from H first: where the condition
 * is false, nest 2 reads (and the tile stores back into H) an uninitialised
 * scratchpad element (0 or a denormal instead of H's old value). A may-write
 * must either load the scratchpad from the array first or keep the data in
 * the array.
 * Status: open (src/transform/overlap.rs). Move to testsuite/programs when fixed.
 *
 * flextile-test: args: 1 1 1 0 | 24 3 1 0
 * flextile-test: options: --scalene --tile-sizes 2 | --rectangle --tile-sizes 2 | --rectangle
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Deterministic input: a 64-bit LCG; every value is k / 2^24 in [-1, 1), exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 8388608.0 - 1.0;
}

static void fill(double *x, long n)
{
    for (long k = 0; k < n; k++)
        x[k] = next_value();
}

/* Histogram bucket of a double: bits 44..47 of its representation (never UB). */
static int bucket(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (int)((b >> 44) & 15u);
}

/* Prints every element (%.17g round-trips doubles) up to 4096 elements, else
 * an FNV-1a hash of the bits of each run of 64 elements. */
static void dump(const char *name, const double *x, long total)
{
    if (total <= 4096) {
        for (long k = 0; k < total; k++)
            printf("%s[%ld] = %.17g\n", name, k, x[k]);
        return;
    }
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t q = 0; q < sizeof bytes; q++) {
                h ^= bytes[q];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[%ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

static void dump_int(const char *name, const int *x, long total)
{
    for (long k = 0; k < total; k++)
        printf("%s[%ld] = %d\n", name, k, x[k]);
}

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

static void kernel(int N, int M, int K, int T, double D[N+16], double G[N+16], double H[N+16], double L[N+16])
{
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule()
    {
#pragma omplc for domain(8:N+7) with (i0) read G {(i0-3)}, read D {(i0-1)}, write H {(i0)}
        for (int i0 = 8; i0 <= N+7; i0++)
            {
                if (G[i0-3] > 0.0)
                    H[i0] = (-0.3333333333333333 * D[i0-1] + 0.3 * D[i0-1]);
            }
#pragma omplc for domain(8:N+7) with (ii) read H {(ii)}, write L {(ii)}
        for (int ii = 8; ii <= N+7; ii++)
            {
                L[ii] = (0.1111111111111111 * H[ii]);
            }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double *D = xmalloc(sizeof(double) * (size_t)(N+16));
    double *G = xmalloc(sizeof(double) * (size_t)(N+16));
    double *H = xmalloc(sizeof(double) * (size_t)(N+16));
    double *L = xmalloc(sizeof(double) * (size_t)(N+16));
    fill((double *)D, (long)(N+16));
    fill((double *)G, (long)(N+16));
    fill((double *)H, (long)(N+16));
    fill((double *)L, (long)(N+16));
    kernel(N, M, K, T, D, G, H, L);
    dump("D", (const double *)D, (long)(N+16));
    dump("G", (const double *)G, (long)(N+16));
    dump("H", (const double *)H, (long)(N+16));
    dump("L", (const double *)L, (long)(N+16));
    free(D);
    free(G);
    free(H);
    free(L);
    return 0;
}
