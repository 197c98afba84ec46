// fuse_unbounded_distance.c -- fuse() cannot find constant shifts: nest 2 at i reads B[i+K], written by nest 1
// at iteration i+K, a distance that depends on the parameter K.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:34|7:1|7:25: shift|distance|fus
void f(int N, int K, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i] * 2.0;
#pragma omplc for domain(0:N-1-K) with (i) read B {(i+K)}, write C {(i)}
        for (int i = 0; i <= N - 1 - K; i++)
            C[i] = B[i+K];
    }
}
