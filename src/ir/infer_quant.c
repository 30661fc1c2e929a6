/* infer_quant.c — shape/dtype inference and costs of the quantized ops:
 * QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearConv,
 * QLinearMatMul, ConvInteger, MatMulInteger; and the checks of scales and
 * zero points (quant_int.h) that inference and the kernels share.
 *
 * The conv and matmul forms reuse infer_conv / infer_matmul (and their
 * costs) on a view of the context that holds only the data inputs. */
#include <math.h>
#include <string.h>

#include "ir/infer_int.h"
#include "ir/quant_int.h"

bool ir_quant_is_qtype(nnfx_dtype dt) { return dt == NNFX_U8 || dt == NNFX_I8 || dt == NNFX_U16 || dt == NNFX_I16; }

void ir_quant_range(nnfx_dtype dt, int32_t *lo, int32_t *hi) {
    switch (dt) {
    case NNFX_I8: *lo = -128, *hi = 127; break;
    case NNFX_U16: *lo = 0, *hi = 65535; break;
    case NNFX_I16: *lo = -32768, *hi = 32767; break;
    default: *lo = 0, *hi = 255; break;
    }
}

nnfx_status ir_quant_check(const nnfx_node *n, const char *what, const nnfx_tensor *scale, const nnfx_tensor *zp,
                           int64_t axis_len, bool allow_i32, nnfx_error *err) {
    const char *name = n ? nnfx_node_name(n) : NULL;
    if (!name) name = "?";
    if (!scale) return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %s is missing", name, what);
    if (scale->dtype != NNFX_F32)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: %s has dtype %s (float32 is supported)", name, what,
                              nnfx_dtype_name(scale->dtype));
    int64_t k = nnfx_tensor_numel(scale);
    if (scale->rank > 1 || k < 1)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %s must be a scalar or 1-D, got rank %d with %lld values",
                              name, what, scale->rank, (long long)k);
    if (k != 1 && axis_len == -2)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %s must be a scalar (per tensor), got %lld values", name,
                              what, (long long)k);
    if (k != 1 && axis_len >= 0 && k != axis_len)
        return nnfx_error_set(err, NNFX_ERR_SHAPE,
                              "node %s: per-axis %s has %lld values but the quantized axis has length %lld", name, what,
                              (long long)k, (long long)axis_len);
    const float *s = scale->data;
    for (int64_t i = 0; i < k; i++)
        if (!isfinite(s[i]) || !(s[i] > 0.0f))
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: %s[%lld] = %g; a scale must be finite and > 0", name,
                                  what, (long long)i, (double)s[i]);
    if (!zp) return NNFX_OK;
    if (!ir_quant_is_qtype(zp->dtype) && !(allow_i32 && zp->dtype == NNFX_I32))
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: zero point of %s has dtype %s (int8 or uint8 expected)",
                              name, what, nnfx_dtype_name(zp->dtype));
    if (nnfx_tensor_numel(zp) != k || zp->rank != scale->rank)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: zero point of %s has %lld values, the scale %lld", name,
                              what, (long long)nnfx_tensor_numel(zp), (long long)k);
    if (zp->dtype == NNFX_I32)
        for (int64_t i = 0; i < k; i++)
            if (((const int32_t *)zp->data)[i] != 0)
                return nnfx_error_set(err, NNFX_ERR_SHAPE,
                                      "node %s: zero point of %s [%lld] = %d is out of range: int32 data takes 0", name,
                                      what, (long long)i, (int)((const int32_t *)zp->data)[i]);
    return NNFX_OK;
}

/* Static checks of a (scale, zero point) input pair: metas, and values when
 * known. axis_len as in ir_quant_check. */
static nnfx_status check_pair(const nnfx_infer_ctx *c, int si, int zi, const char *what, int64_t axis_len,
                              bool allow_i32) {
    nnfx_status s = infer_need(c, si, what);
    if (s) return s;
    const nnfx_meta *sm = c->in[si];
    const nnfx_meta *zm = zi < c->nin ? c->in[zi] : NULL;
    char b1[200], b2[200];
    if (sm->dtype != NNFX_DTYPE_UNDEFINED && sm->dtype != NNFX_F32)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "%s has dtype %s (float32 is supported)", what,
                                 nnfx_dtype_name(sm->dtype));
    if (sm->rank > 1)
        return infer_fail(c, "%s must be a scalar or 1-D, got %s", what, infer_meta_str(sm, b1, sizeof b1));
    if (zm && zm->rank >= 0 && sm->rank >= 0) {
        bool same = zm->rank == sm->rank;
        for (int i = 0; same && i < sm->rank; i++)
            same = zm->dims[i].value < 0 || sm->dims[i].value < 0 || zm->dims[i].value == sm->dims[i].value;
        if (!same)
            return infer_fail(c, "zero point %s does not match %s %s", infer_meta_str(zm, b1, sizeof b1), what,
                              infer_meta_str(sm, b2, sizeof b2));
    }
    if (zm && zm->dtype != NNFX_DTYPE_UNDEFINED && !ir_quant_is_qtype(zm->dtype) &&
        !(allow_i32 && zm->dtype == NNFX_I32))
        return infer_fail(c, "zero point of %s has dtype %s (int8 or uint8 expected)", what,
                          nnfx_dtype_name(zm->dtype));
    const nnfx_tensor *sv = c->in_value ? c->in_value[si] : NULL;
    const nnfx_tensor *zv = zm && c->in_value ? c->in_value[zi] : NULL;
    if (sv && (!zm || zv)) return ir_quant_check(c->node, what, sv, zv, axis_len, allow_i32, c->err);
    if (sm->rank == 1 && sm->dims[0].value > 1 && axis_len == -2)
        return infer_fail(c, "%s must be a scalar (per tensor), got %s", what, infer_meta_str(sm, b1, sizeof b1));
    if (sm->rank == 1 && sm->dims[0].value > 1 && axis_len >= 0 && sm->dims[0].value != axis_len)
        return infer_fail(c, "per-axis %s has %lld values but the quantized axis has length %lld", what,
                          (long long)sm->dims[0].value, (long long)axis_len);
    return NNFX_OK;
}

/* Length of dim `d` of input i, -1 when unknown. */
static int64_t dim_of(const nnfx_infer_ctx *c, int i, int d) {
    const nnfx_meta *m = i < c->nin ? c->in[i] : NULL;
    if (!m || m->rank < 0) return -1;
    if (d < 0) d += m->rank;
    return d >= 0 && d < m->rank ? m->dims[d].value : -1;
}

/* Q/DQ: the quantized axis length (per-axis form), -1 when unknown. */
static nnfx_status qdq_axis_len(const nnfx_infer_ctx *c, int64_t *len) {
    *len = -1;
    if (nnfx_node_attr_int(c->node, "block_size", 0) != 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "blocked quantization (block_size) is not supported");
    const nnfx_meta *x = c->in[0];
    if (x->rank < 0) return NNFX_OK;
    int64_t axis = nnfx_node_attr_int(c->node, "axis", 1);
    int a;
    const nnfx_meta *sm = c->in[1];
    bool per_axis = sm && sm->rank == 1 && sm->dims[0].value != 1;
    if (!per_axis) return NNFX_OK;
    if (!infer_axis(axis, x->rank, false, &a))
        return infer_fail(c, "axis %lld is out of range for input of rank %d", (long long)axis, x->rank);
    *len = x->dims[a].value;
    return NNFX_OK;
}

/* QuantizeLinear: x (float32) -> dtype of the zero point (uint8 without). */
nnfx_status infer_quantize_linear(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "x");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->dtype != NNFX_DTYPE_UNDEFINED && x->dtype != NNFX_F32)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "quantize_linear takes float32 input, got %s",
                                 nnfx_dtype_name(x->dtype));
    int64_t len;
    if ((s = infer_need(c, 1, "y_scale")) || (s = qdq_axis_len(c, &len))) return s;
    if ((s = check_pair(c, 1, 2, "y_scale", len, false))) return s;
    nnfx_dtype dt = c->nin > 2 && c->in[2] ? c->in[2]->dtype : NNFX_DTYPE_UNDEFINED;
    int64_t od = nnfx_node_attr_int(c->node, "output_dtype", 0);
    if (od != 0 && !ir_quant_is_qtype((nnfx_dtype)od))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED,
                                 "output_dtype %lld is not supported (int8/uint8/int16/uint16)", (long long)od);
    if (od != 0 && dt != NNFX_DTYPE_UNDEFINED && dt != (nnfx_dtype)od)
        return infer_fail(c, "output_dtype %s differs from the zero point's %s", nnfx_dtype_name((nnfx_dtype)od),
                          nnfx_dtype_name(dt));
    if (dt == NNFX_DTYPE_UNDEFINED) dt = od ? (nnfx_dtype)od : NNFX_U8;
    if (c->nin > 2 && c->in[2] && c->in[2]->dtype == NNFX_DTYPE_UNDEFINED && !od) dt = NNFX_DTYPE_UNDEFINED;
    c->out[0] = *x;
    c->out[0].dtype = dt;
    return NNFX_OK;
}

/* DequantizeLinear: x (int8/uint8/int16/uint16/int32) -> float32. */
nnfx_status infer_dequantize_linear(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "x");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->dtype != NNFX_DTYPE_UNDEFINED && !ir_quant_is_qtype(x->dtype) && x->dtype != NNFX_I32)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "dequantize_linear takes int8/uint8/int32 input, got %s",
                                 nnfx_dtype_name(x->dtype));
    int64_t len;
    if ((s = infer_need(c, 1, "x_scale")) || (s = qdq_axis_len(c, &len))) return s;
    if ((s = check_pair(c, 1, 2, "x_scale", len, true))) return s;
    const nnfx_meta *zm = c->nin > 2 ? c->in[2] : NULL;
    if (zm && zm->dtype != NNFX_DTYPE_UNDEFINED && x->dtype != NNFX_DTYPE_UNDEFINED && zm->dtype != x->dtype)
        return infer_fail(c, "x has dtype %s but its zero point %s", nnfx_dtype_name(x->dtype),
                          nnfx_dtype_name(zm->dtype));
    c->out[0] = *x;
    c->out[0].dtype = NNFX_F32;
    return NNFX_OK;
}

/* DynamicQuantizeLinear: x (float32) -> y (uint8, x's shape), y_scale
 * (float32 scalar), y_zero_point (uint8 scalar). */
nnfx_status infer_dynamic_quantize_linear(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "x");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->dtype != NNFX_DTYPE_UNDEFINED && x->dtype != NNFX_F32)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "dynamic_quantize_linear takes float32 input, got %s",
                                 nnfx_dtype_name(x->dtype));
    c->out[0] = *x;
    c->out[0].dtype = NNFX_U8;
    if (c->nout > 1) infer_set_dims(&c->out[1], NNFX_F32, 0, NULL);
    if (c->nout > 2) infer_set_dims(&c->out[2], NNFX_U8, 0, NULL);
    return NNFX_OK;
}

/* A view of c with inputs idx[0..k) (-1: absent). */
typedef struct sub_ctx {
    nnfx_infer_ctx c;
    const nnfx_meta *in[4];
    const nnfx_tensor *val[4];
} sub_ctx;

static void sub_init(sub_ctx *s, const nnfx_infer_ctx *c, int k, const int *idx) {
    memset(s, 0, sizeof *s);
    s->c = *c;
    for (int i = 0; i < k; i++) {
        bool ok = idx[i] >= 0 && idx[i] < c->nin;
        s->in[i] = ok ? c->in[idx[i]] : NULL;
        s->val[i] = ok && c->in_value ? c->in_value[idx[i]] : NULL;
    }
    while (k > 0 && !s->in[k - 1])
        k--;
    s->c.nin = k;
    s->c.in = s->in;
    s->c.in_value = s->val;
}

/* Checks that data input i and its zero point zi share a dtype (a qtype). */
static nnfx_status check_data(const nnfx_infer_ctx *c, int i, int zi, const char *what) {
    nnfx_status s = infer_need(c, i, what);
    if (s) return s;
    nnfx_dtype d = c->in[i]->dtype;
    if (d != NNFX_DTYPE_UNDEFINED && d != NNFX_U8 && d != NNFX_I8)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "%s has dtype %s (int8 or uint8 expected)", what,
                                 nnfx_dtype_name(d));
    const nnfx_meta *zm = zi >= 0 && zi < c->nin ? c->in[zi] : NULL;
    if (zm && zm->dtype != NNFX_DTYPE_UNDEFINED && d != NNFX_DTYPE_UNDEFINED && zm->dtype != d)
        return infer_fail(c, "%s has dtype %s but its zero point %s", what, nnfx_dtype_name(d),
                          nnfx_dtype_name(zm->dtype));
    return NNFX_OK;
}

/* Zero points of ConvInteger / MatMulInteger (no scale): metas and shapes. */
static nnfx_status check_zp_only(const nnfx_infer_ctx *c, int zi, int64_t axis_len, const char *what) {
    const nnfx_meta *zm = zi < c->nin ? c->in[zi] : NULL;
    if (!zm || zm->rank < 0) return NNFX_OK;
    char b1[200];
    int64_t k = zm->rank == 0 ? 1 : zm->dims[0].value;
    if (zm->rank > 1 || (k > 1 && axis_len == -2) || (k > 1 && axis_len >= 0 && k != axis_len))
        return infer_fail(c, "%s %s does not fit (a scalar, or one per %s)", what, infer_meta_str(zm, b1, sizeof b1),
                          axis_len == -2 ? "tensor" : "channel/row/column");
    return NNFX_OK;
}

/* QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]. */
nnfx_status infer_qlinear_conv(nnfx_infer_ctx *c) {
    nnfx_status s;
    if ((s = check_data(c, 0, 2, "x")) || (s = check_data(c, 3, 5, "w"))) return s;
    if ((s = check_pair(c, 1, 2, "x_scale", -2, false)) ||
        (s = check_pair(c, 4, 5, "w_scale", dim_of(c, 3, 0), false)) || (s = check_pair(c, 6, 7, "y_scale", -2, false)))
        return s;
    if (c->nin > 8 && c->in[8] && c->in[8]->dtype != NNFX_DTYPE_UNDEFINED && c->in[8]->dtype != NNFX_I32)
        return infer_fail(c, "bias B has dtype %s (int32 expected)", nnfx_dtype_name(c->in[8]->dtype));
    sub_ctx v;
    sub_init(&v, c, 3, (const int[]){0, 3, 8});
    if ((s = infer_conv(&v.c))) return s;
    c->out[0].dtype = c->nin > 7 && c->in[7] ? c->in[7]->dtype : NNFX_U8;
    return NNFX_OK;
}

/* QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp. */
nnfx_status infer_qlinear_matmul(nnfx_infer_ctx *c) {
    nnfx_status s;
    if ((s = check_data(c, 0, 2, "a")) || (s = check_data(c, 3, 5, "b"))) return s;
    if ((s = check_pair(c, 1, 2, "a_scale", dim_of(c, 0, -2), false)) ||
        (s = check_pair(c, 4, 5, "b_scale", dim_of(c, 3, -1), false)) ||
        (s = check_pair(c, 6, 7, "y_scale", -2, false)))
        return s;
    sub_ctx v;
    sub_init(&v, c, 2, (const int[]){0, 3});
    if ((s = infer_matmul(&v.c))) return s;
    c->out[0].dtype = c->nin > 7 && c->in[7] ? c->in[7]->dtype : NNFX_U8;
    return NNFX_OK;
}

/* ConvInteger: x, w[, x_zp, w_zp] -> int32. */
nnfx_status infer_conv_integer(nnfx_infer_ctx *c) {
    nnfx_status s;
    if ((s = check_data(c, 0, 2, "x")) || (s = check_data(c, 1, 3, "w"))) return s;
    if ((s = check_zp_only(c, 2, -2, "x_zero_point")) || (s = check_zp_only(c, 3, dim_of(c, 1, 0), "w_zero_point")))
        return s;
    sub_ctx v;
    sub_init(&v, c, 2, (const int[]){0, 1});
    if ((s = infer_conv(&v.c))) return s;
    c->out[0].dtype = NNFX_I32;
    return NNFX_OK;
}

/* MatMulInteger: a, b[, a_zp, b_zp] -> int32. */
nnfx_status infer_matmul_integer(nnfx_infer_ctx *c) {
    nnfx_status s;
    if ((s = check_data(c, 0, 2, "a")) || (s = check_data(c, 1, 3, "b"))) return s;
    if ((s = check_zp_only(c, 2, dim_of(c, 0, -2), "a_zero_point")) ||
        (s = check_zp_only(c, 3, dim_of(c, 1, -1), "b_zero_point")))
        return s;
    sub_ctx v;
    sub_init(&v, c, 2, (const int[]){0, 1});
    if ((s = infer_matmul(&v.c))) return s;
    c->out[0].dtype = NNFX_I32;
    return NNFX_OK;
}

/* --- Costs: the float op's MACs; quantize/dequantize are element-wise. -- */

void cost_dynamic_quantize_linear(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    /* min/max scan, then divide-round-add per element */
    cost_elementwise(c, macs, flops);
    *flops *= 3;
}

void cost_qlinear_conv(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    sub_ctx v;
    sub_init(&v, c, 3, (const int[]){0, 3, 8});
    cost_conv(&v.c, macs, flops);
}

void cost_conv_integer(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    sub_ctx v;
    sub_init(&v, c, 2, (const int[]){0, 1});
    cost_conv(&v.c, macs, flops);
}

void cost_qlinear_matmul(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    sub_ctx v;
    sub_init(&v, c, 2, (const int[]){0, 3});
    cost_matmul(&v.c, macs, flops);
}

void cost_matmul_integer(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) { cost_matmul(c, macs, flops); }
