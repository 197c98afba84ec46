// overlap_scop.c -- overlapped tiling is asked for a scop (time-iterated stencil), which it does not support yet.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle
// flextile-test: expect-error: 9:1: overlapped tiling of scops
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
