/* pointer_rows.c -- A scop over `double **` arrays, indexed `a[i][j]`
 * through rows that are pointers (issue 54, class 6). The model takes the
 * rows of one pointer-to-pointer to be distinct memory; nothing checks it,
 * and a transformed region says so in a warning at the first access. Two
 * such arrays, even `restrict`, may share rows: their pair cannot be
 * bounded for the alias guard, so the second region is left as written
 * (`restrict` promises nothing of the pointers stored behind it).
 *
 * flextile-test: args: 20 9 | 3 2 | 1 1 | 33 17
 * flextile-test: options: --no-openmp
 * flextile-test: falls-back: default | --tile | --tile --tile-sizes 4,4 | --rectangle | --scalene --tile-sizes 4,8
 * flextile-test: fallback-warning: rows that are pointers
 */
#include <stdio.h>
#include <stdlib.h>

static void smooth(int n, int m, double **a)
{
#pragma scop
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = a[i - 1][j] * 0.5 + a[i][j] * 0.25;
#pragma endscop
}

static void copy(int n, int m, double **restrict a, double **restrict b)
{
#pragma scop
    for (int i = 0; i < n; i++)
        for (int j = 1; j < m; j++)
            b[i][j] = a[i][j] - a[i][j - 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int m = argc > 2 ? atoi(argv[2]) : 9;
    if (n < 1 || m < 1)
        return 1;
    double *store = calloc((size_t)n * m * 2, sizeof *store);
    double **a = malloc(n * sizeof *a), **b = malloc(n * sizeof *b);
    if (!store || !a || !b)
        return 1;
    for (int i = 0; i < n; i++) {
        a[i] = store + (size_t)(n - 1 - i) * m; /* rows in reverse order */
        b[i] = store + (size_t)(n + i) * m;
    }
    for (int k = 0; k < n * m * 2; k++)
        store[k] = (double)((k * 13) % 29) / 16.0;
    smooth(n, m, a);
    copy(n, m, a, b);
    for (int k = 0; k < n * m * 2; k++)
        printf("store[%d] = %.17g\n", k, store[k]);
    free(store);
    free(a);
    free(b);
    return 0;
}
