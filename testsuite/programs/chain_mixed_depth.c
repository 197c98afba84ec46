/* chain_mixed_depth.c -- a loop chain whose nests have different depths,
 * kept in the original order.
 *
 * nest 1 (2-D): G[i][j] = 0.5*X[i][j] + (double)(i - j)      over 0..N-1 x 0..K-1
 * nest 2 (1-D): D[i] = G[i][0] - G[i][K-1]                   over 0..N-1
 * nest 3 (2-D): H[i][j] = G[i][j]*D[i] + D[i-1]              over 1..N-1 x 0..K-1
 * nest 4 (1-D, over j): R[j] = 2.0*H[N-1][j] + G[0][j]       over 0..K-1
 * Schedule: schedule() -- no fusion; each nest may be tiled on its own.
 * Exercises: nests of depth 1 and 2 in one chain, two parameters (N, K),
 * parameters inside access tuples ((i,K-1), (N-1,j)), constant subscripts,
 * iterators used outside subscripts (the cast in nest 1), a 1-D nest whose
 * iterator is named j, non-square domains, N = 1 (nest 3 empty, nest 4 then
 * reads H's initial row).
 * Output: G, D, H and R in full.
 *
 * flextile-test: args: 10 7 | 5 40 | 1 1 | 33 3 | 2 65 | 70 70
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 5,3 | --no-openmp | --rectangle | --scalene --tile-sizes 5,3
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

static void chain(int N, int K, double X[N][K], double G[N][K], double D[N], double H[N][K], double R[K])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1, 0:K-1) with (i, j) read X {(i,j)}, write G {(i,j)}
        for (int i = 0; i <= N - 1; i++)
            for (int j = 0; j <= K - 1; j++)
                G[i][j] = 0.5 * X[i][j] + (double)(i - j);

#pragma omplc for domain(0:N-1) with (i) read G {(i,0),(i,K-1)}, write D {(i)}
        for (int i = 0; i <= N - 1; i++)
            D[i] = G[i][0] - G[i][K-1];

#pragma omplc for domain(1:N-1, 0:K-1) with (i, j) read G {(i,j)}, read D {(i),(i-1)}, write H {(i,j)}
        for (int i = 1; i <= N - 1; i++)
            for (int j = 0; j <= K - 1; j++)
                H[i][j] = G[i][j] * D[i] + D[i-1];

#pragma omplc for domain(0:K-1) with (j) read H {(N-1,j)}, read G {(0,j)}, write R {(j)}
        for (int j = 0; j <= K - 1; j++)
            R[j] = 2.0 * H[N-1][j] + G[0][j];
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 10, 1);
    int K = arg_int(argc, argv, 2, 7, 1);
    double (*X)[K] = xmalloc(sizeof(double) * N * K);
    double (*G)[K] = xmalloc(sizeof(double) * N * K);
    double (*H)[K] = xmalloc(sizeof(double) * N * K);
    double *D = xmalloc(sizeof(double) * N);
    double *R = xmalloc(sizeof(double) * K);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < K; j++) {
            X[i][j] = next_value();
            G[i][j] = -1.0;
            H[i][j] = next_value();
        }
    for (int i = 0; i < N; i++)
        D[i] = -2.0;
    for (int j = 0; j < K; j++)
        R[j] = -3.0;
    chain(N, K, X, G, D, H, R);
    int dims[2] = {N, K};
    dump("G", &G[0][0], 2, dims);
    dump1("D", D, N);
    dump("H", &H[0][0], 2, dims);
    dump1("R", R, K);
    free(X);
    free(G);
    free(H);
    free(D);
    free(R);
    return 0;
}
