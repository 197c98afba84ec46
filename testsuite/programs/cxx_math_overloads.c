/* cxx_math_overloads.c -- C library calls whose arguments C++ would send to
 * another overload (ISO C++17 Annex C.5, <cmath> and <cstdlib>): exp, sqrt,
 * pow and fabs of a float call expf, sqrtf, powf and fabsf in C++, abs of a
 * long calls labs. The CUDA output is compiled as C++, so flextile casts
 * each argument to the C parameter's type (exp((double)(x))): the kernels
 * and the code around them print the bits C prints (issue 54, class 8).
 *
 *   for t in 0..T-1, for i in 0..N-1:
 *     B[i] = exp(A[i]) + sqrt(A[i]) + pow(A[i], 1.5f) + fabs(A[i] - 3.0f) + abs(l) * 1e-12
 *     A[i] = (float)(B[i] * 0.125)
 * Output: the same calls outside the region, then A and B in full.
 *
 * flextile-test: args: default | 40 3 | 1 1 | 65 2
 * flextile-test: options: default | --tile | --rectangle | --scalene --tile-sizes 3,5 | --rectangle --tile-sizes 4,8
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void run(int T, int N, long l, float *A, double *B)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < N; i++)
            B[i] = exp(A[i]) + sqrt(A[i]) + pow(A[i], 1.5f) + fabs(A[i] - 3.0f) + abs(l) * 1e-12;
        for (int i = 0; i < N; i++)
            A[i] = (float)(B[i] * 0.125);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 20;
    int T = argc > 2 ? atoi(argv[2]) : 2;
    long l = -3000000007L;
    float *A = malloc(sizeof(float) * (N > 0 ? N : 1));
    double *B = malloc(sizeof(double) * (N > 0 ? N : 1));
    for (int i = 0; i < N; i++) {
        A[i] = 0.1f * (float)(i % 13) + 0.3f;
        B[i] = 0;
    }
    float x = 0.7f;
    printf("exp = %.17g, sqrt = %.17g, pow = %.17g, fabs = %.17g, abs = %d\n", exp(x), sqrt(x),
           pow(x, 0.3f), fabs(-x), abs(l));
    run(T, N, l, A, B);
    for (int i = 0; i < N; i++)
        printf("A[%d] = %.9g, B[%d] = %.17g\n", i, A[i], i, B[i]);
    free(A);
    free(B);
    return 0;
}
