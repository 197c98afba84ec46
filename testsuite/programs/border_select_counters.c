/* border_select_counters.c -- border handling by selects whose condition
 * compares the iterators, in loops that start below zero: the points of a
 * tile are loops that start at the tile's origin, and a statement that
 * accesses data only under a condition gets a `long long` counter there
 * (backend/c.rs, `CPrinter::long_counter`: gcc vectorises its masked loads
 * then). The counter must keep the iterator's type outside subscripts: `y <
 * U` with an `unsigned` U is false for y = -1 in `int` (y converts to
 * unsigned) and true in `long long`, and so is `y + 1 < U` at y = -2; the
 * output differs unless the counter is spelled `((int)c)` there.
 *
 *   nest 1 (x, y) in [-4, H+3] x [-4, W+3]:
 *          B = inside ? IN : (y < U ? 1 : 2)
 *   nest 2 (x, y) in [-3, H+2] x [-3, W+2]:
 *          OUT = y + 1 < U ? B(x, y-1) + B(x, y+1) + B(x-1, y) : B(x+1, y) / 2
 * Output: B and OUT.
 *
 * flextile-test: args: 12 40 3 | 5 7 100 | 1 1 0 | 30 70 4000000000
 * flextile-test: options: default | --tile --tile-sizes 4,8 | --rectangle --tile-sizes 4,8 | --scalene --tile-sizes 4,16 | --rectangle | --scalene --grouping dp
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

static void kernel(int H, int W, unsigned U, double IN[H + 8][W + 8], double B[H + 8][W + 8],
                   double OUT[H + 8][W + 8])
{
#pragma scop
    for (int x = -4; x < H + 4; x++)
        for (int y = -4; y < W + 4; y++)
            B[x + 4][y + 4] = (x >= 0 && x < H && y >= 0 && y < W) ? IN[x + 4][y + 4]
                                                                     : (y < U ? 1.0 : 2.0);
    for (int x = -3; x < H + 3; x++)
        for (int y = -3; y < W + 3; y++)
            OUT[x + 4][y + 4] = (y + 1 < U) ? B[x + 4][y + 3] + B[x + 4][y + 5] + B[x + 3][y + 4]
                                            : B[x + 5][y + 4] * 0.5;
#pragma endscop
}

static void dump2(const char *name, int R, int S, double a[R][S])
{
    int dims[2] = {R, S};
    dump(name, &a[0][0], 2, dims);
}

int main(int argc, char **argv)
{
    int H = arg_int(argc, argv, 1, 12, 1);
    int W = arg_int(argc, argv, 2, 40, 1);
    unsigned U = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 3u;
    double (*IN)[W + 8] = xmalloc(sizeof(double) * (H + 8) * (W + 8));
    double (*B)[W + 8] = xmalloc(sizeof(double) * (H + 8) * (W + 8));
    double (*OUT)[W + 8] = xmalloc(sizeof(double) * (H + 8) * (W + 8));
    for (int i = 0; i < H + 8; i++)
        for (int j = 0; j < W + 8; j++) {
            IN[i][j] = next_value();
            B[i][j] = OUT[i][j] = -1.0;
        }
    kernel(H, W, U, IN, B, OUT);
    dump2("B", H + 8, W + 8, B);
    dump2("OUT", H + 8, W + 8, OUT);
    free(IN);
    free(B);
    free(OUT);
    return 0;
}
