/* overlap_groups_load_one_array.c -- two overlapped groups in one region
 * that both load rows of 'R' from before them: the fold into 'S' between
 * them reads elements the groups do not write, so the nests form two
 * groups. Each group added a load statement named 'ft_load_R', the groups'
 * trees were joined in one schedule, and a statement's role is found by its
 * name: the second group's loads were printed with the first group's
 * scratchpad offsets, filling row 0 of its buffer while its statements read
 * row 2 (uninitialised: wrong sums, different from one run to the next
 * with threads). A group's statements are now named after its first stage.
 * Found while writing long_sequence_300.c.
 *
 * flextile-test: args: 1 | 2 | 3 | 9 | 40
 * flextile-test: options: --rectangle | --scalene | --rectangle --tile-sizes 4 | default
 */

#include <stdio.h>
#include <stdlib.h>
#define ROWS 5
static void kernel(int N, double R[ROWS][64], double S[7])
{
#pragma scop
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[0][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[1][i] = R[0][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[2][i] = R[1][i] * 0.5 + S[i % 7];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[2][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[3][i] = R[2][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[4][i] = R[3][i] * 0.5 + S[i % 7];
#pragma endscop
}
int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 9;
    static double R[ROWS][64];
    double S[7];
    for (int i = 0; i < 64; i++)
        R[0][i] = (double)((i * 37) % 11) / 8.0;
    for (int k = 0; k < 7; k++)
        S[k] = (double)k / 4.0;
    kernel(N, R, S);
    double sum = 0.0;
    for (int k = 0; k < ROWS; k++)
        for (int i = 0; i < N; i++)
            sum += R[k][i] * (double)(k % 5 + 1);
    printf("%.17g", sum);
    for (int k = 0; k < 7; k++)
        printf(" %.17g", S[k]);
    printf("\n");
    return 0;
}
