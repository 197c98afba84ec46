/* polybench_const_stencils.c -- PolyBench-style time-iterated stencils whose
 * sizes are constants (`#define N 30`, bounds through `_PB_N`) smaller than a
 * default overlapped tile.
 *
 * jacobi-1d (A -> B -> A per step), jacobi-2d (5-point, A -> B -> A) and
 * heat-3d (7-point, A -> B -> A), as PolyBench/C 4.2 writes them (DATA_TYPE,
 * SCALAR_VAL, array parameters with constant extents, `_PB_` bound macros).
 * With constant bounds a whole domain fits one tile, so isl splits one tile's
 * body into several guarded copies per group; a tile's scratchpads must still
 * be declared once per tile for every group (a regression: each copy declared
 * its own, and jacobi-1d under --scalene read uninitialised scratchpads).
 * Exercises: regions without symbolic parameters, time blocks and overlapped
 * tiles that span the whole domain, several storage groups in one tile body.
 * Output: every array in full.
 *
 * flextile-test: args: default
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 2,16 | --scalene --tile-sizes 3,5 --no-openmp
 */
#include <stdio.h>

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define TSTEPS 8
#define N1 30
#define N2 12
#define N3 8
#define _PB_TSTEPS TSTEPS
#define _PB_N1 N1
#define _PB_N2 N2
#define _PB_N3 N3

static void jacobi_1d(DATA_TYPE A[N1], DATA_TYPE B[N1])
{
    int t, i;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N1 - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < _PB_N1 - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
#pragma endscop
}

static void jacobi_2d(DATA_TYPE A[N2][N2], DATA_TYPE B[N2][N2])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N2 - 1; i++)
            for (j = 1; j < _PB_N2 - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < _PB_N2 - 1; i++)
            for (j = 1; j < _PB_N2 - 1; j++)
                A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
#pragma endscop
}

static void heat_3d(DATA_TYPE A[N3][N3][N3], DATA_TYPE B[N3][N3][N3])
{
    int t, i, j, k;
#pragma scop
    for (t = 1; t <= TSTEPS; t++) {
        for (i = 1; i < _PB_N3 - 1; i++)
            for (j = 1; j < _PB_N3 - 1; j++)
                for (k = 1; k < _PB_N3 - 1; k++)
                    B[i][j][k] = SCALAR_VAL(0.125) * (A[i + 1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i - 1][j][k])
                               + SCALAR_VAL(0.125) * (A[i][j + 1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j - 1][k])
                               + SCALAR_VAL(0.125) * (A[i][j][k + 1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k - 1])
                               + A[i][j][k];
        for (i = 1; i < _PB_N3 - 1; i++)
            for (j = 1; j < _PB_N3 - 1; j++)
                for (k = 1; k < _PB_N3 - 1; k++)
                    A[i][j][k] = SCALAR_VAL(0.125) * (B[i + 1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i - 1][j][k])
                               + SCALAR_VAL(0.125) * (B[i][j + 1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j - 1][k])
                               + SCALAR_VAL(0.125) * (B[i][j][k + 1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k - 1])
                               + B[i][j][k];
    }
#pragma endscop
}

static DATA_TYPE A1[N1], B1[N1], A2[N2][N2], B2[N2][N2], A3[N3][N3][N3], B3[N3][N3][N3];

int main(void)
{
    for (int i = 0; i < N1; i++) {
        A1[i] = (DATA_TYPE)((i * 7) % 31) / 31.0;
        B1[i] = (DATA_TYPE)((i * 3) % 17) / 17.0;
    }
    for (int i = 0; i < N2; i++)
        for (int j = 0; j < N2; j++) {
            A2[i][j] = (DATA_TYPE)((i * 5 + j * 3) % 29) / 29.0;
            B2[i][j] = (DATA_TYPE)((i + j * 11) % 13) / 13.0;
        }
    for (int i = 0; i < N3; i++)
        for (int j = 0; j < N3; j++)
            for (int k = 0; k < N3; k++) {
                A3[i][j][k] = (DATA_TYPE)((i * 5 + j * 3 + k * 7) % 23) / 23.0;
                B3[i][j][k] = (DATA_TYPE)((i + j + k * 2) % 11) / 11.0;
            }
    jacobi_1d(A1, B1);
    jacobi_2d(A2, B2);
    heat_3d(A3, B3);
    for (int i = 0; i < N1; i++)
        printf("A1 %d %.17g %.17g\n", i, A1[i], B1[i]);
    for (int i = 0; i < N2; i++)
        for (int j = 0; j < N2; j++)
            printf("A2 %d %d %.17g %.17g\n", i, j, A2[i][j], B2[i][j]);
    for (int i = 0; i < N3; i++)
        for (int j = 0; j < N3; j++)
            for (int k = 0; k < N3; k++)
                printf("A3 %d %d %d %.17g %.17g\n", i, j, k, A3[i][j][k], B3[i][j][k]);
    return 0;
}
