/* polybench_countdown.c -- PolyBench-style kernels whose loops count down.
 *
 *   sweep:   for t = TSTEPS-1 down to 0: a backward in-place sweep
 *            A[i] = (A[i-1] + A[i] + A[i+1]) / 3 for i = N-2 down to 1 (it reads
 *            the A[i+1] it has just updated), then B[i] += A[i] / 2 upwards;
 *   trisolv: back substitution x = U^-1 b, i from N-1 down to 0, the inner
 *            reduction over j from N-1 down to i+1 ('--j', 'j > i');
 *   stride:  D[j] += D[j+3] for j = N-1 down to 1 step 3 ('j = j - 3', '0 < j'),
 *            and C[i] = C[i] * 0.5 + C[i+2] for i = N-1 down to 0 step 2 ('i -= 2');
 *   suffix:  E[i][j] += E[i+1][j] / 2 + E[i][j+1] / 4 for i, j down from N-2, M-2.
 * Every statement reads values the same loop wrote at an earlier (larger)
 * iterator value, so running any of these loops upwards changes the bits.
 * The original order is kept (the schedule runs -i); rectangular tiling of
 * (-i, -j) in 'suffix' is legal (both dependence components are non-negative
 * there), the stride loops' writes never meet the other parity's reads except
 * through the carried dependence.
 * Overlapped tiling does not support loops that count down: flextile warns and
 * compiles those regions without it.
 * Exercises: down-counting loops in scops (finding 4 of issue 17): 'i--',
 * '--i', 'i -= c', 'i = i - c', '>=', '>', 'lb < i', a down-counting time
 * loop, up and down inner loops in one time loop, statements at two depths.
 * Output: A, B, x, C, D, E in full.
 *
 * flextile-test: args: 20 5 | 5 2 | 1 1 | 2 0 | 37 4 | 3 3
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 3,5 | --tile --tile-sizes 2,3,5 | --no-openmp | --tile --tile-sizes 1,1
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 4,4
 * flextile-test: fallback-warning: loops that count down
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define POLYBENCH_LOOP_BOUND(x, y) y
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
#define _PB_M POLYBENCH_LOOP_BOUND(M, m)
#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)

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

static void kernel_sweep(int tsteps, int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int t, i;
#pragma scop
    for (t = _PB_TSTEPS - 1; t >= 0; t--) {
        for (i = _PB_N - 2; i >= 1; i--)
            A[i] = (A[i-1] + A[i] + A[i+1]) / 3.0;
        for (i = 1; i < _PB_N - 1; i++)
            B[i] = B[i] + A[i] * 0.5;
    }
#pragma endscop
}

static void kernel_trisolv(int n, DATA_TYPE U[n][n], DATA_TYPE *b, DATA_TYPE *x)
{
    int i, j;
#pragma scop
    for (i = _PB_N - 1; i >= 0; i--) {
        x[i] = b[i];
        for (j = _PB_N - 1; j > i; --j)
            x[i] -= U[i][j] * x[j];
        x[i] = x[i] / U[i][i];
    }
#pragma endscop
}

static void kernel_stride(int n, DATA_TYPE *C, DATA_TYPE *D)
{
    int i, j;
#pragma scop
    for (j = _PB_N - 1; 0 < j; j = j - 3)
        D[j] = D[j] + D[j+3];
    for (i = _PB_N - 1; i >= 0; i -= 2)
        C[i] = C[i] * 0.5 + C[i+2];
#pragma endscop
}

static void kernel_suffix(int n, int m, DATA_TYPE E[n][m])
{
    int i, j;
#pragma scop
    for (i = _PB_N - 2; i >= 0; i--)
        for (j = _PB_M - 2; j >= 0; j--)
            E[i][j] = E[i][j] + E[i+1][j] * 0.5 + E[i][j+1] * 0.25;
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int tsteps = arg_int(argc, argv, 2, 5, 0);
    int m = n + 3;
    DATA_TYPE *A = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE *B = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE (*U)[n] = xmalloc(sizeof(DATA_TYPE) * n * n);
    DATA_TYPE *b = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE *x = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE *C = xmalloc(sizeof(DATA_TYPE) * (n + 2));
    DATA_TYPE *D = xmalloc(sizeof(DATA_TYPE) * (n + 3));
    DATA_TYPE (*E)[m] = xmalloc(sizeof(DATA_TYPE) * n * m);
    for (int i = 0; i < n; i++) {
        A[i] = next_value();
        B[i] = SCALAR_VAL(-1.0);
        b[i] = next_value() + i;
        x[i] = SCALAR_VAL(-2.0);
        for (int j = 0; j < n; j++)
            U[i][j] = i == j ? 1.0 + n + next_value() : next_value() * 0.25;
        for (int j = 0; j < m; j++)
            E[i][j] = next_value() + (i + j) * 0.125;
    }
    for (int i = 0; i < n + 2; i++)
        C[i] = next_value();
    for (int i = 0; i < n + 3; i++)
        D[i] = next_value();
    kernel_sweep(tsteps, n, A, B);
    kernel_trisolv(n, U, b, x);
    kernel_stride(n, C, D);
    kernel_suffix(n, m, E);
    dump1("A", A, n);
    dump1("B", B, n);
    dump1("x", x, n);
    dump1("C", C, n + 2);
    dump1("D", D, n + 3);
    int dims[2] = {n, m};
    dump("E", &E[0][0], 2, dims);
    free(A);
    free(B);
    free(U);
    free(b);
    free(x);
    free(C);
    free(D);
    free(E);
    return 0;
}
