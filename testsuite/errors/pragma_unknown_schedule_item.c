// pragma_unknown_schedule_item.c -- Malformed chain pragma: 'unroll' is not a schedule item.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 6:42: unknown|expected|unroll
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse(), unroll)
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
