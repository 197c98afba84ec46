// chain_body_label.c -- A label in the body of a loop-chain stage, targeted
// by no goto. The output prints a stage's body more than once (in tiles, and
// in the alias guard's copy of the original code), and a label may appear
// only once in a function: gcc said "duplicate label" (issue 54).
// flextile-test: expect-exit: 1
// flextile-test: expect-error: 15:5: label 'done' in the body of a stage
void f(int n, double *A, double *B)
{
#pragma omplc loopchain schedule(fuse())
{
#pragma omplc for domain(1:n-2) with (i) write B{(i)}, read A{(i-1),(i),(i+1)}
  for (int i = 1; i < n - 1; i++) {
    B[i] = A[i - 1];
    B[i] += A[i + 1];
    done: ;
  }
}
}
