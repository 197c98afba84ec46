// overlap_conditional_write.c -- nest 1 writes H only where a condition holds; a tile-local copy of H would hold garbage where the original keeps H's old value, so overlapped tiling refuses (found by tools/difftest).
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --tile-sizes 2
// flextile-test: expect-error: 7:1: only under a condition
void f(int N, double *G, double *H, double *J)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(8:N+7) with (i0) read G {(i0-3)}, write H {(i0)}
        for (int i0 = 8; i0 <= N + 7; i0++)
            if (G[i0 - 3] > 0)
                H[i0] = 2.0 * G[i0 - 3];
#pragma omplc for domain(9:N+6) with (ii) read H {(ii-1),(ii+1)}, write J {(ii)}
        for (int ii = 9; ii <= N + 6; ii++)
            J[ii] = H[ii - 1] + H[ii + 1];
    }
}
