/* size_t_macro_bound.c -- A loop whose iterator is 64-bit unsigned
 * (size_t) and whose bound uses an object-like macro read as a parameter
 * (MARGIN). flextile exited 2 ("internal error: isl: [Invalid] numerator too
 * large"): the wrap check (issue 54, class 1) did not know the macro's
 * value, and its run-time guard held a constant past `long long`. Found by
 * tools/difftest (gen.py iterator_types_style) in legacy-spelling scops.
 *
 * flextile-test: args: 5 | 1 | 30
 * flextile-test: options: default | --tile | --tile --tile-sizes 7 | --rectangle | --scalene | --rectangle --tile-sizes 4
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#define MARGIN 8

static void kernel(int N, double *B)
{
    size_t j;
#pragma scop
    for (j = 8; j < N + MARGIN; ++j)
        B[j] = 0.5 * B[j - 1] + 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 5;
    if (N < 1)
        return 1;
    double *B = malloc(sizeof(double) * (N + 16));
    if (!B)
        return 1;
    for (int k = 0; k < N + 16; k++)
        B[k] = k * 0.25;
    kernel(N, B);
    for (int k = 0; k < N + 16; k++)
        printf("B[%d] = %.17g\n", k, B[k]);
    free(B);
    return 0;
}
