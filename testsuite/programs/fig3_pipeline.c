/* fig3_pipeline.c -- the simple image-processing pipeline of the overlapped
 * tiling paper (Zhao & Cohen, Fig. 3): A pointwise, B a 3-point stencil of A,
 * C a wide 3-point stencil of B (offsets -2, 0, +2).
 *   A: 1 <= i <= N-1, B: 2 <= i <= N-2, C: 4 <= i <= N-4.
 * Its overlapped tiles are the paper's Fig. 13 (scalene: A expanded by 3 on
 * each side, B by 2) and Fig. 14 (rectangle: A expanded by 6 on the left,
 * B by 4). Output: A, B and C in full, as hexadecimal floating point.
 *
 * flextile-test: args: 100 | 5 | 33 | 1 | 9 | 200
 * flextile-test: options: default | --tile | --tile --tile-sizes 7 | --rectangle | --scalene | --rectangle --tile-sizes 8 | --scalene --tile-sizes 7 | --rectangle --tile-sizes 64 | --scalene --tile-sizes 3 | --rectangle --tile-sizes 32 --overlap-tolerance 0.15 | --scalene --tile-sizes 8 --overlap-tolerance 0.3 | --rectangle --point-chunk 0 | --rectangle --tile-sizes 16 --point-chunk 3 | --rectangle --grouping none | --scalene --tile-sizes 8 --grouping none
 */
#include <stdio.h>
#include <stdlib.h>


int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 100;
    double *A = calloc(N + 8, sizeof(double));
    double *B = calloc(N + 8, sizeof(double));
    double *C = calloc(N + 8, sizeof(double));
    if (!A || !B || !C)
        return 1;

#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-1) with (i) write A {(i)}
        for (int i = 1; i <= N - 1; i++)
            A[i] = 0.5 * i + 1.0 / (i + 1);
#pragma omplc for domain(2:N-2) with (i) read A {(i-1),(i),(i+1)} write B {(i)}
        for (int i = 2; i <= N - 2; i++)
            B[i] = 0.25 * (A[i-1] + 2 * A[i] + A[i+1]);
#pragma omplc for domain(4:N-4) with (i) read B {(i-2),(i),(i+2)} write C {(i)}
        for (int i = 4; i <= N - 4; i++)
            C[i] = 0.25 * (B[i-2] + 2 * B[i] + B[i+2]);
    }

    for (int i = 0; i < N + 8; i++)
        printf("%d %a %a %a\n", i, A[i], B[i], C[i]);
    free(A);
    free(B);
    free(C);
    return 0;
}
