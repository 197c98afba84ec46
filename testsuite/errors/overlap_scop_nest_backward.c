// overlap_scop_nest_backward.c -- two statements share a loop nest of a scop (one multi-statement
// stage), and the first reads what the second computed in the previous iteration: values flow
// backwards across the statements of the nest, a recurrence no per-tile region bounds.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene --tile-sizes 4 --fatal-warnings
// flextile-test: expect-error: 9:1: overlapped tiling found no nest it can tile (statement 'P[i] = 0.5 * Q[i - 1] + A[i];' (line 11): overlapped tiling needs the statements that share a loop nest to read only what the statements before them compute
void f(int N, double *A, double *P, double *Q)
{
#pragma scop
    for (int i = 1; i < N; i++) {
        P[i] = 0.5 * Q[i - 1] + A[i];
        Q[i] = P[i] + 1.0;
    }
#pragma endscop
}
