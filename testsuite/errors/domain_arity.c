// domain_arity.c -- The domain has 2 ranges but 'with' lists 1 iterator.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:19|8:40|8:45|8:46|8:1: domain|iterator
void f(int N, double A[N][N], double B[N][N])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1, 0:N-1) with (i) read A {(i,i)}, write B {(i,i)}
        for (int i = 0; i <= N - 1; i++)
            for (int j = 0; j <= N - 1; j++)
                B[i][j] = A[i][j];
    }
}
