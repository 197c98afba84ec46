/* helper_name_clash.c -- a user array named like one of flextile's helper
 * functions (found while reading difftest output).
 *
 * The array ft_min is a parameter of the kernel. Tiled output calls flextile's
 * helper `ft_min(a, b)` for the bounds of partial tiles, but inside the
 * kernel the name means the array: gcc rejects the output ("called object
 * 'ft_min' is not a function"). The counter names (c0, c1, ...) already avoid
 * user identifiers (driver::counter_prefix); the helpers (ft_min, ft_max,
 * ft_floord, ...) and overlapped tiling's scratchpads (ft_A) and tile
 * variables (ft_T0) do not.
 * Fixed: helpers and scratchpads take a prefix no identifier of the input
 * starts with (ft_, else flextile_, ...).
 *
 * flextile-test: args: 1 1 1 0 | 5 40 1 0
 * flextile-test: options: --tile --tile-sizes 4,4 | --tile | --rectangle --tile-sizes 3,4 | --scalene --tile-sizes 4,3
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16], double B[N+16][M+16], double ft_min[N+16][M+16])
{
    int i, i0, i1, j;
    (void)N; (void)M; (void)K; (void)T;
    #pragma omplc loopchain schedule()
    {
#pragma omplc for domain(8:N+7, 8:M+7) with (i, j) read B {(i,j)}, write A {(i,j)}
        for (i = 8; i <= N+7; i++)
            for (j = 8; j < M+7 + 1; ++j)
                {
                    A[i][j] = (0.1 * B[i][j]);
                }
#pragma omplc for domain(8:N+7, 8:M+7) with (i0, i1) read A {(i0,i1)}, write ft_min {(i0,i1)}
        for (i0 = 8; i0 <= N+7; i0++)
            for (i1 = 8; i1 < M+7 + 1; ++i1)
                {
                    ft_min[i0][i1] = (0.05 * A[i0][i1]);
                }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double (*A)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*B)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*ft_min)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    fill((double *)A, (long)(N+16) * (long)(M+16));
    fill((double *)B, (long)(N+16) * (long)(M+16));
    fill((double *)ft_min, (long)(N+16) * (long)(M+16));
    kernel(N, M, K, T, A, B, ft_min);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16));
    dump("ft_min", (const double *)ft_min, (long)(N+16) * (long)(M+16));
    free(A);
    free(B);
    free(ft_min);
    return 0;
}
