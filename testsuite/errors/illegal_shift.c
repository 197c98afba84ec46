// illegal_shift.c -- User shifts fuse((0),(0)) are illegal: nest 2 reads B[i+1], which nest 1
// writes at a later fused iteration (fuse((0),(1)) would be legal). The message
// must name both nests (checked through their pragma lines).
// flextile-test: expect-exit: 1
// flextile-test: expect-stderr: nest 1|line 12|:12:
// flextile-test: expect-stderr: nest 2|line 16|:16:
// flextile-test: expect-error: 10:1|10:34|10:43|10:38|16:1|16:60|16:42|16:47|18:29: violat
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule(fuse((0),(0)))
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = (A[i-1] + A[i] + A[i+1]) * 0.5;

#pragma omplc for domain(1:N-2) with (i) read B {(i-1),(i),(i+1)}, write C {(i)}
        for (int i = 1; i <= N - 2; i++)
            C[i] = B[i-1] - B[i+1];
    }
}
