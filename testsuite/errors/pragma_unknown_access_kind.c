// pragma_unknown_access_kind.c -- Malformed nest pragma: an access must start with 'read' or 'write', not 'modify'.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:56: unknown|expected|modify
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, modify B {(i)}
        for (int i = 0; i <= N - 1; i++)
            B[i] = A[i];
    }
}
