// overlap_inplace_prefixed_name.c -- an in-place update of an array whose name starts with
// 'ft_' (flextile's own prefix): the refusal must name the array as written, 'ft_max', not
// isl's spelling 'ft_ft_max' (found by tools/difftest, program 2000246 of seed 20). The nest
// reads ft_max[i+1] from before the chain and overwrites ft_max[i]: tiled alone, the tile
// before would read what the tile after overwrites. Its body writes two arrays, so no shadow
// copy of ft_max stands in for it (src/transform/shadow.rs): the nest, the only one of the
// chain, is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle --fatal-warnings
// flextile-test: expect-error: 13:1: 'ft_max'
void f(int N, double *A, double *ft_max, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read ft_max {(i+1)}, read A {(i)}, write ft_max {(i)}, write C {(i)}
        for (int i = 1; i <= N - 2; i++) {
            ft_max[i] = 0.5 * (ft_max[i + 1] + A[i]);
            C[i] = A[i];
        }
    }
}
