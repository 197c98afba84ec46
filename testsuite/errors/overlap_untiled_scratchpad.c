// overlap_untiled_scratchpad.c -- one tile size for two loops: the outer loop is not tiled, and a tile's copy of A would span the whole parametric row range (found by tools/difftest).
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --tile-sizes 32
// flextile-test: expect-error: 7:1: tile size
void f(int N, int M, double A[N][M], double B[N][M], double D[N][M])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1, 0:M-1) with (i, j) read B {(i,j)}, write A {(i,j)}
        for (int i = 0; i <= N - 1; i++)
            for (int j = 0; j <= M - 1; j++)
                A[i][j] = 0.1 * B[i][j];
#pragma omplc for domain(0:N-1, 0:M-1) with (i, j) read A {(i,j)}, write D {(i,j)}
        for (int i = 0; i <= N - 1; i++)
            for (int j = 0; j <= M - 1; j++)
                D[i][j] = 0.05 * A[i][j];
    }
}
