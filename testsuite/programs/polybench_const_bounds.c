/* polybench_const_bounds.c -- regions whose bounds are compile-time constants.
 *
 *   jacobi:  PolyBench's jacobi-1d with '#define N 40', '#define TSTEPS 4' and
 *            '#define _PB_N N' (a macro of a macro) in the bounds:
 *            B[i] = (A[i-1] + A[i] + A[i+1]) / 3 and A[i] = (B[i-1] + B[i] + B[i+1]) / 3;
 *   bytes:   a scop over an 'unsigned char' iterator, 0..249, with literal
 *            bounds: H[k] = H[k] * 0.5 + H[k+1] (reads the next element);
 *   big:     a loop from INT_MAX - 1019 to INT_MAX - 1001 (limits.h), subscripts
 *            'i - (INT_MAX - 1020)': G[i - base] += G[i - base - 1] (tile
 *            counters stay below INT_MAX; counter types are another test's);
 *   chain:   an omplc chain with 'domain(0:99)' (no symbolic parameter) fused
 *            with a nest whose domain is empty, 'domain(5:2)' (flextile warns
 *            that it never runs, and it does not run).
 * The regions of bytes, big and chain have no symbolic parameter at all.
 * Exercises: finding 10 of issue 17 (constant bounds were an internal error:
 * isl text with an empty parameter list), empty domains.
 * The argument only seeds the input.
 * Output: A, B, H, G, P, Q in full.
 *
 * flextile-test: args: default | 7 | 123
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --tile --tile-sizes 3 | --no-openmp | --rectangle | --scalene --tile-sizes 2,8 | --rectangle --tile-sizes 2,5
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define N 40
#define TSTEPS 4
#define _PB_N N
#define _PB_TSTEPS TSTEPS

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

static DATA_TYPE A[N], B[N];
static DATA_TYPE H[251];
static DATA_TYPE G[21];
static DATA_TYPE P[100], Q[100];

static void kernel_jacobi(void)
{
    int t, i;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            B[i] = (A[i-1] + A[i] + A[i+1]) / 3.0;
        for (i = 1; i < _PB_N - 1; i++)
            A[i] = (B[i-1] + B[i] + B[i+1]) / 3.0;
    }
#pragma endscop
}

static void kernel_bytes(void)
{
    unsigned char k;
#pragma scop
    for (k = 0; k < 250; k++)
        H[k] = H[k] * 0.5 + H[k+1];
#pragma endscop
}

static void kernel_big(void)
{
    int i;
#pragma scop
    for (i = INT_MAX - 1019; i < INT_MAX - 1000; i++)
        G[i - (INT_MAX - 1020)] = G[i - (INT_MAX - 1020)] + G[i - (INT_MAX - 1020) - 1] * 0.5;
#pragma endscop
}

static void kernel_chain(void)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:99) with (i) read P { (i) }, write Q { (i) }
        for (int i = 0; i <= 99; i++) { Q[i] = P[i] * 2.0 + 1.0; }
#pragma omplc for domain(5:2) with (i) read Q { (i) }, write P { (i) }
        for (int i = 5; i <= 2; i++) { P[i] = Q[i]; }
    }
}

int main(int argc, char **argv)
{
    int seed = arg_int(argc, argv, 1, 0, 0);
    for (int s = 0; s < seed; s++)
        next_value();
    for (int i = 0; i < N; i++) {
        A[i] = next_value();
        B[i] = SCALAR_VAL(-1.0);
    }
    for (int i = 0; i < 251; i++)
        H[i] = next_value();
    for (int i = 0; i < 21; i++)
        G[i] = next_value();
    for (int i = 0; i < 100; i++) {
        P[i] = next_value();
        Q[i] = -1.0;
    }
    kernel_jacobi();
    kernel_bytes();
    kernel_big();
    kernel_chain();
    dump1("A", A, N);
    dump1("B", B, N);
    dump1("H", H, 251);
    dump1("G", G, 21);
    dump1("P", P, 100);
    dump1("Q", Q, 100);
    return 0;
}
