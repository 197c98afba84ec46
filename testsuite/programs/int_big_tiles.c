/* int_big_tiles.c -- int variables only, tile sizes and point chunks near 2^31
 * (issue 17, finding 11).
 *
 * kernel 1 (chain, `int M`): the spec's two-nest 1-D chain, B from X over
 * 1..M-2, then C from B over 0..M-1, fuse() (shift 0: non-negative distances).
 * kernel 2 (scop, `int N`): for t in 0..T-1, P[i][j] = average of Q's 5-point
 * neighbourhood over the interior, then Q = P (a 2-D Jacobi step; its own order).
 * With tile sizes near 2^31, `int` counter arithmetic such as
 * `counter + tile size - 1` overflowed: tile loops that never ran or never ended.
 * Sizes above WIDE_ABOVE (2^20) make the counters long long.
 * Input: LCG values. Output: every array in full.
 *
 * flextile-test: args: 100 10 4 | 5 3 1 | 1 2 0 | 33 9 3
 * flextile-test: options: default | --tile --tile-sizes 2147483647 | --tile --tile-sizes 2147483647,2147483647,2147483647 | --tile --tile-sizes 1099511627776,2147483648 | --tile --tile-sizes 4,8,2147483000 | --rectangle --tile-sizes 3,16 --point-chunk 2147483647 | --rectangle | --scalene
 */
#include <stdio.h>
#include <stdlib.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

static void dump1(const char *name, const double *x, int n)
{
    for (int k = 0; k < n; k++)
        printf("%s[%d] = %.17g\n", name, k, x[k]);
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

static void chain(int M, const double *X, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:M-2) with (i) read X { (i-1), (i), (i+1) }, write B { (i) }
        for (int i = 1; i <= M - 2; i += 1) { B[i] = (X[i-1] + X[i] + X[i+1]) * 0.3125; }

#pragma omplc for domain(0:M-1) with (i) read B { (i) }, write C { (i) }
        for (int i = 0; i <= M - 1; i += 1) { C[i] = B[i] * B[i] - 0.5 * B[i]; }
    }
}

static void jacobi(int T, int N, double P[N][N], double Q[N][N])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                P[i][j] = 0.2 * (Q[i][j] + Q[i-1][j] + Q[i+1][j] + Q[i][j-1] + Q[i][j+1]);
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                Q[i][j] = P[i][j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int M = argc > 1 ? atoi(argv[1]) : 100;
    int N = argc > 2 ? atoi(argv[2]) : 10;
    int T = argc > 3 ? atoi(argv[3]) : 4;
    if (M < 1 || N < 1 || T < 0) {
        fprintf(stderr, "M and N must be >= 1, T >= 0\n");
        return 1;
    }
    double *X = xmalloc(sizeof(double) * M);
    double *B = xmalloc(sizeof(double) * M);
    double *C = xmalloc(sizeof(double) * M);
    for (int k = 0; k < M; k++) {
        X[k] = next_value();
        B[k] = next_value();
        C[k] = -1.0;
    }
    chain(M, X, B, C);
    dump1("X", X, M);
    dump1("B", B, M);
    dump1("C", C, M);
    double (*P)[N] = xmalloc(sizeof(double) * N * N);
    double (*Q)[N] = xmalloc(sizeof(double) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            P[i][j] = -1.0;
            Q[i][j] = next_value();
        }
    jacobi(T, N, P, Q);
    dump1("P", &P[0][0], N * N);
    dump1("Q", &Q[0][0], N * N);
    free(X);
    free(B);
    free(C);
    free(P);
    free(Q);
    return 0;
}
