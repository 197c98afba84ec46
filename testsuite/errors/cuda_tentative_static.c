// cuda_tentative_static.c -- a static variable declared without an initialiser before its initialised definition: C++ cannot declare a static variable without defining it, so the CUDA output is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 5:15: 'static' without an initialiser
static double w;
static double w = 0.5;
void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = w * A[i];
#pragma endscop
}
