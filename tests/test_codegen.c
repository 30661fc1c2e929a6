/* test_codegen.c — the C API of the C generator (nnfx_codegen): files and
 * figures for the keyword model, determinism, --forbid, bad arguments,
 * inputs fixed at generation, the part before chosen outputs.
 * That the generated C compiles and matches PyTorch is checked by
 * tests/codegen/check_codegen.py (CTest "codegen"). The emit column of
 * the op table agrees with the generator's families. */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"
#include "testutil.h"

static nnfx_graph *load_kws(void) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(NNFX_TEST_DATA "/kws/kws.onnx", &err);
    if (!g) fail_msg("%s", err.msg);
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        if (nnfx_node_opcode(n) == NNFX_PLACEHOLDER) {
            int64_t dims[4] = {1, 1, 31, 20};
            nnfx_meta *m = nnfx_node_meta(n, 0);
            nnfx_meta_set_shape(m, m->dtype, 4, dims);
        }
    return g;
}

/* nnfx_codegen with the options name, forbid and optimize (the others 0). */
static nnfx_status gen(nnfx_graph *g, const char *name, const char *forbid, nnfx_codegen_optimize opt,
                       nnfx_codegen_files *out, nnfx_error *err) {
    nnfx_codegen_options o = {0};
    o.name = name, o.forbid = forbid, o.optimize = opt;
    return nnfx_codegen(g, &o, out, err);
}

static void test_files_and_determinism(void **state) {
    (void)state;
    nnfx_graph *g = load_kws();
    nnfx_codegen_files a = {0}, b = {0};
    nnfx_error err = {0};
    assert_int_equal(gen(g, "kws", NULL, NNFX_CODEGEN_SPEED, &a, &err), NNFX_OK);
    assert_int_equal(gen(g, "kws", "", NNFX_CODEGEN_SPEED, &b, &err), NNFX_OK);
    assert_non_null(strstr(a.header, "int kws_run(const float *const inputs[], float *const outputs[]);"));
    assert_non_null(strstr(a.header, "#define kws_INPUT0_SHAPE {1, 1, 31, 20}"));
    assert_non_null(strstr(a.header, "#define kws_OUTPUT0_SIZE 6"));
    assert_non_null(strstr(a.source, "nnfx_rt_conv2d"));
    assert_null(strstr(a.source, "nnfx_rt_softmax")); /* only the kernels used */
    assert_true(a.arena_bytes > 0);
    assert_true(a.weight_bytes >= 3622 * 4); /* every parameter, plus the BN running statistics */
    assert_true(a.libm);
    assert_string_equal(a.header, b.header);
    assert_string_equal(a.source, b.source);
    assert_string_equal(a.weights, b.weights);
    nnfx_codegen_files_free(&a);
    nnfx_codegen_files_free(&b);
    /* no options: the defaults (name "model", speed), the same code */
    assert_int_equal(nnfx_codegen(g, NULL, &a, &err), NNFX_OK);
    assert_non_null(strstr(a.header, "int model_run(const float *const inputs[], float *const outputs[]);"));
    assert_int_equal(gen(g, "model", NULL, NNFX_CODEGEN_SPEED, &b, &err), NNFX_OK);
    assert_string_equal(a.source, b.source);
    nnfx_codegen_files_free(&a);
    nnfx_codegen_files_free(&b);
    nnfx_graph_free(g);
}

static void test_forbid_and_errors(void **state) {
    (void)state;
    nnfx_graph *g = load_kws();
    nnfx_codegen_files f = {0};
    nnfx_error err = {0};
    assert_int_equal(gen(g, "kws", "Exp,sigmoid", NNFX_CODEGEN_SPEED, &f, &err), NNFX_ERR_RUNTIME);
    assert_null(f.header);
    assert_non_null(strstr(err.msg, "hard_sigmoid"));
    err = (nnfx_error){0};
    assert_int_equal(gen(g, "1bad", NULL, NNFX_CODEGEN_SPEED, &f, &err), NNFX_ERR_INVALID_ARG);
    err = (nnfx_error){0};
    assert_int_equal(gen(NULL, "kws", NULL, NNFX_CODEGEN_SPEED, &f, &err), NNFX_ERR_INVALID_ARG);
    nnfx_codegen_files_free(NULL);
    nnfx_graph_free(g);
}

/* --optimize: speed packs the conv weights (blocks of 16 output channels,
 * kws's are multiples of 16: the same bytes) for the packed kernels (kws's
 * convs keep their plane: nnfx_rt_conv2d_same) and fuses ReLU; size keeps
 * the model's weights and the direct-loop kernel. */
static void test_optimize_modes(void **state) {
    (void)state;
    nnfx_graph *g = load_kws();
    nnfx_codegen_files sp = {0}, sz = {0}, dflt = {0}, bad = {0};
    nnfx_error err = {0};
    assert_int_equal(gen(g, "kws", NULL, NNFX_CODEGEN_SPEED, &sp, &err), NNFX_OK);
    assert_int_equal(gen(g, "kws", NULL, NNFX_CODEGEN_SIZE, &sz, &err), NNFX_OK);
    const nnfx_codegen_options named = {.name = "kws"};
    assert_int_equal(nnfx_codegen(g, &named, &dflt, &err), NNFX_OK);
    assert_string_equal(sp.source, dflt.source); /* speed is the default */
    assert_non_null(strstr(sp.source, "nnfx_rt_conv2d_same("));
    assert_non_null(strstr(sp.weights, "packed [group][out/16][taps][in][16]"));
    assert_null(strstr(sz.source, "nnfx_rt_conv2d_packed"));
    assert_null(strstr(sz.source, "nnfx_rt_conv2d_same"));
    assert_null(strstr(sz.source, "nnfx_rt_conv2d_dw"));
    assert_non_null(strstr(sz.source, "nnfx_rt_conv2d("));
    assert_null(strstr(sz.weights, "packed"));
    assert_int_equal(sp.weight_bytes, sz.weight_bytes);
    assert_int_equal(sp.arena_bytes, sz.arena_bytes); /* no scratch memory either way */
    assert_int_equal(gen(g, "kws", NULL, (nnfx_codegen_optimize)7, &bad, &err), NNFX_ERR_INVALID_ARG);
    assert_null(bad.source);
    nnfx_codegen_files_free(&sp);
    nnfx_codegen_files_free(&sz);
    nnfx_codegen_files_free(&dflt);
    nnfx_graph_free(g);
}

/* A graph returning Reshape(relu ? Relu(x) : x, shape) of inputs x
 * (float32 [2, 6]) and shape (int64 [2]); *shape_out and *relu_out (when
 * not NULL) get those nodes. */
static nnfx_graph *reshape_graph(bool relu, nnfx_node **shape_out, nnfx_node **relu_out) {
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    nnfx_meta mx = {0}, ms = {0};
    int64_t xd[2] = {2, 6}, sd[1] = {2};
    nnfx_meta_set_shape(&mx, NNFX_F32, 2, xd);
    nnfx_meta_set_shape(&ms, NNFX_I64, 1, sd);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &mx, &err);
    nnfx_node *shape = nnfx_graph_placeholder(g, "shape", &ms, &err);
    nnfx_arg ax = nnfx_arg_node(x);
    if (relu) x = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &ax, 0, NULL, &err);
    nnfx_arg args[2] = {nnfx_arg_node(x), nnfx_arg_node(shape)};
    nnfx_node *r = nnfx_graph_call_op(g, NNFX_OP_RESHAPE, 2, args, 0, NULL, &err);
    assert_non_null(r);
    assert_non_null(nnfx_graph_output(g, 1, &r, &err));
    if (shape_out) *shape_out = shape;
    if (relu_out) *relu_out = x;
    return g;
}

/* Reshape(x, shape) with shape a model input: its output size is known
 * only at run time, and the refusal says how to fix it (--value); with the
 * input fixed the C is specialised, keeps the input in its API and checks
 * it; fixed values that do not fit the input are refused; g is not
 * changed. */
static void test_fixed_inputs(void **state) {
    (void)state;
    nnfx_node *shape;
    nnfx_graph *g = reshape_graph(false, &shape, NULL);
    nnfx_error err = {0};
    nnfx_codegen_files f = {0};
    assert_int_equal(gen(g, "m", NULL, NNFX_CODEGEN_SPEED, &f, &err), NNFX_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "--value shape="));
    assert_null(f.source);

    int64_t want[2] = {3, 4}, n2 = 2, n3 = 3;
    nnfx_tensor *v = nnfx_tensor_new(NNFX_I64, 1, &n2, &err);
    memcpy(v->data, want, sizeof want);
    const char *names[2] = {"shape", "shape"};
    const nnfx_tensor *values[2] = {v, v};
    nnfx_codegen_options o = {0};
    o.name = "m", o.nfixed = 1, o.fixed_inputs = names, o.fixed_values = values;
    err = (nnfx_error){0};
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_OK);
    assert_non_null(strstr(f.header, "#define m_INPUT1_FIXED 1"));
    assert_non_null(strstr(f.header, "#define m_NUM_INPUTS 2"));
    assert_non_null(strstr(f.header, "#define m_OUTPUT0_SHAPE {3, 4}"));
    assert_non_null(strstr(f.source, "static const int64_t k[2] = {3LL, 4LL};"));
    assert_non_null(strstr(f.source, "if (x[i] != k[i]) return 1;"));
    nnfx_codegen_files_free(&f);
    assert_int_equal(nnfx_node_num_users(shape), 1); /* the caller's graph still reads its input */

    o.nfixed = 2; /* the same input twice */
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "fixed twice"));
    o.nfixed = 1;
    names[0] = "nope";
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "no input named 'nope'"));
    names[0] = "shape";
    nnfx_tensor *three = nnfx_tensor_new(NNFX_I64, 1, &n3, &err), *flt = nnfx_tensor_new(NNFX_F32, 1, &n2, &err);
    values[0] = three;
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "3 int64 values given"));
    values[0] = flt;
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    values[0] = NULL;
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    assert_int_equal(nnfx_codegen(g, NULL, &f, &err), NNFX_ERR_UNSUPPORTED); /* NULL: the defaults */
    assert_null(f.source);
    nnfx_tensor_release(v);
    nnfx_tensor_release(three);
    nnfx_tensor_release(flt);
    nnfx_graph_free(g);
}

/* outputs: only the part computing the named values is generated, the
 * model inputs it does not read left out; an unknown name is refused. */
static void test_cut_outputs(void **state) {
    (void)state;
    nnfx_node *relu;
    nnfx_graph *g = reshape_graph(true, NULL, &relu);
    nnfx_error err = {0};
    const char *outs[1] = {nnfx_node_name(relu)};
    nnfx_codegen_options o = {0};
    o.name = "m", o.noutputs = 1, o.outputs = outs;
    nnfx_codegen_files f = {0};
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_OK); /* the reshape, cut away, needs no --value */
    assert_non_null(strstr(f.header, "#define m_NUM_INPUTS 1"));
    assert_non_null(strstr(f.header, "#define m_OUTPUT0_SHAPE {2, 6}"));
    assert_null(strstr(f.header, "shape"));
    nnfx_codegen_files_free(&f);
    assert_int_equal(nnfx_graph_num_inputs(g), 2); /* the caller's graph is unchanged */
    outs[0] = "nope";
    assert_int_equal(nnfx_codegen(g, &o, &f, &err), NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "no value named 'nope'"));
    assert_null(f.source);
    nnfx_graph_free(g);
}

/* The emit column of ops.def (cg_op_emitter) names a family's emitter for
 * exactly the ops that family computes, and the runtime has what it calls:
 * gen_map (Clip, whose bounds may be computed: gen_clip) and gen_binary call
 * nnfx_rt_NAME of the row's name, an @rt section; a view (NNFX_F_VIEW) names
 * gen_view, a reduction (reduce_kind) gen_reduce, a comparison gen_compare,
 * control flow gen_ctrl. */
static void test_emit_column(void **state) {
    (void)state;
    int maps = 0, binaries = 0;
    for (int i = 1; i < NNFX_OP_COUNT; i++) {
        const nnfx_op op = (nnfx_op)i;
        const cg_emit_fn e = cg_op_emitter(op);
        const char *name = nnfx_op_name(op);
        assert_non_null(e);
        if (e == gen_map || e == gen_clip || e == gen_binary) {
            if (!cg_has_section(name)) fail_msg("%s: the runtime has no section %s", name, name);
            maps += e != gen_binary, binaries += e == gen_binary;
        }
        if (((ir_op_info(op)->flags & NNFX_F_VIEW) != 0) != (e == gen_view)) fail_msg("%s: gen_view", name);
        if ((reduce_kind(op) >= 0) != (e == gen_reduce)) fail_msg("%s: gen_reduce", name);
        if ((cg_compare_code(op) >= 0) != (e == gen_compare)) fail_msg("%s: gen_compare", name);
        if (ir_op_is_ctrl(op) != (e == gen_ctrl)) fail_msg("%s: gen_ctrl", name);
    }
    assert_true(maps >= 37 && binaries == 5);
    assert_string_equal(cg_unary_fn(NNFX_OP_HARD_SIGMOID), "hard_sigmoid");
    assert_string_equal(cg_binary_fn(NNFX_OP_ADD), "add");
    assert_null(cg_unary_fn(NNFX_OP_CONV));
    assert_null(cg_binary_fn(NNFX_OP_PRELU));
    assert_false(cg_has_section("no_such_section"));
    assert_true(cg_op_emitter(NNFX_OP_CLIP) == gen_clip);
    assert_true(cg_op_emitter(NNFX_OP_CONV) == gen_conv);
    assert_true(cg_op_emitter(NNFX_OP_MAX_POOL) == gen_max_pool);
    assert_true(cg_op_emitter(NNFX_OP_NONE) == gen_none);
    assert_true(cg_op_emitter(NNFX_OP_COUNT) == gen_none);
}

/* Every runtime section used at once (over 200, more than the fixed list of
 * 128 the generator once had, which dropped the rest silently): each is
 * recorded exactly once. */
static void test_all_sections(void **state) {
    (void)state;
    cg c = {0};
    int distinct = 0;
    for (int f = 0; cg_runtime_files[f].name; f++)
        for (const char *m = strstr(cg_runtime_files[f].text, "/* @rt "); m; m = strstr(m + 1, "/* @rt ")) {
            char name[CG_SECTION_NAME];
            int k = 0;
            for (const char *p = m + 7; *p && *p != ' ' && *p != '*' && k < CG_SECTION_NAME - 1; p++)
                name[k++] = *p;
            name[k] = 0;
            int before = c.nsections;
            cg_use_section(&c, name);
            bool found = false;
            for (int i = 0; i < c.nsections; i++)
                found |= strcmp(c.sections[i], name) == 0;
            if (!found) fail_msg("section %s was not recorded (%d recorded before it)", name, before);
            distinct++;
        }
    assert_false(c.sections_oom);
    assert_true(distinct > 128);
    for (int i = 0; i < c.nsections; i++)
        for (int j = i + 1; j < c.nsections; j++)
            if (strcmp(c.sections[i], c.sections[j]) == 0) fail_msg("section %s recorded twice", c.sections[i]);
    assert_int_equal(c.nsections, distinct);
    cg_sections_free(&c);
    assert_null(c.sections);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_and_determinism), cmocka_unit_test(test_forbid_and_errors),
        cmocka_unit_test(test_optimize_modes),        cmocka_unit_test(test_fixed_inputs),
        cmocka_unit_test(test_cut_outputs),           cmocka_unit_test(test_emit_column),
        cmocka_unit_test(test_all_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
