// overlap_scop_imperfect_nest.c -- statements that share a loop nest of a scop at different
// depths (an initialisation and a reduction in an inner loop): not a multi-statement stage,
// whose statements sit together in the nest's innermost loop.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --tile-sizes 4 --fatal-warnings
// flextile-test: expect-error: 10:1: overlapped tiling found no nest it can tile (statement 's[i] = 0.0;' (line 12): its nest is not a multi-statement stage: overlapped tiling needs the statements that share a loop nest to sit together in its innermost loop
void f(int N, int M, double A[N][M], double *x, double *s)
{
    int i, j;
#pragma scop
    for (i = 0; i < N; i++) {
        s[i] = 0.0;
        for (j = 0; j < M; j++)
            s[i] = s[i] + A[i][j] * x[j];
    }
#pragma endscop
}
