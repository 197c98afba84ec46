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
 */
#include "common.h"

#define IMG(x, y) img[(x) * (C + 2) + (y)]
#define IY(x, y) Iy[(x) * (C + 2) + (y)]
#define IX(x, y) Ix[(x) * (C + 2) + (y)]
#define IYY(x, y) Iyy[(x) * (C + 2) + (y)]
#define IXY(x, y) Ixy[(x) * (C + 2) + (y)]
#define IXX(x, y) Ixx[(x) * (C + 2) + (y)]
#define SYY(x, y) Syy[(x) * (C + 2) + (y)]
#define SXY(x, y) Sxy[(x) * (C + 2) + (y)]
#define SXX(x, y) Sxx[(x) * (C + 2) + (y)]
#define TRACE(x, y) trace[(x) * (C + 2) + (y)]
#define DET(x, y) det[(x) * (C + 2) + (y)]
#define HARRIS(x, y) harris[((x) - 2) * (C - 2) + (y) - 2]

static void harris_corner(int R, int C, const float *img, float *Iy, float *Ix, float *Iyy,
                          float *Ixy, float *Ixx, float *Syy, float *Sxy, float *Sxx,
                          float *trace, float *det, float *harris)
{
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(1:R, 1:C) with (x, y) \
    read img {(x-1,y-1), (x-1,y+1), (x,y-1), (x,y+1), (x+1,y-1), (x+1,y+1)}, \
    write Iy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        IY(x, y) = IMG(x - 1, y - 1) * -0.0833333333333f + IMG(x - 1, y + 1) * 0.0833333333333f
                 + IMG(x, y - 1) * -0.166666666667f + IMG(x, y + 1) * 0.166666666667f
                 + IMG(x + 1, y - 1) * -0.0833333333333f + IMG(x + 1, y + 1) * 0.0833333333333f;

#pragma omplc for domain(1:R, 1:C) with (x, y) \
    read img {(x-1,y-1), (x+1,y-1), (x-1,y), (x+1,y), (x-1,y+1), (x+1,y+1)}, \
    write Ix {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        IX(x, y) = IMG(x - 1, y - 1) * -0.0833333333333f + IMG(x + 1, y - 1) * 0.0833333333333f
                 + IMG(x - 1, y) * -0.166666666667f + IMG(x + 1, y) * 0.166666666667f
                 + IMG(x - 1, y + 1) * -0.0833333333333f + IMG(x + 1, y + 1) * 0.0833333333333f;

#pragma omplc for domain(1:R, 1:C) with (x, y) read Iy {(x,y)}, write Iyy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        IYY(x, y) = IY(x, y) * IY(x, y);

#pragma omplc for domain(1:R, 1:C) with (x, y) read Ix {(x,y)}, read Iy {(x,y)}, \
    write Ixy {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        IXY(x, y) = IX(x, y) * IY(x, y);

#pragma omplc for domain(1:R, 1:C) with (x, y) read Ix {(x,y)}, write Ixx {(x,y)}
    for (int x = 1; x <= R; x++)
      for (int y = 1; y <= C; y++)
        IXX(x, y) = IX(x, y) * IX(x, y);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Iyy {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Syy {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        SYY(x, y) = IYY(x - 1, y - 1) + IYY(x - 1, y) + IYY(x - 1, y + 1)
                  + IYY(x, y - 1) + IYY(x, y) + IYY(x, y + 1)
                  + IYY(x + 1, y - 1) + IYY(x + 1, y) + IYY(x + 1, y + 1);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Ixy {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Sxy {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        SXY(x, y) = IXY(x - 1, y - 1) + IXY(x - 1, y) + IXY(x - 1, y + 1)
                  + IXY(x, y - 1) + IXY(x, y) + IXY(x, y + 1)
                  + IXY(x + 1, y - 1) + IXY(x + 1, y) + IXY(x + 1, y + 1);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Ixx {(x-1,y-1), (x-1,y), (x-1,y+1), (x,y-1), (x,y), (x,y+1), \
              (x+1,y-1), (x+1,y), (x+1,y+1)}, \
    write Sxx {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        SXX(x, y) = IXX(x - 1, y - 1) + IXX(x - 1, y) + IXX(x - 1, y + 1)
                  + IXX(x, y - 1) + IXX(x, y) + IXX(x, y + 1)
                  + IXX(x + 1, y - 1) + IXX(x + 1, y) + IXX(x + 1, y + 1);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) read Sxx {(x,y)}, read Syy {(x,y)}, \
    write trace {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        TRACE(x, y) = SXX(x, y) + SYY(x, y);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) \
    read Sxx {(x,y)}, read Syy {(x,y)}, read Sxy {(x,y)}, write det {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        DET(x, y) = SXX(x, y) * SYY(x, y) - SXY(x, y) * SXY(x, y);

#pragma omplc for domain(2:R-1, 2:C-1) with (x, y) read det {(x,y)}, read trace {(x,y)}, \
    write harris {(x,y)}
    for (int x = 2; x <= R - 1; x++)
      for (int y = 2; y <= C - 1; y++)
        HARRIS(x, y) = DET(x, y) - (0.04f * TRACE(x, y)) * TRACE(x, y);
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
      IMG(x, y) = (float)bench_u8(o.seed, 0, x, y) / 255.0f;

  for (int r = 0; r < o.reps; r++) {
    double t0 = bench_now_ms();
    harris_corner(R, C, img, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                  harris);
    t[r] = bench_now_ms() - t0;
  }

  bench_header(&o, "harris", "img[x][y] = u8(0,x,y)/255 on the (R+2)x(C+2) array");
  char shape[64];
  snprintf(shape, sizeof shape, "[%d][%d] (harris[2..R-1][2..C-1])", R - 2, C - 2);
  if (R > 12 && C > 22) printf("sample harris[12][22]: %.9g\n", HARRIS(12, 22));
  bench_output(&o, "harris", 'f', harris, (size_t)(R - 2) * (C - 2), shape);
  bench_report_time(&o, t);
  free(img);
  for (int i = 0; i < 10; i++) free(a[i]);
  free(harris);
  return 0;
}
