/* test_split_plan.c — a node whose output size is known only at run time
 * splits the compiled plan (src/exec/split_plan.c): the static prefix runs
 * compiled, the data-dependent node with its kernel, the rest compiled for
 * the shapes it produced (cached per shape).
 *
 * The model (tests/data/split_plan/make_models.py: a conv stem, a token
 * selection by score with NonZero, an MLP on the selected tokens, a second
 * NonZero selection) is checked against PyTorch's outputs for two inputs
 * that select different numbers of tokens, and against the interpreter
 * (within 1e-5); the plan listing says what runs where. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static nnfx_tensor *load(const char *rel) {
    char path[1024];
    nnfx_error err = {0};
    nnfx_tensor *t = nnfx_npy_load(tu_data_path(path, sizeof path, rel), &err);
    if (!t) fail_msg("%s: %s", rel, err.msg);
    return t;
}

/* A GraphModule over a graph in nnfx's text form. */
static nnfx_gm *gm_parse(const char *text) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    if (!g) fail_msg("parse: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    return gm;
}

/* max |a - b| (shapes and dtypes must agree). */
static double max_diff(const nnfx_tensor *a, const nnfx_tensor *b) {
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->rank, b->rank);
    for (int d = 0; d < a->rank; d++)
        assert_int_equal(a->shape[d], b->shape[d]);
    double m = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++) {
        double d = fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i));
        if (!(d <= m)) m = d;
    }
    return m;
}

static double max_abs(const nnfx_tensor *t) {
    double m = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        if (fabs(nnfx_tensor_get(t, i)) > m) m = fabs(nnfx_tensor_get(t, i));
    return m;
}

static void test_masked_tokens(void **state) {
    (void)state;
    char path[1024];
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, "split_plan/masked_tokens.onnx"), &err);
    if (!g) fail_msg("load: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    bool interpreted = true;
    assert_int_equal(nnfx_gm_compile(gm, &interpreted, &err), NNFX_OK);
    assert_false(interpreted);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    /* samples 0, 1, 0: the second run builds a rest for other shapes, the
     * third finds the first one's again */
    const int order[3] = {0, 1, 0};
    for (int r = 0; r < 3; r++) {
        char rel[256];
        snprintf(rel, sizeof rel, "split_plan/masked_tokens.s%d.in0.npy", order[r]);
        nnfx_tensor *x = load(rel), *got[2] = {0}, *ref[2] = {0};
        int ngot = 0, nref = 0;
        if (nnfx_gm_run(gm, 1, &x, 2, got, &ngot, &err)) fail_msg("run: %s", err.msg);
        if (nnfx_interp_run(ip, 1, &x, 2, ref, &nref, &err)) fail_msg("interpreter: %s", err.msg);
        assert_int_equal(ngot, 2);
        assert_int_equal(nref, 2);
        for (int k = 0; k < 2; k++) {
            snprintf(rel, sizeof rel, "split_plan/masked_tokens.s%d.out%d.npy", order[r], k);
            nnfx_tensor *want = load(rel);
            double e = max_diff(got[k], want), scale = max_abs(want), ei = max_diff(got[k], ref[k]);
            print_message("sample %d output %d: max |nnfx - torch| = %.3g (scale %.3g), vs the interpreter %.3g\n",
                          order[r], k, e, scale, ei);
            assert_true(e <= 1e-4 * (scale > 0 ? scale : 1));
            assert_true(ei <= 1e-5 * (scale > 1 ? scale : 1)); /* the interpreter's, relative to the scale */
            nnfx_tensor_release(want);
            nnfx_tensor_release(got[k]);
            nnfx_tensor_release(ref[k]);
        }
        nnfx_tensor_release(x);
    }
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    print_message("%s", plan);
    /* the convs in the compiled prefix, both NonZero run by their kernels,
     * two shapes of rest built */
    assert_non_null(strstr(plan, "# split plan"));
    assert_non_null(strstr(plan, "conv3x3/s2"));
    assert_non_null(strstr(plan, "_NonZero_output_0 (non_zero)"));
    assert_non_null(strstr(plan, "_NonZero_1_output_0 (non_zero)"));
    assert_non_null(strstr(plan, "(2 built, 2 kept)"));
    assert_non_null(strstr(plan, "= gemm"));
    assert_null(strstr(plan, "interpreted"));
    free(plan);
    /* two threads: every plan of the split (prefix, rests) on a pool */
    nnfx_gm_set_threads(gm, 2);
    for (int k = 0; k < 2; k++) {
        nnfx_tensor *x = load("split_plan/masked_tokens.s1.in0.npy"), *got[2] = {0};
        int ngot = 0;
        if (nnfx_gm_run(gm, 1, &x, 2, got, &ngot, &err)) fail_msg("run (2 threads): %s", err.msg);
        char rel[256];
        snprintf(rel, sizeof rel, "split_plan/masked_tokens.s1.out%d.npy", k);
        nnfx_tensor *want = load(rel);
        assert_true(max_diff(got[k], want) <= 1e-4 * max_abs(want));
        nnfx_tensor_release(want), nnfx_tensor_release(got[0]), nnfx_tensor_release(got[1]), nnfx_tensor_release(x);
    }
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

/* --profile of a split graph: off until turned on, then the time of its
 * parts (prefix, data-dependent nodes, rest) over the runs since, and the
 * steps of the compiled prefix and of the rest, each with its share. */
static void test_split_profile(void **state) {
    (void)state;
    char path[1024];
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, "split_plan/masked_tokens.onnx"), &err);
    if (!g) fail_msg("load: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *x = load("split_plan/masked_tokens.s0.in0.npy"), *got[2] = {0};
    int ngot = 0;
    if (nnfx_gm_run(gm, 1, &x, 2, got, &ngot, &err)) fail_msg("run: %s", err.msg);
    nnfx_tensor_release(got[0]), nnfx_tensor_release(got[1]);
    assert_null(nnfx_gm_profile(gm, &err)); /* off */
    assert_int_equal(nnfx_gm_set_profile(gm, true, &err), NNFX_OK);
    for (int r = 0; r < 3; r++) {
        if (nnfx_gm_run(gm, 1, &x, 2, got, &ngot, &err)) fail_msg("run: %s", err.msg);
        nnfx_tensor_release(got[0]), nnfx_tensor_release(got[1]);
    }
    char *t = nnfx_gm_profile(gm, &err);
    if (!t) fail_msg("no profile: %s", err.msg);
    print_message("%s", t);
    if (!strstr(t, "# profile: split plan, 3 runs,") || !strstr(t, "the data-dependent nodes") ||
        !strstr(t, "# 1. the prefix:\n# profile: 3 runs,") || !strstr(t, "conv3x3/s2") ||
        !strstr(t, "# 3. the rest:\n# profile: 3 runs,") || !strstr(t, "= gemm"))
        fail_msg("unexpected profile:\n%s", t);
    free(t);
    assert_int_equal(nnfx_gm_set_profile(gm, false, &err), NNFX_OK);
    assert_null(nnfx_gm_profile(gm, &err));
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

/* Multi-output nodes in the compiled plan: attention whose q, k, v come from
 * one Split of the last axis, and an uneven Split after it; one step each,
 * PyTorch's output, the interpreter's within 1e-5. */
static void test_qkv_split(void **state) {
    (void)state;
    char path[1024];
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, "split_plan/qkv_attention.onnx"), &err);
    if (!g) fail_msg("load: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    nnfx_tensor *x = load("split_plan/qkv_attention.s0.in0.npy"), *want = load("split_plan/qkv_attention.s0.out0.npy");
    nnfx_tensor *got = NULL, *ref = NULL;
    int n = 0;
    if (nnfx_gm_run(gm, 1, &x, 1, &got, &n, &err)) fail_msg("run: %s", err.msg);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    if (nnfx_interp_run(ip, 1, &x, 1, &ref, &n, &err)) fail_msg("interpreter: %s", err.msg);
    double e = max_diff(got, want), scale = max_abs(want), ei = max_diff(got, ref);
    print_message("qkv_attention: max |nnfx - torch| = %.3g (scale %.3g), vs the interpreter %.3g\n", e, scale, ei);
    assert_true(e <= 1e-4 * scale);
    assert_true(ei <= 1e-5);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    assert_non_null(strstr(plan, "# compiled plan"));
    assert_non_null(strstr(plan, "_Split = split @"));
    assert_non_null(strstr(plan, "_Split_1 = split @"));
    free(plan);
    nnfx_tensor_release(got), nnfx_tensor_release(ref), nnfx_tensor_release(x), nnfx_tensor_release(want);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

/* A graph the split plan declines too runs in the interpreter, and the
 * listing says why, both reasons. */
static void test_declined_says_why(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = gm_parse("graph():\n"
                           "    %x : [num_users=1] = placeholder[target=x]  # float32[n, 3]\n"
                           "    %r : [num_users=1] = call_function[target=relu](args = (%x,), kwargs = {})\n"
                           "    return (r,)\n");
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    print_message("%s", plan);
    assert_non_null(strstr(plan, "# interpreted: compiled executor: node x: shape not static"));
    assert_non_null(strstr(plan, "split plan: node x: a graph input whose shape is not static"));
    free(plan);
    nnfx_gm_free(gm);
}

/* A data-dependent node whose rest fails shape inference for the shapes it
 * produced: the run returns the error, naming the node. */
static void test_rest_error_names_node(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = gm_parse("graph():\n"
                           "    %x : [num_users=1] = placeholder[target=x]  # float32[4]\n"
                           "    %y : [num_users=1] = placeholder[target=y]  # float32[2, 2]\n"
                           "    %nz : [num_users=1] = call_function[target=non_zero](args = (%x,), kwargs = {})\n"
                           "    %c : [num_users=1] = call_function[target=cast](args = (%nz,), kwargs = {to: 1})\n"
                           "    %a : [num_users=1] = call_function[target=add](args = (%c, %y), kwargs = {})\n"
                           "    return (a,)\n");
    nnfx_tensor *in[2] = {nnfx_tensor_from_floats(1, (int64_t[]){4}, (float[]){1, 0, 2, 0}, &err),
                          nnfx_tensor_from_floats(2, (int64_t[]){2, 2}, (float[]){1, 2, 3, 4}, &err)};
    nnfx_tensor *out[1] = {0};
    int nout = 0;
    /* two nonzeros: [1, 2] + [2, 2] broadcasts to [2, 2]: [[1, 4], [3, 6]] */
    assert_int_equal(nnfx_gm_run(gm, 2, in, 1, out, &nout, &err), NNFX_OK);
    const double want[4] = {1, 4, 3, 6};
    for (int i = 0; i < 4; i++)
        assert_true(nnfx_tensor_get(out[0], i) == want[i]);
    nnfx_tensor_release(out[0]);
    /* three nonzeros: [1, 3] + [2, 2] does not broadcast */
    nnfx_tensor_release(in[0]);
    in[0] = nnfx_tensor_from_floats(1, (int64_t[]){4}, (float[]){1, 1, 2, 0}, &err);
    assert_int_not_equal(nnfx_gm_run(gm, 2, in, 1, out, &nout, &err), NNFX_OK);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, "node a"));
    /* and the module still runs the first shapes */
    nnfx_tensor_release(in[0]);
    in[0] = nnfx_tensor_from_floats(1, (int64_t[]){4}, (float[]){0, 3, 0, 5}, &err);
    assert_int_equal(nnfx_gm_run(gm, 2, in, 1, out, &nout, &err), NNFX_OK);
    nnfx_tensor_release(out[0]);
    nnfx_tensor_release(in[0]), nnfx_tensor_release(in[1]);
    nnfx_gm_free(gm);
}

/* Shapes that change on every run: after 2 x 4 rests built with no cache
 * hit, new shapes run the rest in the interpreter (no compile per run), and
 * every result stays exact: the sum of the nonzero positions. */
static void test_changing_shapes(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_gm *gm = gm_parse("graph():\n"
                           "    %x : [num_users=1] = placeholder[target=x]  # float32[12]\n"
                           "    %nz : [num_users=1] = call_function[target=non_zero](args = (%x,), kwargs = {})\n"
                           "    %c : [num_users=1] = call_function[target=cast](args = (%nz,), kwargs = {to: 1})\n"
                           "    %s : [num_users=1] = call_function[target=reduce_sum](args = (%c,), "
                           "kwargs = {keepdims: 0})\n"
                           "    return (s,)\n");
    for (int k = 0; k <= 12; k++) {
        float v[12] = {0};
        double want = 0;
        for (int i = 0; i < k; i++)
            v[(i * 5) % 12] = 1.0f, want += (i * 5) % 12; /* k distinct positions */
        nnfx_tensor *x = nnfx_tensor_from_floats(1, (int64_t[]){12}, v, &err), *out = NULL;
        int n = 0;
        if (nnfx_gm_run(gm, 1, &x, 1, &out, &n, &err)) fail_msg("run %d: %s", k, err.msg);
        assert_true(nnfx_tensor_get(out, 0) == want);
        nnfx_tensor_release(out), nnfx_tensor_release(x);
    }
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    print_message("%s", plan);
    assert_non_null(strstr(plan, "(13 built, 4 kept; the shapes change on most runs"));
    assert_non_null(strstr(plan, "# interpreted: the data-dependent shapes change on most runs"));
    free(plan);
    nnfx_gm_free(gm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_tokens),     cmocka_unit_test(test_qkv_split),
        cmocka_unit_test(test_declined_says_why), cmocka_unit_test(test_rest_error_names_node),
        cmocka_unit_test(test_changing_shapes),   cmocka_unit_test(test_split_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
