/* alias_overlap.c -- kernels whose pointer parameters may overlap (issue 17, finding 17).
 *
 *   heat:  for t: B[i] = 1-2-1 average of A;  A[i] = 1-2-1 average of B  (double buffering)
 *   blur:  out[i][j] = 4-point average of in (POLYBENCH_2D-style parameters, DATA_TYPE in[N][M])
 *   pipe:  loop chain, fuse(): A[i] = 3-point sum of X; B[i] = A[i-1] - A[i+1]
 *   shift: G[i] = p[i] + 0.5 * p[i+1] into the global array G, through a pointer p
 * Each kernel runs twice: on disjoint arrays, and on arguments that overlap
 * (heat(X, X + 2), blur(g, g + 1), pipe(W, W + 1, W + 3), shift(G + 1)), whose
 * result is the original loops' sequential one. Polyhedral transformations
 * assume distinct arrays are disjoint: flextile guards each region with a
 * run-time check of the address ranges it touches through each pointer and
 * runs the original code where they overlap. The overlapping calls must match
 * the original bit for bit under every option set (the fallback is taken);
 * the disjoint calls take the transformed code (tests/alias_guard.rs checks
 * which branch runs).
 * Input: LCG noise. Output: every array of both runs.
 *
 * flextile-test: args: 20 3 7 | 5 1 3 | 3 2 3 | 33 4 12 | 2 0 3
 * flextile-test: options: default | --tile | --tile --tile-sizes 2,5,4 | --rectangle | --scalene | --rectangle --tile-sizes 2,4,8 | --scalene --tile-sizes 3,5,7 | --no-openmp --tile
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

#define DATA_TYPE double
#define M 12
#define POLYBENCH_2D(var, dim1, dim2) var[dim1][dim2]

static void heat(int T, int N, DATA_TYPE *A, DATA_TYPE *B)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
        for (int i = 1; i < N - 1; i++)
            A[i] = 0.25 * (B[i - 1] + 2.0 * B[i] + B[i + 1]);
    }
#pragma endscop
}

static void blur(int N, int P, DATA_TYPE POLYBENCH_2D(in, N, M), DATA_TYPE POLYBENCH_2D(out, N, M))
{
#pragma scop
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < P - 1; j++)
            out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
#pragma endscop
}

static void pipe(int N, const double *X, double *A, double *B)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read X {(i-1),(i),(i+1)}, write A {(i)}
        for (int i = 1; i <= N - 2; i++)
            A[i] = X[i - 1] + X[i] + X[i + 1];
#pragma omplc for domain(2:N-3) with (i) read A {(i-1),(i+1)}, write B {(i)}
        for (int i = 2; i <= N - 3; i++)
            B[i] = A[i - 1] - A[i + 1];
    }
}

static double G[128];

static void shift(int N, const double *p)
{
#pragma scop
    for (int i = 0; i < N; i++)
        G[i] = p[i] + 0.5 * p[i + 1];
#pragma endscop
}

static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = next_value();
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 2);
    int T = arg_int(argc, argv, 2, 3, 0);
    int P = arg_int(argc, argv, 3, 7, 2);
    if (P > M || N > 120) {
        fprintf(stderr, "P must be <= %d and N <= 120\n", M);
        return 1;
    }
    /* heat: disjoint, then B two elements after A in one buffer */
    double *Y = xmalloc(sizeof(double) * N);
    double *Z = xmalloc(sizeof(double) * N);
    double *X = xmalloc(sizeof(double) * (N + 2));
    fill(Y, N);
    fill(Z, N);
    fill(X, N + 2);
    heat(T, N, Y, Z);
    heat(T, N, X, X + 2);
    dump1("heat.A", Y, N);
    dump1("heat.B", Z, N);
    dump1("heat.X", X, N + 2);

    /* blur: disjoint, then out one row below in */
    double (*gin)[M] = xmalloc(sizeof(double) * M * N);
    double (*gout)[M] = xmalloc(sizeof(double) * M * N);
    double (*g)[M] = xmalloc(sizeof(double) * M * (N + 1));
    fill(&gin[0][0], M * N);
    fill(&gout[0][0], M * N);
    fill(&g[0][0], M * (N + 1));
    blur(N, P, gin, gout);
    blur(N, P, g, g + 1);
    dump1("blur.out", &gout[0][0], M * N);
    dump1("blur.g", &g[0][0], M * (N + 1));

    /* pipe: disjoint, then A and B inside X's buffer */
    double *PX = xmalloc(sizeof(double) * N);
    double *PA = xmalloc(sizeof(double) * N);
    double *PB = xmalloc(sizeof(double) * N);
    double *W = xmalloc(sizeof(double) * (N + 3));
    fill(PX, N);
    fill(PA, N);
    fill(PB, N);
    fill(W, N + 3);
    pipe(N, PX, PA, PB);
    pipe(N, W, W + 1, W + 3);
    dump1("pipe.A", PA, N);
    dump1("pipe.B", PB, N);
    dump1("pipe.W", W, N + 3);

    /* shift: from another array, then from G itself, one element ahead */
    double *S = xmalloc(sizeof(double) * (N + 1));
    fill(S, N + 1);
    fill(G, 128);
    shift(N, S);
    dump1("shift.G", G, N);
    fill(G, 128);
    shift(N, G + 1);
    dump1("shift.G1", G, N + 2);

    free(Y); free(Z); free(X); free(gin); free(gout); free(g);
    free(PX); free(PA); free(PB); free(W); free(S);
    return 0;
}
