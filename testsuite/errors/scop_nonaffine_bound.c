// scop_nonaffine_bound.c -- Scop mode: the loop bound N*M is not affine (a product of parameters).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:21|8:23|8:17|8:5: affine
void f(int N, int M, double *A)
{
    int i;
#pragma scop
    for (i = 0; i < N * M; i++)
        A[i] = 0.5 * i;
#pragma endscop
}
