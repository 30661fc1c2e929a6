/* nnfx_rt_math.h — the scalar meaning of nnfx's further element-wise float
 * ops, in portable C99: trigonometric and hyperbolic functions, Ceil,
 * Floor, Round, Sign, Selu, Celu, Shrink (unary, taking (x, a, b) as those
 * of nnfx_rt_scalar.h), PRelu and float Mod (binary). One definition used
 * by the interpreter's kernels (src/exec/kernels/math_extra.c, binary.c,
 * logical.c) and copied, section by section, into the C that `nnfx codegen`
 * writes (src/codegen/emit_float_ops.c); libm only in the sections marked
 * so. */
#ifndef NNFX_RT_MATH_H
#define NNFX_RT_MATH_H

#include <math.h>

/* @rt acos libm */
static inline float nnfx_rt_acos(float x, float a, float b) {
    (void)a, (void)b;
    return acosf(x);
}
/* @end */

/* @rt acosh libm */
static inline float nnfx_rt_acosh(float x, float a, float b) {
    (void)a, (void)b;
    return acoshf(x);
}
/* @end */

/* @rt asin libm */
static inline float nnfx_rt_asin(float x, float a, float b) {
    (void)a, (void)b;
    return asinf(x);
}
/* @end */

/* @rt asinh libm */
static inline float nnfx_rt_asinh(float x, float a, float b) {
    (void)a, (void)b;
    return asinhf(x);
}
/* @end */

/* @rt atan libm */
static inline float nnfx_rt_atan(float x, float a, float b) {
    (void)a, (void)b;
    return atanf(x);
}
/* @end */

/* @rt atanh libm */
static inline float nnfx_rt_atanh(float x, float a, float b) {
    (void)a, (void)b;
    return atanhf(x);
}
/* @end */

/* @rt cos libm */
static inline float nnfx_rt_cos(float x, float a, float b) {
    (void)a, (void)b;
    return cosf(x);
}
/* @end */

/* @rt cosh libm */
static inline float nnfx_rt_cosh(float x, float a, float b) {
    (void)a, (void)b;
    return coshf(x);
}
/* @end */

/* @rt sin libm */
static inline float nnfx_rt_sin(float x, float a, float b) {
    (void)a, (void)b;
    return sinf(x);
}
/* @end */

/* @rt sinh libm */
static inline float nnfx_rt_sinh(float x, float a, float b) {
    (void)a, (void)b;
    return sinhf(x);
}
/* @end */

/* @rt tan libm */
static inline float nnfx_rt_tan(float x, float a, float b) {
    (void)a, (void)b;
    return tanf(x);
}
/* @end */

/* @rt ceil libm */
static inline float nnfx_rt_ceil(float x, float a, float b) {
    (void)a, (void)b;
    return ceilf(x);
}
/* @end */

/* @rt floor libm */
static inline float nnfx_rt_floor(float x, float a, float b) {
    (void)a, (void)b;
    return floorf(x);
}
/* @end */

/* @rt round libm */
/* Halves to even: nearbyintf in the default rounding mode. */
static inline float nnfx_rt_round(float x, float a, float b) {
    (void)a, (void)b;
    return nearbyintf(x);
}
/* @end */

/* @rt sign */
/* -1, 0 or 1 (NaN and signed zeros kept). */
static inline float nnfx_rt_sign(float x, float a, float b) {
    (void)a, (void)b;
    return x > 0 ? 1.0f : (x < 0 ? -1.0f : x);
}
/* @end */

/* @rt selu libm */
/* gamma * (x > 0 ? x : alpha * (exp(x) - 1)). */
static inline float nnfx_rt_selu(float x, float alpha, float gamma) {
    return x > 0 ? gamma * x : gamma * alpha * expm1f(x);
}
/* @end */

/* @rt celu libm */
/* max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha != 0. */
static inline float nnfx_rt_celu(float x, float alpha, float b) {
    (void)b;
    return fmaxf(0.0f, x) + fminf(0.0f, alpha * expm1f(x / alpha));
}
/* @end */

/* @rt shrink */
/* x < -lambd ? x + bias : x > lambd ? x - bias : 0. */
static inline float nnfx_rt_shrink(float x, float bias, float lambd) {
    return x < -lambd ? x + bias : (x > lambd ? x - bias : 0.0f);
}
/* @end */

/* Binary ops: y = f(a, b). */

/* @rt prelu */
/* x where x >= 0, else x * slope. */
static inline float nnfx_rt_prelu(float x, float slope) { return x < 0 ? x * slope : x; }
/* @end */

/* @rt fmod libm */
/* Mod with fmod=1: C's fmod, the dividend's sign. */
static inline float nnfx_rt_fmod(float a, float b) { return fmodf(a, b); }
/* @end */

/* @rt mod libm */
/* Mod with fmod=0 of floats: the remainder with the divisor's sign (as
 * Python and numpy's mod). */
static inline float nnfx_rt_mod(float a, float b) {
    float r = fmodf(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* @end */

#endif
