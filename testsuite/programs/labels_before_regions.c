/* labels_before_regions.c -- regions right after a label (issue 54, class 2).
 *
 * A `#pragma scop` or `#pragma omplc loopchain` written between a label
 * (`case 1:`, `default:`, a goto label `L:`) and its first statement: the
 * label's statement is the region's first statement and must be in the
 * model (it was left out: "1 stage(s)" and an array never computed).
 * Kernels, each a two-stage 1-D pipeline (A from the input X, then a 3-point
 * smoothing of A into B), reached:
 *   - after `case 1:` of a switch (mode 1; mode 0 runs another case),
 *   - after `default:` (mode 2),
 *   - after a goto label (the loop's first statement jumps to it),
 *   - as the unbraced `then` branch of an `if` with an `else`,
 *   - a loop chain after `case 1:`,
 *   - a scop with constant comparisons (`if (0 > 1)`: its statement never
 *     runs, the `else` branch always; `if (1 > 0)` always).
 * The schedule is the regions' own order (or fusion, for the chain); both
 * are legal: B reads A only where an earlier iteration (or stage) wrote it.
 * Input: LCG values in X. Output: A and B of each kernel.
 *
 * flextile-test: args: default | 1 | 2 | 7 | 33
 * flextile-test: options: default | --tile | --tile --tile-sizes 4 | --rectangle | --scalene --tile-sizes 3,5
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

static void after_case(int mode, int n, const double *X, double *A, double *B)
{
    int i;
    switch (mode) {
    case 0:
        A[0] = -2.0;
        break;
    case 1:
#pragma scop
        for (i = 0; i < n; i++)
            A[i] = 0.5 * X[i] + 1.0;
        for (i = 1; i < n - 1; i++)
            B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
#pragma endscop
        break;
    default:
#pragma scop
        for (i = 0; i < n; i++)
            A[i] = X[i] - 3.0;
        for (i = 1; i < n - 1; i++)
            B[i] = A[i - 1] * A[i + 1];
#pragma endscop
        break;
    }
}

static void after_goto_label(int n, const double *X, double *A, double *B)
{
    int i;
    goto start;
start:
#pragma scop
    for (i = 0; i < n; i++)
        A[i] = X[i] * X[i];
    for (i = 1; i < n - 1; i++)
        B[i] = A[i + 1] - A[i - 1];
#pragma endscop
}

static void unbraced_then(int flag, int n, const double *X, double *A, double *B)
{
    int i;
    if (flag)
#pragma scop
        for (i = 0; i < n; i++)
            A[i] = X[i] + 0.125;
#pragma endscop
    else
        A[0] = -5.0;
    for (i = 1; i < n - 1; i++)
        B[i] = A[i] + 1.0;
}

static void chain_after_case(int mode, int n, const double *X, double *A, double *B)
{
    switch (mode) {
    case 1:
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:n-1) with (i) read X{(i)} write A{(i)}
        for (int i = 0; i < n; i++)
            A[i] = 2.0 * X[i] - 1.0;
#pragma omplc for domain(1:n-2) with (i) read A{(i-1),(i),(i+1)} write B{(i)}
        for (int i = 1; i < n - 1; i++)
            B[i] = 0.5 * (A[i - 1] + A[i + 1]) - A[i];
    }
        break;
    default:
        break;
    }
}

static void constant_conditions(int n, const double *X, double *A, double *B)
{
    int i;
#pragma scop
    for (i = 0; i < n; i++)
        if (0 > 1)
            A[i] = 7.0;
        else
            A[i] = X[i] + 2.0;
    for (i = 1; i < n - 1; i++)
        if (1 > 0)
            B[i] = A[i - 1] + A[i] + A[i + 1];
#pragma endscop
}

static void fill(int n, double *A, double *B)
{
    for (int k = 0; k < n; k++) {
        A[k] = -1.0;
        B[k] = -1.0;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    if (n < 1) {
        fprintf(stderr, "n must be >= 1\n");
        return 1;
    }
    double *X = malloc(sizeof(double) * n);
    double *A = malloc(sizeof(double) * n);
    double *B = malloc(sizeof(double) * n);
    if (!X || !A || !B)
        return 1;
    for (int k = 0; k < n; k++)
        X[k] = next_value();
    for (int mode = 0; mode < 3; mode++) {
        fill(n, A, B);
        after_case(mode, n, X, A, B);
        printf("after_case mode %d\n", mode);
        dump1("A", A, n);
        dump1("B", B, n);
    }
    fill(n, A, B);
    after_goto_label(n, X, A, B);
    printf("after_goto_label\n");
    dump1("A", A, n);
    dump1("B", B, n);
    for (int flag = 0; flag < 2; flag++) {
        fill(n, A, B);
        unbraced_then(flag, n, X, A, B);
        printf("unbraced_then %d\n", flag);
        dump1("A", A, n);
        dump1("B", B, n);
    }
    for (int mode = 0; mode < 2; mode++) {
        fill(n, A, B);
        chain_after_case(mode, n, X, A, B);
        printf("chain_after_case mode %d\n", mode);
        dump1("A", A, n);
        dump1("B", B, n);
    }
    fill(n, A, B);
    constant_conditions(n, X, A, B);
    printf("constant_conditions\n");
    dump1("A", A, n);
    dump1("B", B, n);
    free(X);
    free(A);
    free(B);
    return 0;
}
