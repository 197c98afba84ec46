// overlap_scop_no_time_loop.c -- overlapped tiling of a scop needs one outer time loop around its statements.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle
// flextile-test: expect-error: 9:1: overlapped tiling of a scop needs one outer time loop
void blur(int N, double *A, double *B, double *C)
{
    for (int r = 0; r < 1; r++) {
        (void)r;
#pragma scop
        for (int i = 1; i < N - 1; i++)
            B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
        for (int i = 1; i < N - 1; i++)
            C[i] = B[i - 1] + B[i + 1];
#pragma endscop
    }
}
