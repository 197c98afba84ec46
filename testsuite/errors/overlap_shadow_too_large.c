// overlap_shadow_too_large.c -- An in-place update under overlapped tiling
// writes a heap copy of the array's rows; with a constant trip count of
// 2^39 the copy of a double array would take 4 TiB (issue 54, class 7):
// refused instead of an allocation that cannot succeed.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 11:1: cannot be allocated
// flextile-test: options: --rectangle
#define N 549755813888L
void f(double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read A{(i-1),(i+1)} write B{(i)}
        for (long i = 1; i <= N - 2; i++)
            B[i] = A[i - 1] + A[i + 1];
#pragma omplc for domain(2:N-3) with (i) read A{(i)}, read B{(i-1),(i+1)} write A{(i)}
        for (long i = 2; i <= N - 3; i++)
            A[i] = A[i] + 0.5 * (B[i - 1] + B[i + 1]);
#pragma omplc for domain(3:N-4) with (i) read A{(i-1),(i+1)} write C{(i)}
        for (long i = 3; i <= N - 4; i++)
            C[i] = A[i - 1] - A[i + 1];
    }
}
