/* time_blocks_short_loop.c -- 1-D Jacobi with a copy back, in a time loop
 * of a constant five steps (a #pragma scop region):
 *   S0: B[i] = (A[i-1] + A[i] + A[i+1]) / 3      i in 1..N-2
 *   S1: A[i] = B[i]                              i in 1..N-2
 * for t in 0..4.
 * Exercises: time blocks where the time loop runs fewer steps than some
 * depths the cost model tries (8 and 16 steps: blocks that never run are not
 * candidates; before, the model chose 16 and overlapped tiling failed on the
 * empty block), a model's block of 4 steps plus a remainder step, explicit
 * depths of 1, 2 and 5 steps, a pointwise copy stage (S1 reads B where it
 * writes A: A gets a shadow), and explicit depths of more than five steps,
 * where no block runs (overlapped tiling does not apply: a warning, and the
 * region compiled without it). Interiors empty, smaller than a tile and of
 * more than one of the model's tiles.
 * Input: A from ((7i) mod 31)/31 plus LCG noise; B a marker (-1) that its
 * borders, never written, keep.
 * Output: A and B in full.
 *
 * flextile-test: args: 40 | 7 | 3 | 2 | 1 | 600
 * flextile-test: options: default | --tile | --rectangle | --rectangle --fatal-warnings | --scalene | --scalene --fatal-warnings | --rectangle --tile-sizes 2,8 | --scalene --tile-sizes 5,16 | --rectangle --tile-sizes 1,16 | --rectangle --tile-sizes 4,8 --point-chunk 0
 * flextile-test: falls-back: --rectangle --tile-sizes 8,8 | --scalene --tile-sizes 16,32
 * flextile-test: fallback-warning: time steps runs: the time loop runs fewer steps
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

static void kernel(int N, double A[N], double B[N])
{
#pragma scop
    for (int t = 0; t < 5; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
        for (int i = 1; i < N - 1; i++)
            A[i] = B[i];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 40, 1);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = (double)((7 * i) % 31) / 31.0 + next_value();
        B[i] = -1.0;
    }
    kernel(N, A, B);
    int dims[1] = {N};
    dump("A", &A[0], 1, dims);
    dump("B", &B[0], 1, dims);
    free(A);
    free(B);
    return 0;
}
