// shift_arity.c -- Shift vectors must have one entry per iterator: these nests are 1-D but the
// shifts are 2-D.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:39|7:34|7:45|7:1: shift|arity|dimension|entries
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse((0,0),(0,1)))
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
#pragma omplc for domain(0:N-1) with (i) read B {(i)}, write C {(i)}
        for (int i = 0; i <= N - 1; i++)
            C[i] = B[i];
    }
}
