/* cxx_char_literals.c -- character literals, which have type 'int' in C and
 * 'char' in C++ (ISO C++17 Annex C.1.1 [diff.lex]): the CUDA output is
 * compiled as C++, so flextile respells each literal the output keeps as
 * '((int)'a')' (issue 54, class 8): sizeof('a') stays 4, in the kernels as
 * in the code around them.
 *
 *   for t in 0..T-1, for i in 1..N-2:
 *     B[i] = (A[i-1] + A[i+1]) * sizeof('x') / 8.0 + ('a' - 96) * A[i] / 4
 *     A[i] = B[i] - 'b' * 1e-3 + (sizeof('\n') == 4 ? 0.5 : 0.25)
 * Output: sizeof of literals outside the regions, a character, A in full.
 *
 * flextile-test: args: default | 40 7 | 3 2 | 65 1
 * flextile-test: options: default | --tile | --rectangle | --scalene --tile-sizes 3,5 | --rectangle --tile-sizes 4,8
 */
#include <stdio.h>
#include <stdlib.h>

static void run(int T, int N, double *A, double *B)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = (A[i - 1] + A[i + 1]) * sizeof('x') / 8.0 + ('a' - 96) * A[i] / 4;
        for (int i = 1; i < N - 1; i++)
            A[i] = B[i] - 'b' * 1e-3 + (sizeof('\n') == 4 ? 0.5 : 0.25);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 20;
    int T = argc > 2 ? atoi(argv[2]) : 4;
    double *A = malloc(sizeof(double) * (N > 0 ? N : 1));
    double *B = malloc(sizeof(double) * (N > 0 ? N : 1));
    for (int i = 0; i < N; i++) {
        A[i] = (i % 7) * 0.125 + 1;
        B[i] = 0;
    }
    run(T, N, A, B);
    printf("sizeof('a') = %d, sizeof(L'a') = %d, sizeof('a' + 'b') = %d\n", (int)sizeof('a'),
           (int)sizeof(L'a'), (int)sizeof('a' + 'b'));
    char c = 'z';
    printf("c = %c, 'q' = %d\n", c, 'q');
    for (int i = 0; i < N; i++)
        printf("A[%d] = %.17g\n", i, A[i]);
    free(A);
    free(B);
    return 0;
}
