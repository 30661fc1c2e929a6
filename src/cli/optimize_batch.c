/* optimize_batch.c — `nnfx optimize` over many models: a worker pool,
 * a progress bar, the summary table and the JSON summary. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/fleet.h"
#include "cli/optimize.h"

typedef struct batch {
    const opt_opts *o;
    int n;
    char **models;
    char **outs;
    opt_result *res;
    int next, done;
    pthread_mutex_t lock;
    cli_progress bar;
} batch;

static void *worker(void *arg) {
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        int k = b->next < b->n ? b->next++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (k < 0) break;
        opt_one(b->o, b->models[k], b->outs[k], &b->res[k]);
        pthread_mutex_lock(&b->lock);
        cli_progress_step(&b->bar, ++b->done);
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

int opt_batch(const opt_opts *o, int nmodels, char **models, const char *dir, long jobs) {
    if (!cli_make_dirs(dir)) {
        cli_error("optimize", "%s: cannot create the output folder: %s", dir, strerror(errno));
        return CLI_EXIT_BAD_INPUT;
    }
    batch b = {0};
    b.o = o;
    b.n = nmodels;
    b.models = models;
    b.outs = calloc((size_t)nmodels, sizeof *b.outs);
    b.res = calloc((size_t)nmodels, sizeof *b.res);
    int rc = CLI_EXIT_OK;
    if (!b.outs || !b.res) {
        free(b.outs);
        free(b.res);
        cli_error("optimize", "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < nmodels && !rc; i++) {
        const char *base = cli_basename(models[i]);
        size_t len = strlen(dir) + strlen(base) + 2;
        b.outs[i] = malloc(len);
        if (!b.outs[i]) {
            cli_error("optimize", "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
            break;
        }
        snprintf(b.outs[i], len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", base);
        for (int k = 0; k < i; k++)
            if (strcmp(b.outs[k], b.outs[i]) == 0)
                rc = cli_usage_error("optimize", "%s and %s would both be written to %s", models[k], models[i],
                                     b.outs[i]);
    }
    /* --shard K/N: keep this shard's models (after the collision check over
     * the whole list, so every shard refuses what the whole run refuses) */
    int nall = nmodels;
    if (!rc && o->shard_n) {
        int kept = 0;
        for (int i = 0; i < nall; i++) {
            if (cli_shard_of(models[i], o->shard_n) != o->shard_k) continue;
            char *t = b.outs[kept];
            b.outs[kept] = b.outs[i];
            b.outs[i] = t;
            models[kept++] = models[i];
        }
        nmodels = b.n = kept;
    }
    if (!rc) {
        pthread_mutex_init(&b.lock, NULL);
        cli_progress_start(&b.bar, "optimize", nmodels, o->quiet);
        int nthreads = (int)(jobs < nmodels ? jobs : nmodels);
        if (nthreads < 1) nthreads = 1;
        pthread_t *th = calloc((size_t)nthreads, sizeof *th);
        int started = 0;
        for (int t = 0; th && t < nthreads; t++)
            if (pthread_create(&th[t], NULL, worker, &b) == 0) started++;
        if (started == 0) worker(&b); /* no threads: do it here */
        for (int t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        free(th);
        cli_progress_end(&b.bar);
        pthread_mutex_destroy(&b.lock);

        int nok = 0, ncheck = 0, nerr = 0, nhit = 0;
        for (int i = 0; i < nmodels; i++) {
            nhit += b.res[i].cached;
            if (b.res[i].rc > rc) rc = b.res[i].rc;
            nok += b.res[i].rc == CLI_EXIT_OK;
            ncheck += b.res[i].rc == CLI_EXIT_CHECK;
            nerr += b.res[i].rc > CLI_EXIT_CHECK;
        }
        bool report_stdout = o->report && strcmp(o->report, "-") == 0;
        if (!o->quiet && !report_stdout) {
            int w = 5;
            for (int i = 0; i < nmodels; i++)
                if ((int)strlen(models[i]) > w) w = (int)strlen(models[i]);
            if (w > 60) w = 60;
            printf("%-*s  %-12s  %12s  %11s  %10s  %9s\n", w, "model", "result", "ops", "max abs err", "acc drop",
                   "ms");
            for (int i = 0; i < nmodels; i++) {
                const opt_result *r = &b.res[i];
                char ops[32] = "-", err[32] = "-", drop[32] = "-";
                if (r->nodes_before || r->nodes_after)
                    snprintf(ops, sizeof ops, "%d -> %d", r->nodes_before, r->nodes_after);
                if (r->validated) snprintf(err, sizeof err, "%.3g", r->max_abs);
                if (r->have_acc) snprintf(drop, sizeof drop, "%.2f", r->drop);
                char status[48];
                snprintf(status, sizeof status, "%s%s", r->status, r->cached ? ", cached" : "");
                printf("%-*s  %-12s  %12s  %11s  %10s  %9.1f\n", w, models[i], status, ops, err, drop, r->ms);
            }
            printf("%d model%s: %d ok, %d failed a check, %d error%s", nmodels, nmodels == 1 ? "" : "s", nok, ncheck,
                   nerr, nerr == 1 ? "" : "s");
            if (o->cache) printf(", %d cached", nhit);
            if (o->shard_n) printf(" (shard %d/%d of %d listed)", o->shard_k, o->shard_n, nall);
            printf("\n");
        }
        if (o->report) {
            sbuf s = {0};
            sb_printf(&s, "{\n\"models\": %d, \"ok\": %d, \"check_failed\": %d, \"errors\": %d, \"exit_code\": %d,\n",
                      nmodels, nok, ncheck, nerr, rc);
            if (o->cache) sb_printf(&s, "\"cache_hits\": %d,\n", nhit);
            if (o->shard_n)
                sb_printf(&s, "\"shard\": {\"index\": %d, \"count\": %d, \"listed\": %d},\n", o->shard_k, o->shard_n,
                          nall);
            sb_printf(&s, "\"results\": [\n");
            for (int i = 0; i < nmodels; i++)
                sb_printf(&s, "%s%s", i ? ",\n" : "", b.res[i].report ? b.res[i].report : "null");
            sb_printf(&s, "\n]\n}\n");
            char *text = sb_finish(&s);
            nnfx_error e = {0};
            if (!text || cli_write_file(o->report, text, strlen(text), &e)) {
                cli_fail("optimize", o->report, &e);
                if (!rc) rc = CLI_EXIT_BAD_INPUT;
            }
            free(text);
        }
    }
    for (int i = 0; i < nall; i++)
        free(b.outs[i]);
    for (int i = 0; i < nmodels; i++) {
        free(b.res[i].report);
    }
    free(b.outs);
    free(b.res);
    return rc;
}
