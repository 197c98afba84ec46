// cuda_designator_side_effects.c -- designated initialisers out of the struct's order whose values call a function: reordering them (C++ wants declaration order) could change the order of the calls, so the CUDA output is refused.
// flextile-test: expect-exit: 1
// flextile-test: options: --target cuda
// flextile-test: expect-error: 10:23: side effects
struct range { int lo; int hi; };
int next(void);
void f(int N, double *A)
{
    struct range r;
    r = (struct range){ .hi = next(), .lo = next() };
#pragma scop
    for (int i = 0; i < N; i++)
        A[i] = 2 * A[i];
#pragma endscop
    A[0] = r.lo + r.hi;
}
