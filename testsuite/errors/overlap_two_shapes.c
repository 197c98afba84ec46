// overlap_two_shapes.c -- '--rectangle' and '--scalene' together: a command-line error, no location.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --scalene
// flextile-test: expect-error: none: cannot be used with
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
