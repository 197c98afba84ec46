// overlap_gemm_row_loop.c -- PolyBench gemm: the outer loop 'i' subscripts C, which the scop
// writes, so it is a loop over rows, not a time loop (README); overlapped tiling treats the
// scop's one top-level nest like a chain's and says the true reason it does not apply (the
// statement 'C[i][j] *= beta' sits in a loop of its own), not "subscripts an array with 'i'".
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --fatal-warnings
// flextile-test: expect-error: 15:1: sits in a loop of its own
#define DATA_TYPE double
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk
void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[ni][nj], DATA_TYPE A[ni][nk], DATA_TYPE B[nk][nj])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < _PB_NI; i++) {
        for (j = 0; j < _PB_NJ; j++)
            C[i][j] *= beta;
        for (k = 0; k < _PB_NK; k++)
            for (j = 0; j < _PB_NJ; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
