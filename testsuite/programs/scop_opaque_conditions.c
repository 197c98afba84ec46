/* scop_opaque_conditions.c -- control flow of real image code in scops
 * (issue 56, class 3):
 *   - the border of a grid written by the branches of an `||` of affine
 *     comparisons and an `else`;
 *   - an `else if` chain on `==` (each `else` of an `==` is no convex domain);
 *   - a data-dependent clamp `if (c < 0) c = 0; else if (c > 1) c = 1;`;
 *   - a constant `if (0)` whose statements must never run.
 * Such an `if` is one stage with conditional accesses (its writes are
 * may-writes), as pet models it; the loops around it stay parallel.
 * Output: out, c, e.
 *
 * flextile-test: args: 12 10 3 | 3 3 1 | 40 33 2
 * flextile-test: options: default | --tile --tile-sizes 4,8 | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 4,16 | --rectangle | --scalene --grouping dp | --no-openmp
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



static void borders(int h, int w, const double in[restrict h][w], double out[restrict h][w],
                    double c[restrict h][w], double e[restrict h][w])
{
    int i, j;
#pragma scop
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++) {
            if (i == 0 || j == 0 || i == h - 1 || j == w - 1)
                out[i][j] = in[i][j];
            else
                out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j]) + 0.125 * (in[i][j - 1] + in[i][j + 1]);
        }
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++) {
            c[i][j] = 2.0 * out[i][j] - 0.5;
            if (c[i][j] < 0.0)
                c[i][j] = 0.0;
            else if (c[i][j] > 1.0)
                c[i][j] = 1.0;
        }
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++) {
            if (j == 0)
                e[i][j] = c[i][j];
            else if (j == w - 1)
                e[i][j] = 0.5 * c[i][j];
            else
                e[i][j] = c[i][j - 1] - c[i][j + 1];
            if (0)
                e[i][j] = -1.0;
        }
#pragma endscop
}

int main(int argc, char **argv)
{
    int h = arg_int(argc, argv, 1, 12, 3);
    int w = arg_int(argc, argv, 2, 10, 3);
    int reps = arg_int(argc, argv, 3, 1, 1);
    double (*in)[w] = xmalloc(sizeof(double) * h * w);
    double (*out)[w] = xmalloc(sizeof(double) * h * w);
    double (*c)[w] = xmalloc(sizeof(double) * h * w);
    double (*e)[w] = xmalloc(sizeof(double) * h * w);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            in[i][j] = next_value();
            out[i][j] = c[i][j] = e[i][j] = 0.0;
        }
    for (int r = 0; r < reps; r++) {
        borders(h, w, in, out, c, e);
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++)
                in[i][j] = e[i][j] + 0.5 * in[i][j];
    }
    int dims[2] = {h, w};
    dump("out", &out[0][0], 2, dims);
    dump("c", &c[0][0], 2, dims);
    dump("e", &e[0][0], 2, dims);
    free(in);
    free(out);
    free(c);
    free(e);
    return 0;
}
