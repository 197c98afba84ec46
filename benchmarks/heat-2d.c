/* heat-2d: iterated 5-point heat stencil, double precision.
 *
 * Spec: benchmarks.md section 9.2 (a), the PolyBench-style reduction of
 * heat-3d.  Each time step t = 1..tsteps sweeps A->B, then B->A, over the
 * interior i, j in [1, n-2]:
 *   D[i][j] = 0.125*(S[i+1][j] - 2.0*S[i][j] + S[i-1][j])
 *           + 0.125*(S[i][j+1] - 2.0*S[i][j] + S[i][j-1]) + S[i][j]
 * Boundary elements are never written.  Output: A.
 *
 * Given to flextile as a #pragma scop region with the time loop inside
 * (2 statements).
 *
 * --init stress (default): A = B = ((7i + 11j) mod 31)/31.0
 * --init polybench:        A = B = (i + (n - j))*10/n  (a steady state)
 */
#include "common.h"

static void kernel_heat_2d(int n, int tsteps, double A[n][n], double B[n][n])
{
#pragma scop
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        B[i][j] = 0.125 * (A[i + 1][j] - 2.0 * A[i][j] + A[i - 1][j])
                + 0.125 * (A[i][j + 1] - 2.0 * A[i][j] + A[i][j - 1])
                + A[i][j];
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = 0.125 * (B[i + 1][j] - 2.0 * B[i][j] + B[i - 1][j])
                + 0.125 * (B[i][j + 1] - 2.0 * B[i][j] + B[i][j - 1])
                + B[i][j];
  }
#pragma endscop
}

static const bench_sizes sizes = {
  2, "NxTSTEPS", {30, 20}, {1300, 500}, {1300, 500}, "stress|polybench"};

static void init_array(int n, double A[n][n], double B[n][n], int stress)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = stress ? (double)((7 * i + 11 * j) % 31) / 31.0
                       : (double)(i + (n - j)) * 10 / n;
      B[i][j] = A[i][j];
    }
}

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  bench_no_seed(&o);
  int n = o.dims[0], tsteps = o.dims[1];
  int stress = !strcmp(o.init, "stress");
  if (n < 3) { fprintf(stderr, "heat-2d: need N >= 3\n"); return 2; }
  double (*A)[n] = bench_alloc(sizeof(double) * (size_t)n * n);
  double (*B)[n] = bench_alloc(sizeof(double) * (size_t)n * n);
  double t[BENCH_MAX_REPS];

  for (int r = 0; r < o.reps; r++) {
    init_array(n, A, B, stress); /* re-initialised: the kernel updates A in place */
    double t0 = bench_now_ms();
    kernel_heat_2d(n, tsteps, A, B);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "heat-2d",
               stress ? "A = B = ((7i + 11j) mod 31)/31" : "A = B = (i + (n-j))*10/n");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d]", n, n);
  printf("sample A[%d][%d]: %.17g\n", n / 2, n / 2, A[n / 2][n / 2]);
  bench_output(&o, "A", 'd', A, (size_t)n * n, shape);
  bench_report_time(&o, t);
  free(A);
  free(B);
  return 0;
}
