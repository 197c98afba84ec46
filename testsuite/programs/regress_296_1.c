/* difftest program, seed 296 (tools/difftest/gen.py), mixed flavor.
 *
 * region 1: loop chain in a time loop, schedule fuse(), tile((16,3), serial, parallel)
 *   1-D stencil nest (macro body)
 *   1-D stencil nest (macro body)
 *   1-D stencil nest (macro body)
 * Arguments: N M K T.
 * Regression test (tools/difftest): statement macros whose bodies do
 * arithmetic on the iterator argument, such as C[(p0_)+2]. flextile read the
 * unreadable '+' inside the expanded macro as a possible assignment and
 * rejected the nest with "the loop iterator 'ii' is assigned in the body of a
 * stage" (fixed in frontend/body.rs: only a parameter next to an assignment,
 * ++, -- or & counts). The chain (three 1-D stencils, macro bodies, logical
 * data-set name D_C for C and D_E for E) runs inside an ordinary time loop;
 * schedule fuse() with tile((16,3), serial, parallel): the only dependences
 * are reads of C, E, F and B (nest 3 overwrites B, which nest 1 reads at the
 * same index: an anti-dependence of distance 0), so the fused loop carries
 * none and the point loops may run in parallel.
 * flextile-test: args: 15 3 2 0 | 40 19 10 2 | 1 1 1 1 | 7 1 1 3
 * flextile-test: options: default | --tile | --tile --tile-sizes 5 | --no-openmp | --rectangle --tile-sizes 5 | --scalene --tile-sizes 16
 * flextile-test: cuda-refused: the CUDA target needs bodies whose accesses flextile analyses
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Deterministic input: a 64-bit LCG; every value is k / 2^24 in [-1, 1), exact in double. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static double next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 40) / 8388608.0 - 1.0;
}

static void fill(double *x, long n)
{
    for (long k = 0; k < n; k++)
        x[k] = next_value();
}

/* Histogram bucket of a double: bits 44..47 of its representation (never UB). */
static int bucket(double v)
{
    unsigned long long b;
    memcpy(&b, &v, sizeof b);
    return (int)((b >> 44) & 15u);
}

/* Prints every element (%.17g round-trips doubles) up to 4096 elements, else
 * an FNV-1a hash of the bits of each run of 64 elements. */
static void dump(const char *name, const double *x, long total)
{
    if (total <= 4096) {
        for (long k = 0; k < total; k++)
            printf("%s[%ld] = %.17g\n", name, k, x[k]);
        return;
    }
    for (long k = 0; k < total; k += 64) {
        unsigned long long h = 1469598103934665603ULL;
        long end = k + 64 < total ? k + 64 : total;
        for (long m = k; m < end; m++) {
            unsigned char bytes[sizeof(double)];
            memcpy(bytes, &x[m], sizeof bytes);
            for (size_t q = 0; q < sizeof bytes; q++) {
                h ^= bytes[q];
                h *= 1099511628211ULL;
            }
        }
        printf("%s[%ld..%ld] fnv=%016llx\n", name, k, end - 1, h);
    }
}

static void dump_int(const char *name, const int *x, long total)
{
    for (long k = 0; k < total; k++)
        printf("%s[%ld] = %d\n", name, k, x[k]);
}

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

#define STAGE1(p0_) \
    do { \
        A[(p0_)] = (0.0625 * B[(p0_)] + -0.25 * C[(p0_)] + 0.05 * C[(p0_)+2]); \
    } while (0)

#define STAGE2(p0_) \
    do { \
        D[(p0_)] = sqrt(fabs((-0.2 * C[(p0_)] + 0.7 * 0.5))); \
    } while (0)

#define STAGE3(p0_) \
    do { \
        B[(p0_)] = (-0.42424242424242425 * C[(p0_)] + 0.15151515151515152 * E[(p0_)+2] + 0.42424242424242425 * F[(p0_)+1]); \
    } while (0)

/* restrict: the arrays never overlap; flextile cannot check that at run time for
 * the chain's logical data sets (D_C, D_E), and without the promise it would
 * leave the chain as written. */
static void kernel(int N, int M, int K, int T, double A[restrict 2*N+16], double B[restrict 2*N+16], double C[restrict 2*N+16], double D[restrict 2*N+16], double E[restrict 2*N+16], double F[restrict 2*N+16])
{
    (void)N; (void)M; (void)K; (void)T;
    for (int tt = 0; tt < T; tt++) {
        #pragma omplc loopchain schedule(fuse(), tile((16,3), serial, parallel))
        {
#pragma omplc for /* nest */ domain(8:2*N+6) with (ii) \
    read B {(ii)}, /* access 0 */ \
    read D_C {(ii),(ii+2)}, /* access 1 */ \
    write A {(ii)} /* access 2 */
            for (int ii = 8; ii <= 2*N+6; ii += 1)
                STAGE1(ii);
#pragma omplc for domain(8:2*N+7) \
    with (i0) \
    read D_C {(i0)}, write D {(i0)}
            for (int i0 = 8; i0 <= 2*N+7; i0 += 1)
                STAGE2(i0);
#pragma omplc for domain(11:2*N+6) with (i0) read D_C {(i0)}, read D_E {(i0+2)}, read F {(i0+1)}, write B {(i0)}
            for (int i0 = 11; 2*N+6 >= i0; i0 = i0 + 1)
                STAGE3(i0);
        }
    }
}

int main(int argc, char **argv)
{
    int N = arg_int(argc, argv, 1, 5, 1);
    int M = arg_int(argc, argv, 2, 5, 1);
    int K = arg_int(argc, argv, 3, 5, 1);
    int T = arg_int(argc, argv, 4, 2, 0);
    double *A = xmalloc(sizeof(double) * (size_t)(2*N+16));
    double *B = xmalloc(sizeof(double) * (size_t)(2*N+16));
    double *C = xmalloc(sizeof(double) * (size_t)(2*N+16));
    double *D = xmalloc(sizeof(double) * (size_t)(2*N+16));
    double *E = xmalloc(sizeof(double) * (size_t)(2*N+16));
    double *F = xmalloc(sizeof(double) * (size_t)(2*N+16));
    fill((double *)A, (long)(2*N+16));
    fill((double *)B, (long)(2*N+16));
    fill((double *)C, (long)(2*N+16));
    fill((double *)D, (long)(2*N+16));
    fill((double *)E, (long)(2*N+16));
    fill((double *)F, (long)(2*N+16));
    kernel(N, M, K, T, A, B, C, D, E, F);
    dump("A", (const double *)A, (long)(2*N+16));
    dump("B", (const double *)B, (long)(2*N+16));
    dump("C", (const double *)C, (long)(2*N+16));
    dump("D", (const double *)D, (long)(2*N+16));
    dump("E", (const double *)E, (long)(2*N+16));
    dump("F", (const double *)F, (long)(2*N+16));
    free(A);
    free(B);
    free(C);
    free(D);
    free(E);
    free(F);
    return 0;
}
