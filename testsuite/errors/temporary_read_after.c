// temporary_read_after.c -- BX is declared temporary, but the function reads it after the chain.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 16:12: 'BX' is declared temporary, but the program reads it after the region
double f(int N, double *restrict A, double *restrict BX, double *restrict C)
{
#pragma omplc loopchain schedule() temporary(BX)
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write BX {(i)}
        for (int i = 1; i <= N - 2; i++)
            BX[i] = A[i-1] + A[i] + A[i+1];
#pragma omplc for domain(2:N-3) with (i) read BX {(i-1),(i+1)}, write C {(i)}
        for (int i = 2; i <= N - 3; i++)
            C[i] = BX[i-1] - BX[i+1];
    }
    BX[0] = 1.0;
    return BX[N / 2];
}
