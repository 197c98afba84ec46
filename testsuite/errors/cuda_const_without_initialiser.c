// cuda_const_without_initialiser.c -- a file-scope const object without an initialiser (zero in C): C++ rejects it, so the CUDA output is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 5:14: no initialiser
const double bias;
void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i] + bias;
#pragma endscop
}
