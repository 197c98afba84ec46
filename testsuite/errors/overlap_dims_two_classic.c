// overlap_dims_two_classic.c -- '--overlap-dims 0' on 3-D nests with three tile sizes leaves two tiled loops to classic tiling; partial overlapped tiling supports one.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --overlap-dims 0 --tile-sizes 4,4,4
// flextile-test: expect-error: 7:1: supports one classically tiled loop
void f(int N, double A[N][N][N], double B[N][N][N], double C[N][N][N])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2, 1:N-2, 1:N-2) with (i, j, k) read A {(i-1,j,k),(i,j,k+1)}, write B {(i,j,k)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                for (int k = 1; k <= N - 2; k++)
                    B[i][j][k] = A[i-1][j][k] + A[i][j][k+1];
#pragma omplc for domain(1:N-2, 1:N-2, 1:N-2) with (i, j, k) read B {(i,j-1,k),(i+1,j,k)}, write C {(i,j,k)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                for (int k = 1; k <= N - 2; k++)
                    C[i][j][k] = B[i][j-1][k] * B[i+1][j][k];
    }
}
