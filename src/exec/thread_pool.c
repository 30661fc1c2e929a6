/* thread_pool.c — a small pthread pool for parallel loops: workers wait for
 * a new loop (a generation counter), take task indices from atomic
 * counters (each thread its own contiguous share first, then the others'),
 * and the caller works too.
 *
 * A model runs one loop per plan step, back to back, so both waits spin
 * briefly before they sleep: a worker that has finished a loop watches the
 * generation for up to FX_SPIN_NS before blocking on the condition
 * variable, and the caller watches the count of workers still in the loop
 * likewise. Without the spin every step paid a futex wake-up of the worker
 * and then waited for it even when the caller had already done every task
 * (on small steps two threads ran slower than one).
 *
 * A worker joins a loop through its gate (the loop's generation, a closed
 * bit and the count of workers inside): once the caller has done every
 * task it closes the gate and waits only for the workers inside, so a
 * worker not running at that moment (a loaded machine) skips the loop
 * instead of holding the caller up until the scheduler runs it. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/core_int.h"
#include "exec/fast_int.h"

#define FX_SPIN_NS 200000 /* 0.2 ms: longer than a step's wake-up, short enough to cost nothing idle */

struct fx_pool {
    int threads;
    bool omp; /* fx_pool_new_omp: loops run on the OpenMP threads (no workers of its own) */
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    atomic_uint_fast64_t generation; /* bumped per loop (under mu) */
    atomic_bool quit;
    int sleepers; /* workers blocked on wake (under mu) */
    /* the current loop: written before the generation is bumped */
    fx_task_fn fn;
    void *ctx;
    struct fx_range *ranges;   /* per thread: its contiguous share of the tasks */
    atomic_uint_fast64_t gate; /* generation << 32 | GATE_CLOSED | workers inside the loop */
};

#define GATE_CLOSED ((uint64_t)1 << 31) /* the caller has left: no worker joins any more */
#define GATE_COUNT  (GATE_CLOSED - 1)

/* Thread i's share of a loop: tasks [next, end), taken in order; a thread
 * done with its own share takes tasks from the others' (so a loop's
 * neighbouring tasks, which touch neighbouring data, stay on one thread
 * from step to step when the work is even). One cache line each. */
struct fx_range {
    _Alignas(64) atomic_llong next;
    int64_t end;
};

typedef struct worker_arg {
    fx_pool *p;
    int tid;
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#endif
}

/* Spins until done(p, arg) or FX_SPIN_NS pass; true when done. */
static bool spin_until(bool (*done)(fx_pool *, uint64_t), fx_pool *p, uint64_t arg) {
    int64_t t0 = 0;
    for (int i = 0;; i++) {
        if (done(p, arg)) return true;
        cpu_relax();
        if ((i & 63) == 63) {
            int64_t t = core_now_ns();
            if (!t0)
                t0 = t;
            else if (t - t0 > FX_SPIN_NS)
                return false;
        }
    }
}

static bool new_loop(fx_pool *p, uint64_t seen) { return atomic_load(&p->generation) != seen || atomic_load(&p->quit); }
static bool loop_done(fx_pool *p, uint64_t unused) {
    (void)unused;
    return (atomic_load(&p->gate) & GATE_COUNT) == 0;
}

/* Joins loop `gen` unless the caller has closed it (or moved on). */
static bool join(fx_pool *p, uint64_t gen) {
    uint_fast64_t v = atomic_load(&p->gate);
    while (v >> 32 == (gen & 0xffffffffu) && !(v & GATE_CLOSED)) /* the gate holds the low 32 bits */
        if (atomic_compare_exchange_weak(&p->gate, &v, v + 1)) return true;
    return false;
}

static void drain(fx_pool *p, int tid) {
    for (int k = 0; k < p->threads; k++) {
        struct fx_range *r = &p->ranges[(tid + k) % p->threads];
        for (;;) {
            int64_t t = atomic_fetch_add(&r->next, 1);
            if (t >= r->end) break;
            p->fn(p->ctx, t, tid);
        }
    }
}

static void *worker(void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    fx_pool *p = wa.p;
    uint64_t seen = 0;
    for (;;) {
        if (!spin_until(new_loop, p, seen)) {
            pthread_mutex_lock(&p->mu);
            p->sleepers++;
            while (!new_loop(p, seen))
                pthread_cond_wait(&p->wake, &p->mu);
            p->sleepers--;
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->quit)) break;
        seen = atomic_load(&p->generation);
        if (!join(p, seen)) continue;
        drain(p, wa.tid);
        uint64_t left = atomic_fetch_sub(&p->gate, 1) - 1;
        if ((left & GATE_CLOSED) && !(left & GATE_COUNT)) {
            /* the last one out of a closed loop: wake the caller if it sleeps */
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

fx_pool *fx_pool_new(int threads) {
    if (threads < 1) threads = 1;
    fx_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->generation, 0);
    atomic_init(&p->quit, false);
    atomic_init(&p->gate, 0);
    p->tids = calloc((size_t)threads, sizeof *p->tids);
    p->ranges = aligned_alloc(64, sizeof *p->ranges * (size_t)threads);
    for (int i = 0; p->ranges && i < threads; i++)
        atomic_init(&p->ranges[i].next, 0), p->ranges[i].end = 0;
    if (!p->tids || !p->ranges) {
        fx_pool_free(p);
        return NULL;
    }
    for (int i = 1; i < threads; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa) break;
        wa->p = p;
        wa->tid = i;
        if (pthread_create(&p->tids[i], NULL, worker, wa)) {
            free(wa);
            break;
        }
        p->threads = i + 1;
    }
    return p;
}

void fx_pool_free(fx_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->quit, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; !p->omp && i < p->threads; i++)
        pthread_join(p->tids[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->tids);
    free(p->ranges);
    free(p);
}

fx_pool *fx_pool_new_omp(int threads) {
    if (threads < 2 || !fx_dnnl_parallel_available()) return NULL;
    fx_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->omp = true;
    p->threads = threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->ranges = aligned_alloc(64, sizeof *p->ranges * (size_t)threads);
    if (!p->ranges) {
        fx_pool_free(p);
        return NULL;
    }
    for (int i = 0; i < threads; i++)
        atomic_init(&p->ranges[i].next, 0), p->ranges[i].end = 0;
    return p;
}

int fx_pool_threads(const fx_pool *p) { return p ? p->threads : 1; }

/* One OpenMP thread of a loop: its share, then the others'. */
static void omp_body(void *arg, int tid) { drain(arg, tid); }

void fx_pool_run(fx_pool *p, int64_t ntasks, fx_task_fn fn, void *ctx) {
    if (ntasks <= 0) return;
    if (!p || p->threads == 1 || ntasks == 1) {
        for (int64_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    /* every worker inside the previous loop has left it (the caller waited)
     * and no other can join it, so the loop's fields are free to write; the
     * generation bump publishes them */
    p->fn = fn;
    p->ctx = ctx;
    for (int i = 0; i < p->threads; i++) {
        atomic_store(&p->ranges[i].next, ntasks * i / p->threads);
        p->ranges[i].end = ntasks * (i + 1) / p->threads;
    }
    if (p->omp) {
        fx_dnnl_parallel(p->threads, omp_body, p);
        return;
    }
    uint64_t gen = atomic_load(&p->generation) + 1;
    atomic_store(&p->gate, gen << 32); /* open, before the generation publishes the loop */
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->generation, gen);
    if (p->sleepers) pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    drain(p, 0);
    /* every task is taken: workers not inside yet skip the loop; wait for
     * those inside (the tasks they took) */
    atomic_fetch_or(&p->gate, GATE_CLOSED);
    if (!spin_until(loop_done, p, 0)) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->gate) & GATE_COUNT)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}
