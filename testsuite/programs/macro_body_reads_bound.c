/* macro_body_reads_bound.c -- a stage macro whose body assigns (an inner
 * accumulation loop) and reads the size K that a later nest's bound uses
 * (issue 17, false refusals found by the random tester).
 *
 * libclang 14 cannot read the operators of a macro body; flextile used to
 * take every operand of such an operator as possibly assigned, so 'K' in
 * 'q < K+2' counted as written by the chain, and the final values of 'j' and
 * 'k' (read after the chain) were refused because their loop bound reads K.
 * Now a variable spelled in a macro body counts as assigned only where the
 * body may assign it ('K = ...', 'K++', passed to a macro, ...).
 *
 *   ROWSUM:   E[i][j] = running average of C[i][j][0..K+1] (the macro);
 *   scale:    B[i][j][k] = C[i][j][k] / 2 + E[i][j] for k < K;
 * main prints E, B and the final values of i, j and k.
 *
 * flextile-test: args: 6 5 4 | 1 1 1 | 9 3 7 | 2 8 1
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 2,3,2 | --assume "K >= 1" | --rectangle | --scalene --tile-sizes 2,3,2
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 */
#include <stdio.h>
#include <stdlib.h>

#define DATA_TYPE double
#define SCALAR_VAL(x) x

#define ROWSUM(p, r) \
    do { \
        DATA_TYPE acc = SCALAR_VAL(0.0); \
        for (int q = 0; q < K+2; q++) \
            acc = SCALAR_VAL(0.5) * acc + SCALAR_VAL(0.5) * C[(p)][(r)][q]; \
        E[(p)][(r)] = acc; \
    } while (0)

static int arg_int(int argc, char **argv, int k, int def)
{
    int v = argc > k ? atoi(argv[k]) : def;
    return v < 1 ? 1 : v;
}

static int final_i, final_j, final_k;

static void kernel(int N, int M, int K, double C[restrict N][M][K+2], double E[restrict N][M], double B[restrict N][M][K])
{
    int i, j, k;
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1, 0:M-1) with (i, j) read C {(i,j,*)}, write E {(i,j)}
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                ROWSUM(i, j);
#pragma omplc for domain(0:N-1, 0:M-1, 0:K-1) with (i, j, k) read C {(i,j,k)}, read E {(i,j)}, write B {(i,j,k)}
        for (i = 0; i < N; i++)
            for (j = 0; j < M; j++)
                for (k = 0; k < K; k++)
                    B[i][j][k] = C[i][j][k] / SCALAR_VAL(2.0) + E[i][j];
    }
    final_i = i;
    final_j = j;
    final_k = k;
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 6), M = arg_int(argc, argv, 2, 5), K = arg_int(argc, argv, 3, 4);
    double (*C)[M][K+2] = malloc(sizeof(double) * (size_t)N * (size_t)M * (size_t)(K+2));
    double (*B)[M][K] = malloc(sizeof(double) * (size_t)N * (size_t)M * (size_t)K);
    double (*E)[M] = malloc(sizeof(double) * (size_t)N * (size_t)M);
    if (!C || !B || !E)
        return 1;
    for (int a = 0; a < N; a++)
        for (int b = 0; b < M; b++) {
            E[a][b] = -1.0;
            for (int c = 0; c < K+2; c++)
                C[a][b][c] = (double)((a * 7 + b * 3 + c * 5) % 11) / 8.0;
            for (int c = 0; c < K; c++)
                B[a][b][c] = -2.0;
        }
    kernel(N, M, K, C, E, B);
    for (int a = 0; a < N; a++)
        for (int b = 0; b < M; b++) {
            printf("E[%d][%d] = %.17g\n", a, b, E[a][b]);
            for (int c = 0; c < K; c++)
                printf("B[%d][%d][%d] = %.17g\n", a, b, c, B[a][b][c]);
        }
    printf("i = %d, j = %d, k = %d\n", final_i, final_j, final_k);
    free(C);
    free(B);
    free(E);
    return 0;
}
