/* test_trace.c — tracing C forward functions: eager == traced, module paths
 * and parameter names in node meta, the control-flow and shape errors,
 * leaf functions, bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "seed_models.h"

static nnfx_tensor *rand_input(int rank, const int64_t *shape, uint64_t seed) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, NULL);
    assert_non_null(t);
    nnfx_tensor_fill_uniform(t, seed, -1.0f, 1.0f);
    return t;
}

static nnfx_tensor *gm_run1(nnfx_gm *gm, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_tensor *out = NULL;
    int nout = 0;
    nnfx_status st = nnfx_gm_run(gm, 1, &x, 1, &out, &nout, &err);
    if (st) fail_msg("gm_run: %s", err.msg);
    assert_int_equal(nout, 1);
    return out;
}

static void test_simplenet_eager_equals_traced(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *net = trace_seed_simplenet(5, NULL);
    assert_non_null(net);
    int64_t shape[4] = {2, 3, 20, 20};
    nnfx_tensor *x = rand_input(4, shape, 1);
    nnfx_shape s = nnfx_shape_of(4, 2, 3, 20, 20);
    nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    nnfx_tensor *ref = NULL;
    assert_int_equal(nnfx_module_run(net, 1, &x, &ref, &err), NNFX_OK);
    nnfx_tensor *out = gm_run1(gm, x);
    assert_int_equal(out->rank, 2);
    assert_int_equal(out->shape[0], 2);
    assert_int_equal(out->shape[1], 10);
    tu_assert_close(out, ref, 1e-6, 1e-6, "traced vs eager");
    /* the output meta inferred at trace time matches the run */
    nnfx_node *res = nnfx_node_arg_node(nnfx_graph_output_node(nnfx_gm_graph(gm)), 0);
    char buf[128];
    assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(res, 0), buf, sizeof buf), "float32[2, 10]");
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    nnfx_module_free(net);
}

static void test_paths_and_param_names(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *net = trace_seed_simplenet(5, NULL);
    nnfx_shape s = nnfx_shape_of(4, 1, 3, 8, 8);
    nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    nnfx_graph *g = nnfx_gm_graph(gm);
    static const char *params[] = {"conv.weight",     "conv.bias",      "bn.weight", "bn.bias",
                                   "bn.running_mean", "bn.running_var", "fc.weight", "fc.bias"};
    assert_int_equal(nnfx_graph_num_params(g), 8);
    for (int i = 0; i < 8; i++) {
        assert_string_equal(nnfx_graph_param_name(g, i), params[i]);
        assert_ptr_equal(nnfx_graph_param(g, params[i]), nnfx_module_param(net, params[i]));
    }
    nnfx_node *x = nnfx_graph_input(g, 0);
    assert_string_equal(nnfx_node_name(x), "x");
    int convs = 0, gemms = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (nnfx_node_opcode(n) == NNFX_GET_ATTR) {
            /* get_attr target = parameter path; module path = its prefix */
            const char *t = nnfx_node_target(n);
            const char *dot = strchr(t, '.');
            assert_non_null(dot);
            assert_int_equal(strlen(nnfx_node_module_path(n)), (size_t)(dot - t));
            assert_memory_equal(nnfx_node_module_path(n), t, (size_t)(dot - t));
        }
        if (nnfx_node_is_op(n, NNFX_OP_CONV)) {
            convs++;
            assert_string_equal(nnfx_node_module_path(n), "conv");
            assert_int_equal(nnfx_node_attr_int(n, "group", 0), 1);
            assert_int_equal(nnfx_node_num_args(n), 3);
        }
        if (nnfx_node_is_op(n, NNFX_OP_GEMM)) {
            gemms++;
            assert_string_equal(nnfx_node_name(n), "linear");
            assert_string_equal(nnfx_node_module_path(n), "fc");
            assert_int_equal(nnfx_node_attr_int(n, "transB", 0), 1);
            assert_string_equal(nnfx_node_src_file(n), "seed_models.c");
            assert_true(nnfx_node_src_line(n) > 0);
        }
        if (nnfx_node_is_op(n, NNFX_OP_RELU)) assert_string_equal(nnfx_node_module_path(n), "relu");
        if (nnfx_node_is_op(n, NNFX_OP_BATCH_NORM)) {
            assert_string_equal(nnfx_node_module_path(n), "bn");
            assert_int_equal(nnfx_node_num_args(n), 5);
        }
    }
    assert_int_equal(convs, 1);
    assert_int_equal(gemms, 1);
    nnfx_gm_free(gm);
    nnfx_module_free(net);
}

static void test_nested_paths(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *chain = trace_seed_chain(3, 2);
    assert_non_null(chain);
    nnfx_shape s = nnfx_shape_of(4, 1, 4, 5, 5);
    nnfx_gm *gm = nnfx_symbolic_trace(chain, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    nnfx_graph *g = nnfx_gm_graph(gm);
    assert_non_null(nnfx_graph_param(g, "layers.2.bn.running_var"));
    int muls = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        if (!nnfx_node_is_op(n, NNFX_OP_MUL)) continue;
        char want[32];
        snprintf(want, sizeof want, "layers.%d", muls++);
        assert_string_equal(nnfx_node_module_path(n), want); /* functional op: the block's path */
    }
    assert_int_equal(muls, 3);
    int64_t shape[4] = {1, 4, 5, 5};
    nnfx_tensor *x = rand_input(4, shape, 3), *ref = NULL;
    assert_int_equal(nnfx_module_run(chain, 1, &x, &ref, &err), NNFX_OK);
    nnfx_tensor *out = gm_run1(gm, x);
    tu_assert_close(out, ref, 1e-6, 1e-6, "chain traced vs eager");
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    nnfx_module_free(chain);
}

/* Every parameter is found by its name and gives the tensor stored at
 * its index. */
static void params_found_by_name(const nnfx_graph *g) {
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        const char *name = nnfx_graph_param_name(g, i);
        assert_non_null(name);
        if (nnfx_graph_param(g, name) != nnfx_graph_param_at(g, i))
            fail_msg("parameter %d (%s): wrong lookup", i, name);
    }
}

/* A trace adds its parameters without looking any up; the first lookup by
 * name then indexes them all at once (in groups, the last one partial:
 * 37 blocks hold 222 parameters). Fusing every BatchNormalization adds two
 * parameters and erases six get_attr nodes per block. Names and
 * parameters must resolve as one lookup each would give, and the fused
 * graph must compute what the eager module computes. */
static void test_fuse_traced_chain_keeps_names(void **state) {
    (void)state;
    enum { BLOCKS = 37 };
    nnfx_error err = {0};
    nnfx_module *chain = trace_seed_chain(BLOCKS, 7);
    assert_non_null(chain);
    nnfx_shape s = nnfx_shape_of(4, 1, 4, 5, 5);
    nnfx_gm *gm = nnfx_symbolic_trace(chain, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    nnfx_graph *g = nnfx_gm_graph(gm);
    assert_int_equal(nnfx_graph_num_params(g), 6 * BLOCKS);
    params_found_by_name(g);
    nnfx_pass_report rep = {0};
    assert_int_equal(nnfx_pass_fuse_conv_bn(g, &rep, &err), NNFX_OK);
    assert_int_equal(rep.changed, BLOCKS);
    nnfx_pass_report_free(&rep);
    assert_int_equal(nnfx_graph_num_params(g), 2 * BLOCKS);
    params_found_by_name(g);
    for (int i = 0; i < BLOCKS; i++) {
        char name[64];
        snprintf(name, sizeof name, "layers.%d.conv.weight_fused", i);
        assert_non_null(nnfx_graph_param(g, name));
        snprintf(name, sizeof name, "layers.%d.bn.running_var", i);
        assert_null(nnfx_graph_param(g, name));
    }
    int nodes = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n), nodes++) {
        assert_ptr_equal(nnfx_graph_find(g, nnfx_node_name(n)), n);
        assert_false(nnfx_node_is_op(n, NNFX_OP_BATCH_NORM));
    }
    assert_int_equal(nodes, nnfx_graph_num_nodes(g));
    assert_null(nnfx_graph_find(g, "layers_0_bn_running_var")); /* an erased get_attr's name */
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    int64_t shape[4] = {1, 4, 5, 5};
    nnfx_tensor *x = rand_input(4, shape, 8), *ref = NULL;
    assert_int_equal(nnfx_module_run(chain, 1, &x, &ref, &err), NNFX_OK);
    nnfx_tensor *out = gm_run1(gm, x);
    tu_assert_close(out, ref, 1e-4, 1e-4, "chain fused vs eager");
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    nnfx_module_free(chain);
}

/* Forwards for test_long_and_indirect_paths. */
static nnfx_value *mid_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    (void)nin;
    return nnfx_v_sigmoid(ctx, nnfx_call(ctx, nnfx_module_child(self, "act"), in[0]));
}

/* Calls its only child, or applies tanh when it has none. */
static nnfx_value *level_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    (void)nin;
    nnfx_module *next = nnfx_module_child_at(self, 0);
    return next ? nnfx_call(ctx, next, in[0]) : nnfx_v_tanh(ctx, in[0]);
}

#define LONG_CHILD "a_rather_long_child_name"
#define LEVEL_NAME "level_with_a_name_of_thirty_two"
#define LEVELS     5

static nnfx_value *outer_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    (void)nin;
    nnfx_module *mid = nnfx_module_child(self, LONG_CHILD);
    nnfx_value *y = nnfx_call(ctx, mid, in[0]);
    y = nnfx_call(ctx, nnfx_module_child(mid, "act"), y); /* a grandchild, called directly */
    return nnfx_call(ctx, nnfx_module_child(self, LEVEL_NAME), y);
}

/* Module paths of traced nodes: a child name too long to keep inline, a
 * grandchild called from its grandparent's forward, and a path longer than
 * the buffer a call builds it in. */
static void test_long_and_indirect_paths(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *root = nnfx_module_new("Outer", outer_forward, NULL);
    nnfx_module *mid = nnfx_module_add(root, LONG_CHILD, nnfx_module_new("Mid", mid_forward, NULL));
    assert_non_null(mid);
    assert_non_null(nnfx_module_add(mid, "act", nnfx_relu_layer()));
    assert_ptr_equal(nnfx_module_child(root, LONG_CHILD), mid);
    nnfx_module *level = root;
    char deep[LEVELS * (sizeof LEVEL_NAME)] = "";
    for (int i = 0; i < LEVELS; i++) {
        level = nnfx_module_add(level, LEVEL_NAME, nnfx_module_new("Level", level_forward, NULL));
        assert_non_null(level);
        if (i) strcat(deep, ".");
        strcat(deep, LEVEL_NAME);
    }
    assert_true(strlen(deep) > 128);
    nnfx_shape s = nnfx_shape_of(2, 2, 3);
    nnfx_gm *gm = nnfx_symbolic_trace(root, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    int relus = 0, sigmoids = 0, tanhs = 0;
    for (nnfx_node *n = nnfx_graph_first(nnfx_gm_graph(gm)); n; n = nnfx_node_next(n)) {
        if (nnfx_node_is_op(n, NNFX_OP_RELU)) {
            assert_string_equal(nnfx_node_module_path(n), LONG_CHILD ".act");
            relus++;
        } else if (nnfx_node_is_op(n, NNFX_OP_SIGMOID)) {
            assert_string_equal(nnfx_node_module_path(n), LONG_CHILD);
            sigmoids++;
        } else if (nnfx_node_is_op(n, NNFX_OP_TANH)) {
            assert_string_equal(nnfx_node_module_path(n), deep);
            tanhs++;
        }
    }
    assert_int_equal(relus, 2);
    assert_int_equal(sigmoids, 1);
    assert_int_equal(tanhs, 1);
    nnfx_gm_free(gm);
    nnfx_module_free(root);
}

static void test_control_flow_error(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *m = trace_seed_branchy();
    nnfx_shape s = nnfx_shape_of(2, 2, 3);
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &s, &err);
    assert_null(gm);
    char where[64];
    snprintf(where, sizeof where, "(node reduce_sum, seed_models.c:%d)", trace_seed_branchy_item_line());
    assert_true(trace_seed_branchy_item_line() > 0);
    tu_assert_error(&err, err.status, NNFX_ERR_TRACE,
                    "symbolically traced variables cannot be used as inputs to control flow", where, NULL);
    nnfx_module_free(m);
}

static void test_shape_error(void **state) {
    (void)state;
    nnfx_error err = {0};
    trace_seed_simplenet_opts o = {.skip_pool = true};
    nnfx_module *m = trace_seed_simplenet(1, &o);
    nnfx_shape s = nnfx_shape_of(4, 1, 3, 32, 32);
    assert_null(nnfx_symbolic_trace(m, 1, &s, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_SHAPE, "node linear (module fc, seed_models.c:", "14400", "(16)", NULL);
    /* eagerly, the same bug is a run-time error, with the same context */
    int64_t shape[4] = {1, 3, 32, 32};
    nnfx_tensor *x = rand_input(4, shape, 1), *out = NULL;
    nnfx_error e2 = {0};
    assert_int_not_equal(nnfx_module_run(m, 1, &x, &out, &e2), NNFX_OK);
    assert_null(out);
    tu_assert_error(&e2, e2.status, NNFX_ERR_SHAPE, "module fc", "14400", NULL);
    nnfx_tensor_release(x);
    nnfx_module_free(m);
}

/* --- leaf functions --------------------------------------------------------------- */

static int leaf_calls;

/* out = 2 * in[0] + 1 */
static nnfx_status affine_leaf(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    leaf_calls++;
    if (nin != 1) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "affine takes one input");
    *out = nnfx_tensor_clone(in[0], err);
    if (!*out) return NNFX_ERR_NOMEM;
    float *p = (*out)->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(*out); i++)
        p[i] = 2 * p[i] + 1;
    return NNFX_OK;
}

static nnfx_status affine_infer(void *user, int nin, const nnfx_meta *const *in, nnfx_meta *out, nnfx_error *err) {
    *out = *in[0];
    return NNFX_OK;
}

static nnfx_value *leafy_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_value *y = nnfx_v_relu(ctx, in[0]);
    y = nnfx_v_leaf(ctx, "affine", affine_leaf, affine_infer, NULL, 1, &y);
    nnfx_value *w = nnfx_v_param(ctx, self, "scale");
    return nnfx_v_mul(ctx, y, w);
}

/* A layer called twice (shared weights) reads its parameters twice: the
 * graph keeps one copy of each, read by two get_attr nodes with the same
 * target (as torch.fx records self.conv.weight twice), named apart. */
static nnfx_value *twice_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_module *conv = nnfx_module_child(self, "conv");
    nnfx_value *y = nnfx_call(ctx, conv, in[0]);
    return nnfx_call(ctx, conv, y);
}

static void test_shared_layer_params(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *m = nnfx_module_new("Twice", twice_forward, NULL);
    assert_non_null(nnfx_module_add(m, "conv", nnfx_conv2d(3, 3, 1, 1, 0, 1, 1, true, 7)));
    nnfx_module_set_inputs(m, 1, NULL, NULL);
    nnfx_shape s = nnfx_shape_of(4, 1, 3, 5, 5);
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    nnfx_graph *g = nnfx_gm_graph(gm);
    assert_int_equal(nnfx_graph_num_params(g), 2);
    assert_string_equal(nnfx_graph_param_name(g, 0), "conv.weight");
    assert_string_equal(nnfx_graph_param_name(g, 1), "conv.bias");
    int reads = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_opcode(n) == NNFX_GET_ATTR && !strcmp(nnfx_node_target(n), "conv.weight")) reads++;
    assert_int_equal(reads, 2);
    assert_non_null(nnfx_graph_find(g, "conv_weight"));
    assert_non_null(nnfx_graph_find(g, "conv_weight_1"));
    assert_ptr_equal(nnfx_graph_param(g, "conv.weight"), nnfx_module_param(m, "conv.weight"));
    nnfx_gm_free(gm);
    nnfx_module_free(m);
}

static void test_leaf_function(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *m = nnfx_module_new("Leafy", leafy_forward, NULL);
    int64_t wshape[1] = {4};
    nnfx_tensor *w = rand_input(1, wshape, 8);
    assert_int_equal(nnfx_module_add_param(m, "scale", w, &err), NNFX_OK);
    nnfx_tensor_release(w);
    nnfx_shape s = nnfx_shape_of(2, 3, 4);
    leaf_calls = 0;
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    assert_int_equal(leaf_calls, 0); /* tracing records, never runs the leaf */
    nnfx_graph *g = nnfx_gm_graph(gm);
    int modules = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_opcode(n) == NNFX_CALL_MODULE) {
            modules++;
            assert_string_equal(nnfx_node_target(n), "affine");
            char buf[64];
            assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(n, 0), buf, sizeof buf), "float32[3, 4]");
        }
    assert_int_equal(modules, 1);
    assert_non_null(nnfx_graph_param(g, "scale")); /* root parameter: no prefix */
    int64_t shape[2] = {3, 4};
    nnfx_tensor *x = rand_input(2, shape, 4), *ref = NULL;
    assert_int_equal(nnfx_module_run(m, 1, &x, &ref, &err), NNFX_OK);
    assert_int_equal(leaf_calls, 1);
    nnfx_tensor *out = gm_run1(gm, x);
    assert_int_equal(leaf_calls, 2);
    tu_assert_close(out, ref, 1e-6, 1e-6, "leaf traced vs eager");
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    nnfx_module_free(m);
}

/* --- bad input ----------------------------------------------------------------------- */

static nnfx_value *two_input_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    return nnfx_v_add(ctx, in[0], in[1]);
}

static nnfx_value *null_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    /* a failed op: everything after it is a no-op, the first error stays */
    nnfx_value *y = nnfx_call(ctx, NULL, in[0]);
    y = nnfx_v_relu(ctx, y);
    return nnfx_v_sigmoid(ctx, y);
}

static nnfx_value *stray_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    return nnfx_call(ctx, (nnfx_module *)nnfx_module_user(self), in[0]);
}

static void test_bad_input(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_shape s = nnfx_shape_of(2, 2, 2);
    assert_null(nnfx_symbolic_trace(NULL, 1, &s, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    nnfx_tensor *out = (nnfx_tensor *)1;
    assert_int_equal(nnfx_module_run(NULL, 0, NULL, &out, &err), NNFX_ERR_INVALID_ARG);
    assert_null(out);

    /* wrong number of example shapes */
    nnfx_module *m = nnfx_module_new("Two", two_input_forward, NULL);
    static const char *names[2] = {"a", "b"};
    assert_int_equal(nnfx_module_set_inputs(m, 2, names, &err), NNFX_OK);
    err = (nnfx_error){0};
    assert_null(nnfx_symbolic_trace(m, 1, &s, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_INVALID_ARG, "takes 2 inputs, 1 given", NULL);
    assert_null(nnfx_symbolic_trace(m, 2, NULL, &err));
    nnfx_shape two[2] = {s, s};
    nnfx_gm *gm = nnfx_symbolic_trace(m, 2, two, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    assert_string_equal(nnfx_node_name(nnfx_graph_input(nnfx_gm_graph(gm), 1)), "b");
    nnfx_gm_free(gm);
    nnfx_shape bad = {.rank = 2, .dims = {2, -3}};
    nnfx_shape twob[2] = {s, bad};
    assert_null(nnfx_symbolic_trace(m, 2, twob, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    nnfx_module_free(m);

    /* NULL module inside a forward: first error kept, no crash */
    m = nnfx_module_new("Null", null_forward, NULL);
    assert_null(nnfx_symbolic_trace(m, 1, &s, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_INVALID_ARG, "NULL module", NULL);
    nnfx_module_free(m);

    /* a module not in the tree */
    nnfx_module *stray = nnfx_relu_layer();
    m = nnfx_module_new("Stray", stray_forward, stray);
    assert_null(nnfx_symbolic_trace(m, 1, &s, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_TRACE, "not part of the module tree", NULL);
    nnfx_module_free(m);
    nnfx_module_free(stray);

    /* bad layer configuration is reported when called */
    m = nnfx_conv2d(3, 4, 3, 1, 0, 1, 2, true, 1);
    nnfx_shape img = nnfx_shape_of(4, 1, 3, 8, 8);
    assert_null(nnfx_symbolic_trace(m, 1, &img, &err));
    tu_assert_error(&err, err.status, NNFX_ERR_INVALID_ARG, "divisible by groups", NULL);
    nnfx_module_free(m);

    /* a module without forward, NULL children, duplicate names */
    m = nnfx_module_new("NoFwd", NULL, NULL);
    assert_null(nnfx_symbolic_trace(m, 1, &s, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    assert_null(nnfx_module_add(m, "x", NULL));
    assert_non_null(nnfx_module_add(m, "r", nnfx_relu_layer()));
    assert_null(nnfx_module_add(m, "r", nnfx_relu_layer())); /* freed, not leaked */
    assert_null(nnfx_module_add(m, "a.b", nnfx_relu_layer()));
    assert_null(nnfx_module_param(m, "r.weight"));
    nnfx_module_free(m);

    /* item outside tracing works; NULL context is harmless */
    double v = 1;
    assert_int_not_equal(nnfx_v_item(NULL, NULL, &v), NNFX_OK);
    assert_null(nnfx_v_relu(NULL, NULL));
}

static void test_single_layer_root(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *lin = nnfx_linear(6, 3, true, 9);
    nnfx_shape s = nnfx_shape_of(2, 4, 6);
    nnfx_gm *gm = nnfx_symbolic_trace(lin, 1, &s, &err);
    if (!gm) fail_msg("trace: %s", err.msg);
    assert_non_null(nnfx_graph_param(nnfx_gm_graph(gm), "weight"));
    int64_t shape[2] = {4, 6};
    nnfx_tensor *x = rand_input(2, shape, 2), *ref = NULL;
    assert_int_equal(nnfx_module_run(lin, 1, &x, &ref, &err), NNFX_OK);
    nnfx_tensor *out = gm_run1(gm, x);
    tu_assert_close(out, ref, 1e-6, 1e-6, "linear");
    /* check one element by hand: y = x W^T + b */
    const float *W = nnfx_module_param(lin, "weight")->data, *b = nnfx_module_param(lin, "bias")->data;
    const float *xp = x->data;
    double y = b[1];
    for (int k = 0; k < 6; k++)
        y += xp[6 * 2 + k] * W[6 * 1 + k];
    assert_true(fabs(nnfx_tensor_get(out, 2 * 3 + 1) - y) < 1e-5);
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(out);
    nnfx_gm_free(gm);
    nnfx_module_free(lin);
}

/* Children are found by name before and after a module grows past the
 * few it scans (then a map indexes them); duplicates and unknown names are
 * refused or not found either way. */
static void test_module_child_lookup_many(void **state) {
    (void)state;
    nnfx_module *root = nnfx_module_new("Root", NULL, NULL);
    assert_non_null(root);
    nnfx_module *kids[40];
    char name[16];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "k%d", i);
        kids[i] = nnfx_module_add(root, name, nnfx_module_new("Kid", NULL, NULL));
        assert_non_null(kids[i]);
        for (int j = 0; j <= i; j++) { /* every earlier child, at every size */
            snprintf(name, sizeof name, "k%d", j);
            assert_ptr_equal(nnfx_module_child(root, name), kids[j]);
        }
        assert_null(nnfx_module_child(root, "k"));
        snprintf(name, sizeof name, "k%d", i + 1);
        assert_null(nnfx_module_child(root, name));
        snprintf(name, sizeof name, "k%d", i / 2);
        assert_null(nnfx_module_add(root, name, nnfx_module_new("Dup", NULL, NULL)));
    }
    assert_int_equal(nnfx_module_num_children(root), 40);
    nnfx_module_free(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simplenet_eager_equals_traced),
        cmocka_unit_test(test_paths_and_param_names),
        cmocka_unit_test(test_nested_paths),
        cmocka_unit_test(test_module_child_lookup_many),
        cmocka_unit_test(test_long_and_indirect_paths),
        cmocka_unit_test(test_control_flow_error),
        cmocka_unit_test(test_shape_error),
        cmocka_unit_test(test_leaf_function),
        cmocka_unit_test(test_shared_layer_params),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_single_layer_root),
        cmocka_unit_test(test_fuse_traced_chain_keeps_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
