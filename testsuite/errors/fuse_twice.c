// fuse_twice.c -- schedule(fuse(), fuse()): the nests are fused once; a second 'fuse' item
// used to reach the fusion pass with an already fused schedule (an internal error, exit 2;
// found by tools/difftest's schedule-item combinations).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:42|8:34|8:1: fuse
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse(), fuse())
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i-1] + A[i] + A[i+1];
#pragma omplc for domain(2:N-2) with (i) read B {(i-1),(i)}, write C {(i)}
        for (int i = 2; i <= N - 2; i++)
            C[i] = B[i] - 0.5 * B[i-1];
    }
}
