/* fenv_flags.c -- a program that tests the floating-point exception flags
 * after its regions. The flags are per thread: a division by zero on a
 * worker thread of a parallel loop raises that thread's flag, and the
 * thread that runs the region never sees it. Where the program uses
 * <fenv.h>, every loop of every region stays serial, with a warning.
 *
 * divide:  a scop; Q = 1 / D, D's last element 0 (FE_DIVBYZERO), then a
 *          second nest that blurs Q where it is finite.
 * grow:    a loop chain; G = Q * 2^300 overflows (FE_OVERFLOW) at the
 *          next to last element only.
 * Schedules: as flextile chooses; the chain's empty schedule. Overlapped
 * tiling falls back (every loop carries the environment).
 * Output: the flags after each region, and Q, B, G in full.
 *
 * flextile-test: args: 40 | 7 | 1 | 2 | 100 | 33
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 4
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 4 | --scalene --tile-sizes 5
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
 * flextile-test: cuda-refused: per-thread state of the host
 */
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>

#define LEN 100

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 16777216.0;
}

static void dump1(const char *name, const double *x, int n)
{
    for (int k = 0; k < n; k++)
        printf("%s[%d] = %.17g\n", name, k, x[k]);
}

static void print_flags(const char *after)
{
    printf("after %s: divbyzero %d overflow %d\n", after, fetestexcept(FE_DIVBYZERO) != 0,
           fetestexcept(FE_OVERFLOW) != 0);
}

static void divide(int n, const double *D, double *Q, double *B)
{
    int i;
#pragma scop
    for (i = 0; i < n; i++)
        Q[i] = 1.0 / D[i];
    for (i = 1; i < n - 1; i++)
        B[i] = 0.5 * Q[i - 1] + 0.25 * Q[i];
#pragma endscop
}

static void grow(int n, const double *Q, double *G, double big)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:n-1) with (i) read Q { (i) }, write G { (i) }
        for (int i = 0; i < n; i++)
            G[i] = Q[i] * big * big;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    if (n < 1 || n > LEN) {
        fprintf(stderr, "n must be in 1..%d\n", LEN);
        return 1;
    }
    double D[LEN], Q[LEN], B[LEN], G[LEN];
    for (int k = 0; k < LEN; k++) {
        D[k] = 0.25 + next_value();
        Q[k] = B[k] = G[k] = -1.0;
    }
    if (n >= 2)
        D[n - 2] = 1.0e-300;
    D[n - 1] = 0.0;
    feclearexcept(FE_ALL_EXCEPT);
    divide(n, D, Q, B);
    print_flags("divide");
    feclearexcept(FE_ALL_EXCEPT);
    /* Only 1 / D[n - 2] = 1e300 overflows (1 / 0 is an infinity already). */
    grow(n, Q, G, 0x1p150);
    print_flags("grow");
    dump1("Q", Q, n);
    dump1("B", B, n);
    dump1("G", G, n);
    return 0;
}
