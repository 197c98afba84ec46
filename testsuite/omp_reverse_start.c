/* omp_reverse_start.c -- an LD_PRELOAD shim that makes wrongly parallel loops
 * show up deterministically in the testsuite.
 *
 * It wraps libgomp's GOMP_parallel (what gcc emits for '#pragma omp parallel'
 * and for '#pragma omp parallel for' with the default static schedule). In
 * each parallel region, thread k of n starts its share only once threads
 * k+1 .. n-1 have finished theirs, or after a time limit
 * (FT_REVERSE_DELAY_US microseconds per waiting step, default 2000) in case
 * they wait for it at a barrier. With a static schedule the chunks of a
 * parallel loop then run one after the other from the last to the first, so a
 * loop that carries a dependence across a chunk boundary but was marked
 * parallel computes different values on every run, whatever the machine's
 * load. Correct code gives the same bits in any order.
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
    long limit_ns;  /* longest wait per thread that has not finished yet */
    int finished;   /* threads of this region done with fn, updated atomically */
};

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void reverse_start(void *p)
{
    struct wrapped *w = p;
    int n = omp_get_num_threads(), id = omp_get_thread_num();
    int ahead = n - 1 - id; /* threads that must finish first */
    long start = now_ns();
    while (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE) < ahead) {
        /* A thread ahead may be blocked at a barrier waiting for us: give up
         * waiting once the time limit per missing thread has passed. */
        int missing = ahead - __atomic_load_n(&w->finished, __ATOMIC_ACQUIRE);
        if (now_ns() - start > (long)missing * w->limit_ns)
            break;
        struct timespec ts = {0, 2000};
        nanosleep(&ts, NULL);
    }
    w->fn(w->data);
    __atomic_add_fetch(&w->finished, 1, __ATOMIC_RELEASE);
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
    struct wrapped w = {fn, data, delay_us * 1000L, 0};
    real(reverse_start, &w, num_threads, flags);
}
