/* cuda_c_declarations.c -- a 1-D heat stencil in a file whose declarations
 * mean something else in C++ (ISO C++17, Annex C.1), or clash with names
 * CUDA's headers declare: the CUDA output (compiled as C++) must keep the
 * C meaning.
 *
 * nest (in a time loop): B[i] = scale*(A[i-1] + A[i+1]) + w*A[i], then
 * A[i] = B[i] + warpSize * 1e-3                         over 1..N-2
 * Exercises (CUDA): tentative definitions (int, static array, incomplete
 * array), a file-scope const object (extern in C++), a K&R definition and
 * its unprototyped declaration, 'auto' and 'register', a char array filled
 * by a string without its '\0', designated initialisers out of order,
 * array designators, a range and a nested designator, and file-scope
 * names of CUDA's (a vector type, a make_ function, warpSize read in the
 * region, dim3 and blockDim as functions), which the output renames while
 * its own kernels and launches use CUDA's.
 * Output: A in full, the initialisers' values, the helpers' results.
 *
 * flextile-test: args: default | 40 7 | 3 2 | 2 1 | 65 0
 * flextile-test: options: default | --tile | --rectangle | --scalene --tile-sizes 3,5 | --rectangle --tile-sizes 4,8
 */
#include <stdio.h>
#include <stdlib.h>

/* Tentative definitions: one definition each, in C and in C++. */
int steps;
static double weights[3];
int table[];
int steps;
static double weights[3];
int table[8];

/* External linkage in C; C++ would make it internal. */
const double scale = 0.25;

/* Names CUDA's headers declare. */
struct float4 {
    double x, y, z, w;
};
static int warpSize = 3;
static double make_double2(double a)
{
    return 2 * a;
}
typedef int int2;
static int dim3(int a)
{
    return 3 * a;
}
static int blockDim(void)
{
    return 7;
}

/* Designated initialisers g++ rejects. */
struct config {
    int n;
    double lo;
    double hi;
};
static struct config conf = {.hi = 1.5, .n = 3, .lo = -1.0};
static int order[6] = {[4] = 2, [1] = 5, [2 ... 3] = 1};
static struct {
    struct float4 f;
    int k;
} nested = {.f.y = 3.0, .k = 1};
static char tag[4] = "heat";

/* An old-style definition and its declaration without parameters. */
double mix();
double mix(a, b) double a; double b;
{
    return scale * (a + b);
}

int count(k, r) int k; register int r;
{
    auto int s = k + r;
    return s;
}

static void heat(int N, int T, double *A, double *B, double w)
{
#pragma scop
    for (int t = 0; t < T; t++) {
        for (int i = 1; i < N - 1; i++)
            B[i] = scale * (A[i - 1] + A[i + 1]) + w * A[i];
        for (int i = 1; i < N - 1; i++)
            A[i] = B[i] + warpSize * 1e-3;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
    int N = argc > 1 ? atoi(argv[1]) : 20;
    steps = argc > 2 ? atoi(argv[2]) : 4;
    double *A = malloc(sizeof(double) * (N > 0 ? N : 1));
    double *B = malloc(sizeof(double) * (N > 0 ? N : 1));
    for (int i = 0; i < N; i++) {
        A[i] = (double)((7 * i) % 31) / 31.0;
        B[i] = 0;
    }
    weights[1] = 0.5;
    table[2] = 4;
    heat(N, steps, A, B, weights[1]);
    for (int i = 0; i < N; i++)
        printf("A[%d] = %.17g\n", i, A[i]);
    struct float4 f = {1, 2, 3, 4};
    int2 two = 2;
    printf("conf %d %g %g\n", conf.n, conf.lo, conf.hi);
    for (int k = 0; k < 6; k++)
        printf("order[%d] = %d\n", k, order[k]);
    printf("nested %g %g %d\n", nested.f.x, nested.f.y, nested.k);
    printf("tag %c%c%c%c size %d\n", tag[0], tag[1], tag[2], tag[3], (int)sizeof tag);
    printf("mix %g count %d\n", mix(1.0, 3.0), count(2, 5));
    printf("names %g %g %d %d %d %d\n", f.x + f.w, make_double2(1.5), warpSize, two, dim3(2),
           blockDim());
    printf("table %d\n", table[2]);
    free(A);
    free(B);
    return 0;
}
