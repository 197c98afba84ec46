// overlap_dims_duplicate.c -- a loop named twice in --overlap-dims: a command-line error naming it, no location.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --overlap-dims 0,0
// flextile-test: expect-error: none: --overlap-dims names loop 0 twice
void f(int N, double A[N][N], double B[N][N])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1, 0:N-1) with (i, j) read A {(i,j)}, write B {(i,j)}
        for (int i = 0; i <= N - 1; i++)
            for (int j = 0; j <= N - 1; j++)
                B[i][j] = 2.0 * A[i][j];
    }
}
