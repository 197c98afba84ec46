// overlap_inplace_read_after_write.c -- nest 1 writes L and then reads it back in the same
// iteration (a body of two assignments). The model orders a nest's reads before its writes, so
// this looks like an in-place update of L; a shadow copy of L would make the second assignment
// read the old value (found by tools/difftest, seed 1, programs 100012 and 100041), so none is
// made and the update is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene
// flextile-test: expect-error: 11:1: in-place update of 'L'
void f(int N, double *P, double *L, double *Q, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read P {(i)}, write L {(i)}, read L {(i)}, write Q {(i)}
        for (int i = 1; i <= N - 2; i++) {
            L[i] = 0.375 * P[i];
            Q[i] = 0.25 * L[i];
        }
#pragma omplc for domain(2:N-3) with (i) read L {(i-1),(i+1)}, write C {(i)}
        for (int i = 2; i <= N - 3; i++)
            C[i] = L[i - 1] - L[i + 1];
    }
}
