/* simplenet.c — the FX workflow on a model written in C.
 *
 * SimpleNet (conv 3->16 k3, batch norm, relu, adaptive avg pool, flatten,
 * linear 16->10; see src/trace/seed_models.c for its forward function) is
 * traced into a GraphModule, printed, run, and rewritten twice:
 *   1. a node loop replaces every relu by leaky_relu(0.1) (inserting_after,
 *      replace_all_uses_with, erase_node, recompile);
 *   2. a Transformer does the same by overriding call_function.
 * Every step is checked numerically against an eager run of the forward
 * function (the original net, then a SimpleNet built with LeakyReLU(0.1)).
 * Exits 0 only when every check passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nnfx.h"
#include "../src/trace/seed_models.h"

static int failures;

static void check(bool ok, const char *what) {
    printf("  [%s] %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* Largest |a - b| (INFINITY when shapes differ). */
static double max_diff(const nnfx_tensor *a, const nnfx_tensor *b) {
    if (!a || !b || a->rank != b->rank || nnfx_tensor_numel(a) != nnfx_tensor_numel(b)) return INFINITY;
    double d = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++) d = fmax(d, fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i)));
    return d;
}

static void print_code(nnfx_gm *gm, const char *title) {
    nnfx_error err = {0};
    char *code = nnfx_gm_code(gm, &err);
    printf("%s\n%s", title, code ? code : err.msg);
    free(code);
}

/* Runs a GraphModule on one input; NULL (message printed) on error. */
static nnfx_tensor *run_gm(nnfx_gm *gm, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_tensor *out = NULL;
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &x, 1, &out, &nout, &err)) {
        printf("  run failed: %s\n", err.msg);
        return NULL;
    }
    return out;
}

/* Runs a module eagerly; NULL (message printed) on error. */
static nnfx_tensor *run_eager(nnfx_module *m, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_tensor *out = NULL;
    if (nnfx_module_run(m, 1, &x, &out, &err)) printf("  eager run failed: %s\n", err.msg);
    return out;
}

static int count_op(nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) k += nnfx_node_is_op(n, op);
    return k;
}

/* Transformer handler: relu -> leaky_relu(0.1), everything else copied. */
static nnfx_node *relu_to_leaky(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args,
                                nnfx_error *err) {
    if (!nnfx_node_is_op(n, NNFX_OP_RELU)) return nnfx_transformer_default_call_function(t, n, nargs, args, err);
    nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
    return nnfx_graph_call_op(nnfx_transformer_graph(t), NNFX_OP_LEAKY_RELU, nargs, args, 1, &alpha, err);
}

int main(void) {
    const uint64_t seed = 7;
    nnfx_error err = {0};
    nnfx_module *net = trace_seed_simplenet(seed, NULL);
    trace_seed_simplenet_opts lo = {.leaky = 0.1};
    nnfx_module *leaky_net = trace_seed_simplenet(seed, &lo);
    int64_t shape[4] = {1, 3, 32, 32};
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, shape, &err);
    if (!net || !leaky_net || !x) {
        printf("setup failed: %s\n", err.msg);
        return 1;
    }
    nnfx_tensor_fill_uniform(x, 42, -1.0f, 1.0f);

    /* 1. trace */
    nnfx_shape in = nnfx_shape_of(4, 1, 3, 32, 32);
    nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &in, &err);
    if (!gm) {
        printf("trace failed: %s\n", err.msg);
        return 1;
    }
    nnfx_graph *g = nnfx_gm_graph(gm);
    printf("traced SimpleNet: %d nodes, %d parameters\n", nnfx_graph_num_nodes(g), nnfx_graph_num_params(g));
    print_code(gm, "--- gm.code (traced) ---");

    printf("checks:\n");
    nnfx_tensor *ref = run_eager(net, x);
    nnfx_tensor *out = run_gm(gm, x);
    check(out && out->rank == 2 && out->shape[0] == 1 && out->shape[1] == 10, "traced output has shape [1, 10]");
    double d = max_diff(out, ref);
    printf("  traced vs eager: max |diff| = %.3g\n", d);
    check(d <= 1e-5, "traced run equals the eager run");

    /* 2. relu -> leaky_relu(0.1) with a node loop */
    int replaced = 0;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n; n = next) {
        next = nnfx_node_next(n); /* n may be erased below */
        if (!nnfx_node_is_op(n, NNFX_OP_RELU)) continue;
        nnfx_inserting_after(g, n);
        nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
        nnfx_arg a = nnfx_node_arg(n, 0); /* relu's input */
        nnfx_node *leaky = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &a, 1, &alpha, &err);
        if (!leaky) break;
        nnfx_node_set_module_path(leaky, nnfx_node_module_path(n), NULL); /* keep provenance */
        nnfx_replace_all_uses_with(n, leaky, NULL, NULL);
        if (nnfx_erase_node(g, n, &err)) break;
        replaced++;
    }
    nnfx_inserting_at_end(g);
    if (err.status) printf("  rewrite failed: %s\n", err.msg);
    check(nnfx_gm_recompile(gm, &err) == NNFX_OK, "recompile after the rewrite (lint + shapes)");
    print_code(gm, "--- gm.code (relu -> leaky_relu) ---");
    check(replaced == 1 && count_op(g, NNFX_OP_RELU) == 0 && count_op(g, NNFX_OP_LEAKY_RELU) == 1,
          "the one relu became one leaky_relu(0.1)");
    nnfx_tensor *ref2 = run_eager(leaky_net, x);
    nnfx_tensor *out2 = run_gm(gm, x);
    d = max_diff(out2, ref2);
    printf("  rewritten vs eager LeakyReLU(0.1) SimpleNet: max |diff| = %.3g\n", d);
    check(d <= 1e-5, "rewritten graph equals an eager SimpleNet with LeakyReLU(0.1)");
    d = max_diff(out2, ref);
    printf("  rewritten vs original: max |diff| = %.3g\n", d);
    check(d > 1e-6 && isfinite(d), "the rewrite changed the output (the test is not vacuous)");

    /* 3. the same rewrite with a Transformer */
    nnfx_gm *gm0 = nnfx_symbolic_trace(net, 1, &in, &err);
    nnfx_transformer_handlers h = {.call_function = relu_to_leaky};
    nnfx_graph *g3 = gm0 ? nnfx_transform(nnfx_gm_graph(gm0), &h, NULL, &err) : NULL;
    nnfx_gm *gm3 = g3 ? nnfx_gm_new(g3, &err) : NULL;
    if (!gm3) nnfx_graph_free(g3);
    check(gm3 && nnfx_gm_recompile(gm3, &err) == NNFX_OK, "Transformer output recompiles");
    if (err.status) printf("  error: %s\n", err.msg);
    nnfx_tensor *out3 = gm3 ? run_gm(gm3, x) : NULL;
    if (gm3) print_code(gm3, "--- gm.code (Transformer: relu -> leaky_relu) ---");
    d = max_diff(out3, ref2);
    printf("  Transformer vs eager LeakyReLU(0.1) SimpleNet: max |diff| = %.3g\n", d);
    check(d <= 1e-5, "Transformer output equals the eager LeakyReLU(0.1) SimpleNet");
    d = max_diff(out3, out2);
    check(d == 0, "Transformer and node loop give identical outputs");

    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_tensor_release(ref2);
    nnfx_tensor_release(out2);
    nnfx_tensor_release(out3);
    nnfx_gm_free(gm);
    nnfx_gm_free(gm0);
    nnfx_gm_free(gm3);
    nnfx_module_free(net);
    nnfx_module_free(leaky_net);
    printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
