// cuda_long_double_kernel.c -- 'long double' in a region: CUDA's device code computes it as 'double', so the kernel would print other numbers; the CUDA output is refused at it.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 9:9: long double
void f(int N, long double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
}
