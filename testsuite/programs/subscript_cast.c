/* subscript_cast.c -- a subscript with a value-changing cast (issue 17, finding 11).
 *
 *   for i in 0..255:  A[i] = 2 X[i] + 1
 *   for i in 0..N-1:  B[i] = A[(unsigned char)(i + 100)] + 0.5 A[(long)i]
 * The cast wraps i + 100 into 0..255: the read is not the affine i + 100.
 * flextile used to model it as A[i + 100] and, under overlapped tiling, loaded
 * A[i + 100] into a scratchpad (past the end of A) and read the scratchpad
 * instead of the wrapped element. A cast that may change a value now makes
 * the subscript non-affine (the read may touch any element of A, and the body
 * keeps its text); a widening cast ((long)i) stays affine. Both nests are
 * parallel; A is written before it is read.
 * Output: B in full.
 *
 * flextile-test: args: 250 | 1 | 156 | 157 | 40
 * flextile-test: options: default | --tile | --tile --tile-sizes 7 | --rectangle | --scalene | --rectangle --tile-sizes 16 | --scalene --tile-sizes 5
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

/* restrict: the arrays never overlap; flextile cannot bound the cast subscripts
 * of A for a run-time overlap check, and without the promise it would leave
 * the scop as written. */
static void kernel(int N, double A[restrict 256], double B[restrict N], double X[restrict 256])
{
    int i;
#pragma scop
    for (i = 0; i < 256; i++)
        A[i] = 2.0 * X[i] + 1.0;
    for (i = 0; i < N; i++)
        B[i] = A[(unsigned char)(i + 100)] + 0.5 * A[(long)i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 250, 1);
    if (n > 256) {
        fprintf(stderr, "N must be <= 256\n");
        return 1;
    }
    static double A[256], X[256];
    double *B = xmalloc(sizeof(double) * n);
    for (int k = 0; k < 256; k++) {
        X[k] = next_value();
        A[k] = -1.0;
    }
    for (int k = 0; k < n; k++)
        B[k] = -2.0;
    kernel(n, A, B, X);
    dump1("A", A, 256);
    dump1("B", B, n);
    free(B);
    return 0;
}
