// temporary_scop_syntax.c -- '#pragma scop' takes only a temporary(...) clause.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:14: expected 'temporary(...)' or the end of the pragma after '#pragma scop'
void f(int N, double A[N], double T[N])
{
    int i;
#pragma scop temporaries(T)
    for (i = 0; i < N; i++)
        T[i] = A[i] * 2.0;
#pragma endscop
}
