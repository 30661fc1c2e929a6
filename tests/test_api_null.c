/* test_api_null.c — every public function given NULL, empty or out-of-range
 * arguments returns an error status, NULL or a neutral value, and never
 * crashes (the suite also runs under ASan/UBSan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnfx.h"

/* The calls for bindings (nnfx_node_args ... nnfx_binding_*). */
static void test_binding_calls_null(void **state) {
    (void)state;
    nnfx_arg args[2];
    nnfx_node *nodes[2];
    assert_int_equal(nnfx_node_args(NULL, args, 2), 0);
    assert_int_equal(nnfx_node_users(NULL, nodes, 2), 0);
    assert_int_equal(nnfx_eliminate_dead_code_list(NULL, nodes, 2), 0);
    int nruns = -1;
    assert_int_equal(nnfx_eliminate_dead_code_runs(NULL, nodes, 2, &nruns), 0);
    assert_int_equal(nruns, 0);
    assert_int_equal(nnfx_replace_all_uses_with_list(NULL, NULL, nodes, 2), -1);
    assert_null(nnfx_binding_call_op(NULL));
    assert_int_equal(nnfx_binding_node_args(NULL), 0);
    assert_int_equal(nnfx_binding_replace_all_uses_with(NULL), -1);
    assert_int_equal(nnfx_binding_erase_node(NULL), NNFX_ERR_INVALID_ARG);
    uint64_t w[16] = {0}; /* NULL graph and nodes inside */
    assert_null(nnfx_binding_call_op(w));
    assert_int_equal(nnfx_binding_node_args(w), 0);
    assert_int_equal(nnfx_binding_replace_all_uses_with(w), -1);
    assert_int_equal(nnfx_binding_erase_node(w), NNFX_ERR_INVALID_ARG);
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *x = nnfx_graph_placeholder(g, "x", NULL, &err);
    assert_non_null(x);
    assert_int_equal(nnfx_node_args(x, NULL, 4), 0);
    assert_int_equal(nnfx_node_users(x, NULL, 4), 0);
    assert_int_equal(nnfx_replace_all_uses_with_list(x, x, NULL, 4), -1);
    assert_int_equal(nnfx_eliminate_dead_code_list(g, NULL, 4), 0); /* a placeholder stays */
    nnfx_graph_free(g);
}

static void test_core_and_tensors(void **state) {
    (void)state;
    nnfx_error err = {0};
    assert_non_null(nnfx_status_name((nnfx_status)12345));
    assert_int_equal(nnfx_error_set(NULL, NNFX_ERR_IO, "x %d", 1), NNFX_ERR_IO);
    nnfx_error_prefix(NULL, "x");
    assert_int_equal(nnfx_dtype_size((nnfx_dtype)77), 0);
    assert_string_equal(nnfx_dtype_name((nnfx_dtype)77), "undefined");
    assert_int_equal(nnfx_dtype_from_name(NULL), NNFX_DTYPE_UNDEFINED);
    assert_int_equal(nnfx_shape_of(-1).rank, 0);
    assert_int_equal(nnfx_shape_of(99).rank, 0);
    assert_null(nnfx_tensor_new((nnfx_dtype)77, 1, (int64_t[]){2}, &err));
    assert_null(nnfx_tensor_borrow(NNFX_F32, 1, (int64_t[]){2}, NULL, &err));
    assert_null(nnfx_tensor_mapped(NNFX_F32, 1, (int64_t[]){2}, NULL, NULL, &err));
    assert_null(nnfx_tensor_clone(NULL, &err));
    assert_null(nnfx_tensor_retain(NULL));
    nnfx_tensor_release(NULL);
    assert_int_equal(nnfx_tensor_numel(NULL), 0);
    nnfx_tensor_fill_uniform(NULL, 1, 0, 1);
    assert_null(nnfx_mapping_open(NULL, &err));
    assert_null(nnfx_mapping_data(NULL));
    assert_int_equal(nnfx_mapping_size(NULL), 0);
    assert_null(nnfx_mapping_retain(NULL));
    nnfx_mapping_release(NULL);
    assert_null(nnfx_npy_load(NULL, &err));
    assert_int_not_equal(nnfx_npy_save(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_npy_save("/nonexistent-dir/x.npy", NULL, &err), NNFX_OK);
    assert_null(nnfx_tensor_pb_load(NULL, &err));
    assert_null(nnfx_onnx_load(NULL, &err));
    assert_null(nnfx_onnx_load_buffer(NULL, 0, &err));
    assert_null(nnfx_onnx_load_buffer("garbage", 7, &err));
    assert_int_not_equal(nnfx_onnx_save(NULL, "/tmp/x.onnx", NULL, &err), NNFX_OK);
}

static void test_op_table(void **state) {
    (void)state;
    assert_string_equal(nnfx_op_name((nnfx_op)-3), "none");
    assert_string_equal(nnfx_op_name(NNFX_OP_COUNT), "none");
    assert_string_equal(nnfx_op_onnx_type((nnfx_op)9999), "");
    assert_int_equal(nnfx_op_find(NULL), NNFX_OP_NONE);
    assert_int_equal(nnfx_op_find("no_such_op"), NNFX_OP_NONE);
    assert_int_equal(nnfx_op_flags((nnfx_op)9999), 0);
    int a = -1, b = -1, c = -1;
    nnfx_op_arity((nnfx_op)9999, &a, &b, &c);
    nnfx_op_arity(NNFX_OP_RELU, NULL, NULL, NULL);
    assert_non_null(nnfx_op_attr_schema((nnfx_op)9999));
    assert_non_null(nnfx_opcode_name((nnfx_opcode)99));
}

static void test_graph_and_nodes(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph_free(NULL);
    assert_int_not_equal(nnfx_graph_set_param(NULL, "a", NULL, &err), NNFX_OK);
    assert_null(nnfx_graph_param(NULL, "a"));
    assert_int_equal(nnfx_graph_num_params(NULL), 0);
    assert_null(nnfx_graph_param_name(NULL, 0));
    assert_null(nnfx_graph_param_at(NULL, 0));
    assert_false(nnfx_graph_param_is_constant(NULL, 0));
    assert_int_not_equal(nnfx_graph_set_param_constant(NULL, "a", true, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_drop_unused_params(NULL), 0);
    assert_int_not_equal(nnfx_graph_register_leaf(NULL, "f", NULL, NULL, NULL, &err), NNFX_OK);
    nnfx_inserting_before(NULL, NULL);
    nnfx_inserting_after(NULL, NULL);
    nnfx_inserting_at_end(NULL);
    assert_null(nnfx_graph_placeholder(NULL, NULL, NULL, &err));
    assert_null(nnfx_graph_get_attr(NULL, NULL, &err));
    assert_null(nnfx_graph_call_op(NULL, NNFX_OP_RELU, 0, NULL, 0, NULL, &err));
    assert_null(nnfx_graph_call_module(NULL, NULL, 0, NULL, &err));
    assert_null(nnfx_graph_getitem(NULL, NULL, 0, &err));
    assert_null(nnfx_graph_output(NULL, 0, NULL, &err));
    assert_null(nnfx_graph_first(NULL));
    assert_null(nnfx_graph_last(NULL));
    assert_null(nnfx_node_next(NULL));
    assert_null(nnfx_node_prev(NULL));
    assert_int_equal(nnfx_graph_num_nodes(NULL), 0);
    assert_null(nnfx_graph_find(NULL, "x"));
    assert_null(nnfx_graph_output_node(NULL));
    assert_int_equal(nnfx_graph_num_inputs(NULL), 0);
    assert_null(nnfx_graph_input(NULL, 0));
    /* node accessors on NULL */
    assert_null(nnfx_node_graph(NULL));
    assert_non_null(nnfx_node_name(NULL));
    assert_int_not_equal(nnfx_node_set_name(NULL, "x", &err), NNFX_OK);
    assert_int_equal(nnfx_node_op(NULL), NNFX_OP_NONE);
    assert_false(nnfx_node_is_op(NULL, NNFX_OP_RELU));
    assert_non_null(nnfx_node_target(NULL));
    assert_int_equal(nnfx_node_num_args(NULL), 0);
    assert_int_equal(nnfx_node_arg(NULL, 0).kind, NNFX_ARG_NONE);
    assert_null(nnfx_node_arg_node(NULL, 0));
    assert_int_not_equal(nnfx_node_set_arg(NULL, 0, nnfx_arg_none(), &err), NNFX_OK);
    assert_int_not_equal(nnfx_node_set_args(NULL, 0, NULL, &err), NNFX_OK);
    assert_int_equal(nnfx_node_num_attrs(NULL), 0);
    assert_null(nnfx_node_attr_at(NULL, 0));
    assert_null(nnfx_node_attr(NULL, "x"));
    assert_int_equal(nnfx_node_attr_int(NULL, "x", 7), 7);
    assert_true(nnfx_node_attr_float(NULL, "x", 2.5) == 2.5);
    assert_string_equal(nnfx_node_attr_string(NULL, "x", "d"), "d");
    assert_int_not_equal(nnfx_node_set_attr(NULL, NULL, &err), NNFX_OK);
    assert_int_equal(nnfx_node_num_users(NULL), 0);
    assert_null(nnfx_node_user(NULL, 0));
    assert_int_equal(nnfx_node_num_outputs(NULL), 0);
    assert_null(nnfx_node_meta(NULL, 0));
    assert_null(nnfx_node_meta_c(NULL, 0));
    assert_non_null(nnfx_node_module_path(NULL));
    assert_int_not_equal(nnfx_node_set_module_path(NULL, "a", &err), NNFX_OK);
    assert_null(nnfx_node_src_file(NULL));
    assert_int_equal(nnfx_node_src_line(NULL), 0);
    nnfx_node_set_src(NULL, "f.c", 1);
    assert_false(nnfx_node_is_impure(NULL));
    assert_int_equal(nnfx_replace_all_uses_with(NULL, NULL, NULL, NULL), -1);
    assert_int_not_equal(nnfx_replace_input_with(NULL, NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_erase_node(NULL, NULL, &err), NNFX_OK);
    assert_int_equal(nnfx_eliminate_dead_code(NULL), 0);
    assert_int_not_equal(nnfx_node_move_before(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_graph_lint(NULL, &err), NNFX_OK);
    nnfx_value_map_free(NULL);
    assert_false(nnfx_value_map_put(NULL, NULL, NULL));
    assert_null(nnfx_value_map_get(NULL, NULL));
    assert_null(nnfx_graph_copy(NULL, NULL, &err));
    assert_null(nnfx_graph_node_copy(NULL, NULL, NULL, &err));
    assert_int_not_equal(nnfx_graph_infer_shapes(NULL, &err), NNFX_OK);
    char *t = nnfx_graph_to_text(NULL); /* an empty graph's text */
    assert_non_null(t);
    assert_string_equal(t, "graph():\n");
    free(t);
    assert_null(nnfx_graph_parse(NULL, &err));
    free(nnfx_graph_tabular(NULL)); /* an empty table or NULL, never a crash */
    free(nnfx_graph_to_dot(NULL));
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 0, NULL);
    assert_false(nnfx_meta_is_static(NULL));
    char buf[32];
    assert_non_null(nnfx_meta_str(NULL, buf, sizeof buf));
    /* out-of-range indices on a real graph */
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *x = nnfx_graph_placeholder(g, "x", NULL, &err);
    assert_null(nnfx_node_meta(x, 5));
    assert_null(nnfx_node_user(x, -1));
    assert_int_equal(nnfx_node_arg(x, 3).kind, NNFX_ARG_NONE);
    assert_int_not_equal(nnfx_node_set_arg(x, 3, nnfx_arg_none(), &err), NNFX_OK);
    assert_null(nnfx_graph_param_name(g, 4));
    assert_null(nnfx_graph_input(g, 4));
    nnfx_graph_free(g);
}

static void test_exec_and_trace(void **state) {
    (void)state;
    nnfx_error err = {0};
    assert_null(nnfx_gm_new(NULL, &err));
    nnfx_gm_free(NULL);
    assert_null(nnfx_gm_graph(NULL));
    assert_int_not_equal(nnfx_gm_recompile(NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_gm_compile(NULL, NULL, &err), NNFX_OK);
    assert_null(nnfx_gm_code(NULL, &err));
    assert_null(nnfx_gm_plan(NULL, &err));
    assert_null(nnfx_gm_profile(NULL, &err));
    assert_int_equal(nnfx_gm_set_profile(NULL, true, &err), NNFX_ERR_INVALID_ARG);
    assert_true(nnfx_gm_peak_activation_bytes(NULL, &err) < 0);
    assert_int_not_equal(nnfx_gm_run(NULL, 0, NULL, 0, NULL, NULL, &err), NNFX_OK);
    nnfx_gm_set_threads(NULL, 2);
    assert_null(nnfx_interp_new(NULL, NULL, NULL, &err));
    nnfx_interp_free(NULL);
    assert_null(nnfx_interp_user(NULL));
    assert_int_not_equal(nnfx_interp_run(NULL, 0, NULL, 0, NULL, NULL, &err), NNFX_OK);
    assert_null(nnfx_interp_value(NULL, NULL));
    assert_int_not_equal(nnfx_interp_default_run_node(NULL, NULL, NULL, &err), NNFX_OK);
    nnfx_value_set vs;
    assert_int_not_equal(nnfx_op_run(NULL, 0, NULL, &vs, &err), NNFX_OK);
    assert_null(nnfx_transform(NULL, NULL, NULL, &err));
    assert_null(nnfx_transformer_graph(NULL));
    assert_null(nnfx_transformer_user(NULL));
    nnfx_module_free(NULL);
    assert_null(nnfx_module_user(NULL));
    assert_null(nnfx_module_add(NULL, "a", NULL));
    assert_null(nnfx_module_child(NULL, "a"));
    assert_int_not_equal(nnfx_module_add_param(NULL, "w", NULL, &err), NNFX_OK);
    assert_null(nnfx_module_param(NULL, "w"));
    assert_int_not_equal(nnfx_module_set_inputs(NULL, 1, NULL, &err), NNFX_OK);
    assert_non_null(nnfx_module_type(NULL));
    assert_null(nnfx_call_at(NULL, NULL, NULL, "f.c", 1));
    assert_null(nnfx_v_unary_at(NULL, NNFX_OP_RELU, NULL, "f.c", 1));
    assert_null(nnfx_v_binary_at(NULL, NNFX_OP_ADD, NULL, NULL, "f.c", 1));
    assert_null(nnfx_v_scalar(NULL, 1.0));
    assert_null(nnfx_value_tensor(NULL));
    assert_null(nnfx_value_meta(NULL));
    assert_null(nnfx_value_node(NULL));
    assert_false(nnfx_ctx_is_tracing(NULL));
    double v;
    assert_int_not_equal(nnfx_v_item_at(NULL, NULL, &v, "f.c", 1), NNFX_OK);
    assert_null(nnfx_symbolic_trace(NULL, 0, NULL, &err));
    nnfx_tensor *out = NULL;
    assert_int_not_equal(nnfx_module_run(NULL, 0, NULL, &out, &err), NNFX_OK);
    /* a layer built with bad sizes is kept, and using it is an error naming them */
    nnfx_module *bad[4] = {nnfx_conv2d(0, 4, 3, 1, 0, 1, 1, true, 1), nnfx_conv2d(4, 4, 3, 1, 0, 1, 3, true, 1),
                           nnfx_linear(-1, 4, true, 1), nnfx_batchnorm2d(0, 1e-5, 1)};
    nnfx_shape in = nnfx_shape_of(4, 1, 4, 8, 8);
    for (int i = 0; i < 4; i++) {
        assert_non_null(bad[i]);
        nnfx_gm *gm = nnfx_symbolic_trace(bad[i], 1, &in, &err);
        assert_null(gm);
        assert_int_not_equal(err.status, NNFX_OK);
        assert_true(strlen(err.msg) > 0);
        nnfx_module_free(bad[i]);
    }
}

static void test_rewrite_and_passes(void **state) {
    (void)state;
    nnfx_error err = {0};
    assert_null(nnfx_find_matches(NULL, NULL, NULL, &err));
    assert_null(nnfx_replace_pattern(NULL, NULL, NULL, NULL, NULL, &err));
    assert_null(nnfx_replace_pattern_ex(NULL, NULL, NULL, NULL, &err));
    nnfx_match_list_free(NULL);
    assert_int_equal(nnfx_match_list_count(NULL), 0);
    assert_null(nnfx_match_list_at(NULL, 0));
    assert_int_equal(nnfx_match_list_num_candidates(NULL), 0);
    assert_null(nnfx_match_list_candidate(NULL, 0));
    assert_string_equal(nnfx_match_list_warning(NULL), "");
    char *s = nnfx_rewrite_explain(NULL);
    free(s);
    nnfx_graph *p = NULL, *r = NULL;
    assert_int_not_equal(nnfx_pattern_parse(NULL, &p, &r, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pattern_parse("relu(x) -> ", &p, &r, &err), NNFX_OK);
    assert_true(nnfx_rewrite_text(NULL, "relu(x) -> x", &err) < 0);
    nnfx_pass_report_free(NULL);
    assert_int_not_equal(nnfx_pass_fuse_conv_bn(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_remove_bn(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_remove_dropout(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_remove_identity(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_run_by_name(NULL, "dce", NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_cse(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_fold_constants(NULL, NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_shape_prop(NULL, NULL, &err), NNFX_OK);
    nnfx_graph *g = nnfx_graph_new();
    assert_int_not_equal(nnfx_pass_run_by_name(g, "no-such-pass", NULL, &err), NNFX_OK);
    assert_int_not_equal(nnfx_pass_run_by_name(g, NULL, NULL, &err), NNFX_OK);
    nnfx_graph_free(g);
    assert_null(nnfx_pass_name(-1));
    assert_null(nnfx_pass_description(nnfx_pass_count()));
    assert_non_null(nnfx_reject_kind_name((nnfx_reject_kind)999));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_core_and_tensors), cmocka_unit_test(test_binding_calls_null),
        cmocka_unit_test(test_op_table),         cmocka_unit_test(test_graph_and_nodes),
        cmocka_unit_test(test_exec_and_trace),   cmocka_unit_test(test_rewrite_and_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
