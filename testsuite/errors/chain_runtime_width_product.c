// chain_runtime_width_product.c -- A declared index that multiplies an iterator by a run-time
// width (i*w) is not affine: only a macro of constant value makes such a product affine.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 9:60: non-affine index expression
void f(int H, int w, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:H-1, 0:w-1) with (i, j) read B {(i*w+j)}, write A {(i*w+j)}
        for (int i = 0; i <= H - 1; i++)
            for (int j = 0; j <= w - 1; j++)
                A[i*w + j] = B[i*w + j];
    }
}
