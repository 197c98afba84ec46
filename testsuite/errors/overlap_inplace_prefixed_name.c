// overlap_inplace_prefixed_name.c -- an in-place update of an array whose name starts with
// 'ft_' (flextile's own prefix): the refusal must name the array as written, 'ft_max', not
// isl's spelling 'ft_ft_max' (found by tools/difftest, program 2000246 of seed 20). Nest 2
// also reads ft_max[0] and ft_max[N-1], which nest 1 does not write, so no shadow copy
// of ft_max can stand in for it (shadow.rs) and the in-place update is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --rectangle
// flextile-test: expect-error: 11:1: 'ft_max'
void f(int N, double *A, double *ft_max, double *C)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2) with (i) read ft_max {(i+1)}, read A {(i)}, write ft_max {(i)}
        for (int i = 1; i <= N - 2; i++)
            ft_max[i] = 0.5 * (ft_max[i + 1] + A[i]);
#pragma omplc for domain(1:N-2) with (i) read ft_max {(i-1),(i+1)}, write C {(i)}
        for (int i = 1; i <= N - 2; i++)
            C[i] = ft_max[i - 1] - ft_max[i + 1];
    }
}
