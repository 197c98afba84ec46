// overlap_recurrence.c -- nest 1 is a recurrence (it reads what it computes), so its per-tile region is unbounded: overlapped tiling refuses it, and the chain, which has no other nest (found by tools/difftest).
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --tile-sizes 2,4 --fatal-warnings
// flextile-test: expect-error: 7:1: recurrence
void f(int N, int M, double C[N + 16][M + 16], double A[N + 16][M + 16])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(10:N+7, 9:M+7) with (x, y) read C {(x-1,y+1)}, write C {(x,y)}
        for (int x = 10; x <= N + 7; x++)
            for (int y = 9; y <= M + 7; y++)
                C[x][y] = 0.5 * C[x - 1][y + 1] + 0.25;
    }
}
