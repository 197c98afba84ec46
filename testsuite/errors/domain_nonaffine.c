// domain_nonaffine.c -- A domain bound must be affine in the parameters: N*M is not.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:28|8:29|8:26|8:19|8:30: affine
void f(int N, int M, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N*M-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N * M - 1; i++)
            B[i] = A[i];
    }
}
