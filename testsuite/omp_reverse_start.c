/* omp_reverse_start.c -- an LD_PRELOAD shim that makes wrongly parallel loops
 * show up deterministically in the testsuite.
 *
 * It wraps libgomp's GOMP_parallel (what gcc emits for '#pragma omp parallel'
 * and for '#pragma omp parallel for' with the default static schedule). In
 * each parallel region, thread k of n starts its share only once threads
 * k+1 .. n-1 have finished theirs, or, in case they wait for it at a
 * barrier, once thread k+1 has been running its share for a time limit
 * (FT_REVERSE_DELAY_US microseconds per thread still running, default 2000).
 * The limit counts from thread k+1's start, not from thread k's: on a loaded
 * machine a thread ahead may not be scheduled for a long time, and thread k
 * must not start early because of that. With a static schedule the chunks of a
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

/* Threads whose start times are recorded; with more, the limit counts from
 * a thread's own start. */
#define MAX_THREADS 1024

struct wrapped {
    void (*fn)(void *);
    void *data;
    long limit_ns;  /* longest wait per thread that has not finished yet */
    int finished;   /* threads of this region done with fn, updated atomically */
    long started_ns[MAX_THREADS]; /* when each thread began fn; 0: not yet */
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
    long own_start = now_ns();
    while (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE) < ahead) {
        /* A thread ahead may be blocked at a barrier waiting for us: give up
         * waiting once the next thread has run for the time limit per
         * missing thread. It starts after the threads ahead of it (or after
         * its own limit), so it is never waited for forever. */
        int missing = ahead - __atomic_load_n(&w->finished, __ATOMIC_ACQUIRE);
        long since = id + 1 < MAX_THREADS
                         ? __atomic_load_n(&w->started_ns[id + 1], __ATOMIC_ACQUIRE)
                         : own_start;
        if (since != 0 && now_ns() - since > (long)missing * w->limit_ns)
            break;
        struct timespec ts = {0, 2000};
        nanosleep(&ts, NULL);
    }
    if (id < MAX_THREADS)
        __atomic_store_n(&w->started_ns[id], now_ns(), __ATOMIC_RELEASE);
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
    struct wrapped *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, "omp_reverse_start: out of memory\n");
        abort();
    }
    w->fn = fn;
    w->data = data;
    w->limit_ns = delay_us * 1000L;
    real(reverse_start, w, num_threads, flags);
    free(w);
}
