// parallel_illegal.c -- tile((8), parallel, serial) on a fused chain whose fused loop carries a
// dependence (nest 2 reads B[i-1]): parallel tile loops would be wrong.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:1|7:52|7:42|7:25: parallel|dependence|carried
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse(), tile((8), parallel, serial))
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i-1] + A[i] + A[i+1];
#pragma omplc for domain(2:N-2) with (i) read B {(i-1),(i)}, write C {(i)}
        for (int i = 2; i <= N - 2; i++)
            C[i] = B[i] - 0.5 * B[i-1];
    }
}
