/* Bilateral Grid: 7 stages (PolyMage, ASPLOS'15).
 *
 * Spec: benchmarks.md section 3.  Input: float [R][C] with R = rows+56,
 * C = cols+56 (the gray image /255, clamp-to-edge padded 24 top/left and 32
 * bottom/right); rows and cols are multiples of 8.  Grid extents
 * GR = (R-1)/8 - 1, GC = (C-1)/8 - 1, so R = 8*GR + 16 and C = 8*GC + 16; the
 * annotations use only GR and GC.  Grid: 2 channels (c=0 sum, c=1 count),
 * cells i in [1,GR], j in [1,GC], z bins 0..14 (allocated 16, zeroed).
 *   1 grid clear        grid(c,i,j,z) = 0
 *   2 grid accumulate   histogram over a 9x9 window per cell, data-dependent z bin
 *   3 blurz             c, i in [1,GR],   j in [1,GC],   z in [2,12]   1-4-6-4-1 in z
 *   4 blurx             c, i in [3,GR-2], j in [1,GC],   z in [2,12]   1-4-6-4-1 in i
 *   5 blury             c, i in [3,GR-2], j in [3,GC-2], z in [2,12]   1-4-6-4-1 in j
 *   6 interpolated      c, x in [24,R-33], y in [24,C-33]: trilinear slice of blury
 *   7 filtered (output) out(x-24,y-24) = interp(1) > 0 ? interp(0)/interp(1) : input
 *
 * Annotation notes:
 *  - Stage 2 scatters into a data-dependent z bin: its grid accesses are
 *    declared (0,i,j,*) and (1,i,j,*).  Iterations with the same (i,j)
 *    accumulate into the same bins, in the order a, b (bit-exactness).
 *  - Stage 6 iterates x = 8*i + a, y = 8*j + b (i in [3,GR-3], a in [0,7],
 *    same for j, b): the same points in the same order as x, y loops, but
 *    the coarse cell i = x/8 becomes an iterator, so every access is affine
 *    except the data-dependent z bin (declared *).  xf = a/8 = (x%8)/8.
 *    The z bin 2+zi+1 can be 13 (v == 1.0, weight 0): never written, reads 0.
 *  - Bodies use plain subscripts of the buffers seen as C99 arrays; stages 2
 *    and 6 are not analysable by flextile (data-dependent z subscript), the
 *    others are.  The output is written at out[x-24][y-24] (declared so).
 */
#include "common.h"

static void bilateral_grid(int R, int C, const float *input_buf, float *grid_buf,
                           float *blurz_buf, float *blurx_buf, float *blury_buf,
                           float *interp_buf, float *out_buf)
{
  int GR = (R - 1) / 8 - 1, GC = (C - 1) / 8 - 1;
  /* the flat buffers seen as C99 arrays (variably modified types), with
   * extents written in GR, GC: R = 8*GR + 16, C = 8*GC + 16, cols = C - 56 */
  const float (*restrict input)[8 * GC + 16] = (const float (*)[8 * GC + 16])input_buf;
  float (*restrict grid)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])grid_buf;
  float (*restrict blurz)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blurz_buf;
  float (*restrict blurx)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blurx_buf;
  float (*restrict blury)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blury_buf;
  float (*restrict interp)[8 * GR + 16][8 * GC + 16] =
      (float (*)[8 * GR + 16][8 * GC + 16])interp_buf;
  float (*restrict out)[8 * GC - 40] = (float (*)[8 * GC - 40])out_buf; /* out[x-24][y-24] */
#pragma omplc loopchain schedule() \
    temporary(grid, blurz, blurx, blury, interp)
  {
#pragma omplc for domain(0:1, 1:GR, 1:GC, 0:14) with (c, i, j, z) write grid {(c,i,j,z)}
    for (int c = 0; c <= 1; c++)
      for (int i = 1; i <= GR; i++)
        for (int j = 1; j <= GC; j++)
          for (int z = 0; z <= 14; z++)
            grid[c][i][j][z] = 0.0f;

#pragma omplc for domain(1:GR, 1:GC, 0:8, 0:8) with (i, j, a, b) \
    read input {(8*i-4+a, 8*j-4+b)}, \
    read grid {(0,i,j,*), (1,i,j,*)}, write grid {(0,i,j,*), (1,i,j,*)}
    for (int i = 1; i <= GR; i++)
      for (int j = 1; j <= GC; j++)
        for (int a = 0; a <= 8; a++)
          for (int b = 0; b <= 8; b++) {
            float v = input[8 * i - 4 + a][8 * j - 4 + b];
            int zb = 2 + (int)(v * 10.0f + 0.5f);
            grid[0][i][j][zb] += v;
            grid[1][i][j][zb] += 1.0f;
          }

#pragma omplc for domain(0:1, 1:GR, 1:GC, 2:12) with (c, i, j, z) \
    read grid {(c,i,j,z-2), (c,i,j,z-1), (c,i,j,z), (c,i,j,z+1), (c,i,j,z+2)}, \
    write blurz {(c,i,j,z)}
    for (int c = 0; c <= 1; c++)
      for (int i = 1; i <= GR; i++)
        for (int j = 1; j <= GC; j++)
          for (int z = 2; z <= 12; z++)
            blurz[c][i][j][z] = grid[c][i][j][z - 2] + 4.0f * grid[c][i][j][z - 1]
                              + 6.0f * grid[c][i][j][z] + 4.0f * grid[c][i][j][z + 1]
                              + grid[c][i][j][z + 2];

#pragma omplc for domain(0:1, 3:GR-2, 1:GC, 2:12) with (c, i, j, z) \
    read blurz {(c,i-2,j,z), (c,i-1,j,z), (c,i,j,z), (c,i+1,j,z), (c,i+2,j,z)}, \
    write blurx {(c,i,j,z)}
    for (int c = 0; c <= 1; c++)
      for (int i = 3; i <= GR - 2; i++)
        for (int j = 1; j <= GC; j++)
          for (int z = 2; z <= 12; z++)
            blurx[c][i][j][z] = blurz[c][i - 2][j][z] + 4.0f * blurz[c][i - 1][j][z]
                              + 6.0f * blurz[c][i][j][z] + 4.0f * blurz[c][i + 1][j][z]
                              + blurz[c][i + 2][j][z];

#pragma omplc for domain(0:1, 3:GR-2, 3:GC-2, 2:12) with (c, i, j, z) \
    read blurx {(c,i,j-2,z), (c,i,j-1,z), (c,i,j,z), (c,i,j+1,z), (c,i,j+2,z)}, \
    write blury {(c,i,j,z)}
    for (int c = 0; c <= 1; c++)
      for (int i = 3; i <= GR - 2; i++)
        for (int j = 3; j <= GC - 2; j++)
          for (int z = 2; z <= 12; z++)
            blury[c][i][j][z] = blurx[c][i][j - 2][z] + 4.0f * blurx[c][i][j - 1][z]
                              + 6.0f * blurx[c][i][j][z] + 4.0f * blurx[c][i][j + 1][z]
                              + blurx[c][i][j + 2][z];

#pragma omplc for domain(0:1, 3:GR-3, 0:7, 3:GC-3, 0:7) with (c, i, a, j, b) \
    read input {(8*i+a, 8*j+b)}, \
    read blury {(c,i,j,*), (c,i+1,j,*), (c,i,j+1,*), (c,i+1,j+1,*)}, \
    write interp {(c, 8*i+a, 8*j+b)}
    for (int c = 0; c <= 1; c++)
      for (int i = 3; i <= GR - 3; i++)
        for (int a = 0; a <= 7; a++)
          for (int j = 3; j <= GC - 3; j++)
            for (int b = 0; b <= 7; b++) {
              float v = input[8 * i + a][8 * j + b];
              float zv = v * 10.0f;
              int zi = (int)zv;
              float zf = zv - (float)zi;
              float xf = (float)a / 8.0f, yf = (float)b / 8.0f;
              int z0 = 2 + zi, z1 = 2 + zi + 1;
              float p0, p1, l0, l1;
              p0 = blury[c][i][j][z0] + xf * (blury[c][i + 1][j][z0] - blury[c][i][j][z0]);
              p1 = blury[c][i][j + 1][z0]
                 + xf * (blury[c][i + 1][j + 1][z0] - blury[c][i][j + 1][z0]);
              l0 = p0 + yf * (p1 - p0);
              p0 = blury[c][i][j][z1] + xf * (blury[c][i + 1][j][z1] - blury[c][i][j][z1]);
              p1 = blury[c][i][j + 1][z1]
                 + xf * (blury[c][i + 1][j + 1][z1] - blury[c][i][j + 1][z1]);
              l1 = p0 + yf * (p1 - p0);
              interp[c][8 * i + a][8 * j + b] = l0 + zf * (l1 - l0);
            }

#pragma omplc for domain(24:8*GR-17, 24:8*GC-17) with (x, y) \
    read interp {(0,x,y), (1,x,y)}, read input {(x,y)}, write out {(x-24,y-24)}
    for (int x = 24; x <= 8 * GR - 17; x++)
      for (int y = 24; y <= 8 * GC - 17; y++)
        out[x - 24][y - 24] = interp[1][x][y] > 0 ? interp[0][x][y] / interp[1][x][y]
                                                  : input[x][y];
  }
}

static const bench_sizes sizes = {
  2, "ROWSxCOLS", {256, 192}, {2560, 1536}, {2560, 1536}, NULL};

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  int rows = o.dims[0], cols = o.dims[1];
  if (rows % 8 || cols % 8 || rows < 16 || cols < 16) {
    fprintf(stderr, "bilateral-grid: rows and cols must be multiples of 8, at least 16\n");
    return 2;
  }
  int R = rows + 56, C = cols + 56;
  int GR = (R - 1) / 8 - 1, GC = (C - 1) / 8 - 1;
  size_t gsize = (size_t)2 * (GR + 1) * (GC + 1) * 16;
  float *input = bench_alloc(sizeof(float) * (size_t)R * C);
  float *grid = bench_alloc(sizeof(float) * gsize);
  float *blurz = bench_alloc(sizeof(float) * gsize);
  float *blurx = bench_alloc(sizeof(float) * gsize);
  float *blury = bench_alloc(sizeof(float) * gsize);
  float *interp = bench_alloc(sizeof(float) * (size_t)2 * R * C);
  float *out = bench_alloc(sizeof(float) * (size_t)rows * cols);
  double t[BENCH_MAX_REPS];

  for (int x = 0; x < R; x++)
    for (int y = 0; y < C; y++)
      input[x * C + y] = (float)bench_u8(o.seed, 0, clampi(x - 24, 0, rows - 1),
                                       clampi(y - 24, 0, cols - 1)) / 255.0f;

  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now_ms();
    bilateral_grid(R, C, input, grid, blurz, blurx, blury, interp, out);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "bilateral-grid",
               "gray(x,y) = u8(0,x,y)/255, clamp-to-edge padded 24 (top/left) / 32");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d]", rows, cols);
  if (rows > 100 && cols > 50) printf("sample out[100][50]: %.9g\n", out[100 * cols + 50]);
  bench_output(&o, "filtered", 'f', out, (size_t)rows * cols, shape);
  bench_report_time(&o, t);
  free(input); free(grid); free(blurz); free(blurx); free(blury); free(interp); free(out);
  return 0;
}
