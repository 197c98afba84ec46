// pragma_missing_paren.c -- Malformed nest pragma: the domain's closing parenthesis is missing; the
// parser reaches 'with' while it expects ',' or ')'.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 9:32|9:31: expected
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1 with (i) read A {(i)}, write B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
