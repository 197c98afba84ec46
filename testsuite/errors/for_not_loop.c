// for_not_loop.c -- '#pragma omplc for' must be followed by a for loop nest; here it is an assignment.
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 8:1|8:9|8:15|9:9: loop
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A {(i)}, write B {(i)}
        B[0] = A[0];
    }
}
