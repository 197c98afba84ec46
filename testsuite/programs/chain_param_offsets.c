/* chain_param_offsets.c -- a chain whose domains depend on several parameters,
 * one of them the counter of an enclosing ordinary loop, inside an if; and a
 * scop after it in the same function.
 *
 * for r in 0..R-1 (plain C loop), if (N > K):
 *   chain, schedule(fuse()):
 *     nest 1: B[i] = 0.5*B[i] + A[i-K] + r        over K+r .. N-1
 *     nest 2: C[i] = B[i-1] - 0.25*B[i]           over K+r+1 .. N-1
 * then a scop:  D[i-K] = C[i] + B[i-K]  for i in K..N-1
 * For the chain, N, K and r are all parameters: its domains are empty or not
 * depending on them, and a tuple (i-K) has a parameter offset (A is only read,
 * so that offset creates no dependence). Fusion needs shift 0 for both nests.
 * Exercises: parameters from enclosing loops, parametric lower bounds, a read
 * and a write of the same element in one nest, regions nested in if and for,
 * two regions in one function, -std= and --assume options.
 * Output: B, C and D in full.
 *
 * flextile-test: args: 20 3 2 | 5 9 1 | 33 0 3 | 1 0 1 | 100 17 4 | 8 7 2 | 40 5 0
 * flextile-test: options: default | --tile | --tile --tile-sizes 4 | -std=c99 | --tile --assume "K >= 0" | --rectangle | --scalene --tile-sizes 4
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

static void kernel(int N, int K, int R, const double *A, double *B, double *C, double *D)
{
    int i;
    for (int r = 0; r < R; r++) {
        if (N > K) {
#pragma omplc loopchain schedule(fuse())
            {
#pragma omplc for domain(K+r:N-1) with (i) read A {(i-K)}, read B {(i)}, write B {(i)}
                for (int i = K + r; i <= N - 1; i++)
                    B[i] = 0.5 * B[i] + A[i-K] + r;
#pragma omplc for domain(K+r+1:N-1) with (i) read B {(i-1),(i)}, write C {(i)}
                for (int i = K + r + 1; i <= N - 1; i++)
                    C[i] = B[i-1] - 0.25 * B[i];
            }
        }
    }
#pragma scop
    for (i = K; i < N; i++)
        D[i - K] = C[i] + B[i - K];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int K = arg_int(argc, argv, 2, 3, 0);
    int R = arg_int(argc, argv, 3, 2, 0);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    double *D = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = next_value();
        B[i] = next_value();
        C[i] = next_value();
        D[i] = -1.0;
    }
    kernel(N, K, R, A, B, C, D);
    dump1("B", B, N);
    dump1("C", C, N);
    dump1("D", D, N);
    free(A);
    free(B);
    free(C);
    free(D);
    return 0;
}
