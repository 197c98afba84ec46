// overlap_scop_inplace_time.c -- a Gauss-Seidel sweep updates A in place at every time step: its
// versions per step are not separable, so overlapped tiling of the time loop refuses it.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --tile-sizes 4,16 --fatal-warnings
// flextile-test: expect-error: 13:32: overlapped tiling of the time loop 't': statement 'A[i] = 0.25 * (A[i - 1] + 2.0...' (line 13) reads 'A', which it writes
void seidel(int N, int T, double *A)
{
    for (int r = 0; r < 1; r++) {
        (void)r;
#pragma scop
        for (int t = 0; t < T; t++)
            for (int i = 1; i < N - 1; i++)
                A[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
#pragma endscop
    }
}
