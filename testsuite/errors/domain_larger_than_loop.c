/* domain_larger_than_loop.c -- The declared domain (0:n-1) holds iterations
 * the loop never runs (it steps by 2 from 1 and stops before n - 1): flextile
 * runs the domain's iterations, so it would write elements the original
 * never writes. Checked against the affine loop header (issue 17,
 * finding 11), at the domain clause.
 * flextile-test: expect-exit: 1
 * flextile-test: expect-error: 17:19|17:26: domain
 * flextile-test: expect-stderr: never run
 */
#define DATA_TYPE double

void kernel(int n, DATA_TYPE *A, DATA_TYPE *B)
{
    int i;
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:n-1) with (i) read A {(i)} write B {(i)}
        for (i = 1; i < n - 1; i += 2)
            B[i] = A[i] * 2.0;
    }
}
