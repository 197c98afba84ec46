// cuda_complex.c -- a '_Complex' variable: C++ (the CUDA output's language) has no '_Complex' types (its <complex.h> is std::complex), so the CUDA output is refused at the first one.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 9:5: _Complex
#include <complex.h>

void f(int N, double *A)
{
    double _Complex z = 1.0;
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
    A[0] = creal(z);
}
