/* chain_1d_two_nests.c -- the spec's 1-D two-nest loop chain, verbatim.
 *
 * Nest 1: B[i] = (A[i-1] + A[i] + A[i+1]) * e over 1..N-2 (3-point stencil).
 * Nest 2: foo(C, B, i) writes C[i] from B[i] over 0..N-1; the body is an opaque
 *         call, so the pragma's declared accesses are the only dependence
 *         information.
 * Schedule: fuse() with tile((16), parallel, serial), as in the spec. The fusion
 * is legal with shift 0 for both nests, and the fused loop has no carried
 * dependence, so parallel tile loops are legal.
 * Exercises: compiler-computed fusion of nests with different domains, tiling
 * with parallel tile loops, opaque bodies, iterators declared in the for, a
 * scalar parameter (e) used in a body, N smaller than a tile, an empty first
 * domain (N <= 2), N not divisible by the tile size.
 * Output: A, B and C in full (B[0] and B[N-1] keep their initial values).
 *
 * flextile-test: args: 100 | 5 | 33 | 2 | 1 | 1000
 * flextile-test: options: default | --tile | --tile --tile-sizes 8 | --tile --tile-sizes 7 | --no-openmp | --tile --assume "N >= 1" | --rectangle | --scalene | --rectangle --tile-sizes 7 | --scalene --tile-sizes 8
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

static void foo(double *C, const double *B, int i)
{
    C[i] = B[i] * B[i] - 0.5 * B[i];
}

static void chain(int N, double e, const double *A, double *B, double *C)
{
#pragma omplc loopchain schedule( fuse(), tile( (16), parallel, serial ) )
    {
#pragma omplc for domain(1:N-2) with (i) read A { (i-1), (i), (i+1) }, write B { (i) }
        for (int i = 1; i <= N-2; i += 1) { B[i] = (A[i-1] + A[i] + A[i+1]) * e; }

#pragma omplc for domain(0:N-1) with (i) read B { (i) }, write C { (i) }
        for (int i = 0; i <= N-1; i += 1) { foo(C, B, i); }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 100, 1);
    double e = 0.3125;
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = next_value();
        B[i] = next_value();
        C[i] = -1.0;
    }
    chain(N, e, A, B, C);
    dump1("A", A, N);
    dump1("B", B, N);
    dump1("C", C, N);
    free(A);
    free(B);
    free(C);
    return 0;
}
