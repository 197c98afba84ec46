// define_used_before_in_scop.c -- A macro redefined inside a scop between two
// of its uses: the output keeps a region's '#define'/'#undef' lines before or
// after its generated code, and no place keeps the meaning of both uses
// (issue 17, finding 12). Reported at the first use.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 14:23: before and after
// flextile-test: expect-stderr: redefined or undefined here
#define SCALE 2.0
void f(int N, double *A, double *B)
{
    int i;
#pragma scop
    for (i = 0; i < N; i++)
        B[i] = A[i] * SCALE;
#undef SCALE
#define SCALE 3.0
    for (i = 0; i < N; i++)
        A[i] = B[i] * SCALE;
#pragma endscop
}
