// point_chunk_negative.c -- '--point-chunk=-8': a command-line error, no location.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --point-chunk=-8
// flextile-test: expect-error: none: invalid point chunk -8
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i];
    }
}
