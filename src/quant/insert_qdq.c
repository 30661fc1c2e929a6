/* insert_qdq.c — the rewrite that turns a calibrated float graph into QDQ
 * form (what ONNX Runtime's quantize_static writes and PyTorch's convert_fx
 * exports):
 *
 *   x -> Q -> DQ -> Conv/Gemm/MatMul [-> Relu] -> Q -> DQ -> ...
 *                   ^ DQ(int8 weight, per-channel scale, axis)
 *                   ^ DQ(int32 bias, scale x_scale * w_scale)
 *
 * Activations are quantized per tensor (uint8 or int8) with the range the
 * method picks from calibration; one Q/DQ pair per value, shared by all its
 * users (graph outputs stay float). Weights are symmetric int8 in
 * [-127, 127] ([-63, 63] with reduce_range; zero point 0) per output
 * channel or per tensor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/quant_int.h"
#include "quant/quant_lib.h"

typedef struct qctx {
    nnfx_graph *g;
    const nnfx_quant_calib *c;
    const nnfx_quant_options *o;
    nnfx_value_map *qdq; /* float value -> its DequantizeLinear */
    int pairs;
    bool all_ops; /* int8 activations: every op (quantize_ops), graph outputs too */
    nnfx_error *err;
} qctx;

/* A parameter named like want (made unique) holding t (the reference is
 * taken over), read by a new get_attr node. */
static nnfx_node *param_node(qctx *q, const char *want, nnfx_tensor *t) {
    if (!t) return NULL;
    char name[256];
    snprintf(name, sizeof name, "%s", want);
    for (int k = 1; nnfx_graph_param(q->g, name); k++)
        snprintf(name, sizeof name, "%s_%d", want, k);
    nnfx_status s = nnfx_graph_set_param(q->g, name, t, q->err);
    nnfx_tensor_release(t);
    return s ? NULL : nnfx_graph_get_attr(q->g, name, q->err);
}

static nnfx_tensor *scalar_of(nnfx_dtype dt, double v, nnfx_error *err) {
    nnfx_tensor *t = nnfx_tensor_new(dt, 0, NULL, err);
    if (!t) return NULL;
    switch (dt) {
    case NNFX_F32: *(float *)t->data = (float)v; break;
    case NNFX_U8: *(uint8_t *)t->data = (uint8_t)v; break;
    case NNFX_I8: *(int8_t *)t->data = (int8_t)v; break;
    default: break;
    }
    return t;
}

static bool not_q_nor_output(const nnfx_node *user, void *ctx) {
    return user != ctx && nnfx_node_opcode(user) != NNFX_OUTPUT;
}

static bool not_q(const nnfx_node *user, void *ctx) { return user != ctx; }

/* The earliest user of src in graph order (NULL when none). */
static nnfx_node *first_user(nnfx_node *src) {
    if (nnfx_node_num_users(src) == 0) return NULL;
    for (nnfx_node *n = nnfx_node_next(src); n; n = nnfx_node_next(n))
        for (int a = 0; a < nnfx_node_num_args(n); a++)
            if (nnfx_node_arg_node(n, a) == src) return n;
    return NULL;
}

/* The DequantizeLinear standing for float value src (made on first use:
 * Q/DQ inserted before src's first user, every user but graph outputs
 * rewired); NULL with *why set when src has no calibrated range. */
static nnfx_node *act_qdq_like(qctx *q, nnfx_node *src, const nnfx_node *like, const char **why);

static nnfx_node *act_qdq(qctx *q, nnfx_node *src, const char **why) { return act_qdq_like(q, src, NULL, why); }

/* act_qdq, but when like (a DequantizeLinear) is given, src's Q/DQ reuse
 * its scale and zero point (a value that only moves or selects like's
 * values: Reshape, MaxPool..., as TFLite keeps their input's parameters). */
static nnfx_node *act_qdq_like(qctx *q, nnfx_node *src, const nnfx_node *like, const char **why) {
    if (nnfx_node_is_op(src, NNFX_OP_DEQUANTIZE_LINEAR)) return src;
    nnfx_node *dq = nnfx_value_map_get(q->qdq, src);
    if (dq) return dq;
    nnfx_node *s = NULL, *z = NULL;
    const char *sn = nnfx_node_name(src);
    char want[256];
    nnfx_node *at = first_user(src);
    if (like) {
        s = nnfx_node_arg_node(like, 1), z = nnfx_node_arg_node(like, 2);
        if (!s || !z) like = NULL;
    }
    if (!like) {
        const quant_obs *ob = quant_calib_obs(q->c, sn);
        if (!ob || !ob->count) {
            *why = "no calibrated range for its input";
            return NULL;
        }
        double lo, hi;
        quant_obs_range(ob, q->o->method, q->o->percentile, 255, &lo, &hi);
        nnfx_dtype dt = q->o->activations == NNFX_I8 ? NNFX_I8 : NNFX_U8;
        float scale;
        int32_t zp;
        quant_affine(lo, hi, dt, &scale, &zp);
        if (at)
            nnfx_inserting_before(q->g, at);
        else
            nnfx_inserting_at_end(q->g);
        snprintf(want, sizeof want, "%s_scale", sn);
        s = param_node(q, want, scalar_of(NNFX_F32, scale, q->err));
        snprintf(want, sizeof want, "%s_zero_point", sn);
        z = s ? param_node(q, want, scalar_of(dt, zp, q->err)) : NULL;
        if (!z) return NULL;
    }
    if (at)
        nnfx_inserting_before(q->g, at);
    else
        nnfx_inserting_at_end(q->g);
    nnfx_arg args[3] = {nnfx_arg_node(src), nnfx_arg_node(s), nnfx_arg_node(z)};
    nnfx_node *qn = nnfx_graph_call_op(q->g, NNFX_OP_QUANTIZE_LINEAR, 3, args, 0, NULL, q->err);
    if (!qn) return NULL;
    snprintf(want, sizeof want, "%s_quantized", sn);
    if (nnfx_node_set_name(qn, want, q->err)) return NULL;
    args[0] = nnfx_arg_node(qn);
    dq = nnfx_graph_call_op(q->g, NNFX_OP_DEQUANTIZE_LINEAR, 3, args, 0, NULL, q->err);
    if (!dq) return NULL;
    snprintf(want, sizeof want, "%s_dequantized", sn);
    if (nnfx_node_set_name(dq, want, q->err)) return NULL;
    if (nnfx_replace_all_uses_with(src, dq, q->all_ops ? not_q : not_q_nor_output, qn) < 0) {
        nnfx_error_set(q->err, NNFX_ERR_GRAPH, "quantize: rewiring the users of %s failed", sn);
        return NULL;
    }
    if (!nnfx_value_map_put(q->qdq, src, dq)) {
        nnfx_error_set(q->err, NNFX_ERR_NOMEM, "quantize: out of memory");
        return NULL;
    }
    q->pairs++;
    return dq;
}

/* Symmetric int8 quantization of float weight w along axis (per tensor
 * when axis < 0): *wq int8 of w's shape, *ws float scales ([C] or scalar). */
static nnfx_status quant_weight(const nnfx_tensor *w, int axis, int qmax, nnfx_tensor **wq, nnfx_tensor **ws,
                                nnfx_error *err) {
    int64_t outer = 1, ch = 1, inner = nnfx_tensor_numel(w);
    if (axis >= 0) {
        outer = nnfx_shape_numel(axis, w->shape);
        ch = w->shape[axis];
        inner = nnfx_shape_numel(w->rank - axis - 1, w->shape + axis + 1);
    }
    *wq = nnfx_tensor_new(NNFX_I8, w->rank, w->shape, err);
    *ws = axis >= 0 ? nnfx_tensor_new(NNFX_F32, 1, &ch, err) : nnfx_tensor_new(NNFX_F32, 0, NULL, err);
    if (!*wq || !*ws) return err ? err->status : NNFX_ERR_NOMEM;
    const float *x = w->data;
    float *sc = (*ws)->data;
    int8_t *y = (*wq)->data;
    for (int64_t c = 0; c < ch; c++) {
        double amax = 0;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                float v = x[(o * ch + c) * inner + i];
                if (isfinite(v) && fabs(v) > amax) amax = fabs(v);
            }
        sc[c] = amax > 0 ? (float)(amax / qmax) : 1.0f;
        if (!(sc[c] > 0)) sc[c] = 1.0f; /* underflow of a tiny channel */
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                int64_t k = (o * ch + c) * inner + i;
                y[k] = (int8_t)ir_quant_one(x[k], sc[c], 0, -qmax, qmax);
            }
    }
    return NNFX_OK;
}

/* The parameter tensor read by argument i of n (a get_attr), or NULL. */
static nnfx_tensor *param_arg(const qctx *q, const nnfx_node *n, int i) {
    const nnfx_node *a = i < nnfx_node_num_args(n) ? nnfx_node_arg_node(n, i) : NULL;
    if (!a || nnfx_node_opcode(a) != NNFX_GET_ATTR) return NULL;
    nnfx_tensor *t = nnfx_graph_param(q->g, nnfx_node_target(a));
    return t && t->dtype == NNFX_F32 ? t : NULL;
}

/* DQ(param) node: a new parameter for the quantized tensor, its scale and
 * zero point (zp NULL: none), read through a DequantizeLinear on `axis`. */
static nnfx_node *dq_param(qctx *q, const char *base, nnfx_tensor *data, nnfx_tensor *scale, nnfx_tensor *zp,
                           int axis) {
    char want[256];
    snprintf(want, sizeof want, "%s_quantized", base);
    nnfx_node *d = param_node(q, want, data);
    snprintf(want, sizeof want, "%s_scale", base);
    nnfx_node *s = d ? param_node(q, want, scale) : (nnfx_tensor_release(scale), NULL);
    snprintf(want, sizeof want, "%s_zero_point", base);
    nnfx_node *z = zp && s ? param_node(q, want, zp) : (nnfx_tensor_release(zp), NULL);
    if (!s || (zp && !z)) return NULL;
    nnfx_arg args[3] = {nnfx_arg_node(d), nnfx_arg_node(s), z ? nnfx_arg_node(z) : nnfx_arg_none()};
    nnfx_attr ax = nnfx_attr_int("axis", axis);
    bool per_axis = scale->rank == 1;
    nnfx_node *dq = nnfx_graph_call_op(q->g, NNFX_OP_DEQUANTIZE_LINEAR, z ? 3 : 2, args, per_axis ? 1 : 0, &ax, q->err);
    snprintf(want, sizeof want, "%s_dequantized", base);
    if (dq && nnfx_node_set_name(dq, want, q->err)) return NULL;
    return dq;
}

/* Why layer n cannot be quantized ("" when it can); *axis: the weight's
 * output-channel axis. */
static const char *eligible(const qctx *q, const nnfx_node *n, int *axis) {
    nnfx_op op = nnfx_node_op(n);
    const nnfx_node *x = nnfx_node_arg_node(n, 0);
    if (!x || nnfx_node_meta_c(x, 0)->dtype != NNFX_F32) return "its input is not a float32 value";
    nnfx_tensor *w = param_arg(q, n, 1);
    if (!w) return "its weight is not a float32 parameter";
    if (op == NNFX_OP_CONV) {
        if (w->rank < 3) return "conv weight of rank < 3";
        *axis = 0;
    } else if (op == NNFX_OP_GEMM) {
        if (w->rank != 2) return "gemm weight is not 2-D";
        *axis = nnfx_node_attr_int(n, "transB", 0) ? 0 : 1;
    } else {
        if (w->rank != 2) return "matmul weight is not 2-D";
        *axis = 1;
    }
    if (nnfx_tensor_numel(w) == 0) return "its weight has no elements";
    return "";
}

static bool matches_exclude(const qctx *q, const nnfx_node *n) {
    for (int i = 0; i < q->o->nexclude; i++) {
        const char *e = q->o->exclude[i];
        if (!e) continue;
        if (strcmp(e, nnfx_node_name(n)) == 0) return true;
        nnfx_op op = nnfx_op_find(e);
        if (op != NNFX_OP_NONE && op == nnfx_node_op(n)) return true;
    }
    return false;
}

static bool is_layer(const nnfx_node *n) {
    return nnfx_node_is_op(n, NNFX_OP_CONV) || nnfx_node_is_op(n, NNFX_OP_GEMM) || nnfx_node_is_op(n, NNFX_OP_MATMUL);
}

/* NNFX_ERR_PARSE naming the parameter when float tensor t (argument i of
 * layer n: "weight" or "bias") holds a NaN or an infinity: no such value
 * has an int8/int32 form (casting one is undefined behaviour). */
static nnfx_status check_finite(qctx *q, const nnfx_node *n, int i, const nnfx_tensor *t, const char *role) {
    const float *v = t ? t->data : NULL;
    int64_t numel = t ? nnfx_tensor_numel(t) : 0;
    for (int64_t k = 0; k < numel; k++)
        if (!isfinite(v[k]))
            return nnfx_error_set(q->err, NNFX_ERR_PARSE,
                                  "quantize: parameter '%s' (the %s of %s) holds %s at index %lld: a value that is not "
                                  "finite cannot be quantized",
                                  nnfx_node_target(nnfx_node_arg_node(n, i)), role, nnfx_node_name(n),
                                  isnan(v[k]) ? "NaN"
                                  : v[k] > 0  ? "inf"
                                              : "-inf",
                                  (long long)k);
    return NNFX_OK;
}

/* Quantizes layer n (eligible); sets *why when it must stay float and
 * *bias_saturated to the bias channels clamped to the int32 range. */
static nnfx_status quantize_layer(qctx *q, nnfx_node *n, int axis, const char **why, int *bias_saturated) {
    nnfx_status fs = check_finite(q, n, 1, param_arg(q, n, 1), "weight");
    if (!fs) fs = check_finite(q, n, 2, param_arg(q, n, 2), "bias");
    if (fs) return fs;
    nnfx_node *x = nnfx_node_arg_node(n, 0);
    nnfx_node *xdq = act_qdq(q, x, why);
    if (!xdq) return q->err && q->err->status ? q->err->status : NNFX_OK;
    const nnfx_node *xs_node = nnfx_node_arg_node(xdq, 1);
    const nnfx_tensor *xs_t = xs_node ? nnfx_graph_param(q->g, nnfx_node_target(xs_node)) : NULL;
    float xs = xs_t && xs_t->dtype == NNFX_F32 && nnfx_tensor_numel(xs_t) == 1 ? ((const float *)xs_t->data)[0] : 0;

    nnfx_inserting_before(q->g, n);
    nnfx_tensor *w = param_arg(q, n, 1), *wq = NULL, *ws = NULL;
    nnfx_status s = quant_weight(w, q->o->per_tensor ? -1 : axis, q->o->reduce_range ? 63 : 127, &wq, &ws, q->err);
    if (s) {
        nnfx_tensor_release(wq), nnfx_tensor_release(ws);
        return s;
    }
    int64_t nch = nnfx_tensor_numel(ws), ch = w->shape[axis];
    nnfx_tensor *wz = nnfx_tensor_new(NNFX_I8, ws->rank, ws->shape, q->err);
    const char *wname = nnfx_node_target(nnfx_node_arg_node(n, 1));
    nnfx_tensor *wsr = nnfx_tensor_retain(ws);
    nnfx_node *wdq = wz ? dq_param(q, wname, wq, ws, wz, axis) : NULL;
    if (!wdq) {
        if (!wz) nnfx_tensor_release(wq), nnfx_tensor_release(ws); /* dq_param owns them once called */
        nnfx_tensor_release(wsr);
        return q->err && q->err->status ? q->err->status : NNFX_ERR_NOMEM;
    }
    /* int32 bias with scale x_scale * w_scale[c] (per channel, axis 0) */
    nnfx_tensor *b = param_arg(q, n, 2);
    nnfx_node *bdq = NULL;
    if (b && b->rank == 1 && b->shape[0] == ch && xs > 0) {
        nnfx_tensor *bq = nnfx_tensor_new(NNFX_I32, 1, &ch, q->err), *bs = nnfx_tensor_new(NNFX_F32, 1, &ch, q->err);
        if (!bq || !bs) {
            nnfx_tensor_release(bq), nnfx_tensor_release(bs), nnfx_tensor_release(wsr);
            return q->err ? q->err->status : NNFX_ERR_NOMEM;
        }
        for (int64_t c = 0; c < ch; c++) {
            float sc = xs * ((const float *)wsr->data)[nch == 1 ? 0 : c];
            if (!(sc > 0)) sc = 1.0f; /* an underflowed scale: the int value goes with the scale written */
            /* b is finite (check_finite) and sc > 0: v is a number, +-inf at worst */
            double v = rint((double)((const float *)b->data)[c] / sc);
            ((float *)bs->data)[c] = sc;
            bool sat = v > 2147483647.0 || v < -2147483647.0;
            *bias_saturated += sat; /* clamped: the quantized layer would add another bias */
            ((int32_t *)bq->data)[c] = (int32_t)(v > 2147483647.0    ? 2147483647.0
                                                 : v < -2147483647.0 ? -2147483647.0
                                                                     : v);
        }
        bdq = dq_param(q, nnfx_node_target(nnfx_node_arg_node(n, 2)), bq, bs, NULL, 0);
        if (!bdq) {
            nnfx_tensor_release(wsr);
            return q->err && q->err->status ? q->err->status : NNFX_ERR_NOMEM;
        }
    }
    nnfx_tensor_release(wsr);
    if ((s = nnfx_node_set_arg(n, 1, nnfx_arg_node(wdq), q->err))) return s;
    if (bdq && (s = nnfx_node_set_arg(n, 2, nnfx_arg_node(bdq), q->err))) return s;
    /* the output (after a Relu that is its only user) */
    nnfx_node *t = n;
    if (nnfx_node_num_users(n) == 1 && nnfx_node_is_op(nnfx_node_user(n, 0), NNFX_OP_RELU)) t = nnfx_node_user(n, 0);
    bool used = false;
    for (int u = 0; u < nnfx_node_num_users(t); u++)
        if (q->all_ops || nnfx_node_opcode(nnfx_node_user(t, u)) != NNFX_OUTPUT) used = true;
    const char *why2 = NULL;
    if (used && !act_qdq(q, t, &why2) && q->err && q->err->status) return q->err->status;
    return NNFX_OK;
}

/* ---- every other op (int8 activations: TFLite's convention) ------------ */

/* How quantize_ops treats an op. */
typedef enum qkind {
    QK_NONE,
    QK_MOVE,   /* moves or selects its input's values: output keeps the input's scale and zero point */
    QK_ONE,    /* one quantized input (argument 0), output requantized: pooling, means, Softmax */
    QK_MANY,   /* every float argument quantized: Concat, Add, Sub, Mul */
    QK_REGION, /* element-wise: part of a single-input region (a lookup table) */
} qkind;

static bool is_elementwise_float(const nnfx_node *n) {
    if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION || nnfx_node_meta_c(n, 0)->dtype != NNFX_F32) return false;
    nnfx_op op = nnfx_node_op(n);
    if (op == NNFX_OP_ADD || op == NNFX_OP_SUB || op == NNFX_OP_MUL || op == NNFX_OP_DIV) return true;
    return (nnfx_op_flags(op) & NNFX_F_ELEMENTWISE) != 0;
}

static qkind op_kind(const nnfx_node *n) {
    if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION || nnfx_node_meta_c(n, 0)->dtype != NNFX_F32) return QK_NONE;
    switch (nnfx_node_op(n)) {
    case NNFX_OP_RESHAPE:
    case NNFX_OP_FLATTEN:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE:
    case NNFX_OP_TRANSPOSE:
    case NNFX_OP_MAX_POOL:
    case NNFX_OP_GLOBAL_MAX_POOL: return QK_MOVE;
    case NNFX_OP_AVERAGE_POOL:
    case NNFX_OP_GLOBAL_AVERAGE_POOL:
    case NNFX_OP_REDUCE_MEAN:
    case NNFX_OP_SOFTMAX: return QK_ONE;
    case NNFX_OP_CONCAT: return QK_MANY;
    default: return is_elementwise_float(n) ? QK_REGION : QK_NONE;
    }
}

/* Whether argument i of n is a float constant of one element (a literal or
 * a scalar parameter). */
static bool scalar_const_arg(const qctx *q, const nnfx_node *n, int i) {
    nnfx_arg a = nnfx_node_arg(n, i);
    if (a.kind != NNFX_ARG_NODE) return true;
    const nnfx_tensor *t = param_arg(q, n, i);
    return t && nnfx_tensor_numel(t) == 1;
}

/* The one run-time value an element-wise region ending at n reads (every
 * node between it and n element-wise, read by one user only, other
 * arguments scalar constants), or NULL when n reads more than one. n itself
 * must be element-wise. */
static nnfx_node *region_root(const qctx *q, nnfx_node *n, int depth) {
    nnfx_node *root = NULL;
    for (int i = 0; i < nnfx_node_num_args(n); i++) {
        nnfx_node *a = nnfx_node_arg_node(n, i);
        if (!a) continue; /* a literal or an absent argument */
        if (nnfx_node_opcode(a) == NNFX_GET_ATTR) {
            if (scalar_const_arg(q, n, i)) continue;
            return NULL; /* a tensor operand: not a table */
        }
        nnfx_node *r = a;
        if (depth < 16 && nnfx_node_num_users(a) == 1 && is_elementwise_float(a)) {
            nnfx_node *inner = region_root(q, a, depth + 1);
            if (inner) r = inner;
        }
        if (root && r != root) return NULL;
        root = r;
    }
    return root;
}

/* Marks the nodes of the region from root to n (as region_root walks it). */
static void region_mark(const qctx *q, nnfx_node *n, nnfx_node *root, nnfx_value_map *done) {
    nnfx_value_map_put(done, n, n);
    for (int i = 0; i < nnfx_node_num_args(n); i++) {
        nnfx_node *a = nnfx_node_arg_node(n, i);
        if (a && a != root && nnfx_node_opcode(a) != NNFX_GET_ATTR && nnfx_node_num_users(a) == 1 &&
            is_elementwise_float(a))
            region_mark(q, a, root, done);
    }
}

/* DQ of float parameter argument i of n quantized per tensor (asymmetric
 * int8 over its own range), set as n's argument i. */
static nnfx_status const_qdq(qctx *q, nnfx_node *n, int i) {
    const nnfx_tensor *t = param_arg(q, n, i);
    double lo = 0, hi = 0;
    for (int64_t k = 0; k < nnfx_tensor_numel(t); k++) {
        float v = ((const float *)t->data)[k];
        if (isfinite(v)) lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    float scale;
    int32_t zp;
    quant_affine(lo, hi, NNFX_I8, &scale, &zp);
    nnfx_tensor *d = nnfx_tensor_new(NNFX_I8, t->rank, t->shape, q->err);
    nnfx_tensor *st = scalar_of(NNFX_F32, scale, q->err), *zt = scalar_of(NNFX_I8, zp, q->err);
    if (!d || !st || !zt) {
        nnfx_tensor_release(d), nnfx_tensor_release(st), nnfx_tensor_release(zt);
        return q->err ? q->err->status : NNFX_ERR_NOMEM;
    }
    for (int64_t k = 0; k < nnfx_tensor_numel(t); k++)
        ((int8_t *)d->data)[k] = (int8_t)ir_quant_one(((const float *)t->data)[k], scale, zp, -128, 127);
    nnfx_inserting_before(q->g, n);
    nnfx_node *dq = dq_param(q, nnfx_node_target(nnfx_node_arg_node(n, i)), d, st, zt, 0);
    if (!dq) return q->err && q->err->status ? q->err->status : NNFX_ERR_NOMEM;
    return nnfx_node_set_arg(n, i, nnfx_arg_node(dq), q->err);
}

/* Quantizes float argument i of n: a computed value through its Q/DQ, a
 * parameter as an int8 constant. *ok false when it cannot be. */
static nnfx_status quant_input(qctx *q, nnfx_node *n, int i, bool *ok) {
    nnfx_node *a = nnfx_node_arg_node(n, i);
    const char *why = NULL;
    if (!a || nnfx_node_meta_c(a, 0)->dtype != NNFX_F32) return NNFX_OK;
    if (nnfx_node_opcode(a) == NNFX_GET_ATTR) return param_arg(q, n, i) ? const_qdq(q, n, i) : NNFX_OK;
    if (!act_qdq(q, a, &why)) {
        *ok = false;
        return q->err && q->err->status ? q->err->status : NNFX_OK;
    }
    return NNFX_OK;
}

/* With int8 activations, every op of a keyword/vision CNN gets Q/DQ around
 * it (TFLite's int8 convention; the graph stays DQ -> float op -> Q, which
 * any QDQ runtime runs): element-wise regions with one run-time input
 * (Sigmoid, Tanh, HardSwish, x * sigmoid(x), an erf GELU...) are quantized
 * at their input and output only (the plan runs them as a 256-entry
 * table), binary Add/Sub/Mul and Concat at every input, pooling, means and
 * Softmax at input and output, and Reshape-like ops and max pooling keep
 * their input's parameters. *nops counts the ops quantized. */
static nnfx_status quantize_ops(qctx *q, int *nops) {
    int cap = 64, nn = 0;
    nnfx_node **list = malloc(sizeof *list * (size_t)cap);
    for (nnfx_node *n = nnfx_graph_first(q->g); n && list; n = nnfx_node_next(n)) {
        if (nn == cap) {
            nnfx_node **l2 = realloc(list, sizeof *list * (size_t)(cap *= 2));
            if (!l2) free(list);
            list = l2;
            if (!list) break;
        }
        list[nn++] = n;
    }
    nnfx_value_map *done = nnfx_value_map_new();
    if (!list || !done) {
        free(list);
        nnfx_value_map_free(done);
        return nnfx_error_set(q->err, NNFX_ERR_NOMEM, "quantize: out of memory");
    }
    nnfx_status s = NNFX_OK;
    /* last to first: a region's last node is met before the nodes it absorbs */
    for (int k = nn - 1; k >= 0 && !s; k--) {
        nnfx_node *n = list[k];
        if (nnfx_value_map_get(done, n) || matches_exclude(q, n)) continue;
        /* a Relu quantize_layer fused into its layer (quantized after it) */
        nnfx_node *a0 = nnfx_node_arg_node(n, 0);
        if (nnfx_node_is_op(n, NNFX_OP_RELU) && a0 && is_layer(a0) && nnfx_node_num_users(a0) == 1 &&
            nnfx_value_map_get(q->qdq, n))
            continue;
        qkind kind = op_kind(n);
        if (kind == QK_NONE) continue;
        nnfx_node *root = kind == QK_REGION ? region_root(q, n, 0) : NULL;
        if (kind == QK_REGION && !root) {
            nnfx_op op = nnfx_node_op(n);
            if (op != NNFX_OP_ADD && op != NNFX_OP_SUB && op != NNFX_OP_MUL) continue;
            kind = QK_MANY; /* a binary op of two run-time values: requantized */
        }
        if (kind == QK_REGION &&
            (nnfx_node_opcode(root) == NNFX_GET_ATTR || nnfx_node_meta_c(root, 0)->dtype != NNFX_F32))
            continue;
        bool ok = true;
        nnfx_node *like = NULL;
        const char *why = NULL;
        if (kind == QK_REGION) {
            region_mark(q, n, root, done);
            ok = act_qdq(q, root, &why) != NULL;
        } else if (kind == QK_MANY) {
            for (int i = 0; i < nnfx_node_num_args(n) && !s && ok; i++)
                s = quant_input(q, n, i, &ok);
        } else {
            s = quant_input(q, n, 0, &ok);
            if (!s && ok && kind == QK_MOVE) like = nnfx_node_arg_node(n, 0);
        }
        if (q->err && q->err->status) s = q->err->status;
        if (s || !ok) continue;
        if (like && !nnfx_node_is_op(like, NNFX_OP_DEQUANTIZE_LINEAR)) like = NULL;
        if (!act_qdq_like(q, n, like, &why)) {
            if (q->err && q->err->status) s = q->err->status;
            continue;
        }
        (*nops)++;
    }
    free(list);
    nnfx_value_map_free(done);
    return s;
}

/* Graph outputs read through a Q/DQ pair keep their names: the
 * DequantizeLinear takes the float value's name, which becomes
 * NAME_float. */
static nnfx_status keep_output_names(qctx *q) {
    nnfx_node *out = nnfx_graph_output_node(q->g);
    for (int i = 0; out && i < nnfx_node_num_args(out); i++) {
        nnfx_node *dq = nnfx_node_arg_node(out, i);
        nnfx_node *qn = dq && nnfx_node_is_op(dq, NNFX_OP_DEQUANTIZE_LINEAR) ? nnfx_node_arg_node(dq, 0) : NULL;
        nnfx_node *src = qn && nnfx_node_is_op(qn, NNFX_OP_QUANTIZE_LINEAR) ? nnfx_node_arg_node(qn, 0) : NULL;
        if (!src || nnfx_value_map_get(q->qdq, src) != dq) continue;
        char name[256], fl[280];
        snprintf(name, sizeof name, "%s", nnfx_node_name(src));
        snprintf(fl, sizeof fl, "%s_float", name);
        nnfx_status s = nnfx_node_set_name(src, fl, q->err);
        if (!s) s = nnfx_node_set_name(dq, name, q->err);
        if (s) return s;
    }
    return NNFX_OK;
}

nnfx_status quant_insert_qdq(nnfx_graph *g, const nnfx_quant_calib *c, const nnfx_quant_options *o,
                             nnfx_quant_report *report, nnfx_error *err) {
    qctx q = {g, c, o, nnfx_value_map_new(), 0, o->activations == NNFX_I8, err};
    if (!q.qdq) return nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
    if (o->method != NNFX_QUANT_MINMAX && !c->have_hist) {
        nnfx_value_map_free(q.qdq);
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                              "quantize: this calibration kept min/max only; calibrate with the method to use");
    }
    /* the layers, in graph order */
    int nl = 0, cap = 16;
    nnfx_node **layers = malloc(sizeof *layers * (size_t)cap);
    for (nnfx_node *n = nnfx_graph_first(g); n && layers; n = nnfx_node_next(n)) {
        if (!is_layer(n)) continue;
        if (nl == cap) {
            nnfx_node **nlay = realloc(layers, sizeof *layers * (size_t)(cap *= 2));
            if (!nlay) free(layers);
            layers = nlay;
            if (!layers) break;
        }
        layers[nl++] = n;
    }
    nnfx_status s = NNFX_OK;
    if (report) {
        report->layers = calloc((size_t)nl + 1, sizeof *report->layers);
        report->nlayers = 0;
    }
    if (!layers || (report && !report->layers)) {
        free(layers);
        nnfx_value_map_free(q.qdq);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
    }
    /* eligibility is decided on the float graph, before any rewrite */
    int first = -1, last = -1;
    const char **whys = calloc((size_t)nl + 1, sizeof *whys);
    int *axes = calloc((size_t)nl + 1, sizeof *axes);
    if (!whys || !axes) {
        free(whys), free(axes), free(layers);
        nnfx_value_map_free(q.qdq);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "quantize: out of memory");
    }
    for (int i = 0; i < nl; i++) {
        whys[i] = eligible(&q, layers[i], &axes[i]);
        if (whys[i][0]) continue;
        if (first < 0) first = i;
        last = i;
    }
    for (int i = 0; i < nl && !s; i++) {
        nnfx_node *n = layers[i];
        int axis = axes[i];
        const char *why = whys[i];
        if (!why[0] && matches_exclude(&q, n)) why = "excluded (--exclude)";
        if (!why[0] && o->keep_first_last_float && (i == first || i == last))
            why = i == first ? "kept float (first layer)" : "kept float (last layer)";
        int nsat = 0;
        if (!why[0]) s = quantize_layer(&q, n, axis, &why, &nsat);
        if (report) {
            nnfx_quant_layer *L = &report->layers[report->nlayers++];
            snprintf(L->node, sizeof L->node, "%s", nnfx_node_name(n));
            snprintf(L->op, sizeof L->op, "%s", nnfx_op_onnx_type(nnfx_node_op(n)));
            L->quantized = !s && !why[0];
            snprintf(L->why, sizeof L->why, "%s", why);
            L->sqnr_db = NAN;
            L->bias_saturated = nsat;
            if (L->quantized) report->quantized++;
        }
    }
    int nops = 0;
    if (!s && q.all_ops) s = quantize_ops(&q, &nops);
    if (!s && q.all_ops) s = keep_output_names(&q);
    if (report) report->qdq_pairs = q.pairs, report->ops = nops;
    free(whys), free(axes), free(layers);
    nnfx_value_map_free(q.qdq);
    if (!s) nnfx_eliminate_dead_code(g);
    if (!s) {
        nnfx_graph_drop_unused_params(g);
        s = nnfx_graph_lint(g, err);
    }
    if (!s) s = nnfx_graph_infer_shapes(g, err);
    return s;
}
