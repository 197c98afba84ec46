/* pipeline_3stage_1d.c -- three-stage 1-D pipeline, each stage its own nest and domain.
 *
 * Stage A: A[i] = X[i]*X[i] + 0.5                              over 0..N-1
 * Stage B: B[i] = 0.25*A[i-1] + 0.5*A[i] + (5/16)*A[i+1]       over 1..N-2
 * Stage C: C[i] = B[i-2] - 2.0*B[i] + B[i+2]                   over 3..N-4
 * The domains shrink with the stencils, so every stage reads only values its
 * producer wrote. Schedule: fuse(): the compiler must find the shifts (legal minimum: 0, 1, 3 -- stage B is shifted +1 behind A, stage C +2 behind B).
 * Output: A, B and C in full (points outside each domain keep the initial
 * value -1, so a stray write shows).
 * Stage B's coefficient 5/16 is written as a decimal literal exactly once in
 * this file: the harness self-test mutates it in the generated code and checks
 * that the comparison fails.
 *
 * flextile-test: args: 100 | 5 | 7 | 8 | 33 | 2 | 1 | 1000
 * flextile-test: options: default | --tile | --tile --tile-sizes 8 | --tile --tile-sizes 5 | --tile --no-openmp | --rectangle | --scalene | --rectangle --tile-sizes 7,5,3 | --scalene --tile-sizes 5,3,2
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

static void pipeline(int N, const double *X, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:N-1) with (i) read X {(i)}, write A {(i)}
        for (int i = 0; i <= N - 1; i++)
            A[i] = X[i] * X[i] + 0.5;

#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = 0.25 * A[i-1] + 0.5 * A[i] + 0.3125 * A[i+1];

#pragma omplc for domain(3:N-4) with (i) read B {(i-2),(i),(i+2)}, write C {(i)}
        for (int i = 3; i <= N - 4; i++)
            C[i] = B[i-2] - 2.0 * B[i] + B[i+2];
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 100, 1);
    double *X = xmalloc(sizeof(double) * N);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        X[i] = next_value();
        A[i] = B[i] = C[i] = -1.0;
    }
    pipeline(N, X, A, B, C);
    dump1("A", A, N);
    dump1("B", B, N);
    dump1("C", C, N);
    free(X);
    free(A);
    free(B);
    free(C);
    return 0;
}
