// overlap_no_group.c -- the nests' bodies call a function, so their data cannot live in tile-local
// scratchpads; B is read at offsets, so overlapping tiles would compute parts of it twice (a race
// without scratchpads): no group to tile.
// flextile-test: expect-exit: 1
// flextile-test: options: --scalene
// flextile-test: expect-error: 10:1: no two consecutive nests to tile together (nest 2 (line 15): overlapped tiling needs tile-local storage for 'B' (overlapping tiles compute parts of nest 1 (line 12) twice)
double g(double);
void f(int N, double *A, double *B, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)}, write B {(i)}
        for (int i = 1; i <= N - 2; i++)
            B[i] = g(A[i - 1] + A[i + 1]);
#pragma omplc for domain(2:N-3) with (i) read B {(i-1),(i+1)}, write C {(i)}
        for (int i = 2; i <= N - 3; i++)
            C[i] = g(B[i - 1] - B[i + 1]);
    }
}
