/* nnfx_rt_scalar.h — the scalar meaning of nnfx's element-wise ops, in
 * portable C99: one definition used by the interpreter's kernels
 * (src/exec/kernels/unary.c, binary.c) and copied, section by section, into
 * the C that `nnfx codegen` writes (src/codegen/). No nnfx types, no
 * allocation, no state; libm only in the sections that call it.
 *
 * Every section runs from a "@rt NAME" marker comment to the next "@end"
 * marker; the generator emits only the sections a model uses (plus the ones
 * named after "needs:"). Unary functions all take (x, a, b): the op's two
 * float attributes (alpha/beta, min/max), unused ones ignored. */
#ifndef NNFX_RT_SCALAR_H
#define NNFX_RT_SCALAR_H

#include <math.h>

/* @rt relu */
static inline float nnfx_rt_relu(float x, float a, float b) {
    (void)a, (void)b;
    return x > 0 ? x : 0.0f;
}
/* @end */

/* @rt leaky_relu */
static inline float nnfx_rt_leaky_relu(float x, float alpha, float b) {
    (void)b;
    return x >= 0 ? x : alpha * x;
}
/* @end */

/* @rt sigmoid libm */
static inline float nnfx_rt_sigmoid(float x, float a, float b) {
    (void)a, (void)b;
    if (x >= 0) return 1.0f / (1.0f + expf(-x));
    float e = expf(x);
    return e / (1.0f + e);
}
/* @end */

/* @rt silu needs:sigmoid */
static inline float nnfx_rt_silu(float x, float a, float b) { return x * nnfx_rt_sigmoid(x, a, b); }
/* @end */

/* @rt hard_sigmoid */
static inline float nnfx_rt_hard_sigmoid(float x, float alpha, float beta) {
    float v = alpha * x + beta;
    return v < 0 ? 0.0f : (v > 1 ? 1.0f : v);
}
/* @end */

/* @rt hard_swish */
static inline float nnfx_rt_hard_swish(float x, float a, float b) {
    (void)a, (void)b;
    float v = x / 6.0f + 0.5f;
    v = v < 0 ? 0.0f : (v > 1 ? 1.0f : v);
    return x * v;
}
/* @end */

/* @rt clip */
/* ONNX: min first, then max (when min > max every element becomes max). */
static inline float nnfx_rt_clip(float x, float lo, float hi) {
    float v = x < lo ? lo : x;
    return v > hi ? hi : v;
}
/* @end */

/* @rt tanh libm */
static inline float nnfx_rt_tanh(float x, float a, float b) {
    (void)a, (void)b;
    return tanhf(x);
}
/* @end */

/* @rt elu libm */
static inline float nnfx_rt_elu(float x, float alpha, float b) {
    (void)b;
    return x >= 0 ? x : alpha * expm1f(x);
}
/* @end */

/* @rt softplus libm */
/* log(1 + exp(x)); x itself above 20, where the two agree in float. */
static inline float nnfx_rt_softplus(float x, float a, float b) {
    (void)a, (void)b;
    return x > 20.0f ? x : log1pf(expf(x));
}
/* @end */

/* @rt softsign */
static inline float nnfx_rt_softsign(float x, float a, float b) {
    (void)a, (void)b;
    return x / (1.0f + (x < 0 ? -x : x));
}
/* @end */

/* @rt thresholded_relu */
static inline float nnfx_rt_thresholded_relu(float x, float alpha, float b) {
    (void)b;
    return x > alpha ? x : 0.0f;
}
/* @end */

/* @rt erf libm */
static inline float nnfx_rt_erf(float x, float a, float b) {
    (void)a, (void)b;
    return erff(x);
}
/* @end */

/* @rt exp libm */
static inline float nnfx_rt_exp(float x, float a, float b) {
    (void)a, (void)b;
    return expf(x);
}
/* @end */

/* @rt log libm */
static inline float nnfx_rt_log(float x, float a, float b) {
    (void)a, (void)b;
    return logf(x);
}
/* @end */

/* @rt sqrt libm */
static inline float nnfx_rt_sqrt(float x, float a, float b) {
    (void)a, (void)b;
    return sqrtf(x);
}
/* @end */

/* @rt neg */
static inline float nnfx_rt_neg(float x, float a, float b) {
    (void)a, (void)b;
    return -x;
}
/* @end */

/* @rt abs */
static inline float nnfx_rt_abs(float x, float a, float b) {
    (void)a, (void)b;
    return x < 0 ? -x : (x == 0 ? 0.0f : x);
}
/* @end */

/* @rt reciprocal */
static inline float nnfx_rt_reciprocal(float x, float a, float b) {
    (void)a, (void)b;
    return 1.0f / x;
}
/* @end */

/* Binary ops: y = f(a, b). */

/* @rt add */
static inline float nnfx_rt_add(float a, float b) { return a + b; }
/* @end */

/* @rt sub */
static inline float nnfx_rt_sub(float a, float b) { return a - b; }
/* @end */

/* @rt mul */
static inline float nnfx_rt_mul(float a, float b) { return a * b; }
/* @end */

/* @rt div */
static inline float nnfx_rt_div(float a, float b) { return a / b; }
/* @end */

/* @rt pow libm */
static inline float nnfx_rt_pow(float a, float b) { return powf(a, b); }
/* @end */

/* @rt max */
static inline float nnfx_rt_max(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
/* @end */

/* @rt min */
static inline float nnfx_rt_min(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
/* @end */

#endif
