/* cxx_sizeof_operands.c -- 'sizeof' of expressions in a region and around
 * it (issue 54, class 8): in a kernel, 'sizeof(B[i])' named the host array
 * B (the CUDA output did not compile), and C++ types some expressions
 * otherwise than C ('sizeof(x == y)' is sizeof(int) in C, sizeof(bool) in
 * C++). flextile respells 'sizeof' of an expression as 'sizeof(TYPE)' with
 * the operand's C type.
 *
 *   for t in 0..T-1, for i in 1..N-2:
 *     B[i] = A[i] * sizeof(B[i]) / 8 + sizeof(A[i] == B[i]) * (A[i-1] + A[i+1]) / 16
 *     A[i] = B[i] + sizeof(!A[i]) * 0.25 + sizeof s / 100.0
 * Output: the sizes outside the region, A in full.
 *
 * flextile-test: args: default | 40 7 | 3 2 | 65 1
 * flextile-test: options: default | --tile | --rectangle | --scalene --tile-sizes 3,5 | --rectangle --tile-sizes 4,8
 */
#include <stdio.h>
#include <stdlib.h>

struct pair {
    double a, b;
};

static void run(int T, int N, double *A, double *B, struct pair s)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = A[i] * sizeof(B[i]) / 8 + sizeof(A[i] == B[i]) * (A[i - 1] + A[i + 1]) / 16;
        for (int i = 1; i < N - 1; i++)
            A[i] = B[i] + sizeof(!A[i]) * 0.25 + sizeof s / 100.0;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 20;
    int T = argc > 2 ? atoi(argv[2]) : 4;
    double *A = malloc(sizeof(double) * (N > 0 ? N : 1));
    double *B = malloc(sizeof(double) * (N > 0 ? N : 1));
    struct pair s = {1, 2};
    for (int i = 0; i < N; i++) {
        A[i] = (i % 5) * 0.25 + 1;
        B[i] = 0;
    }
    run(T, N, A, B, s);
    int x = N, y = T;
    printf("sizeof(x == y) = %d, sizeof(!x) = %d, sizeof(x < y ? x : y) = %d, sizeof s = %d\n",
           (int)sizeof(x == y), (int)sizeof(!x), (int)sizeof(x < y ? x : y), (int)sizeof s);
    for (int i = 0; i < N; i++)
        printf("A[%d] = %.17g\n", i, A[i]);
    free(A);
    free(B);
    return 0;
}
