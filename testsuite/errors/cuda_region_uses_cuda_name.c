// cuda_region_uses_cuda_name.c -- a region that reads a variable named blockDim, the name of CUDA's built-in the generated kernels index with: the CUDA output is refused at the use.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 10:29: uses 'blockDim'
static double blockDim = 2.0;
void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = A[i] * 2.0 + blockDim;
#pragma endscop
}
