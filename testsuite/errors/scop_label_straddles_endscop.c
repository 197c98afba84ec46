// scop_label_straddles_endscop.c -- A 'case' label inside a scop whose
// statement is after '#pragma endscop': the region would cut the labelled
// statement in two (it was left out of the model and the pragmas kept;
// issue 54).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 16:1|15:5: straddles
void f(int mode, int N, double *A, double *B)
{
    int i;
    switch (mode) {
    case 0:
#pragma scop
        for (i = 0; i < N; i++)
            A[i] = 1.0;
    case 1:
#pragma endscop
        for (i = 0; i < N; i++)
            B[i] = A[i];
    }
}
