/* MiniFluxDiv: 3-D finite-volume flux divergence, 5 components, double.
 *
 * Spec: benchmarks.md section 8 (the R3 loop chain of VariationsOnATheme,
 * miniFluxdiv-explainTripleCache-lc).  One box of N^3 cells with 2 ghost
 * cells per side; logical cell coordinates (z, y, x) in [-2, N+1].
 * Components c = 0..4 are p, e, u, v, w; the velocity for direction x is u
 * (c=2), for y v (c=3), for z w (c=4).
 *
 * Nine nests, three per direction d in x, y, z (in that order):
 *   FLUX1_d  faces P: g_d(c,P) = factor1*((old(c,P-2e) + 7*(old(c,P-e) + old(c,P))) + old(c,P+e))
 *   FLUX2_d  faces P: g_d(c,P) *= factor2*g_d(vel_d,P), velocity component last
 *   DIFF_d   cells Q: new(c,Q) += g_d(c,Q+e) - g_d(c,Q)
 * so new = ((old + dX) + dY) + dZ.  Each nest's body handles all five
 * components; the data sets OLD, NEW, CACHEX, CACHEY, CACHEZ are logical
 * names (as in R3) for the cell/face arrays, one tuple per cell or face,
 * covering all five components.  The schedule is R3's fuse with shifts.
 *
 * Output: new on the cells [0,N-1]^3, all 5 components, as double
 * [5][N][N][N] (ghost cells keep their initial values and are not output).
 */
#include "common.h"

/* old/new: [5][N+4][N+4][N+4], logical (z,y,x) in [-2,N+1] */
#define OLDB(c, z, y, x) old_box[(((c) * (N + 4) + (z) + 2) * (N + 4) + (y) + 2) * (N + 4) + (x) + 2]
#define NEWB(c, z, y, x) new_box[(((c) * (N + 4) + (z) + 2) * (N + 4) + (y) + 2) * (N + 4) + (x) + 2]
/* face caches, 5 x N*N*(N+1) each: x faces [0,N-1]x[0,N-1]x[0,N], y faces
 * [0,N-1]x[0,N]x[0,N-1], z faces [0,N]x[0,N-1]x[0,N-1] */
#define GX(c, z, y, x) gx_cache[(((c) * N + (z)) * N + (y)) * (N + 1) + (x)]
#define GY(c, z, y, x) gy_cache[(((c) * N + (z)) * (N + 1) + (y)) * N + (x)]
#define GZ(c, z, y, x) gz_cache[(((c) * (N + 1) + (z)) * N + (y)) * N + (x)]
/* For tools/check_annotations.py: the macros' first argument (the component)
 * is not part of the logical data sets' tuples.
 * check_annotations: OLDB -> OLD drop 1
 * check_annotations: NEWB -> NEW drop 1
 * check_annotations: GX -> CACHEX drop 1
 * check_annotations: GY -> CACHEY drop 1
 * check_annotations: GZ -> CACHEZ drop 1
 */

/* restrict: the arrays never overlap; flextile cannot check that at run time for
 * the chain's logical data sets (OLD, CACHEX, ...), and without the promise
 * it would leave the chain as written. */
static void mini_flux_div(int N, const double *restrict old_box, double *restrict new_box,
                          double *restrict gx_cache, double *restrict gy_cache, double *restrict gz_cache)
{
  int iz, iy, ix;
  double factor1 = 1. / 12.;
  double factor2 = 2.0;

#pragma omplc loopchain schedule(fuse((0,0,0), (0,0,0), (0,0,1), (0,0,0), (0,0,0), (0,1,1), \
                                      (0,0,0), (0,0,0), (1,1,1))) \
    temporary(CACHEX, CACHEY, CACHEZ)
  {
    /* ---------------- x-direction ---------------- */
    /* FLUX1X: face interpolation, g_x = factor1*((old(-2) + 7*(old(-1) + old(0))) + old(+1)) */
#pragma omplc for domain(0:N-1, 0:N-1, 0:N) with (iz, iy, ix) write CACHEX {(iz,iy,ix)}, \
    read OLD {(iz,iy,ix-2), (iz,iy,ix-1), (iz,iy,ix), (iz,iy,ix+1)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N; ix++) {
          GX(0, iz, iy, ix) = factor1 * (OLDB(0, iz, iy, ix - 2)
                                        + 7 * (OLDB(0, iz, iy, ix - 1) + OLDB(0, iz, iy, ix))
                                        + OLDB(0, iz, iy, ix + 1));
          GX(1, iz, iy, ix) = factor1 * (OLDB(1, iz, iy, ix - 2)
                                        + 7 * (OLDB(1, iz, iy, ix - 1) + OLDB(1, iz, iy, ix))
                                        + OLDB(1, iz, iy, ix + 1));
          GX(2, iz, iy, ix) = factor1 * (OLDB(2, iz, iy, ix - 2)
                                        + 7 * (OLDB(2, iz, iy, ix - 1) + OLDB(2, iz, iy, ix))
                                        + OLDB(2, iz, iy, ix + 1));
          GX(3, iz, iy, ix) = factor1 * (OLDB(3, iz, iy, ix - 2)
                                        + 7 * (OLDB(3, iz, iy, ix - 1) + OLDB(3, iz, iy, ix))
                                        + OLDB(3, iz, iy, ix + 1));
          GX(4, iz, iy, ix) = factor1 * (OLDB(4, iz, iy, ix - 2)
                                        + 7 * (OLDB(4, iz, iy, ix - 1) + OLDB(4, iz, iy, ix))
                                        + OLDB(4, iz, iy, ix + 1));
        }

    /* FLUX2X: flux product g_x(c) *= factor2 * g_x(u); the velocity component u goes last */
#pragma omplc for domain(0:N-1, 0:N-1, 0:N) with (iz, iy, ix) write CACHEX {(iz,iy,ix)}, \
    read CACHEX {(iz,iy,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N; ix++) {
          GX(0, iz, iy, ix) *= factor2 * GX(2, iz, iy, ix);
          GX(1, iz, iy, ix) *= factor2 * GX(2, iz, iy, ix);
          GX(3, iz, iy, ix) *= factor2 * GX(2, iz, iy, ix);
          GX(4, iz, iy, ix) *= factor2 * GX(2, iz, iy, ix);
          GX(2, iz, iy, ix) *= factor2 * GX(2, iz, iy, ix);
        }

    /* DIFFX: new += g_x(face + e_x) - g_x(face) on every cell */
#pragma omplc for domain(0:N-1, 0:N-1, 0:N-1) with (iz, iy, ix) write NEW {(iz,iy,ix)}, \
    read NEW {(iz,iy,ix)}, read CACHEX {(iz,iy,ix+1), (iz,iy,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          NEWB(0, iz, iy, ix) += GX(0, iz, iy, ix + 1) - GX(0, iz, iy, ix);
          NEWB(1, iz, iy, ix) += GX(1, iz, iy, ix + 1) - GX(1, iz, iy, ix);
          NEWB(2, iz, iy, ix) += GX(2, iz, iy, ix + 1) - GX(2, iz, iy, ix);
          NEWB(3, iz, iy, ix) += GX(3, iz, iy, ix + 1) - GX(3, iz, iy, ix);
          NEWB(4, iz, iy, ix) += GX(4, iz, iy, ix + 1) - GX(4, iz, iy, ix);
        }

    /* ---------------- y-direction ---------------- */
    /* FLUX1Y: face interpolation, g_y = factor1*((old(-2) + 7*(old(-1) + old(0))) + old(+1)) */
#pragma omplc for domain(0:N-1, 0:N, 0:N-1) with (iz, iy, ix) write CACHEY {(iz,iy,ix)}, \
    read OLD {(iz,iy-2,ix), (iz,iy-1,ix), (iz,iy,ix), (iz,iy+1,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          GY(0, iz, iy, ix) = factor1 * (OLDB(0, iz, iy - 2, ix)
                                        + 7 * (OLDB(0, iz, iy - 1, ix) + OLDB(0, iz, iy, ix))
                                        + OLDB(0, iz, iy + 1, ix));
          GY(1, iz, iy, ix) = factor1 * (OLDB(1, iz, iy - 2, ix)
                                        + 7 * (OLDB(1, iz, iy - 1, ix) + OLDB(1, iz, iy, ix))
                                        + OLDB(1, iz, iy + 1, ix));
          GY(2, iz, iy, ix) = factor1 * (OLDB(2, iz, iy - 2, ix)
                                        + 7 * (OLDB(2, iz, iy - 1, ix) + OLDB(2, iz, iy, ix))
                                        + OLDB(2, iz, iy + 1, ix));
          GY(3, iz, iy, ix) = factor1 * (OLDB(3, iz, iy - 2, ix)
                                        + 7 * (OLDB(3, iz, iy - 1, ix) + OLDB(3, iz, iy, ix))
                                        + OLDB(3, iz, iy + 1, ix));
          GY(4, iz, iy, ix) = factor1 * (OLDB(4, iz, iy - 2, ix)
                                        + 7 * (OLDB(4, iz, iy - 1, ix) + OLDB(4, iz, iy, ix))
                                        + OLDB(4, iz, iy + 1, ix));
        }

    /* FLUX2Y: flux product g_y(c) *= factor2 * g_y(v); the velocity component v goes last */
#pragma omplc for domain(0:N-1, 0:N, 0:N-1) with (iz, iy, ix) write CACHEY {(iz,iy,ix)}, \
    read CACHEY {(iz,iy,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          GY(0, iz, iy, ix) *= factor2 * GY(3, iz, iy, ix);
          GY(1, iz, iy, ix) *= factor2 * GY(3, iz, iy, ix);
          GY(2, iz, iy, ix) *= factor2 * GY(3, iz, iy, ix);
          GY(4, iz, iy, ix) *= factor2 * GY(3, iz, iy, ix);
          GY(3, iz, iy, ix) *= factor2 * GY(3, iz, iy, ix);
        }

    /* DIFFY: new += g_y(face + e_y) - g_y(face) on every cell */
#pragma omplc for domain(0:N-1, 0:N-1, 0:N-1) with (iz, iy, ix) write NEW {(iz,iy,ix)}, \
    read NEW {(iz,iy,ix)}, read CACHEY {(iz,iy+1,ix), (iz,iy,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          NEWB(0, iz, iy, ix) += GY(0, iz, iy + 1, ix) - GY(0, iz, iy, ix);
          NEWB(1, iz, iy, ix) += GY(1, iz, iy + 1, ix) - GY(1, iz, iy, ix);
          NEWB(2, iz, iy, ix) += GY(2, iz, iy + 1, ix) - GY(2, iz, iy, ix);
          NEWB(3, iz, iy, ix) += GY(3, iz, iy + 1, ix) - GY(3, iz, iy, ix);
          NEWB(4, iz, iy, ix) += GY(4, iz, iy + 1, ix) - GY(4, iz, iy, ix);
        }

    /* ---------------- z-direction ---------------- */
    /* FLUX1Z: face interpolation, g_z = factor1*((old(-2) + 7*(old(-1) + old(0))) + old(+1)) */
#pragma omplc for domain(0:N, 0:N-1, 0:N-1) with (iz, iy, ix) write CACHEZ {(iz,iy,ix)}, \
    read OLD {(iz-2,iy,ix), (iz-1,iy,ix), (iz,iy,ix), (iz+1,iy,ix)}
    for (iz = 0; iz <= N; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          GZ(0, iz, iy, ix) = factor1 * (OLDB(0, iz - 2, iy, ix)
                                        + 7 * (OLDB(0, iz - 1, iy, ix) + OLDB(0, iz, iy, ix))
                                        + OLDB(0, iz + 1, iy, ix));
          GZ(1, iz, iy, ix) = factor1 * (OLDB(1, iz - 2, iy, ix)
                                        + 7 * (OLDB(1, iz - 1, iy, ix) + OLDB(1, iz, iy, ix))
                                        + OLDB(1, iz + 1, iy, ix));
          GZ(2, iz, iy, ix) = factor1 * (OLDB(2, iz - 2, iy, ix)
                                        + 7 * (OLDB(2, iz - 1, iy, ix) + OLDB(2, iz, iy, ix))
                                        + OLDB(2, iz + 1, iy, ix));
          GZ(3, iz, iy, ix) = factor1 * (OLDB(3, iz - 2, iy, ix)
                                        + 7 * (OLDB(3, iz - 1, iy, ix) + OLDB(3, iz, iy, ix))
                                        + OLDB(3, iz + 1, iy, ix));
          GZ(4, iz, iy, ix) = factor1 * (OLDB(4, iz - 2, iy, ix)
                                        + 7 * (OLDB(4, iz - 1, iy, ix) + OLDB(4, iz, iy, ix))
                                        + OLDB(4, iz + 1, iy, ix));
        }

    /* FLUX2Z: flux product g_z(c) *= factor2 * g_z(w); the velocity component w goes last */
#pragma omplc for domain(0:N, 0:N-1, 0:N-1) with (iz, iy, ix) write CACHEZ {(iz,iy,ix)}, \
    read CACHEZ {(iz,iy,ix)}
    for (iz = 0; iz <= N; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          GZ(0, iz, iy, ix) *= factor2 * GZ(4, iz, iy, ix);
          GZ(1, iz, iy, ix) *= factor2 * GZ(4, iz, iy, ix);
          GZ(2, iz, iy, ix) *= factor2 * GZ(4, iz, iy, ix);
          GZ(3, iz, iy, ix) *= factor2 * GZ(4, iz, iy, ix);
          GZ(4, iz, iy, ix) *= factor2 * GZ(4, iz, iy, ix);
        }

    /* DIFFZ: new += g_z(face + e_z) - g_z(face) on every cell */
#pragma omplc for domain(0:N-1, 0:N-1, 0:N-1) with (iz, iy, ix) write NEW {(iz,iy,ix)}, \
    read NEW {(iz,iy,ix)}, read CACHEZ {(iz+1,iy,ix), (iz,iy,ix)}
    for (iz = 0; iz <= N - 1; iz++)
      for (iy = 0; iy <= N - 1; iy++)
        for (ix = 0; ix <= N - 1; ix++) {
          NEWB(0, iz, iy, ix) += GZ(0, iz + 1, iy, ix) - GZ(0, iz, iy, ix);
          NEWB(1, iz, iy, ix) += GZ(1, iz + 1, iy, ix) - GZ(1, iz, iy, ix);
          NEWB(2, iz, iy, ix) += GZ(2, iz + 1, iy, ix) - GZ(2, iz, iy, ix);
          NEWB(3, iz, iy, ix) += GZ(3, iz + 1, iy, ix) - GZ(3, iz, iy, ix);
          NEWB(4, iz, iy, ix) += GZ(4, iz + 1, iy, ix) - GZ(4, iz, iy, ix);
        }
  }
}

static const bench_sizes sizes = {1, "N", {16}, {128}, {128}, NULL};

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  bench_no_seed(&o);
  int N = o.dims[0];
  size_t full = (size_t)5 * (N + 4) * (N + 4) * (N + 4);
  size_t faces = (size_t)5 * N * N * (N + 1);
  double *old_box = bench_alloc(sizeof(double) * full);
  double *new_box = bench_alloc(sizeof(double) * full);
  double *gx_cache = bench_alloc(sizeof(double) * faces);
  double *gy_cache = bench_alloc(sizeof(double) * faces);
  double *gz_cache = bench_alloc(sizeof(double) * faces);
  double *out = bench_alloc(sizeof(double) * (size_t)5 * N * N * N);
  double t[BENCH_MAX_REPS];

  /* every cell, ghosts included: old(c,z,y,x) = c + 0.5*(z+y+x) */
  for (int c = 0; c < 5; c++)
    for (int z = -2; z <= N + 1; z++)
      for (int y = -2; y <= N + 1; y++)
        for (int x = -2; x <= N + 1; x++)
          OLDB(c, z, y, x) = c + 0.5 * (z + y + x);

  for (int r = 0; r < o.reps; r++) {
    memcpy(new_box, old_box, sizeof(double) * full); /* new starts as a copy of old */
    double t0 = bench_now_ms();
    mini_flux_div(N, old_box, new_box, gx_cache, gy_cache, gz_cache);
    t[r] = bench_now_ms() - t0;
  }

  for (int c = 0; c < 5; c++)
    for (int z = 0; z < N; z++)
      for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
          out[(((size_t)c * N + z) * N + y) * N + x] = NEWB(c, z, y, x);

  bench_header(&o, "minifluxdiv", "old(c,z,y,x) = c + 0.5*(z+y+x), 1 box");
  for (int c = 0; c < 5; c++) {
    double s = 0.0;
    for (size_t i = 0; i < (size_t)N * N * N; i++) s += out[(size_t)c * N * N * N + i];
    printf("component %d sum: %.17g\n", c, s);
  }
  if (N > 5) printf("sample new(2,3,4,5): %.17g\n", NEWB(2, 3, 4, 5));
  char shape[64];
  snprintf(shape, sizeof shape, "[5][%d][%d][%d]", N, N, N);
  bench_output(&o, "new", 'd', out, (size_t)5 * N * N * N, shape);
  bench_report_time(&o, t);
  free(old_box); free(new_box); free(gx_cache); free(gy_cache); free(gz_cache); free(out);
  return 0;
}
