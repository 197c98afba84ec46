/* scop_local_scalars.c -- scalars in the loop bodies of scops, as real
 * image and stencil code has them (issue 56, class 1):
 *   - block-scope declarations in a loop body (`float gx = ...;`, a `const`
 *     one, an `else if` clamp of a local, a `?:` of locals);
 *   - scalars declared before the region and assigned before any use in
 *     every iteration (srad's `Jc`, `dN`, `G2`), reused by a second nest;
 *   - scalars that carry a value (an accumulator `acc = 0.5 * acc + x[i]`), are
 *     read after the region, are assigned only under a data-dependent
 *     condition, or accumulate over an inner loop: these keep their loops
 *     serial, and the output must still be exact.
 * Statement-local scalars make their statements one stage; the loops around
 * them are parallel, tiled and overlapped like any other.
 * Output: mag, dir, J, c, y, z and the scalars read after the region.
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



static void gradient(int h, int w, const float in[restrict h][w], float mag[restrict h][w],
                     float dir[restrict h][w])
{
#pragma scop
    for (int i = 1; i < h - 1; i++)
        for (int j = 1; j < w - 1; j++) {
            float gx = in[i][j + 1] - in[i][j - 1];
            const float gy = in[i + 1][j] - in[i - 1][j];
            float m2 = gx * gx + gy * gy;
            if (m2 > 1.0f)
                m2 = 1.0f;
            else if (m2 < 0.01f)
                m2 = 0.0f;
            mag[i][j] = m2;
            dir[i][j] = gx > 0 ? gy : -gy;
        }
#pragma endscop
}

/* srad-like diffusion: the scalars are declared at the top of the function. */
static void diffuse(int h, int w, int steps, double lambda, double J[restrict h][w],
                    double c[restrict h][w])
{
    double Jc, dN, dS, G2, num, den;
    int t, i, j;
#pragma scop
    for (t = 0; t < steps; t++) {
        for (i = 1; i < h - 1; i++)
            for (j = 1; j < w - 1; j++) {
                Jc = J[i][j];
                dN = J[i - 1][j] - Jc;
                dS = J[i + 1][j] - Jc;
                G2 = (dN * dN + dS * dS) / (Jc * Jc + 1.0);
                num = 0.5 * G2;
                den = 1.0 + 0.25 * G2;
                c[i][j] = num / den;
            }
        for (i = 1; i < h - 1; i++)
            for (j = 1; j < w - 1; j++) {
                Jc = c[i][j];
                J[i][j] = J[i][j] + lambda * (c[i][j + 1] - Jc);
            }
    }
#pragma endscop
}

/* Scalars that are not per-iteration temporaries. */
static double shared_scalars(int n, const double x[restrict n], double y[restrict n],
                             double z[restrict n][n])
{
    double acc = 0.0, last = 0.0, sum;
    int k = 0;
#pragma scop
    for (int i = 0; i < n; i++) {
        acc = 0.5 * acc + x[i];
        y[i] = acc;
    }
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.5)
            k = i;
        y[i] = y[i] + k;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            sum = 0.0;
            for (int l = 0; l <= j; l++)
                sum = sum + x[l] * x[i];
            z[i][j] = sum;
        }
    for (int i = 0; i < n; i++) {
        last = x[i] * 2.0;
        y[i] = y[i] + last;
    }
#pragma endscop
    return acc + last + k;
}

int main(int argc, char **argv)
{
    int h = arg_int(argc, argv, 1, 12, 3);
    int w = arg_int(argc, argv, 2, 10, 3);
    int steps = arg_int(argc, argv, 3, 3, 0);
    float (*in)[w] = xmalloc(sizeof(float) * h * w);
    float (*mag)[w] = xmalloc(sizeof(float) * h * w);
    float (*dir)[w] = xmalloc(sizeof(float) * h * w);
    double (*J)[w] = xmalloc(sizeof(double) * h * w);
    double (*c)[w] = xmalloc(sizeof(double) * h * w);
    double *x = xmalloc(sizeof(double) * w);
    double *y = xmalloc(sizeof(double) * w);
    double (*z)[w] = xmalloc(sizeof(double) * w * w);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            in[i][j] = (float)next_value();
            mag[i][j] = dir[i][j] = 0.0f;
            J[i][j] = next_value();
            c[i][j] = 0.0;
        }
    for (int j = 0; j < w; j++)
        x[j] = next_value();
    gradient(h, w, in, mag, dir);
    diffuse(h, w, steps, 0.125, J, c);
    double s = shared_scalars(w, x, y, z);
    double *md = xmalloc(sizeof(double) * h * w), *dd = xmalloc(sizeof(double) * h * w);
    for (int k = 0; k < h * w; k++) {
        md[k] = (&mag[0][0])[k];
        dd[k] = (&dir[0][0])[k];
    }
    int dims[2] = {h, w}, zdims[2] = {w, w};
    dump("mag", md, 2, dims);
    dump("dir", dd, 2, dims);
    dump("J", &J[0][0], 2, dims);
    dump("c", &c[0][0], 2, dims);
    dump1("y", y, w);
    dump("z", &z[0][0], 2, zdims);
    printf("s = %.17g\n", s);
    free(in);
    free(mag);
    free(dir);
    free(J);
    free(c);
    free(x);
    free(y);
    free(z);
    free(md);
    free(dd);
    return 0;
}
