// overlap_dims_time_only.c -- under overlapped tiling of a time loop, --overlap-dims must name a space
// loop: naming only the time loop would leave every space loop to classic tiling, whose tiles run in order.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --overlap-dims 0 --tile-sizes 4,16
// flextile-test: expect-error: 10:1: --overlap-dims names only the time loop (0)
void heat(int N, int T, double *A, double *B)
{
    for (int r = 0; r < 1; r++) {
        (void)r;
#pragma scop
        for (int t = 0; t < T; t++) {
            for (int i = 1; i < N - 1; i++)
                B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
            for (int i = 1; i < N - 1; i++)
                A[i] = B[i];
        }
#pragma endscop
    }
}
