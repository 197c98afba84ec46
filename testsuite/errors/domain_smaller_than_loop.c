/* domain_smaller_than_loop.c -- The declared domain (1:n-2, 1:m-2) is smaller
 * than what the loops run (0..n-1, 1..m-2): flextile runs the domain's
 * iterations, so rows 0 and n-1 would silently not be computed. The loop
 * headers are affine, so the domain is checked against them (issue 17,
 * finding 11), at the domain clause.
 * flextile-test: expect-exit: 1
 * flextile-test: expect-error: 17:19|17:26: domain
 * flextile-test: expect-stderr: leaves out
 */
#define DATA_TYPE double
#define SCALAR_VAL(x) x

void kernel(int n, int m, DATA_TYPE A[n][m], DATA_TYPE B[n][m])
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:n-2, 1:m-2) with (i, j) read A {(i,j)} write B {(i,j)}
        for (int i = 0; i < n; i++)
            for (int j = 1; j <= m - 2; j++)
                B[i][j] = SCALAR_VAL(0.5) * A[i][j];
    }
}
