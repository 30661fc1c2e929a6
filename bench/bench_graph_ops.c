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
 * Each key is the best of 3 runs for N <= 1600 (1 run above), as in
 * bench/torch_fx_graph_ops.py, which measures the same with torch.fx.
 * Usage: bench_graph_ops [N ...]   (default 100 400 1600 25000) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nnfx.h"
#include "seed_models.h"

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
    double t0 = now_s();
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &in, &err);
    double t1 = now_s();
    if (!gm) {
        fprintf(stderr, "chain%d: trace failed: %s\n", nblocks, err.msg);
        nnfx_module_free(m);
        return 1;
    }
    int nodes = nnfx_graph_num_nodes(nnfx_gm_graph(gm));
    nnfx_gm_free(gm);

    double t2 = now_s();
    gm = nnfx_symbolic_trace(m, 1, &in, &err);
    int replaced = gm ? relu_to_leaky(nnfx_gm_graph(gm), &err) : -1;
    nnfx_status st = replaced == nblocks ? nnfx_gm_recompile(gm, &err) : NNFX_ERR_GRAPH;
    double t3 = now_s();
    if (st) {
        fprintf(stderr, "chain%d: relu -> leaky_relu failed (%d replaced): %s\n", nblocks, replaced, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }

    double t4 = now_s();
    int dead = nnfx_eliminate_dead_code(nnfx_gm_graph(gm));
    st = nnfx_gm_recompile(gm, &err);
    double t5 = now_s();
    if (st || dead != 0) {
        fprintf(stderr, "chain%d: dce/recompile failed (%d removed): %s\n", nblocks, dead, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    double t6 = now_s();
    nnfx_pass_report rep = {0};
    st = nnfx_pass_fuse_conv_bn(nnfx_gm_graph(gm), &rep, &err);
    if (!st) st = nnfx_gm_recompile(gm, &err);
    double t7 = now_s();
    int fused = rep.changed;
    nnfx_pass_report_free(&rep);
    if (st || fused != nblocks) {
        fprintf(stderr, "chain%d: fuse-conv-bn failed (%d fused): %s\n", nblocks, fused, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    nnfx_gm_free(gm);

    double t8 = now_s();
    gm = nnfx_symbolic_trace(m, 1, &in, &err);
    replaced = gm ? nnfx_rewrite_text(nnfx_gm_graph(gm), "sigmoid(x) -> clip(x, 0.0, 1.0)", &err) : -1;
    st = replaced == nblocks ? nnfx_gm_recompile(gm, &err) : NNFX_ERR_GRAPH;
    double t9 = now_s();
    if (st) {
        fprintf(stderr, "chain%d: replace_pattern failed (%d replaced): %s\n", nblocks, replaced, err.msg);
        nnfx_gm_free(gm);
        nnfx_module_free(m);
        return 1;
    }
    *out = (timings){nodes, {t1 - t0, t3 - t2, t5 - t4, t7 - t6, t9 - t8}};
    nnfx_gm_free(gm);
    nnfx_module_free(m);
    return 0;
}

static int bench(int nblocks) {
    timings best = {0}, t;
    int runs = nblocks <= 1600 ? 3 : 1;
    for (int r = 0; r < runs; r++) {
        if (bench_once(nblocks, &t)) return 1;
        best.nodes = t.nodes;
        for (int k = 0; k < 5; k++)
            if (r == 0 || t.t[k] < best.t[k]) best.t[k] = t.t[k];
    }
    printf("{\"model\":\"chain%d\",\"nodes\":%d,\"trace_s\":%.6f,\"relu_to_leaky_incl_trace_s\":%.6f,"
           "\"dce_recompile_s\":%.6f,\"fuse_conv_bn_s\":%.6f,\"replace_pattern_incl_trace_s\":%.6f}\n",
           nblocks, best.nodes, best.t[0], best.t[1], best.t[2], best.t[3], best.t[4]);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    static const int dflt[] = {100, 400, 1600, 25000};
    int rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            int n = atoi(argv[i]);
            if (n <= 0) {
                fprintf(stderr, "usage: bench_graph_ops [blocks ...] (positive counts)\n");
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
