// missing_endscop.c -- A '#pragma scop' region without its '#pragma endscop'.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:1|7:9: endscop
void f(int N, double *A)
{
    int i;
#pragma scop
    for (i = 0; i < N; i++)
        A[i] = 0.5 * i;
}
