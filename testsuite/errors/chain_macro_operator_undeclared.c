// chain_macro_operator_undeclared.c -- The body reads B[i+1] through a function-like macro whose
// body computes the subscript (NEXT(B, i) for B[(i) + 1]: the '+' is written in the macro's
// body, not in the file); the pragma declares only B at (i). flextile expands the invocation
// itself, reads the operator through the expansion and checks the access like one written
// plainly (issue 54, class 3).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 13:1|15:27: under-declared access
#define NEXT(B, i) B[(i) + 1]
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-2) with (i) read B {(i)}, write A {(i)}
        for (int i = 0; i <= N - 2; i++)
            A[i] = B[i] + NEXT(B, i);
    }
}
