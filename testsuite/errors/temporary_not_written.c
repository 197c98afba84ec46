// temporary_not_written.c -- the scop declares a temporary it never writes (A is only read).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 7:27: 'A' is declared temporary, but the region does not write it
void f(int N, double A[N], double T[N], double C[N])
{
    int i;
#pragma scop temporary(T, A)
    for (i = 0; i < N; i++)
        T[i] = A[i] * 2.0;
    for (i = 0; i < N; i++)
        C[i] = T[i] + 1.0;
#pragma endscop
}
