// point_chunk_scalene.c -- '--point-chunk' with '--scalene': a command-line error, no location (scalene tiles have no fused point loop to strip-mine).
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --point-chunk 64
// flextile-test: expect-error: none: --point-chunk needs --rectangle
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i];
    }
}
