/* thread_local_arrays.c -- regions that touch thread-local objects: every
 * thread has its own copy, so a worker thread of a parallel loop would write
 * (or read) its own copy instead of the one the code around the region uses.
 * Every loop that touches one stays serial, with a warning.
 *
 * blur:    a scop writes the thread-local array ACC (a scaled copy of A) and
 *          blurs it into B; main prints ACC afterwards (its copy must hold
 *          every value).
 * scale:   a scop reads the thread-local scalar gain (set by main before)
 *          in every iteration: a worker would read its own copy (0).
 * chain:   a loop chain reads the thread-local array LUT (filled by main)
 *          and writes H, counting in the thread-local scalar calls.
 * Schedules: scops as flextile chooses; the chain fuses its two nests.
 * Overlapped tiling falls back (each loop carries the thread-local state).
 * Output: ACC, B, C, H in full, and calls.
 *
 * flextile-test: args: 20 17 | 3 3 | 1 1 | 33 9 | 9 40
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 4,8
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 5,7
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
 * flextile-test: cuda-refused: per-thread state of the host
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 40
#define MAXM 40

static _Thread_local double ACC[MAXN][MAXM];
static __thread double gain;
static __thread double LUT[MAXM];
static __thread int calls;

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

static void dump2(const char *name, double (*x)[MAXM], int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            printf("%s[%d][%d] = %.17g\n", name, i, j, x[i][j]);
}

static void blur(int n, int m, double (*A)[MAXM], double (*B)[MAXM])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            ACC[i][j] = 1.5 * A[i][j] + 0.25;
    for (i = 0; i < n; i++)
        for (j = 1; j < m - 1; j++)
            B[i][j] = 0.25 * ACC[i][j - 1] + 0.5 * ACC[i][j] + 0.25 * ACC[i][j + 1];
#pragma endscop
}

static void scale(int n, int m, double (*B)[MAXM], double (*C)[MAXM])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            C[i][j] = B[i][j] * gain + 0.125;
#pragma endscop
}

static void chain(int n, int m, double (*A)[MAXM], double (*H)[MAXM])
{
#pragma omplc loopchain schedule(fuse())
    {
#pragma omplc for domain(0:n-1, 0:m-1) with (i, j) read A { (i,j) }, read LUT { (j) }, write H { (i,j) }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                H[i][j] = A[i][j] * LUT[j];
#pragma omplc for domain(0:n-1, 0:m-1) with (i, j) read H { (i,j) }, write H { (i,j) }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++) {
                H[i][j] = H[i][j] + 1.0;
                calls = calls + 1;
            }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int m = argc > 2 ? atoi(argv[2]) : 17;
    if (n < 1 || n > MAXN || m < 1 || m > MAXM) {
        fprintf(stderr, "sizes must be in 1..%d and 1..%d\n", MAXN, MAXM);
        return 1;
    }
    static double A[MAXN][MAXM], B[MAXN][MAXM], C[MAXN][MAXM], H[MAXN][MAXM];
    for (int i = 0; i < MAXN; i++)
        for (int j = 0; j < MAXM; j++) {
            A[i][j] = 4.0 * next_value();
            ACC[i][j] = -1.0;
            B[i][j] = -2.0;
            C[i][j] = -3.0;
            H[i][j] = -4.0;
        }
    for (int j = 0; j < MAXM; j++)
        LUT[j] = 0.5 + next_value();
    gain = 1.25;
    calls = 0;
    blur(n, m, A, B);
    scale(n, m, B, C);
    chain(n, m, A, H);
    dump2("ACC", ACC, n, m);
    dump2("B", B, n, m);
    dump2("C", C, n, m);
    dump2("H", H, n, m);
    printf("calls = %d\n", calls);
    return 0;
}
