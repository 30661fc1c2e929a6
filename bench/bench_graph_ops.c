/* bench_graph_ops.c — cost of tracing and editing large graphs.
 *
 * A chain of N blocks, each  x = sigmoid(relu(bn(conv1x1_4to4(x)))) * x,
 * is written as C modules and traced (src/trace/seed_models.c). For each N
 * one JSON line:
 *   trace_s                     symbolic_trace (incl. shape inference, recompile)
 *   relu_to_leaky_incl_trace_s  trace + every relu -> leaky_relu + recompile
 *   dce_recompile_s             eliminate_dead_code + recompile
 *   fuse_conv_bn_s              the fuse-conv-bn pass (every block) + recompile
 *   replace_pattern_incl_trace_s  trace + rule "sigmoid(x) -> clip(x, 0.0, 1.0)"
 *                               through the subgraph rewriter + recompile
 * Each key is the best of 3 runs at every N, so that the time per node of
 * a large chain is compared with a small one's measured the same way
 * (bench/torch_fx_graph_ops.py, which measures the same with torch.fx,
 * takes the best of 3 for N <= 1600 and 1 run above); trace_first_s is the
 * first run's trace alone (the heap still cold: page faults included);
 * cpu_s lists the CPU seconds of those same runs, key by key (a loaded
 * machine inflates wall time far more than CPU time).
 * chain90909 has 1,000,001 nodes.
 *
 * `--relu N` instead builds a chain of N Relu nodes through the graph API
 * and prints build_s (graph construction), recompile_s (lint + shapes) and
 * run_s (the first run, which builds the compiled plan) as one JSON line.
 *
 * Under valgrind --tool=callgrind each timed phase is also dumped as its
 * own profile part, named "<model>:<key>" (callgrind_annotate per part gives
 * instruction counts per phase, a load-independent measure of scaling).
 * Usage: bench_graph_ops [N ...]   (default 100 400 1600 25000)
 *        bench_graph_ops --relu N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_DUMP_STATS_AT
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#define CALLGRIND_ZERO_STATS          ((void)0)
#endif

#include "nnfx.h"
#include "seed_models.h"

static char phase_name[64];
static double phase_cpu0;

/* CPU seconds this process has used (all threads). */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Starts a phase: the callgrind counters restart (no-op natively). */
static void phase_begin(void) {
    CALLGRIND_ZERO_STATS;
    phase_cpu0 = cpu_s();
}

/* Ends phase `key` of `model`: callgrind dumps its counts under that name.
 * Returns the CPU seconds the phase used. */
static double phase_end(const char *model, const char *key) {
    double c = cpu_s() - phase_cpu0;
    snprintf(phase_name, sizeof phase_name, "%s:%s", model, key);
    CALLGRIND_DUMP_STATS_AT(phase_name);
    return c;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Replaces every relu by leaky_relu(0.01) of its input; returns the count
 * or -1 on error. */
static int relu_to_leaky(nnfx_graph *g, nnfx_error *err) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n; n = next) {
        next = nnfx_node_next(n);
        if (!nnfx_node_is_op(n, NNFX_OP_RELU)) continue;
        nnfx_inserting_after(g, n);
        nnfx_attr alpha = nnfx_attr_float("alpha", 0.01);
        nnfx_arg a = nnfx_node_arg(n, 0);
        nnfx_node *leaky = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &a, 1, &alpha, err);
        if (!leaky) return -1;
        nnfx_replace_all_uses_with(n, leaky, NULL, NULL);
        if (nnfx_erase_node(g, n, err)) return -1;
        k++;
    }
    nnfx_inserting_at_end(g);
    return k;
}

typedef struct timings {
    int nodes;
    double t[5]; /* the five keys, in the order printed */
    double c[5]; /* their CPU seconds (less sensitive to a loaded machine) */
} timings;

/* One measurement of every key into *out; 0 on success. */
static int bench_once(int nblocks, timings *out) {
    nnfx_error err = {0};
    nnfx_module *m = trace_seed_chain(nblocks, 1);
    if (!m) {
        fprintf(stderr, "chain%d: out of memory building the model\n", nblocks);
        return 1;
    }
    nnfx_shape in = nnfx_shape_of(4, 1, 4, 8, 8);
    char model[32];
    snprintf(model, sizeof model, "chain%d", nblocks);
    phase_begin();
    double t0 = now_s();
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &in, &err);
    double t1 = now_s();
    double c0 = phase_end(model, "trace_s");
    if (!gm) {
        fprintf(stderr, "chain%d: trace failed: %s\n", nblocks, err.msg);
        nnfx_module_free(m);
        return 1;
    }
    int nodes = nnfx_graph_num_nodes(nnfx_gm_graph(gm));
    nnfx_gm_free(gm);

    phase_begin();
    double t2 = now_s();
    gm = nnfx_symbolic_trace(m, 1, &in, &err);
    int replaced = gm ? relu_to_leaky(nnfx_gm_graph(gm), &err) : -1;
    nnfx_status st = replaced == nblocks ? nnfx_gm_recompile(gm, &err) : NNFX_ERR_GRAPH;
    double t3 = now_s();
    double c1 = phase_end(model, "relu_to_leaky_incl_trace_s");
    if (st) {
        fprintf(stderr, "chain%d: relu -> leaky_relu failed (%d replaced): %s\n", nblocks, replaced, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }

    phase_begin();
    double t4 = now_s();
    int dead = nnfx_eliminate_dead_code(nnfx_gm_graph(gm));
    st = nnfx_gm_recompile(gm, &err);
    double t5 = now_s();
    double c2 = phase_end(model, "dce_recompile_s");
    if (st || dead != 0) {
        fprintf(stderr, "chain%d: dce/recompile failed (%d removed): %s\n", nblocks, dead, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    phase_begin();
    double t6 = now_s();
    nnfx_pass_report rep = {0};
    st = nnfx_pass_fuse_conv_bn(nnfx_gm_graph(gm), &rep, &err);
    if (!st) st = nnfx_gm_recompile(gm, &err);
    double t7 = now_s();
    double c3 = phase_end(model, "fuse_conv_bn_s");
    int fused = rep.changed;
    nnfx_pass_report_free(&rep);
    if (st || fused != nblocks) {
        fprintf(stderr, "chain%d: fuse-conv-bn failed (%d fused): %s\n", nblocks, fused, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    nnfx_gm_free(gm);

    phase_begin();
    double t8 = now_s();
    gm = nnfx_symbolic_trace(m, 1, &in, &err);
    replaced = gm ? nnfx_rewrite_text(nnfx_gm_graph(gm), "sigmoid(x) -> clip(x, 0.0, 1.0)", &err) : -1;
    st = replaced == nblocks ? nnfx_gm_recompile(gm, &err) : NNFX_ERR_GRAPH;
    double t9 = now_s();
    double c4 = phase_end(model, "replace_pattern_incl_trace_s");
    if (st) {
        fprintf(stderr, "chain%d: replace_pattern failed (%d replaced): %s\n", nblocks, replaced, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    *out = (timings){nodes, {t1 - t0, t3 - t2, t5 - t4, t7 - t6, t9 - t8}, {c0, c1, c2, c3, c4}};
    nnfx_gm_free(gm);
    nnfx_module_free(m);
    return 0;
}

static int bench(int nblocks) {
    timings best = {0}, t;
    const int runs = 3;
    double first_trace = 0;
    for (int r = 0; r < runs; r++) {
        if (bench_once(nblocks, &t)) return 1;
        if (r == 0) first_trace = t.t[0];
        best.nodes = t.nodes;
        for (int k = 0; k < 5; k++)
            if (r == 0 || t.t[k] < best.t[k]) best.t[k] = t.t[k], best.c[k] = t.c[k];
    }
    printf("{\"model\":\"chain%d\",\"nodes\":%d,\"trace_s\":%.6f,\"relu_to_leaky_incl_trace_s\":%.6f,"
           "\"dce_recompile_s\":%.6f,\"fuse_conv_bn_s\":%.6f,\"replace_pattern_incl_trace_s\":%.6f,"
           "\"trace_first_s\":%.6f,"
           "\"cpu_s\":[%.6f,%.6f,%.6f,%.6f,%.6f]}\n",
           nblocks, best.nodes, best.t[0], best.t[1], best.t[2], best.t[3], best.t[4], first_trace, best.c[0],
           best.c[1], best.c[2], best.c[3], best.c[4]);
    fflush(stdout);
    return 0;
}

/* A chain of n Relu nodes on a [1, 16] input: build, recompile, first
 * run (which builds the compiled plan). */
static int bench_relu_chain(int n) {
    nnfx_error err = {0};
    char model[32];
    snprintf(model, sizeof model, "relu%d", n);
    phase_begin();
    double t0 = now_s();
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[2] = {1, 16};
    nnfx_meta m = {0};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d);
    nnfx_node *x = g ? nnfx_graph_placeholder(g, "x", &m, &err) : NULL;
    for (int i = 0; x && i < n; i++) {
        nnfx_arg a = nnfx_arg_node(x);
        x = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    }
    if (!x || !nnfx_graph_output(g, 1, &x, &err)) {
        fprintf(stderr, "%s: building the graph failed: %s\n", model, err.msg);
        nnfx_graph_free(g);
        return 1;
    }
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    double t1 = now_s();
    (void)phase_end(model, "build_s");
    phase_begin();
    nnfx_status st = gm ? nnfx_gm_recompile(gm, &err) : NNFX_ERR_NOMEM;
    double t2 = now_s();
    (void)phase_end(model, "recompile_s");
    float v[16];
    for (int i = 0; i < 16; i++)
        v[i] = (float)i - 8.0f;
    nnfx_tensor *in = nnfx_tensor_from_floats(2, d, v, &err), *out = NULL;
    int nout = 0;
    phase_begin();
    double t3 = now_s();
    if (!st) st = in ? nnfx_gm_run(gm, 1, &in, 1, &out, &nout, &err) : NNFX_ERR_NOMEM;
    double t4 = now_s();
    (void)phase_end(model, "run_s");
    bool ok = !st && nout == 1 && ((const float *)out->data)[0] == 0.0f && ((const float *)out->data)[15] == 7.0f;
    if (!ok)
        fprintf(stderr, "%s: run failed or gave a wrong value: %s\n", model, st ? err.msg : "");
    else
        printf("{\"model\":\"%s\",\"nodes\":%d,\"build_s\":%.6f,\"recompile_s\":%.6f,\"run_s\":%.6f}\n", model,
               nnfx_graph_num_nodes(g), t1 - t0, t2 - t1, t4 - t3);
    nnfx_tensor_release(in);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    static const int dflt[] = {100, 400, 1600, 25000};
    int rc = 0;
    if (argc == 3 && !strcmp(argv[1], "--relu")) {
        int n = atoi(argv[2]);
        if (n <= 0) {
            fprintf(stderr, "usage: bench_graph_ops --relu N (a positive count)\n");
            return 2;
        }
        return bench_relu_chain(n);
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            int n = atoi(argv[i]);
            if (n <= 0) {
                fprintf(stderr, "usage: bench_graph_ops [blocks ...] | --relu N (positive counts)\n");
                return 2;
            }
            rc |= bench(n);
        }
    } else {
        for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++)
            rc |= bench(dflt[i]);
    }
    return rc;
}
