/* seed_workflows.c — the seed articles' FX workflows done in C, each checked
 * numerically (see seed_workflows.h). The models are in seed_models.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seed_models.h"
#include "seed_workflows.h"

/* --- helpers ----------------------------------------------------------------------- */

typedef struct wf {
    FILE *out;
    int failures;
    bool text; /* also print the FX text form of graphs */
} wf;

/* Set by trace_workflows_show_text. */
static bool g_show_text;

void trace_workflows_show_text(bool on) { g_show_text = on; }

static void check(wf *w, bool ok, const char *what) {
    fprintf(w->out, "  [%s] %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) w->failures++;
}

/* Largest |a - b| (INFINITY when either is missing or the sizes differ). */
static double max_diff(const nnfx_tensor *a, const nnfx_tensor *b) {
    if (!a || !b || a->rank != b->rank || nnfx_tensor_numel(a) != nnfx_tensor_numel(b)) return INFINITY;
    double d = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++)
        d = fmax(d, fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i)));
    return d;
}

static void print_code(wf *w, nnfx_gm *gm, const char *title) {
    nnfx_error err = {0};
    char *code = nnfx_gm_code(gm, &err);
    fprintf(w->out, "--- %s ---\n%s", title, code ? code : err.msg);
    if (!code) fprintf(w->out, "\n");
    free(code);
    if (!w->text) return;
    char *text = nnfx_graph_to_text(nnfx_gm_graph(gm));
    if (text) fprintf(w->out, "--- the same graph in FX text form ---\n%s", text);
    free(text);
}

/* Runs a GraphModule on one input; NULL (message printed) on error. */
static nnfx_tensor *run_gm(wf *w, nnfx_gm *gm, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_tensor *res = NULL;
    int nout = 0;
    if (!gm) return NULL;
    if (nnfx_gm_run(gm, 1, &x, 1, &res, &nout, &err)) {
        fprintf(w->out, "  run failed: %s\n", err.msg);
        return NULL;
    }
    return res;
}

/* Runs a module's forward eagerly; NULL (message printed) on error. */
static nnfx_tensor *run_eager(wf *w, nnfx_module *m, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_tensor *res = NULL;
    if (nnfx_module_run(m, 1, &x, &res, &err)) fprintf(w->out, "  eager run failed: %s\n", err.msg);
    return res;
}

/* A float32 input of the given shape, uniform in [lo, hi). */
static nnfx_tensor *input(int rank, const int64_t *shape, uint64_t seed, float lo, float hi) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, NULL);
    if (t) nnfx_tensor_fill_uniform(t, seed, lo, hi);
    return t;
}

static int count_op(nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        k += nnfx_node_is_op(n, op);
    return k;
}

/* Traces m on one input shape; NULL (message printed) on error. */
static nnfx_gm *trace1(wf *w, nnfx_module *m, nnfx_shape s) {
    nnfx_error err = {0};
    nnfx_gm *gm = m ? nnfx_symbolic_trace(m, 1, &s, &err) : NULL;
    if (!gm) fprintf(w->out, "  trace failed: %s\n", m ? err.msg : "model not built (out of memory)");
    return gm;
}

static void report_diff(wf *w, const char *what, double d, double tol) {
    char line[300];
    snprintf(line, sizeof line, "%s (max |diff| = %.3g, tolerance %.0e)", what, d, tol);
    check(w, d <= tol, line);
}

/* --- 1. SimpleNet: relu -> leaky_relu ------------------------------------------------- */

/* Transformer handler: relu -> leaky_relu(0.1), everything else copied. */
static nnfx_node *relu_to_leaky(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args,
                                nnfx_error *err) {
    if (!nnfx_node_is_op(n, NNFX_OP_RELU)) return nnfx_transformer_default_call_function(t, n, nargs, args, err);
    nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
    return nnfx_graph_call_op(nnfx_transformer_graph(t), NNFX_OP_LEAKY_RELU, nargs, args, 1, &alpha, err);
}

int trace_workflow_simplenet(FILE *out) {
    wf w = {out, 0, g_show_text};
    nnfx_error err = {0};
    const uint64_t seed = 7;
    trace_seed_simplenet_opts lo = {.leaky = 0.1};
    nnfx_module *net = trace_seed_simplenet(seed, NULL);
    nnfx_module *leaky_net = trace_seed_simplenet(seed, &lo);
    int64_t shape[4] = {1, 3, 32, 32};
    nnfx_tensor *x = input(4, shape, 42, -1.0f, 1.0f);
    nnfx_tensor *ref = NULL, *res = NULL, *ref2 = NULL, *res2 = NULL, *res3 = NULL;
    nnfx_gm *gm0 = NULL, *gm3 = NULL;
    fprintf(out, "== SimpleNet: trace, then relu -> leaky_relu(0.1) ==\n");
    nnfx_gm *gm = trace1(&w, net, nnfx_shape_of(4, 1, 3, 32, 32));
    check(&w, gm && leaky_net && x, "SimpleNet traced with example input [1, 3, 32, 32]");
    if (!gm || !leaky_net || !x) goto done;
    nnfx_graph *g = nnfx_gm_graph(gm);
    fprintf(out, "traced: %d nodes, %d parameters\n", nnfx_graph_num_nodes(g), nnfx_graph_num_params(g));
    print_code(&w, gm, "gm.code (traced)");

    ref = run_eager(&w, net, x);
    res = run_gm(&w, gm, x);
    check(&w, res && res->rank == 2 && res->shape[0] == 1 && res->shape[1] == 10, "traced output has shape [1, 10]");
    report_diff(&w, "traced run equals the eager run", max_diff(res, ref), 1e-5);

    /* every relu -> leaky_relu(0.1), with a node loop */
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
    if (err.status) fprintf(out, "  rewrite failed: %s\n", err.msg);
    check(&w, nnfx_gm_recompile(gm, &err) == NNFX_OK, "recompile after the rewrite (lint + shapes)");
    print_code(&w, gm, "gm.code (relu -> leaky_relu by a node loop)");
    check(&w, replaced == 1 && count_op(g, NNFX_OP_RELU) == 0 && count_op(g, NNFX_OP_LEAKY_RELU) == 1,
          "the one relu (an nn.ReLU-style layer) became one leaky_relu(0.1)");
    ref2 = run_eager(&w, leaky_net, x);
    res2 = run_gm(&w, gm, x);
    report_diff(&w, "rewritten graph equals an eager SimpleNet built with LeakyReLU(0.1)", max_diff(res2, ref2), 1e-5);
    double d = max_diff(res2, ref);
    char line[200];
    snprintf(line, sizeof line, "the rewrite changed the output (max |diff| vs original = %.3g)", d);
    check(&w, d > 1e-6 && isfinite(d), line);

    /* the same rewrite with a Transformer overriding call_function */
    gm0 = trace1(&w, net, nnfx_shape_of(4, 1, 3, 32, 32));
    nnfx_transformer_handlers h = {.call_function = relu_to_leaky};
    nnfx_graph *g3 = gm0 ? nnfx_transform(nnfx_gm_graph(gm0), &h, NULL, &err) : NULL;
    gm3 = g3 ? nnfx_gm_new(g3, &err) : NULL;
    if (!gm3) nnfx_graph_free(g3);
    check(&w, gm3 && nnfx_gm_recompile(gm3, &err) == NNFX_OK, "the Transformer's graph recompiles");
    if (err.status) fprintf(out, "  error: %s\n", err.msg);
    if (gm3) print_code(&w, gm3, "gm.code (relu -> leaky_relu by a Transformer)");
    res3 = run_gm(&w, gm3, x);
    report_diff(&w, "Transformer output equals the eager LeakyReLU(0.1) SimpleNet", max_diff(res3, ref2), 1e-5);
    check(&w, max_diff(res3, res2) == 0, "Transformer and node loop give identical outputs");
done:
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(res);
    nnfx_tensor_release(ref2);
    nnfx_tensor_release(res2);
    nnfx_tensor_release(res3);
    nnfx_gm_free(gm);
    nnfx_gm_free(gm0);
    nnfx_gm_free(gm3);
    nnfx_module_free(net);
    nnfx_module_free(leaky_net);
    return w.failures;
}

/* --- 2. sigmoid -> clip ------------------------------------------------------------------- */

int trace_workflow_sigmoid_to_clip(FILE *out) {
    wf w = {out, 0, g_show_text};
    nnfx_error err = {0};
    const uint64_t seed = 11;
    nnfx_module *net = trace_seed_sigmoid_mlp(seed, false);
    nnfx_module *clip_net = trace_seed_sigmoid_mlp(seed, true);
    int64_t shape[2] = {64, 10};
    nnfx_tensor *x = input(2, shape, 5, -4.0f, 4.0f);
    nnfx_tensor *ref = NULL, *res = NULL, *orig = NULL;
    nnfx_graph *seedway = NULL;
    fprintf(out, "== linear-relu-linear-sigmoid: sigmoid -> clip(x, 0, 1) ==\n");
    nnfx_gm *gm = trace1(&w, net, nnfx_shape_of(2, 64, 10));
    check(&w, gm && clip_net && x, "the MLP traced with example input [64, 10]");
    if (!gm || !clip_net || !x) goto done;
    nnfx_graph *g = nnfx_gm_graph(gm);
    print_code(&w, gm, "gm.code (traced)");
    orig = run_gm(&w, gm, x);

    /* The seed's snippet, literally: new = clip(node); node.replace_all_uses_with(new).
     * In torch.fx 1.13 this rewires new's own input and makes a self-loop;
     * here the replacement is never rewired, so it is clip(sigmoid(x)). */
    seedway = nnfx_graph_copy(g, NULL, &err);
    for (nnfx_node *n = seedway ? nnfx_graph_first(seedway) : NULL; n; n = nnfx_node_next(n)) {
        if (!nnfx_node_is_op(n, NNFX_OP_SIGMOID)) continue;
        nnfx_inserting_after(seedway, n);
        nnfx_arg a[3] = {nnfx_arg_node(n), nnfx_arg_float(0.0), nnfx_arg_float(1.0)};
        nnfx_node *c = nnfx_graph_call_op(seedway, NNFX_OP_CLIP, 3, a, 0, NULL, &err);
        if (c) nnfx_replace_all_uses_with(n, c, NULL, NULL);
        check(&w, c && nnfx_node_arg_node(c, 0) == n && nnfx_graph_lint(seedway, &err) == NNFX_OK,
              "the seed's snippet gives clip(sigmoid(x)), no self-loop (lint passes)");
        break;
    }

    /* What was meant: clip of the sigmoid's INPUT, the sigmoid removed. */
    int replaced = 0;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n; n = next) {
        next = nnfx_node_next(n);
        if (!nnfx_node_is_op(n, NNFX_OP_SIGMOID)) continue;
        nnfx_inserting_after(g, n);
        nnfx_arg a[3] = {nnfx_node_arg(n, 0), nnfx_arg_float(0.0), nnfx_arg_float(1.0)};
        nnfx_node *c = nnfx_graph_call_op(g, NNFX_OP_CLIP, 3, a, 0, NULL, &err);
        if (!c) break;
        nnfx_node_set_module_path(c, nnfx_node_module_path(n), NULL);
        nnfx_replace_all_uses_with(n, c, NULL, NULL);
        if (nnfx_erase_node(g, n, &err)) break;
        replaced++;
    }
    nnfx_inserting_at_end(g);
    if (err.status) fprintf(out, "  rewrite failed: %s\n", err.msg);
    check(&w, nnfx_gm_recompile(gm, &err) == NNFX_OK, "recompile after the rewrite");
    print_code(&w, gm, "gm.code (sigmoid -> clip of its input)");
    check(&w, replaced == 1 && count_op(g, NNFX_OP_SIGMOID) == 0 && count_op(g, NNFX_OP_CLIP) == 1,
          "one sigmoid replaced by one clip");
    ref = run_eager(&w, clip_net, x);
    res = run_gm(&w, gm, x);
    report_diff(&w, "rewritten graph equals an eager run of the MLP ending in clip(x, 0, 1)", max_diff(res, ref), 1e-6);
    int clipped = 0;
    for (int64_t i = 0; res && i < nnfx_tensor_numel(res); i++) {
        double v = nnfx_tensor_get(res, i);
        clipped += v == 0.0 || v == 1.0;
    }
    char line[200];
    snprintf(line, sizeof line, "clip is active on %d of %lld outputs and the output differs from sigmoid's", clipped,
             (long long)(res ? nnfx_tensor_numel(res) : 0));
    check(&w, clipped > 0 && max_diff(res, orig) > 1e-3 && isfinite(max_diff(res, orig)), line);
done:
    nnfx_graph_free(seedway);
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(res);
    nnfx_tensor_release(orig);
    nnfx_gm_free(gm);
    nnfx_module_free(net);
    nnfx_module_free(clip_net);
    return w.failures;
}

/* --- 3. remove batch norm ---------------------------------------------------------------- */

int trace_workflow_remove_bn(FILE *out) {
    wf w = {out, 0, g_show_text};
    nnfx_error err = {0};
    const uint64_t seed = 3;
    trace_seed_simplenet_opts nobn = {.no_bn = true};
    nnfx_module *net = trace_seed_simplenet(seed, NULL);
    nnfx_module *ref_net = trace_seed_simplenet(seed, &nobn);
    int64_t shape[4] = {2, 3, 16, 16};
    nnfx_tensor *x = input(4, shape, 9, -1.0f, 1.0f);
    nnfx_tensor *ref = NULL, *res = NULL, *orig = NULL;
    fprintf(out, "== SimpleNet: remove every batch_normalization ==\n");
    nnfx_gm *gm = trace1(&w, net, nnfx_shape_of(4, 2, 3, 16, 16));
    check(&w, gm && ref_net && x, "SimpleNet traced with example input [2, 3, 16, 16]");
    if (!gm || !ref_net || !x) goto done;
    nnfx_graph *g = nnfx_gm_graph(gm);
    print_code(&w, gm, "gm.code (traced)");
    orig = run_gm(&w, gm, x);
    int removed = 0;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n; n = next) {
        next = nnfx_node_next(n);
        if (!nnfx_node_is_op(n, NNFX_OP_BATCH_NORM)) continue;
        /* there is no identity op to swap in: the users take BN's input */
        nnfx_replace_all_uses_with(n, nnfx_node_arg_node(n, 0), NULL, NULL);
        if (nnfx_erase_node(g, n, &err)) break;
        removed++;
    }
    int dead = nnfx_eliminate_dead_code(g); /* the BN parameters' get_attr nodes */
    int dropped = nnfx_graph_drop_unused_params(g);
    fprintf(out, "removed %d batch_normalization, %d dead nodes, %d unused parameters\n", removed, dead, dropped);
    if (err.status) fprintf(out, "  rewrite failed: %s\n", err.msg);
    check(&w, nnfx_gm_recompile(gm, &err) == NNFX_OK, "recompile after the rewrite");
    print_code(&w, gm, "gm.code (without batch_normalization)");
    check(&w, removed == 1 && count_op(g, NNFX_OP_BATCH_NORM) == 0 && dead == 4 && dropped == 4,
          "one batch_normalization and its 4 parameters are gone");
    ref = run_eager(&w, ref_net, x);
    res = run_gm(&w, gm, x);
    report_diff(&w, "the graph equals an eager SimpleNet built without BatchNorm2d", max_diff(res, ref), 1e-5);
    double d = max_diff(res, orig);
    char line[200];
    snprintf(line, sizeof line, "removing BN changed the output (max |diff| vs original = %.3g)", d);
    check(&w, d > 1e-5 && isfinite(d), line);
done:
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(res);
    nnfx_tensor_release(orig);
    nnfx_gm_free(gm);
    nnfx_module_free(net);
    nnfx_module_free(ref_net);
    return w.failures;
}

/* --- 4. data-dependent control flow --------------------------------------------------------- */

int trace_workflow_control_flow(FILE *out) {
    wf w = {out, 0, g_show_text};
    nnfx_error err = {0};
    nnfx_module *net = trace_seed_branchy();
    int64_t shape[2] = {2, 3};
    nnfx_tensor *xp = input(2, shape, 1, 0.0f, 1.0f), *xn = input(2, shape, 2, -1.0f, 0.0f);
    nnfx_tensor *rp = NULL, *rn = NULL;
    fprintf(out, "== a forward with `if (item(sum(x)) > 0)`: eager runs fine, tracing must fail ==\n");
    check(&w, net && xp && xn, "model and inputs built");
    if (!net || !xp || !xn) goto done;
    rp = run_eager(&w, net, xp);
    rn = run_eager(&w, net, xn);
    bool ok = rp && rn;
    for (int64_t i = 0; ok && i < nnfx_tensor_numel(xp); i++)
        ok = nnfx_tensor_get(rp, i) == nnfx_tensor_get(xp, i) && nnfx_tensor_get(rn, i) == -nnfx_tensor_get(xn, i);
    check(&w, ok, "eager: relu(x) when sum(x) > 0, -x otherwise");
    nnfx_shape s = nnfx_shape_of(2, 2, 3);
    nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &s, &err);
    fprintf(out, "trace failed [%s]: %s\n", nnfx_status_name(err.status), err.msg);
    char want[200];
    snprintf(want, sizeof want, "(node reduce_sum, seed_models.c:%d)", trace_seed_branchy_item_line());
    check(&w, !gm && err.status == NNFX_ERR_TRACE, "tracing fails with a trace error");
    check(&w,
          strstr(err.msg, "symbolically traced variables cannot be used as inputs to control flow") != NULL &&
              strstr(err.msg, want) != NULL,
          "the message is FX's, naming the node and the C line of the item() call");
    nnfx_gm_free(gm);
done:
    nnfx_tensor_release(xp);
    nnfx_tensor_release(xn);
    nnfx_tensor_release(rp);
    nnfx_tensor_release(rn);
    nnfx_module_free(net);
    return w.failures;
}

/* --- 5. the shape bug found at trace time ------------------------------------------------------ */

int trace_workflow_shape_error(FILE *out) {
    wf w = {out, 0, g_show_text};
    nnfx_error err = {0};
    trace_seed_simplenet_opts nopool = {.skip_pool = true};
    nnfx_module *net = trace_seed_simplenet(1, &nopool);
    fprintf(out, "== SimpleNet whose forward skips the pooling layer: 16x30x30 features into Linear(16, 10) ==\n");
    check(&w, net != NULL, "model built");
    if (!net) return w.failures;
    nnfx_shape s = nnfx_shape_of(4, 1, 3, 32, 32);
    nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &s, &err);
    fprintf(out, "trace failed [%s]: %s\n", nnfx_status_name(err.status), err.msg);
    check(&w, !gm && err.status == NNFX_ERR_SHAPE, "tracing fails with a shape error (FX finds it only at run time)");
    check(&w,
          strstr(err.msg, "node linear (module fc, seed_models.c:") != NULL && strstr(err.msg, "14400") != NULL &&
              strstr(err.msg, "(16)") != NULL,
          "the message names the node, the module, the C line and both sizes (14400 vs 16)");
    nnfx_gm_free(gm);
    nnfx_module_free(net);
    return w.failures;
}
