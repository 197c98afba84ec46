// tile_size_too_large.c -- tile((2199023255552)): 2^41, above the 2^40 flextile accepts
// (larger sizes could overflow even long long counters; issue 17, finding 11). Sizes near
// 2^63 used to be printed into int loop counters: loops that never ran or never ended.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:34|8:1: tile size 2199023255552 is too large
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule(tile((2199023255552), serial, serial))
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i];
    }
}
