/* common.h - driver helpers shared by the flextile benchmark programs.
 *
 * Plain C99 (plus POSIX clock_gettime).  Everything here is `static`, so each
 * program is a single translation unit: `gcc ... prog.c` (add -Ibenchmarks when
 * the program, or a flextile output derived from it, lives elsewhere).
 *
 * Nothing in this header is part of a loop chain; the annotated regions live
 * in each program's kernel function.
 *
 * Uniform command line (see README.md):
 *   prog [--size test|bench|paper|AxB[xC]] [--reps K] [--dump FILE]
 *        [--threads T] [--seed S] [--init NAME]
 */
#ifndef FLEXTILE_BENCH_COMMON_H
#define FLEXTILE_BENCH_COMMON_H

/* clock_gettime under -std=c99 (include this header first) */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
/* Declared here rather than through <omp.h>, so that a parser given -fopenmp
 * without an OpenMP installation (libclang) still accepts the programs. */
extern void omp_set_num_threads(int);
extern int omp_get_max_threads(void);
#endif

#define BENCH_MAX_DIMS 4
#define BENCH_MAX_REPS 1000

typedef struct {
  const char *prog;      /* program name, for messages */
  const char *size_name; /* "test", "bench", "paper" or "custom" */
  int ndims;             /* number of size values the program takes */
  int dims[BENCH_MAX_DIMS];
  int reps;
  const char *dump;      /* NULL: no dump */
  unsigned seed;         /* 0: the spec's Appendix A input formula */
  int threads;           /* 0: leave the OpenMP default */
  const char *init;      /* program-specific initialisation variant, or NULL */
} bench_opts;

/* Size presets: ndims values each; bench == paper where the paper size is
 * already fast enough. */
typedef struct {
  int ndims;
  const char *dim_names; /* e.g. "rows x cols", for the usage text */
  int test[BENCH_MAX_DIMS];
  int bench[BENCH_MAX_DIMS];
  int paper[BENCH_MAX_DIMS];
  const char *inits;     /* NULL or "a|b" list of --init values, first = default */
} bench_sizes;

static inline void bench_usage(const char *prog, const bench_sizes *s)
{
  int i;
  fprintf(stderr, "usage: %s [--size test|bench|paper|%s] [--reps K] [--dump FILE]\n", prog,
          s->dim_names);
  fprintf(stderr, "          [--threads T] [--seed S]");
  if (s->inits) fprintf(stderr, " [--init %s]", s->inits);
  fprintf(stderr, "\n  sizes (%s): test=", s->dim_names);
  for (i = 0; i < s->ndims; i++) fprintf(stderr, "%s%d", i ? "x" : "", s->test[i]);
  fprintf(stderr, " bench=");
  for (i = 0; i < s->ndims; i++) fprintf(stderr, "%s%d", i ? "x" : "", s->bench[i]);
  fprintf(stderr, " paper=");
  for (i = 0; i < s->ndims; i++) fprintf(stderr, "%s%d", i ? "x" : "", s->paper[i]);
  fprintf(stderr, " (default: paper)\n");
}

static inline int bench_parse_dims(const char *arg, int n, int *dims)
{
  int i;
  const char *p = arg;
  for (i = 0; i < n; i++) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v <= 0 || v > 1000000000L) return 0;
    dims[i] = (int)v;
    if (i + 1 < n && *end != 'x' && *end != 'X' && *end != ',') return 0;
    if (i + 1 == n && *end != '\0') return 0;
    p = end + 1;
  }
  return 1;
}

/* Checks --init against the preset list; without --init, takes the first
 * entry (the default).  Afterwards o->init is the variant's name. */
static char bench_init_buf[64];
static inline void bench_resolve_init(bench_opts *o, const bench_sizes *s)
{
  const char *p;
  for (p = s->inits; p && *p;) {
    const char *e = strchr(p, '|');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (!o->init) {
      if (len >= sizeof bench_init_buf) len = sizeof bench_init_buf - 1;
      memcpy(bench_init_buf, p, len);
      bench_init_buf[len] = '\0';
      o->init = bench_init_buf;
      return;
    }
    if (len == strlen(o->init) && !strncmp(p, o->init, len)) return;
    p = e ? e + 1 : NULL;
  }
  fprintf(stderr, "%s: unknown --init '%s' (want %s)\n", o->prog, o->init, s->inits);
  exit(2);
}

static inline void bench_parse(int argc, char **argv, const bench_sizes *s, bench_opts *o)
{
  int i;
  memset(o, 0, sizeof *o);
  o->prog = argv[0];
  o->size_name = "paper";
  o->ndims = s->ndims;
  memcpy(o->dims, s->paper, sizeof o->dims);
  o->reps = 3;
  for (i = 1; i < argc; i += 2) { /* options come as pairs: --name value */
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      bench_usage(argv[0], s);
      exit(0);
    }
    if (!v) {
      fprintf(stderr, "%s: option %s needs a value\n", argv[0], a);
      bench_usage(argv[0], s);
      exit(2);
    }
    if (!strcmp(a, "--size")) {
      if (!strcmp(v, "test")) { o->size_name = "test"; memcpy(o->dims, s->test, sizeof o->dims); }
      else if (!strcmp(v, "bench")) { o->size_name = "bench"; memcpy(o->dims, s->bench, sizeof o->dims); }
      else if (!strcmp(v, "paper")) { o->size_name = "paper"; memcpy(o->dims, s->paper, sizeof o->dims); }
      else if (bench_parse_dims(v, s->ndims, o->dims)) { o->size_name = "custom"; }
      else {
        fprintf(stderr, "%s: bad --size '%s' (want test, bench, paper or %d values like %s)\n",
                argv[0], v, s->ndims, s->dim_names);
        exit(2);
      }
    } else if (!strcmp(a, "--reps")) {
      o->reps = atoi(v);
      if (o->reps < 1 || o->reps > BENCH_MAX_REPS) {
        fprintf(stderr, "%s: --reps must be in 1..%d\n", argv[0], BENCH_MAX_REPS);
        exit(2);
      }
    } else if (!strcmp(a, "--dump")) {
      o->dump = v;
    } else if (!strcmp(a, "--threads")) {
      o->threads = atoi(v);
    } else if (!strcmp(a, "--seed")) {
      o->seed = (unsigned)strtoul(v, NULL, 10);
    } else if (!strcmp(a, "--init")) {
      o->init = v;
    } else {
      fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
      bench_usage(argv[0], s);
      exit(2);
    }
  }
  if (o->init && !s->inits) {
    fprintf(stderr, "%s: this program has no --init variants\n", argv[0]);
    exit(2);
  }
  if (s->inits) bench_resolve_init(o, s);
#ifdef _OPENMP
  if (o->threads > 0) omp_set_num_threads(o->threads);
#endif
}

static inline void *bench_alloc(size_t bytes)
{
  /* zeroed: every array starts as 0, so frames/ghost zones that no stage
   * writes read as 0 (as the spec requires). */
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "out of memory allocating %zu bytes\n", bytes);
    exit(3);
  }
  memset(p, 0, bytes); /* also touches every page, outside the timed region */
  return p;
}

static inline double bench_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Timing goes to stderr so that stdout is fully deterministic. */
static inline void bench_report_time(const bench_opts *o, double *t)
{
  double med;
  int threads = 1;
  qsort(t, (size_t)o->reps, sizeof *t, bench_cmp_double);
  med = (o->reps % 2) ? t[o->reps / 2] : 0.5 * (t[o->reps / 2 - 1] + t[o->reps / 2]);
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  fprintf(stderr, "time_ms min=%.3f median=%.3f reps=%d threads=%d\n", t[0], med, o->reps,
          threads);
}

/* input: a description of the input data, printed as is. */
static inline void bench_header(const bench_opts *o, const char *name, const char *input)
{
  int i;
  printf("benchmark: %s\n", name);
  printf("size: ");
  for (i = 0; i < o->ndims; i++) printf("%s%d", i ? "x" : "", o->dims[i]);
  printf(" (%s)\n", o->size_name);
  if (o->init) printf("init: %s\n", o->init);
  if (o->seed) printf("input: %s, seed %u\n", input, o->seed);
  else printf("input: %s\n", input);
}

/* For programs whose input does not depend on --seed. */
static inline void bench_no_seed(const bench_opts *o)
{
  if (o->seed) {
    fprintf(stderr, "%s: --seed is not used by this program\n", o->prog);
    exit(2);
  }
}

/* ---- inputs ------------------------------------------------------------ */

/* Appendix A: u8(c,X,Y) = (31X + 17Y + 71c + (X*Y mod 13)) mod 256.  With a
 * non-zero seed, a stateless hash of (seed,c,X,Y) instead (order independent). */
static inline uint32_t bench_hash4(uint32_t seed, uint32_t c, uint32_t x, uint32_t y)
{
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)seed << 32);
  h ^= c + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= y + 0x94d049bb133111ebULL + (h << 6) + (h >> 2);
  /* xorshift-multiply finaliser (splitmix64) */
  h ^= h >> 30; h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27; h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return (uint32_t)h;
}

static inline int bench_u8(unsigned seed, int c, int X, int Y)
{
  if (seed) return (int)(bench_hash4(seed, (uint32_t)c, (uint32_t)X, (uint32_t)Y) & 255u);
  return (31 * X + 17 * Y + 71 * c + (X * Y) % 13) % 256;
}

/* ---- outputs ----------------------------------------------------------- */

static inline uint64_t bench_fnv1a(const void *p, size_t n)
{
  const unsigned char *b = (const unsigned char *)p;
  uint64_t h = 0xcbf29ce484222325ULL;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static inline void bench_dump(const bench_opts *o, const void *p, size_t bytes)
{
  FILE *f;
  if (!o->dump) return;
  f = fopen(o->dump, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
    fprintf(stderr, "%s: cannot write dump file %s\n", o->prog, o->dump);
    exit(4);
  }
}

/* Prints the checksum block for a contiguous output.  kind: 'f' float,
 * 'd' double, 'b' uint8, 'h' uint16. */
static inline void bench_output(const bench_opts *o, const char *name, char kind, const void *p,
                         size_t n, const char *shape)
{
  double sum = 0.0, sabs = 0.0, mn = HUGE_VAL, mx = -HUGE_VAL;
  size_t i, esz = kind == 'f' ? 4 : kind == 'd' ? 8 : kind == 'b' ? 1 : 2;
  for (i = 0; i < n; i++) {
    double v = kind == 'f'   ? (double)((const float *)p)[i]
               : kind == 'd' ? ((const double *)p)[i]
               : kind == 'b' ? (double)((const uint8_t *)p)[i]
                             : (double)((const uint16_t *)p)[i];
    sum += v;
    sabs += fabs(v);
    if (v < mn) mn = v;
    if (v > mx) mx = v;
  }
  printf("output: %s %s %s\n", name,
         kind == 'f' ? "float32" : kind == 'd' ? "float64" : kind == 'b' ? "uint8" : "uint16",
         shape);
  printf("checksum: %.17g\n", sum);
  printf("sum_abs: %.17g\n", sabs);
  printf("min: %.17g\n", mn);
  printf("max: %.17g\n", mx);
  printf("fnv1a64: %016llx\n", (unsigned long long)bench_fnv1a(p, n * esz));
  bench_dump(o, p, n * esz);
}

#endif /* FLEXTILE_BENCH_COMMON_H */
