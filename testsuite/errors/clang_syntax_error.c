// clang_syntax_error.c -- C that clang cannot parse: a missing semicolon. The error is clang's own.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 6:14: expected ';'
void f(int N, double *A, double *B, double *C)
{
    int x = 1
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i] * x;
    }
}
