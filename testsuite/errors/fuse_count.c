// fuse_count.c -- fuse() lists one shift vector but the chain has two nests.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 6:34|6:39|6:38|6:1: shift|nest
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse((0)))
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
#pragma omplc for domain(0:N-1) with (i) read B {(i)}, write C {(i)}
        for (int i = 0; i <= N - 1; i++)
            C[i] = B[i];
    }
}
