/* test_passes.c — every pass checked numerically: the graph runs before
 * and after on random inputs through the interpreter and the results are
 * compared. Randomized BN-fusion cases guard against the bugs fuzzing found
 * in onnx-optimizer (extreme variances, shared weights, a conv output with
 * two users, depthwise groups, no bias). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnfx.h"

/* --- helpers ------------------------------------------------------------- */

static nnfx_tensor *rnd(int rank, const int64_t *shape, uint64_t seed, float lo, float hi) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, NULL);
    assert_non_null(t);
    nnfx_tensor_fill_uniform(t, seed, lo, hi);
    return t;
}

static nnfx_node *param(nnfx_graph *g, const char *name, nnfx_tensor *t) {
    nnfx_error err = {0};
    if (nnfx_graph_set_param(g, name, t, &err)) fail_msg("%s", err.msg);
    nnfx_tensor_release(t);
    nnfx_node *n = nnfx_graph_get_attr(g, name, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

static nnfx_node *input(nnfx_graph *g, const char *name, int rank, const int64_t *dims) {
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, rank, dims);
    nnfx_node *n = nnfx_graph_placeholder(g, name, &m, NULL);
    assert_non_null(n);
    return n;
}

static nnfx_node *call(nnfx_graph *g, nnfx_op op, int nargs, const nnfx_arg *args, int nattrs, const nnfx_attr *attrs) {
    nnfx_error err = {0};
    nnfx_node *n = nnfx_graph_call_op(g, op, nargs, args, nattrs, attrs, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

static nnfx_node *call1(nnfx_graph *g, nnfx_op op, nnfx_node *a) {
    nnfx_arg x = nnfx_arg_node(a);
    return call(g, op, 1, &x, 0, NULL);
}

static int count_op(const nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        k += nnfx_node_is_op(n, op);
    return k;
}

static void lint_ok(const nnfx_graph *g) {
    nnfx_error err = {0};
    if (nnfx_graph_lint(g, &err)) fail_msg("lint: %s", err.msg);
}

/* Runs a copy of g; fills outs (caller releases); returns the count. */
static int run_copy(const nnfx_graph *g, int nin, nnfx_tensor **in, nnfx_tensor **outs) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    if (!c) fail_msg("copy: %s", err.msg);
    nnfx_gm *gm = nnfx_gm_new(c, &err);
    assert_non_null(gm);
    int nout = 0;
    if (nnfx_gm_run(gm, nin, in, 8, outs, &nout, &err)) fail_msg("run: %s", err.msg);
    nnfx_gm_free(gm);
    return nout;
}

/* Random inputs for g's placeholders (from their static meta). */
static int random_inputs(const nnfx_graph *g, uint64_t seed, nnfx_tensor **in) {
    int n = nnfx_graph_num_inputs(g);
    for (int i = 0; i < n; i++) {
        const nnfx_meta *m = nnfx_node_meta_c(nnfx_graph_input(g, i), 0);
        int64_t dims[NNFX_MAX_RANK];
        for (int d = 0; d < m->rank; d++)
            dims[d] = m->dims[d].value;
        in[i] = rnd(m->rank, dims, seed + (uint64_t)i * 7919, -2, 2);
    }
    return n;
}

/* Runs `before` and `after` on the same random inputs and compares every
 * output: |a - b| <= tol * (1 + max |a|). */
static void same_results(const nnfx_graph *before, const nnfx_graph *after, uint64_t seed, double tol) {
    nnfx_tensor *in[8];
    int nin = random_inputs(before, seed, in);
    nnfx_tensor *a[8], *b[8];
    int na = run_copy(before, nin, in, a), nb = run_copy(after, nin, in, b);
    assert_int_equal(na, nb);
    for (int o = 0; o < na; o++) {
        assert_int_equal(nnfx_tensor_numel(a[o]), nnfx_tensor_numel(b[o]));
        double amax = 0, worst = 0;
        for (int64_t i = 0; i < nnfx_tensor_numel(a[o]); i++)
            amax = fmax(amax, fabs(nnfx_tensor_get(a[o], i)));
        for (int64_t i = 0; i < nnfx_tensor_numel(a[o]); i++)
            worst = fmax(worst, fabs(nnfx_tensor_get(a[o], i) - nnfx_tensor_get(b[o], i)));
        if (worst > tol * (1 + amax)) fail_msg("output %d differs by %g (max |value| %g)", o, worst, amax);
        nnfx_tensor_release(a[o]);
        nnfx_tensor_release(b[o]);
    }
    for (int i = 0; i < nin; i++)
        nnfx_tensor_release(in[i]);
}

/* BN parameters for c channels; var_mode 0: uniform, 1: 1e-8, 2: 1e6, 3: mixed extremes. */
static nnfx_node *bn_after(nnfx_graph *g, nnfx_node *x, int64_t c, uint64_t seed, int var_mode, double eps,
                           const char *prefix) {
    char nm[4][64];
    const char *suf[4] = {"weight", "bias", "running_mean", "running_var"};
    nnfx_node *p[4];
    for (int i = 0; i < 4; i++) {
        snprintf(nm[i], sizeof nm[i], "%s.%s", prefix, suf[i]);
        nnfx_tensor *t = rnd(1, &c, seed + (uint64_t)i, i == 3 ? 0.2f : -1.5f, 1.5f);
        if (i == 3) {
            float *v = t->data;
            for (int64_t k = 0; k < c; k++) {
                if (var_mode == 1)
                    v[k] = 1e-8f;
                else if (var_mode == 2)
                    v[k] = 1e6f;
                else if (var_mode == 3)
                    v[k] = k % 3 == 0 ? 1e-8f : k % 3 == 1 ? 1e6f : v[k];
            }
        }
        p[i] = param(g, nm[i], t);
    }
    nnfx_arg args[5] = {nnfx_arg_node(x), nnfx_arg_node(p[0]), nnfx_arg_node(p[1]), nnfx_arg_node(p[2]),
                        nnfx_arg_node(p[3])};
    nnfx_attr e = nnfx_attr_float("epsilon", eps);
    return call(g, NNFX_OP_BATCH_NORM, 5, args, 1, &e);
}

static nnfx_node *conv(nnfx_graph *g, nnfx_node *x, nnfx_node *w, nnfx_node *b, int64_t k, int64_t groups) {
    int64_t pads[4] = {k / 2, k / 2, k / 2, k / 2};
    nnfx_attr at[2] = {nnfx_attr_ints("pads", 4, pads), nnfx_attr_int("group", groups)};
    nnfx_arg args[3] = {nnfx_arg_node(x), nnfx_arg_node(w), b ? nnfx_arg_node(b) : nnfx_arg_none()};
    return call(g, NNFX_OP_CONV, b ? 3 : 2, args, 2, at);
}

static void run_pass(nnfx_graph *g, const char *name, nnfx_pass_report *r) {
    nnfx_error err = {0};
    if (nnfx_pass_run_by_name(g, name, r, &err)) fail_msg("%s: %s", name, err.msg);
    lint_ok(g);
}

/* --- fuse-conv-bn --------------------------------------------------------------- */

/* x -> conv -> bn -> relu -> output with the given configuration; checks
 * the fusion numerically. */
static void conv_bn_case(uint64_t seed, int64_t cin, int64_t cout, int64_t groups, int64_t k, bool bias, int var_mode,
                         double eps) {
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {2, cin, 7, 6}, ws[4] = {cout, cin / groups, k, k};
    nnfx_node *x = input(g, "x", 4, xs);
    nnfx_node *w = param(g, "conv.weight", rnd(4, ws, seed, -1, 1));
    nnfx_node *b = bias ? param(g, "conv.bias", rnd(1, &cout, seed + 1, -1, 1)) : NULL;
    nnfx_node *c = conv(g, x, w, b, k, groups);
    nnfx_node_set_module_path(c, "conv", NULL);
    nnfx_node *bn = bn_after(g, c, cout, seed + 2, var_mode, eps, "bn");
    nnfx_node *r = call1(g, NNFX_OP_RELU, bn);
    assert_non_null(nnfx_graph_output(g, 1, &r, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(rep.nskipped, 0);
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 0);
    assert_int_equal(nnfx_graph_num_params(g), 2); /* new weight and bias; old ones dropped */
    assert_null(nnfx_graph_param(g, "conv.weight"));
    assert_non_null(nnfx_graph_param(g, "conv.weight_fused"));
    assert_non_null(nnfx_graph_param(g, "conv.bias_fused"));
    same_results(before, g, seed + 3, 2e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

static void test_fuse_conv_bn_basic(void **state) {
    (void)state;
    conv_bn_case(1, 3, 4, 1, 3, true, 0, 1e-5);
    conv_bn_case(2, 3, 4, 1, 3, false, 0, 1e-5); /* conv without bias */
    conv_bn_case(3, 4, 4, 4, 3, true, 0, 1e-5);  /* depthwise */
    conv_bn_case(4, 4, 8, 2, 1, false, 0, 1e-3); /* grouped, 1x1, other epsilon */
}

static void test_fuse_conv_bn_extreme_variance(void **state) {
    (void)state;
    conv_bn_case(10, 3, 6, 1, 3, true, 1, 1e-5); /* var 1e-8 */
    conv_bn_case(11, 3, 6, 1, 3, true, 2, 1e-5); /* var 1e6 */
    conv_bn_case(12, 6, 6, 6, 3, false, 3, 0.0); /* mixed, eps 0, depthwise */
}

static void test_fuse_conv_bn_random(void **state) {
    (void)state;
    uint64_t s = 12345;
    for (int i = 0; i < 24; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t groups = 1 + (int64_t)((s >> 33) % 3);
        int64_t cin = groups * (1 + (int64_t)((s >> 40) % 3));
        int64_t cout = groups * (1 + (int64_t)((s >> 45) % 3));
        if ((s >> 50) % 4 == 0) cout = cin = groups; /* depthwise */
        int64_t k = (s >> 52) % 2 ? 3 : 1;
        bool bias = (s >> 55) % 2;
        int var_mode = (int)((s >> 57) % 4);
        double eps = (s >> 60) % 2 ? 1e-5 : 1e-3;
        conv_bn_case(100 + (uint64_t)i, cin, cout, groups, k, bias, var_mode, eps);
    }
}

/* Two convs share one weight; only the first is followed by BN. */
static void test_fuse_shared_weight(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {1, 3, 5, 5}, ws[4] = {4, 3, 3, 3};
    nnfx_node *x = input(g, "x", 4, xs);
    nnfx_node *w = param(g, "shared.weight", rnd(4, ws, 5, -1, 1));
    nnfx_node *c1 = conv(g, x, w, NULL, 3, 1);
    nnfx_node *bn = bn_after(g, c1, 4, 6, 3, 1e-5, "bn");
    nnfx_node *w2 = nnfx_graph_get_attr(g, "shared.weight", NULL); /* a second read of the same parameter */
    nnfx_node *c2 = conv(g, x, w, NULL, 3, 1);
    nnfx_node *c3 = conv(g, x, w2, NULL, 3, 1);
    nnfx_node *outs[3] = {bn, c2, c3};
    assert_non_null(nnfx_graph_output(g, 3, outs, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 0);
    assert_non_null(nnfx_graph_param(g, "shared.weight")); /* still used by the other convs */
    assert_ptr_equal(nnfx_node_arg_node(c2, 1), w);
    same_results(before, g, 7, 2e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* One get_attr node read as all four BN parameters, and the conv weight's
 * node read by a second conv: the pass erases the fused-away parameter
 * nodes as it goes, each once, and only those left without users. */
static void test_fuse_conv_bn_shared_param_nodes(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {1, 3, 5, 5}, ws[4] = {4, 3, 1, 1}, c = 4;
    nnfx_node *x = input(g, "x", 4, xs);
    nnfx_node *w = param(g, "conv.weight", rnd(4, ws, 11, -1, 1));
    nnfx_node *c1 = conv(g, x, w, NULL, 1, 1);
    nnfx_node *s = param(g, "bn.all", rnd(1, &c, 12, 0.5f, 1.5f)); /* positive: a valid variance too */
    nnfx_arg args[5] = {nnfx_arg_node(c1), nnfx_arg_node(s), nnfx_arg_node(s), nnfx_arg_node(s), nnfx_arg_node(s)};
    nnfx_node *bn = call(g, NNFX_OP_BATCH_NORM, 5, args, 0, NULL);
    nnfx_node *c2 = conv(g, x, w, NULL, 1, 1);
    nnfx_node *outs[2] = {bn, c2};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 0);
    assert_null(nnfx_graph_param(g, "bn.all"));
    assert_non_null(nnfx_graph_param(g, "conv.weight")); /* still read by the second conv */
    assert_ptr_equal(nnfx_node_arg_node(c2, 1), w);
    assert_int_equal(nnfx_graph_num_params(g), 3); /* conv.weight, conv.weight_fused, conv.bias_fused */
    assert_int_equal(nnfx_graph_num_nodes(g), 7);  /* x, w, the two fused parameters, two convs, output */
    same_results(before, g, 13, 2e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* The conv output has a second user: folding would change it, so skip. */
static void test_fuse_skips_two_users(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {3, 2, 1, 1};
    nnfx_node *x = input(g, "x", 4, xs);
    nnfx_node *c = conv(g, x, param(g, "w", rnd(4, ws, 1, -1, 1)), NULL, 1, 1);
    nnfx_node *bn = bn_after(g, c, 3, 2, 0, 1e-5, "bn");
    nnfx_node *r = call1(g, NNFX_OP_RELU, c);
    nnfx_node *outs[2] = {bn, r};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 0);
    assert_int_equal(rep.nskipped, 1);
    assert_string_equal(rep.skipped[0].node, nnfx_node_name(bn));
    assert_non_null(strstr(rep.skipped[0].reason, "2 users"));
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 1);
    same_results(before, g, 3, 1e-6);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* BN scale computed at run time (not a get_attr): skipped with a reason. */
static void test_fuse_skips_non_constant(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {1, 2, 4, 4}, ws[4] = {3, 2, 1, 1}, c3 = 3;
    nnfx_node *x = input(g, "x", 4, xs);
    nnfx_node *scale = input(g, "scale", 1, &c3);
    nnfx_node *c = conv(g, x, param(g, "w", rnd(4, ws, 1, -1, 1)), NULL, 1, 1);
    nnfx_node *p[3];
    const char *nm[3] = {"b", "m", "v"};
    for (int i = 0; i < 3; i++)
        p[i] = param(g, nm[i], rnd(1, &c3, 9 + (uint64_t)i, 0.5f, 1));
    nnfx_arg args[5] = {nnfx_arg_node(c), nnfx_arg_node(scale), nnfx_arg_node(p[0]), nnfx_arg_node(p[1]),
                        nnfx_arg_node(p[2])};
    nnfx_node *bn = call(g, NNFX_OP_BATCH_NORM, 5, args, 0, NULL);
    assert_non_null(nnfx_graph_output(g, 1, &bn, NULL));
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 0);
    assert_int_equal(rep.nskipped, 1);
    assert_non_null(strstr(rep.skipped[0].reason, "not a constant"));
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(g);
}

static void gemm_case(uint64_t seed, bool transb, bool with_c, int var_mode) {
    nnfx_graph *g = nnfx_graph_new();
    int64_t as[2] = {5, 6}, bs[2] = {transb ? 4 : 6, transb ? 6 : 4}, cs = 4;
    nnfx_node *a = input(g, "a", 2, as);
    nnfx_node *b = param(g, "fc.weight", rnd(2, bs, seed, -1, 1));
    nnfx_node *c = with_c ? param(g, "fc.bias", rnd(1, &cs, seed + 1, -1, 1)) : NULL;
    nnfx_attr at[3] = {nnfx_attr_float("alpha", 0.5), nnfx_attr_float("beta", 2.0), nnfx_attr_int("transB", transb)};
    nnfx_arg args[3] = {nnfx_arg_node(a), nnfx_arg_node(b), c ? nnfx_arg_node(c) : nnfx_arg_none()};
    nnfx_node *gm = call(g, NNFX_OP_GEMM, with_c ? 3 : 2, args, 3, at);
    nnfx_node *bn = bn_after(g, gm, 4, seed + 2, var_mode, 1e-5, "bn");
    assert_non_null(nnfx_graph_output(g, 1, &bn, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 0);
    same_results(before, g, seed + 3, 2e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

static void test_fuse_gemm_matmul_bn(void **state) {
    (void)state;
    gemm_case(20, false, true, 0);
    gemm_case(21, true, true, 3);
    gemm_case(22, true, false, 1);
    /* MatMul [5, 6] x [6, 4] -> BN becomes a Gemm */
    nnfx_graph *g = nnfx_graph_new();
    int64_t as[2] = {5, 6}, bs[2] = {6, 4};
    nnfx_node *a = input(g, "a", 2, as);
    nnfx_arg args[2] = {nnfx_arg_node(a), nnfx_arg_node(param(g, "w", rnd(2, bs, 1, -1, 1)))};
    nnfx_node *mm = call(g, NNFX_OP_MATMUL, 2, args, 0, NULL);
    nnfx_node *bn = bn_after(g, mm, 4, 2, 2, 1e-5, "bn");
    assert_non_null(nnfx_graph_output(g, 1, &bn, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(count_op(g, NNFX_OP_MATMUL), 0);
    assert_int_equal(count_op(g, NNFX_OP_GEMM), 1);
    same_results(before, g, 4, 2e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
    /* rank-3 MatMul: BN's channel axis (1) is not the feature axis: skipped */
    g = nnfx_graph_new();
    int64_t a3[3] = {2, 5, 6};
    a = input(g, "a", 3, a3);
    nnfx_arg args3[2] = {nnfx_arg_node(a), nnfx_arg_node(param(g, "w", rnd(2, bs, 1, -1, 1)))};
    mm = call(g, NNFX_OP_MATMUL, 2, args3, 0, NULL);
    bn = bn_after(g, mm, 5, 2, 0, 1e-5, "bn");
    assert_non_null(nnfx_graph_output(g, 1, &bn, NULL));
    before = nnfx_graph_copy(g, NULL, NULL);
    memset(&rep, 0, sizeof rep);
    run_pass(g, "fuse-conv-bn", &rep);
    assert_int_equal(rep.changed, 0);
    assert_int_equal(rep.nskipped, 1);
    assert_non_null(strstr(rep.skipped[0].reason, "channel axis"));
    same_results(before, g, 4, 1e-6);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* --- removal passes -------------------------------------------------------------- */

static void test_remove_noops(void **state) {
    (void)state;
    int64_t xs[2] = {3, 5};
    for (int which = 0; which < 2; which++) {
        nnfx_graph *g = nnfx_graph_new();
        nnfx_node *x = input(g, "x", 2, xs);
        nnfx_node *d = call1(g, NNFX_OP_DROPOUT, x);
        nnfx_node *i = call1(g, NNFX_OP_IDENTITY, d);
        nnfx_node *r = call1(g, NNFX_OP_RELU, i);
        nnfx_node *i2 = call1(g, NNFX_OP_IDENTITY, r); /* feeds the output directly */
        assert_non_null(nnfx_graph_output(g, 1, &i2, NULL));
        nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
        nnfx_pass_report rep = {0};
        run_pass(g, which ? "remove-identity" : "remove-dropout", &rep);
        assert_int_equal(count_op(g, NNFX_OP_DROPOUT), 0);
        assert_int_equal(count_op(g, NNFX_OP_IDENTITY), which ? 0 : 2);
        assert_int_equal(rep.changed, which ? 3 : 1);
        same_results(before, g, 1, 0);
        nnfx_pass_report_free(&rep);
        nnfx_graph_free(before);
        nnfx_graph_free(g);
    }
}

static void test_remove_bn(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[4] = {1, 3, 2, 2}, c = 3;
    nnfx_node *x = input(g, "x", 4, xs);
    float ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0}, var[3] = {1 - 1e-5f, 1 - 1e-5f, 1 - 1e-5f};
    nnfx_node *p[4] = {param(g, "s", nnfx_tensor_from_floats(1, &c, ones, NULL)),
                       param(g, "b", nnfx_tensor_from_floats(1, &c, zeros, NULL)),
                       param(g, "m", nnfx_tensor_from_floats(1, &c, zeros, NULL)),
                       param(g, "v", nnfx_tensor_from_floats(1, &c, var, NULL))};
    nnfx_arg args[5] = {nnfx_arg_node(x), nnfx_arg_node(p[0]), nnfx_arg_node(p[1]), nnfx_arg_node(p[2]),
                        nnfx_arg_node(p[3])};
    nnfx_node *bn = call(g, NNFX_OP_BATCH_NORM, 5, args, 0, NULL);
    nnfx_node *t = call1(g, NNFX_OP_TANH, bn);
    assert_non_null(nnfx_graph_output(g, 1, &t, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "remove-bn", &rep);
    assert_int_equal(rep.changed, 1);
    assert_int_equal(count_op(g, NNFX_OP_BATCH_NORM), 0);
    assert_int_equal(nnfx_graph_num_params(g), 0);
    same_results(before, g, 2, 1e-5);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

static void test_dce(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[1] = {8};
    nnfx_node *x = input(g, "x", 1, xs);
    nnfx_node *w = param(g, "unused", rnd(1, xs, 1, 0, 1));
    nnfx_arg args[2] = {nnfx_arg_node(x), nnfx_arg_node(w)};
    call(g, NNFX_OP_ADD, 2, args, 0, NULL); /* dead */
    call1(g, NNFX_OP_RELU, x);              /* dead */
    nnfx_node *t = call1(g, NNFX_OP_TANH, x);
    assert_non_null(nnfx_graph_output(g, 1, &t, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "dce", &rep);
    assert_int_equal(nnfx_graph_num_nodes(g), 3);
    assert_int_equal(nnfx_graph_num_params(g), 0);
    assert_int_equal(rep.changed, 4); /* add, relu, get_attr, parameter */
    assert_int_equal(rep.nodes_before, 6);
    assert_int_equal(rep.nodes_after, 3);
    same_results(before, g, 3, 0);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

static void test_cse(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[1] = {16};
    nnfx_node *x = input(g, "x", 1, xs);
    nnfx_node *w1 = param(g, "w", rnd(1, xs, 1, -1, 1));
    nnfx_node *w2 = nnfx_graph_get_attr(g, "w", NULL); /* same parameter read twice */
    nnfx_arg m1a[2] = {nnfx_arg_node(x), nnfx_arg_node(w1)}, m2a[2] = {nnfx_arg_node(x), nnfx_arg_node(w2)};
    nnfx_node *m1 = call(g, NNFX_OP_MUL, 2, m1a, 0, NULL);
    nnfx_node *m2 = call(g, NNFX_OP_MUL, 2, m2a, 0, NULL);
    nnfx_node *r1 = call1(g, NNFX_OP_RELU, m1);
    nnfx_node *r2 = call1(g, NNFX_OP_RELU, m2);
    nnfx_attr a1 = nnfx_attr_float("alpha", 0.1), a2 = nnfx_attr_float("alpha", 0.2);
    nnfx_arg xa = nnfx_arg_node(x);
    nnfx_node *l1 = call(g, NNFX_OP_LEAKY_RELU, 1, &xa, 1, &a1);
    nnfx_node *l2 = call(g, NNFX_OP_LEAKY_RELU, 1, &xa, 1, &a2); /* different alpha: kept */
    nnfx_arg sa[2] = {nnfx_arg_node(r1), nnfx_arg_node(r2)}, sb[2] = {nnfx_arg_node(l1), nnfx_arg_node(l2)};
    nnfx_node *s1 = call(g, NNFX_OP_ADD, 2, sa, 0, NULL);
    nnfx_node *s2 = call(g, NNFX_OP_SUB, 2, sb, 0, NULL);
    nnfx_node *outs[2] = {s1, s2};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "cse", &rep);
    assert_int_equal(rep.changed, 3); /* get_attr, mul, relu */
    assert_int_equal(count_op(g, NNFX_OP_MUL), 1);
    assert_int_equal(count_op(g, NNFX_OP_RELU), 1);
    assert_int_equal(count_op(g, NNFX_OP_LEAKY_RELU), 2);
    same_results(before, g, 4, 0);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* --- fold-constants and shape-prop ---------------------------------------------- */

static void test_fold_constants(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[3] = {2, 3, 4}, ws[1] = {4}, one = 1;
    nnfx_node *x = input(g, "x", 3, xs);
    nnfx_node *w1 = param(g, "w1", rnd(1, ws, 1, -1, 1));
    nnfx_node *w2 = param(g, "w2", rnd(1, ws, 2, -1, 1));
    nnfx_arg aa[2] = {nnfx_arg_node(w1), nnfx_arg_node(w2)};
    nnfx_node *sum = call(g, NNFX_OP_ADD, 2, aa, 0, NULL);
    nnfx_arg ab[2] = {nnfx_arg_node(sum), nnfx_arg_float(2.0)};
    nnfx_node *scaled = call(g, NNFX_OP_MUL, 2, ab, 0, NULL);
    nnfx_arg ac[2] = {nnfx_arg_node(x), nnfx_arg_node(scaled)};
    nnfx_node *y = call(g, NNFX_OP_MUL, 2, ac, 0, NULL);
    /* PyTorch-style reshape chain: x.view(x.shape[0], -1) */
    nnfx_node *shp = call1(g, NNFX_OP_SHAPE, x);
    int64_t zero_v = 0;
    nnfx_tensor *idx = nnfx_tensor_new(NNFX_I64, 0, NULL, NULL);
    ((int64_t *)idx->data)[0] = 0;
    nnfx_node *idxn = param(g, "idx0", idx);
    nnfx_arg ga[2] = {nnfx_arg_node(shp), nnfx_arg_node(idxn)};
    nnfx_node *d0 = call(g, NNFX_OP_GATHER, 2, ga, 0, NULL);
    nnfx_tensor *axes = nnfx_tensor_new(NNFX_I64, 1, &one, NULL);
    ((int64_t *)axes->data)[0] = zero_v;
    nnfx_arg ua[2] = {nnfx_arg_node(d0), nnfx_arg_node(param(g, "axes0", axes))};
    nnfx_node *u = call(g, NNFX_OP_UNSQUEEZE, 2, ua, 0, NULL);
    nnfx_tensor *m1 = nnfx_tensor_new(NNFX_I64, 1, &one, NULL);
    ((int64_t *)m1->data)[0] = -1;
    nnfx_arg ca[2] = {nnfx_arg_node(u), nnfx_arg_node(param(g, "minus1", m1))};
    nnfx_attr axis0 = nnfx_attr_int("axis", 0);
    nnfx_node *cat = call(g, NNFX_OP_CONCAT, 2, ca, 1, &axis0);
    nnfx_arg ra[2] = {nnfx_arg_node(y), nnfx_arg_node(cat)};
    nnfx_node *r = call(g, NNFX_OP_RESHAPE, 2, ra, 0, NULL);
    assert_non_null(nnfx_graph_output(g, 1, &r, NULL));
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fold-constants", &rep);
    assert_int_equal(rep.changed, 2); /* scaled weights, and the shape */
    assert_int_equal(count_op(g, NNFX_OP_ADD), 0);
    assert_int_equal(count_op(g, NNFX_OP_SHAPE), 0);
    assert_int_equal(count_op(g, NNFX_OP_GATHER), 0);
    assert_int_equal(count_op(g, NNFX_OP_CONCAT), 0);
    assert_int_equal(count_op(g, NNFX_OP_MUL), 1);
    assert_int_equal(count_op(g, NNFX_OP_RESHAPE), 1);
    assert_int_equal(nnfx_graph_num_params(g), 2);
    nnfx_node *rr = nnfx_node_arg_node(nnfx_graph_output_node(g), 0);
    assert_int_equal(nnfx_node_opcode(nnfx_node_arg_node(rr, 1)), NNFX_GET_ATTR);
    const nnfx_meta *rm = nnfx_node_meta_c(rr, 0);
    assert_int_equal(rm->rank, 2);
    assert_int_equal(rm->dims[1].value, 12);
    same_results(before, g, 5, 1e-6);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

/* Size of a statically shaped value is a constant, computed by Size's own
 * kernel over the shape: shape inference resolves x.reshape(x.numel()) to
 * [24] (2 * 3 * 4), and fold-constants turns the Size chain into one
 * parameter holding [24]. */
static void test_fold_size(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[3] = {2, 3, 4}, one = 1;
    nnfx_node *x = input(g, "x", 3, xs);
    nnfx_node *sz = call1(g, NNFX_OP_SIZE, x);
    nnfx_tensor *axes = nnfx_tensor_new(NNFX_I64, 1, &one, NULL);
    ((int64_t *)axes->data)[0] = 0;
    nnfx_arg ua[2] = {nnfx_arg_node(sz), nnfx_arg_node(param(g, "axes0", axes))};
    nnfx_node *u = call(g, NNFX_OP_UNSQUEEZE, 2, ua, 0, NULL);
    nnfx_arg ra[2] = {nnfx_arg_node(x), nnfx_arg_node(u)};
    nnfx_node *r = call(g, NNFX_OP_RESHAPE, 2, ra, 0, NULL);
    assert_non_null(nnfx_graph_output(g, 1, &r, NULL));
    assert_int_equal(nnfx_graph_infer_shapes(g, NULL), NNFX_OK);
    assert_int_equal(nnfx_node_meta(r, 0)->rank, 1);
    assert_int_equal(nnfx_node_meta(r, 0)->dims[0].value, 24);
    nnfx_graph *before = nnfx_graph_copy(g, NULL, NULL);
    nnfx_pass_report rep = {0};
    run_pass(g, "fold-constants", &rep);
    assert_int_equal(count_op(g, NNFX_OP_SIZE), 0);
    assert_int_equal(count_op(g, NNFX_OP_UNSQUEEZE), 0);
    nnfx_node *rr = nnfx_node_arg_node(nnfx_graph_output_node(g), 0);
    nnfx_node *shape = nnfx_node_arg_node(rr, 1);
    assert_int_equal(nnfx_node_opcode(shape), NNFX_GET_ATTR);
    const nnfx_tensor *sv = nnfx_graph_param(g, nnfx_node_target(shape));
    assert_non_null(sv);
    assert_int_equal(nnfx_tensor_numel(sv), 1);
    assert_int_equal(((const int64_t *)sv->data)[0], 24);
    same_results(before, g, 5, 0.0);
    nnfx_pass_report_free(&rep);
    nnfx_graph_free(before);
    nnfx_graph_free(g);
}

static void test_shape_prop_and_registry(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xs[2] = {3, 5};
    nnfx_node *x = input(g, "x", 2, xs);
    nnfx_node *t = call1(g, NNFX_OP_TANH, x);
    assert_non_null(nnfx_graph_output(g, 1, &t, NULL));
    nnfx_pass_report rep = {0};
    run_pass(g, "shape-prop", &rep);
    assert_int_equal(nnfx_node_meta(t, 0)->rank, 2);
    assert_int_equal(nnfx_node_meta(t, 0)->dims[1].value, 5);
    assert_string_equal(rep.pass, "shape-prop");
    nnfx_pass_report_free(&rep);
    nnfx_error err = {0};
    assert_int_equal(nnfx_pass_run_by_name(g, "fuse-everything", NULL, &err), NNFX_ERR_NOT_FOUND);
    assert_non_null(strstr(err.msg, "fuse-conv-bn"));
    assert_int_equal(nnfx_pass_count(), 8);
    for (int i = 0; i < nnfx_pass_count(); i++) {
        assert_non_null(nnfx_pass_description(i));
        run_pass(g, nnfx_pass_name(i), NULL); /* every pass runs on a plain graph */
    }
    assert_null(nnfx_pass_name(99));
    assert_int_equal(nnfx_pass_run_by_name(NULL, "dce", NULL, &err), NNFX_ERR_INVALID_ARG);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuse_conv_bn_basic),
        cmocka_unit_test(test_fuse_conv_bn_extreme_variance),
        cmocka_unit_test(test_fuse_conv_bn_shared_param_nodes),
        cmocka_unit_test(test_fuse_conv_bn_random),
        cmocka_unit_test(test_fuse_shared_weight),
        cmocka_unit_test(test_fuse_skips_two_users),
        cmocka_unit_test(test_fuse_skips_non_constant),
        cmocka_unit_test(test_fuse_gemm_matmul_bn),
        cmocka_unit_test(test_remove_noops),
        cmocka_unit_test(test_remove_bn),
        cmocka_unit_test(test_dce),
        cmocka_unit_test(test_cse),
        cmocka_unit_test(test_fold_constants),
        cmocka_unit_test(test_fold_size),
        cmocka_unit_test(test_shape_prop_and_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
