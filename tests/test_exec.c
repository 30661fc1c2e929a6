/* test_exec.c — GraphModule recompile/run, the Interpreter's overridable
 * handlers, the Transformer, and the code view. Values are checked against
 * closed-form results computed here (relu/add/sigmoid of known inputs). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnfx.h"

/* y = relu(x) + x over x[2,3] */
static nnfx_graph *make_graph(void) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m;
    int64_t dims[2] = {2, 3};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, dims);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_node *r = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    nnfx_arg b[2] = {nnfx_arg_node(r), nnfx_arg_node(x)};
    nnfx_node *add = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, b, 0, NULL, &err);
    assert_non_null(nnfx_graph_output(g, 1, &add, &err));
    return g;
}

static const float xin[6] = {-2, -1, 0, 1, 2, 3};

static nnfx_tensor *input(void) {
    int64_t dims[2] = {2, 3};
    return nnfx_tensor_from_floats(2, dims, xin, NULL);
}

static void test_gm_run_and_recompile_after_edit(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(make_graph(), &err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    nnfx_graph *g = nnfx_gm_graph(gm);
    nnfx_node *add = nnfx_graph_find(g, "add");
    assert_int_equal(nnfx_node_meta(add, 0)->rank, 2);
    assert_int_equal(nnfx_node_meta(add, 0)->dims[1].value, 3);
    nnfx_tensor *x = input(), *y = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    assert_int_equal(nout, 1);
    const float *p = y->data;
    for (int i = 0; i < 6; i++)
        assert_float_equal(p[i], (xin[i] > 0 ? xin[i] : 0) + xin[i], 1e-6);
    nnfx_tensor_release(y);
    /* edit: relu -> sigmoid; run recompiles on its own */
    nnfx_node *r = nnfx_graph_find(g, "relu");
    nnfx_inserting_after(g, r);
    nnfx_arg a = nnfx_node_arg(r, 0);
    nnfx_node *s = nnfx_graph_call_op(g, NNFX_OP_SIGMOID, 1, &a, 0, NULL, &err);
    nnfx_replace_all_uses_with(r, s, NULL, NULL);
    assert_int_equal(nnfx_erase_node(g, r, &err), NNFX_OK);
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    p = y->data;
    for (int i = 0; i < 6; i++)
        assert_float_equal(p[i], 1.0 / (1.0 + exp(-xin[i])) + xin[i], 1e-6);
    nnfx_tensor_release(y);
    char *code = nnfx_gm_code(gm, &err);
    assert_non_null(code);
    assert_non_null(strstr(code, "tensor sigmoid = sigmoid(x);"));
    assert_non_null(strstr(code, "return add;"));
    free(code);
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

static void test_gm_run_bad_inputs(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(make_graph(), &err);
    nnfx_tensor *y = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 0, NULL, 1, &y, &nout, &err), NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "takes 1 input"));
    int64_t dims[2] = {3, 2};
    nnfx_tensor *wrong = nnfx_tensor_new(NNFX_F32, 2, dims, NULL);
    assert_int_equal(nnfx_gm_run(gm, 1, &wrong, 1, &y, &nout, &err), NNFX_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "input x expects float32[2, 3], got float32[3, 2]"));
    nnfx_tensor_release(wrong);
    nnfx_gm_free(gm);
}

typedef struct trace_log {
    int calls;
    char order[256];
} trace_log;

/* Observes every node (FX: override run_node). */
static nnfx_status log_run_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    trace_log *log = nnfx_interp_user(ip);
    log->calls++;
    strncat(log->order, nnfx_node_name(n), sizeof log->order - strlen(log->order) - 2);
    strcat(log->order, " ");
    return nnfx_interp_default_run_node(ip, n, out, err);
}

/* Changes each relu into a negation (FX: override call_function). */
static nnfx_status neg_relu(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out,
                            nnfx_error *err) {
    if (!nnfx_node_is_op(n, NNFX_OP_RELU)) return nnfx_interp_default_call_function(ip, n, nin, in, out, err);
    out->num = 1;
    out->t[0] = nnfx_tensor_clone(in[0], err);
    float *p = out->t[0]->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(out->t[0]); i++)
        p[i] = -p[i];
    return NNFX_OK;
}

static void test_interpreter_handlers(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = make_graph();
    trace_log log = {0};
    nnfx_interp_handlers h = {.run_node = log_run_node, .call_function = neg_relu};
    nnfx_interp *ip = nnfx_interp_new(g, &h, &log, &err);
    assert_non_null(ip);
    nnfx_tensor *x = input(), *y = NULL;
    int nout = 0;
    assert_int_equal(nnfx_interp_run(ip, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    assert_int_equal(log.calls, 4);
    assert_string_equal(log.order, "x relu add output ");
    const float *p = y->data;
    for (int i = 0; i < 6; i++)
        assert_float_equal(p[i], 0.0, 1e-6); /* -x + x */
    nnfx_tensor_release(y);
    nnfx_tensor_release(x);
    nnfx_interp_free(ip);
    nnfx_graph_free(g);
}

static nnfx_node *relu_to_tanh(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args,
                               nnfx_error *err) {
    if (!nnfx_node_is_op(n, NNFX_OP_RELU)) return nnfx_transformer_default_call_function(t, n, nargs, args, err);
    return nnfx_graph_call_op(nnfx_transformer_graph(t), NNFX_OP_TANH, nargs, args, 0, NULL, err);
}

static void test_transformer(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = make_graph();
    nnfx_transformer_handlers h = {.call_function = relu_to_tanh};
    nnfx_graph *ng = nnfx_transform(g, &h, NULL, &err);
    assert_non_null(ng);
    assert_null(nnfx_graph_find(ng, "relu"));
    assert_non_null(nnfx_graph_find(ng, "tanh"));
    assert_non_null(nnfx_graph_find(g, "relu")); /* source untouched */
    nnfx_gm *gm = nnfx_gm_new(ng, &err);
    nnfx_tensor *x = input(), *y = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    const float *p = y->data;
    for (int i = 0; i < 6; i++)
        assert_float_equal(p[i], tanh(xin[i]) + xin[i], 1e-6);
    nnfx_tensor_release(y);
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
    nnfx_graph_free(g);
}

static void test_shape_error_names_node(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta ma, mb;
    int64_t da[2] = {2, 3}, db[2] = {4, 5};
    nnfx_meta_set_shape(&ma, NNFX_F32, 2, da);
    nnfx_meta_set_shape(&mb, NNFX_F32, 2, db);
    nnfx_node *a = nnfx_graph_placeholder(g, "a", &ma, &err);
    nnfx_node *b = nnfx_graph_placeholder(g, "b", &mb, &err);
    nnfx_arg args[2] = {nnfx_arg_node(a), nnfx_arg_node(b)};
    nnfx_node *mm = nnfx_graph_call_op(g, NNFX_OP_MATMUL, 2, args, 0, NULL, &err);
    nnfx_graph_output(g, 1, &mm, &err);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "matmul"));
    nnfx_gm_free(gm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gm_run_and_recompile_after_edit),
        cmocka_unit_test(test_gm_run_bad_inputs),
        cmocka_unit_test(test_interpreter_handlers),
        cmocka_unit_test(test_transformer),
        cmocka_unit_test(test_shape_error_names_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
