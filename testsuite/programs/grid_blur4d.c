/* grid_blur4d.c -- the three grid blurs of the bilateral grid (4-D: channel,
 * grid row, grid column, intensity bin), as a chain of analysable nests.
 * Regression: with scalene overlapped tiles whose bin dimension fits in one
 * tile, isl split the tile body at its sequence and each part declared its own
 * scratchpads, so the consumer read an uninitialised one.
 * Output: a weighted checksum of blury and every element of it in hex.
 *
 * flextile-test: args: 37 29 | 5 4 | 1 1 | 70 3
 * flextile-test: options: default | --tile | --rectangle | --scalene | --scalene --tile-sizes 1,8,8,4 | --rectangle --tile-sizes 2,16,16,8 | --scalene --tile-sizes 2,5,3,32
 */
#include <stdio.h>
#include <stdlib.h>
static void k(int GR, int GC, float *grid_buf, float *blurz_buf, float *blurx_buf, float *blury_buf)
{
  float (*restrict grid)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])grid_buf;
  float (*restrict blurz)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blurz_buf;
  float (*restrict blurx)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blurx_buf;
  float (*restrict blury)[GR + 1][GC + 1][16] = (float (*)[GR + 1][GC + 1][16])blury_buf;
#pragma omplc loopchain schedule()
  {
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
  }
}
int main(int argc, char **argv)
{
  int GR = argc > 1 ? atoi(argv[1]) : 37, GC = argc > 2 ? atoi(argv[2]) : 29;
  size_t n = (size_t)2 * (GR + 1) * (GC + 1) * 16;
  float *g = calloc(n, 4), *a = calloc(n, 4), *b = calloc(n, 4), *c = calloc(n, 4);
  if (!g || !a || !b || !c)
    return 1;
  for (size_t q = 0; q < n; q++)
    g[q] = (float)((q * 7) % 13) + 0.25f * (float)(q % 5);
  k(GR, GC, g, a, b, c);
  double s = 0;
  for (size_t q = 0; q < n; q++)
    s += c[q] * (double)(q % 1000 + 1);
  printf("checksum %.17g\n", s);
  for (size_t q = 0; q < n; q++)
    printf("%a %a\n", (double)b[q], (double)c[q]);
  free(g); free(a); free(b); free(c);
  return 0;
}
