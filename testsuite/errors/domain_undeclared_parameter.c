/* A nest's domain names 'M', which nothing declares (no variable, parameter,
 * enumerator or macro): the output would not build. flextile must refuse it
 * at the domain (issue 17, finding 12).
 *
 * flextile-test: expect-exit: 1
 * flextile-test: expect-error: 14:26|14:28|14:1: declared nowhere
 */
void f(int N, double *A, double *B)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:N-1) with (i) read A { (i) }, write B { (i) }
        for (int i = 0; i < N; i++) { B[i] = A[i]; }
#pragma omplc for domain(0:M-1) with (i) read B { (i) }, write A { (i) }
        for (int i = 0; i < N; i++) { A[i] = B[i] * 2.0; }
    }
}
