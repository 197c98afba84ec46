// overlap_dims_out_of_range.c -- '--overlap-dims 2' on a chain of 2-D nests (loops are numbered 0 and 1).
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --overlap-dims 0,2 --tile-sizes 4,4
// flextile-test: expect-error: 7:1: names loop 2, but the deepest nest has 2 loops
void f(int N, double A[N][N], double B[N][N], double C[N][N])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) read A {(i-1,j),(i+1,j)}, write B {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                B[i][j] = A[i-1][j] + A[i+1][j];
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) read B {(i,j-1),(i,j+1)}, write C {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                C[i][j] = B[i][j-1] * B[i][j+1];
    }
}
