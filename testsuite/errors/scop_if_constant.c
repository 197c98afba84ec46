// scop_if_constant.c -- 'if (0)' in a scop: a constant condition is no
// comparison of the model, and its statements must not be dropped or run
// unconditionally (issue 54): the region is refused at the condition.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 12:33: unsupported condition
void f(int N, double *A, double *B)
{
    int i;
#pragma scop
    for (i = 0; i < N; i++)
        A[i] = 1.0;
    for (i = 0; i < N; i++) if (0) {
        B[i] = A[i];
    }
#pragma endscop
}
