// chain_macro_nested_write_undeclared.c -- The body writes A[i-1] through macros nested in
// macros: SET(A, i, v) expands to A[PREV(i)] = (v) and PREV(i) to ((i) - 1), so both the
// subscript's '-' and the assignment are written in macro bodies. The pragma declares the
// write at (i). flextile expands the invocation, reads its operators and refuses the
// undeclared write (issue 54, class 3).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 14:1|16:13: under-declared access
#define PREV(i) ((i) - 1)
#define SET(a, i, v) a[PREV(i)] = (v)
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-1) with (i) read B {(i)}, write A {(i)}
        for (int i = 1; i <= N - 1; i++)
            SET(A, i, B[i] * 2.0);
    }
}
