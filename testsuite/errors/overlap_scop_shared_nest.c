// overlap_scop_shared_nest.c -- two statements share a loop nest of a scop: overlapped tiling would
// run them in separate loops, and the second reads the scalar the first sets in the same iteration.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --tile-sizes 4
// flextile-test: expect-error: 10:1: overlapped tiling needs every top-level loop nest of a scop to hold one statement
void f(int N, double *A, double *B, double *C)
{
    double t;
    for (int r = 0; r < 1; r++) {
#pragma scop
        for (int i = 1; i < N - 1; i++)
            B[i] = 0.5 * (A[i - 1] + A[i + 1]);
        for (int i = 1; i < N - 1; i++) {
            t = 0.25 * B[i];
            C[i] = t + A[i];
        }
#pragma endscop
        (void)r;
    }
}
