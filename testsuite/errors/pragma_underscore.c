// pragma_underscore.c -- '_Pragma("omplc ...")': flextile reads its pragmas
// from the text, as '#pragma' lines; it passed such a chain through
// untransformed with exit 0 (issue 17, finding 16). Now an error that says
// how to write it.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 10:5: #pragma omplc loopchain
void f(int N, double *A, double *B)
{
    int i;
    _Pragma("omplc loopchain schedule()")
    {
        _Pragma("omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}")
        for (i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
