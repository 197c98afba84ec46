/* omp_reverse_start.c -- an LD_PRELOAD shim that makes wrongly parallel loops
 * show up deterministically in the testsuite.
 *
 * It wraps libgomp's GOMP_parallel (what gcc emits for '#pragma omp parallel'
 * and for '#pragma omp parallel for' with the default static schedule): inside
 * each parallel region, thread k of n starts only after (n-1-k) * DELAY
 * microseconds (FT_REVERSE_DELAY_US, default 2000). With a static schedule the
 * chunks then run from the last to the first, so a loop that carries a
 * dependence across a chunk boundary but was marked parallel computes
 * different values, on every run, whatever the machine's load. Correct code
 * gives the same bits in any order. Barriers inside a region still work (the
 * threads only start late; nobody waits for another thread to finish).
 *
 * Built by tests/testsuite.rs:
 *   gcc -O2 -shared -fPIC -fopenmp -o libomp_reverse_start.so omp_reverse_start.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);

struct wrapped {
    void (*fn)(void *);
    void *data;
    long delay_ns;
};

static void delayed_start(void *p)
{
    const struct wrapped *w = p;
    long ns = (long)(omp_get_num_threads() - 1 - omp_get_thread_num()) * w->delay_ns;
    if (ns > 0) {
        struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    w->fn(w->data);
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    static gomp_parallel_fn real;
    static long delay_us = -1;
    if (!real) {
        real = (gomp_parallel_fn)dlsym(RTLD_NEXT, "GOMP_parallel");
        if (!real) {
            fprintf(stderr, "omp_reverse_start: GOMP_parallel not found\n");
            abort();
        }
    }
    if (delay_us < 0) {
        const char *s = getenv("FT_REVERSE_DELAY_US");
        delay_us = s ? atol(s) : 2000;
    }
    struct wrapped w = {fn, data, delay_us * 1000L};
    real(delayed_start, &w, num_threads, flags);
}
