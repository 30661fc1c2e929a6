/* transformer_swap.c — an activation swap done with a Transformer (FX's
 * Transformer): the call_function handler turns every relu into a
 * leaky_relu(alpha=0.1) and leaves every other node to the default handler.
 * The source graph is left as it was. The example checks the result
 * against leaky_relu computed by hand and exits 0 when it matches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nnfx.h"

/* The handler: relu -> leaky_relu; everything else copied unchanged. */
static nnfx_node *swap_relu(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args, nnfx_error *err) {
    if (!nnfx_node_is_op(n, NNFX_OP_RELU)) return nnfx_transformer_default_call_function(t, n, nargs, args, err);
    int *count = nnfx_transformer_user(t);
    (*count)++;
    nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
    return nnfx_graph_call_op(nnfx_transformer_graph(t), NNFX_OP_LEAKY_RELU, nargs, args, 1, &alpha, err);
}

static int fail(const char *what, const nnfx_error *err) {
    fprintf(stderr, "transformer_swap: %s: %s\n", what, err ? err->msg : "");
    return 1;
}

int main(void) {
    nnfx_error err = {0};
    /* g(x, w) = relu(x * w) + relu(x): two relus to swap */
    nnfx_graph *g = nnfx_graph_new();
    int64_t shape[1] = {32};
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 1, shape);
    nnfx_tensor *w = nnfx_tensor_new(NNFX_F32, 1, shape, &err);
    if (!g || !w) return fail("setup", &err);
    nnfx_tensor_fill_uniform(w, 1, -1, 1);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    if (!x || nnfx_graph_set_param(g, "w", w, &err)) return fail("inputs", &err);
    nnfx_node *wn = nnfx_graph_get_attr(g, "w", &err);
    nnfx_arg xw[2] = {nnfx_arg_node(x), nnfx_arg_node(wn)};
    nnfx_node *mul = nnfx_graph_call_op(g, NNFX_OP_MUL, 2, xw, 0, NULL, &err);
    nnfx_arg a1 = nnfx_arg_node(mul), a2 = nnfx_arg_node(x);
    nnfx_node *r1 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a1, 0, NULL, &err);
    nnfx_node *r2 = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a2, 0, NULL, &err);
    if (!r1 || !r2) return fail("building", &err);
    nnfx_arg sum_args[2] = {nnfx_arg_node(r1), nnfx_arg_node(r2)};
    nnfx_node *sum = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, sum_args, 0, NULL, &err);
    if (!sum || !nnfx_graph_output(g, 1, &sum, &err)) return fail("building", &err);

    nnfx_transformer_handlers h = {0};
    h.call_function = swap_relu;
    int swapped = 0;
    nnfx_graph *out = nnfx_transform(g, &h, &swapped, &err);
    if (!out) return fail("transform", &err);
    for (nnfx_node *n = nnfx_graph_first(out); n; n = nnfx_node_next(n))
        printf("  %-14s %-14s %s\n", nnfx_opcode_name(nnfx_node_opcode(n)), nnfx_node_name(n), nnfx_node_target(n));

    nnfx_gm *gm = nnfx_gm_new(out, &err);
    nnfx_tensor *in = nnfx_tensor_new(NNFX_F32, 1, shape, &err);
    if (!gm || !in) return fail("module", &err);
    nnfx_tensor_fill_uniform(in, 2, -4, 4);
    nnfx_tensor *res[1] = {NULL};
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &in, 1, res, &nout, &err)) return fail("run", &err);
    double worst = 0;
    for (int64_t i = 0; i < shape[0]; i++) {
        double xv = nnfx_tensor_get(in, i), wv = nnfx_tensor_get(w, i), p = xv * wv;
        double want = (p >= 0 ? p : 0.1 * p) + (xv >= 0 ? xv : 0.1 * xv);
        worst = fmax(worst, fabs(want - nnfx_tensor_get(res[0], i)));
    }
    int relus_left = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        relus_left += nnfx_node_is_op(n, NNFX_OP_RELU);
    printf("swapped %d relu nodes; max difference from leaky_relu by hand: %g; source graph keeps %d relus\n", swapped,
           worst, relus_left);
    int ok = swapped == 2 && worst < 1e-5 && relus_left == 2;
    nnfx_tensor_release(res[0]);
    nnfx_tensor_release(in);
    nnfx_tensor_release(w);
    nnfx_gm_free(gm);
    nnfx_graph_free(g);
    if (!ok) {
        fprintf(stderr, "transformer_swap: check failed\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
