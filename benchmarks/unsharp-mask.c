/* Unsharp Mask: 4 stages (PolyMage, ASPLOS'15).
 *
 * Spec: benchmarks.md section 1.  Input img: float [3][R+4][C+4], the image
 * /255 at img[c][x+2][y+2] with a 2-pixel ghost border of 0.  Logical
 * coordinates are the padded ones (x in [0, R+3]).
 *   1 blurx   c in [0,2], x in [2,R+1], y in [0,C+3]  5-tap vertical blur of img
 *   2 blury   c in [0,2], x in [2,R+1], y in [2,C+1]  5-tap horizontal blur of blurx
 *   3 sharpen same domain: img*(1+weight) + blury*(-weight)
 *   4 mask    same domain: |img - blury| < threshold ? img : sharpen   (output)
 * Output: mask float [3][R][C], out[c][x-2][y-2] = mask(c,x,y).
 * Bodies use plain subscripts of the buffers seen as C99 arrays; the output
 * is written at its own indices, mask[c][x-2][y-2] (declared (c,x-2,y-2)).
 * threshold = 0.001, weight = 3.
 */
#include "common.h"

static void unsharp_mask(int R, int C, float threshold, float weight, const float *img_buf,
                         float *blurx_buf, float *blury_buf, float *sharpen_buf, float *mask_buf)
{
  /* the flat buffers seen as C99 arrays (variably modified types) */
  const float (*restrict img)[R + 4][C + 4] = (const float (*)[R + 4][C + 4])img_buf;
  float (*restrict blurx)[R + 4][C + 4] = (float (*)[R + 4][C + 4])blurx_buf;
  float (*restrict blury)[R + 4][C + 4] = (float (*)[R + 4][C + 4])blury_buf;
  float (*restrict sharpen)[R + 4][C + 4] = (float (*)[R + 4][C + 4])sharpen_buf;
  float (*restrict mask)[R][C] = (float (*)[R][C])mask_buf; /* mask(c, x, y) is mask[c][x-2][y-2] */
  float wpos = 1.0f + weight, wneg = -weight;
#pragma omplc loopchain schedule() \
    temporary(blurx, blury, sharpen)
  {
#pragma omplc for domain(0:2, 2:R+1, 0:C+3) with (c, x, y) \
    read img {(c,x-2,y), (c,x-1,y), (c,x,y), (c,x+1,y), (c,x+2,y)}, \
    write blurx {(c,x,y)}
    for (int c = 0; c <= 2; c++)
      for (int x = 2; x <= R + 1; x++)
        for (int y = 0; y <= C + 3; y++)
          blurx[c][x][y] = img[c][x - 2][y] * 0.0625f + img[c][x - 1][y] * 0.25f
                         + img[c][x][y] * 0.375f + img[c][x + 1][y] * 0.25f
                         + img[c][x + 2][y] * 0.0625f;

#pragma omplc for domain(0:2, 2:R+1, 2:C+1) with (c, x, y) \
    read blurx {(c,x,y-2), (c,x,y-1), (c,x,y), (c,x,y+1), (c,x,y+2)}, \
    write blury {(c,x,y)}
    for (int c = 0; c <= 2; c++)
      for (int x = 2; x <= R + 1; x++)
        for (int y = 2; y <= C + 1; y++)
          blury[c][x][y] = blurx[c][x][y - 2] * 0.0625f + blurx[c][x][y - 1] * 0.25f
                         + blurx[c][x][y] * 0.375f + blurx[c][x][y + 1] * 0.25f
                         + blurx[c][x][y + 2] * 0.0625f;

#pragma omplc for domain(0:2, 2:R+1, 2:C+1) with (c, x, y) \
    read img {(c,x,y)}, read blury {(c,x,y)}, write sharpen {(c,x,y)}
    for (int c = 0; c <= 2; c++)
      for (int x = 2; x <= R + 1; x++)
        for (int y = 2; y <= C + 1; y++)
          sharpen[c][x][y] = img[c][x][y] * wpos + blury[c][x][y] * wneg;

#pragma omplc for domain(0:2, 2:R+1, 2:C+1) with (c, x, y) \
    read img {(c,x,y)}, read blury {(c,x,y)}, read sharpen {(c,x,y)}, \
    write mask {(c,x-2,y-2)}
    for (int c = 0; c <= 2; c++)
      for (int x = 2; x <= R + 1; x++)
        for (int y = 2; y <= C + 1; y++)
          mask[c][x - 2][y - 2] = (fabsf(img[c][x][y] - blury[c][x][y]) < threshold)
                                    ? img[c][x][y] : sharpen[c][x][y];
  }
}

static const bench_sizes sizes = {
  2, "ROWSxCOLS", {128, 96}, {2048, 2048}, {2048, 2048}, NULL};

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  int R = o.dims[0], C = o.dims[1];
  size_t padded = (size_t)3 * (R + 4) * (C + 4);
  float *img = bench_alloc(sizeof(float) * padded);
  float *blurx = bench_alloc(sizeof(float) * padded);
  float *blury = bench_alloc(sizeof(float) * padded);
  float *sharpen = bench_alloc(sizeof(float) * padded);
  float *mask = bench_alloc(sizeof(float) * (size_t)3 * R * C);
  double t[BENCH_MAX_REPS];

  for (int c = 0; c < 3; c++)
    for (int x = 0; x < R; x++)
      for (int y = 0; y < C; y++)
        img[(c * (R + 4) + x + 2) * (C + 4) + y + 2] = (float)bench_u8(o.seed, c, x, y) / 255.0f;

  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now_ms();
    unsharp_mask(R, C, 0.001f, 3.0f, img, blurx, blury, sharpen, mask);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "unsharp-mask", "img[c][x+2][y+2] = u8(c,x,y)/255, ghost 0");
  char shape[64];
  snprintf(shape, sizeof shape, "[3][%d][%d]", R, C);
  if (R > 10 && C > 20) printf("sample out[1][10][20]: %.9g\n", mask[(1 * R + 10) * C + 20]);
  bench_output(&o, "mask", 'f', mask, (size_t)3 * R * C, shape);
  bench_report_time(&o, t);
  free(img); free(blurx); free(blury); free(sharpen); free(mask);
  return 0;
}
