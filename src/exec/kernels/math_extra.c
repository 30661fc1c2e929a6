/* math_extra.c — more element-wise one-input kernels: trigonometric and
 * hyperbolic functions, Ceil/Floor/Round/Sign, Softplus, Softsign, Mish, Selu,
 * Celu, ThresholdedRelu, Shrink (float32; Sin, Cos, Tan, Atan, Ceil,
 * Floor, Round and Sign also float64 and float16, in double: kern_funary),
 * IsNaN/IsInf (float32, float64, float16 -> bool) and Not (bool). */
#include <math.h>
#include <stdint.h>

#include "rt/nnfx_rt_math.h"
#include "rt/nnfx_rt_scalar.h"
#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

typedef enum {
    M_ACOS,
    M_ACOSH,
    M_ASIN,
    M_ASINH,
    M_ATAN,
    M_ATANH,
    M_COS,
    M_COSH,
    M_SIN,
    M_SINH,
    M_TAN,
    M_CEIL,
    M_FLOOR,
    M_ROUND,
    M_SIGN,
    M_SOFTPLUS,
    M_SOFTSIGN,
    M_MISH,
    M_SELU,
    M_CELU,
    M_THRESH,
    M_SHRINK
} math_kind;

/* One element of op k; a and b are the op's float attributes. */
static float math_one(math_kind k, float x, float a, float b) {
    switch (k) { /* the scalar meanings: src/rt/nnfx_rt_math.h, nnfx_rt_scalar.h */
    case M_ACOS: return nnfx_rt_acos(x, a, b);
    case M_ACOSH: return nnfx_rt_acosh(x, a, b);
    case M_ASIN: return nnfx_rt_asin(x, a, b);
    case M_ASINH: return nnfx_rt_asinh(x, a, b);
    case M_ATAN: return nnfx_rt_atan(x, a, b);
    case M_ATANH: return nnfx_rt_atanh(x, a, b);
    case M_COS: return nnfx_rt_cos(x, a, b);
    case M_COSH: return nnfx_rt_cosh(x, a, b);
    case M_SIN: return nnfx_rt_sin(x, a, b);
    case M_SINH: return nnfx_rt_sinh(x, a, b);
    case M_TAN: return nnfx_rt_tan(x, a, b);
    case M_CEIL: return nnfx_rt_ceil(x, a, b);
    case M_FLOOR: return nnfx_rt_floor(x, a, b);
    case M_ROUND: return nnfx_rt_round(x, a, b);
    case M_SIGN: return nnfx_rt_sign(x, a, b);
    case M_SOFTPLUS: return nnfx_rt_softplus(x, a, b);
    case M_SOFTSIGN: return nnfx_rt_softsign(x, a, b);
    case M_MISH: return nnfx_rt_mish(x, a, b);
    case M_SELU: return nnfx_rt_selu(x, a, b); /* a: alpha, b: gamma */
    case M_CELU: return nnfx_rt_celu(x, a, b);
    case M_THRESH: return nnfx_rt_thresholded_relu(x, a, b);
    case M_SHRINK: return nnfx_rt_shrink(x, a, b); /* a: bias, b: lambd */
    }
    return x;
}

static nnfx_status math(math_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                        nnfx_tensor *const *out, nnfx_error *err, float a, float b) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "unary op needs 1 input, 1 output");
    bool done = false;
    if (k == M_SIGN && ((s = kern_iunary(n, in, out, nnfx_rt_isign, &done, err)) || done)) return s;
    if ((s = kern_funary(n, in, out, &done, err)) || done) return s;
    if ((s = kern_need(n, in[0], NNFX_F32, "X", err))) return s;
    if ((s = kern_check_out(n, out[0], in[0]->rank, in[0]->shape, err))) return s;
    const float *x = in[0]->data;
    float *y = out[0]->data;
    int64_t cnt = nnfx_tensor_numel(in[0]);
    for (int64_t i = 0; i < cnt; i++)
        y[i] = math_one(k, x[i], a, b);
    return NNFX_OK;
}

#define MATH_KERNEL(fn, kind)                                                                                          \
    nnfx_status fn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,             \
                   nnfx_error *err) {                                                                                  \
        return math(kind, n, nin, in, nout, out, err, 0, 0);                                                           \
    }
MATH_KERNEL(kern_acos, M_ACOS)
MATH_KERNEL(kern_acosh, M_ACOSH)
MATH_KERNEL(kern_asin, M_ASIN)
MATH_KERNEL(kern_asinh, M_ASINH)
MATH_KERNEL(kern_atan, M_ATAN)
MATH_KERNEL(kern_atanh, M_ATANH)
MATH_KERNEL(kern_cos, M_COS)
MATH_KERNEL(kern_cosh, M_COSH)
MATH_KERNEL(kern_sin, M_SIN)
MATH_KERNEL(kern_sinh, M_SINH)
MATH_KERNEL(kern_tan, M_TAN)
MATH_KERNEL(kern_ceil, M_CEIL)
MATH_KERNEL(kern_floor, M_FLOOR)
MATH_KERNEL(kern_round, M_ROUND)
MATH_KERNEL(kern_sign, M_SIGN)
MATH_KERNEL(kern_softplus, M_SOFTPLUS)
MATH_KERNEL(kern_softsign, M_SOFTSIGN)
MATH_KERNEL(kern_mish, M_MISH)
#undef MATH_KERNEL

/* Selu: gamma * (x > 0 ? x : alpha * (exp(x) - 1)). */
nnfx_status kern_selu(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    return math(M_SELU, n, nin, in, nout, out, err, (float)ir_attr_float(n, "alpha"), (float)ir_attr_float(n, "gamma"));
}

/* Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)). */
nnfx_status kern_celu(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    float alpha = (float)ir_attr_float(n, "alpha");
    if (alpha == 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "celu alpha must not be 0");
    return math(M_CELU, n, nin, in, nout, out, err, alpha, 0);
}

/* ThresholdedRelu: x > alpha ? x : 0. */
nnfx_status kern_thresholded_relu(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                  nnfx_tensor *const *out, nnfx_error *err) {
    return math(M_THRESH, n, nin, in, nout, out, err, (float)ir_attr_float(n, "alpha"), 0);
}

/* Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0. */
nnfx_status kern_shrink(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    return math(M_SHRINK, n, nin, in, nout, out, err, (float)ir_attr_float(n, "bias"),
                (float)ir_attr_float(n, "lambd"));
}

/* float32 / float64 / float16 -> bool predicate kernels (nnfx_rt_tpredicate,
 * the generated C's). */
static nnfx_status predicate(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err, bool inf, bool neg, bool pos) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0] || !in[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "predicate needs 1 input");
    const int t = kern_rt_float_tcode(in[0]->dtype);
    if (t < 0)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED,
                         "input X has dtype %s; this kernel takes float32, float64 or "
                         "float16",
                         nnfx_dtype_name(in[0]->dtype));
    if ((s = kern_check_out(n, out[0], in[0]->rank, in[0]->shape, err))) return s;
    if (out[0]->dtype != NNFX_BOOL) return kern_fail(err, n, NNFX_ERR_RUNTIME, "predicate output must be bool");
    nnfx_rt_tpredicate(in[0]->data, t, out[0]->data, (long)nnfx_tensor_numel(in[0]), inf ? 2 : 1, neg, pos);
    return NNFX_OK;
}

/* IsNaN(X) -> bool. */
nnfx_status kern_is_nan(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    return predicate(n, nin, in, nout, out, err, false, false, false);
}

/* IsInf(X) -> bool, for the signs selected by detect_negative/positive. */
nnfx_status kern_is_inf(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    return predicate(n, nin, in, nout, out, err, true, ir_attr_int(n, "detect_negative") != 0,
                     ir_attr_int(n, "detect_positive") != 0);
}

/* Not(X): bool -> bool (nnfx_rt_tpredicate, the generated C's). */
nnfx_status kern_not(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "not needs 1 input");
    if ((s = kern_need(n, in[0], NNFX_BOOL, "X", err))) return s;
    if ((s = kern_check_out(n, out[0], in[0]->rank, in[0]->shape, err))) return s;
    nnfx_rt_tpredicate(in[0]->data, kern_rt_tcode(NNFX_BOOL), out[0]->data, (long)nnfx_tensor_numel(in[0]), 0, 0, 0);
    return NNFX_OK;
}
