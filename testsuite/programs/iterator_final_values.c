/* iterator_final_values.c -- loop variables read after a region (issue 17,
 * findings 19 and 11).
 *
 *   scale:    A[i] = 2 A[i] + 1 for i in 0..N-1, then 'return i;' (N; 0 when
 *             the loop never runs);
 *   window:   B[i] = A[i] / 2 for i in 5..N-4: the loop runs zero times for
 *             N < 10 and i is left at its initial value 5;
 *   tri:      C[i][j] = A[i] + A[j] for i in 1..N-2, j = i, i+3, ... < M:
 *             j's final value comes from the last i whose inner loop was
 *             entered, both are returned;
 *   global:   a file-scope iterator 'gi' (step 2), read by main;
 *   countdn:  back substitution with i and j counting down ('i--', '--j',
 *             'j > i'), guarded by 'if (i < N - 1)': j keeps the value of
 *             the last row whose loop ran; both are returned;
 *   time:     a time loop t around two loops over i, 't' and 'i' returned;
 *   chain:    a loop chain whose first nest iterates over a local 'k', which
 *             is returned;
 *   dead:     the same loops with iterators nobody reads after the region
 *             (no final-value code is generated for them).
 * flextile's generated loops use their own counters: each region whose
 * iterators are read after it ends with its loops without statements, which
 * leave the iterators with the original's final values.
 * Output: A, B, C, D, x and every returned iterator value.
 *
 * flextile-test: args: 20 4 | 1 1 | 9 0 | 10 2 | 37 3 | 2 5
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --tile --tile-sizes 3,5 | --no-openmp
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

/* Prints every element with its index (%.17g round-trips doubles exactly). */
static void dump(const char *name, const double *x, int nd, const int *dims)
{
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= dims[d] > 0 ? dims[d] : 0;
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

/* A file-scope iterator: its final value is visible to every function. */
int gi = -7;

static int kernel_scale(int n, DATA_TYPE *A)
{
    int i = -1;
#pragma scop
    for (i = 0; i < _PB_N; i++)
        A[i] = SCALAR_VAL(2.0) * A[i] + SCALAR_VAL(1.0);
#pragma endscop
    return i;
}

static int kernel_window(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i = -1;
#pragma scop
    for (i = 5; i < _PB_N - 4; i++)
        B[i] = A[i] / SCALAR_VAL(2.0);
#pragma endscop
    return i;
}

static int kernel_tri(int n, int m, DATA_TYPE *A, DATA_TYPE C[n][m])
{
    int i = -1, j = -1;
#pragma scop
    for (i = 1; i < _PB_N - 1; i++)
        for (j = i; j < _PB_M; j += 3)
            C[i][j] = A[i] + A[j % n];
#pragma endscop
    return i * 1000 + j;
}

static void kernel_global(int n, DATA_TYPE *D)
{
#pragma scop
    for (gi = 0; gi < _PB_N; gi += 2)
        D[gi] = D[gi] * SCALAR_VAL(0.5) + gi;
#pragma endscop
}

static int kernel_countdn(int n, DATA_TYPE U[n][n], DATA_TYPE *b, DATA_TYPE *x)
{
    int i = -1, j = -1;
#pragma scop
    for (i = _PB_N - 1; i >= 0; i--) {
        x[i] = b[i];
        if (i < _PB_N - 1)
            for (j = _PB_N - 1; j > i; --j)
                x[i] -= U[i][j] * x[j];
        x[i] = x[i] / U[i][i];
    }
#pragma endscop
    return i * 1000 + j;
}

static int kernel_time(int tsteps, int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int t = -1, i = -1;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / SCALAR_VAL(3.0);
        for (i = 1; i < _PB_N - 1; i++)
            A[i] = B[i];
    }
#pragma endscop
    return t * 1000 + i;
}

static int kernel_chain(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int k = -1;
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:n-2) with (k) read A {(k-1), (k), (k+1)} write B {(k)}
        for (k = 1; k < n - 1; k++)
            B[k] = A[k - 1] + A[k] + A[k + 1];
#pragma omplc for domain(1:n-2) with (c) read B {(c)} write A {(c)}
        for (int c = 1; c < n - 1; c++)
            A[c] = B[c] * SCALAR_VAL(0.25);
    }
    return k;
}

static void kernel_dead(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i, j;
#pragma scop
    for (i = 0; i < _PB_N; i++)
        for (j = 0; j < 2; j++)
            B[i] = B[i] + A[i] * j;
#pragma endscop
    for (i = 0; i < n; i++)
        A[i] = A[i] - B[i];
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int tsteps = arg_int(argc, argv, 2, 4, 0);
    int m = n + 3;
    DATA_TYPE *A = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE *B = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE (*C)[m] = xmalloc(sizeof(DATA_TYPE) * n * m);
    DATA_TYPE *D = xmalloc(sizeof(DATA_TYPE) * (n + 1));
    DATA_TYPE (*U)[n] = xmalloc(sizeof(DATA_TYPE) * n * n);
    DATA_TYPE *b = xmalloc(sizeof(DATA_TYPE) * n);
    DATA_TYPE *x = xmalloc(sizeof(DATA_TYPE) * n);
    for (int i = 0; i < n; i++) {
        A[i] = next_value();
        B[i] = SCALAR_VAL(-1.0);
        b[i] = next_value() + i;
        x[i] = SCALAR_VAL(-2.0);
        for (int j = 0; j < n; j++)
            U[i][j] = i == j ? 1.0 + n + next_value() : next_value() * 0.25;
        for (int j = 0; j < m; j++)
            C[i][j] = SCALAR_VAL(-3.0);
    }
    for (int i = 0; i < n + 1; i++)
        D[i] = next_value();
    printf("scale: i = %d\n", kernel_scale(n, A));
    printf("window: i = %d\n", kernel_window(n, A, B));
    printf("tri: i*1000+j = %d\n", kernel_tri(n, m, A, C));
    printf("global before: gi = %d\n", gi);
    kernel_global(n, D);
    printf("global: gi = %d\n", gi);
    printf("countdn: i*1000+j = %d\n", kernel_countdn(n, U, b, x));
    printf("time: t*1000+i = %d\n", kernel_time(tsteps, n, A, B));
    printf("chain: k = %d\n", kernel_chain(n, A, B));
    kernel_dead(n, A, B);
    dump1("A", A, n);
    dump1("B", B, n);
    int dims[2] = {n, m};
    dump("C", &C[0][0], 2, dims);
    dump1("D", D, n + 1);
    dump1("x", x, n);
    free(A);
    free(B);
    free(C);
    free(D);
    free(U);
    free(b);
    free(x);
    return 0;
}
