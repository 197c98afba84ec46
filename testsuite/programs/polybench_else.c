/* polybench_else.c -- `if ... else` in scops (issue 17: PolyBench's nussinov
 * was refused with "'else' branches are not supported").
 *
 * Region 1 (stencil chain, PolyBench spelling): a point stage with an
 * `if / else if / else` on the iterator against a parameter (each branch a
 * statement whose domain has the negation of the conditions before it), then a
 * 3-point stencil of its result.
 * Region 2: nussinov's recurrence (counting down: overlapped tiling falls back; `max_score` and `match`
 * macros defined inside the scop, an `else` on `i < j - 1`).
 * An `else` after `==` or after several conditions is an error
 * (src/frontend/scop.rs unit tests).
 * Output: B, C and table in full.
 *
 * flextile-test: args: 20 7 | 1 0 | 9 9 | 33 40 | 3 1
 * flextile-test: options: default | --tile | --tile --tile-sizes 3,4
 * flextile-test: falls-back: --rectangle | --scalene | --rectangle --tile-sizes 4 | --scalene --tile-sizes 3
 * flextile-test: fallback-warning: does not support loops that count down
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

#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define _PB_N N

static void kernel(int N, int M, DATA_TYPE A[N + 2], DATA_TYPE B[N + 2], DATA_TYPE C[N + 2],
                   DATA_TYPE seq[N], DATA_TYPE table[N][N])
{
    int i, j, k;
#pragma scop
    for (i = 0; i <= _PB_N + 1; i++)
        if (i < M)
            B[i] = SCALAR_VAL(2.0) * A[i];
        else if (i >= M + 3)
            B[i] = A[i] + SCALAR_VAL(1.0);
        else
            B[i] = A[i] - SCALAR_VAL(0.5);
    for (i = 1; i <= _PB_N; i++)
        C[i] = B[i - 1] + B[i + 1] - B[i];
#pragma endscop

#pragma scop
#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
    for (i = _PB_N - 1; i >= 0; i--) {
        for (j = i + 1; j < _PB_N; j++) {
            if (j - 1 >= 0)
                table[i][j] = max_score(table[i][j], table[i][j - 1]);
            if (i + 1 < _PB_N)
                table[i][j] = max_score(table[i][j], table[i + 1][j]);
            if (j - 1 >= 0 && i + 1 < _PB_N) {
                if (i < j - 1)
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
                else
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
            }
            for (k = i + 1; k < j; k++)
                table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
        }
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 20, 1);
    int m = arg_int(argc, argv, 2, 7, 0);
    double *A = xmalloc(sizeof(double) * (n + 2));
    double *B = xmalloc(sizeof(double) * (n + 2));
    double *C = xmalloc(sizeof(double) * (n + 2));
    double *seq = xmalloc(sizeof(double) * n);
    double (*table)[n] = xmalloc(sizeof(double) * n * n);
    for (int q = 0; q < n + 2; q++) {
        A[q] = next_value();
        B[q] = next_value();
        C[q] = next_value();
    }
    for (int q = 0; q < n; q++) {
        seq[q] = (double)(((q + 1) * 2) % 4);
        for (int r = 0; r < n; r++)
            table[q][r] = (double)(((q + 1) * 3 + (r + 1) * 4) % 4) + 0.25 * next_value();
    }
    kernel(n, m, A, B, C, seq, table);
    dump1("B", B, n + 2);
    dump1("C", C, n + 2);
    dump1("table", &table[0][0], n * n);
    free(A);
    free(B);
    free(C);
    free(seq);
    free(table);
    return 0;
}
