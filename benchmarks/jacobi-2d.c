/* jacobi-2d: iterated 5-point Jacobi stencil, double precision (PolyBench/C 4.2).
 *
 * Spec: benchmarks.md section 10.  For t = 0..tsteps-1, over i, j in [1, n-2]:
 *   B[i][j] = 0.2*(A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])
 *   A[i][j] = 0.2*(B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j])
 * (sums left to right).  Output: A.
 *
 * Given to flextile as a #pragma scop region with the time loop inside
 * (2 statements).
 *
 * --init polybench (default): A = (i*(j+2) + 2)/n, B = (i*(j+3) + 3)/n
 * --init stress:              A = B = ((7i + 11j) mod 31)/31.0
 */
#include "common.h"

static void kernel_jacobi_2d(int n, int tsteps, double A[n][n], double B[n][n])
{
#pragma scop
  for (int t = 0; t <= tsteps - 1; t++) {
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i <= n - 2; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}

static const bench_sizes sizes = {
  2, "NxTSTEPS", {30, 20}, {1300, 500}, {1300, 500}, "polybench|stress"};

static void init_array(int n, double A[n][n], double B[n][n], int stress)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (stress) {
        A[i][j] = (double)((7 * i + 11 * j) % 31) / 31.0;
        B[i][j] = A[i][j];
      } else {
        A[i][j] = ((double)i * (j + 2) + 2) / n;
        B[i][j] = ((double)i * (j + 3) + 3) / n;
      }
    }
}

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  bench_no_seed(&o);
  int n = o.dims[0], tsteps = o.dims[1];
  int stress = !strcmp(o.init, "stress");
  if (n < 3) { fprintf(stderr, "jacobi-2d: need N >= 3\n"); return 2; }
  double (*A)[n] = bench_alloc(sizeof(double) * (size_t)n * n);
  double (*B)[n] = bench_alloc(sizeof(double) * (size_t)n * n);
  double t[BENCH_MAX_REPS];

  for (int r = 0; r < o.reps; r++) {
    init_array(n, A, B, stress); /* re-initialised: the kernel updates A and B in place */
    double t0 = bench_now_ms();
    kernel_jacobi_2d(n, tsteps, A, B);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "jacobi-2d",
               stress ? "A = B = ((7i + 11j) mod 31)/31"
                      : "A = (i*(j+2)+2)/n, B = (i*(j+3)+3)/n");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d]", n, n);
  printf("sample A[%d][%d]: %.17g\n", n / 2, n / 2, A[n / 2][n / 2]);
  bench_output(&o, "A", 'd', A, (size_t)n * n, shape);
  bench_report_time(&o, t);
  free(A);
  free(B);
  return 0;
}
