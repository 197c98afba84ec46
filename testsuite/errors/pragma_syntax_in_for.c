// pragma_syntax_in_for.c -- A syntax error inside the only '#pragma omplc for'
// of a chain (a tuple's closing brace missing). It was reported second, after
// "loop chain without any '#pragma omplc for' nest" at the chain (issue 17,
// finding 15); now it is the only error (checked by
// tests/input_forms.rs, pragma_syntax_error_is_the_only_error).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 12:68: expected ',' or '}'
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
