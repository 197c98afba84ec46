/* Camera Pipeline: 32 stages (PolyMage, ASPLOS'15; the FrankenCamera pipeline).
 *
 * Spec: benchmarks.md section 4.  Input: the Bayer raw image, int16 [R][C]
 * (R, C even).  With h = (R-36)/2 and v = (C-48)/2 (so R = 2h+36,
 * C = 2v+48) the stage domains are
 *   Zden [8,2h+5]x[12,2v+5]   H2 [4,h+2]x[6,v+2]   H1 [5,h+1]x[7,v+1]
 *   H0   [6,h]x[8,v]          HY [6,h]x[16,2v-1]   OUT [12,2h-1]x[16,2v-1]
 * and the annotations use only h and v.
 *    1      denoised (hot-pixel clamp, radius 2) on Zden
 *    2-5    deinterleaved(0..3) on H2 = denoised(2x+{0,1}, 2y+{0,1})
 *    6, 7   g_gr, g_gb (copies)         8, 9   g_r, g_b on H1
 *   10, 11  r_r, b_b (copies)          12-17   r_gr, r_gb, r_b, b_r, b_gr, b_gb on H0
 *   18-23   interleave in y on HY: redX2, redX1, blueX2, blueX1, greenX2, greenX1
 *   24-26   interleave in x on OUT: red, blue, green
 *   27      matrix (3x4 colour matrix for colour_temp)
 *   28-30   corrected(0..2) on OUT (int, C truncating division by 256)
 *   31      curveLUT, 65536 entries (indices -32768..32767)
 *   32      process (output) = curveLUT[corrected]
 * Output: uint8 [3][R-48][C-64], out(c, x-12, y-16), channels B, G, R.
 *
 * Annotation notes:
 *  - The interleaves iterate the coarse index: stage 18 runs over (x, yh) with
 *    yh in [8, v-1] and writes y = 2*yh and 2*yh+1 (exactly HY's columns
 *    [16, 2v-1]); stages 24-26 run over (xh, y) with xh in [6, h-1] and write
 *    x = 2*xh and 2*xh+1.  All accesses are then affine.
 *  - Stage 32 gathers from the LUT at a data-dependent index: read curve {(*)}.
 *  - deinterleaved is one 3-D array written one slice per nest; so is
 *    corrected.
 *  - Bodies use plain subscripts of the buffers seen as C99 arrays and call
 *    only min, max and abs (|a - b|), which flextile knows as pure, so it
 *    can analyse every body but stage 32's.  Arrays are indexed from 0: the
 *    LUT entry i is curve[i+32768] (declared write (i+32768)), the output
 *    is written at process[c][x-12][y-16] (declared so).
 */
#include "common.h"

/* Helpers called in stage bodies.  flextile knows min, max (and the C
 * library's abs) as pure functions, so the bodies stay analysable. */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }

typedef struct {
  int16_t *denoised, *deint;
  int16_t *g_gr, *g_gb, *g_r, *g_b, *r_r, *b_b, *r_gr, *r_gb, *r_b, *b_r, *b_gr, *b_gb;
  int16_t *redX1, *redX2, *blueX1, *blueX2, *greenX1, *greenX2, *red, *blue, *green;
  int *matrix;
  int16_t *corr;
  uint8_t *curve;
} camera_bufs;

static void camera_pipe(int R, int C, const int16_t *img_buf, const float *matrix_3200_buf,
                        const float *matrix_7000_buf, float colour_temp, float contrast,
                        float gamma, const camera_bufs *bufs, uint8_t *process_buf)
{
  int h = (R - 36) / 2, v = (C - 48) / 2;
  /* the flat buffers seen as C99 arrays (variably modified types), with
   * extents written in h, v: R = 2h + 36, C = 2v + 48, R/2 = h + 18, C/2 = v + 24 */
  const int16_t (*restrict img)[2 * v + 48] = (const int16_t (*)[2 * v + 48])img_buf;
  const float (*restrict matrix_3200)[4] = (const float (*)[4])matrix_3200_buf;
  const float (*restrict matrix_7000)[4] = (const float (*)[4])matrix_7000_buf;
  int16_t (*restrict denoised)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->denoised;
  int16_t (*restrict deint)[h + 18][v + 24] = (int16_t (*)[h + 18][v + 24])bufs->deint;
  int16_t (*restrict g_gr)[v + 24] = (int16_t (*)[v + 24])bufs->g_gr;
  int16_t (*restrict g_gb)[v + 24] = (int16_t (*)[v + 24])bufs->g_gb;
  int16_t (*restrict g_r)[v + 24] = (int16_t (*)[v + 24])bufs->g_r;
  int16_t (*restrict g_b)[v + 24] = (int16_t (*)[v + 24])bufs->g_b;
  int16_t (*restrict r_r)[v + 24] = (int16_t (*)[v + 24])bufs->r_r;
  int16_t (*restrict b_b)[v + 24] = (int16_t (*)[v + 24])bufs->b_b;
  int16_t (*restrict r_gr)[v + 24] = (int16_t (*)[v + 24])bufs->r_gr;
  int16_t (*restrict r_gb)[v + 24] = (int16_t (*)[v + 24])bufs->r_gb;
  int16_t (*restrict r_b)[v + 24] = (int16_t (*)[v + 24])bufs->r_b;
  int16_t (*restrict b_r)[v + 24] = (int16_t (*)[v + 24])bufs->b_r;
  int16_t (*restrict b_gr)[v + 24] = (int16_t (*)[v + 24])bufs->b_gr;
  int16_t (*restrict b_gb)[v + 24] = (int16_t (*)[v + 24])bufs->b_gb;
  int16_t (*restrict redX1)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->redX1;
  int16_t (*restrict redX2)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->redX2;
  int16_t (*restrict blueX1)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->blueX1;
  int16_t (*restrict blueX2)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->blueX2;
  int16_t (*restrict greenX1)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->greenX1;
  int16_t (*restrict greenX2)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->greenX2;
  int16_t (*restrict red)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->red;
  int16_t (*restrict blue)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->blue;
  int16_t (*restrict green)[2 * v + 48] = (int16_t (*)[2 * v + 48])bufs->green;
  int (*restrict matrix)[4] = (int (*)[4])bufs->matrix;
  int16_t (*restrict corr)[2 * h + 36][2 * v + 48] =
      (int16_t (*)[2 * h + 36][2 * v + 48])bufs->corr;
  uint8_t *restrict curve = bufs->curve; /* curve(i), i in [-32768, 32767], is curve[i+32768] */
  uint8_t (*restrict process)[2 * h - 12][2 * v - 16] =
      (uint8_t (*)[2 * h - 12][2 * v - 16])process_buf; /* process[c][x-12][y-16] */

#pragma omplc loopchain schedule() \
    temporary(denoised, deint, g_gr, g_gb, g_r, g_b, r_r, b_b, r_gr, r_gb, r_b, \
      b_r, b_gr, b_gb, redX2, redX1, blueX2, blueX1, greenX2, greenX1, red, blue, \
      green, corr, curve)
  {
    /* 1: denoised = img clamped to [min, max] of its 4 neighbours at distance 2 */
#pragma omplc for domain(8:2*h+5, 12:2*v+5) with (x, y) \
    read img {(x-2,y), (x+2,y), (x,y-2), (x,y+2), (x,y)}, write denoised {(x,y)}
    for (int x = 8; x <= 2 * h + 5; x++)
      for (int y = 12; y <= 2 * v + 5; y++) {
        int mn = min(min(img[x - 2][y], img[x + 2][y]), min(img[x][y - 2], img[x][y + 2]));
        int mx = max(max(img[x - 2][y], img[x + 2][y]), max(img[x][y - 2], img[x][y + 2]));
        denoised[x][y] = max(mn, min(mx, img[x][y]));
      }

    /* 2-5: deinterleave the Bayer phases */
#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) \
    read denoised {(2*x, 2*y)}, write deint {(0,x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        deint[0][x][y] = denoised[2 * x][2 * y];

#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) \
    read denoised {(2*x, 2*y+1)}, write deint {(1,x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        deint[1][x][y] = denoised[2 * x][2 * y + 1];

#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) \
    read denoised {(2*x+1, 2*y)}, write deint {(2,x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        deint[2][x][y] = denoised[2 * x + 1][2 * y];

#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) \
    read denoised {(2*x+1, 2*y+1)}, write deint {(3,x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        deint[3][x][y] = denoised[2 * x + 1][2 * y + 1];

    /* 6, 7: g_gr, g_gb */
#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) read deint {(0,x,y)}, write g_gr {(x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        g_gr[x][y] = deint[0][x][y];

#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) read deint {(3,x,y)}, write g_gb {(x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        g_gb[x][y] = deint[3][x][y];

    /* 8, 9: green at the red and blue sites */
#pragma omplc for domain(5:h+1, 7:v+1) with (x, y) \
    read g_gr {(x,y+1), (x,y)}, read g_gb {(x-1,y), (x,y)}, write g_r {(x,y)}
    for (int x = 5; x <= h + 1; x++)
      for (int y = 7; y <= v + 1; y++) {
        int gh = (g_gr[x][y + 1] + g_gr[x][y]) / 2;
        int ghd = abs(g_gr[x][y + 1] - g_gr[x][y]);
        int gv = (g_gb[x - 1][y] + g_gb[x][y]) / 2;
        int gvd = abs(g_gb[x - 1][y] - g_gb[x][y]);
        g_r[x][y] = (ghd < gvd) ? gh : gv;
      }

#pragma omplc for domain(5:h+1, 7:v+1) with (x, y) \
    read g_gb {(x,y-1), (x,y)}, read g_gr {(x+1,y), (x,y)}, write g_b {(x,y)}
    for (int x = 5; x <= h + 1; x++)
      for (int y = 7; y <= v + 1; y++) {
        int gh = (g_gb[x][y - 1] + g_gb[x][y]) / 2;
        int ghd = abs(g_gb[x][y - 1] - g_gb[x][y]);
        int gv = (g_gr[x + 1][y] + g_gr[x][y]) / 2;
        int gvd = abs(g_gr[x + 1][y] - g_gr[x][y]);
        g_b[x][y] = (ghd < gvd) ? gh : gv;
      }

    /* 10, 11: r_r, b_b */
#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) read deint {(1,x,y)}, write r_r {(x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        r_r[x][y] = deint[1][x][y];

#pragma omplc for domain(4:h+2, 6:v+2) with (x, y) read deint {(2,x,y)}, write b_b {(x,y)}
    for (int x = 4; x <= h + 2; x++)
      for (int y = 6; y <= v + 2; y++)
        b_b[x][y] = deint[2][x][y];

    /* 12-17: red and blue at the other sites */
#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_gr {(x,y)}, read g_r {(x,y), (x,y-1)}, read r_r {(x,y-1), (x,y)}, \
    write r_gr {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++)
        r_gr[x][y] = g_gr[x][y] - (g_r[x][y] + g_r[x][y - 1]) / 2
                   + (r_r[x][y - 1] + r_r[x][y]) / 2;

#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_gb {(x,y)}, read g_r {(x,y), (x+1,y)}, read r_r {(x,y), (x+1,y)}, \
    write r_gb {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++)
        r_gb[x][y] = g_gb[x][y] - (g_r[x][y] + g_r[x + 1][y]) / 2
                   + (r_r[x][y] + r_r[x + 1][y]) / 2;

#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_b {(x,y)}, read g_r {(x,y), (x+1,y-1), (x,y-1), (x+1,y)}, \
    read r_r {(x,y), (x+1,y-1), (x,y-1), (x+1,y)}, write r_b {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++) {
        int rp = g_b[x][y] - (g_r[x][y] + g_r[x + 1][y - 1]) / 2
               + (r_r[x][y] + r_r[x + 1][y - 1]) / 2;
        int rpd = abs(r_r[x][y] - r_r[x + 1][y - 1]);
        int rn = g_b[x][y] - (g_r[x][y - 1] + g_r[x + 1][y]) / 2
               + (r_r[x][y - 1] + r_r[x + 1][y]) / 2;
        int rnd = abs(r_r[x][y - 1] - r_r[x + 1][y]);
        r_b[x][y] = (rpd < rnd) ? rp : rn;
      }

#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_r {(x,y)}, read g_b {(x,y), (x-1,y+1), (x,y+1), (x-1,y)}, \
    read b_b {(x,y), (x-1,y+1), (x,y+1), (x-1,y)}, write b_r {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++) {
        int bp = g_r[x][y] - (g_b[x][y] + g_b[x - 1][y + 1]) / 2
               + (b_b[x][y] + b_b[x - 1][y + 1]) / 2;
        int bpd = abs(b_b[x][y] - b_b[x - 1][y + 1]);
        int bn = g_r[x][y] - (g_b[x][y + 1] + g_b[x - 1][y]) / 2
               + (b_b[x][y + 1] + b_b[x - 1][y]) / 2;
        int bnd = abs(b_b[x][y + 1] - b_b[x - 1][y]);
        b_r[x][y] = (bpd < bnd) ? bp : bn;
      }

#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_gr {(x,y)}, read g_b {(x,y), (x-1,y)}, read b_b {(x,y), (x-1,y)}, \
    write b_gr {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++)
        b_gr[x][y] = g_gr[x][y] - (g_b[x][y] + g_b[x - 1][y]) / 2
                   + (b_b[x][y] + b_b[x - 1][y]) / 2;

#pragma omplc for domain(6:h, 8:v) with (x, y) \
    read g_gb {(x,y)}, read g_b {(x,y), (x,y+1)}, read b_b {(x,y), (x,y+1)}, \
    write b_gb {(x,y)}
    for (int x = 6; x <= h; x++)
      for (int y = 8; y <= v; y++)
        b_gb[x][y] = g_gb[x][y] - (g_b[x][y] + g_b[x][y + 1]) / 2
                   + (b_b[x][y] + b_b[x][y + 1]) / 2;

    /* 18-23: interleave in y: even y = 2*yh takes the first source, odd y the second */
#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read r_b {(x,yh)}, read r_gb {(x,yh)}, write redX2 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        redX2[x][2 * yh] = r_b[x][yh];
        redX2[x][2 * yh + 1] = r_gb[x][yh];
      }

#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read r_gr {(x,yh)}, read r_r {(x,yh)}, write redX1 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        redX1[x][2 * yh] = r_gr[x][yh];
        redX1[x][2 * yh + 1] = r_r[x][yh];
      }

#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read b_b {(x,yh)}, read b_gb {(x,yh)}, write blueX2 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        blueX2[x][2 * yh] = b_b[x][yh];
        blueX2[x][2 * yh + 1] = b_gb[x][yh];
      }

#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read b_gr {(x,yh)}, read b_r {(x,yh)}, write blueX1 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        blueX1[x][2 * yh] = b_gr[x][yh];
        blueX1[x][2 * yh + 1] = b_r[x][yh];
      }

#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read g_b {(x,yh)}, read g_gb {(x,yh)}, write greenX2 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        greenX2[x][2 * yh] = g_b[x][yh];
        greenX2[x][2 * yh + 1] = g_gb[x][yh];
      }

#pragma omplc for domain(6:h, 8:v-1) with (x, yh) \
    read g_gr {(x,yh)}, read g_r {(x,yh)}, write greenX1 {(x,2*yh), (x,2*yh+1)}
    for (int x = 6; x <= h; x++)
      for (int yh = 8; yh <= v - 1; yh++) {
        greenX1[x][2 * yh] = g_gr[x][yh];
        greenX1[x][2 * yh + 1] = g_r[x][yh];
      }

    /* 24-26: interleave in x: even x = 2*xh reads the X1 array, odd x the X2 array */
#pragma omplc for domain(6:h-1, 16:2*v-1) with (xh, y) \
    read redX1 {(xh,y)}, read redX2 {(xh,y)}, write red {(2*xh,y), (2*xh+1,y)}
    for (int xh = 6; xh <= h - 1; xh++)
      for (int y = 16; y <= 2 * v - 1; y++) {
        red[2 * xh][y] = redX1[xh][y];
        red[2 * xh + 1][y] = redX2[xh][y];
      }

#pragma omplc for domain(6:h-1, 16:2*v-1) with (xh, y) \
    read blueX1 {(xh,y)}, read blueX2 {(xh,y)}, write blue {(2*xh,y), (2*xh+1,y)}
    for (int xh = 6; xh <= h - 1; xh++)
      for (int y = 16; y <= 2 * v - 1; y++) {
        blue[2 * xh][y] = blueX1[xh][y];
        blue[2 * xh + 1][y] = blueX2[xh][y];
      }

#pragma omplc for domain(6:h-1, 16:2*v-1) with (xh, y) \
    read greenX1 {(xh,y)}, read greenX2 {(xh,y)}, write green {(2*xh,y), (2*xh+1,y)}
    for (int xh = 6; xh <= h - 1; xh++)
      for (int y = 16; y <= 2 * v - 1; y++) {
        green[2 * xh][y] = greenX1[xh][y];
        green[2 * xh + 1][y] = greenX2[xh][y];
      }

    /* 27: colour matrix for colour_temp, blended between 3200K and 7000K */
#pragma omplc for domain(0:2, 0:3) with (i, j) \
    read matrix_3200 {(i,j)}, read matrix_7000 {(i,j)}, write matrix {(i,j)}
    for (int i = 0; i <= 2; i++)
      for (int j = 0; j <= 3; j++) {
        float alpha = ((1.0f / colour_temp) - 0.0003125f) / (-0.000169642857143f);
        matrix[i][j] = (int)((matrix_3200[i][j] * alpha + matrix_7000[i][j] * (1.0f - alpha)) * 256.0f);
      }

    /* 28-30: colour correction; output channel c uses matrix row 2-c */
#pragma omplc for domain(12:2*h-1, 16:2*v-1) with (x, y) \
    read matrix {(2,0), (2,1), (2,2), (2,3)}, read red {(x,y)}, read green {(x,y)}, \
    read blue {(x,y)}, write corr {(0,x,y)}
    for (int x = 12; x <= 2 * h - 1; x++)
      for (int y = 16; y <= 2 * v - 1; y++)
        corr[0][x][y] = (matrix[2][3] + matrix[2][0] * red[x][y]
                         + matrix[2][1] * green[x][y] + matrix[2][2] * blue[x][y])
                        / 256;

#pragma omplc for domain(12:2*h-1, 16:2*v-1) with (x, y) \
    read matrix {(1,0), (1,1), (1,2), (1,3)}, read red {(x,y)}, read green {(x,y)}, \
    read blue {(x,y)}, write corr {(1,x,y)}
    for (int x = 12; x <= 2 * h - 1; x++)
      for (int y = 16; y <= 2 * v - 1; y++)
        corr[1][x][y] = (matrix[1][3] + matrix[1][0] * red[x][y]
                         + matrix[1][1] * green[x][y] + matrix[1][2] * blue[x][y])
                        / 256;

#pragma omplc for domain(12:2*h-1, 16:2*v-1) with (x, y) \
    read matrix {(0,0), (0,1), (0,2), (0,3)}, read red {(x,y)}, read green {(x,y)}, \
    read blue {(x,y)}, write corr {(2,x,y)}
    for (int x = 12; x <= 2 * h - 1; x++)
      for (int y = 16; y <= 2 * v - 1; y++)
        corr[2][x][y] = (matrix[0][3] + matrix[0][0] * red[x][y]
                         + matrix[0][1] * green[x][y] + matrix[0][2] * blue[x][y])
                        / 256;

    /* 31: tone curve LUT (gamma and contrast) */
#pragma omplc for domain(-32768:32767) with (i) write curve {(i+32768)}
    for (int i = -32768; i <= 32767; i++) {
      float xf = (float)i / 1024.0f;
      xf = (1.0f < xf) ? 1.0f : xf;
      xf = (0.0f > xf) ? 0.0f : xf;
      float g = powf(xf, 1.0f / gamma);
      float b = 2.0f - powf(2.0f, contrast / 100.0f);
      float a = 2.0f - 2.0f * b;
      float z = (g > 0.5f) ? 1.0f - ((a * (1.0f - g)) * (1.0f - g) + b * (1.0f - g))
                           : (a * g) * g + b * g;
      float s = z * 256.0f;
      s = (s > 0) ? s : 0;
      s = (s < 255) ? s : 255;
      curve[i + 32768] = (uint8_t)s;
    }

    /* 32: apply the curve (data-dependent gather) */
#pragma omplc for domain(0:2, 12:2*h-1, 16:2*v-1) with (c, x, y) \
    read corr {(c,x,y)}, read curve {(*)}, write process {(c,x-12,y-16)}
    for (int c = 0; c <= 2; c++)
      for (int x = 12; x <= 2 * h - 1; x++)
        for (int y = 16; y <= 2 * v - 1; y++)
          process[c][x - 12][y - 16] = curve[corr[c][x][y] + 32768];
  }
}

static const bench_sizes sizes = {
  2, "ROWSxCOLS", {256, 384}, {1968, 2592}, {1968, 2592}, NULL};

int main(int argc, char **argv)
{
  static const float matrix_3200[12] = {
    1.6697, -0.2693, -0.4004, -42.4346, -0.3576, 1.0615, 1.5949, -37.1158,
    -0.2175, -1.8751, 6.9640, -26.6970};
  static const float matrix_7000[12] = {
    2.2997, -0.4478, 0.1706, -39.0923, -0.3826, 1.5906, -0.2080, -25.4311,
    -0.0888, -0.7344, 2.2832, -20.0826};
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  int R = o.dims[0], C = o.dims[1];
  if (R % 2 || C % 2 || R < 52 || C < 68) {
    fprintf(stderr, "camera-pipeline: rows and cols must be even, at least 52x68\n");
    return 2;
  }
  size_t full = (size_t)R * C, half = (size_t)(R / 2) * (C / 2), hy = (size_t)(R / 2) * C;
  int16_t *img = bench_alloc(sizeof(int16_t) * full);
  camera_bufs b;
  b.denoised = bench_alloc(sizeof(int16_t) * full);
  b.deint = bench_alloc(sizeof(int16_t) * 4 * half);
  int16_t **halves[12] = {&b.g_gr, &b.g_gb, &b.g_r, &b.g_b, &b.r_r, &b.b_b,
                          &b.r_gr, &b.r_gb, &b.r_b, &b.b_r, &b.b_gr, &b.b_gb};
  for (int i = 0; i < 12; i++) *halves[i] = bench_alloc(sizeof(int16_t) * half);
  int16_t **hys[6] = {&b.redX1, &b.redX2, &b.blueX1, &b.blueX2, &b.greenX1, &b.greenX2};
  for (int i = 0; i < 6; i++) *hys[i] = bench_alloc(sizeof(int16_t) * hy);
  b.red = bench_alloc(sizeof(int16_t) * full);
  b.blue = bench_alloc(sizeof(int16_t) * full);
  b.green = bench_alloc(sizeof(int16_t) * full);
  b.matrix = bench_alloc(sizeof(int) * 12);
  b.corr = bench_alloc(sizeof(int16_t) * 3 * full);
  b.curve = bench_alloc(65536);
  size_t nout = (size_t)3 * (R - 48) * (C - 64);
  uint8_t *process = bench_alloc(nout);
  double t[BENCH_MAX_REPS];

  for (int x = 0; x < R; x++)
    for (int y = 0; y < C; y++)
      img[x * C + y] = (int16_t)(o.seed ? (int)(bench_hash4(o.seed, 0, (uint32_t)x, (uint32_t)y) & 1023u)
                                   : (37 * x + 11 * y + (x * y) % 29) % 1024);

  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now_ms();
    camera_pipe(R, C, img, matrix_3200, matrix_7000, 3700.0f, 50.0f, 2.0f, &b, process);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "camera-pipeline",
               "raw[x][y] = (37x + 11y + (x*y mod 29)) mod 1024; colour_temp 3700, "
               "contrast 50, gamma 2");
  printf("matrix:");
  for (int i = 0; i < 12; i++) printf(" %d", b.matrix[i]);
  printf("\n");
  size_t plane = (size_t)(R - 48) * (C - 64);
  for (int c = 0; c < 3; c++) {
    unsigned long long s = 0;
    for (size_t i = 0; i < plane; i++) s += process[c * plane + i];
    printf("channel %d sum: %llu\n", c, s);
  }
  if (R - 48 > 50 && C - 64 > 60)
    for (int c = 0; c < 3; c++)
      printf("sample out[%d][50][60]: %d\n", c, process[c * plane + 50 * (size_t)(C - 64) + 60]);
  char shape[64];
  snprintf(shape, sizeof shape, "[3][%d][%d]", R - 48, C - 64);
  bench_output(&o, "process", 'b', process, nout, shape);
  bench_report_time(&o, t);
  free(img); free(b.denoised); free(b.deint);
  for (int i = 0; i < 12; i++) free(*halves[i]);
  for (int i = 0; i < 6; i++) free(*hys[i]);
  free(b.red); free(b.blue); free(b.green); free(b.matrix); free(b.corr); free(b.curve);
  free(process);
  return 0;
}
