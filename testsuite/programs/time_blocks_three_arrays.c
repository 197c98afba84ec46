/* time_blocks_three_arrays.c -- a time loop whose body has three statements
 * with shifted writes, reads of the same step and of the step before, and a
 * read-only coefficient array:
 *   S0: B[i]   = 0.3*A[i-1] + 0.5*A[i] + 0.2*A[i+1] + 0.1*C[i]   i in 1..N-2
 *   S1: A[i+1] = 0.5*(B[i] + B[i+2]) * D[i]                      i in 0..N-4
 *   S2: C[i]   = A[i] - 0.5*B[i-1]                               i in 2..N-3
 * for t in 2..T+1 (a time loop that does not start at 0 or 1).
 * Exercises: overlapped tiling of a time loop (time blocks): S0 reads A and
 * C of the step before (both also read from before the block, so both get a
 * shadow copy), S2 reads A and B of the same step, S1 writes A one element
 * to the right of its iterator (the copy back uses the write's subscript),
 * elements no statement writes (A[0], C[0..1], the last ones) read through
 * the versions' loads, steps that leave a remainder, T = 0, interiors smaller
 * than a tile.
 * Output: A, B and C in full.
 *
 * flextile-test: args: 40 9 | 6 5 | 3 2 | 2 1 | 1 3 | 25 0 | 70 17
 * flextile-test: options: default | --tile | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,5 | --scalene --tile-sizes 2,16 --no-openmp | --rectangle --tile-sizes 5,7 | --scalene | --rectangle --tile-sizes 4,8 --stack-limit 0
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

static void kernel(int T, int N, double A[N], double B[N], double C[N], double D[N])
{
    int t, i;

#pragma scop
    for (t = 2; t < T + 2; t++) {
        for (i = 1; i < N - 1; i++)
            B[i] = 0.3 * A[i-1] + 0.5 * A[i] + 0.2 * A[i+1] + 0.1 * C[i];
        for (i = 0; i < N - 3; i++)
            A[i+1] = 0.5 * (B[i] + B[i+2]) * D[i];
        for (i = 2; i < N - 2; i++)
            C[i] = A[i] - 0.5 * B[i-1];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 40, 1);
    int T = arg_int(argc, argv, 2, 9, 0);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    double *D = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = (double)((7 * i) % 31) / 31.0 + next_value();
        B[i] = next_value();
        C[i] = next_value();
        D[i] = 1.0 + next_value() * 0.5;
    }
    kernel(T, N, A, B, C, D);
    int dims[1] = {N};
    dump("A", &A[0], 1, dims);
    dump("B", &B[0], 1, dims);
    dump("C", &C[0], 1, dims);
    free(A);
    free(B);
    free(C);
    free(D);
    return 0;
}
