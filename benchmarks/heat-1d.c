/* heat-1d: iterated 3-point heat stencil, double precision.
 *
 * Spec: benchmarks.md section 9.2 (a), the PolyBench-style reduction of
 * heat-3d.  Each time step t = 1..tsteps sweeps A->B, then B->A, over the
 * interior i in [1, n-2]:
 *   D[i] = 0.125*(S[i+1] - 2.0*S[i] + S[i-1]) + S[i]
 * Boundary elements are never written.  Output: A.
 *
 * Given to flextile as a #pragma scop region with the time loop inside
 * (2 statements).
 *
 * --init stress (default): A = B = ((7i) mod 31)/31.0
 * --init polybench:        A = B = (n - i)*10/n   (a steady state: the
 *                          result hardly depends on the schedule, so it is
 *                          a weak correctness test)
 */
#include "common.h"

static void kernel_heat_1d(int n, int tsteps, double A[n], double B[n])
{
#pragma scop
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i <= n - 2; i++)
      B[i] = 0.125 * (A[i + 1] - 2.0 * A[i] + A[i - 1]) + A[i];
    for (int i = 1; i <= n - 2; i++)
      A[i] = 0.125 * (B[i + 1] - 2.0 * B[i] + B[i - 1]) + B[i];
  }
#pragma endscop
}

static const bench_sizes sizes = {
  2, "NxTSTEPS", {30, 20}, {1600000, 1000}, {2000, 500}, "stress|polybench"};

static void init_array(int n, double A[n], double B[n], int stress)
{
  for (int i = 0; i < n; i++) {
    A[i] = stress ? (double)((7 * i) % 31) / 31.0 : (double)(n - i) * 10 / n;
    B[i] = A[i];
  }
}

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  bench_no_seed(&o);
  int n = o.dims[0], tsteps = o.dims[1];
  int stress = !strcmp(o.init, "stress");
  if (n < 3) { fprintf(stderr, "heat-1d: need N >= 3\n"); return 2; }
  double *A = bench_alloc(sizeof(double) * (size_t)n);
  double *B = bench_alloc(sizeof(double) * (size_t)n);
  double t[BENCH_MAX_REPS];

  for (int r = 0; r < o.reps; r++) {
    init_array(n, A, B, stress); /* re-initialised: the kernel updates A in place */
    double t0 = bench_now_ms();
    kernel_heat_1d(n, tsteps, A, B);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "heat-1d", stress ? "A = B = ((7i) mod 31)/31" : "A = B = (n-i)*10/n");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d]", n);
  printf("sample A[%d]: %.17g\n", n / 2, A[n / 2]);
  bench_output(&o, "A", 'd', A, (size_t)n, shape);
  bench_report_time(&o, t);
  free(A);
  free(B);
  return 0;
}
