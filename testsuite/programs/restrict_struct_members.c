/* restrict_struct_members.c -- A loop chain over two member arrays of a
 * struct reached through a `restrict` pointer (issue 54, class 6).
 * `Grid *restrict g` promises nothing of the pointers stored in `*g`: here
 * `g->ex` and `g->hy` point into one buffer, one element apart, so a
 * parallel or fused schedule that takes them for distinct arrays reads
 * values the original had not written yet. flextile cannot bound the
 * addresses of a chain's logical data sets for a run-time check, so it
 * leaves the region as written, with a warning, under every option set.
 * The second chain's arrays are parameters (`double *restrict`): that
 * promise holds, and the region is transformed.
 *
 * flextile-test: args: 64 | 5 | 2 | 1 | 97
 * flextile-test: options: default | --tile | --rectangle --tile-sizes 8 | --scalene --tile-sizes 4
 * flextile-test: falls-back: --no-openmp | --rectangle | --scalene
 * flextile-test: fallback-warning: 'ex' and 'hy' may overlap in memory
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int n;
    double *ex;
    double *hy;
} Grid;

static void step(Grid *restrict g)
{
    int n = g->n;
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:n-1) with (i) write ex{(i)}, read ex{(i)}, read hy{(i),(i-1)}
        for (int i = 1; i < n; i++)
            g->ex[i] = g->ex[i] + 0.5 * (g->hy[i] - g->hy[i - 1]);
#pragma omplc for domain(0:n-2) with (i) write hy{(i)}, read hy{(i)}, read ex{(i+1),(i)}
        for (int i = 0; i < n - 1; i++)
            g->hy[i] = g->hy[i] + 0.25 * (g->ex[i + 1] - g->ex[i]);
    }
}

static void plain(int n, double *restrict u, double *restrict v)
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(1:n-2) with (i) write v{(i)}, read u{(i-1),(i),(i+1)}
        for (int i = 1; i < n - 1; i++)
            v[i] = u[i - 1] + u[i + 1] - 0.5 * u[i];
#pragma omplc for domain(1:n-2) with (i) write u{(i)}, read v{(i)}
        for (int i = 1; i < n - 1; i++)
            u[i] = v[i] * 0.75;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    if (n < 1)
        return 1;
    double *buf = calloc(n + 2, sizeof *buf);
    double *u = calloc(n, sizeof *u), *v = calloc(n, sizeof *v);
    if (!buf || !u || !v)
        return 1;
    for (int k = 0; k < n + 2; k++)
        buf[k] = (double)((k * 7) % 13) / 8.0;
    for (int k = 0; k < n; k++)
        u[k] = (double)((k * 5) % 11) / 4.0;
    Grid g = {n, buf, buf + 1};
    for (int t = 0; t < 3; t++)
        step(&g);
    for (int k = 0; k < n + 2; k++)
        printf("buf[%d] = %.17g\n", k, buf[k]);
    plain(n, u, v);
    for (int k = 0; k < n; k++)
        printf("u[%d] = %.17g v[%d] = %.17g\n", k, u[k], k, v[k]);
    free(buf);
    free(u);
    free(v);
    return 0;
}
