/* unsigned_condition_kept.c -- an `if` whose condition wraps wherever it is
 * evaluated (issue 54, class 1): `i - 2 < 10u` on an `unsigned i` from 0 is
 * false at i = 0 and 1 (the difference wraps), which the model, reading
 * `i - 2` as an integer, would take as true. flextile cannot express the
 * condition as the model's domain: it keeps the region's original loops,
 * with a warning naming the expression, under every option set.
 *   S: for i < m, j < 4: if (i - 2 < 10u) B[i][j] = A[i][j] + A[i][j + 1]
 * Output: B.
 *
 * flextile-test: args: 20 | 1 | 3
 * flextile-test: options: default
 * flextile-test: falls-back: --tile | --rectangle | --scalene | --scalene --grouping dp
 * flextile-test: fallback-warning: the region is left as written
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

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



static void kernel(unsigned m, double A[restrict 32][8], double B[restrict 32][8])
{
#pragma scop
    for (unsigned i = 0; i < m; i++)
        for (unsigned j = 0; j < 4; j++)
            if (i - 2 < 10u)
                B[i][j] = A[i][j] + A[i][j + 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    unsigned m = (unsigned)arg_int(argc, argv, 1, 20, 0);
    if (m > 32) {
        fprintf(stderr, "m must be at most 32\n");
        return 1;
    }
    double (*A)[8] = xmalloc(sizeof(double) * 32 * 8);
    double (*B)[8] = xmalloc(sizeof(double) * 32 * 8);
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 8; j++) {
            A[i][j] = next_value();
            B[i][j] = -1.0;
        }
    kernel(m, A, B);
    int dims[2] = {32, 8};
    dump("B", &B[0][0], 2, dims);
    free(A);
    free(B);
    return 0;
}
