// cuda_tgmath.c -- '#include <tgmath.h>': C's type-generic math macros, which C++ (the CUDA output's language) replaces by its own overloads; the CUDA output is refused at the directive.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 5:1: tgmath.h
#include <tgmath.h>

void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
    A[0] = sqrt(A[0]);
}
