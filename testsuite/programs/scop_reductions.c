/* scop_reductions.c -- reductions as image and statistics code has them
 * (issue 56, class 1), in scops:
 *   stats:   the sum, the largest (a MAX macro) and the smallest (a ?:
 *            clamp) value of an int image, and a checksum (^=), over both
 *            loops; an unsigned product (wraps, exactly);
 *   rows:    a per-row sum reset before each row (`s = 0; for j: s += ...;
 *            out[i] = s;`): the row loop stays serial, the column loop
 *            reduces;
 *   twice:   one scalar reduced by two statements (`+=` and `-=`);
 *   prefix:  a running sum read by another statement in the loop (a scan):
 *            serial, as it must be;
 *   mean:    a floating-point sum: serial (reassociating it would change
 *            the bits), with a note.
 * Integer reductions run in parallel with OpenMP's `reduction` clause; the
 * output must match the original bit for bit.
 * Output: every scalar, and the row sums and the scan.
 *
 * flextile-test: args: 12 10 | 3 1 | 40 33
 * flextile-test: options: default | --tile | --tile --tile-sizes 4,8 | --rectangle | --scalene | --no-openmp
 */
#include <stdio.h>
#include <stdlib.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Deterministic input: a 32-bit LCG. */
static unsigned lcg_state = 12345u;
static int next_int(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return (int)(lcg_state >> 12) - (1 << 19);
}

static void stats(int h, int w, int img[h][w], long *sum, int *hi, int *lo, unsigned *check,
                  unsigned *prod)
{
    long s = 0;
    int top = img[0][0], bottom = img[0][0];
    unsigned x = 0, p = 1;
#pragma scop
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            s += img[i][j];
            top = MAX(top, img[i][j]);
            bottom = img[i][j] < bottom ? img[i][j] : bottom;
            x ^= img[i][j];
            p *= img[i][j] | 1;
        }
#pragma endscop
    *sum = s;
    *hi = top;
    *lo = bottom;
    *check = x;
    *prod = p;
}

static void rows(int h, int w, int img[h][w], long out[h])
{
    long s;
#pragma scop
    for (int i = 0; i < h; i++) {
        s = 0;
        for (int j = 0; j < w; j++)
            s += img[i][j];
        out[i] = s;
    }
#pragma endscop
}

static long twice(int h, int w, int img[h][w])
{
    long s = 7;
#pragma scop
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            s += img[i][j];
            s -= img[i][j] / 3;
        }
#pragma endscop
    return s;
}

static void prefix(int n, int v[n], long scan[n])
{
    long s = 0;
#pragma scop
    for (int i = 0; i < n; i++) {
        s += v[i];
        scan[i] = s;
    }
#pragma endscop
}

static double mean(int n, int v[n])
{
    double m = 0;
#pragma scop
    for (int i = 0; i < n; i++)
        m += v[i] * 0.1;
#pragma endscop
    return m / n;
}

int main(int argc, char **argv)
{
    int h = argc > 1 ? atoi(argv[1]) : 12;
    int w = argc > 2 ? atoi(argv[2]) : 10;
    if (h < 1 || w < 1 || h > 4096 || w > 4096) {
        fprintf(stderr, "sizes must be in 1..4096\n");
        return 1;
    }
    int (*img)[w] = malloc(sizeof(int) * h * w);
    long *row = malloc(sizeof(long) * h);
    long *scan = malloc(sizeof(long) * w);
    if (!img || !row || !scan) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            img[i][j] = next_int();
    long sum;
    int hi, lo;
    unsigned check, prod;
    stats(h, w, img, &sum, &hi, &lo, &check, &prod);
    printf("sum %ld max %d min %d xor %u product %u\n", sum, hi, lo, check, prod);
    rows(h, w, img, row);
    printf("rows:");
    for (int i = 0; i < h; i++)
        printf(" %ld", row[i]);
    printf("\ntwice %ld\n", twice(h, w, img));
    prefix(w, img[0], scan);
    printf("scan:");
    for (int j = 0; j < w; j++)
        printf(" %ld", scan[j]);
    printf("\nmean %a\n", mean(w, img[h - 1]));
    free(img);
    free(row);
    free(scan);
    return 0;
}
