/* cuda_tile_channels.c -- image stencils over channels, planar and
 * interleaved, for classic tiles on CUDA (`--tile`: shared-memory copies of
 * arrays of any rank, dimensions read at constant subscripts, and loops of
 * a few iterations kept in each thread).
 *
 * nest 1 (planar, c outermost): B[c][i][j] = 5-point blur of A[c]        over 0..2 x 1..N-2 x 1..M-2
 * nest 2 (channels at constants): G[i][j] = 0.25*B[0][i][j-1] + 0.5*B[1][i][j] + 0.25*B[2][i][j+1]
 *                                                                         over 1..N-2 x 2..M-3
 * nest 3 (interleaved, c innermost): I[i][j][c] = w[c]*G[i-1][j] + G[i][j] + w[c]*G[i+1][j]
 *                                                                         over 2..N-3 x 2..M-3 x 0..2
 * nest 4 (1-D): S[j] = I[N/2][j][0] + I[N/2][j][2]                        over 2..M-3
 * Schedule: the scop's order; every nest is parallel, no fusion needed.
 * Exercises (CUDA --tile): a 3-D copy of A whose channel dimension is a
 * loop of three iterations with constant bounds (kept in each thread, the
 * two image loops over the block's threads); a copy of B whose channel
 * dimension is read at the constants 0, 1, 2; a 2-D copy of G in a nest
 * whose innermost loop runs three channels; a 1-D nest; tile sizes that do
 * not divide the image, sizes whose copies do not fit shared memory (no
 * copy), and three tile sizes (a third tile loop inside the block: no copy
 * along a loop whose bounds use it). N or M below 5 leave nests empty.
 * Output: every array in full (hashed runs when large).
 *
 * flextile-test: args: 20 30 | 5 5 | 33 65 | 3 4 | 40 7
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --tile --tile-sizes 3,5,7 | --tile --tile-sizes 64,128 | --rectangle | --scalene --tile-sizes 5,6
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

/* Prints an FNV-1a hash of the bits of each run of 64 elements of x[0..total-1]. */
static void dump(const char *name, const double *x, long total)
{
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t b = 0; b < sizeof bytes; b++) {
                h ^= bytes[b];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[flat %ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

static void channels(int N, int M, double A[3][N][M], double B[3][N][M], double G[N][M],
                     double I[N][M][3], double S[M], const double w[3])
{
#pragma scop
    for (int c = 0; c <= 2; c++)
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= M - 2; j++)
                B[c][i][j] = 0.125 * A[c][i - 1][j] + 0.125 * A[c][i][j - 1] + 0.5 * A[c][i][j]
                           + 0.125 * A[c][i][j + 1] + 0.125 * A[c][i + 1][j];
    for (int i = 1; i <= N - 2; i++)
        for (int j = 2; j <= M - 3; j++)
            G[i][j] = 0.25 * B[0][i][j - 1] + 0.5 * B[1][i][j] + 0.25 * B[2][i][j + 1];
    for (int i = 2; i <= N - 3; i++)
        for (int j = 2; j <= M - 3; j++)
            for (int c = 0; c <= 2; c++)
                I[i][j][c] = w[c] * G[i - 1][j] + G[i][j] + w[c] * G[i + 1][j];
    for (int j = 2; j <= M - 3; j++)
        S[j] = I[N / 2][j][0] + I[N / 2][j][2];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 20;
    int M = argc > 2 ? atoi(argv[2]) : 30;
    double (*A)[N][M] = malloc(sizeof(double) * 3 * N * M);
    double (*B)[N][M] = malloc(sizeof(double) * 3 * N * M);
    double (*G)[M] = malloc(sizeof(double) * N * M);
    double (*I)[M][3] = malloc(sizeof(double) * N * M * 3);
    double *S = malloc(sizeof(double) * M);
    const double w[3] = {0.25, 0.5, 0.125};
    for (long k = 0; k < 3L * N * M; k++) {
        ((double *)A)[k] = next_value();
        ((double *)B)[k] = next_value();
        ((double *)I)[k] = next_value();
    }
    for (long k = 0; k < (long)N * M; k++)
        ((double *)G)[k] = next_value();
    for (int j = 0; j < M; j++)
        S[j] = next_value();
    channels(N, M, A, B, G, I, S, w);
    dump("B", (double *)B, 3L * N * M);
    dump("G", (double *)G, (long)N * M);
    dump("I", (double *)I, 3L * N * M);
    dump("S", S, M);
    free(A);
    free(B);
    free(G);
    free(I);
    free(S);
    return 0;
}
