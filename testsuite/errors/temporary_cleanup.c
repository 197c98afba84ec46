// temporary_cleanup.c -- BX is declared temporary, but its cleanup function reads it after the chain.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 9:34: 'BX' is declared temporary, but its declaration's attribute 'cleanup(report)' may use it after the region
#include <stdio.h>
static void report(double (*b)[64]) { printf("%g\n", (*b)[1]); }

void f(int N, double *restrict A, double *restrict C)
{
    double BX[64] __attribute__((cleanup(report)));
#pragma omplc loopchain schedule() temporary(BX)
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i),(i+1)}, write BX {(i)}
        for (int i = 1; i <= N - 2; i++)
            BX[i] = A[i-1] + A[i] + A[i+1];
#pragma omplc for domain(2:N-3) with (i) read BX {(i-1),(i+1)}, write C {(i)}
        for (int i = 2; i <= N - 3; i++)
            C[i] = BX[i-1] - BX[i+1];
    }
}
