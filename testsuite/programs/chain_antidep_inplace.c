/* chain_antidep_inplace.c -- fusion that anti and output dependences constrain.
 *
 *   nest 1: B[i]   = 0.5*(A[i-1] + A[i+1]) - C[i]      over 1..N-2
 *   nest 2: A[i]   = 0.75*B[i]                         over 1..N-2 (A updated in place)
 *   nest 3: B[i+1] = A[i+1] + 1.0 - B[i+1]             over 0..N-3 (B overwritten)
 * Schedule: fuse(). Flow dependences alone allow shifts (0,0,1), which is wrong:
 * nest 2 iteration i-1 overwrites A[i-1], which nest 1 iteration i must read
 * first (anti dependence, distance 1), so nest 2 needs shift >= 1; nest 3
 * reads A[i+1] from nest 2 and overwrites B[i+1] after nest 1 wrote it and
 * nest 2 read it (flow, output and anti dependences), so nest 3 needs shift
 * >= 2. The minimal legal shifts are (0),(1),(2).
 * Exercises: anti and output dependences in fusion, in-place updates of chain
 * data, writes through an offset tuple (i+1), a nest reading and writing the
 * same element.
 * Output: A, B and C in full.
 *
 * flextile-test: args: 100 | 5 | 3 | 2 | 1 | 33 | 1000
 * flextile-test: options: default | --tile | --tile --tile-sizes 8 | --tile --tile-sizes 3 | --no-openmp | --rectangle | --scalene | --rectangle --tile-sizes 8 | --scalene --tile-sizes 3
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

static void chain(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, read C {(i)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = 0.5 * (A[i-1] + A[i+1]) - C[i];

#pragma omplc for domain(1:N-2) with (i) read B {(i)}, write A {(i)}
        for (int i = 1; i <= N - 2; i++)
            A[i] = 0.75 * B[i];

#pragma omplc for domain(0:N-3) with (i) read A {(i+1)}, read B {(i+1)}, write B {(i+1)}
        for (int i = 0; i <= N - 3; i++)
            B[i+1] = A[i+1] + 1.0 - B[i+1];
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 100, 1);
    double *A = xmalloc(sizeof(double) * N);
    double *B = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        A[i] = next_value();
        B[i] = next_value();
        C[i] = next_value();
    }
    chain(N, A, B, C);
    dump1("A", A, N);
    dump1("B", B, N);
    dump1("C", C, N);
    free(A);
    free(B);
    free(C);
    return 0;
}
