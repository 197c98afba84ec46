/* chain_linearised_constant_width.c -- a loop chain over 1-D arrays indexed
 * with a constant row width (`#define W 24`): the bodies read `B[i*W + j]`,
 * and the pragmas declare exactly that (`{(i*W+j), ((i-1)*W+j), ...}`).
 * Issue 54 class 3: such truthful declarations were refused as non-affine
 * ("non-affine index expression '((i * W) + j)'"); with the macro's value the
 * indices are affine, and the declarations are checked against the bodies
 * like any other.
 * Nest 1: a 5-point stencil of B into A over the interior rows 1..H-2.
 * Nest 2: A back into B, scaled, over the whole grid but the first row.
 * Exercises: declarations with products of an iterator and a macro, the
 * check of declared against performed accesses through the macro's value,
 * the row count H from the command line (H smaller than a tile, H = 2: an
 * empty first nest).
 * Output: A and B in full.
 *
 * flextile-test: args: 40 | 2 | 7 | 100
 * flextile-test: options: default | --tile | --tile --tile-sizes 8,8 | --rectangle | --scalene --tile-sizes 4,8 | --no-openmp
 */
#include <stdio.h>
#include <stdlib.h>

#define W 24

static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

static void kernel(int H, double *A, double *B)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:H-2, 1:W-2) with (i, j) read B {(i*W+j),(i*W+j-1),(i*W+j+1),((i-1)*W+j),((i+1)*W+j)}, write A {(i*W+j)}
        for (int i = 1; i <= H - 2; i++)
            for (int j = 1; j <= W - 2; j++)
                A[i*W + j] = (B[i*W + j] + B[i*W + j - 1] + B[i*W + j + 1]
                              + B[(i-1)*W + j] + B[(i+1)*W + j]) * 0.2;
#pragma omplc for domain(1:H-1, 0:W-1) with (i, j) read A {(i*W+j)}, write B {(i*W+j)}
        for (int i = 1; i <= H - 1; i++)
            for (int j = 0; j <= W - 1; j++)
                B[i*W + j] = A[i*W + j] * 0.5;
    }
}

int main(int argc, char **argv)
{
    int H = argc > 1 ? atoi(argv[1]) : 40;
    double *A = malloc(sizeof(double) * H * W), *B = malloc(sizeof(double) * H * W);
    for (int k = 0; k < H * W; k++) {
        A[k] = next_value();
        B[k] = next_value();
    }
    kernel(H, A, B);
    for (int k = 0; k < H * W; k++)
        printf("%d %.17g %.17g\n", k, A[k], B[k]);
    free(A);
    free(B);
    return 0;
}
