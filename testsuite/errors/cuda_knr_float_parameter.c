// cuda_knr_float_parameter.c -- a K&R definition whose parameter is a float: its callers pass a double (default argument promotions), so a prototype would change the call; the CUDA output (C++) needs one, and flextile refuses.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 6:11: default argument promotions
double half(x)
    float x;
{
    return x / 2;
}
void f(int N, double *A)
{
    double h = half(1.0f);
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = h * A[i];
#pragma endscop
}
