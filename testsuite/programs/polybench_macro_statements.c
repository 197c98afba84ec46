/* polybench_macro_statements.c -- statements that start or end with a
 * function-like macro invocation, outside loops and unbraced (issue 17,
 * findings 1 and 18).
 *
 * Region 1 (no loop around the first statement):
 *     s[0] = SCALAR_VAL(0.0);
 *     for i: s[i] = s[i-1] + SCALAR_VAL(0.5) * x[i];      (a prefix sum: serial)
 * Region 2 (a time loop; unbraced statements starting with AT(...)):
 *     for t: for i, j: AT(mid, i, j) = AVG3(AT(A, i-1, j), AT(A, i, j), AT(A, i+1, j));
 *            for i, j: AT(A, i, j) = SCALAR_VAL(0.5) * (mid[i][j] + AT(mid, i, j-1));
 *   with #define AT(a, i, j) a[i][j]: the accesses come from the macro's body.
 * The extent of such statements used to be cut at a macro argument: the
 * output lost 'AT(' or ')', and did not build. The accesses AT(...) writes
 * are exact for the dependences (both i-j nests are parallel, the time loop
 * is not), but their text is the invocation, not 'mid[...]', so overlapped
 * tiling cannot redirect them to tile-local storage: it falls back with a
 * warning (it used to skip such accesses silently).
 * Input: LCG noise. Output: s, mid and A in full.
 *
 * flextile-test: args: 12 3 | 3 1 | 1 1 | 20 0 | 33 4
 * flextile-test: options: default | --tile | --tile --tile-sizes 2,5,7 | --tile --no-openmp
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 * flextile-test: falls-back: --rectangle | --scalene --tile-sizes 2,4,8
 * flextile-test: fallback-warning: is not analysable
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
#define AT(a, i, j) a[i][j]
#define AVG3(x, y, z) (((x) + (y) + (z)) / SCALAR_VAL(3.0))
#define POLYBENCH_1D(var, dim1) var[dim1]
#define POLYBENCH_2D(var, dim1, dim2) var[dim1][dim2]
#define _PB_TSTEPS tsteps
#define _PB_N n

static void kernel_prefix(int n, DATA_TYPE POLYBENCH_1D(s, n), DATA_TYPE POLYBENCH_1D(x, n))
{
    int i;
#pragma scop
    s[0] = SCALAR_VAL(0.0);
    for (i = 1; i < _PB_N; i++)
        s[i] = s[i - 1] + SCALAR_VAL(0.5) * x[i];
#pragma endscop
}

static void kernel_smooth(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, n, n),
                          DATA_TYPE POLYBENCH_2D(mid, n, n))
{
    int t, i, j;
#pragma scop
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                AT(mid, i, j) = AVG3(AT(A, i - 1, j), AT(A, i, j), AT(A, i + 1, j));
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 2; j < _PB_N - 1; j++)
                AT(A, i, j) = SCALAR_VAL(0.5) * (mid[i][j] + AT(mid, i, j - 1));
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 12, 1);
    int tsteps = arg_int(argc, argv, 2, 3, 0);
    double *s = xmalloc(sizeof(double) * n);
    double *x = xmalloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        s[i] = -1.0;
        x[i] = next_value();
    }
    kernel_prefix(n, s, x);
    dump1("s", s, n);
    double (*A)[n] = xmalloc(sizeof(double) * n * n);
    double (*mid)[n] = xmalloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = next_value();
            mid[i][j] = -1.0;
        }
    kernel_smooth(tsteps, n, A, mid);
    int dims[2] = {n, n};
    dump("mid", &mid[0][0], 2, dims);
    dump("A", &A[0][0], 2, dims);
    free(mid);
    free(A);
    free(x);
    free(s);
    return 0;
}
