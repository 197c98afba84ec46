// wavefront_illegal.c -- schedule(wavefront) on seidel-2d's in-place 9-point update: it reads the new
// A[i-1][j+1], a dependence with distance (1,-1), so the band is not
// permutable and a wavefront over (i, j) would change the results.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:34|8:1|8:25: wavefront|dependence|permutable
void f(int N, double A[N][N])
{
#pragma omplc loopchain schedule(wavefront)
    {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) \
    read A {(i-1,j-1),(i-1,j),(i-1,j+1),(i,j-1),(i,j),(i,j+1),(i+1,j-1),(i+1,j),(i+1,j+1)}, write A {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                A[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1] + A[i][j-1] + A[i][j]
                           + A[i][j+1] + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
    }
}
