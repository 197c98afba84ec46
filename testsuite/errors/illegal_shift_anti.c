// illegal_shift_anti.c -- User shifts fuse((0),(0)) are illegal through an anti dependence only: nest 2
// overwrites A[i], which nest 1 reads at iteration i+1 (A[i-1] there) --
// with equal shifts nest 2 would destroy the old value first. fuse((0),(1)) is
// legal. The message must name both nests.
// flextile-test: expect-exit: 1
// flextile-test: expect-stderr: nest 1|line 13|:13:
// flextile-test: expect-stderr: nest 2|line 16|:16:
// flextile-test: expect-error: 11:1|11:34|11:43|11:38|16:1|16:56|16:62: violat
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse((0),(0)))
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i-1] + A[i+1];
#pragma omplc for domain(1:N-2) with (i) read B {(i)}, write A {(i)}
        for (int i = 1; i <= N - 2; i++)
            A[i] = 0.5 * B[i];
    }
}
