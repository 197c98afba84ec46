// cuda_stdc_version.c -- a preprocessor condition on __STDC_VERSION__: the C++ compilation of the CUDA output sees another value (and __cplusplus), so it would take the other branch; refused at the macro.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 5:5: __STDC_VERSION__
#if __STDC_VERSION__ >= 199901L
#define SCALE 2
#else
#define SCALE 3
#endif

void f(int N, double *A)
{
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = SCALE * A[i];
#pragma endscop
}
