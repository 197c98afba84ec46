/* two_chains.c -- three regions in one file: two loop chains and a scop.
 *
 * chain 1 (1-D, fuse()):
 *   S[i] = 0.25*X[i-1] + 0.5*X[i] + 0.25*X[i+1]        over 1..N-2
 *   T[i] = S[i-1] - S[i+1] + X[i]                      over 2..N-3
 * chain 2 (2-D, fuse() and tile((4,4), parallel, serial)), in another function:
 *   M[i][j] = T[i]*T[j] + 1.0                          over 2..N-3 x 2..N-3
 *   P[i][j] = M[i][j]*0.75 - T[i]                      over 2..N-3 x 2..N-3
 *   (no dependence crosses iterations once fused with zero shifts, so parallel
 *   tile loops are legal)
 * scop (in main's helper): a sequential recurrence and a transposed read:
 *   R[i] = 0.5*R[i-1] + P[i][i]                        for i in 1..N-1
 *   Q[i][j] = P[i][j] + P[j][i] + R[i]                 for i, j in 0..N-1
 *   The recurrence must stay sequential (a parallel or reordered i loop gives
 *   different bits).
 * Exercises: several regions per file and per function, regions in different
 * functions, chain and scop in one file, a 2-D nest reading a 1-D data set
 * with both iterators, a loop-carried recurrence in scop mode.
 * Output: S, T, M, P, R, Q in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 | 5 | 1 | 4 | 6 | 37 | 70
 * flextile-test: options: default | --tile | --tile --tile-sizes 8,8 | --tile --tile-sizes 3,5 | --no-openmp | --rectangle --tile-sizes 8,8 | --scalene --tile-sizes 3,5
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

static void chain1(int N, const double *X, double *S, double *T)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read X {(i-1),(i),(i+1)}, write S {(i)}
        for (int i = 1; i <= N - 2; i++)
            S[i] = 0.25 * X[i-1] + 0.5 * X[i] + 0.25 * X[i+1];
#pragma omplc for domain(2:N-3) with (i) read S {(i-1),(i+1)}, read X {(i)}, write T {(i)}
        for (int i = 2; i <= N - 3; i++)
            T[i] = S[i-1] - S[i+1] + X[i];
    }
}

static void chain2(int N, const double *T, double M[N][N], double P[N][N])
{
#pragma omplc loopchain schedule(fuse(), tile((4,4), parallel, serial))
    {
#pragma omplc for domain(2:N-3, 2:N-3) with (i, j) read T {(i),(j)}, write M {(i,j)}
        for (int i = 2; i <= N - 3; i++)
            for (int j = 2; j <= N - 3; j++)
                M[i][j] = T[i] * T[j] + 1.0;
#pragma omplc for domain(2:N-3, 2:N-3) with (i, j) read M {(i,j)}, read T {(i)}, write P {(i,j)}
        for (int i = 2; i <= N - 3; i++)
            for (int j = 2; j <= N - 3; j++)
                P[i][j] = M[i][j] * 0.75 - T[i];
    }
}

static void finish(int N, double P[N][N], double *R, double Q[N][N])
{
    int i, j;
#pragma scop
    for (i = 1; i < N; i++)
        R[i] = 0.5 * R[i-1] + P[i][i];
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            Q[i][j] = P[i][j] + P[j][i] + R[i];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    double *X = xmalloc(sizeof(double) * N);
    double *S = xmalloc(sizeof(double) * N);
    double *T = xmalloc(sizeof(double) * N);
    double *R = xmalloc(sizeof(double) * N);
    double (*M)[N] = xmalloc(sizeof(double) * N * N);
    double (*P)[N] = xmalloc(sizeof(double) * N * N);
    double (*Q)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++) {
        X[i] = next_value();
        S[i] = next_value();
        T[i] = next_value();
        R[i] = next_value();
        for (int j = 0; j < N; j++) {
            M[i][j] = -1.0;
            P[i][j] = next_value();
            Q[i][j] = -2.0;
        }
    }
    chain1(N, X, S, T);
    chain2(N, T, M, P);
    finish(N, P, R, Q);
    int dims[2] = {N, N};
    dump1("S", S, N);
    dump1("T", T, N);
    dump("M", &M[0][0], 2, dims);
    dump("P", &P[0][0], 2, dims);
    dump1("R", R, N);
    dump("Q", &Q[0][0], 2, dims);
    free(X);
    free(S);
    free(T);
    free(R);
    free(M);
    free(P);
    free(Q);
    return 0;
}
