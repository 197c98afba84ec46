/* chain_macro_operators.c -- loop-chain bodies whose subscripts and
 * assignments are computed in macro bodies (issue 54, class 3).
 *
 * libclang 14 gives no operator kinds and places a macro body's tokens at
 * the invocation, so 'NEXT(B, i)' defined as 'B[(i) + 1]' hid its '+':
 * flextile trusted the declaration, and an undeclared read went unnoticed.
 * flextile now expands each invocation itself and lines the expansion up
 * with clang's subtree, so these accesses are read exactly and checked
 * against the declarations, which here are truthful:
 *
 *   avg:   V[i] = (NEXT(U, i) + U[i] + PREV(U, i)) / 3   (macros: + and -)
 *   set:   SET(W, i, ...) writes W[PREV(i + 1)] = W[i]    (nested macros, '=')
 *   neg:   X[i] = NEG(V[i]) + CLAMPED(W, i, n)             (unary '-', '?:')
 *   get:   Y[i] = GET(X, i) * 2 + W[ONE - 1 + i]      (parenthesised base,
 *          an object-like macro in the subscript)
 *
 * flextile-test: args: 40 | 3 | 97
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 8 | --rectangle | --rectangle --tile-sizes 8 | --scalene | --scalene --tile-sizes 4
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 */
#include <stdio.h>
#include <stdlib.h>

#define NEXT(B, i) B[(i) + 1]
#define PREV(B, i) B[(i) - 1]
#define DEC(i) ((i) - 1)
#define SET(A, i, v) A[DEC((i) + 1)] = (v)
#define NEG(x) (-(x))
#define CLAMPED(A, i, n) A[(i) < (n) - 2 ? (i) : (n) - 2]
#define GET(A, i) (A)[(i)]
#define ONE 1

static void run(int n, double *restrict U, double *restrict V, double *restrict W,
                double *restrict X, double *restrict Y)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:n-2) with (i) read U {(i-1),(i),(i+1)}, write V {(i)}
        for (int i = 1; i < n - 1; i++)
            V[i] = (NEXT(U, i) + U[i] + PREV(U, i)) / 3.0;
#pragma omplc for domain(1:n-2) with (i) read V {(i)}, write W {(i)}
        for (int i = 1; i < n - 1; i++)
            SET(W, i, 0.5 * V[i]);
#pragma omplc for domain(1:n-2) with (i) read V {(i)}, read W {(i)}, write X {(i)}
        for (int i = 1; i < n - 1; i++)
            X[i] = NEG(V[i]) + CLAMPED(W, i, n);
#pragma omplc for domain(1:n-2) with (i) read X {(i)}, read W {(i)}, write Y {(i)}
        for (int i = 1; i < n - 1; i++)
            Y[i] = GET(X, i) * 2.0 + W[ONE - 1 + i];
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    if (n < 3)
        return 1;
    double *U = malloc(n * sizeof *U), *V = calloc(n, sizeof *V), *W = calloc(n, sizeof *W);
    double *X = calloc(n, sizeof *X), *Y = calloc(n, sizeof *Y);
    if (!U || !V || !W || !X || !Y)
        return 1;
    for (int i = 0; i < n; i++)
        U[i] = (double)((i * 37) % 11) - 4.5;
    run(n, U, V, W, X, Y);
    for (int i = 0; i < n; i++)
        printf("%d %.17g %.17g %.17g %.17g\n", i, V[i], W[i], X[i], Y[i]);
    free(U);
    free(V);
    free(W);
    free(X);
    free(Y);
    return 0;
}
