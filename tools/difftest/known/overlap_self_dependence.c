/* overlap_self_dependence.c -- overlapped tiling of a stage that carries a
 * dependence on itself (found by tools/difftest, program 300014 of seed 3,
 * minimised by hand).
 *
 * Nest 1 updates C in place: C[x][y] = 0.5*C[x-1][y+1] + 0.25, a recurrence
 * with distance (1,-1); nest 2 reads C[row][col]. Under --rectangle and
 * --scalene (any tile sizes here) the output differs from the original with
 * one thread: a tile recomputes its expanded region of C from values that
 * the recurrence has not produced in that tile (the expansion of a stage
 * with a self-dependence is unbounded). Overlapped tiling should refuse such
 * a group (or split it) with a diagnostic.
 * Status: open (src/transform/overlap.rs). Move to testsuite/programs when fixed.
 *
 * flextile-test: args: 16 18 1 1 | 5 5 1 1 | 3 3 1 1
 * flextile-test: options: --rectangle | --scalene | --rectangle --tile-sizes 2,4 | --scalene --tile-sizes 4,4 | --scalene --tile-sizes 8,8
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

static void kernel(int N, int M, int K, int T, double A[N+16][M+16], double B[N+16][M+16], double C[N+16][M+16], double D[N+16][M+16])
{
    (void)N; (void)M; (void)K; (void)T;
    {
        #pragma omplc loopchain schedule()
        {
#pragma omplc for /* nest */ domain(10:N+7, 9:M+7) with (x, y) \
    read C {(x-1,y+1)}, /* access 0 */ \
    write C {(x,y)} /* access 1 */
            for (int x = 10; N+7 >= x; x = x + 1)
                for (int y = 9; y <= M+7; y++)
                    {
                        C[x][y] = (0.5 * C[x-1][y+1] + 0.25);
                    }
#pragma omplc for domain(8:N+7, 10:M+8) with (row, col) read C {(row,col)}, write A {(row,col)}
            for (int row = 8; row < N+7 + 1; ++row)
                for (int col = 10; col <= M+8; col += 1)
                    {
                        A[row][col] = (0.5 * C[row][col]);
                    }
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
    double (*C)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    double (*D)[M+16] = xmalloc(sizeof(double) * (size_t)(N+16) * (size_t)(M+16));
    fill((double *)A, (long)(N+16) * (long)(M+16));
    fill((double *)B, (long)(N+16) * (long)(M+16));
    fill((double *)C, (long)(N+16) * (long)(M+16));
    fill((double *)D, (long)(N+16) * (long)(M+16));
    kernel(N, M, K, T, A, B, C, D);
    dump("A", (const double *)A, (long)(N+16) * (long)(M+16));
    dump("B", (const double *)B, (long)(N+16) * (long)(M+16));
    dump("C", (const double *)C, (long)(N+16) * (long)(M+16));
    dump("D", (const double *)D, (long)(N+16) * (long)(M+16));
    free(A);
    free(B);
    free(C);
    free(D);
    return 0;
}
