/* test_control_flow.c — If, Loop and Scan with subgraphs in the IR, built
 * through the public API: owned bodies (deep copies), lint of bodies,
 * text round trip, copy, DCE with captured operands, shape inference,
 * cost, the interpreter (references computed by hand: relu/neg branches,
 * a running sum), ONNX export and reload, and bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static nnfx_meta meta_of(nnfx_dtype dt, int rank, const int64_t *dims) {
    nnfx_meta m;
    nnfx_meta_set_shape(&m, dt, rank, dims);
    return m;
}

/* A branch of one input x (float32[4]): relu(x) or neg(x). */
static nnfx_graph *unary_branch(nnfx_op op) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[1] = {4};
    nnfx_meta m = meta_of(NNFX_F32, 1, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_node *y = nnfx_graph_call_op(g, op, 1, &a, 0, NULL, &err);
    assert_non_null(y);
    assert_non_null(nnfx_graph_output(g, 1, &y, &err));
    return g;
}

/* graph(c: bool[], x: float32[4]) = if c then relu(sin(x)) else neg(sin(x)):
 * sin(x) is captured by both branches (an operand of the If). */
static nnfx_graph *if_graph(void) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[1] = {4};
    nnfx_meta mc = meta_of(NNFX_BOOL, 0, NULL), mx = meta_of(NNFX_F32, 1, d);
    nnfx_node *c = nnfx_graph_placeholder(g, "c", &mc, &err);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &mx, &err);
    nnfx_arg xa = nnfx_arg_node(x);
    nnfx_node *s = nnfx_graph_call_op(g, NNFX_OP_SIN, 1, &xa, 0, NULL, &err);
    nnfx_graph *then_g = unary_branch(NNFX_OP_RELU), *else_g = unary_branch(NNFX_OP_NEG);
    nnfx_arg args[2] = {nnfx_arg_node(c), nnfx_arg_node(s)};
    nnfx_attr attrs[2] = {nnfx_attr_graph("then_branch", then_g), nnfx_attr_graph("else_branch", else_g)};
    nnfx_node *n = nnfx_graph_call_op(g, NNFX_OP_IF, 2, args, 2, attrs, &err);
    assert_non_null(n);
    /* the node keeps deep copies: the caller's graphs are its own */
    assert_int_equal(nnfx_node_num_subgraphs(n), 2);
    assert_true(nnfx_node_subgraph(n, 0) != then_g && nnfx_node_subgraph(n, 1) != else_g);
    assert_null(nnfx_node_subgraph(n, 2));
    nnfx_graph_free(then_g);
    nnfx_graph_free(else_g);
    assert_non_null(nnfx_graph_output(g, 1, &n, &err));
    return g;
}

static nnfx_tensor *bool_scalar(bool v) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_BOOL, 0, NULL, NULL);
    *(uint8_t *)t->data = v;
    return t;
}

static void test_if_runs_the_chosen_branch(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(if_graph(), &err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    /* control flow runs in the interpreter, and the plan says why */
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    assert_non_null(strstr(plan, "# interpreted:"));
    assert_non_null(strstr(plan, "control flow"));
    free(plan);
    const float xs[4] = {-1.0f, -0.25f, 0.5f, 2.0f};
    int64_t d[1] = {4};
    nnfx_tensor *x = nnfx_tensor_from_floats(1, d, xs, &err);
    for (int branch = 0; branch < 2; branch++) {
        nnfx_tensor *in[2] = {bool_scalar(branch == 0), x}, *out = NULL;
        int nout = 0;
        assert_int_equal(nnfx_gm_run(gm, 2, in, 1, &out, &nout, &err), NNFX_OK);
        assert_int_equal(nout, 1);
        for (int i = 0; i < 4; i++) {
            float s = sinf(xs[i]), want = branch == 0 ? (s > 0 ? s : 0) : -s;
            assert_float_equal(((float *)out->data)[i], want, 1e-6);
        }
        nnfx_tensor_release(out);
        nnfx_tensor_release(in[0]);
    }
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

static void test_text_round_trip_and_copy(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = if_graph();
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_check_types(g, &err), NNFX_OK);
    char *text = nnfx_graph_to_text(g);
    assert_non_null(strstr(text, "then_branch = graph():"));
    nnfx_graph *p = nnfx_graph_parse(text, &err);
    if (!p) fail_msg("parse: %s\n%s", err.msg, text);
    assert_int_equal(nnfx_graph_lint(p, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_infer_shapes(p, &err), NNFX_OK);
    char *again = nnfx_graph_to_text(p);
    assert_string_equal(text, again);
    /* a copy owns its bodies: renaming in the copy's body leaves g's alone */
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    nnfx_node *ifc = nnfx_graph_find(c, "if");
    assert_non_null(ifc);
    nnfx_graph *body = nnfx_node_subgraph(ifc, 0);
    assert_int_equal(nnfx_node_set_name(nnfx_graph_find(body, "relu"), "renamed", &err), NNFX_OK);
    assert_non_null(nnfx_graph_find(nnfx_node_subgraph(nnfx_graph_find(g, "if"), 0), "relu"));
    assert_int_equal(nnfx_graph_lint(c, &err), NNFX_OK);
    free(text);
    free(again);
    nnfx_graph_free(p);
    nnfx_graph_free(c);
    nnfx_graph_free(g);
}

static void test_dce_keeps_captured_producers(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = if_graph();
    /* sin is used only inside the branches (through the If's operand) */
    assert_int_equal(nnfx_eliminate_dead_code(g), 0);
    assert_non_null(nnfx_graph_find(g, "sin"));
    assert_false(nnfx_node_is_impure(nnfx_graph_find(g, "if")));
    /* an If nothing reads goes, and then the sin it captured */
    nnfx_node *out = nnfx_graph_output_node(g);
    nnfx_node *x = nnfx_graph_find(g, "x");
    assert_int_equal(nnfx_node_set_arg(out, 0, nnfx_arg_node(x), &err), NNFX_OK);
    assert_int_equal(nnfx_eliminate_dead_code(g), 2);
    assert_null(nnfx_graph_find(g, "sin"));
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    nnfx_graph_free(g);
}

/* graph(x: float32[4]) = Loop(3, -, acc0 = x) { acc + x (captured) }, with the
 * running sums as a scan output: acc = 4x, scan = [2x, 3x, 4x]. */
static nnfx_graph *loop_graph(int64_t trips) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[1] = {4};
    nnfx_meta mx = meta_of(NNFX_F32, 1, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &mx, &err);
    nnfx_tensor *m = nnfx_tensor_scalar_i64(trips, &err);
    assert_int_equal(nnfx_graph_set_param(g, "m", m, &err), NNFX_OK);
    nnfx_tensor_release(m);
    nnfx_node *mn = nnfx_graph_get_attr(g, "m", &err);

    nnfx_graph *b = nnfx_graph_new();
    nnfx_meta mi = meta_of(NNFX_I64, 0, NULL), mc = meta_of(NNFX_BOOL, 0, NULL);
    nnfx_graph_placeholder(b, "i", &mi, &err);
    nnfx_node *cin = nnfx_graph_placeholder(b, "cond", &mc, &err);
    nnfx_node *acc = nnfx_graph_placeholder(b, "acc", &mx, &err);
    nnfx_node *cap = nnfx_graph_placeholder(b, "x", &mx, &err);
    nnfx_arg aa[2] = {nnfx_arg_node(acc), nnfx_arg_node(cap)};
    nnfx_node *sum = nnfx_graph_call_op(b, NNFX_OP_ADD, 2, aa, 0, NULL, &err);
    nnfx_arg ca = nnfx_arg_node(cin);
    nnfx_node *cout = nnfx_graph_call_op(b, NNFX_OP_IDENTITY, 1, &ca, 0, NULL, &err);
    nnfx_arg sa = nnfx_arg_node(sum);
    nnfx_node *scan = nnfx_graph_call_op(b, NNFX_OP_IDENTITY, 1, &sa, 0, NULL, &err);
    nnfx_node *res[3] = {cout, sum, scan};
    assert_non_null(nnfx_graph_output(b, 3, res, &err));

    nnfx_arg args[4] = {nnfx_arg_node(mn), nnfx_arg_none(), nnfx_arg_node(x), nnfx_arg_node(x)};
    nnfx_attr attrs[2] = {nnfx_attr_graph("body", b), nnfx_attr_int("captures", 1)};
    nnfx_node *loop = nnfx_graph_call_op(g, NNFX_OP_LOOP, 4, args, 2, attrs, &err);
    nnfx_graph_free(b);
    assert_non_null(loop);
    assert_int_equal(nnfx_node_num_outputs(loop), 2);
    nnfx_node *o[2] = {nnfx_graph_getitem(g, loop, 0, &err), nnfx_graph_getitem(g, loop, 1, &err)};
    assert_non_null(nnfx_graph_output(g, 2, o, &err));
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    return g;
}

static void check_loop_outputs(nnfx_graph *g, const char *what) {
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    const float xs[4] = {1.0f, -2.0f, 0.5f, 3.0f};
    int64_t d[1] = {4};
    nnfx_tensor *x = nnfx_tensor_from_floats(1, d, xs, &err), *out[2] = {0};
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &x, 2, out, &nout, &err)) fail_msg("%s: %s", what, err.msg);
    assert_int_equal(nout, 2);
    assert_int_equal(out[1]->rank, 2);
    assert_int_equal(out[1]->shape[0], 3);
    for (int i = 0; i < 4; i++) {
        assert_float_equal(((float *)out[0]->data)[i], 4 * xs[i], 1e-6);
        for (int k = 0; k < 3; k++)
            assert_float_equal(((float *)out[1]->data)[k * 4 + i], (float)(k + 2) * xs[i], 1e-6);
    }
    nnfx_tensor_release(out[0]);
    nnfx_tensor_release(out[1]);
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

static void test_loop_infer_cost_run_export(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = loop_graph(3);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    /* loop-carried [4]; the scan output stacks the known trip count */
    nnfx_node *loop = nnfx_graph_find(g, "loop");
    char buf[96];
    assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(loop, 0), buf, sizeof buf), "float32[4]");
    assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(loop, 1), buf, sizeof buf), "float32[3, 4]");
    /* cost: the body's (one add of 4 elements) times the trip count */
    int64_t macs, flops;
    nnfx_node_cost(loop, &macs, &flops);
    assert_int_equal(flops, 3 * 4);
    /* ONNX export and reload: the capture becomes an outer-scope name */
    char path[] = "/tmp/nnfx_ctrl_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(nnfx_onnx_save(g, path, NULL, &err), NNFX_OK);
    nnfx_graph *back = nnfx_onnx_load(path, &err);
    unlink(path);
    if (!back) fail_msg("reload: %s", err.msg);
    check_loop_outputs(g, "built");
    check_loop_outputs(back, "reloaded");
}

static void test_bad_bodies(void **state) {
    (void)state;
    nnfx_error err = {0};
    /* a body with fewer inputs than the node gives it */
    nnfx_graph *g = if_graph();
    nnfx_graph *body = nnfx_node_subgraph(nnfx_graph_find(g, "if"), 1);
    nnfx_node *ph = nnfx_graph_find(body, "x");
    nnfx_meta m = meta_of(NNFX_F32, 0, NULL);
    nnfx_node *extra = nnfx_graph_placeholder(body, "extra", &m, &err);
    nnfx_node_move_before(extra, ph, &err);
    tu_assert_error(&err, nnfx_graph_lint(g, &err), NNFX_ERR_GRAPH, "if", "2 inputs", "gives it 1", NULL);
    nnfx_graph_free(g);
    /* Loop without a trip count or a condition */
    g = loop_graph(3);
    nnfx_node *loop = nnfx_graph_find(g, "loop");
    assert_int_equal(nnfx_node_set_arg(loop, 0, nnfx_arg_none(), &err), NNFX_OK);
    tu_assert_error(&err, nnfx_graph_lint(g, &err), NNFX_ERR_GRAPH, "loop", "neither a trip count nor a condition",
                    NULL);
    nnfx_graph_free(g);
    /* bodies nested past the limit: If(c, c, x) whose then-branch is the
     * level below, every branch taking (c, x) */
    nnfx_graph *inner = NULL, *leaf = NULL;
    for (int k = 0; k <= 20; k++) {
        nnfx_graph *o = nnfx_graph_new();
        int64_t d[1] = {4};
        nnfx_meta mc = meta_of(NNFX_BOOL, 0, NULL), mx = meta_of(NNFX_F32, 1, d);
        nnfx_node *c = nnfx_graph_placeholder(o, "c", &mc, &err);
        nnfx_node *x = nnfx_graph_placeholder(o, "x", &mx, &err);
        nnfx_arg xa = nnfx_arg_node(x);
        nnfx_node *r = nnfx_graph_call_op(o, NNFX_OP_RELU, 1, &xa, 0, NULL, &err);
        if (inner) {
            nnfx_arg args[3] = {nnfx_arg_node(c), nnfx_arg_node(c), nnfx_arg_node(x)};
            nnfx_attr attrs[2] = {nnfx_attr_graph("then_branch", inner), nnfx_attr_graph("else_branch", leaf)};
            r = nnfx_graph_call_op(o, NNFX_OP_IF, 3, args, 2, attrs, &err);
            if (inner != leaf) nnfx_graph_free(inner);
        }
        assert_non_null(r);
        assert_non_null(nnfx_graph_output(o, 1, &r, &err));
        if (!leaf) leaf = o;
        inner = o;
    }
    tu_assert_error(&err, nnfx_graph_lint(inner, &err), NNFX_ERR_UNSUPPORTED, "nested deeper than", NULL);
    nnfx_graph_free(inner);
    nnfx_graph_free(leaf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_runs_the_chosen_branch),
        cmocka_unit_test(test_text_round_trip_and_copy),
        cmocka_unit_test(test_dce_keeps_captured_producers),
        cmocka_unit_test(test_loop_infer_cost_run_export),
        cmocka_unit_test(test_bad_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
