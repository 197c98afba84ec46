/* define_in_scop.c -- '#define' and '#undef' lines inside a #pragma scop
 * region and inside a loop chain (issue 17, finding 12: they were dropped
 * from the output, which then did not build: COEF undeclared).
 *
 * The 1-D heat equation of heat1d_scop.c (for t: A -> B, B -> A over the
 * interior), its coefficient a macro defined inside the scop and redefined
 * and undefined inside it after its last use; then a loop chain (one nest,
 * a copy of A into B scaled by HALF, defined inside the chain). The output
 * keeps the lines before each region's generated code, in order; every use
 * of a macro comes after the region's last line that changes it, so its
 * meaning is unchanged (the opposite is a located error,
 * errors/define_used_before_in_scop.c). The schedule is the original
 * one (or tiled, skewed, overlapped as the options say): the dependences
 * are those of heat1d_scop.c.
 * Output: A and B in full.
 *
 * flextile-test: args: 30 20 | 5 3 | 1 1 | 4 0 | 67 13
 * flextile-test: options: default | --tile | --tile --tile-sizes 7,5 | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,5
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

static void kernel(int TSTEPS, int N, double A[N], double B[N])
{
    int t, i;

#pragma scop
#define COEF 0.125
#define TWO \
    2.0
    for (t = 1; t <= TSTEPS; t++) {
        for (i = 1; i < N - 1; i++)
            B[i] = COEF * (A[i+1] - TWO * A[i] + A[i-1]) + A[i];
        for (i = 1; i < N - 1; i++)
            A[i] = COEF * (B[i+1] - TWO * B[i] + B[i-1]) + B[i];
    }
#undef TWO
#undef UNUSED_IN_REGION
#pragma endscop
#undef COEF
#pragma omplc loopchain schedule()
    {
#define HALF 0.5
#pragma omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}
        for (i = 0; i <= N - 1; i++)
            B[i] = HALF * A[i];
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 30, 1);
    int TSTEPS = arg_int(argc, argv, 2, 20, 0);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = (double)((7 * i) % 31) / 31.0 + next_value();
        B[i] = A[i];
    }
    kernel(TSTEPS, N, A, B);
    int dims[1] = {N};
    dump("A", &A[0], 1, dims);
    dump("B", &B[0], 1, dims);
    free(A);
    free(B);
    return 0;
}
