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

/* @rt max_takes */
/* Max pooling's one rule for a tap (the generated pool, and through
 * KERN_MAX_TAKES the interpreter's and the compiled plan's): whether tap
 * value v replaces the running max m — a larger value, or a NaN where m is
 * not one yet (a NaN input wins, the first one kept; padding is never a
 * tap, so it never wins). Written with bitwise operators, without a
 * branch, so loops over it vectorise. */
static inline int nnfx_rt_max_takes(float m, float v) { return (v > m) | ((v != v) & (m == m)); }
/* @end */

/* @rt relu */
/* max(x, 0), NaN kept (as PyTorch and ONNX Runtime; the conv epilogues'
 * `v < 0 ? 0 : v` too). */
static inline float nnfx_rt_relu(float x, float a, float b) {
    (void)a, (void)b;
    return x < 0 ? 0.0f : x;
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

/* @rt x_hard_sigmoid needs:hard_sigmoid */
/* x * HardSigmoid(x): hard-swish as PyTorch exports it before opset 14. */
static inline float nnfx_rt_x_hard_sigmoid(float x, float alpha, float beta) {
    return x * nnfx_rt_hard_sigmoid(x, alpha, beta);
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

/* @rt mish libm needs:softplus */
/* x * tanh(softplus(x)). */
static inline float nnfx_rt_mish(float x, float a, float b) { return x * tanhf(nnfx_rt_softplus(x, a, b)); }
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

/* @rt affine */
/* Affine, an activation of the recurrent ops only: alpha * x + beta. */
static inline float nnfx_rt_affine(float x, float alpha, float beta) { return alpha * x + beta; }
/* @end */

/* @rt scaled_tanh libm */
/* ScaledTanh, an activation of the recurrent ops only: alpha * tanh(beta * x). */
static inline float nnfx_rt_scaled_tanh(float x, float alpha, float beta) { return alpha * tanhf(beta * x); }
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
/* a^2 is a * a (correctly rounded, as PyTorch computes it; libm's powf may
 * be one ulp off), so the squares of a LayerNorm's variance vectorise. */
static inline float nnfx_rt_pow(float a, float b) { return b == 2.0f ? a * a : powf(a, b); }
/* @end */

/* @rt max */
static inline float nnfx_rt_max(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
/* @end */

/* @rt min */
static inline float nnfx_rt_min(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
/* @end */

/* Integer ops (int64, int32, int8, uint8, bool held as long long): the
 * interpreter's integer kernels (src/exec/kernels/binary.c, logical.c) and
 * the generated typed kernels (nnfx_rt_typed.h) call these. Add, Sub and
 * Mul wrap (computed unsigned); the result is stored modulo the output
 * type's width. */

/* @rt iadd */
static inline long long nnfx_rt_iadd(long long a, long long b) {
    return (long long)((unsigned long long)a + (unsigned long long)b);
}
/* @end */

/* @rt isub */
static inline long long nnfx_rt_isub(long long a, long long b) {
    return (long long)((unsigned long long)a - (unsigned long long)b);
}
/* @end */

/* @rt imul */
static inline long long nnfx_rt_imul(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
/* @end */

/* @rt idiv */
/* Truncating division; x / 0 gives 0 (the interpreter reports it), x / -1
 * negates with wrapping (INT64_MIN / -1 would trap). */
static inline long long nnfx_rt_idiv(long long a, long long b) {
    return b == 0 ? 0 : b == -1 ? (long long)(0 - (unsigned long long)a) : a / b;
}
/* @end */

/* @rt ifmod */
/* Mod with fmod=1 on integers: C's remainder (the dividend's sign); 0 for
 * a divisor of 0 or -1 (INT64_MIN % -1 traps). */
static inline long long nnfx_rt_ifmod(long long a, long long b) { return (b == 0 || b == -1) ? 0 : a % b; }
/* @end */

/* @rt imod needs:ifmod */
/* Mod with fmod=0 on integers: Python's remainder (the divisor's sign). */
static inline long long nnfx_rt_imod(long long a, long long b) {
    long long r = nnfx_rt_ifmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* @end */

/* @rt imin */
static inline long long nnfx_rt_imin(long long a, long long b) { return a < b ? a : b; }
/* @end */

/* @rt imax */
static inline long long nnfx_rt_imax(long long a, long long b) { return a > b ? a : b; }
/* @end */

/* @rt ineg */
/* Neg of an integer: wraps (computed unsigned), as INT64_MIN's has no
 * int64. */
static inline long long nnfx_rt_ineg(long long a) { return (long long)(0 - (unsigned long long)a); }
/* @end */

/* @rt iabs needs:ineg */
static inline long long nnfx_rt_iabs(long long a) { return a < 0 ? nnfx_rt_ineg(a) : a; }
/* @end */

/* @rt irelu */
static inline long long nnfx_rt_irelu(long long a) { return a > 0 ? a : 0; }
/* @end */

/* @rt isign */
static inline long long nnfx_rt_isign(long long a) { return (a > 0) - (a < 0); }
/* @end */

/* @rt iand */
static inline long long nnfx_rt_iand(long long a, long long b) { return (a != 0) & (b != 0); }
/* @end */

/* @rt ior */
static inline long long nnfx_rt_ior(long long a, long long b) { return (a != 0) | (b != 0); }
/* @end */

/* Bitwise ops of integers (BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot),
 * stored modulo the type's width. */

/* @rt ibitand */
static inline long long nnfx_rt_ibitand(long long a, long long b) { return a & b; }
/* @end */

/* @rt ibitor */
static inline long long nnfx_rt_ibitor(long long a, long long b) { return a | b; }
/* @end */

/* @rt ibitxor */
static inline long long nnfx_rt_ibitxor(long long a, long long b) { return a ^ b; }
/* @end */

/* @rt ibitnot */
static inline long long nnfx_rt_ibitnot(long long a) { return ~a; }
/* @end */

/* @rt ixor */
static inline long long nnfx_rt_ixor(long long a, long long b) { return (a != 0) ^ (b != 0); }
/* @end */

/* @rt ishl */
/* BitShift of unsigned values: shifts of 64 and more give 0. */
static inline long long nnfx_rt_ishl(long long a, long long b) {
    return (unsigned long long)b >= 64 ? 0 : (long long)((unsigned long long)a << (unsigned long long)b);
}
/* @end */

/* @rt ishr */
static inline long long nnfx_rt_ishr(long long a, long long b) {
    return (unsigned long long)b >= 64 ? 0 : (long long)((unsigned long long)a >> (unsigned long long)b);
}
/* @end */

/* @rt sat */
/* v clamped into [lo, hi], NaN giving 0: what a float-to-integer
 * conversion (Cast, the interpreter's kern_set) truncates toward zero, so
 * it is always defined. */
static inline double nnfx_rt_sat(double v, double lo, double hi) {
    return v != v ? 0 : (v < lo ? lo : (v > hi ? hi : v));
}
/* @end */

/* @rt ipow libm needs:sat */
/* Pow of an int64 base: pow in double, truncated and saturated into int64. */
static inline long long nnfx_rt_ipow(double a, double b) {
    return (long long)nnfx_rt_sat(pow(a, b), -9223372036854775808.0, 9223372036854774784.0);
}
/* @end */

/* Float64 binary ops (the interpreter's Min, Max and Mod compute in
 * double): a NaN operand gives NaN. */

/* @rt dmin */
static inline double nnfx_rt_dmin(double a, double b) { return (a != a || b != b) ? a + b : (b < a ? b : a); }
/* @end */

/* @rt dmax */
static inline double nnfx_rt_dmax(double a, double b) { return (a != a || b != b) ? a + b : (b > a ? b : a); }
/* @end */

/* @rt dfmod libm */
/* Mod with fmod=1: C's fmod (the dividend's sign). */
static inline double nnfx_rt_dfmod(double a, double b) { return fmod(a, b); }
/* @end */

/* @rt dmod libm */
/* Mod with fmod=0 of floats: fmod moved to the divisor's sign. */
static inline double nnfx_rt_dmod(double a, double b) {
    double r = fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* @end */

/* @rt dimod needs:imod,sat */
/* Integer Mod of values held as doubles (the interpreter's Mod of integer
 * types, and generated C's of uint64): both truncated and saturated into
 * int64, then nnfx_rt_imod (fmod=0, the divisor's sign). */
static inline double nnfx_rt_dimod(double a, double b) {
    return (double)nnfx_rt_imod((long long)nnfx_rt_sat(a, -9223372036854775808.0, 9223372036854774784.0),
                                (long long)nnfx_rt_sat(b, -9223372036854775808.0, 9223372036854774784.0));
}
/* @end */

/* @rt difmod needs:ifmod,sat */
/* The same with fmod=1 (nnfx_rt_ifmod, the dividend's sign). */
static inline double nnfx_rt_difmod(double a, double b) {
    return (double)nnfx_rt_ifmod((long long)nnfx_rt_sat(a, -9223372036854775808.0, 9223372036854774784.0),
                                 (long long)nnfx_rt_sat(b, -9223372036854775808.0, 9223372036854774784.0));
}
/* @end */

/* Float64 and float16 arithmetic: computed in double (the interpreter's
 * and generated C's alike), a float16 result rounded once into a half. */

/* @rt dadd */
static inline double nnfx_rt_dadd(double a, double b) { return a + b; }
/* @end */

/* @rt dsub */
static inline double nnfx_rt_dsub(double a, double b) { return a - b; }
/* @end */

/* @rt dmul */
static inline double nnfx_rt_dmul(double a, double b) { return a * b; }
/* @end */

/* @rt ddiv */
static inline double nnfx_rt_ddiv(double a, double b) { return a / b; }
/* @end */

/* One-input ops in double (nnfx_rt_funary). */

/* @rt dneg */
static inline double nnfx_rt_dneg(double x) { return -x; }
/* @end */

/* @rt dabs */
static inline double nnfx_rt_dabs(double x) { return x < 0 ? -x : (x == 0 ? 0.0 : x); }
/* @end */

/* @rt drelu */
static inline double nnfx_rt_drelu(double x) { return x < 0 ? 0.0 : x; }
/* @end */

/* @rt dreciprocal */
static inline double nnfx_rt_dreciprocal(double x) { return 1.0 / x; }
/* @end */

/* @rt dsign */
/* -1, 0 or 1 (NaN and signed zeros kept). */
static inline double nnfx_rt_dsign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }
/* @end */

/* @rt dsigmoid libm */
static inline double nnfx_rt_dsigmoid(double x) {
    double e;
    if (x >= 0) return 1.0 / (1.0 + exp(-x));
    e = exp(x);
    return e / (1.0 + e);
}
/* @end */

/* @rt dsqrt libm */
static inline double nnfx_rt_dsqrt(double x) { return sqrt(x); }
/* @end */

/* @rt dexp libm */
static inline double nnfx_rt_dexp(double x) { return exp(x); }
/* @end */

/* @rt dlog libm */
static inline double nnfx_rt_dlog(double x) { return log(x); }
/* @end */

/* @rt dtanh libm */
static inline double nnfx_rt_dtanh(double x) { return tanh(x); }
/* @end */

/* @rt derf libm */
static inline double nnfx_rt_derf(double x) { return erf(x); }
/* @end */

/* @rt dceil libm */
static inline double nnfx_rt_dceil(double x) { return ceil(x); }
/* @end */

/* @rt dfloor libm */
static inline double nnfx_rt_dfloor(double x) { return floor(x); }
/* @end */

/* @rt dround libm */
/* Halves to even: nearbyint in the default rounding mode. */
static inline double nnfx_rt_dround(double x) { return nearbyint(x); }
/* @end */

/* @rt dsin libm */
static inline double nnfx_rt_dsin(double x) { return sin(x); }
/* @end */

/* @rt dcos libm */
static inline double nnfx_rt_dcos(double x) { return cos(x); }
/* @end */

/* @rt dtan libm */
static inline double nnfx_rt_dtan(double x) { return tan(x); }
/* @end */

/* @rt datan libm */
static inline double nnfx_rt_datan(double x) { return atan(x); }
/* @end */

/* @rt einsum_start */
/* The start of an einsum's odometer (nnfx_rt_einsum, nnfx_rt_teinsum): the
 * label indices idx[0..nall) and the inputs' offsets off[0..nin) at 0;
 * returns how many products each output value sums (the summed labels'
 * sizes multiplied, 0 when one is empty). */
static inline long nnfx_rt_einsum_start(int nin, int nall, int nouter, const long *size, long *idx, long *off) {
    long inner = 1;
    int a, i;
    for (a = 0; a < nall; a++)
        idx[a] = 0;
    for (i = 0; i < nin; i++)
        off[i] = 0;
    for (a = nouter; a < nall; a++)
        inner *= size[a];
    return inner;
}
/* @end */

/* @rt einsum_step */
/* One step of an einsum's odometer over labels [0, last) (sizes size[];
 * input i moves st[i * nall + a] elements along label a): the label
 * indices idx and the inputs' offsets off follow (nnfx_rt_einsum,
 * nnfx_rt_teinsum). */
static inline void nnfx_rt_einsum_step(int nin, int nall, int last, const long *size, const long *st, long *idx,
                                       long *off) {
    int a, i;
    for (a = last - 1; a >= 0; a--) {
        for (i = 0; i < nin; i++)
            off[i] += st[i * nall + a];
        if (++idx[a] < size[a]) break;
        for (i = 0; i < nin; i++)
            off[i] -= st[i * nall + a] * idx[a];
        idx[a] = 0;
    }
}
/* @end */

/* @rt half */
#include <stdint.h>
#include <string.h>
/* IEEE half (its 16 bits) -> float, exactly. */
static inline float nnfx_rt_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            man &= 0x3ff;
            bits = sign | (exp << 23) | (man << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    memcpy(&f, &bits, 4);
    return f;
}

/* double -> IEEE half bits, rounded to nearest even in one step (no double
 * rounding through float), without libm: NaN gives 0x7e00, magnitudes from
 * 65520 on infinity, values below 2^-14 multiples of 2^-24. */
static inline uint16_t nnfx_rt_double_to_half(double v) {
    uint64_t b, full, q, rem, halfway;
    uint16_t sign;
    int e, shift;
    memcpy(&b, &v, 8);
    sign = (uint16_t)((b >> 48) & 0x8000);
    e = (int)((b >> 52) & 0x7ff);
    full = b & 0xfffffffffffffULL;
    if (e == 0x7ff) return full ? (uint16_t)0x7e00 : (uint16_t)(sign | 0x7c00);
    if (e == 0) return sign; /* a double subnormal rounds to zero */
    e -= 1023;
    if (e >= 16) return (uint16_t)(sign | 0x7c00);
    full |= 1ULL << 52;             /* the 53-bit significand: v = full * 2^(e - 52) */
    shift = e >= -14 ? 42 : 28 - e; /* to units of 2^(e - 10), or of 2^-24 below 2^-14 */
    if (shift > 63) return sign;
    q = full >> shift;
    rem = full & ((1ULL << shift) - 1);
    halfway = 1ULL << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) q++;
    if (e < -14) return (uint16_t)(sign | q); /* q == 1024 is the smallest normal's encoding */
    if (q >= 2048) {
        q = 1024;
        e++;
    }
    if (e > 15) return (uint16_t)(sign | 0x7c00);
    return (uint16_t)(sign | (uint16_t)((unsigned)(e + 15) << 10) | (uint16_t)(q - 1024));
}
/* @end */

/* Quantization (int8). ONNX's affine quantization in float32, no libm:
 * q = saturate(round_half_even(x / scale) + zp), x = (q - zp) * scale; the
 * interpreter's QuantizeLinear / DequantizeLinear (src/ir/quant_int.h,
 * src/exec/kernels/quant.c), the compiled plan's requantize epilogue
 * (src/exec/kernels/qgemm.c) and the generated int8 code all call these. */

/* @rt quant */
#include <stdint.h>
/* round half to even of v, clamped to +-2^24 first (every integer output
 * saturates long before); NaN gives 0 (the zero point once it is added) */
static inline int32_t nnfx_rt_qround(float v) {
    int32_t i;
    float f;
    if (v != v) return 0;
    v = v < -16777216.0f ? -16777216.0f : (v > 16777216.0f ? 16777216.0f : v);
    i = (int32_t)v; /* toward zero; v - i is exact */
    f = v - (float)i;
    if (f > 0.5f || (f == 0.5f && i % 2 != 0))
        i++;
    else if (f < -0.5f || (f == -0.5f && i % 2 != 0))
        i--;
    return i;
}

static inline int32_t nnfx_rt_qsat(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* QuantizeLinear of one value into [lo, hi] (the type's range, at most
 * 16 bits): qsat(qround(x / scale) + zp). Written without branches so loops
 * of it vectorise: NaN gives 0 (then + zp); values beyond the range, which
 * saturate anyway, are first clamped to one past it; the rest (|v| < 2^18)
 * are rounded half to even by adding and subtracting 1.5 * 2^23 (the sum's
 * unit is 1 and the constant is even), as qround does. */
static inline int32_t nnfx_rt_quantize(float x, float scale, int32_t zp, int32_t lo, int32_t hi) {
    float v = x / scale, vlo = (float)(lo - zp) - 1.0f, vhi = (float)(hi - zp) + 1.0f;
    v = v == v ? v : 0.0f;
    v = v < vlo ? vlo : (v > vhi ? vhi : v);
    v = (v + 12582912.0f) - 12582912.0f;
    return nnfx_rt_qsat((int32_t)v + zp, lo, hi);
}

/* DequantizeLinear of one value. */
static inline float nnfx_rt_dequantize(int32_t q, int32_t zp, float scale) { return (float)(q - zp) * scale; }

/* DequantizeLinear -> GlobalAveragePool -> QuantizeLinear of one plane:
 * sum is the int32 sum of x - x_zp over its count values. */
static inline int32_t nnfx_rt_qavg(int32_t sum, long count, float x_scale, float y_scale, int32_t y_zp, int32_t lo,
                                   int32_t hi) {
    return nnfx_rt_quantize((float)sum * x_scale / (float)count, y_scale, y_zp, lo, hi);
}
/* @end */

/* @rt qepi needs:quant */
/* One QuantizeLinear of the requantize epilogue: scale, its reciprocal
 * (the epilogue multiplies by it), zero point and saturation bounds (the
 * type's range narrowed by a fused Relu / Clip). */
typedef struct nnfx_rt_qparam {
    float scale, inv;
    int32_t zp, lo, hi;
} nnfx_rt_qparam;

/* The requantize epilogue of an int8 conv / fc for one exact int32
 * accumulator acc = sum (x - x_zp) * w of an output channel with
 * multiplier mult and float bias:
 *     t = acc * mult + bias
 *     mid (NULL: none):  t = (clamp(rne(t * mid->inv) + zp, lo, hi) - zp) * mid->scale
 *     res (NULL: none):  t = t + (r - res->zp) * res->scale
 *     y = clamp(rne(t * y->inv) + y->zp, y->lo, y->hi)
 * Without mid and res (the direct form) mult is x_scale * w_scale / y_scale
 * and bias is bias / y_scale + y->zp (the zero point folded in), and the
 * bounds apply before the rounding: y = rne(clamp(t, y->lo, y->hi)), a NaN
 * giving lo (the runtime's vector epilogue computes exactly this). */
static inline int32_t nnfx_rt_qepi(int32_t acc, float mult, float bias, const nnfx_rt_qparam *mid,
                                   const nnfx_rt_qparam *res, int32_t r, const nnfx_rt_qparam *y) {
    float t = (float)acc * mult + bias;
    if (!mid && !res) {
        float lo = (float)y->lo, hi = (float)y->hi;
        t = !(t >= lo) ? lo : (t > hi ? hi : t);
        return nnfx_rt_qround(t);
    }
    if (mid)
        t = nnfx_rt_dequantize(nnfx_rt_qsat(nnfx_rt_qround(t * mid->inv) + mid->zp, mid->lo, mid->hi), mid->zp,
                               mid->scale);
    if (res) t = t + nnfx_rt_dequantize(r, res->zp, res->scale);
    return nnfx_rt_qsat(nnfx_rt_qround(t * y->inv) + y->zp, y->lo, y->hi);
}
/* @end */

#endif
