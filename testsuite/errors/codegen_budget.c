// codegen_budget.c -- isl's code generator runs past the budget '--max-isl-operations 1' gives it, and the chain has nothing simpler to try.
// flextile-test: expect-exit: 1
// flextile-test: options: --tile --max-isl-operations 1
// flextile-test: expect-error: 7:1: ran past its budget
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i - 1] + A[i + 1];
#pragma omplc for domain(1:N-2) with (i) read B {(i)}, write C {(i)}
        for (int i = 1; i <= N - 2; i++)
            C[i] = 2.0 * B[i];
    }
}
