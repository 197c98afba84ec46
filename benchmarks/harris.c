/* Harris Corner Detection: 11 stages (PolyMage, ASPLOS'15).
 *
 * Spec: benchmarks.md section 2.  Input img: float [R+2][C+2], the grayscale
 * image /255 with no ghost zone (R = rows-2, C = cols-2).
 *   1 Iy, 2 Ix        x in [1,R],   y in [1,C]    3x3 derivative stencils of img
 *   3 Iyy, 4 Ixy, 5 Ixx                          pointwise products
 *   6 Syy, 7 Sxy, 8 Sxx x in [2,R-1], y in [2,C-1] 3x3 box sums
 *   9 trace, 10 det, 11 harris                   pointwise   (harris: output)
 * Output: harris on [2,R-1]x[2,C-1], stored as float [R-2][C-2]
 * (out[x-2][y-2] = harris(x,y); the spec's harris[12][22] is out[10][20]).
 * Bodies use plain subscripts of the buffers seen as C99 arrays; the output
 * is written at its own indices, harris[x-2][y-2] (declared (x-2,y-2)).
 */
#include "common.h"

static void harris_corner(int R, int C, const float *img_buf, float *const *buf,
                          float *harris_buf)
{
  /* the flat buffers seen as C99 arrays (variably modified types) */
  const float (*restrict img)[C + 2] = (const float (*)[C + 2])img_buf;
  float (*restrict Iy)[C + 2] = (float (*)[C + 2])buf[0];
  float (*restrict Ix)[C + 2] = (float (*)[C + 2])buf[1];
  float (*restrict Iyy)[C + 2] = (float (*)[C + 2])buf[2];
  float (*restrict Ixy)[C + 2] = (float (*)[C + 2])buf[3];
  float (*restrict Ixx)[C + 2] = (float (*)[C + 2])buf[4];
  float (*restrict Syy)[C + 2] = (float (*)[C + 2])buf[5];
  float (*restrict Sxy)[C + 2] = (float (*)[C + 2])buf[6];
  float (*restrict Sxx)[C + 2] = (float (*)[C + 2])buf[7];
  float (*restrict trace)[C + 2] = (float (*)[C + 2])buf[8];
  float (*restrict det)[C + 2] = (float (*)[C + 2])buf[9];
  float (*restrict harris)[C - 2] = (float (*)[C - 2])harris_buf; /* harris[x-2][y-2] */
#pragma omplc loopchain schedule() \
    temporary(Iy, Ix, Iyy, Ixy, Ixx, Syy, Sxy, Sxx, trace, det)
  {
#pragma omplc for domain(1:R, 1:C) with (x, y) \
    read img {(x-1,y-1), (x-1,y+1), (x,y-1), (x,y+1), (x+1,y-1), (x+1,y+1)}, \
    write Iy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        Iy[x][y] = img[x - 1][y - 1] * -0.0833333333333f + img[x - 1][y + 1] * 0.0833333333333f
                 + img[x][y - 1] * -0.166666666667f + img[x][y + 1] * 0.166666666667f
                 + img[x + 1][y - 1] * -0.0833333333333f + img[x + 1][y + 1] * 0.0833333333333f;

#pragma omplc for domain(1:R, 1:C) with (x, y) \
    read img {(x-1,y-1), (x+1,y-1), (x-1,y), (x+1,y), (x-1,y+1), (x+1,y+1)}, \
    write Ix {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        Ix[x][y] = img[x - 1][y - 1] * -0.0833333333333f + img[x + 1][y - 1] * 0.0833333333333f
                 + img[x - 1][y] * -0.166666666667f + img[x + 1][y] * 0.166666666667f
                 + img[x - 1][y + 1] * -0.0833333333333f + img[x + 1][y + 1] * 0.0833333333333f;

#pragma omplc for domain(1:R, 1:C) with (x, y) read Iy {(x,y)}, write Iyy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        Iyy[x][y] = Iy[x][y] * Iy[x][y];

#pragma omplc for domain(1:R, 1:C) with (x, y) read Ix {(x,y)}, read Iy {(x,y)}, \
    write Ixy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        Ixy[x][y] = Ix[x][y] * Iy[x][y];

#pragma omplc for domain(1:R, 1:C) with (x, y) read Ix {(x,y)}, write Ixx {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        Ixx[x][y] = Ix[x][y] * Ix[x][y];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Iyy {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Syy {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        Syy[x][y] = Iyy[x - 1][y - 1] + Iyy[x - 1][y] + Iyy[x - 1][y + 1]
                  + Iyy[x][y - 1] + Iyy[x][y] + Iyy[x][y + 1]
                  + Iyy[x + 1][y - 1] + Iyy[x + 1][y] + Iyy[x + 1][y + 1];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Ixy {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Sxy {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        Sxy[x][y] = Ixy[x - 1][y - 1] + Ixy[x - 1][y] + Ixy[x - 1][y + 1]
                  + Ixy[x][y - 1] + Ixy[x][y] + Ixy[x][y + 1]
                  + Ixy[x + 1][y - 1] + Ixy[x + 1][y] + Ixy[x + 1][y + 1];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Ixx {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Sxx {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        Sxx[x][y] = Ixx[x - 1][y - 1] + Ixx[x - 1][y] + Ixx[x - 1][y + 1]
                  + Ixx[x][y - 1] + Ixx[x][y] + Ixx[x][y + 1]
                  + Ixx[x + 1][y - 1] + Ixx[x + 1][y] + Ixx[x + 1][y + 1];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) read Sxx {(x,y)}, read Syy {(x,y)}, \
    write trace {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        trace[x][y] = Sxx[x][y] + Syy[x][y];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Sxx {(x,y)}, read Syy {(x,y)}, read Sxy {(x,y)}, write det {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        det[x][y] = Sxx[x][y] * Syy[x][y] - Sxy[x][y] * Sxy[x][y];

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) read det {(x,y)}, read trace {(x,y)}, \
    write harris {(x-2,y-2)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        harris[x - 2][y - 2] = det[x][y] - (0.04f * trace[x][y]) * trace[x][y];
  }
}

static const bench_sizes sizes = {
  2, "ROWSxCOLS", {130, 98}, {2832, 4256}, {6400, 6400}, NULL};

int main(int argc, char **argv)
{
  bench_opts o;
  bench_parse(argc, argv, &sizes, &o);
  int rows = o.dims[0], cols = o.dims[1];
  int R = rows - 2, C = cols - 2;
  if (R < 3 || C < 3) { fprintf(stderr, "harris: need at least 5x5\n"); return 2; }
  size_t full = (size_t)(R + 2) * (C + 2);
  float *img = bench_alloc(sizeof(float) * full);
  float *a[10];
  for (int i = 0; i < 10; i++) a[i] = bench_alloc(sizeof(float) * full);
  float *harris = bench_alloc(sizeof(float) * (size_t)(R - 2) * (C - 2));
  double t[BENCH_MAX_REPS];

  for (int x = 0; x < R + 2; x++)
    for (int y = 0; y < C + 2; y++)
      img[x * (C + 2) + y] = (float)bench_u8(o.seed, 0, x, y) / 255.0f;

  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now_ms();
    harris_corner(R, C, img, a, harris);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "harris", "img[x][y] = u8(0,x,y)/255 on the (R+2)x(C+2) array");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d] (harris[2..R-1][2..C-1])", R - 2, C - 2);
  if (R > 12 && C > 22) printf("sample harris[12][22]: %.9g\n", harris[10 * (C - 2) + 20]);
  bench_output(&o, "harris", 'f', harris, (size_t)(R - 2) * (C - 2), shape);
  bench_report_time(&o, t);
  free(img);
  for (int i = 0; i < 10; i++) free(a[i]);
  free(harris);
  return 0;
}
