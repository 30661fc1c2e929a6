/* act_fast.c — the activation step of the compiled plan's fused epilogues
 * (conv_fast.c). Each activation has one meaning: its scalar definition in
 * src/rt/nnfx_rt_scalar.h, which the interpreter's kernels
 * (unary.c) and the generated C also use. Relu, Clip, LeakyRelu and
 * HardSwish call that definition here as it is (inline, so the loops
 * vectorise). Sigmoid, x * sigmoid(x) and tanh call libm in their meaning,
 * which does not vectorise, so they have two faster equivalents of it:
 * the AVX2 row in act_x86.c and the portable polynomial below. Both are
 * checked against nnfx_rt_sigmoid / nnfx_rt_silu by tests/test_act.c
 * over the whole float range (error bounds in fast_int.h). */
#if defined(__GNUC__) && !defined(__clang__)
/* compares may be if-converted (no FP exceptions are observed), so the
 * clamps vectorise; results are unchanged. */
#pragma GCC optimize("no-trapping-math")
#endif
#include <stdint.h>
#include <string.h>

#include "rt/nnfx_rt_kernels.h"
#include "rt/nnfx_rt_scalar.h"
#include "core/core_int.h"
#include "exec/fast_int.h"
#include "exec/kernels/act_x86.h"
#include "exec/kernels/kernels_int.h"
#include "ir/op_table.h"

const char *fx_act_name(fx_act a) {
    switch (a) {
    case FX_ACT_RELU: return "relu";
    case FX_ACT_CLIP: return "clip";
    case FX_ACT_LEAKY: return "leaky_relu";
    case FX_ACT_SIGMOID: return "sigmoid";
    case FX_ACT_SILU: return "silu";
    case FX_ACT_HARDSWISH: return "hard_swish";
    case FX_ACT_TANH: return "tanh";
    case FX_ACT_HARDSIGMOID: return "hard_sigmoid";
    case FX_ACT_XHARDSIGMOID: return "x * hard_sigmoid";
    default: return "none";
    }
}

/* exp(x) for x in [-87, 87] (callers clamp): 2^k * p(r), r = x - k ln2,
 * |r| <= ln2/2, with a degree-6 polynomial; branch-free so loops over it
 * vectorise. The same steps as sig8 in act_x86.c. */
static inline float fast_exp(float x) {
    /* round to nearest through the float mantissa (|x log2e| < 2^22) */
    float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - k * 0.693145751953125f;
    r = r - k * 1.42860682030941723e-06f;
    float p = 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t ki = (int32_t)k;
    uint32_t bits = (uint32_t)(ki + 127) << 23;
    float s;
    memcpy(&s, &bits, sizeof s);
    return p * s;
}

/* 1 / d for d in [1, 2^126) without a divide (divides dominate the
 * sigmoid loops otherwise): a bit-trick first guess refined by three
 * Newton steps. */
static inline float fast_recip(float d) {
    uint32_t bits;
    memcpy(&bits, &d, sizeof bits);
    bits = 0x7EF311C3u - bits;
    float r;
    memcpy(&r, &bits, sizeof r);
    r = r * (2.0f - d * r);
    r = r * (2.0f - d * r);
    r = r * (2.0f - d * r);
    return r;
}

/* Branch-free (selects only) so the loops over it vectorise. */
static inline float sigmoid_fast(float x) {
    float t = -x;
    t = t > -87.0f ? t : -87.0f; /* NaN becomes -87 here, and NaN again below */
    t = t < 87.0f ? t : 87.0f;   /* keeps 1 + exp(t) < 2^126 for fast_recip */
    float q = fast_recip(1.0f + fast_exp(t));
    q = x > -87.0f ? q : 0.0f; /* the meaning is below 2^-125 there */
    return x == x ? q : x;
}

float fx_sigmoid_fast(float x) { return sigmoid_fast(x); }

/* tanh by the rational function of tanh8 in act_x86.c (Eigen's float
 * coefficients); branch-free (selects only). */
static inline float tanh_fast(float x) {
    float c = x > -7.99881172180175781f ? x : -7.99881172180175781f;
    c = c < 7.99881172180175781f ? c : 7.99881172180175781f;
    float x2 = c * c;
    float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
    p = x2 * p + -8.60467152213735e-11f;
    p = x2 * p + 5.12229709037114e-08f;
    p = x2 * p + 1.48572235717979e-05f;
    p = x2 * p + 6.37261928875436e-04f;
    p = x2 * p + 4.89352455891786e-03f;
    p = c * p;
    float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
    q = x2 * q + 2.26843463243900e-03f;
    q = x2 * q + 4.89352518554385e-03f;
    float y = p / q;
    float ax = x < 0 ? -x : x;
    return ax >= 0.0004f ? y : x; /* tiny or NaN: x */
}

float fx_tanh_fast(float x) { return tanh_fast(x); }

static inline CORE_ALWAYS_INLINE void fx_act_row_body(float *restrict y, int64_t n, fx_act act, float p0, float p1) {
    switch (act) {
    case FX_ACT_RELU:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_relu(y[i], 0, 0);
        break;
    case FX_ACT_CLIP:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_clip(y[i], p0, p1);
        break;
    case FX_ACT_LEAKY:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_leaky_relu(y[i], p0, 0);
        break;
    case FX_ACT_HARDSWISH:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_hard_swish(y[i], 0, 0);
        break;
    case FX_ACT_HARDSIGMOID:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_hard_sigmoid(y[i], p0, p1);
        break;
    case FX_ACT_XHARDSIGMOID:
        for (int64_t i = 0; i < n; i++)
            y[i] = nnfx_rt_x_hard_sigmoid(y[i], p0, p1);
        break;
    case FX_ACT_SIGMOID:
        if (!fx_sigmoid_row(y, n, false))
            for (int64_t i = 0; i < n; i++)
                y[i] = sigmoid_fast(y[i]);
        break;
    case FX_ACT_SILU:
        if (!fx_sigmoid_row(y, n, true))
            for (int64_t i = 0; i < n; i++)
                y[i] = y[i] * sigmoid_fast(y[i]);
        break;
    case FX_ACT_TANH:
        if (!fx_tanh_row(y, n))
            for (int64_t i = 0; i < n; i++)
                y[i] = tanh_fast(y[i]);
        break;
    default: break;
    }
}

CORE_ISA_VARIANTS(fx_act_row, (float *restrict y, int64_t n, fx_act act, float p0, float p1), (y, n, act, p0, p1))

void fx_act_row(float *restrict y, int64_t n, fx_act act, float p0, float p1) {
    CORE_ISA_PICK(fx_act_row)(y, n, act, p0, p1);
}

/* y = f(x) over float32 in[0] of out[0]'s element count, in chunks copied
 * then activated in place (the chunk stays in cache). */
static nnfx_status act_step(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            fx_act act, nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0] || in[0]->dtype != NNFX_F32 || out[0]->dtype != NNFX_F32 ||
        nnfx_tensor_numel(in[0]) != nnfx_tensor_numel(out[0]))
        return nnfx_error_set(err, NNFX_ERR_RUNTIME, "node '%s': %s step needs float32 x of y's size",
                              nnfx_node_name(n), fx_act_name(act));
    const float *x = in[0]->data;
    float *y = out[0]->data;
    const int64_t total = nnfx_tensor_numel(out[0]), chunk = 4096;
    for (int64_t i = 0; i < total; i += chunk) {
        int64_t m = total - i < chunk ? total - i : chunk;
        if (y + i != x + i) memcpy(y + i, x + i, (size_t)m * sizeof *y);
        fx_act_row(y + i, m, act, 0, 0);
    }
    return NNFX_OK;
}

nnfx_status kern_sigmoid_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    if (nin >= 1 && in[0] && in[0]->dtype != NNFX_F32)
        return ir_op_info(NNFX_OP_SIGMOID)->kernel(n, nin, in, nout, out, err);
    return act_step(n, nin, in, nout, out, FX_ACT_SIGMOID, err);
}

nnfx_status kern_silu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    return act_step(n, nin, in, nout, out, FX_ACT_SILU, err);
}

nnfx_status kern_dq_silu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    const nnfx_tensor *q = nin > 0 ? in[0] : NULL, *s = nin > 1 ? in[1] : NULL, *z = nin > 2 ? in[2] : NULL;
    if (!q || (q->dtype != NNFX_U8 && q->dtype != NNFX_I8) || !s || s->dtype != NNFX_F32 || nnfx_tensor_numel(s) != 1 ||
        (z && (z->dtype != q->dtype || nnfx_tensor_numel(z) != 1)) || nout < 1 || !out[0] ||
        out[0]->dtype != NNFX_F32 || nnfx_tensor_numel(out[0]) != nnfx_tensor_numel(q))
        return nnfx_error_set(err, NNFX_ERR_RUNTIME,
                              "node '%s': x * sigmoid(x) of a dequantized value needs int8 x, a scalar scale and "
                              "zero point, float32 y of x's size",
                              nnfx_node_name(n));
    bool sg = q->dtype == NNFX_I8;
    int32_t zp = !z ? 0 : sg ? *(const int8_t *)z->data : *(const uint8_t *)z->data;
    float tab[256];
    for (int v = 0; v < 256; v++) /* entry of the byte v: DequantizeLinear's value, then the row's SiLU */
        tab[v] = nnfx_rt_dequantize(sg ? (int8_t)(uint8_t)v : v, zp, *(const float *)s->data);
    fx_act_row(tab, 256, FX_ACT_SILU, 0, 0);
    const uint8_t *x = q->data;
    float *y = out[0]->data;
    for (int64_t i = 0, total = nnfx_tensor_numel(q); i < total; i++)
        y[i] = tab[x[i]];
    return NNFX_OK;
}

/* erf(x) as x * P(x^2) / Q(x^2) on x clamped to [-4, 4] (the rational
 * function of Eigen's and XLA's float erf), clamped to [-1, 1]; NaN for
 * NaN. Branch-free (selects only), so the rows over it vectorise. */
static inline float erf_fast(float x) {
    float c = x > -4.0f ? x : -4.0f;
    c = c < 4.0f ? c : 4.0f;
    float x2 = c * c;
    float p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
    p = x2 * p + -2.10102402082508e-06f;
    p = x2 * p + -5.69250639462346e-05f;
    p = x2 * p + -7.34990630326855e-04f;
    p = x2 * p + -2.95459980854025e-03f;
    p = x2 * p + -1.60960333262415e-02f;
    p = c * p;
    float q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
    q = x2 * q + -1.68282697438203e-03f;
    q = x2 * q + -7.37332916720468e-03f;
    q = x2 * q + -1.42647390514189e-02f;
    float y = p / q;
    y = y < 1.0f ? y : 1.0f;
    y = y > -1.0f ? y : -1.0f;
    return x == x ? y : x;
}

float fx_erf_fast(float x) { return erf_fast(x); }

/* gelu false: y = erf(x); true: y = (x * (erf(x / c[0]) + c[1])) * c[2],
 * each operation rounded as the unfused graph's steps round it. */
static inline CORE_ALWAYS_INLINE void fx_erf_row_body(const float *restrict x, float *restrict y, int64_t n,
                                                      const float *c, bool gelu) {
    if (!gelu) {
        for (int64_t i = 0; i < n; i++)
            y[i] = erf_fast(x[i]);
        return;
    }
    const float c0 = c[0], c1 = c[1], c2 = c[2];
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = (v * (erf_fast(v / c0) + c1)) * c2;
    }
}

CORE_ISA_VARIANTS(fx_erf_row, (const float *restrict x, float *restrict y, int64_t n, const float *c, bool gelu),
                  (x, y, n, c, gelu))

void fx_erf_row(const float *x, float *y, int64_t n, const float *c, bool gelu) {
    const int64_t chunk = 4096;
    for (int64_t i = 0; i < n; i += chunk) { /* x and y may be the same buffer: in chunks through a copy */
        int64_t m = n - i < chunk ? n - i : chunk;
        if (x + i == y + i) {
            float t[4096];
            memcpy(t, x + i, (size_t)m * sizeof *t);
            CORE_ISA_PICK(fx_erf_row)(t, y + i, m, c, gelu);
        } else
            CORE_ISA_PICK(fx_erf_row)(x + i, y + i, m, c, gelu);
    }
}

nnfx_status kern_erf_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 1 || !in[0] || in[0]->dtype != NNFX_F32)
        return ir_op_info(NNFX_OP_ERF)->kernel(n, nin, in, nout, out, err);
    if (nout < 1 || !out[0] || out[0]->dtype != NNFX_F32 || nnfx_tensor_numel(in[0]) != nnfx_tensor_numel(out[0]))
        return nnfx_error_set(err, NNFX_ERR_RUNTIME, "node '%s': erf step needs float32 y of x's size",
                              nnfx_node_name(n));
    fx_erf_row(in[0]->data, out[0]->data, nnfx_tensor_numel(out[0]), NULL, false);
    return NNFX_OK;
}

nnfx_status kern_gelu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    float c[3] = {1.0f, 1.0f, 1.0f};
    bool ok = nin == 4 && in[0] && in[0]->dtype == NNFX_F32 && nout >= 1 && out[0] && out[0]->dtype == NNFX_F32 &&
              nnfx_tensor_numel(in[0]) == nnfx_tensor_numel(out[0]);
    for (int k = 1; ok && k < 4; k++) {
        if (!in[k]) continue; /* absent: 1 (an exact multiply) */
        ok = in[k]->dtype == NNFX_F32 && nnfx_tensor_numel(in[k]) == 1;
        if (ok) c[k - 1] = *(const float *)in[k]->data;
    }
    if (!ok)
        return nnfx_error_set(err, NNFX_ERR_RUNTIME,
                              "node '%s': GELU step needs float32 x of y's size and float32 scalar constants",
                              nnfx_node_name(n));
    fx_erf_row(in[0]->data, out[0]->data, nnfx_tensor_numel(out[0]), c, true);
    return NNFX_OK;
}

/* Softmax rows: nnfx_rt_softmax itself (the op's one meaning, its loops
 * written to vectorise; in place too), compiled here for each ISA. */
static inline CORE_ALWAYS_INLINE void fx_softmax_rows_body(const float *x, float *y, int64_t rows, int64_t n) {
    nnfx_rt_softmax(x, y, (long)rows, (long)n, 1, 0);
}

CORE_ISA_VARIANTS(fx_softmax_rows, (const float *x, float *y, int64_t rows, int64_t n), (x, y, rows, n))

void fx_softmax_rows(const float *x, float *y, int64_t rows, int64_t n) {
    if (rows > 0 && n > 0) CORE_ISA_PICK(fx_softmax_rows)(x, y, rows, n);
}

nnfx_status kern_softmax_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    const nnfx_tensor *x = nin >= 1 ? in[0] : NULL;
    int64_t a = ir_attr_int(n, "axis");
    if (!x || x->dtype != NNFX_F32 || x->rank < 1 || (a != -1 && a != x->rank - 1) || nout < 1 || !out[0] ||
        out[0]->dtype != NNFX_F32 || nnfx_tensor_numel(out[0]) != nnfx_tensor_numel(x))
        return ir_op_info(NNFX_OP_SOFTMAX)->kernel(n, nin, in, nout, out, err); /* its checks, messages */
    int64_t len = x->shape[x->rank - 1];
    fx_softmax_rows(x->data, out[0]->data, len ? nnfx_tensor_numel(x) / len : 0, len);
    return NNFX_OK;
}
