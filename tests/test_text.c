/* test_text.c — the text forms of the graph IR: FX's printed form and its
 * parser (round trips, plain FX input, error positions, fuzzing), the
 * print_tabular table and the DOT view. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nnfx.h"

/* --- fixtures ----------------------------------------------------------- */

static nnfx_status gelu_leaf(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    (void)user;
    (void)nin;
    *out = nnfx_tensor_clone(in[0], err);
    return *out ? NNFX_OK : NNFX_ERR_NOMEM;
}

static nnfx_status gelu_infer(void *user, int nin, const nnfx_meta *const *in, nnfx_meta *out, nnfx_error *err) {
    (void)user;
    (void)err;
    if (nin > 0 && in[0]) *out = *in[0];
    return NNFX_OK;
}

static nnfx_tensor *zeros(int rank, const int64_t *shape) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, NULL);
    assert_non_null(t);
    return t;
}

/* x[batch,3,8,8] -> conv(+params, attrs, module path) -> relu -> split(2)
 * -> getitem 0/1 -> add -> leaky_relu -> my_gelu (leaf) ; clip(x, None, 6.0)
 * ; constant(tensor) ; return (my_gelu, clip, constant) */
static nnfx_graph *make_rich(void) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    assert_non_null(g);
    int64_t wshape[4] = {4, 3, 3, 3}, bshape[1] = {4}, odd_shape[2] = {2, 2};
    nnfx_tensor *w = zeros(4, wshape), *bias = zeros(1, bshape), *odd = zeros(2, odd_shape);
    assert_int_equal(nnfx_graph_set_param(g, "conv.weight", w, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "conv.bias", bias, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "unused \"odd\" name", odd, &err), NNFX_OK);
    nnfx_tensor_release(w);
    nnfx_tensor_release(bias);
    nnfx_tensor_release(odd);
    assert_int_equal(nnfx_graph_register_leaf(g, "my_gelu", gelu_leaf, gelu_infer, NULL, &err), NNFX_OK);

    nnfx_meta m = {0};
    int64_t xs[4] = {-1, 3, 8, 8};
    nnfx_meta_set_shape(&m, NNFX_F32, 4, xs);
    m.dims[0].symbol = nnfx_symbol("batch");
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_node *cw = nnfx_graph_get_attr(g, "conv.weight", &err);
    nnfx_node *cb = nnfx_graph_get_attr(g, "conv.bias", &err);
    assert_non_null(x);
    assert_non_null(cw);
    assert_non_null(cb);
    int64_t ks[2] = {3, 3}, pads[4] = {1, 1, 1, 1};
    nnfx_attr conv_attrs[3] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("pads", 4, pads),
                               nnfx_attr_string("auto_pad", "NOTSET")};
    nnfx_arg conv_args[3] = {nnfx_arg_node(x), nnfx_arg_node(cw), nnfx_arg_node(cb)};
    nnfx_node *conv = nnfx_graph_call_op(g, NNFX_OP_CONV, 3, conv_args, 3, conv_attrs, &err);
    assert_non_null(conv);
    assert_int_equal(nnfx_node_set_module_path(conv, "layer1.0.conv1", &err), NNFX_OK);
    nnfx_node_set_src(conv, "model.c", 42);
    nnfx_arg a = nnfx_arg_node(conv);
    nnfx_node *relu = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    a = nnfx_arg_node(relu);
    nnfx_attr split_attrs[2] = {nnfx_attr_int("axis", 1), nnfx_attr_int("num_outputs", 2)};
    nnfx_node *split = nnfx_graph_call_op(g, NNFX_OP_SPLIT, 1, &a, 2, split_attrs, &err);
    assert_non_null(split);
    assert_int_equal(nnfx_node_num_outputs(split), 2);
    nnfx_node *g0 = nnfx_graph_getitem(g, split, 0, &err);
    nnfx_node *g1 = nnfx_graph_getitem(g, split, 1, &err);
    nnfx_arg add_args[2] = {nnfx_arg_node(g0), nnfx_arg_node(g1)};
    nnfx_node *add = nnfx_graph_call_op(g, NNFX_OP_ADD, 2, add_args, 0, NULL, &err);
    a = nnfx_arg_node(add);
    nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
    nnfx_node *leaky = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &a, 1, &alpha, &err);
    a = nnfx_arg_node(leaky);
    nnfx_node *gelu = nnfx_graph_call_module(g, "my_gelu", 1, &a, &err);
    assert_non_null(gelu);
    nnfx_attr odd_key = nnfx_attr_string("odd key", "v");
    assert_int_equal(nnfx_node_set_attr(gelu, &odd_key, &err), NNFX_OK);
    nnfx_arg clip_args[3] = {nnfx_arg_node(x), nnfx_arg_none(), nnfx_arg_float(6.0)};
    nnfx_node *clip = nnfx_graph_call_op(g, NNFX_OP_CLIP, 3, clip_args, 0, NULL, &err);
    assert_non_null(clip);
    int64_t cs[2] = {2, 3};
    nnfx_tensor *cval = zeros(2, cs);
    nnfx_attr cattr = nnfx_attr_tensor("value", cval);
    nnfx_node *cst = nnfx_graph_call_op(g, NNFX_OP_CONSTANT, 0, NULL, 1, &cattr, &err);
    nnfx_tensor_release(cval);
    assert_non_null(cst);
    nnfx_node *outs[3] = {gelu, clip, cst};
    assert_non_null(nnfx_graph_output(g, 3, outs, &err));
    nnfx_status st = nnfx_graph_infer_shapes(g, &err);
    if (st) fail_msg("infer_shapes: %s", err.msg);
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    return g;
}

/* x[2, 3] -> relu -> output */
static nnfx_graph *make_small(void) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_meta m;
    int64_t d[2] = {2, 3};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_node *relu = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &err);
    assert_non_null(nnfx_graph_output(g, 1, &relu, &err));
    return g;
}

static void assert_contains(const char *hay, const char *needle) {
    if (!strstr(hay, needle)) fail_msg("expected to find\n  %s\nin\n%s", needle, hay);
}

/* --- printed form -------------------------------------------------------- */

static void test_print_small_is_fx_form(void **state) {
    (void)state;
    nnfx_graph *g = make_small();
    char *t = nnfx_graph_to_text(g);
    assert_non_null(t);
    assert_string_equal(t, "graph():\n"
                           "    %x : [num_users=1] = placeholder[target=x]  # float32[2, 3]\n"
                           "    %relu : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
                           "    return relu\n");
    free(t);
    nnfx_graph_free(g);
}

static void test_print_rich(void **state) {
    (void)state;
    nnfx_graph *g = make_rich();
    char *t = nnfx_graph_to_text(g);
    assert_non_null(t);
    assert_contains(t, "graph():\n    # param conv.weight : float32[4, 3, 3, 3]\n");
    assert_contains(t, "    # param \"unused \\\"odd\\\" name\" : float32[2, 2]\n");
    assert_contains(t, "%x : [num_users=2] = placeholder[target=x]  # float32[batch, 3, 8, 8]\n");
    assert_contains(t, "%conv_weight : [num_users=1] = get_attr[target=conv.weight]  # float32[4, 3, 3, 3]\n");
    assert_contains(t, "call_function[target=conv](args = (%x, %conv_weight, %conv_bias), kwargs = {kernel_shape: "
                       "[3, 3], pads: [1, 1, 1, 1], auto_pad: \"NOTSET\"})  # float32[batch, 4, 8, 8] "
                       "{module: layer1.0.conv1, source: \"model.c:42\"}\n");
    assert_contains(t, "%split : [num_users=2] = call_function[target=split](args = (%relu,), kwargs = {axis: 1, "
                       "num_outputs: 2})  # (float32[batch, 2, 8, 8], float32[batch, 2, 8, 8])\n");
    assert_contains(t, "%getitem_1 : [num_users=1] = call_function[target=getitem](args = (%split, 1), kwargs = {})");
    assert_contains(t, "kwargs = {alpha: 0.1})");
    assert_contains(
        t,
        "%my_gelu : [num_users=1] = call_module[target=my_gelu](args = (%leaky_relu,), kwargs = {\"odd key\": \"v\"})");
    assert_contains(t, "(args = (%x, None, 6.0), kwargs = {})");
    assert_contains(t, "kwargs = {value: tensor(float32[2, 3])})  # float32[2, 3]\n");
    assert_contains(t, "    return (my_gelu, clip, constant)\n");
    free(t);
    nnfx_graph_free(g);
}

static void test_round_trip(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = make_rich();
    char *t1 = nnfx_graph_to_text(g);
    nnfx_graph *g2 = nnfx_graph_parse(t1, &err);
    if (!g2) fail_msg("parse: %s\n%s", err.msg, t1);
    char *t2 = nnfx_graph_to_text(g2);
    assert_string_equal(t1, t2);
    assert_int_equal(nnfx_graph_lint(g2, &err), NNFX_OK);
    assert_int_equal(nnfx_graph_num_nodes(g2), nnfx_graph_num_nodes(g));
    assert_int_equal(nnfx_graph_num_params(g2), 3);
    /* parameters come back as zero tensors of the declared type */
    nnfx_tensor *w = nnfx_graph_param(g2, "conv.weight");
    assert_non_null(w);
    assert_int_equal(w->rank, 4);
    assert_int_equal(w->shape[0], 4);
    assert_true(nnfx_tensor_get(w, 5) == 0.0);
    /* names, ops, attributes and meta survive */
    nnfx_node *conv = nnfx_graph_find(g2, "conv");
    assert_true(nnfx_node_is_op(conv, NNFX_OP_CONV));
    assert_string_equal(nnfx_node_module_path(conv), "layer1.0.conv1");
    assert_string_equal(nnfx_node_src_file(conv), "model.c");
    assert_int_equal(nnfx_node_src_line(conv), 42);
    assert_string_equal(nnfx_node_attr_string(conv, "auto_pad", ""), "NOTSET");
    assert_string_equal(nnfx_node_meta(nnfx_graph_find(g2, "x"), 0)->dims[0].symbol, "batch");
    assert_int_equal(nnfx_node_num_outputs(nnfx_graph_find(g2, "split")), 2);
    nnfx_node *clip = nnfx_graph_find(g2, "clip");
    assert_int_equal(nnfx_node_arg(clip, 1).kind, NNFX_ARG_NONE);
    assert_int_equal(nnfx_node_arg(clip, 2).kind, NNFX_ARG_FLOAT);
    assert_true(nnfx_node_arg(clip, 2).u.f == 6.0);
    assert_true(nnfx_node_attr_float(nnfx_graph_find(g2, "leaky_relu"), "alpha", 0) == 0.1);
    assert_int_equal(nnfx_node_opcode(nnfx_graph_find(g2, "my_gelu")), NNFX_CALL_MODULE);
    /* shape inference works on the parsed graph and agrees */
    assert_int_equal(nnfx_graph_infer_shapes(g2, &err), NNFX_OK);
    char *t3 = nnfx_graph_to_text(g2);
    assert_string_equal(t1, t3);
    free(t1);
    free(t2);
    free(t3);
    nnfx_graph_free(g);
    nnfx_graph_free(g2);
}

static void test_round_trip_floats_and_strings(void **state) {
    (void)state;
    const char *text =
        "graph():\n"
        "    %x : [num_users=3] = placeholder[target=\"input 1\"]  # float32[\"n a\", ?, \"12\", \"inf\", n_1, 4]\n"
        "    %a : [num_users=1] = call_function[target=leaky_relu](args = (%x,), kwargs = {alpha: "
        "0.30000000000000004})\n"
        "    %b : [num_users=1] = call_function[target=clip](args = (%x, -1e-300, inf), kwargs = {})\n"
        "    %c : [num_users=1] = call_function[target=pad](args = (%x, %x), kwargs = {mode: "
        "\"a\\\"b\\\\c\\n\"})\n"
        "    %d : [num_users=1] = call_function[target=resize](args = (%a,), kwargs = {cubic_coeff_a: "
        "-0.75, axes: []})  # float32\n"
        "    return (d, b, c)\n";
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    if (!g) fail_msg("parse: %s", err.msg);
    char *t = nnfx_graph_to_text(g);
    assert_string_equal(t, text);
    nnfx_node *x = nnfx_graph_find(g, "x");
    assert_string_equal(nnfx_node_target(x), "input 1");
    assert_string_equal(nnfx_node_attr_string(nnfx_graph_find(g, "c"), "mode", ""), "a\"b\\c\n");
    assert_true(nnfx_node_attr_float(nnfx_graph_find(g, "a"), "alpha", 0) == 0.1 + 0.2);
    assert_true(nnfx_node_arg(nnfx_graph_find(g, "b"), 1).u.f == -1e-300);
    free(t);
    nnfx_graph_free(g);
}

static void test_parsed_leaf_has_no_implementation(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse("graph():\n"
                                     "    %x : [num_users=1] = placeholder[target=x]  # float32[2]\n"
                                     "    %f : [num_users=1] = call_module[target=my_leaf](args = (%x,), kwargs = {})"
                                     "  # float32[2]\n"
                                     "    return f\n",
                                     &err);
    if (!g) fail_msg("parse: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    int64_t d[1] = {2};
    nnfx_tensor *in = zeros(1, d), *out[1] = {NULL};
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &in, 1, out, &nout, &err), NNFX_ERR_UNSUPPORTED);
    assert_contains(err.msg, "my_leaf");
    assert_contains(err.msg, "no implementation in a parsed graph");
    nnfx_tensor_release(in);
    nnfx_gm_free(gm);
}

/* --- plain FX input ------------------------------------------------------- */

static void test_parse_plain_fx_form(void **state) {
    (void)state;
    const char *text = "graph():\n"
                       "    %x : torch.Tensor [num_users=1] = placeholder[target=x]\n"
                       "    %linear_weight : [num_users=1] = get_attr[target=linear.weight]\n"
                       "    %matmul : [num_users=1] = call_function[target=torch.matmul](args = (%x, %linear_weight),"
                       " kwargs = {})\n"
                       "    %relu : [#users=1] = call_function[target=torch.relu](args = (%matmul,), kwargs = {})\n"
                       "\n"
                       "    %split : [num_users=2] = call_function[target=split](args = (%relu,), kwargs = {axis: 1})\n"
                       "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%split, 0), "
                       "kwargs = {})\n"
                       "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%split, 1), "
                       "kwargs = {})\n"
                       "    %add : [num_users=1] = call_function[target=operator.add](args = (%getitem, %getitem_1), "
                       "kwargs = {})\n"
                       "    %pad : [num_users=1] = call_function[target=pad](args = (%add, %x), kwargs = {mode: "
                       "reflect})\n"
                       "    return pad\n";
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    if (!g) fail_msg("parse: %s", err.msg);
    assert_int_equal(nnfx_graph_num_nodes(g), 10);
    assert_true(nnfx_node_is_op(nnfx_graph_find(g, "matmul"), NNFX_OP_MATMUL));
    assert_true(nnfx_node_is_op(nnfx_graph_find(g, "relu"), NNFX_OP_RELU));
    assert_true(nnfx_node_is_op(nnfx_graph_find(g, "getitem_1"), NNFX_OP_GETITEM));
    assert_int_equal(nnfx_node_num_outputs(nnfx_graph_find(g, "split")), 2);
    assert_string_equal(nnfx_node_attr_string(nnfx_graph_find(g, "pad"), "mode", ""), "reflect");
    assert_non_null(nnfx_graph_param(g, "linear.weight"));
    nnfx_node *out = nnfx_graph_output_node(g);
    assert_ptr_equal(nnfx_node_arg_node(out, 0), nnfx_graph_find(g, "pad"));
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    nnfx_graph_free(g);

    /* torch.export's "return (relu,)" and "%name" in return */
    g = nnfx_graph_parse("graph():\n    %x : [num_users=1] = placeholder[target=x]\n    return (%x,)\n", &err);
    if (!g) fail_msg("parse: %s", err.msg);
    assert_int_equal(nnfx_node_num_args(nnfx_graph_output_node(g)), 1);
    nnfx_graph_free(g);
}

/* --- errors ----------------------------------------------------------------- */

static void test_parse_errors_have_positions(void **state) {
    (void)state;
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"", "line 1: empty text: expected 'graph():'"},
        {"grph():\n", "line 1, column 1: expected 'graph():' first"},
        {"graph()\n", "line 1, column 8: expected ':' after 'graph()'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x\n",
         "line 2, column 46: expected ']' after the target, found the end of the line"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu6](args = (%x,), kwargs = {})\n",
         "line 3: unknown op 'relu6'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu](args = (%y,), kwargs = {})\n",
         "line 3, column 61: undefined value %y"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu](args = (%x, kwargs = {})\n",
         "line 3, column 65: expected an argument"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu](args = (%x,) kwargs = {})\n",
         "line 3, column 66: expected ',' after args"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {}\n",
         "line 3, column 78: expected ')' after kwargs, found the end of the line"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %c : [num_users=1] = call_function[target=conv](args = (%x, %x), kwargs = {kernel: [3, 3]})\n",
         "line 3, column 80: conv has no attribute 'kernel'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %c : [num_users=1] = call_function[target=conv](args = (%x, %x), kwargs = {group: 1.5})\n",
         "line 3, column 87: attribute 'group' of conv takes an int, not a float"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]  # floot32[2]\n",
         "line 2, column 51: unknown dtype 'floot32'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]  # float32[2, -3]\n",
         "line 2, column 62: a dim must be a non-negative integer"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n    %x : [num_users=1] = placeholder[target=y]\n",
         "line 3, column 5: node %x is defined twice"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=relu](args = (%x, %x), kwargs = {})\n",
         "line 3: call_op: relu takes 1 to 1 arguments, got 2"},
        {"graph():\n    %x : [num_users=1] = call_method[target=relu](args = (), kwargs = {})\n",
         "line 2, column 26: call_method is not supported"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n    return x\n    return x\n",
         "line 4, column 5: unexpected text after the return line"},
        {"graph():\n    # param w : float32[2, n]\n", "line 2, column 17: a parameter or tensor needs a static shape"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=\"x]\n", "line 2, column 45: unterminated string"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %s : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
         "    %g : [num_users=1] = call_function[target=getitem](args = (%s, 1), kwargs = {})\n",
         "line 4, column 47: getitem index 1 is out of range: %s has 1 output"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]  # float32[2] {modul: a}\n",
         "line 2, column 63: unknown or repeated key 'modul'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n    bogus\n", "line 3, column 5: expected a node"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
         "    %r : [num_users=1] = call_function[target=add](args = (%x, 99999999999999999999), kwargs = {})\n",
         "line 3, column 64: integer 99999999999999999999 is out of range"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nnfx_error err = {0};
        nnfx_graph *g = nnfx_graph_parse(cases[i].text, &err);
        if (g) fail_msg("case %zu parsed but should not:\n%s", i, cases[i].text);
        assert_int_not_equal(err.status, NNFX_OK);
        if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0) {
            print_error("case %zu:\n  got      %s\n  expected %s...\n", i, err.msg, cases[i].msg);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
    nnfx_error err = {0};
    assert_null(nnfx_graph_parse(NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    assert_null(nnfx_graph_parse("garbage", NULL)); /* NULL err is fine */
}

/* --- fuzz ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_fuzz_truncations_and_flips(void **state) {
    (void)state;
    nnfx_graph *g = make_rich();
    char *base = nnfx_graph_to_text(g);
    nnfx_graph_free(g);
    size_t len = strlen(base);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    static const char interesting[] = "%()[]{},:=#\"'\\.-+0123456789e \n\tNone?";
    uint64_t seed = 12345;
    int parsed = 0;
    for (int it = 0; it < 4000; it++) {
        memcpy(buf, base, len + 1);
        size_t n = len;
        int mode = (int)(rng_next(&seed) % 3);
        if (mode != 1) n = (size_t)(rng_next(&seed) % (len + 1)); /* truncate */
        buf[n] = 0;
        if (mode != 0 && n > 0) {
            int flips = 1 + (int)(rng_next(&seed) % 4);
            for (int k = 0; k < flips; k++) {
                size_t at = (size_t)(rng_next(&seed) % n);
                uint64_t r = rng_next(&seed);
                char c = (r & 1) ? interesting[(r >> 1) % (sizeof interesting - 1)] : (char)(r >> 8);
                buf[at] = c ? c : ' ';
            }
        }
        nnfx_error err = {0};
        nnfx_graph *pg = nnfx_graph_parse(buf, &err);
        if (!pg) {
            assert_int_not_equal(err.status, NNFX_OK);
            assert_true(strlen(err.msg) > 0);
            continue;
        }
        parsed++;
        char *again = nnfx_graph_to_text(pg);
        assert_non_null(again);
        /* what parsed must print and parse back to the same text */
        nnfx_graph *pg2 = nnfx_graph_parse(again, &err);
        if (!pg2) fail_msg("reparse failed: %s\n%s", err.msg, again);
        char *again2 = nnfx_graph_to_text(pg2);
        assert_string_equal(again, again2);
        (void)nnfx_graph_lint(pg, &err);
        free(again);
        free(again2);
        nnfx_graph_free(pg);
        nnfx_graph_free(pg2);
    }
    print_message("fuzz: %d of 4000 mutants parsed\n", parsed);
    assert_true(parsed > 0);
    free(buf);
    free(base);
}

/* Hand-picked nasty inputs: each must fail with a message or parse. */
static void test_adversarial_inputs(void **state) {
    (void)state;
    static const char *const fixed[] = {
        "graph():\n    %x : [num_users=1] = placeholder[target=x]  # float32[1, 2, 3, 4, 5, 6, 7, 8, 9]\n",
        "graph():\n    %x : [num_users=1] = placeholder[target='\\",
        "graph():\n    %x : [num_users=1] = placeholder[target=\"\\x0\"]\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=\"\\x00\"]\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]  # (float32, float32)\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]  # {source: \"a:b\"}\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]  # {source: \":1\"}\n",
        "graph():\n    # param w : float32[100000000, 100000000, 100000000]\n",
        "graph():\n    # param w : float32[2]\n    # param w : float32[2]\n",
        "graph():\n    %w : [num_users=1] = get_attr[target=w]  # float32[batch]\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %s : [num_users=1] = call_function[target=split](args = (%x,), kwargs = {})\n"
        "    %g : [num_users=1] = call_function[target=getitem](args = (%s, 8), kwargs = {})\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n    return ((x,),)\n",
        "graph():\n    return\n",
        "graph():\n\r\n\t\n    return ()  #\n",
        "graph(x, y):\n",
        "graph():\n    %0x : [num_users=1] = placeholder[target=x]\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %c : [num_users=1] = call_function[target=constant](args = (), kwargs = {value: tensor(float32)})\n",
        "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"
        "    %c : [num_users=1] = call_function[target=conv](args = (%x, %x), kwargs = {pads: [1, 2.5, x]})\n",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        nnfx_error err = {0};
        nnfx_graph *g = nnfx_graph_parse(fixed[i], &err);
        if (!g) assert_true(err.status != NNFX_OK && err.msg[0]);
        nnfx_graph_free(g);
    }
    /* huge tokens */
    size_t n = 200000;
    char *big = malloc(n + 64);
    assert_non_null(big);
    const char *prefixes[] = {"graph():\n    %", "graph():\n    %x : [num_users=1] = placeholder[target=",
                              "graph():\n    # param w : float32[", "graph():\n    return (", "graph("};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        for (int fill = 0; fill < 3; fill++) {
            size_t pl = strlen(prefixes[k]);
            memcpy(big, prefixes[k], pl);
            for (size_t i = pl; i < n; i++)
                big[i] = fill == 0 ? 'a' : fill == 1 ? '9' : (i % 2 ? ',' : '(');
            big[n] = 0;
            nnfx_error err = {0};
            nnfx_graph *g = nnfx_graph_parse(big, &err);
            if (!g) assert_true(err.msg[0] != 0);
            nnfx_graph_free(g);
        }
    }
    free(big);
}

/* --- tabular ------------------------------------------------------------------ */

static void test_tabular(void **state) {
    (void)state;
    nnfx_graph *g = make_small();
    char *t = nnfx_graph_tabular(g);
    assert_non_null(t);
    assert_string_equal(t, "opcode         name    target  args     kwargs\n"
                           "-------------  ------  ------  -------  ------\n"
                           "placeholder    x       x       ()       {}\n"
                           "call_function  relu    relu    (x,)     {}\n"
                           "output         output  output  (relu,)  {}\n");
    free(t);
    nnfx_graph_free(g);

    g = make_rich();
    t = nnfx_graph_tabular(g);
    assert_non_null(t);
    assert_contains(t, "{'kernel_shape': [3, 3], 'pads': [1, 1, 1, 1], 'auto_pad': 'NOTSET'}");
    assert_contains(t, "((my_gelu, clip, constant),)");
    assert_contains(t, "(x, None, 6.0)");
    /* every row's name column starts where the header's does */
    const char *name_col = strstr(t, "name");
    size_t col = (size_t)(name_col - t);
    int rows = 0;
    for (const char *line = strchr(t, '\n') + 1; *line; line = strchr(line, '\n') + 1, rows++) {
        if (rows == 0) continue; /* dashes */
        assert_true(line[col - 1] == ' ' && line[col - 2] == ' ' && line[col] != ' ');
    }
    assert_int_equal(rows, nnfx_graph_num_nodes(g) + 1);
    free(t);
    nnfx_graph_free(g);
    t = nnfx_graph_tabular(NULL);
    assert_non_null(t);
    free(t);
}

/* --- DOT ---------------------------------------------------------------------- */

static void test_dot(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = make_rich();
    nnfx_node *x = nnfx_graph_find(g, "x");
    assert_int_equal(nnfx_node_set_module_path(x, "in \"quoted\"", &err), NNFX_OK);
    char *d = nnfx_graph_to_dot(g);
    assert_non_null(d);
    assert_contains(d, "digraph \"graph\" {");
    assert_contains(d, "\"x\" [label=\"x\\nplaceholder x\\nfloat32[batch, 3, 8, 8]\\n(in \\\"quoted\\\")\", "
                       "shape=ellipse");
    assert_contains(d, "\"conv\" [label=\"conv\\nconv\\nfloat32[batch, 4, 8, 8]\\n(layer1.0.conv1)\"");
    assert_contains(d, "\"conv_weight\" [label=\"conv_weight\\nget_attr conv.weight");
    assert_contains(d, "shape=note");
    assert_contains(d, "shape=doubleoctagon");
    assert_contains(d, "shape=box3d");
    assert_contains(d, "\"x\" -> \"conv\" [label=\"0\"];");
    assert_contains(d, "\"conv_weight\" -> \"conv\" [label=\"1\"];");
    assert_contains(d, "\"relu\" -> \"split\";");
    assert_contains(d, "\"my_gelu\" -> \"output\";");
    assert_true(d[strlen(d) - 2] == '}');

    if (system("command -v dot >/dev/null 2>&1") != 0) {
        free(d);
        nnfx_graph_free(g);
        print_message("graphviz 'dot' not found: skipping the render check\n");
        skip();
    }
    char path[] = "/tmp/nnfx_test_dot_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(d, f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' -o '%s.svg' 2>&1", path, path);
    int rc = system(cmd);
    char svg[300];
    snprintf(svg, sizeof svg, "%s.svg", path);
    FILE *s = fopen(svg, "r");
    char head[512] = {0};
    size_t got = s ? fread(head, 1, sizeof head - 1, s) : 0;
    if (s) fclose(s);
    remove(svg);
    remove(path);
    assert_int_equal(rc, 0);
    assert_true(got > 0);
    assert_non_null(strstr(head, "<svg") ? head : strstr(head, "<?xml"));
    free(d);
    nnfx_graph_free(g);
}

static void test_null_and_empty_graphs(void **state) {
    (void)state;
    char *t = nnfx_graph_to_text(NULL);
    assert_string_equal(t, "graph():\n");
    free(t);
    nnfx_graph *g = nnfx_graph_new();
    t = nnfx_graph_to_text(g);
    nnfx_graph *g2 = nnfx_graph_parse(t, NULL);
    assert_non_null(g2);
    assert_int_equal(nnfx_graph_num_nodes(g2), 0);
    free(t);
    t = nnfx_graph_to_dot(g);
    assert_contains(t, "digraph");
    free(t);
    nnfx_graph_free(g);
    nnfx_graph_free(g2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print_small_is_fx_form),
        cmocka_unit_test(test_print_rich),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_floats_and_strings),
        cmocka_unit_test(test_parsed_leaf_has_no_implementation),
        cmocka_unit_test(test_parse_plain_fx_form),
        cmocka_unit_test(test_parse_errors_have_positions),
        cmocka_unit_test(test_fuzz_truncations_and_flips),
        cmocka_unit_test(test_adversarial_inputs),
        cmocka_unit_test(test_tabular),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_null_and_empty_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
