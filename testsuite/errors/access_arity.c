// access_arity.c -- Data set B is written with 1-tuples in nest 1 but read with a 2-tuple in nest 2.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 11:50|11:51|11:47|11:49: arity|dimension|tuple
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
#pragma omplc for domain(0:N-1) with (i) read B {(i, 0)}, write C {(i)}
        for (int i = 0; i <= N - 1; i++)
            C[i] = B[i];
    }
}
