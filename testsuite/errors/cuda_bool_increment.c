// cuda_bool_increment.c -- '++' of a '_Bool', which C++17 (the CUDA output's language) removed; refused at the increment.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 8:5: _Bool
void f(int N, double *A)
{
    _Bool seen = 0;
    seen++;
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
    A[0] += seen;
}
