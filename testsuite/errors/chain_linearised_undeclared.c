// chain_linearised_undeclared.c -- With a constant row width (#define W 16) the body reads
// B[(i+1)*W + j], which the pragma does not declare: the declaration is checked against the
// body through the macro's value.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 11:1|14:43: under-declared access
#define W 16
void f(int H, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:H-2, 0:W-1) with (i, j) read B {(i*W+j)}, write A {(i*W+j)}
        for (int i = 0; i <= H - 2; i++)
            for (int j = 0; j <= W - 1; j++)
                A[i*W + j] = B[i*W + j] + B[(i+1)*W + j];
    }
}
