/* heat1d_scop.c -- 1-D heat equation, time loop inside a #pragma scop region.
 *
 * PolyBench structure: for t in 1..TSTEPS, a sweep A -> B over the interior,
 * then a sweep B -> A (boundaries are never written):
 *   D[i] = 0.125*(S[i+1] - 2.0*S[i] + S[i-1]) + S[i]            for i in 1..N-2
 * This is the reduced form of PolyBench's heat-3d (0.125 per dimension plus the centre value).
 * Exercises: scop mode (domains from affine loop bounds, accesses from affine
 * subscripts), time-iterated stencils (tiling needs skewing; plain rectangular
 * tiling of (t, space) is illegal), iterators declared at function scope,
 * variably modified array parameters, TSTEPS = 0 and interiors that are empty or
 * smaller than a tile.
 * Input: a non-steady initialisation (((7i) mod 31)/31 plus LCG
 * noise), so every time step changes the values.
 * Output: A and B in full (hashed per 64 elements above 4096 elements).
 *
 * flextile-test: args: 30 20 | 5 3 | 100 10 | 3 2 | 2 1 | 1 1 | 4 0 | 67 13
 * flextile-test: options: default | --tile | --tile --tile-sizes 8,8 | --tile --tile-sizes 7,5 | --tile --tile-sizes 16,64 | --tile --assume "N >= 1" | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,5 | --scalene | --rectangle --tile-sizes 1,16 | --scalene --tile-sizes 8,64 --no-openmp | --rectangle --tile-sizes 4,8 --point-chunk 0 | --rectangle --tile-sizes 3,16 --point-chunk 5 | --rectangle | --rectangle --fatal-warnings
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
    for (t = 1; t <= TSTEPS; t++) {
        for (i = 1; i < N - 1; i++)
            B[i] = 0.125 * (A[i+1] - 2.0 * A[i] + A[i-1]) + A[i];
        for (i = 1; i < N - 1; i++)
            A[i] = 0.125 * (B[i+1] - 2.0 * B[i] + B[i-1]) + B[i];
    }
#pragma endscop
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
