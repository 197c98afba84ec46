/* unsigned_iterators.c -- loops over `unsigned` and `size_t` iterators with
 * `int` and `unsigned` parameters (issue 54, class 1). C computes with these
 * types' wrap-around arithmetic; flextile's model reads bounds, conditions
 * and subscripts as integers that do not wrap, and its loop counters are
 * `long long`.
 *   - The bodies use their iterators outside subscripts, where wrapping is
 *     the program's meaning: `i - 2 < 10u` is false at i = 1, `(double)(j - 3)`
 *     is 4294967293 at j = 0. The output must spell each iterator in its own
 *     type.
 *   - `j < (unsigned)(n - 1)` converts the int `n - 1` to unsigned: for n = 0 it is
 *     4294967295 and the loop runs over the whole array of that size... which
 *     this program avoids by giving n >= 1 in main, but flextile cannot know
 *     that: the transformed loops run under a run-time check of the
 *     parameters (model::wrap), the original ones otherwise.
 *   - A `size_t` loop counting down to 1, and subscripts `i + 1u`,
 *     `k - 1u` that cannot wrap over their domain.
 *   nest 1 (i, j): B[i][j] = (i - 2 < 10u ? A[i][j + 1u] : 0.5 * A[i][j]) + (double)(j - 3) * 1e-6
 *   nest 2 (k, down): C[k] = B[k][k] + C[k - 1u] ... over size_t k from m down to 1
 *   chain (u), (v): D[u] = u - 1 < 4u ? C[u] : (double)(u - 5); E[v] = D[v] / 2 + (v - 7 > 100u)
 * Output: B, C, D and E.
 *
 * flextile-test: args: 12 9 | 1 1 | 3 40 | 30 2
 * flextile-test: options: default | --tile --tile-sizes 4,8 | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 4,16 | --rectangle | --scalene --grouping dp | --tile --assume "n >= 1"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

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


static void kernel(int n, unsigned m, double A[restrict 64][66], double B[restrict 64][66],
                   double C[restrict 66], double D[restrict 64], double E[restrict 64])
{
#pragma scop
    for (unsigned i = 0; i < m; i++)
        for (unsigned j = 0; j < (unsigned)(n - 1); j++)
            B[i][j] = (i - 2 < 10u ? A[i][j + 1u] : 0.5 * A[i][j]) + (double)(j - 3) * 1e-6;
#pragma endscop
    /* A region of its own: overlapped tiling does not take loops that count down. */
#pragma scop
    for (size_t k = m; k >= 1; k--)
        C[k] = B[k - 1u][k - 1u] + 0.25 * C[k + 1u];
#pragma endscop
    /* A loop chain over unsigned iterators: its bodies see them unsigned too. */
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(0:m-1) with (u) read C { (u) }, write D { (u) }
        for (unsigned u = 0; u < m; u++)
            D[u] = (u - 1 < 4u) ? C[u] : (double)(u - 5);
#pragma omplc for domain(0:m-1) with (v) read D { (v) }, write E { (v) }
        for (unsigned v = 0; v < m; v++)
            E[v] = D[v] * 0.5 + (v - 7 > 100u);
    }
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 12, 1);
    unsigned m = (unsigned)arg_int(argc, argv, 2, 9, 0);
    if (n > 64 || m > 64) {
        fprintf(stderr, "sizes must be at most 64\n");
        return 1;
    }
    double (*A)[66] = xmalloc(sizeof(double) * 64 * 66);
    double (*B)[66] = xmalloc(sizeof(double) * 64 * 66);
    double *C = xmalloc(sizeof(double) * 66);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 66; j++) {
            A[i][j] = next_value();
            B[i][j] = -1.0;
        }
    for (int k = 0; k < 66; k++)
        C[k] = next_value();
    double *D = xmalloc(sizeof(double) * 64);
    double *E = xmalloc(sizeof(double) * 64);
    for (int k = 0; k < 64; k++)
        D[k] = E[k] = -1.0;
    kernel(n, m, A, B, C, D, E);
    int dims[2] = {64, 66};
    dump("B", &B[0][0], 2, dims);
    dump1("C", C, 66);
    dump1("D", D, 64);
    dump1("E", E, 64);
    free(D);
    free(E);
    free(A);
    free(B);
    free(C);
    return 0;
}
