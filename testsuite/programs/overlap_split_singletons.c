/* overlap_split_singletons.c -- overlapped tiling of a chain that splits into
 * groups of one nest, each tiled alone where that is race-free.
 *
 * Nest 1: H[i] = 2 G[i-3] only where G[i-3] > 0 (a conditional write: H
 *         cannot live in a scratchpad, so nests 1 and 2 are not grouped).
 * Nest 2: J = H[i-1] + H[i+1].
 * Nest 3: L[i] = 0.375 J[i]; Q[i] = 0.25 L[i] (reads L after writing it).
 * Nest 4: C[i] = 0.5 C[i-1] + L[i], a recurrence: not tiled.
 * Nest 5: E[i] = g(C[i-1], C[i+1]), an opaque call.
 * Exercises: groups of one nest tiled alone (their tiles compute only their
 * own part, in parallel), a nest left untiled, N smaller than a tile, sizes
 * dividing and not dividing. Replaces the error tests overlap_no_group,
 * overlap_conditional_write and overlap_inplace_read_after_write, whose
 * chains were refused before groups of one nest were tiled.
 * Output: H, J, L, Q, C and E in full.
 *
 * flextile-test: args: 40 | 1 | 2 | 5 | 100 | 1000
 * flextile-test: options: default | --tile | --rectangle | --scalene | --rectangle --tile-sizes 3 | --scalene --tile-sizes 5 | --rectangle --tile-sizes 1
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

static double g(double a, double b)
{
    return a * 0.75 - b;
}

static void chain(int N, const double *G, double *H, double *J, double *L, double *Q, double *C, double *E)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(3:N-1) with (i) read G {(i-3)}, write H {(i)}
        for (int i = 3; i <= N - 1; i++)
            if (G[i - 3] > 0.5)
                H[i] = 2.0 * G[i - 3];
#pragma omplc for domain(1:N-2) with (i) read H {(i-1),(i+1)}, write J {(i)}
        for (int i = 1; i <= N - 2; i++)
            J[i] = H[i - 1] + H[i + 1];
#pragma omplc for domain(1:N-2) with (i) read J {(i)}, write L {(i)}, read L {(i)}, write Q {(i)}
        for (int i = 1; i <= N - 2; i++) {
            L[i] = 0.375 * J[i];
            Q[i] = 0.25 * L[i];
        }
#pragma omplc for domain(1:N-2) with (i) read C {(i-1)}, read L {(i)}, write C {(i)}
        for (int i = 1; i <= N - 2; i++)
            C[i] = 0.5 * C[i - 1] + L[i];
#pragma omplc for domain(1:N-2) with (i) read C {(i-1),(i+1)}, write E {(i)}
        for (int i = 1; i <= N - 2; i++)
            E[i] = g(C[i - 1], C[i + 1]);
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 40, 1);
    double *G = xmalloc(sizeof(double) * N);
    double *H = xmalloc(sizeof(double) * N);
    double *J = xmalloc(sizeof(double) * N);
    double *L = xmalloc(sizeof(double) * N);
    double *Q = xmalloc(sizeof(double) * N);
    double *C = xmalloc(sizeof(double) * N);
    double *E = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        G[i] = next_value();
        H[i] = next_value();
        J[i] = next_value();
        L[i] = next_value();
        Q[i] = next_value();
        C[i] = next_value();
        E[i] = next_value();
    }
    chain(N, G, H, J, L, Q, C, E);
    dump1("H", H, N);
    dump1("J", J, N);
    dump1("L", L, N);
    dump1("Q", Q, N);
    dump1("C", C, N);
    dump1("E", E, N);
    free(G);
    free(H);
    free(J);
    free(L);
    free(Q);
    free(C);
    free(E);
    return 0;
}
