/* test_infer_incremental.c — shape inference after edits (which re-infers
 * only what changed) must give exactly what a full pass over a fresh copy
 * of the graph gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ir_int.h"
#include "nnfx.h"
#include "seed_models.h"

/* Asserts that every node of g has the meta a full pass over a copy gives. */
static void assert_like_full_pass(nnfx_graph *g) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    assert_non_null(c);
    assert_false(c->infer_valid);
    assert_int_equal(nnfx_graph_infer_shapes(c, &err), NNFX_OK);
    nnfx_node *a = nnfx_graph_first(g), *b = nnfx_graph_first(c);
    for (; a && b; a = nnfx_node_next(a), b = nnfx_node_next(b)) {
        assert_string_equal(nnfx_node_name(a), nnfx_node_name(b));
        for (int i = 0; i < nnfx_node_num_outputs(a); i++) {
            char ma[200], mb[200];
            nnfx_meta_str(nnfx_node_meta_c(a, i), ma, sizeof ma);
            nnfx_meta_str(nnfx_node_meta_c(b, i), mb, sizeof mb);
            if (strcmp(ma, mb) != 0) fail_msg("node %s: incremental %s, full %s", nnfx_node_name(a), ma, mb);
        }
    }
    assert_null(a);
    assert_null(b);
    nnfx_graph_free(c);
}

static nnfx_node *find_op(nnfx_graph *g, nnfx_op op, int k) {
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_is_op(n, op) && k-- == 0) return n;
    return NULL;
}

static void test_trace_then_edits(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_module *m = trace_seed_chain(6, 3);
    nnfx_shape in = nnfx_shape_of(4, 1, 4, 8, 8);
    nnfx_gm *gm = nnfx_symbolic_trace(m, 1, &in, &err);
    assert_non_null(gm);
    nnfx_graph *g = nnfx_gm_graph(gm);
    assert_true(g->infer_valid);
    assert_like_full_pass(g);

    /* an attribute edit in the middle changes every shape after it */
    nnfx_node *conv = find_op(g, NNFX_OP_CONV, 2);
    assert_non_null(conv);
    int64_t s2[2] = {2, 2};
    nnfx_attr strides = nnfx_attr_ints("strides", 2, s2);
    assert_int_equal(nnfx_node_set_attr(conv, &strides, &err), NNFX_OK);
    /* the block's "* x" now mixes 4x4 and 8x8: broadcasting refuses it */
    assert_int_not_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    int64_t s1[2] = {1, 1};
    strides = nnfx_attr_ints("strides", 2, s1);
    assert_int_equal(nnfx_node_set_attr(conv, &strides, &err), NNFX_OK);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    assert_like_full_pass(g);

    /* a new input shape through the mutable meta accessor */
    nnfx_meta *pm = nnfx_node_meta(nnfx_graph_input(g, 0), 0);
    int64_t dims[4] = {3, 4, 5, 7};
    nnfx_meta_set_shape(pm, NNFX_F32, 4, dims);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    char buf[100];
    assert_string_equal(
        nnfx_meta_str(nnfx_node_meta_c(nnfx_node_arg_node(nnfx_graph_output_node(g), 0), 0), buf, sizeof buf),
        "float32[3, 4, 5, 7]");
    assert_like_full_pass(g);

    /* relu -> leaky_relu, then rewiring a user */
    nnfx_node *relu = find_op(g, NNFX_OP_RELU, 1);
    nnfx_inserting_after(g, relu);
    nnfx_arg a = nnfx_node_arg(relu, 0);
    nnfx_node *leaky = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &a, 0, NULL, &err);
    assert_non_null(leaky);
    nnfx_replace_all_uses_with(relu, leaky, NULL, NULL);
    assert_int_equal(nnfx_erase_node(g, relu, &err), NNFX_OK);
    nnfx_inserting_at_end(g);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    assert_like_full_pass(g);
    nnfx_gm_free(gm);
    nnfx_module_free(m);
}

/* x [2, 3, 4] -> reshape(x, shape param) -> relu: the reshape's result
 * depends on the parameter's contents. */
static void test_param_contents_reach_shapes(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m;
    int64_t dims[3] = {2, 3, 4};
    nnfx_meta_set_shape(&m, NNFX_F32, 3, dims);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    int64_t two = 2;
    nnfx_tensor *shape = nnfx_tensor_new(NNFX_I64, 1, &two, &err);
    ((int64_t *)shape->data)[0] = 6;
    ((int64_t *)shape->data)[1] = 4;
    assert_int_equal(nnfx_graph_set_param(g, "shape", shape, &err), NNFX_OK);
    nnfx_node *sp = nnfx_graph_get_attr(g, "shape", &err);
    nnfx_arg ra[2] = {nnfx_arg_node(x), nnfx_arg_node(sp)};
    nnfx_node *r = nnfx_graph_call_op(g, NNFX_OP_RESHAPE, 2, ra, 0, NULL, &err);
    nnfx_arg ua = nnfx_arg_node(r);
    nnfx_node *relu = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &ua, 0, NULL, &err);
    assert_non_null(nnfx_graph_output(g, 1, &relu, &err));
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    char buf[100];
    assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(relu, 0), buf, sizeof buf), "float32[6, 4]");

    /* same parameter shape, new contents */
    nnfx_tensor *shape2 = nnfx_tensor_new(NNFX_I64, 1, &two, &err);
    ((int64_t *)shape2->data)[0] = 4;
    ((int64_t *)shape2->data)[1] = 6;
    assert_int_equal(nnfx_graph_set_param(g, "shape", shape2, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    assert_string_equal(nnfx_meta_str(nnfx_node_meta_c(relu, 0), buf, sizeof buf), "float32[4, 6]");
    assert_like_full_pass(g);

    /* a failed pass leaves the graph to a full pass next time */
    nnfx_meta_set_shape(nnfx_node_meta(x, 0), NNFX_F32, 3, (int64_t[]){5, 5, 5});
    assert_int_not_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    assert_false(g->infer_valid);
    nnfx_meta_set_shape(nnfx_node_meta(x, 0), NNFX_F32, 3, (int64_t[]){1, 4, 6});
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    assert_like_full_pass(g);
    nnfx_tensor_release(shape);
    nnfx_tensor_release(shape2);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_then_edits),
        cmocka_unit_test(test_param_contents_reach_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
