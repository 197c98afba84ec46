// overlap_tolerance_negative.c -- '--overlap-tolerance=-0.5': a command-line error, no location.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --overlap-tolerance=-0.5
// flextile-test: expect-error: none: invalid overlap tolerance
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = 2.0 * A[i];
    }
}
