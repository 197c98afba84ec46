// overlap_time_subscript.c -- a time loop around two nests (FDTD-style) where one nest reads an
// array at the time step: still a time-iterated scop (several nests in one outer loop), so
// overlapped tiling blocks the time loop and refuses the subscript, which would make each copy
// of the body in a time block read a different element.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --tile-sizes 2,8 --fatal-warnings
// flextile-test: expect-error: 13:24: overlapped tiling of the time loop 't': statement 'ey[0][j] = fict[t];' (line 13) subscripts an array with 't'
void f(int T, int N, double *fict, double ey[N][N], double hz[N][N])
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int j = 0; j < N; j++)
            ey[0][j] = fict[t];
        for (int i = 1; i < N; i++)
            for (int j = 0; j < N; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    }
#pragma endscop
}
