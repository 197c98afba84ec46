/* gather_clamp_macros.c -- clamped neighbour reads spelled with function-like
 * clamp macros nested in each other's arguments (the form of image pipelines'
 * boundary handling), which printed an empty subscript '(long long)()' in the
 * CUDA output: a node all of whose tokens a macro nested in another's
 * argument supplies had an empty extent.
 *
 *   B[j][i] = max(A[j][min(max(i - 1, 0), W - 1)], A[j][i])   (nested in max's argument)
 *   C[j][i] = A[min(j + 1, H - 1)][CLAMP(i + 1, 0, W - 1)]     (a macro of macros)
 *   D[j][i] = A[j][min(max(K[i], 0), W - 1)] + min(B[j][i], 2.0) (a gather through them)
 *   E[j][i] = max(max(A[max(j - 1, 0)][i], C[j][i]), D[j][i])   (nested twice)
 * Output: B, C, D, E in full.
 *
 * flextile-test: args: default | 7 9 | 1 1 | 3 17
 * flextile-test: options: default | --tile | --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 3,4
 */
#include <stdio.h>
#include <stdlib.h>

#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define CLAMP(x, lo, hi) min(max(x, lo), hi)

static void kernel(int H, int W, double (*restrict A)[W], int *restrict K,
                   double (*restrict B)[W], double (*restrict C)[W], double (*restrict D)[W],
                   double (*restrict E)[W])
{
#pragma scop
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            B[j][i] = max(A[j][min(max(i - 1, 0), W - 1)], A[j][i]);
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            C[j][i] = A[min(j + 1, H - 1)][CLAMP(i + 1, 0, W - 1)];
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            D[j][i] = A[j][min(max(K[i], 0), W - 1)] + min(B[j][i], 2.0);
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            E[j][i] = max(max(A[max(j - 1, 0)][i], C[j][i]), D[j][i]);
#pragma endscop
}

static void dump(const char *name, int H, int W, double (*X)[W])
{
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            printf("%s[%d][%d] = %.17g\n", name, j, i, X[j][i]);
}

int main(int argc, char **argv)
{
    int H = argc > 1 ? atoi(argv[1]) : 5;
    int W = argc > 2 ? atoi(argv[2]) : 6;
    if (H < 1 || W < 1)
        return 1;
    double (*A)[W] = malloc(sizeof(double) * H * W);
    double (*B)[W] = malloc(sizeof(double) * H * W);
    double (*C)[W] = malloc(sizeof(double) * H * W);
    double (*D)[W] = malloc(sizeof(double) * H * W);
    double (*E)[W] = malloc(sizeof(double) * H * W);
    int *K = malloc(sizeof(int) * W);
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            A[j][i] = (double)((13 * j + 7 * i * i) % 23) / 8.0;
    for (int i = 0; i < W; i++)
        K[i] = (5 * i + 3) % (W + 4) - 2;
    kernel(H, W, A, K, B, C, D, E);
    dump("B", H, W, B);
    dump("C", H, W, C);
    dump("D", H, W, D);
    dump("E", H, W, E);
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(K);
    return 0;
}
