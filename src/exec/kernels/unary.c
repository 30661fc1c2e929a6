/* unary.c — element-wise one-input kernels (activations and math):
 * Relu, LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh, Elu, Clip, Erf,
 * Exp, Log, Sqrt, Neg, Abs, Reciprocal; plus Identity. float32 (Neg, Abs
 * and Relu also take every integer type but uint64, through the generated
 * C's nnfx_rt_iunary; Relu, Sigmoid, Tanh, Erf, Exp, Log, Sqrt, Neg, Abs and
 * Reciprocal float64 and float16, in double: kern_funary). */
#include <math.h>
#include <string.h>

#include "rt/nnfx_rt_scalar.h"
#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

typedef enum {
    U_RELU,
    U_LEAKY,
    U_SIGMOID,
    U_HSIG,
    U_HSWISH,
    U_TANH,
    U_ELU,
    U_ERF,
    U_EXP,
    U_LOG,
    U_SQRT,
    U_NEG,
    U_ABS,
    U_RECIP
} unary_kind;

/* The scalar meaning of each op is src/rt/nnfx_rt_scalar.h,
 * which the generated C copies too (one definition, two ways to run it). */
/* Each op's loop with its function inlined (a call through a pointer per
 * element took about 10 cycles: Relu over resnet50's last 100k values
 * cost a quarter of a millisecond); the same function, so the same
 * values. */
#define UNARY_LOOP(fn)                                                                                                 \
    for (int64_t i = 0; i < n; i++)                                                                                    \
        y[i] = fn(x[i], alpha, beta);                                                                                  \
    break

static void unary_f32(unary_kind k, const float *x, float *y, int64_t n, float alpha, float beta) {
    switch (k) {
    case U_RELU: UNARY_LOOP(nnfx_rt_relu);
    case U_LEAKY: UNARY_LOOP(nnfx_rt_leaky_relu);
    case U_SIGMOID: UNARY_LOOP(nnfx_rt_sigmoid);
    case U_HSIG: UNARY_LOOP(nnfx_rt_hard_sigmoid);
    case U_HSWISH: UNARY_LOOP(nnfx_rt_hard_swish);
    case U_TANH: UNARY_LOOP(nnfx_rt_tanh);
    case U_ELU: UNARY_LOOP(nnfx_rt_elu);
    case U_ERF: UNARY_LOOP(nnfx_rt_erf);
    case U_EXP: UNARY_LOOP(nnfx_rt_exp);
    case U_LOG: UNARY_LOOP(nnfx_rt_log);
    case U_SQRT: UNARY_LOOP(nnfx_rt_sqrt);
    case U_NEG: UNARY_LOOP(nnfx_rt_neg);
    case U_ABS: UNARY_LOOP(nnfx_rt_abs);
    case U_RECIP: UNARY_LOOP(nnfx_rt_reciprocal);
    }
}
#undef UNARY_LOOP

static nnfx_status unary(unary_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                         nnfx_tensor *const *out, nnfx_error *err, float alpha, float beta) {
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "unary op needs 1 input, 1 output");
    const nnfx_tensor *x = in[0];
    nnfx_status s;
    /* integers: Neg, Abs and Relu wrap (nnfx_rt_iunary) */
    long long (*ifn)(long long) = k == U_NEG    ? nnfx_rt_ineg
                                  : k == U_ABS  ? nnfx_rt_iabs
                                  : k == U_RELU ? nnfx_rt_irelu
                                                : NULL;
    bool done = false;
    if (ifn && ((s = kern_iunary(n, in, out, ifn, &done, err)) || done)) return s;
    if ((s = kern_funary(n, in, out, &done, err)) || done) return s;
    if ((s = kern_need(n, x, NNFX_F32, "X", err))) return s;
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    unary_f32(k, x->data, out[0]->data, nnfx_tensor_numel(x), alpha, beta);
    return NNFX_OK;
}

const kern_dunary *kern_double_unary(nnfx_op op) {
    static const struct {
        nnfx_op op;
        kern_dunary fn;
    } table[] = {
        {NNFX_OP_NEG, {"dneg", nnfx_rt_dneg}},       {NNFX_OP_ABS, {"dabs", nnfx_rt_dabs}},
        {NNFX_OP_RELU, {"drelu", nnfx_rt_drelu}},    {NNFX_OP_RECIPROCAL, {"dreciprocal", nnfx_rt_dreciprocal}},
        {NNFX_OP_SIGN, {"dsign", nnfx_rt_dsign}},    {NNFX_OP_SIGMOID, {"dsigmoid", nnfx_rt_dsigmoid}},
        {NNFX_OP_SQRT, {"dsqrt", nnfx_rt_dsqrt}},    {NNFX_OP_EXP, {"dexp", nnfx_rt_dexp}},
        {NNFX_OP_LOG, {"dlog", nnfx_rt_dlog}},       {NNFX_OP_TANH, {"dtanh", nnfx_rt_dtanh}},
        {NNFX_OP_ERF, {"derf", nnfx_rt_derf}},       {NNFX_OP_CEIL, {"dceil", nnfx_rt_dceil}},
        {NNFX_OP_FLOOR, {"dfloor", nnfx_rt_dfloor}}, {NNFX_OP_ROUND, {"dround", nnfx_rt_dround}},
        {NNFX_OP_SIN, {"dsin", nnfx_rt_dsin}},       {NNFX_OP_COS, {"dcos", nnfx_rt_dcos}},
        {NNFX_OP_TAN, {"dtan", nnfx_rt_dtan}},       {NNFX_OP_ATAN, {"datan", nnfx_rt_datan}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].op == op) return &table[i].fn;
    return NULL;
}

nnfx_status kern_iunary(const nnfx_node *n, nnfx_tensor *const *in, nnfx_tensor *const *out, long long (*f)(long long),
                        bool *handled, nnfx_error *err) {
    const nnfx_tensor *x = in[0];
    *handled = false;
    if (!x || !kern_rt_unary_int(x->dtype)) return NNFX_OK;
    *handled = true;
    nnfx_status s = kern_check_out(n, out[0], x->rank, x->shape, err);
    if (s) return s;
    if (out[0]->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_RUNTIME, "output type differs from X's");
    nnfx_rt_iunary(x->data, out[0]->data, kern_rt_tcode(x->dtype), (long)nnfx_tensor_numel(x), f);
    return NNFX_OK;
}

nnfx_status kern_funary(const nnfx_node *n, nnfx_tensor *const *in, nnfx_tensor *const *out, bool *handled,
                        nnfx_error *err) {
    const nnfx_tensor *x = in[0];
    const kern_dunary *fn = kern_double_unary(nnfx_node_op(n));
    *handled = false;
    if (!x || (x->dtype != NNFX_F64 && x->dtype != NNFX_F16) || !fn) return NNFX_OK;
    *handled = true;
    nnfx_status s = kern_check_out(n, out[0], x->rank, x->shape, err);
    if (s) return s;
    if (out[0]->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_RUNTIME, "output type differs from X's");
    nnfx_rt_funary(x->data, out[0]->data, kern_rt_tcode(x->dtype), (long)nnfx_tensor_numel(x), fn->f);
    return NNFX_OK;
}

#define UNARY_KERNEL(fn, kind, A, B)                                                                                   \
    nnfx_status fn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,             \
                   nnfx_error *err) {                                                                                  \
        return unary(kind, n, nin, in, nout, out, err, (A), (B));                                                      \
    }

/* Each: y = f(x) element-wise over a float32 tensor. */
UNARY_KERNEL(kern_relu, U_RELU, 0, 0)
UNARY_KERNEL(kern_leaky_relu, U_LEAKY, (float)ir_attr_float(n, "alpha"), 0)
UNARY_KERNEL(kern_sigmoid, U_SIGMOID, 0, 0)
UNARY_KERNEL(kern_hard_sigmoid, U_HSIG, (float)ir_attr_float(n, "alpha"), (float)ir_attr_float(n, "beta"))
UNARY_KERNEL(kern_hard_swish, U_HSWISH, 0, 0)
UNARY_KERNEL(kern_tanh, U_TANH, 0, 0)
UNARY_KERNEL(kern_elu, U_ELU, (float)ir_attr_float(n, "alpha"), 0)
UNARY_KERNEL(kern_erf, U_ERF, 0, 0)
UNARY_KERNEL(kern_exp, U_EXP, 0, 0)
UNARY_KERNEL(kern_log, U_LOG, 0, 0)
UNARY_KERNEL(kern_sqrt, U_SQRT, 0, 0)
UNARY_KERNEL(kern_neg, U_NEG, 0, 0)
UNARY_KERNEL(kern_abs, U_ABS, 0, 0)
UNARY_KERNEL(kern_reciprocal, U_RECIP, 0, 0)

/* Clip(x, min?, max?): min/max are optional scalar inputs (absent: no
 * bound). float32, int64, int32, int8 or uint8. */
nnfx_status kern_clip(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "clip needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_status s;
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    const nnfx_tensor *mn = nin > 1 ? in[1] : NULL, *mx = nin > 2 ? in[2] : NULL;
    if ((mn && nnfx_tensor_numel(mn) != 1) || (mx && nnfx_tensor_numel(mx) != 1))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "clip min and max must be scalars");
    int64_t cnt = nnfx_tensor_numel(x);
    if (x->dtype == NNFX_I64) {
        int64_t lo = mn ? core_tensor_get_i64(mn, 0) : INT64_MIN, hi = mx ? core_tensor_get_i64(mx, 0) : INT64_MAX;
        const int64_t *a = x->data;
        int64_t *b = out[0]->data;
        for (int64_t i = 0; i < cnt; i++)
            b[i] = a[i] < lo ? lo : (a[i] > hi ? hi : a[i]);
        return NNFX_OK;
    }
    if (x->dtype == NNFX_I32 || x->dtype == NNFX_I8 || x->dtype == NNFX_U8) {
        /* exact in double; bounds of the same type, so results stay in range */
        double lo = mn ? nnfx_tensor_get(mn, 0) : -INFINITY, hi = mx ? nnfx_tensor_get(mx, 0) : INFINITY;
        for (int64_t i = 0; i < cnt; i++) {
            double v = nnfx_tensor_get(x, i);
            v = v < lo ? lo : v;
            kern_set(out[0], i, v > hi ? hi : v);
        }
        return NNFX_OK;
    }
    if ((s = kern_need(n, x, NNFX_F32, "input", err))) return s;
    float lo = mn ? (float)nnfx_tensor_get(mn, 0) : -INFINITY, hi = mx ? (float)nnfx_tensor_get(mx, 0) : INFINITY;
    const float *a = x->data;
    float *b = out[0]->data;
    /* ONNX: min first, then max (when min > max every element becomes max) */
    for (int64_t i = 0; i < cnt; i++)
        b[i] = nnfx_rt_clip(a[i], lo, hi);
    return NNFX_OK;
}

/* Identity / Dropout (inference): copies input 0 to output 0. */
nnfx_status kern_identity(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "identity needs an input");
    if (in[0]->dtype != out[0]->dtype || in[0]->nbytes != out[0]->nbytes)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "identity output buffer does not match its input");
    if (in[0]->data != out[0]->data && in[0]->nbytes) memcpy(out[0]->data, in[0]->data, in[0]->nbytes);
    return NNFX_OK;
}

/* Dropout (inference): output 0 is the input; the optional mask output 1
 * is all true (nothing dropped). Training mode (training_mode true) with a
 * ratio other than 0 (0.5 when absent) draws random masks: refused, as
 * inference refuses it when they are constants. */
nnfx_status kern_dropout(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    if (nin > 2 && in[2] && nnfx_tensor_numel(in[2]) == 1 && nnfx_tensor_get(in[2], 0) != 0 &&
        (nin < 2 || !in[1] || nnfx_tensor_numel(in[1]) != 1 || nnfx_tensor_get(in[1], 0) != 0))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "training-mode dropout (random masks) is not supported");
    nnfx_status s = kern_identity(n, nin, in, nout, out, err);
    if (s || nout < 2 || !out[1]) return s;
    if (out[1]->dtype != NNFX_BOOL || nnfx_tensor_numel(out[1]) != nnfx_tensor_numel(in[0]))
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "dropout mask buffer does not match its input");
    memset(out[1]->data, 1, out[1]->nbytes);
    return NNFX_OK;
}
