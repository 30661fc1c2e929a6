/* test_quant.c — quantization (int8): the integer reference kernels
 * (QLinearConv, QLinearMatMul, ConvInteger) against the QDQ semantics they
 * stand for (DequantizeLinear -> float op -> QuantizeLinear) on odd shapes,
 * and the nnfx_quantize API (calibration, Q/DQ insertion, SQNR report,
 * errors). The ONNX node tests check the same kernels against the onnx
 * package's expected outputs. */
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

static uint64_t rng = 0x1234567;
static uint32_t next_u32(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static nnfx_tensor *tensor(nnfx_dtype dt, int rank, const int64_t *shape) {
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, shape, NULL);
    assert_non_null(t);
    return t;
}

/* Random integers in [lo, hi] of dtype dt. */
static nnfx_tensor *rnd_int(nnfx_dtype dt, int rank, const int64_t *shape, int lo, int hi) {
    nnfx_tensor *t = tensor(dt, rank, shape);
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++) {
        int v = lo + (int)(next_u32() % (uint32_t)(hi - lo + 1));
        if (dt == NNFX_U8) ((uint8_t *)t->data)[i] = (uint8_t)v;
        if (dt == NNFX_I8) ((int8_t *)t->data)[i] = (int8_t)v;
        if (dt == NNFX_I32) ((int32_t *)t->data)[i] = v;
    }
    return t;
}

static nnfx_tensor *scales(int64_t n, float lo, float hi) {
    nnfx_tensor *t = n < 0 ? tensor(NNFX_F32, 0, NULL) : tensor(NNFX_F32, 1, &n);
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        ((float *)t->data)[i] = lo + (hi - lo) * (float)(next_u32() % 1000) / 1000.0f;
    return t;
}

/* Runs op once on the given inputs (placeholders of a scratch graph) with
 * the attributes; returns output 0 (caller releases). */
static nnfx_tensor *run_op(nnfx_op op, int nin, nnfx_tensor *const *in, int nattrs, const nnfx_attr *attrs) {
    nnfx_graph *g = nnfx_graph_new();
    nnfx_arg args[12];
    nnfx_error err = {0};
    for (int i = 0; i < nin; i++) {
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        nnfx_meta m;
        nnfx_meta_set_shape(&m, in[i]->dtype, in[i]->rank, in[i]->shape);
        nnfx_node *p = nnfx_graph_placeholder(g, name, &m, &err);
        assert_non_null(p);
        args[i] = nnfx_arg_node(p);
    }
    nnfx_node *n = nnfx_graph_call_op(g, op, nin, args, nattrs, attrs, &err);
    if (!n) fail_msg("%s", err.msg);
    nnfx_value_set vs = {0};
    if (nnfx_op_run(n, nin, in, &vs, &err)) fail_msg("%s: %s", nnfx_op_name(op), err.msg);
    for (int i = 1; i < vs.num; i++)
        nnfx_tensor_release(vs.t[i]);
    nnfx_graph_free(g);
    return vs.t[0];
}

static nnfx_tensor *dq(nnfx_tensor *q, nnfx_tensor *s, nnfx_tensor *z, int axis) {
    nnfx_tensor *in[3] = {q, s, z};
    nnfx_attr a = nnfx_attr_int("axis", axis);
    return run_op(NNFX_OP_DEQUANTIZE_LINEAR, z ? 3 : 2, in, 1, &a);
}

/* Integer results a and b differ by at most one step everywhere, and by
 * none on at least 99 % of the elements (a float sum may land on the
 * other side of a rounding tie). */
static void assert_within_one_step(const nnfx_tensor *a, const nnfx_tensor *b, const char *what) {
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(nnfx_tensor_numel(a), nnfx_tensor_numel(b));
    int64_t n = nnfx_tensor_numel(a), off = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i));
        if (d > 1)
            fail_msg("%s: element %lld: %g vs %g", what, (long long)i, nnfx_tensor_get(a, i), nnfx_tensor_get(b, i));
        off += d > 0;
    }
    if (off * 100 > n) fail_msg("%s: %lld of %lld elements differ by one step", what, (long long)off, (long long)n);
}

/* --- QLinearConv / ConvInteger vs DQ -> Conv -> Q ------------------------- */

static void conv_case(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t kh, int64_t kw, int64_t group,
                      int64_t stride, int64_t pad, bool per_channel) {
    int64_t xs_[4] = {n, c, h, w}, ws_[4] = {m, c / group, kh, kw};
    nnfx_tensor *x = rnd_int(NNFX_U8, 4, xs_, 0, 255), *wq = rnd_int(NNFX_I8, 4, ws_, -127, 127);
    nnfx_tensor *x_s = scales(-1, 0.01f, 0.03f), *x_z = rnd_int(NNFX_U8, 0, NULL, 100, 140);
    nnfx_tensor *w_s = scales(per_channel ? m : -1, 0.002f, 0.01f);
    int64_t nz = nnfx_tensor_numel(w_s);
    nnfx_tensor *w_z = per_channel ? tensor(NNFX_I8, 1, &nz) : tensor(NNFX_I8, 0, NULL);
    nnfx_tensor *y_s = scales(-1, 0.05f, 0.1f), *y_z = rnd_int(NNFX_U8, 0, NULL, 60, 90);
    nnfx_tensor *b = rnd_int(NNFX_I32, 1, &m, -2000, 2000);
    int64_t pads[4] = {pad, pad, pad, pad}, strides[2] = {stride, stride};
    nnfx_attr at[3] = {nnfx_attr_ints("pads", 4, pads), nnfx_attr_ints("strides", 2, strides),
                       nnfx_attr_int("group", group)};
    nnfx_tensor *qin[9] = {x, x_s, x_z, wq, w_s, w_z, y_s, y_z, b};
    nnfx_tensor *got = run_op(NNFX_OP_QLINEAR_CONV, 9, qin, 3, at);
    /* the QDQ semantics: bias scale x_scale * w_scale[m] */
    nnfx_tensor *bs = tensor(NNFX_F32, 1, &m);
    for (int64_t i = 0; i < m; i++)
        ((float *)bs->data)[i] = ((float *)x_s->data)[0] * ((float *)w_s->data)[nz == 1 ? 0 : i];
    nnfx_tensor *xf = dq(x, x_s, x_z, 1), *wf = dq(wq, w_s, w_z, 0), *bf = dq(b, bs, NULL, 0);
    nnfx_tensor *cin[3] = {xf, wf, bf};
    nnfx_tensor *yf = run_op(NNFX_OP_CONV, 3, cin, 3, at);
    nnfx_tensor *qin2[3] = {yf, y_s, y_z};
    nnfx_tensor *want = run_op(NNFX_OP_QUANTIZE_LINEAR, 3, qin2, 0, NULL);
    assert_within_one_step(got, want, "qlinear_conv vs dq -> conv -> q");
    /* ConvInteger: the accumulator without bias equals the float conv of
     * the zero-point-shifted integers (exact: small integers) */
    nnfx_tensor *ciin[4] = {x, wq, x_z, w_z};
    nnfx_tensor *acc = run_op(NNFX_OP_CONV_INTEGER, 4, ciin, 3, at);
    nnfx_tensor *one = tensor(NNFX_F32, 0, NULL), *ones = tensor(NNFX_F32, 1, &nz);
    ((float *)one->data)[0] = 1.0f;
    for (int64_t i = 0; i < nz; i++)
        ((float *)ones->data)[i] = 1.0f;
    nnfx_tensor *xi = dq(x, one, x_z, 1), *wi = dq(wq, per_channel ? ones : one, w_z, 0);
    nnfx_tensor *cin2[2] = {xi, wi};
    nnfx_tensor *accf = run_op(NNFX_OP_CONV, 2, cin2, 3, at);
    assert_int_equal(acc->dtype, NNFX_I32);
    for (int64_t i = 0; i < nnfx_tensor_numel(acc); i++)
        assert_true(fabs(nnfx_tensor_get(acc, i) - nnfx_tensor_get(accf, i)) < 0.5);
    nnfx_tensor *all[] = {x,  wq, x_s, x_z, w_s,  w_z, y_s, y_z,  b,  got, bs,
                          xf, wf, bf,  yf,  want, acc, one, ones, xi, wi,  accf};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        nnfx_tensor_release(all[i]);
}

static void test_qlinear_conv_is_qdq(void **state) {
    (void)state;
    conv_case(2, 3, 7, 5, 5, 3, 2, 1, 2, 1, true);  /* odd sizes, stride 2, pad 1, per channel */
    conv_case(1, 4, 9, 9, 6, 3, 3, 2, 1, 0, true);  /* grouped */
    conv_case(1, 6, 5, 6, 6, 3, 3, 6, 1, 1, false); /* depthwise, per tensor */
    conv_case(3, 1, 4, 3, 1, 1, 1, 1, 1, 0, false); /* 1x1, one channel */
}

/* --- QLinearMatMul vs DQ -> MatMul -> Q ------------------------------------ */

static void test_qlinear_matmul_is_qdq(void **state) {
    (void)state;
    int64_t as[3] = {3, 5, 7}, bs_[2] = {7, 4}, n4 = 4;
    nnfx_tensor *a = rnd_int(NNFX_U8, 3, as, 0, 255), *b = rnd_int(NNFX_I8, 2, bs_, -127, 127);
    nnfx_tensor *a_s = scales(-1, 0.01f, 0.02f), *a_z = rnd_int(NNFX_U8, 0, NULL, 120, 130);
    nnfx_tensor *b_s = scales(n4, 0.005f, 0.01f), *b_z = tensor(NNFX_I8, 1, &n4);
    nnfx_tensor *y_s = scales(-1, 0.02f, 0.03f), *y_z = rnd_int(NNFX_U8, 0, NULL, 120, 130);
    nnfx_tensor *qin[8] = {a, a_s, a_z, b, b_s, b_z, y_s, y_z};
    nnfx_tensor *got = run_op(NNFX_OP_QLINEAR_MATMUL, 8, qin, 0, NULL);
    nnfx_tensor *af = dq(a, a_s, a_z, 1), *bf = dq(b, b_s, b_z, 1);
    nnfx_tensor *min[2] = {af, bf};
    nnfx_tensor *yf = run_op(NNFX_OP_MATMUL, 2, min, 0, NULL);
    nnfx_tensor *qin2[3] = {yf, y_s, y_z};
    nnfx_tensor *want = run_op(NNFX_OP_QUANTIZE_LINEAR, 3, qin2, 0, NULL);
    assert_int_equal(got->rank, 3);
    assert_within_one_step(got, want, "qlinear_matmul vs dq -> matmul -> q");
    nnfx_tensor *all[] = {a, b, a_s, a_z, b_s, b_z, y_s, y_z, got, af, bf, yf, want};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        nnfx_tensor_release(all[i]);
}

/* QuantizeLinear rounds half to even and saturates, as the spec says. */
static void test_quantize_rounding(void **state) {
    (void)state;
    const float xv[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1000.0f, 2.4f};
    int64_t n = 8;
    nnfx_tensor *x = nnfx_tensor_from_floats(1, &n, xv, NULL), *s = scales(-1, 1.0f, 1.0f);
    nnfx_tensor *z = tensor(NNFX_I8, 0, NULL);
    nnfx_tensor *in[3] = {x, s, z};
    nnfx_tensor *y = run_op(NNFX_OP_QUANTIZE_LINEAR, 3, in, 0, NULL);
    const int want[8] = {0, 2, 2, 0, -2, 127, -128, 2};
    for (int i = 0; i < 8; i++)
        assert_int_equal((int)nnfx_tensor_get(y, i), want[i]);
    nnfx_tensor_release(x), nnfx_tensor_release(s), nnfx_tensor_release(z), nnfx_tensor_release(y);
}

/* --- nnfx_quantize --------------------------------------------------------- */

/* x [?, 6] -> Gemm(8, transB) -> Relu -> Gemm(3) */
static nnfx_graph *mlp(void) {
    nnfx_graph *g = nnfx_graph_new();
    nnfx_error err = {0};
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 2, (int64_t[]){-1, 6});
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, &err);
    const char *names[4] = {"w1", "b1", "w2", "b2"};
    int64_t shapes[4][2] = {{8, 6}, {8, 0}, {3, 8}, {3, 0}};
    nnfx_node *p[4];
    for (int i = 0; i < 4; i++) {
        nnfx_tensor *t = tensor(NNFX_F32, shapes[i][1] ? 2 : 1, shapes[i]);
        nnfx_tensor_fill_uniform(t, 7 + (uint64_t)i, -0.8f, 0.8f);
        assert_int_equal(nnfx_graph_set_param(g, names[i], t, &err), NNFX_OK);
        nnfx_tensor_release(t);
        p[i] = nnfx_graph_get_attr(g, names[i], &err);
    }
    nnfx_attr tb = nnfx_attr_int("transB", 1);
    nnfx_arg a1[3] = {nnfx_arg_node(x), nnfx_arg_node(p[0]), nnfx_arg_node(p[1])};
    nnfx_node *h = nnfx_graph_call_op(g, NNFX_OP_GEMM, 3, a1, 1, &tb, &err);
    nnfx_arg r = nnfx_arg_node(h);
    nnfx_node *relu = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &r, 0, NULL, &err);
    nnfx_arg a2[3] = {nnfx_arg_node(relu), nnfx_arg_node(p[2]), nnfx_arg_node(p[3])};
    nnfx_node *y = nnfx_graph_call_op(g, NNFX_OP_GEMM, 3, a2, 1, &tb, &err);
    assert_non_null(nnfx_graph_output(g, 1, &y, &err));
    assert_int_equal(nnfx_graph_lint(g, &err), NNFX_OK);
    return g;
}

static int count_op(const nnfx_graph *g, nnfx_op op) {
    int k = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n))
        k += nnfx_node_is_op(n, op);
    return k;
}

static nnfx_tensor *run_graph(const nnfx_graph *g, nnfx_tensor *x) {
    nnfx_error err = {0};
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    nnfx_gm *gm = nnfx_gm_new(c, &err);
    assert_non_null(gm);
    nnfx_tensor *out[4];
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &x, 4, out, &nout, &err)) fail_msg("%s", err.msg);
    for (int i = 1; i < nout; i++)
        nnfx_tensor_release(out[i]);
    nnfx_gm_free(gm);
    return out[0];
}

static void test_quantize_api(void **state) {
    (void)state;
    nnfx_error err = {0};
    nnfx_graph *g = mlp();
    int64_t cs[2] = {32, 6};
    nnfx_tensor *calib = tensor(NNFX_F32, 2, cs);
    nnfx_tensor_fill_uniform(calib, 3, -1.0f, 1.0f);
    nnfx_quant_options o = {0};
    o.method = NNFX_QUANT_MSE;
    nnfx_quant_report rep = {0};
    nnfx_graph *q = nnfx_quantize(g, 1, &calib, &o, &rep, &err);
    if (!q) fail_msg("%s", err.msg);
    assert_int_equal(rep.nlayers, 2);
    assert_int_equal(rep.quantized, 2);
    assert_int_equal(rep.samples, 32);
    for (int i = 0; i < 2; i++)
        assert_true(rep.layers[i].quantized && rep.layers[i].sqnr_db > 25.0);
    assert_int_equal(count_op(q, NNFX_OP_QUANTIZE_LINEAR), 2);   /* x and the relu output */
    assert_int_equal(count_op(q, NNFX_OP_DEQUANTIZE_LINEAR), 6); /* + 2 weights + 2 biases */
    /* the original is untouched, and the quantized model stays close to it */
    assert_int_equal(count_op(g, NNFX_OP_QUANTIZE_LINEAR), 0);
    nnfx_tensor *a = run_graph(g, calib), *b = run_graph(q, calib);
    double scale = 0, diff = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++) {
        scale = fmax(scale, fabs(nnfx_tensor_get(a, i)));
        diff = fmax(diff, fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i)));
    }
    assert_true(diff <= 0.05 * scale);
    nnfx_tensor_release(a), nnfx_tensor_release(b);
    nnfx_graph_free(q);

    /* one calibration, several settings: exclude the second layer by name */
    nnfx_quant_calib *c = nnfx_quant_calibrate(g, 1, &calib, &o, &err);
    assert_non_null(c);
    char second[sizeof rep.layers[1].node]; /* apply frees the old report */
    snprintf(second, sizeof second, "%s", rep.layers[1].node);
    const char *excl[1] = {second};
    o.nexclude = 1;
    o.exclude = excl;
    o.activations = NNFX_I8;
    q = nnfx_quant_apply(c, &o, &rep, &err);
    assert_non_null(q);
    assert_int_equal(rep.quantized, 1);
    assert_false(rep.layers[1].quantized);
    assert_non_null(strstr(rep.layers[1].why, "excluded"));
    nnfx_graph_free(q);
    nnfx_quant_calib_free(c);
    nnfx_quant_report_free(&rep);

    /* calibration data that does not fit: an error naming the input */
    int64_t bad[2] = {4, 5};
    nnfx_tensor *wrong = tensor(NNFX_F32, 2, bad);
    assert_null(nnfx_quantize(g, 1, &wrong, NULL, NULL, &err));
    assert_int_equal(err.status, NNFX_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "calibration data for input x has shape [4, 5]"));
    /* NULL and missing arguments */
    assert_null(nnfx_quantize(NULL, 1, &calib, NULL, NULL, &err));
    assert_null(nnfx_quantize(g, 1, NULL, NULL, NULL, &err));
    assert_null(nnfx_quantize(g, 0, NULL, NULL, NULL, &err));
    assert_null(nnfx_quant_apply(NULL, NULL, NULL, &err));
    nnfx_quant_calib_free(NULL);
    nnfx_quant_report_free(NULL);
    nnfx_tensor_release(wrong);
    nnfx_tensor_release(calib);
    nnfx_graph_free(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qlinear_conv_is_qdq),
        cmocka_unit_test(test_qlinear_matmul_is_qdq),
        cmocka_unit_test(test_quantize_rounding),
        cmocka_unit_test(test_quantize_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
