/* long_sequence.c -- a region of 159 nests and statements in one
 * sequence: more than the 128 children past which flextile cuts a root
 * sequence into parts for isl's schedule map and code generator
 * (model/sequence.rs). Rows of R pass from nest to nest; some nests read
 * the previous row's neighbours, some fold a row's first seven elements
 * into the small array S, and one nest never runs, so the cut's positions skip a
 * child with no instances. Before the cut, a region of 10,000 nests spent
 * half of its 48 s in isl's quadratic work on the sequence.
 *
 * flextile-test: args: 1 | 40
 * flextile-test: options: default | --tile --no-openmp | --rectangle --no-openmp | --scalene --no-openmp
 */

#include <stdio.h>
#include <stdlib.h>

#define ROWS 81

static void kernel(int N, double R[ROWS][64], double S[7])
{
#pragma scop
    for (int i = 0; i < N; i++)
        R[1][i] = R[0][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[2][i] = (R[1][i - 1] + R[1][i + 1]) * 0.25;
    R[2][0] = R[1][0];
    R[2][N - 1] = R[1][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[2][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[3][i] = R[2][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[4][i] = R[3][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[5][i] = (R[4][i - 1] + R[4][i + 1]) * 0.25;
    R[5][0] = R[4][0];
    R[5][N - 1] = R[4][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[5][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[6][i] = R[5][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[7][i] = R[6][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[8][i] = (R[7][i - 1] + R[7][i + 1]) * 0.25;
    R[8][0] = R[7][0];
    R[8][N - 1] = R[7][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[8][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[9][i] = R[8][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[10][i] = R[9][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[11][i] = (R[10][i - 1] + R[10][i + 1]) * 0.25;
    R[11][0] = R[10][0];
    R[11][N - 1] = R[10][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[11][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[12][i] = R[11][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[13][i] = R[12][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[14][i] = (R[13][i - 1] + R[13][i + 1]) * 0.25;
    R[14][0] = R[13][0];
    R[14][N - 1] = R[13][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[14][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[15][i] = R[14][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[16][i] = R[15][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[17][i] = (R[16][i - 1] + R[16][i + 1]) * 0.25;
    R[17][0] = R[16][0];
    R[17][N - 1] = R[16][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[17][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[18][i] = R[17][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[19][i] = R[18][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[20][i] = (R[19][i - 1] + R[19][i + 1]) * 0.25;
    R[20][0] = R[19][0];
    R[20][N - 1] = R[19][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[20][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[21][i] = R[20][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[22][i] = R[21][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[23][i] = (R[22][i - 1] + R[22][i + 1]) * 0.25;
    R[23][0] = R[22][0];
    R[23][N - 1] = R[22][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[23][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[24][i] = R[23][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[25][i] = R[24][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[26][i] = (R[25][i - 1] + R[25][i + 1]) * 0.25;
    R[26][0] = R[25][0];
    R[26][N - 1] = R[25][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[26][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[27][i] = R[26][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[28][i] = R[27][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[29][i] = (R[28][i - 1] + R[28][i + 1]) * 0.25;
    R[29][0] = R[28][0];
    R[29][N - 1] = R[28][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[29][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[30][i] = R[29][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[31][i] = R[30][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[32][i] = (R[31][i - 1] + R[31][i + 1]) * 0.25;
    R[32][0] = R[31][0];
    R[32][N - 1] = R[31][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[32][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[33][i] = R[32][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[34][i] = R[33][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[35][i] = (R[34][i - 1] + R[34][i + 1]) * 0.25;
    R[35][0] = R[34][0];
    R[35][N - 1] = R[34][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[35][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[36][i] = R[35][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[37][i] = R[36][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[38][i] = (R[37][i - 1] + R[37][i + 1]) * 0.25;
    R[38][0] = R[37][0];
    R[38][N - 1] = R[37][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[38][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[39][i] = R[38][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[40][i] = R[39][i] * 0.5 + S[i % 7];
    for (int i = 0; i < 0; i++)
        R[41][i] = 1.0;  /* never runs */
    for (int i = 0; i < N; i++)
        R[41][i] = R[40][i];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[41][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[42][i] = R[41][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[43][i] = R[42][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[44][i] = (R[43][i - 1] + R[43][i + 1]) * 0.25;
    R[44][0] = R[43][0];
    R[44][N - 1] = R[43][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[44][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[45][i] = R[44][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[46][i] = R[45][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[47][i] = (R[46][i - 1] + R[46][i + 1]) * 0.25;
    R[47][0] = R[46][0];
    R[47][N - 1] = R[46][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[47][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[48][i] = R[47][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[49][i] = R[48][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[50][i] = (R[49][i - 1] + R[49][i + 1]) * 0.25;
    R[50][0] = R[49][0];
    R[50][N - 1] = R[49][N - 1];
    for (int i = 0; i < 0; i++)
        R[51][i] = 1.0;  /* never runs */
    for (int i = 0; i < N; i++)
        R[51][i] = R[50][i];
    for (int i = 0; i < N; i++)
        R[52][i] = R[51][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[53][i] = (R[52][i - 1] + R[52][i + 1]) * 0.25;
    R[53][0] = R[52][0];
    R[53][N - 1] = R[52][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[53][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[54][i] = R[53][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[55][i] = R[54][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[56][i] = (R[55][i - 1] + R[55][i + 1]) * 0.25;
    R[56][0] = R[55][0];
    R[56][N - 1] = R[55][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[56][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[57][i] = R[56][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[58][i] = R[57][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[59][i] = (R[58][i - 1] + R[58][i + 1]) * 0.25;
    R[59][0] = R[58][0];
    R[59][N - 1] = R[58][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[59][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[60][i] = R[59][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[61][i] = R[60][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[62][i] = (R[61][i - 1] + R[61][i + 1]) * 0.25;
    R[62][0] = R[61][0];
    R[62][N - 1] = R[61][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[62][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[63][i] = R[62][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[64][i] = R[63][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[65][i] = (R[64][i - 1] + R[64][i + 1]) * 0.25;
    R[65][0] = R[64][0];
    R[65][N - 1] = R[64][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[65][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[66][i] = R[65][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[67][i] = R[66][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[68][i] = (R[67][i - 1] + R[67][i + 1]) * 0.25;
    R[68][0] = R[67][0];
    R[68][N - 1] = R[67][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[68][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[69][i] = R[68][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[70][i] = R[69][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[71][i] = (R[70][i - 1] + R[70][i + 1]) * 0.25;
    R[71][0] = R[70][0];
    R[71][N - 1] = R[70][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[71][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[72][i] = R[71][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[73][i] = R[72][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[74][i] = (R[73][i - 1] + R[73][i + 1]) * 0.25;
    R[74][0] = R[73][0];
    R[74][N - 1] = R[73][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[74][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[75][i] = R[74][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[76][i] = R[75][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[77][i] = (R[76][i - 1] + R[76][i + 1]) * 0.25;
    R[77][0] = R[76][0];
    R[77][N - 1] = R[76][N - 1];
    for (int i = 0; i < 7; i++)
        S[i] = S[i] * 0.75 + R[77][i] * 0.125;
    for (int i = 0; i < N; i++)
        R[78][i] = R[77][i] - S[(i + 3) % 7];
    for (int i = 0; i < N; i++)
        R[79][i] = R[78][i] * 0.5 + S[i % 7];
    for (int i = 1; i < N - 1; i++)
        R[80][i] = (R[79][i - 1] + R[79][i + 1]) * 0.25;
    R[80][0] = R[79][0];
    R[80][N - 1] = R[79][N - 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 9;
    if (N < 1 || N > 64)
        return 1;
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
