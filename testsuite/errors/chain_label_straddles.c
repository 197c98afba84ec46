// chain_label_straddles.c -- A goto label whose statement comes after
// '#pragma omplc loopchain' and its braces: the label straddles the pragma
// and the chain's statement is not the one after the pragma (issue 54).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 10:1|9:1: straddles|expected a compound
void f(int N, double *A)
{
    goto again;
again:
#pragma omplc loopchain schedule(fuse())
    A[0] = 1.0;
    {
#pragma omplc for domain(0:N-1) with (i) write A{(i)}
        for (int i = 0; i < N; i++)
            A[i] = 2.0;
    }
}
