/* int_bounds_near_limits.c -- Loops whose run-time bounds lie near INT_MAX
 * and INT_MIN, where the original program's arithmetic never overflows
 * (issue 54, class 5). Tiled and overlapped loops compute values past the
 * user's (a tile loop's last `c += 32`, bounds such as `hi + 7` or `-lo`):
 * in `int` they overflow, and the sanitised build of every output (UBSan's
 * signed-overflow check) and the outputs themselves show it. The generated
 * loops run under a run-time guard on the parameters (the original code
 * where they lie past the range that fits); near 0 they are transformed.
 *
 * A scop of two stages (a blur, then a difference), a 2-D scop whose rows
 * are numbered from r0, and a loop chain of two stages.
 *
 * flextile-test: args: 0 100 | 2147483547 2147483647 | -2147483648 -2147483548 | 2147483600 2147483647 | -2147483648 -2147483630 | 1000 1003 | 5 6
 * flextile-test: options: default | --tile | --tile --tile-sizes 8,8 | --tile --tile-sizes 5,3 | --rectangle --tile-sizes 8,8 | --scalene --tile-sizes 4,8 | --rectangle | --scalene | --rectangle --tile-sizes 16,4
 */
#include <stdio.h>
#include <stdlib.h>

static void blur(int lo, int hi, const double *in, double *mid, double *out)
{
#pragma scop
    for (int i = lo + 1; i < hi - 1; i++)
        mid[i - lo] = (in[i - lo - 1] + 2.0 * in[i - lo] + in[i - lo + 1]) * 0.25;
    for (int i = lo + 2; i < hi - 2; i++)
        out[i - lo] = mid[i - lo] - 0.5 * (mid[i - lo - 1] + mid[i - lo + 1]);
#pragma endscop
}

static void rows(int r0, int r1, int w, double g[][8], double h[][8])
{
#pragma scop
    for (int r = r0 + 1; r < r1 - 1; r++)
        for (int j = 1; j < w - 1; j++)
            h[r - r0][j] = g[r - r0 - 1][j] + g[r - r0 + 1][j] - g[r - r0][j - 1] * 0.5 + g[r - r0][j + 1];
#pragma endscop
}

static void chain(int lo, int hi, const double *in, double *t, double *out)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(lo+1:hi-2) with (i) write t{(i-lo)}, read in{(i-lo-1),(i-lo),(i-lo+1)}
        for (int i = lo + 1; i < hi - 1; i++)
            t[i - lo] = in[i - lo - 1] - in[i - lo + 1];
#pragma omplc for domain(lo+2:hi-3) with (i) write out{(i-lo)}, read t{(i-lo-1),(i-lo),(i-lo+1)}
        for (int i = lo + 2; i < hi - 2; i++)
            out[i - lo] = t[i - lo - 1] + t[i - lo] * 3.0 + t[i - lo + 1];
    }
}

int main(int argc, char **argv)
{
    int lo = argc > 1 ? atoi(argv[1]) : 0;
    int hi = argc > 2 ? atoi(argv[2]) : 100;
    int n = hi - lo;
    double *in = calloc(n + 1, sizeof *in), *mid = calloc(n + 1, sizeof *mid);
    double *out = calloc(n + 1, sizeof *out), *t = calloc(n + 1, sizeof *t);
    double (*g)[8] = calloc(n + 1, sizeof *g), (*h)[8] = calloc(n + 1, sizeof *h);
    if (!in || !mid || !out || !t || !g || !h)
        return 1;
    for (int k = 0; k < n; k++) {
        in[k] = (double)((k * 37) % 101) / 8.0;
        for (int j = 0; j < 8; j++)
            g[k][j] = (double)((k * 11 + j * 5) % 23) / 4.0;
    }
    blur(lo, hi, in, mid, out);
    for (int k = 0; k < n; k++)
        printf("blur %d %.17g %.17g\n", k, mid[k], out[k]);
    rows(lo, hi, 8, g, h);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < 8; j++)
            printf("rows %d %d %.17g\n", k, j, h[k][j]);
    chain(lo, hi, in, t, out);
    for (int k = 0; k < n; k++)
        printf("chain %d %.17g %.17g\n", k, t[k], out[k]);
    free(in); free(mid); free(out); free(t); free(g); free(h);
    return 0;
}
