// tile_size_zero.c -- A valid chain compiled with '--tile-sizes 0': a command-line error, no location.
// flextile-test: expect-exit: 1
// flextile-test: options: --tile --tile-sizes 0
// flextile-test: expect-error: none: tile size|tile-size
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
