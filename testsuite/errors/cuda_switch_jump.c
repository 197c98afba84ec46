// cuda_switch_jump.c -- a case label after an initialised declaration of the switch's body: C++ rejects the jump past the initialisation, so the CUDA output is refused at the declaration.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 11:13: jumps past the initialisation
void f(int N, double *A, int k)
{
    switch (k) {
    case 0:
        N = N / 2;
        ;
        int M = N;
        N = M;
        break;
    case 1:
        break;
    }
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
}
