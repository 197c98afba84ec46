// parallel_then_serial_tile.c -- schedule(parallel, tile((4,4), serial, serial)): the
// 'parallel' item asks for parallel outer loops, the later 'tile' item makes the loops over
// tiles serial. Used to end in an internal error ("parallel request above a node that is not
// a loop band", exit 2; found by tools/difftest's schedule-item combinations).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 9:1|9:34|9:44: parallel|serial
void f(int N, double A[N][N], double B[N][N])
{
#pragma omplc loopchain schedule(parallel, tile((4,4), serial, serial))
    {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) read A {(i-1,j),(i,j+1)}, write B {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                B[i][j] = A[i-1][j] + A[i][j+1];
    }
}
