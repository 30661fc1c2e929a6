/* nnfx_rt_qfixed.h — TFLite's fixed-point requantization in portable C99:
 * one meaning for the host plan's integer kernels and the C that `nnfx
 * codegen --int8 --int8-io` writes. A real multiplier M (a ratio of scales)
 * is held as an int32 q31 multiplier qm in [2^30, 2^31) and a power-of-two
 * exponent shift, M ~= qm * 2^(shift - 31), computed once at plan or
 * generation time (nnfx_rt_qf_quantize_multiplier, the only function here
 * that uses double); the run-time functions use int32/int64 integers only
 * (no float, no libm, no 64-bit division, no implementation-defined shift
 * of a negative value):
 *
 *   nnfx_rt_qf_srdhm         gemmlowp's SaturatingRoundingDoublingHighMul
 *   nnfx_rt_qf_rdbpot        gemmlowp's RoundingDivideByPOT
 *   nnfx_rt_qf_mul           TFLite's MultiplyByQuantizedMultiplier
 *                            (the default, double-rounding one, as in
 *                            TFLite's reference kernels and CMSIS-NN's
 *                            arm_nn_requantize)
 *   nnfx_rt_qf_requant       acc -> int8: mul, + zero point, clamp
 *   nnfx_rt_qf_fast(_k)      mul + zero point in one floor, for the usual
 *                            shifts: the same integers, fewer instructions
 *   nnfx_rt_qf_add, _mul_q8  TFLite's int8 Add (left shift 20) and Mul
 *
 * Sections as in nnfx_rt_scalar.h: "qfixed" is the run-time part (what
 * generated C copies), "qfixed_plan" the plan-time part. */
#ifndef NNFX_RT_QFIXED_H
#define NNFX_RT_QFIXED_H

#include <stdint.h>

/* @rt qfixed */
/* inlined even when optimizing for size: a call per requantized value costs more than the code */
#if defined(__GNUC__)
#define NNFX_RT_QF_INLINE static inline __attribute__((always_inline))
#else
#define NNFX_RT_QF_INLINE static inline
#endif
/* round(a * b / 2^31) with ties away from zero, saturating the one case
 * that overflows (INT32_MIN * INT32_MIN -> INT32_MAX). */
NNFX_RT_QF_INLINE int32_t nnfx_rt_qf_srdhm(int32_t a, int32_t b) {
    /* gemmlowp's (ab + (ab >= 0 ? 2^30 : 1 - 2^30)) / 2^31 truncated toward
     * zero is floor((ab + 2^30) / 2^31) for every ab (for ab < 0, ceil(v /
     * 2^31) = floor((v + 2^31 - 1) / 2^31) with v = ab + 1 - 2^30): taken
     * from the unsigned bits, whose low 32 bits after the shift are the
     * arithmetic shift's (no branch, no shift of a negative value). */
    if (a == b && a == INT32_MIN) return INT32_MAX;
    return (int32_t)(uint32_t)(((uint64_t)((int64_t)a * (int64_t)b) + ((uint64_t)1 << 30)) >> 31);
}

/* x / 2^e rounded to nearest, ties away from zero; 0 <= e <= 31. */
NNFX_RT_QF_INLINE int32_t nnfx_rt_qf_rdbpot(int32_t x, int e) {
    const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    const int32_t rem = x & mask;
    const int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
    /* floor(x / 2^e) without shifting a negative value */
    const int32_t fl = x >= 0 ? (x >> e) : ~((~x) >> e);
    return fl + (rem > thr ? 1 : 0);
}

/* x * M for M ~= qm * 2^(shift - 31): TFLite's
 * MultiplyByQuantizedMultiplier. A positive shift first multiplies x by
 * 2^shift in 32 bits (wrapping, where TFLite's would be undefined: the plan
 * never asks for a shift that overflows its inputs' range). */
NNFX_RT_QF_INLINE int32_t nnfx_rt_qf_mul(int32_t x, int32_t qm, int shift) {
    if (shift <= 0) return nnfx_rt_qf_rdbpot(nnfx_rt_qf_srdhm(x, qm), -shift); /* scales below 1: the usual case */
    return nnfx_rt_qf_srdhm((int32_t)(uint32_t)((uint32_t)x << shift), qm);
}

NNFX_RT_QF_INLINE int32_t nnfx_rt_qf_clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The int8 output of accumulator acc (bias already added): y_zp +
 * acc * M, clamped to [lo, hi] (the int8 range narrowed by a fused
 * Relu/Clip). */
NNFX_RT_QF_INLINE int8_t nnfx_rt_qf_requant(int32_t acc, int32_t qm, int shift, int32_t y_zp, int32_t lo, int32_t hi) {
    return (int8_t)nnfx_rt_qf_clamp(nnfx_rt_qf_mul(acc, qm, shift) + y_zp, lo, hi);
}

/* The fast form of nnfx_rt_qf_mul for the usual requantization (qm >= 0,
 * -20 <= shift <= -1: a scale below 1/2), one 32x32->64 multiply-add and
 * one shift an output, the same integers for every int32 x. TFLite's two
 * roundings are one floor: with s = srdhm(x, qm) = floor((x qm + 2^30) /
 * 2^31) and e = -shift >= 1, rdbpot(s, e) = floor((s + 2^(e-1) - [s < 0])
 * / 2^e) = floor((x qm + 2^30 + 2^(30+e) - [s < 0] 2^31) / 2^(31+e))
 * (floor(floor(u / B) / C) = floor(u / BC)); [s < 0] may be read as [x <
 * 0] (they differ only where s = 0, and then both give 0), and the output
 * zero point zp adds zp 2^(31+e) inside the floor. So the result is the
 * high word of x qm + k - [x < 0] 2^31, shifted right by e - 1, where k
 * (nnfx_rt_qf_fast_k) holds the constants; no term overflows int64 (|x
 * qm| < 2^62, |k| < 2^59). */
#define NNFX_RT_QF_FAST_EMAX 20
/* Whether (qm, shift, zp) takes nnfx_rt_qf_fast; if so *k and *s1 are its
 * constants for them. */
NNFX_RT_QF_INLINE int nnfx_rt_qf_fast_k(int32_t qm, int shift, int32_t zp, int64_t *k, int *s1) {
    const int e = -shift;
    if (qm < 0 || e < 1 || e > NNFX_RT_QF_FAST_EMAX || zp < -128 || zp > 127) return 0;
    *k = ((int64_t)1 << 30) + ((int64_t)1 << (30 + e)) + (int64_t)zp * ((int64_t)1 << (31 + e));
    *s1 = e - 1;
    return 1;
}

/* nnfx_rt_qf_mul(x, qm, shift) + zp, not clamped, for k and s1 from
 * nnfx_rt_qf_fast_k(qm, shift, zp) (which returned 1). */
NNFX_RT_QF_INLINE int32_t nnfx_rt_qf_fast(int32_t x, int32_t qm, int64_t k, int s1) {
    const int64_t q = (int64_t)x * qm + k - (int64_t)((uint64_t)((uint32_t)x >> 31) << 31);
    const int32_t h = (int32_t)(uint32_t)((uint64_t)q >> 32);
    return h >= 0 ? h >> s1 : ~(~h >> s1); /* an arithmetic shift; no shift of a negative value */
}

/* Parameters of TFLite's int8 Add / Sub (nnfx_rt_qf_quantize_add). */
typedef struct nnfx_rt_qf_addp {
    int32_t a_zp, b_zp, y_zp, lo, hi;
    int32_t a_qm, b_qm, y_qm;
    int a_shift, b_shift, y_shift;
} nnfx_rt_qf_addp;
#define NNFX_RT_QF_ADD_LSHIFT 20

/* y = a + b (sub: a - b) of int8 values, as TFLite's integer Add: both
 * inputs scaled by 2^20 and to the common scale 2 * max(sa, sb), summed,
 * then to the output's scale. */
static inline int8_t nnfx_rt_qf_add(const nnfx_rt_qf_addp *p, int32_t a, int32_t b, int sub) {
    const int32_t av = (a - p->a_zp) * (1 << NNFX_RT_QF_ADD_LSHIFT);
    const int32_t bv = (b - p->b_zp) * (1 << NNFX_RT_QF_ADD_LSHIFT);
    const int32_t as = nnfx_rt_qf_mul(av, p->a_qm, p->a_shift), bs = nnfx_rt_qf_mul(bv, p->b_qm, p->b_shift);
    const int32_t raw = nnfx_rt_qf_mul(sub ? as - bs : as + bs, p->y_qm, p->y_shift) + p->y_zp;
    return (int8_t)nnfx_rt_qf_clamp(raw, p->lo, p->hi);
}

/* y = a * b of int8 values, as TFLite's integer Mul: (a - a_zp) * (b -
 * b_zp) * (sa * sb / sy) + y_zp, clamped. */
static inline int8_t nnfx_rt_qf_mul_q8(int32_t a, int32_t a_zp, int32_t b, int32_t b_zp, int32_t qm, int shift,
                                       int32_t y_zp, int32_t lo, int32_t hi) {
    return (int8_t)nnfx_rt_qf_clamp(nnfx_rt_qf_mul((a - a_zp) * (b - b_zp), qm, shift) + y_zp, lo, hi);
}
/* @end */

/* @rt qfixed_plan */
/* TFLite's QuantizeMultiplier: m = q * 2^shift with q in [0.5, 1) (frexp),
 * *qm = round(q * 2^31) (ties away from zero; 2^31 becomes 2^30 with shift
 * + 1); m == 0, or shift < -31 (m below ~2^-32), gives qm = shift = 0.
 * m must be finite and >= 0. Plan/generation time only (double; no libm:
 * frexp by exact doubling). */
static inline void nnfx_rt_qf_quantize_multiplier(double m, int32_t *qm, int *shift) {
    double q = m;
    int e = 0;
    int64_t f;
    if (!(m > 0)) {
        *qm = 0, *shift = 0;
        return;
    }
    while (q >= 1.0)
        q *= 0.5, e++;
    while (q < 0.5)
        q *= 2.0, e--;
    /* q * 2^31 is exact; + 0.5 is exact below 2^31 with 22 fraction bits */
    f = (int64_t)(q * 2147483648.0 + 0.5);
    if (f == ((int64_t)1 << 31)) f /= 2, e++;
    if (e < -31) f = 0, e = 0;
    *qm = (int32_t)f;
    *shift = e;
}

/* The parameters of TFLite's int8 Add of a (scale sa, zero point a_zp) and
 * b into y (sy, y_zp), its output clamped to [lo, hi]. */
static inline void nnfx_rt_qf_quantize_add(double sa, int32_t a_zp, double sb, int32_t b_zp, double sy, int32_t y_zp,
                                           int32_t lo, int32_t hi, nnfx_rt_qf_addp *p) {
    const double twice_max = 2.0 * (sa > sb ? sa : sb);
    p->a_zp = a_zp, p->b_zp = b_zp, p->y_zp = y_zp, p->lo = lo, p->hi = hi;
    nnfx_rt_qf_quantize_multiplier(sa / twice_max, &p->a_qm, &p->a_shift);
    nnfx_rt_qf_quantize_multiplier(sb / twice_max, &p->b_qm, &p->b_shift);
    nnfx_rt_qf_quantize_multiplier(twice_max / ((double)(1 << NNFX_RT_QF_ADD_LSHIFT) * sy), &p->y_qm, &p->y_shift);
}
/* @end */

#endif
