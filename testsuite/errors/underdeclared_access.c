// underdeclared_access.c -- The body reads A[i+1] but the pragma declares only A at (i) and (i-1): the
// declared access under-approximates the real one (the body is analysable).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 9:1|9:9|9:42|9:47|9:49|9:50|9:19: declar|approximat
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i),(i-1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = A[i-1] + A[i] + A[i+1];
    }
}
