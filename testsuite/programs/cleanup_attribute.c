/* cleanup_attribute.c -- variables whose declarations carry
 * __attribute__((cleanup(f))): f(&x) runs when x leaves its scope, after the
 * region, and reads what the region left in x. No code flextile sees names
 * x after the region, yet x is live-out: it must be stored, and keep its
 * final value.
 *
 * pipeline: a local array T (a 3-point blur of IN) read by a second nest
 *           (OUT); without the attribute T would be proved temporary and
 *           overlapped tiles would keep it in scratchpads only.
 * doubled:  the same with a local pointer to memory the function mallocs,
 *           whose cleanup prints it and frees it.
 * iterate:  a loop variable i whose cleanup prints it: it must hold its
 *           final value (n) after the region, as in the original.
 * chain:    a loop-chain body writes r, declared outside the chain, before
 *           reading it in every iteration; its cleanup prints the last
 *           value, so r is not a per-iteration temporary: the loop stays
 *           serial (with a warning) and r ends with the last iteration's value.
 * Schedules: scops as flextile chooses; the chain's empty schedule. The
 * chain's loop carries r (a recurrence): overlapped tiling falls back there.
 * Output: what every cleanup prints, and OUT, X, H in full.
 *
 * flextile-test: args: 40 | 7 | 1 | 3 | 64 | 33
 * flextile-test: options: default | --no-openmp | --tile | --tile --tile-sizes 8
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 8 | --scalene --tile-sizes 5
 * flextile-test: fallback-warning: reads values it computes itself (a recurrence)
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 */
#include <stdio.h>
#include <stdlib.h>

#define LEN 64

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

static void print_t(double (*t)[LEN])
{
    dump1("cleanup T", *t, LEN);
}

static int u_len;

static void print_and_free(double **u)
{
    dump1("cleanup U", *u, u_len);
    free(*u);
}

static void print_int(int *v)
{
    printf("cleanup i = %d\n", *v);
}

static void print_double(double *v)
{
    printf("cleanup r = %.17g\n", *v);
}

static double shade(double x)
{
    return x * 0.75 + 0.0625;
}

static void pipeline(int n, const double *in, double *out)
{
    int i;
    double T[LEN] __attribute__((cleanup(print_t)));
    for (i = 0; i < LEN; i++)
        T[i] = -1.0;
#pragma scop
    for (i = 1; i < n - 1; i++)
        T[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
    for (i = 2; i < n - 2; i++)
        out[i] = 0.5 * T[i - 1] + 0.5 * T[i + 1];
#pragma endscop
}

static void doubled(int n, const double *in, double *out)
{
    int i;
    u_len = n;
    double *U __attribute__((cleanup(print_and_free))) = malloc(sizeof(double) * (n + 1));
    if (!U)
        exit(1);
    for (i = 0; i < n; i++)
        U[i] = -1.0;
#pragma scop
    for (i = 0; i < n; i++)
        U[i] = 2.0 * in[i] + 1.0;
    for (i = 1; i < n - 1; i++)
        out[i] = U[i - 1] - 0.5 * U[i + 1];
#pragma endscop
}

static void iterate(int n, double *x)
{
    int i __attribute__((cleanup(print_int))) = -7;
#pragma scop
    for (i = 0; i < n; i++)
        x[i] = x[i] * 0.5 + i;
#pragma endscop
}

static void chain(int N, const double *A, double *H)
{
    double r __attribute__((cleanup(print_double))) = -3.0;
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:N-1) with (i) read A { (i) }, write H { (i) }
        for (int i = 0; i < N; i++) {
            r = shade(A[i]);
            H[i] = r * r;
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    if (n < 1 || n > LEN) {
        fprintf(stderr, "n must be in 1..%d\n", LEN);
        return 1;
    }
    double in[LEN], out[LEN], x[LEN], h[LEN];
    for (int k = 0; k < LEN; k++) {
        in[k] = 4.0 * next_value();
        out[k] = -2.0;
        x[k] = next_value();
        h[k] = -4.0;
    }
    pipeline(n, in, out);
    dump1("OUT", out, n);
    for (int k = 0; k < LEN; k++)
        out[k] = -2.0;
    doubled(n, in, out);
    dump1("OUT", out, n);
    iterate(n, x);
    dump1("X", x, n);
    chain(n, in, h);
    dump1("H", h, n);
    return 0;
}
