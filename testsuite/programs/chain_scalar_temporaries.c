/* chain_scalar_temporaries.c -- loop-chain bodies that write scalars of their
 * function which their pragmas do not (and cannot) declare, as image code does.
 *
 * Nest 1: per pixel, r, g, b (declared at the top of the function) hold
 *         per-pixel values computed through a call (the body is not
 *         analysable): each is written before it is read in every iteration
 *         and the function reads none of them elsewhere, so each iteration
 *         gets its own copies and the 'parallel' item stays legal.
 * Nest 2: OUT = a 3-point blur of T (analysable).
 * Nest 3 (second chain): n counts the pixels above a threshold and k is the
 *         running index: a value carried from one iteration to the next. The
 *         loop stays serial, with a warning naming the variable.
 * Without privatisation nest 1 races on r, g, b (shared by the threads of
 * the parallel loop), visible at -O0 and under the reverse-start shim.
 * Overlapped tiling falls back for the second chain (a recurrence).
 * Output: T, OUT, HIST in full, and n.
 *
 * flextile-test: args: 20 17 | 3 3 | 1 1 | 64 40 | 9 33
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 4,8
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 5,7
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
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

static double shade(double x, double w)
{
    return x * w + 0.0625;
}

static void chain(int N, int M, double (*A)[M], double (*T)[M], double (*OUT)[M], double *HIST, int *count)
{
    double r, g, b;
    int n = 0, k = 0;
#pragma omplc loopchain schedule(fuse(), parallel)
    {
#pragma omplc for domain(0:N-1, 0:M-1) with (i, j) read A { (i,j) }, write T { (i,j) }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < M; j++) {
                r = shade(A[i][j], 0.5);
                g = r * 0.75 + shade(A[i][j], 0.125);
                b = g - r * 0.25;
                T[i][j] = r + g + b;
            }

#pragma omplc for domain(0:N-1, 1:M-2) with (i, j) read T { (i,j-1), (i,j), (i,j+1) }, write OUT { (i,j) }
        for (int i = 0; i < N; i++)
            for (int j = 1; j <= M - 2; j++)
                OUT[i][j] = 0.25 * T[i][j-1] + 0.5 * T[i][j] + 0.25 * T[i][j+1];
    }
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read T { (i,0) }, write HIST { (i) }
        for (int i = 0; i < N; i++) {
            if (shade(T[i][0], 1.0) > 1.0)
                n = n + 1;
            k = k + n;
            HIST[i] = k;
        }
    }
    *count = n;
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M = arg_int(argc, argv, 2, 17, 1);
    double (*A)[M] = xmalloc(sizeof(double) * N * M);
    double (*T)[M] = xmalloc(sizeof(double) * N * M);
    double (*OUT)[M] = xmalloc(sizeof(double) * N * M);
    double *HIST = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        HIST[i] = -1.0;
        for (int j = 0; j < M; j++) {
            A[i][j] = 4.0 * next_value();
            T[i][j] = -1.0;
            OUT[i][j] = -1.0;
        }
    }
    int count = -1;
    chain(N, M, A, T, OUT, HIST, &count);
    int dims[2] = {N, M};
    dump("T", &T[0][0], 2, dims);
    dump("OUT", &OUT[0][0], 2, dims);
    dump1("HIST", HIST, N);
    printf("n = %d\n", count);
    free(A);
    free(T);
    free(OUT);
    free(HIST);
    return 0;
}
