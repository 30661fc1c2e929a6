/* bench_load.c — cost of loading an ONNX model with nnfx_onnx_load.
 *
 * Loads MODEL `--runs N` times (default 5; each run loads and frees) and
 * prints one JSON line:
 *   load_s            median seconds of nnfx_onnx_load (min in load_min_s)
 *   nodes, params     graph nodes and parameter tensors
 *   param_bytes       bytes of all parameters; mapped_bytes of them point
 *                     into the file (zero-copy), deferred_bytes too but are
 *                     not aligned for their dtype and get copied on first
 *                     access through the graph, copied_bytes were copied
 *   touch_s           with --touch: median seconds of load + reading every
 *                     weight byte (what a first inference pays for the pages)
 *   recompile_s       with --recompile: median seconds of load + GraphModule
 *                     recompile (lint + shape inference + plan), what
 *                     `nnfx run` pays before running
 * Peak memory is measured from outside (bench/run_load_bench.sh runs this
 * under /usr/bin/time with --runs 1).
 * Usage: bench_load MODEL [--runs N] [--touch] [--recompile] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/core_int.h"
#include "ir/ir_int.h" /* reads parameters without the first-access copy */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    int nodes, params;
    uint64_t param_bytes, mapped_bytes, deferred_bytes, copied_bytes;
    uint64_t checksum; /* keeps the touch loop from being optimized away */
} stats;

static void collect(const nnfx_graph *g, stats *s) {
    s->nodes = nnfx_graph_num_nodes(g);
    s->params = nnfx_graph_num_params(g);
    s->param_bytes = s->mapped_bytes = s->deferred_bytes = s->copied_bytes = 0;
    for (int i = 0; i < s->params; i++) {
        const nnfx_tensor *t = g->params[i].t; /* as loaded: not copied yet */
        s->param_bytes += t->nbytes;
        if (core_tensor_unaligned(t))
            s->deferred_bytes += t->nbytes;
        else if (t->storage == NNFX_STORAGE_MAPPED)
            s->mapped_bytes += t->nbytes;
        else
            s->copied_bytes += t->nbytes;
    }
}

/* Reads every weight byte (one word per 64 bytes is enough to fault every
 * page in, but summing all words also costs the memory bandwidth). */
static uint64_t touch(const nnfx_graph *g) {
    uint64_t sum = 0;
    for (int i = 0, n = nnfx_graph_num_params(g); i < n; i++) {
        const nnfx_tensor *t = nnfx_graph_param_at(g, i);
        const unsigned char *p = t->data;
        size_t k = 0;
        for (; k + 8 <= t->nbytes; k += 8) {
            uint64_t w;
            memcpy(&w, p + k, 8);
            sum += w;
        }
        for (; k < t->nbytes; k++)
            sum += p[k];
    }
    return sum;
}

typedef enum { MODE_LOAD, MODE_TOUCH, MODE_RECOMPILE } mode;

/* One timed run; returns seconds, or -1 on error. */
static double one(const char *path, mode md, stats *s) {
    nnfx_error err = {0};
    double t0 = now_s();
    nnfx_graph *g = nnfx_onnx_load(path, &err);
    if (!g) {
        fprintf(stderr, "bench_load: %s: %s\n", path, err.msg);
        return -1;
    }
    if (md == MODE_TOUCH) s->checksum += touch(g);
    /* only plain loads report the parameters as loaded (touch and recompile
     * copy the unaligned ones) */
    double t1 = now_s();
    if (md == MODE_RECOMPILE) {
        nnfx_gm *gm = nnfx_gm_new(g, &err);
        if (!gm) {
            fprintf(stderr, "bench_load: %s: %s\n", path, err.msg);
            nnfx_graph_free(g);
            return -1;
        }
        if (nnfx_gm_recompile(gm, &err)) {
            fprintf(stderr, "bench_load: %s: recompile: %s\n", path, err.msg);
            nnfx_gm_free(gm);
            return -1;
        }
        t1 = now_s();
        s->nodes = nnfx_graph_num_nodes(nnfx_gm_graph(gm));
        nnfx_gm_free(gm);
        return t1 - t0;
    }
    if (md == MODE_LOAD) collect(g, s);
    nnfx_graph_free(g);
    return t1 - t0;
}

static int usage(void) {
    fprintf(stderr, "usage: bench_load MODEL [--runs N] [--touch] [--recompile]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int runs = 5;
    bool do_touch = false, do_recompile = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1) return usage();
        } else if (strcmp(argv[i], "--touch") == 0) {
            do_touch = true;
        } else if (strcmp(argv[i], "--recompile") == 0) {
            do_recompile = true;
        } else if (argv[i][0] == '-' || path) {
            return usage();
        } else {
            path = argv[i];
        }
    }
    if (!path) return usage();
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "bench_load: %s: cannot stat\n", path);
        return 1;
    }
    double *v = malloc(sizeof *v * (size_t)runs);
    if (!v) return 1;
    stats s = {0};
    double lmin = 1e300, tmed = -1, rmed = -1;
    for (int i = 0; i < runs; i++) {
        if ((v[i] = one(path, MODE_LOAD, &s)) < 0) return 1;
        if (v[i] < lmin) lmin = v[i];
    }
    double lmed = median(v, runs);
    if (do_touch) {
        for (int i = 0; i < runs; i++)
            if ((v[i] = one(path, MODE_TOUCH, &s)) < 0) return 1;
        tmed = median(v, runs);
    }
    int nodes_after = -1;
    if (do_recompile) {
        stats r = {0};
        for (int i = 0; i < runs; i++)
            if ((v[i] = one(path, MODE_RECOMPILE, &r)) < 0) return 1;
        rmed = median(v, runs);
        nodes_after = r.nodes;
    }
    free(v);
    printf("{\"model\": \"%s\", \"file_bytes\": %lld, \"runs\": %d, \"load_s\": %.6f, \"load_min_s\": %.6f, "
           "\"nodes\": %d, \"params\": %d, \"param_bytes\": %llu, \"mapped_bytes\": %llu, \"deferred_bytes\": %llu, "
           "\"copied_bytes\": %llu",
           path, (long long)st.st_size, runs, lmed, lmin, s.nodes, s.params, (unsigned long long)s.param_bytes,
           (unsigned long long)s.mapped_bytes, (unsigned long long)s.deferred_bytes,
           (unsigned long long)s.copied_bytes);
    if (do_touch) printf(", \"touch_s\": %.6f, \"checksum\": %llu", tmed, (unsigned long long)(s.checksum & 0xffff));
    if (do_recompile) printf(", \"recompile_s\": %.6f, \"nodes_after_recompile\": %d", rmed, nodes_after);
    printf("}\n");
    return 0;
}
