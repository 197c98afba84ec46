/* alias_facts.c -- pointers that need no run-time alias guard (issue 56,
 * class 6), as legacy code has them: no `restrict` anywhere.
 *   blur:     a two-pass blur through two buffers the function allocates
 *             itself (malloc, and calloc assigned after the declaration);
 *             the input and output parameters are never assigned, so they
 *             cannot point into those buffers
 *   quantise: float samples to int codes and back (strict aliasing: a
 *             `float *` and an `int *` never share memory)
 *   smooth:   a variable-length local array between two parameters
 * Only the pairs that may still overlap ('in'/'out', 'a'/'back') are
 * compared at run time; the loops are parallel, tiled and overlapped.
 * Output: every element of every result, in hexadecimal.
 *
 * flextile-test: args: 20 | 3 | 57
 * flextile-test: options: default | --tile --tile-sizes 8 | --rectangle --tile-sizes 8 | --scalene | --rectangle | --no-openmp
 */
#include <stdio.h>
#include <stdlib.h>

/* Deterministic input: a 64-bit LCG; every value is k / 2^24, exact in float. */
static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;
static inline float next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)(lcg_state >> 40) / 16777216.0f;
}

static void blur(int n, const float *in, float *out)
{
    float *h = malloc(sizeof(float) * n);
    float *v;
    v = calloc(n, sizeof(float));
    if (!h || !v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
#pragma scop
    for (int i = 1; i < n - 1; i++)
        h[i] = (in[i - 1] + 2.0f * in[i] + in[i + 1]) * 0.25f;
    for (int i = 2; i < n - 2; i++)
        v[i] = (h[i - 1] + 2.0f * h[i] + h[i + 1]) * 0.25f;
    for (int i = 2; i < n - 2; i++)
        out[i] = v[i] - in[i];
#pragma endscop
    free(h);
    free(v);
}

static void quantise(int n, const float *a, int *q, float *back)
{
#pragma scop
    for (int i = 0; i < n; i++)
        q[i] = (int)(a[i] * 255.0f);
    for (int i = 1; i < n - 1; i++)
        back[i] = (float)(q[i - 1] + q[i] + q[i + 1]) / 765.0f;
#pragma endscop
}

static void smooth(int n, const float *a, float *out)
{
    float t[n];
#pragma scop
    for (int i = 0; i < n; i++)
        t[i] = a[i] * a[i];
    for (int i = 1; i < n - 1; i++)
        out[i] = t[i - 1] + t[i] + t[i + 1];
#pragma endscop
}

static void print(const char *name, const float *x, int n)
{
    printf("%s:", name);
    for (int i = 0; i < n; i++)
        printf(" %a", x[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    if (n < 3 || n > 100000) {
        fprintf(stderr, "n must be in 3..100000\n");
        return 1;
    }
    float *in = malloc(sizeof(float) * n);
    float *out = calloc(n, sizeof(float));
    float *back = calloc(n, sizeof(float));
    float *sm = calloc(n, sizeof(float));
    int *q = calloc(n, sizeof(int));
    if (!in || !out || !back || !sm || !q) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        in[i] = next_value();
    blur(n, in, out);
    quantise(n, in, q, back);
    smooth(n, in, sm);
    print("blur", out, n);
    print("back", back, n);
    print("smooth", sm, n);
    printf("q:");
    for (int i = 0; i < n; i++)
        printf(" %d", q[i]);
    printf("\n");
    free(in);
    free(out);
    free(back);
    free(sm);
    free(q);
    return 0;
}
