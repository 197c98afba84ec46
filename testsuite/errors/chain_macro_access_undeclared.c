// chain_macro_access_undeclared.c -- The body reads B[i+1] through a function-like macro whose
// body spells the access (AT(B, i + 1) for B[i + 1]); the pragma declares only B at (i). The
// access is read through the macro's expansion and checked like one written plainly.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 11:1|13:27: under-declared access
#define AT(a, k) a[k]
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-2) with (i) read B {(i)}, write A {(i)}
        for (int i = 0; i <= N - 2; i++)
            A[i] = B[i] + AT(B, i + 1);
    }
}
