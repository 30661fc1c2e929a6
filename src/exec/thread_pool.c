/* thread_pool.c — a small pthread pool for parallel loops: workers wait on a
 * generation counter, take task indices from an atomic counter, and the
 * caller works too. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "exec/fast_int.h"

struct fx_pool {
    int threads;
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint64_t generation; /* bumped per loop (under mu) */
    bool quit;
    /* the current loop */
    fx_task_fn fn;
    void *ctx;
    int64_t ntasks;
    atomic_llong next;
    int running; /* workers still inside the loop (under mu) */
};

typedef struct worker_arg {
    fx_pool *p;
    int tid;
} worker_arg;

static void drain(fx_pool *p, int tid) {
    for (;;) {
        int64_t t = atomic_fetch_add(&p->next, 1);
        if (t >= p->ntasks) break;
        p->fn(p->ctx, t, tid);
    }
}

static void *worker(void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    fx_pool *p = wa.p;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        drain(p, wa.tid);
        pthread_mutex_lock(&p->mu);
        if (--p->running == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
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
    p->tids = calloc((size_t)threads, sizeof *p->tids);
    if (!p->tids) {
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
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->threads; i++)
        pthread_join(p->tids[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->tids);
    free(p);
}

int fx_pool_threads(const fx_pool *p) { return p ? p->threads : 1; }

void fx_pool_run(fx_pool *p, int64_t ntasks, fx_task_fn fn, void *ctx) {
    if (ntasks <= 0) return;
    if (!p || p->threads == 1 || ntasks == 1) {
        for (int64_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    atomic_store(&p->next, 0);
    p->running = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    drain(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->running > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
