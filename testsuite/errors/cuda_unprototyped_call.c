// cuda_unprototyped_call.c -- a call with arguments to a function declared without a prototype that the file does not define: C++ reads '()' as no parameters, so the CUDA output is refused at the call.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 15:5: declared without a prototype
double weight();
void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
}
void g(int N, double *A)
{
    weight(N, A);
}
