/* overlap_groups_load_2d.c -- overlap_groups_load_one_array.c in two
 * dimensions: two overlapped groups of 5-point stencils that both load
 * planes of 'R' from before them, split by a fold into 'S'. With one load
 * name for both groups, the second group's loads went to the first group's
 * scratchpad rows, under --rectangle and --scalene alike, with and without
 * --overlap-dims (where the classically tiled loop's scratchpads also
 * slide, and slides were named per array in the same way).
 *
 * flextile-test: args: 3 | 9 | 23 | 40
 * flextile-test: options: --rectangle --overlap-dims 0 --tile-sizes 4,8 | --scalene --overlap-dims 0 --tile-sizes 4,8 | --rectangle --tile-sizes 4,8 | --scalene | default
 */

#include <stdio.h>
#include <stdlib.h>
static double R[5][40][40];
static double S[7];
static void kernel(int N)
{
#pragma scop
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[0][0][i] * 0.125;
    for (int j = 1; j < N - 1; j++)
        for (int i = 1; i < N - 1; i++)
            R[1][j][i] = R[0][j - 1][i] + R[0][j + 1][i] + R[0][j][i - 1] + R[0][j][i + 1] - S[(i + 3) % 7];
    for (int j = 1; j < N - 1; j++)
        for (int i = 1; i < N - 1; i++)
            R[2][j][i] = R[1][j - 1][i] + R[1][j + 1][i] + R[1][j][i - 1] + R[1][j][i + 1] + S[i % 7];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[2][1][i] * 0.125;
    for (int j = 1; j < N - 1; j++)
        for (int i = 1; i < N - 1; i++)
            R[3][j][i] = R[2][j - 1][i] + R[2][j + 1][i] + R[2][j][i - 1] + R[2][j][i + 1] - S[(i + 3) % 7];
    for (int j = 1; j < N - 1; j++)
        for (int i = 1; i < N - 1; i++)
            R[4][j][i] = R[3][j - 1][i] + R[3][j + 1][i] + R[3][j][i - 1] + R[3][j][i + 1] + S[i % 7];
#pragma endscop
}
int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 9;
    if (N < 3 || N > 40) return 1;
    for (int j = 0; j < 40; j++) for (int i = 0; i < 40; i++) R[0][j][i] = (double)((i * 37 + j * 11) % 13) / 8.0;
    for (int k = 0; k < 7; k++) S[k] = (double)k / 4.0;
    kernel(N);
    double sum = 0.0;
    for (int k = 0; k < 5; k++) for (int j = 0; j < N; j++) for (int i = 0; i < N; i++) sum += R[k][j][i] * (double)(k % 5 + 1 + j);
    printf("%.17g %.17g\n", sum, S[3]);
    return 0;
}
