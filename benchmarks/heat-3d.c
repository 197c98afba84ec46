/* heat-3d: iterated 7-point heat stencil, double precision (PolyBench/C 4.2).
 *
 * Spec: benchmarks.md section 9.1.  Each time step t = 1..tsteps sweeps A->B,
 * then B->A, over the interior i, j, k in [1, n-2]:
 *   D[i][j][k] = 0.125*(S[i+1][j][k] - 2.0*S[i][j][k] + S[i-1][j][k])
 *              + 0.125*(S[i][j+1][k] - 2.0*S[i][j][k] + S[i][j-1][k])
 *              + 0.125*(S[i][j][k+1] - 2.0*S[i][j][k] + S[i][j][k-1])
 *              + S[i][j][k]
 * Boundary elements are never written.  Output: A.
 *
 * Given to flextile as a #pragma scop region with the time loop inside
 * (2 statements).
 *
 * --init stress (default): A = B = ((7i + 11j + 13k) mod 31)/31.0
 * --init polybench:        A = B = (i + j + (n - k))*10/n, PolyBench's own
 *                          initialisation (a steady state: the result hardly
 *                          depends on the schedule, so it is a weak test)
 */
#include "common.h"

static void kernel_heat_3d(int n, int tsteps, double A[n][n][n], double B[n][n][n])
{
#pragma scop
  for (int t = 1; t <= tsteps; t++) {
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        for (int k = 1; k <= n - 2; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        for (int k = 1; k <= n - 2; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}

static const bench_sizes sizes = {
  2, "NxTSTEPS", {10, 20}, {120, 500}, {120, 500}, "stress|polybench"};

static void init_array(int n, double A[n][n][n], double B[n][n][n], int stress)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        A[i][j][k] = stress ? (double)((7 * i + 11 * j + 13 * k) % 31) / 31.0
                            : (double)(i + j + (n - k)) * 10 / (n);
        B[i][j][k] = A[i][j][k];
      }
}

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  bench_no_seed(&o);
  int n = o.dims[0], tsteps = o.dims[1];
  int stress = !strcmp(o.init, "stress");
  if (n < 3) { fprintf(stderr, "heat-3d: need N >= 3\n"); return 2; }
  double (*A)[n][n] = bench_alloc(sizeof(double) * (size_t)n * n * n);
  double (*B)[n][n] = bench_alloc(sizeof(double) * (size_t)n * n * n);
  double t[BENCH_MAX_REPS];

  for (int r = 0; r < o.reps; r++) {
    init_array(n, A, B, stress); /* re-initialised: the kernel updates A in place */
    double t0 = bench_now_ms();
    kernel_heat_3d(n, tsteps, A, B);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "heat-3d",
               stress ? "A = B = ((7i + 11j + 13k) mod 31)/31" : "A = B = (i + j + (n-k))*10/n");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d][%d]", n, n, n);
  printf("sample A[%d][%d][%d]: %.17g\n", n / 2, n / 2, n / 2, A[n / 2][n / 2][n / 2]);
  bench_output(&o, "A", 'd', A, (size_t)n * n * n, shape);
  bench_report_time(&o, t);
  free(A);
  free(B);
  return 0;
}
