/* errno_math.c -- math calls that set errno, in a program that reads errno
 * after its regions. errno is thread-local: a call on a worker thread of a
 * parallel loop sets that thread's errno, and the thread that runs the
 * region never sees it; and the call that runs last sets the value the
 * program reads, so such calls must also keep their order.
 *
 * roots:   a scop; S0: R = sqrt(A), A's last element negative (EDOM);
 *          S1: E = exp(R * K), which overflows at element 0 only (ERANGE).
 *          In the original order ERANGE comes last; fusing the two loops
 *          would make EDOM last.
 * powers:  a loop chain; P = pow(A, 0.5): EDOM at the negative element.
 * clamp:   a scop of calls that never set errno (fabs, floor, fmin): its
 *          loops may run in parallel as before.
 * Schedules: as flextile chooses; the chain's empty schedule. Overlapped
 * tiling falls back where the calls keep their order (a recurrence).
 * Output: errno after each region, and R, E, P, Q in full.
 *
 * flextile-test: args: 40 | 7 | 1 | 2 | 100 | 33
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 4
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 4 | --scalene --tile-sizes 5
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
 * flextile-test: cuda-refused: per-thread state of the host
 */
#include <errno.h>
#include <math.h>
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

static void print_errno(const char *after)
{
    const char *name = errno == 0 ? "0" : errno == EDOM ? "EDOM" : errno == ERANGE ? "ERANGE" : "other";
    printf("errno after %s: %s\n", after, name);
}

static void roots(int n, const double *A, double *R, double *E, double K)
{
    int i;
#pragma scop
    for (i = 0; i < n; i++)
        R[i] = sqrt(A[i]);
    for (i = 0; i < n; i++)
        E[i] = exp(R[i] * K);
#pragma endscop
}

static void powers(int n, const double *A, double *P)
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:n-1) with (i) read A { (i) }, write P { (i) }
        for (int i = 0; i < n; i++)
            P[i] = pow(A[i], 0.5) + 1.0;
    }
}

static void clamp(int n, const double *A, double *Q, double *S)
{
    int i;
#pragma scop
    for (i = 0; i < n; i++)
        Q[i] = floor(fabs(A[i]) * 8.0);
    for (i = 1; i < n - 1; i++)
        S[i] = fmin(Q[i - 1], Q[i + 1]);
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    if (n < 1 || n > LEN) {
        fprintf(stderr, "n must be in 1..%d\n", LEN);
        return 1;
    }
    double A[LEN], R[LEN], E[LEN], P[LEN], Q[LEN], S[LEN];
    for (int k = 0; k < LEN; k++) {
        A[k] = 4.0 * next_value();
        R[k] = E[k] = P[k] = Q[k] = S[k] = -1.0;
    }
    A[0] = 1.0e6;
    A[n - 1] = -2.0 - A[n - 1];
    errno = 0;
    roots(n, A, R, E, 1.0);
    print_errno("roots");
    errno = 0;
    powers(n, A, P);
    print_errno("powers");
    errno = 0;
    clamp(n, A, Q, S);
    print_errno("clamp");
    dump1("R", R, n);
    dump1("E", E, n);
    dump1("P", P, n);
    dump1("Q", Q, n);
    dump1("S", S, n);
    return 0;
}
