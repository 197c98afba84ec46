// shift_too_large.c -- fuse((0), (4611686018427387904)): a shift of 2^62, above the 2^40
// flextile accepts (issue 17, finding 11). It used to be printed into int loop counters:
// the second nest never ran, exit 0.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:34|8:1: shift 4611686018427387904 is too large
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse((0), (4611686018427387904)))
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i];
#pragma omplc for domain(0:N-1) with (i) read B {(i)}, write C {(i)}
        for (int i = 0; i <= N - 1; i++)
            C[i] = B[i] + 1.0;
    }
}
