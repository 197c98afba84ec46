/* scop_multistmt_stage.c -- multi-statement stages (Zhao & Cohen §3.6,
 * Fig. 15): statements that share a loop nest of a scop are one stage of the
 * overlapped tiles, shifted and strip-mined together, in their original order
 * inside their common point loops.
 *
 * A 2-D pipeline (an edge detector's front end, as legacy code writes it):
 *   for i in 1..N-2, j in 1..M-2:  B[i][j] = 3x3 blur of A              (stage A)
 *   for i in 2..N-3, j in 2..M-3:                                        (stage B)
 *       Ix[i][j]  = B[i][j+1] - B[i][j-1]                                (SB1)
 *       Iy[i][j]  = B[i+1][j] - B[i-1][j] + 0.25*Ix[i][j]                (SB2: reads SB1, same iteration)
 *       Mag[i][j] = Ix[i][j]*Ix[i][j]                                    (SB3: live-out only)
 *   for i in 3..N-4, j in 3..M-4:                                        (stage C)
 *       C[i][j] = Ix[i-1][j]*Iy[i][j+1] - Ix[i+1][j-1]*Iy[i-1][j]
 * and a 1-D one where a statement reads what the one before it computed in
 * the previous iteration (P[0] comes from before the region):
 *   for i in 1..N-1:  { P[i] = 0.5*(A[0][i-1] + A[1][i]);  Q[i] = P[i] - 0.25*P[i-1] }
 *   for i in 2..N-2:  R[i] = Q[i-1] + Q[i+1]
 * The stages' regions per tile come from dependence propagation statement by
 * statement (SB1 computes what SB2 and C read, SB3 only its own tile part).
 * Output: B, Ix, Iy, Mag, C, P, Q and R in full (hashed above 4096 elements).
 *
 * flextile-test: args: 20 14 | 5 3 | 1 1 | 3 7 | 9 9 | 64 50 | 33 101
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,4 | --rectangle | --rectangle --tile-sizes 4,8 | --rectangle --tile-sizes 3,5 --no-openmp | --scalene | --scalene --tile-sizes 3,5 | --scalene --tile-sizes 64,64 | --scalene --overlap-dims 0 --tile-sizes 4,6 | --rectangle --overlap-dims 1 --tile-sizes 5,4 | --rectangle --tile-sizes 4,8 --point-chunk 2 | --rectangle --point-chunk 0
 * flextile-test: cuda-refused: more than a CUDA thread block's 49152 bytes of static shared memory
 * flextile-test: cuda-refused-options: --scalene --tile-sizes 64,64
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
static inline void dump_hashed(const char *name, const double *x, long total)
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

/* Prints every element with its index (%.17g round-trips doubles exactly); for
 * arrays over 4096 elements, prints dump_hashed's run hashes instead. Either way, equal stdout means bit-identical arrays. */
static void dump(const char *name, const double *x, int nd, const int *dims)
{
    long total = 1;
    for (int d = 0; d < nd; d++)
        total *= dims[d] > 0 ? dims[d] : 0;
    if (total > 4096) {
        dump_hashed(name, x, total);
        return;
    }
    for (long k = 0; k < total; k++) {
        int idx[8];
        long r = k;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = (int)(r % dims[d]);
            r /= dims[d];
        }
        printf("%s", name);
        for (int d = 0; d < nd; d++)
            printf("[%d]", idx[d]);
        printf(" = %.17g\n", x[k]);
    }
}

static inline void dump1(const char *name, const double *x, int n)
{
    int dims[1] = {n};
    dump(name, x, 1, dims);
}

/* Reads argv[k] as an int >= min, or returns def when absent. */
static int arg_int(int argc, char **argv, int k, int def, int min)
{
    int v = argc > k ? atoi(argv[k]) : def;
    if (v < min) {
        fprintf(stderr, "argument %d must be >= %d\n", k, min);
        exit(1);
    }
    return v;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static void kernel(int N, int M, double A[N][M], double B[N][M], double Ix[N][M], double Iy[N][M],
                   double Mag[N][M], double C[N][M], double *P, double *Q, double *R)
{
#pragma scop
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < M - 1; j++)
            B[i][j] = 0.0625 * (A[i - 1][j - 1] + 2.0 * A[i - 1][j] + A[i - 1][j + 1])
                      + 0.125 * (A[i][j - 1] + 2.0 * A[i][j] + A[i][j + 1])
                      + 0.0625 * (A[i + 1][j - 1] + 2.0 * A[i + 1][j] + A[i + 1][j + 1]);
    for (int i = 2; i < N - 2; i++)
        for (int j = 2; j < M - 2; j++) {
            Ix[i][j] = B[i][j + 1] - B[i][j - 1];
            Iy[i][j] = B[i + 1][j] - B[i - 1][j] + 0.25 * Ix[i][j];
            Mag[i][j] = Ix[i][j] * Ix[i][j];
        }
    for (int i = 3; i < N - 3; i++)
        for (int j = 3; j < M - 3; j++)
            C[i][j] = Ix[i - 1][j] * Iy[i][j + 1] - Ix[i + 1][j - 1] * Iy[i - 1][j];
    for (int i = 1; i < N; i++) {
        P[i] = 0.5 * (A[0][i - 1] + A[1][i]);
        Q[i] = P[i] - 0.25 * P[i - 1];
    }
    for (int i = 2; i < N - 1; i++)
        R[i] = Q[i - 1] + Q[i + 1];
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 20, 1);
    int M0 = arg_int(argc, argv, 2, 14, 1);
    /* A[0] and A[1] hold N values for the 1-D stages. */
    int M = M0 > N ? M0 : N;
    double (*A)[M] = xmalloc(sizeof(double) * (N + 2) * M);
    double (*B)[M] = xmalloc(sizeof(double) * N * M);
    double (*Ix)[M] = xmalloc(sizeof(double) * N * M);
    double (*Iy)[M] = xmalloc(sizeof(double) * N * M);
    double (*Mag)[M] = xmalloc(sizeof(double) * N * M);
    double (*C)[M] = xmalloc(sizeof(double) * N * M);
    double *P = xmalloc(sizeof(double) * N);
    double *Q = xmalloc(sizeof(double) * N);
    double *R = xmalloc(sizeof(double) * N);
    for (int i = 0; i < N + 2; i++)
        for (int j = 0; j < M; j++)
            A[i][j] = next_value();
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < M; j++)
            B[i][j] = Ix[i][j] = Iy[i][j] = Mag[i][j] = C[i][j] = -1.0;
        P[i] = next_value();
        Q[i] = R[i] = -1.0;
    }
    kernel(N, M, A, B, Ix, Iy, Mag, C, P, Q, R);
    int dims[2] = {N, M};
    dump("B", &B[0][0], 2, dims);
    dump("Ix", &Ix[0][0], 2, dims);
    dump("Iy", &Iy[0][0], 2, dims);
    dump("Mag", &Mag[0][0], 2, dims);
    dump("C", &C[0][0], 2, dims);
    dump1("P", P, N);
    dump1("Q", Q, N);
    dump1("R", R, N);
    free(A);
    free(B);
    free(Ix);
    free(Iy);
    free(Mag);
    free(C);
    free(P);
    free(Q);
    free(R);
    return 0;
}
