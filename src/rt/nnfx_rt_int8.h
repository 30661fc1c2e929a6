/* nnfx_rt_int8.h — portable C99 int8 kernels for the C that `nnfx codegen`
 * writes from a QDQ model: the int8 islands of nnfx's compiled plan
 * (src/exec/qplan.h: DequantizeLinear -> Conv | Gemm | MatMul -> [Relu |
 * Clip] -> [Q -> DQ -> Add(DQ(r))] -> QuantizeLinear, and DQ -> MaxPool |
 * GlobalAveragePool -> Q) with exact int32 accumulation and the requantize
 * epilogue nnfx_rt_qepi, and QuantizeLinear / DequantizeLinear per tensor
 * and per axis. No nnfx types, no allocation, no state, no libm: the scalar
 * meaning (rounding half to even, saturation) is nnfx_rt_scalar.h, the one
 * the runtime calls. Activations are uint8 or int8 (x_signed / y_signed),
 * weights int8 with zero point 0. Sections as in nnfx_rt_kernels.h. */
#ifndef NNFX_RT_INT8_H
#define NNFX_RT_INT8_H

#include <stdint.h>
#include <string.h>

#include "nnfx_rt_qfixed.h"
#include "nnfx_rt_scalar.h"

/* section q8 is the default; q8fix replaces it in integer-only C (NNFX_RT_INT_ONLY here) */
/* @rt q8ld */
/* One int8 or uint8 element of p (sgn: int8), widened to int32; and its
 * store (v already in range). Shared by sections q8 and q8fix. */
static inline int32_t nnfx_rt_ld8(const void *p, int sgn, long i) {
    return sgn ? (int32_t)((const int8_t *)p)[i] : (int32_t)((const uint8_t *)p)[i];
}

static inline void nnfx_rt_st8(void *p, int sgn, long i, int32_t v) {
    if (sgn)
        ((int8_t *)p)[i] = (int8_t)v;
    else
        ((uint8_t *)p)[i] = (uint8_t)v;
}
/* @end */

#ifndef NNFX_RT_INT_ONLY
/* @rt q8 needs:q8ld,qepi,qfixed */
/* One int8 op's quantization: the epilogue's per-channel multiplier and
 * bias, the optional intermediate Q -> DQ (mid) and residual (res), the
 * output's QuantizeLinear (y), the types and the input's zero point; or,
 * when fb is set (int8 in and out: TFLite's fixed point, nnfx_rt_qfixed.h),
 * the int32 bias fb, multiplier fm and shift fs per channel. */
typedef struct nnfx_rt_qop {
    const float *mult, *bias;
    const nnfx_rt_qparam *mid, *res; /* NULL: none */
    nnfx_rt_qparam y;
    int x_signed, res_signed, y_signed;
    int32_t x_zp;
    const int32_t *fb, *fm, *fs; /* fixed point, or NULL */
} nnfx_rt_qop;

/* y[i] = the epilogue of accumulator acc of output channel m (res[i] the
 * residual when op->res). */
static inline void nnfx_rt_qstore(const nnfx_rt_qop *op, long m, int32_t acc, const void *res, void *y, long i) {
    int32_t r = op->res ? nnfx_rt_ld8(res, op->res_signed, i) : 0;
    if (op->fb)
        nnfx_rt_st8(y, op->y_signed, i,
                    nnfx_rt_qf_requant(acc + op->fb[m], op->fm[m], (int)op->fs[m], op->y.zp, op->y.lo, op->y.hi));
    else
        nnfx_rt_st8(y, op->y_signed, i, nnfx_rt_qepi(acc, op->mult[m], op->bias[m], op->mid, op->res, r, &op->y));
}

/* y[i0 + j] for j < n: nnfx_rt_qstore of acc[j], channel m. */
static inline void nnfx_rt_qstore_row(const nnfx_rt_qop *op, long m, const int32_t *acc, int n, const void *res,
                                      void *y, long i0) {
    int j;
    for (j = 0; j < n; j++)
        nnfx_rt_qstore(op, m, acc[j], res, y, i0 + j);
}
/* @end */

#else
/* @rt q8fix needs:q8ld,qfixed */
#if defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#endif
/* The integer-only form of section q8 (`nnfx codegen --int8-io`): the same
 * names, for the qconv and qfc sections, with no float anywhere: int8 in
 * and out, TFLite's fixed-point requantization (nnfx_rt_qfixed.h) by the
 * int32 bias fb, multiplier fm and shift fs of each output channel, output
 * zero point y_zp, clamped to [lo, hi] (Relu / Clip folded in). */
typedef struct nnfx_rt_qop {
    const int32_t *fb, *fm, *fs;
    int x_signed, y_signed;
    int32_t x_zp, y_zp, lo, hi;
} nnfx_rt_qop;

NNFX_RT_QF_INLINE void nnfx_rt_qstore(const nnfx_rt_qop *op, long m, int32_t acc, const void *res, void *y, long i) {
    (void)res;
    ((int8_t *)y)[i] = nnfx_rt_qf_requant(acc + op->fb[m], op->fm[m], (int)op->fs[m], op->y_zp, op->lo, op->hi);
}

/* y[i0 + j] for j < n: nnfx_rt_qstore of acc[j], channel m (its parameters
 * read once: int8 stores may alias); by nnfx_rt_qf_fast where it applies
 * (the same bytes), saturating to int8 when [lo, hi] is the whole range. */
static inline void nnfx_rt_qstore_row(const nnfx_rt_qop *op, long m, const int32_t *acc, int n, const void *res,
                                      void *y, long i0) {
    const int32_t b = op->fb[m], qm = op->fm[m], zp = op->y_zp, lo = op->lo, hi = op->hi;
    const int sh = (int)op->fs[m];
    int8_t *o = (int8_t *)y + i0, *const oe = o + n;
    int64_t k;
    int s1;
    (void)res;
    if (!nnfx_rt_qf_fast_k(qm, sh, zp, &k, &s1))
        while (o < oe)
            *o++ = nnfx_rt_qf_requant(*acc++ + b, qm, sh, zp, lo, hi);
#if defined(__ARM_FEATURE_MVE)
    else if ((uint32_t)k == 0x40000000u) { /* shifts below -1: k's low word is 2^30 */
        /* nnfx_rt_qf_fast four lanes a pass (x = acc + b): VQRDMULH gives R = floor((x qm + 2^30) / 2^31)
         * (qm >= 0: never saturates), so the high word of x qm + k - [x < 0] 2^31 is
         * floor((R - [x < 0]) / 2) + kh = VHADD(R, 2 kh - [x < 0]) (halved in wider precision: no
         * overflow; |2 kh| < 2^28), then >> s1 and clamped; the last n % 4 predicated (VCTP) */
        const int32_t kh2 = 2 * (int32_t)(uint32_t)((uint64_t)k >> 32);
        const int32x4_t vsh = vdupq_n_s32(-s1), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
        int j;
        for (j = 0; j < n; j += 4) {
            const mve_pred16_t pr = vctp32q((uint32_t)(n - j));
            const int32x4_t xv = vaddq_n_s32(vldrwq_z_s32(acc + j, pr), b);
            const int32x4_t h = vhaddq_s32(vqrdmulhq_n_s32(xv, qm), vaddq_n_s32(vshrq_n_s32(xv, 31), kh2));
            vstrbq_p_s32(o + j, vminq_s32(vmaxq_s32(vshlq_s32(h, vsh), vlo), vhi), pr);
        }
    }
#endif
    else if (lo == -128 && hi == 127) {
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__) && defined(__OPTIMIZE__)
        if ((uint32_t)k == 0x40000000u) { /* shifts below -1: k's low word is 2^30 */
            /* nnfx_rt_qf_fast: x = acc + b; (low, high) = (2^30, high word of k) - [x < 0] 2^31, the low
             * word by AND, EOR and the high word by the sign; SMLAL adds x qm; the high word >> s1 saturated */
            const int32_t kh = (int32_t)(uint32_t)((uint64_t)k >> 32);
#define NNFX_RT_QSTORE_ASM                                                                                             \
    "ldr %[a], [%[acc]], #4\n\t"                                                                                       \
    "add %[a], %[a], %[b]\n\t"                                                                                         \
    "and %[l], %[a], #0x80000000\n\t"                                                                                  \
    "eor %[l], %[l], #0x40000000\n\t"                                                                                  \
    "add %[h], %[kh], %[a], asr #31\n\t"                                                                               \
    "smlal %[l], %[h], %[a], %[qm]\n\t"                                                                                \
    "asr %[h], %[h], %[s1]\n\t"                                                                                        \
    "ssat %[h], #8, %[h]\n\t"                                                                                          \
    "strb %[h], [%[o]], #1\n\t"
#define NNFX_RT_QSTORE_OPS                                                                                             \
    : [a] "=&r"(a), [l] "=&r"(l), [h] "=&r"(h), [acc] "+r"(acc), [o] "+r"(o)                                          \
    : [b] "r"(b), [kh] "r"(kh), [qm] "r"(qm), [s1] "r"(s1)                                                             \
    : "memory"
            int32_t a, l, h;
            if (n & 1) __asm__(NNFX_RT_QSTORE_ASM NNFX_RT_QSTORE_OPS);
            while (o < oe)
                __asm__(NNFX_RT_QSTORE_ASM NNFX_RT_QSTORE_ASM NNFX_RT_QSTORE_OPS);
            return;
        }
#endif
#if defined(__ARM_FEATURE_SAT)
        if (n & 1) *o++ = (int8_t)__ssat(nnfx_rt_qf_fast(*acc++ + b, qm, k, s1), 8);
        while (o < oe) { /* two a pass */
            const int32_t a0 = acc[0] + b, a1 = acc[1] + b;
            acc += 2;
            o[0] = (int8_t)__ssat(nnfx_rt_qf_fast(a0, qm, k, s1), 8);
            o[1] = (int8_t)__ssat(nnfx_rt_qf_fast(a1, qm, k, s1), 8);
            o += 2;
        }
#else
        while (o < oe)
            *o++ = (int8_t)nnfx_rt_qf_clamp(nnfx_rt_qf_fast(*acc++ + b, qm, k, s1), -128, 127);
#endif
    } else
        while (o < oe)
            *o++ = (int8_t)nnfx_rt_qf_clamp(nnfx_rt_qf_fast(*acc++ + b, qm, k, s1), lo, hi);
}
/* @end */
#endif

/* @rt qconv needs:q8 */
/* int8 2-d convolution (grouped and depthwise too), direct: g as
 * nnfx_rt_conv2d's (N C H W M KH KW OH OW stride h/w pad top/left dilation
 * h/w group). x [N,C,H,W] with zero point op->x_zp (padding holds the zero
 * point, so it adds nothing), w [M,C/group,KH,KW]; acc = sum (x - x_zp) * w
 * in int32 (exact), then the epilogue into y [N,M,OH,OW] (res shaped like
 * y). A tile of NNFX_RT_QMB output channels (one for depthwise) x
 * NNFX_RT_QPT outputs of a row is accumulated tap by tap over the tap's
 * valid columns, each input value loaded once for the tile's channels and
 * no bounds checks in the inner loop (the generator passes a 1x1, stride-1,
 * unpadded conv as one row per plane). */
#define NNFX_RT_QMB 4 /* NNFX_RT_QTAP unrolls these 4 rows */
#define NNFX_RT_QPT 32
/* acc[i][lo + j] += (xp[j * SW] - zp) * wv[i] for j < cnt, i < mb */
#define NNFX_RT_QTAP(xp)                                                                                               \
    if (mb == 1 && SW == 1)                                                                                            \
        for (j = 0; j < cnt; j++)                                                                                      \
            acc[0][lo + j] += (xp[j] - zp) * wv[0];                                                                    \
    else if (mb == 1)                                                                                                  \
        for (j = 0; j < cnt; j++)                                                                                      \
            acc[0][lo + j] += (xp[(long)j * SW] - zp) * wv[0];                                                         \
    else {                                                                                                             \
        int32_t *a0 = acc[0] + lo, *a1 = acc[1] + lo, *a2 = acc[2] + lo, *a3 = acc[3] + lo; /* NNFX_RT_QMB rows */     \
        const int32_t w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];                                                  \
        for (j = 0; j < cnt; j++) {                                                                                    \
            const int32_t xv = xp[(long)j * SW] - zp;                                                                  \
            a0[j] += xv * w0, a1[j] += xv * w1, a2[j] += xv * w2, a3[j] += xv * w3;                                    \
        }                                                                                                              \
    }
static void nnfx_rt_qconv(const void *x, const int8_t *w, const nnfx_rt_qop *op, const void *res, void *y,
                          const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], M = g[4], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14], G = g[15];
    const int CG = C / G, MG = M / G;
    const long KS = (long)CG * KH * KW; /* weights per output channel */
    const int32_t zp = op->x_zp;
    const int8_t *xs = (const int8_t *)x;
    const uint8_t *xu = (const uint8_t *)x;
    int n, m, mb, oh, ow0, c, kh, kw, i, j;
    for (n = 0; n < N; n++)
        for (m = 0; m < M; m += mb) {
            const int mend = (m / MG + 1) * MG; /* the end of m's group */
            const long x0 = ((long)n * C + (long)(m / MG) * CG) * H * W;
            mb = MG < NNFX_RT_QMB ? 1 : (mend - m < NNFX_RT_QMB ? mend - m : NNFX_RT_QMB);
            for (oh = 0; oh < OH; oh++)
                for (ow0 = 0; ow0 < OW; ow0 += NNFX_RT_QPT) {
                    const int nw = OW - ow0 < NNFX_RT_QPT ? OW - ow0 : NNFX_RT_QPT;
                    int32_t acc[NNFX_RT_QMB][NNFX_RT_QPT];
                    for (i = 0; i < NNFX_RT_QMB; i++)
                        for (j = 0; j < nw; j++)
                            acc[i][j] = 0;
                    for (c = 0; c < CG; c++)
                        for (kh = 0; kh < KH; kh++) {
                            const int ih = oh * SH - PH + kh * DH;
                            if (ih < 0 || ih >= H) continue;
                            for (kw = 0; kw < KW; kw++) {
                                const int dx = kw * DW - PW;
                                /* columns j of the run with 0 <= (ow0 + j) * SW + dx < W */
                                int lo = dx >= 0 ? 0 : (-dx + SW - 1) / SW;
                                int hi = W - 1 - dx < 0 ? 0 : (W - 1 - dx) / SW + 1;
                                int32_t wv[NNFX_RT_QMB], any = 0;
                                long b0;
                                int cnt;
                                const int8_t *wp = w + (((long)m * CG + c) * KH + kh) * KW + kw;
                                for (i = 0; i < NNFX_RT_QMB; i++) { /* channel m + i's tap: KS apart */
                                    wv[i] = i < mb ? wp[(long)i * KS] : 0;
                                    any |= wv[i];
                                }
                                lo = lo > ow0 ? lo - ow0 : 0;
                                hi = hi - ow0 < nw ? hi - ow0 : nw;
                                if (!any || lo >= hi) continue;
                                cnt = hi - lo;
                                b0 = x0 + ((long)c * H + ih) * W + (long)(ow0 + lo) * SW + dx;
                                if (op->x_signed) {
                                    const int8_t *xp = xs + b0;
                                    NNFX_RT_QTAP(xp)
                                } else {
                                    const uint8_t *xp = xu + b0;
                                    NNFX_RT_QTAP(xp)
                                }
                            }
                        }
                    for (i = 0; i < mb; i++)
                        nnfx_rt_qstore_row(op, m + i, acc[i], nw, res, y, (((long)n * M + m + i) * OH + oh) * OW + ow0);
                }
        }
}
/* @end */

/* @rt qpwdot */
/* The Arm DSP extension's dot products of packed 16-bit pairs that
 * nnfx_rt_qpw_dsp and nnfx_rt_qconvg share (nothing without
 * __ARM_FEATURE_DSP). */
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#define NNFX_RT_QPW_CPACK 512  /* the most channels of a pointwise convolution */
#define NNFX_RT_QCG_KMAX  640  /* the most taps C*KH*KW of nnfx_rt_qconvg */
#define NNFX_RT_QPW_XQ    1280 /* words of stack for packed input pixels: 4 pixels of NNFX_RT_QCG_KMAX */
#define NNFX_RT_QPW_PB    64   /* at most this many pixels a block */
/* u rotated right by 8: SXTB16 of it sign-extends u's bytes 1 and 3 */
#define NNFX_RT_ROR8(u) ((u) >> 8 | (u) << 24)
#if defined(__GNUC__)
#define NNFX_RT_QPW_NOINLINE __attribute__((noinline)) /* the loop keeps its registers */
#else
#define NNFX_RT_QPW_NOINLINE
#endif
/* The pixels a block of P pixels with K4 packed taps each (a multiple of 4,
 * > 0): blocks of at most NNFX_RT_QPW_PB pixels whose groups of 4 fit
 * NNFX_RT_QPW_XQ words, as even as can be (a multiple of 4). */
static long nnfx_rt_qpw_block(long P, int K4) {
    const long most =
        4 * (NNFX_RT_QPW_XQ / (2 * K4)) < NNFX_RT_QPW_PB ? 4 * (NNFX_RT_QPW_XQ / (2 * K4)) : NNFX_RT_QPW_PB;
    const long nb = (P + most - 1) / most;
    return ((P + nb - 1) / nb + 3) & ~3L;
}
/* r[4 g .. 4 g + 3] = the dot products of group g's 4 pixels' packed pairs
 * (2 C4 words a group from q, word aligned: 8 words per 4 channels) with
 * the weights w[0 .. C4), for g < ng; C4 a multiple of 4 (> 0). With GCC
 * optimizing (its inline assembly wants more registers than -O0 leaves):
 * the loop body in assembly (one LDRD a pixel's pair of words, SXTB16 with
 * its rotation), eight channels a pass: 33 instructions per 32 MACs. */
static NNFX_RT_QPW_NOINLINE void nnfx_rt_qpw_dot4(const int32_t *q, const int8_t *w, int C4, int32_t *r, long ng) {
    int32_t *const re = r + 4 * ng;
    for (; r < re; r += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const int8_t *w0 = w, *const end = w + C4;
#if defined(__GNUC__) && defined(__OPTIMIZE__)
/* four channels of the 4 pixels */
#define NNFX_RT_QPW_DOT4_ASM                                                                                           \
    "ldr %[u], [%[w]], #4\n\t"                                                                                         \
    "sxtb16 %[wa], %[u]\n\t"                                                                                           \
    "sxtb16 %[wb], %[u], ror #8\n\t"                                                                                   \
    "ldrd %[x0], %[x1], [%[q]], #8\n\t"                                                                                \
    "smlad %[a0], %[x0], %[wa], %[a0]\n\t"                                                                             \
    "smlad %[a0], %[x1], %[wb], %[a0]\n\t"                                                                             \
    "ldrd %[x0], %[x1], [%[q]], #8\n\t"                                                                                \
    "smlad %[a1], %[x0], %[wa], %[a1]\n\t"                                                                             \
    "smlad %[a1], %[x1], %[wb], %[a1]\n\t"                                                                             \
    "ldrd %[x0], %[x1], [%[q]], #8\n\t"                                                                                \
    "smlad %[a2], %[x0], %[wa], %[a2]\n\t"                                                                             \
    "smlad %[a2], %[x1], %[wb], %[a2]\n\t"                                                                             \
    "ldrd %[x0], %[x1], [%[q]], #8\n\t"                                                                                \
    "smlad %[a3], %[x0], %[wa], %[a3]\n\t"                                                                             \
    "smlad %[a3], %[x1], %[wb], %[a3]\n\t"
#define NNFX_RT_QPW_DOT4_OPS                                                                                           \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [q] "+r"(q), [w] "+r"(w0), [u] "=&r"(u),              \
      [wa] "=&r"(wa), [wb] "=&r"(wb), [x0] "=&r"(x0), [x1] "=&r"(x1)                                                   \
    :                                                                                                                  \
    : "memory"
        const int8_t *const end8 = w0 + (C4 & ~7);
        int32_t u, wa, wb, x0, x1;
        while (w0 < end8) /* eight channels a pass */
            __asm__(NNFX_RT_QPW_DOT4_ASM NNFX_RT_QPW_DOT4_ASM NNFX_RT_QPW_DOT4_OPS);
        if (w0 < end) __asm__(NNFX_RT_QPW_DOT4_ASM NNFX_RT_QPW_DOT4_OPS);
#else
        for (; w0 < end; w0 += 4, q += 8) {
            uint32_t u;
            int32_t wa, wb;
            memcpy(&u, w0, 4);
            wa = __sxtb16(u), wb = __sxtb16(NNFX_RT_ROR8(u)); /* (c, c+2), (c+1, c+3) */
            a0 = __smlad(q[0], wa, a0), a0 = __smlad(q[1], wb, a0);
            a1 = __smlad(q[2], wa, a1), a1 = __smlad(q[3], wb, a1);
            a2 = __smlad(q[4], wa, a2), a2 = __smlad(q[5], wb, a2);
            a3 = __smlad(q[6], wa, a3), a3 = __smlad(q[7], wb, a3);
        }
#endif
        r[0] = a0, r[1] = a1, r[2] = a2, r[3] = a3;
    }
}
#endif
/* @end */

/* @rt qpw needs:q8,qpwdot */
/* int8 pointwise convolution (1x1, stride 1, no padding, group 1), the fast
 * form of nnfx_rt_qconv for that case, same bytes: x [N,C,P] int8 (P = H*W,
 * zero point op->x_zp), w [M,C], y [N,M,P] int8 by the epilogue (no
 * residual). Portable C: a pass computes 2 output channels x 2 pixels in
 * registers, the zero point folded out of the inner loop (sum w*(x-zx) =
 * sum w*x - zx*sum w, exact in int32 for C <= 4096, the generator's limit).
 * Under __ARM_FEATURE_DSP, for 4 <= C <= NNFX_RT_QPW_CPACK: nnfx_rt_qpw_dsp. */
#if defined(__ARM_FEATURE_DSP)
/* nnfx_rt_qpw with the Arm DSP extension, 4 <= C <= NNFX_RT_QPW_CPACK: the
 * pixels are taken in blocks (a multiple of 4, at most NNFX_RT_QPW_PB, that
 * fit NNFX_RT_QPW_XQ words packed). A block's input minus its zero point is
 * packed once (SXTB16, SSUB16) as 16-bit pairs of channels (c, c+2) and
 * (c+1, c+3) of each pixel, the order SXTB16 gives a word of four weights;
 * then each output channel takes four channels of 4 pixels with eight
 * SMLADs (two 16-bit MACs an instruction; x - zx in [-255, 255], exact),
 * the last C % 4 channels in portable C (the block's last P % 4 pixels are
 * packed as a group, zero past them), and the block's row of outputs is
 * requantized at once. Stack: 4 *
 * NNFX_RT_QPW_XQ + 4 * NNFX_RT_QPW_PB bytes. */
static void nnfx_rt_qpw_dsp(const int8_t *x, const int8_t *w, const nnfx_rt_qop *op, int8_t *y, long N, int C, int M,
                            long P) {
    const int32_t zp = op->x_zp;
    const int32_t zz = (int32_t)(((uint32_t)zp & 0xffffu) * 0x10001u);
    const int C4 = C & ~3;
    const long PB0 = nnfx_rt_qpw_block(P, C4);
    int32_t xq[NNFX_RT_QPW_XQ], r[NNFX_RT_QPW_PB];
    long n, p0, p;
    int m, c, k;
    for (n = 0; n < N; n++)
        for (p0 = 0; p0 < P; p0 += PB0) {
            const long np = P - p0 < PB0 ? P - p0 : PB0, n4 = np & ~3L; /* pixels, in groups of 4 */
            const int8_t *xb = x + n * C * P + p0, *xc;
            for (p = 0; p < n4; p += 4) /* pack the groups */
                for (c = 0, xc = xb + p; c < C4; c += 4, xc += 4 * P)
                    for (k = 0; k < 4; k += 2) { /* pixels p + k, p + k + 1 */
                        uint16_t h0, h1, h2, h3;
                        uint32_t v02, v13;
                        int32_t *o = xq + 2 * C4 * (p / 4) + 2 * c + 2 * k;
                        memcpy(&h0, xc + k, 2), memcpy(&h1, xc + P + k, 2);
                        memcpy(&h2, xc + 2 * P + k, 2), memcpy(&h3, xc + 3 * P + k, 2);
                        v02 = h0 | (uint32_t)h2 << 16, v13 = h1 | (uint32_t)h3 << 16; /* x[c][..], x[c+2][..] */
                        o[0] = __ssub16(__sxtb16(v02), zz), o[1] = __ssub16(__sxtb16(v13), zz);
                        o[2] = __ssub16(__sxtb16(NNFX_RT_ROR8(v02)), zz);
                        o[3] = __ssub16(__sxtb16(NNFX_RT_ROR8(v13)), zz);
                    }
            if (n4 < np) { /* the last np - n4 pixels as a group, zero (x = zx) past them */
                int32_t *o = xq + 2 * C4 * (n4 / 4);
                for (c = 0, xc = xb + n4; c < C4; c += 4, xc += 4 * P, o += 8)
                    for (k = 0; k < 4; k++) {
                        const int in = n4 + k < np;
                        const int32_t v0 = in ? xc[k] - zp : 0, v1 = in ? xc[P + k] - zp : 0;
                        const int32_t v2 = in ? xc[2 * P + k] - zp : 0, v3 = in ? xc[3 * P + k] - zp : 0;
                        o[2 * k] = (int32_t)((uint32_t)(uint16_t)v0 | (uint32_t)v2 << 16);
                        o[2 * k + 1] = (int32_t)((uint32_t)(uint16_t)v1 | (uint32_t)v3 << 16);
                    }
            }
            for (m = 0; m < M; m++) {
                const int8_t *w0 = w + (long)m * C;
                nnfx_rt_qpw_dot4(xq, w0, C4, r, (np + 3) / 4);
                for (c = C4, xc = xb + (long)c * P; c < C; c++, xc += P) /* the last channels */
                    for (p = 0; p < np; p++)
                        r[p] += (xc[p] - zp) * w0[c];
                nnfx_rt_qstore_row(op, m, r, (int)np, 0, y, (n * M + m) * P + p0);
            }
        }
}
#endif
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#define NNFX_RT_QPW_MVE_BUF 4096 /* bytes of stack for a block's pixels, channels contiguous */
/* r[j] = sum over c < C of xt[j * C + c] * wm[c], j < 4 (xt int8, C >= 16):
 * 16 channels a pass by VMLADAVA.S8 (exact int32), the last C % 16 by the
 * same instruction on VCTP-predicated (zeroing) loads. */
static inline void nnfx_rt_qpw_mve4(const int8_t *xt, const int8_t *wm, int C, int32_t *r) {
    const int8_t *x1 = xt + C, *x2 = x1 + C, *x3 = x2 + C;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int c = 0;
    for (; c + 16 <= C; c += 16) {
        const int8x16_t wv = vldrbq_s8(wm + c);
        a0 = vmladavaq_s8(a0, vldrbq_s8(xt + c), wv), a1 = vmladavaq_s8(a1, vldrbq_s8(x1 + c), wv);
        a2 = vmladavaq_s8(a2, vldrbq_s8(x2 + c), wv), a3 = vmladavaq_s8(a3, vldrbq_s8(x3 + c), wv);
    }
    if (c < C) {
        const mve_pred16_t pr = vctp8q((uint32_t)(C - c));
        const int8x16_t wv = vldrbq_z_s8(wm + c, pr);
        a0 = vmladavaq_s8(a0, vldrbq_z_s8(xt + c, pr), wv), a1 = vmladavaq_s8(a1, vldrbq_z_s8(x1 + c, pr), wv);
        a2 = vmladavaq_s8(a2, vldrbq_z_s8(x2 + c, pr), wv), a3 = vmladavaq_s8(a3, vldrbq_z_s8(x3 + c, pr), wv);
    }
    r[0] = a0, r[1] = a1, r[2] = a2, r[3] = a3;
}
/* nnfx_rt_qpw with Helium (MVE), 16 <= C <= NNFX_RT_QPW_MVE_BUF / 4, same
 * bytes: the pixels in blocks (at most NNFX_RT_QPW_PB, fitting
 * NNFX_RT_QPW_MVE_BUF bytes, as even as can be), each block transposed so
 * that a pixel's C channels are contiguous; each output channel takes 4
 * pixels a pass (nnfx_rt_qpw_mve4, the last np % 4 pixels one by one), the
 * zero point folded out (sum w*(x-zx) = sum w*x - zx*sum w, exact in int32
 * for C <= 4096), and the block's row is requantized at once. Stack:
 * NNFX_RT_QPW_MVE_BUF + 4 * NNFX_RT_QPW_PB bytes. */
static void nnfx_rt_qpw_mve(const int8_t *x, const int8_t *w, const nnfx_rt_qop *op, int8_t *y, long N, int C, int M,
                            long P) {
    const int32_t zp = op->x_zp;
    const long most = NNFX_RT_QPW_MVE_BUF / C < NNFX_RT_QPW_PB ? NNFX_RT_QPW_MVE_BUF / C : NNFX_RT_QPW_PB;
    const long nb = (P + most - 1) / most, PB0 = (P + nb - 1) / nb;
    int8_t xt[NNFX_RT_QPW_MVE_BUF];
    int32_t r[NNFX_RT_QPW_PB];
    long n, p0, p;
    int m, c;
    for (n = 0; n < N; n++)
        for (p0 = 0; p0 < P; p0 += PB0) {
            const long np = P - p0 < PB0 ? P - p0 : PB0, n4 = np & ~3L;
            const int8_t *xb = x + n * C * P + p0;
            for (c = 0; c < C; c++) { /* transpose the block: xt[p][c] */
                const int8_t *xc = xb + (long)c * P;
                int8_t *o = xt + c;
                for (p = 0; p < np; p++, o += C)
                    *o = xc[p];
            }
            for (m = 0; m < M; m++) {
                const int8_t *wm = w + (long)m * C;
                int32_t ws = 0;
                for (c = 0; c < C; c += 16) /* sum w, the last lanes zero */
                    ws = vaddvaq_s8(ws, vldrbq_z_s8(wm + c, vctp8q((uint32_t)(C - c))));
                ws *= zp;
                for (p = 0; p < n4; p += 4)
                    nnfx_rt_qpw_mve4(xt + p * C, wm, C, r + p);
                for (; p < np; p++) {
                    const int8_t *xp = xt + p * C;
                    int32_t a = 0;
                    for (c = 0; c < C; c += 16) {
                        const mve_pred16_t pr = vctp8q((uint32_t)(C - c));
                        a = vmladavaq_s8(a, vldrbq_z_s8(xp + c, pr), vldrbq_z_s8(wm + c, pr));
                    }
                    r[p] = a;
                }
                for (p = 0; p < np; p++)
                    r[p] -= ws;
                nnfx_rt_qstore_row(op, m, r, (int)np, 0, y, (n * M + m) * P + p0);
            }
        }
}
#endif
static void nnfx_rt_qpw(const void *x, const int8_t *w, const nnfx_rt_qop *op, void *y, long N, int C, int M, long P) {
    const int32_t zp = op->x_zp;
    long n, p;
    int m, c;
#if defined(__ARM_FEATURE_MVE)
    if (C >= 16 && C <= NNFX_RT_QPW_MVE_BUF / 4) {
        nnfx_rt_qpw_mve((const int8_t *)x, w, op, (int8_t *)y, N, C, M, P);
        return;
    }
#endif
#if defined(__ARM_FEATURE_DSP)
    if (C >= 4 && C <= NNFX_RT_QPW_CPACK) {
        nnfx_rt_qpw_dsp((const int8_t *)x, w, op, (int8_t *)y, N, C, M, P);
        return;
    }
#endif
    for (n = 0; n < N; n++)
        for (m = 0; m < M; m += 2) {
            const int8_t *w0 = w + (long)m * C, *w1 = m + 1 < M ? w0 + C : w0;
            int32_t s0 = 0, s1 = 0;
            for (c = 0; c < C; c++)
                s0 += w0[c], s1 += w1[c];
            s0 *= -zp, s1 *= -zp;
            for (p = 0; p < P; p += 2) {
                const int np = P - p < 2 ? 1 : 2;
                const int8_t *x0 = (const int8_t *)x + n * C * P + p, *xc;
                int32_t a00 = s0, a01 = s0, a10 = s1, a11 = s1, r[2];
                for (c = 0, xc = x0; c < C; c++, xc += P) {
                    const int32_t v0 = xc[0], v1 = xc[np - 1], q0 = w0[c], q1 = w1[c];
                    a00 += v0 * q0, a01 += v1 * q0, a10 += v0 * q1, a11 += v1 * q1;
                }
                r[0] = a00, r[1] = a01;
                nnfx_rt_qstore_row(op, m, r, np, 0, y, (n * M + m) * P + p);
                if (m + 1 < M) {
                    r[0] = a10, r[1] = a11;
                    nnfx_rt_qstore_row(op, m + 1, r, np, 0, y, (n * M + m + 1) * P + p);
                }
            }
        }
}
/* @end */

/* @rt q16pad */
/* The rows of a plane minus its zero point into an int16 buffer: d[i * DS
 * + t] = s[i * W + t] - zp for i < rows, t < len (the rest of d untouched:
 * the padding a caller zeroed); under __ARM_FEATURE_DSP four values a pass.
 * Shared by sections qdw3 and qconv1. */
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif
#if defined(__GNUC__)
#define NNFX_RT_Q16_NOINLINE __attribute__((noinline)) /* a short loop that keeps its registers */
#else
#define NNFX_RT_Q16_NOINLINE
#endif
static NNFX_RT_Q16_NOINLINE void nnfx_rt_q16pad(int16_t *d, long DS, const int8_t *s, long W, int rows, int len,
                                                int32_t zp) {
    int i;
#if defined(__ARM_FEATURE_DSP)
    const int32_t zz = (int32_t)(((uint32_t)zp & 0xffffu) * 0x10001u);
#endif
    for (i = 0; i < rows; i++, d += DS, s += W) {
        const int8_t *sp = s, *se = s + len;
        int16_t *dp = d;
#if defined(__ARM_FEATURE_DSP)
        for (; se - sp >= 4; sp += 4, dp += 4) { /* SXTB16, SSUB16, then the halves back in order */
            uint32_t u, e, o, lo, hi;
            memcpy(&u, sp, 4);
            e = (uint32_t)__ssub16(__sxtb16(u), zz);                    /* values 0, 2 */
            o = (uint32_t)__ssub16(__sxtb16((u >> 8) | (u << 24)), zz); /* values 1, 3 */
            lo = (e & 0xffffu) | o << 16, hi = (e >> 16) | (o & 0xffff0000u);
            memcpy(dp, &lo, 4), memcpy(dp + 2, &hi, 4);
        }
#endif
        while (sp < se)
            *dp++ = (int16_t)(*sp++ - zp);
    }
}
/* @end */

/* @rt qdw3 needs:q8,q16pad */
/* int8 3x3 depthwise convolution (group = C = M, dilation 1, any stride and
 * padding), the fast form of nnfx_rt_qconv for that case, same bytes: g as
 * nnfx_rt_qconv's, x int8 with zero point op->x_zp, w [C,1,3,3], y int8 by
 * the epilogue (no residual). Up to 16 outputs of a row at a time, a kernel
 * row at a time (rows in the padding skipped): the columns whose three taps
 * lie inside the input with no bounds checks and the zero point folded out
 * (sum w*x - zx*sum w, exact), the border columns tap by tap. A plane whose
 * padded extent fits NNFX_RT_QDW_BUF values is first copied, minus its zero
 * point, into an int16 buffer padded with zeros, and all nine taps of every
 * output are then read with no checks (nnfx_rt_qdw3_run). */
#define NNFX_RT_QDW_BUF 768 /* int16 values of stack for a padded plane */
#define NNFX_RT_QDW_OUT 128 /* int32 outputs of stack: output rows a block, one requantization */
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif
#if defined(__GNUC__)
#define NNFX_RT_QDW_NOINLINE __attribute__((noinline)) /* the loop keeps its registers */
#else
#define NNFX_RT_QDW_NOINLINE
#endif
#if defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
/* acc = the 3x3 taps k0..k8 (rows WB apart) of the 4 windows at p + o
 * (halfword offsets), each tap a VMLA of 4 lanes; LD: a gather,
 * NNFX_RT_QDW_LD or NNFX_RT_QDW_LDZ (the lanes of pr, the others zero) */
#define NNFX_RT_QDW_LD(v)         vldrhq_gather_shifted_offset_s32(p, v)
#define NNFX_RT_QDW_LDZ(v)        vldrhq_gather_shifted_offset_z_s32(p, v, pr)
#define NNFX_RT_QDW_TAP(LD, d, q) acc = vmlaq_n_s32(acc, LD(vaddq_n_u32(o, (uint32_t)(d))), q)
#define NNFX_RT_QDW_MVE9(LD)                                                                                           \
    acc = vmulq_n_s32(LD(o), k0), NNFX_RT_QDW_TAP(LD, 1, k1), NNFX_RT_QDW_TAP(LD, 2, k2), NNFX_RT_QDW_TAP(LD, WB, k3), \
    NNFX_RT_QDW_TAP(LD, WB + 1, k4), NNFX_RT_QDW_TAP(LD, WB + 2, k5), NNFX_RT_QDW_TAP(LD, 2 * WB, k6),                 \
    NNFX_RT_QDW_TAP(LD, 2 * WB + 1, k7), NNFX_RT_QDW_TAP(LD, 2 * WB + 2, k8);
/* r[t] = the 3x3 taps k of the window at p + off[t] (a plane of x - zx,
 * rows WB apart), t < total: 4 outputs a pass by gathers, wherever the
 * windows lie (any stride, across output rows), the last total % 4
 * predicated (VCTP). */
static NNFX_RT_QDW_NOINLINE void nnfx_rt_qdw3_mve(const int16_t *p, int WB, const uint32_t *off, const int8_t *k,
                                                  int32_t *r, int total) {
    const int32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7], k8 = k[8];
    int t;
    for (t = 0; t + 4 <= total; t += 4) {
        const uint32x4_t o = vldrwq_u32(off + t);
        int32x4_t acc;
        NNFX_RT_QDW_MVE9(NNFX_RT_QDW_LD)
        vstrwq_s32(r + t, acc);
    }
    if (t < total) {
        const mve_pred16_t pr = vctp32q((uint32_t)(total - t));
        const uint32x4_t o = vldrwq_z_u32(off + t, pr);
        int32x4_t acc;
        NNFX_RT_QDW_MVE9(NNFX_RT_QDW_LDZ)
        vstrwq_p_s32(r + t, acc, pr);
    }
}
#else /* Helium takes nnfx_rt_qdw3_mve */
/* r[i * cnt + j] = the 3x3 taps k of the window at p + i * RS + j * SW of
 * a plane of x - zx (rows WB apart), i < rows, j < cnt; under
 * __ARM_FEATURE_DSP two taps a time with SMLAD, each row's third by SMLABB /
 * SMLABT (the low half of the word that holds it and the next value). */
static NNFX_RT_QDW_NOINLINE void nnfx_rt_qdw3_run(const int16_t *p, int WB, int SW, long RS, const int8_t *k,
                                                  int32_t *r, int rows, int cnt) {
    int i;
#if defined(__ARM_FEATURE_DSP)
#define NNFX_RT_QDW_PAIR(a, b) ((int32_t)((uint32_t)(uint16_t)(a) | (uint32_t)(b) << 16))
    /* the first two taps of a row by SMLAD, the third by SMLABB / SMLABT (k2 and k5 share a word): five weights */
    const int32_t w01 = NNFX_RT_QDW_PAIR(k[0], k[1]), w34 = NNFX_RT_QDW_PAIR(k[3], k[4]);
    const int32_t w67 = NNFX_RT_QDW_PAIR(k[6], k[7]), w25 = NNFX_RT_QDW_PAIR(k[2], k[5]), w8 = k[8];
#if defined(__GNUC__) && defined(__OPTIMIZE__)
/* one output: the three rows' words at p0, p1, p2 (each then advanced by the immediate ST bytes) into *r++ */
#define NNFX_RT_QDW_ASM(ST)                                                                                            \
    while (r < re) {                                                                                                   \
        int32_t a, acc;                                                                                                \
        __asm__("ldr %[a], [%[p0], #4]\n\t"                                                                            \
                "smulbb %[acc], %[a], %[w25]\n\t"                                                                      \
                "ldr %[a], [%[p0]], %[st]\n\t"                                                                         \
                "smlad %[acc], %[a], %[w01], %[acc]\n\t"                                                               \
                "ldr %[a], [%[p1], #4]\n\t"                                                                            \
                "smlabt %[acc], %[a], %[w25], %[acc]\n\t"                                                              \
                "ldr %[a], [%[p1]], %[st]\n\t"                                                                         \
                "smlad %[acc], %[a], %[w34], %[acc]\n\t"                                                               \
                "ldr %[a], [%[p2], #4]\n\t"                                                                            \
                "smlabb %[acc], %[a], %[w8], %[acc]\n\t"                                                               \
                "ldr %[a], [%[p2]], %[st]\n\t"                                                                         \
                "smlad %[acc], %[a], %[w67], %[acc]\n\t"                                                               \
                "str %[acc], [%[r]], #4"                                                                               \
                : [a] "=&r"(a), [acc] "=&r"(acc), [p0] "+r"(p0), [p1] "+r"(p1), [p2] "+r"(p2), [r] "+r"(r)             \
                : [w01] "r"(w01), [w34] "r"(w34), [w67] "r"(w67), [w25] "r"(w25), [w8] "r"(w8), [st] "i"(ST)           \
                : "memory");                                                                                           \
    }
    if (SW == 1 || SW == 2) { /* the row loop with no other work: the windows' pointers and r stay in registers */
        for (i = 0; i < rows; i++) {
            const int16_t *p0 = p + i * RS, *p1 = p0 + WB, *p2 = p1 + WB;
            int32_t *const re = r + cnt;
            if (SW == 1) {
                NNFX_RT_QDW_ASM(2)
            } else {
                NNFX_RT_QDW_ASM(4)
            }
        }
        return;
    }
#endif
    for (i = 0; i < rows; i++, p += RS) {
        const int16_t *p0 = p, *p1 = p + WB, *p2 = p1 + WB;
        int32_t *const re = r + cnt;
        while (r < re) {
            int32_t a, b, acc;
            memcpy(&a, p0, 4), memcpy(&b, p0 + 2, 4);
            acc = __smlabb(b, w25, __smuad(a, w01));
            memcpy(&a, p1, 4), memcpy(&b, p1 + 2, 4);
            acc = __smlabt(b, w25, __smlad(a, w34, acc));
            memcpy(&a, p2, 4), memcpy(&b, p2 + 2, 4);
            *r++ = __smlabb(b, w8, __smlad(a, w67, acc));
            p0 += SW, p1 += SW, p2 += SW;
        }
    }
#else
    const int32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7], k8 = k[8];
    int j;
    for (i = 0; i < rows; i++, p += RS) {
        const int16_t *p0 = p, *p1 = p + WB, *p2 = p1 + WB;
        for (j = 0; j < cnt; j++, p0 += SW, p1 += SW, p2 += SW)
            *r++ = p0[0] * k0 + p0[1] * k1 + p0[2] * k2 + p1[0] * k3 + p1[1] * k4 + p1[2] * k5 + p2[0] * k6 +
                   p2[1] * k7 + p2[2] * k8;
    }
#endif
}
#endif
static void nnfx_rt_qdw3(const void *x, const int8_t *w, const nnfx_rt_qop *op, void *y, const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], OH = g[7], OW = g[8], SH = g[9], SW = g[10], PH = g[11],
              PW = g[12];
    const int32_t zp = op->x_zp;
    /* the interior columns: 0 <= j * SW - PW and j * SW - PW + 2 < W */
    const int jlo0 = (PW + SW - 1) / SW, jhi0 = W - 3 + PW < 0 ? 0 : (W - 3 + PW) / SW + 1;
    /* the rows and columns the windows cover, padding included */
    const int HB = (OH - 1) * SH + 3, WB = (OW - 1) * SW + 3;
    /* small planes: x - zx in a buffer padded with zeros, zeroed once; rb output rows a block */
    const int small = (long)HB * WB <= NNFX_RT_QDW_BUF, len = W < WB - PW ? W : WB - PW;
    const int rb = OW <= 16 ? NNFX_RT_QDW_OUT / OW : 1;
    int16_t buf[NNFX_RT_QDW_BUF + 1]; /* + 1: the pair read past the last window */
    int32_t r[NNFX_RT_QDW_OUT];
    int n, ch, oh, ow0, j, kh, kw, nr;
#if defined(__ARM_FEATURE_MVE)
    /* output t of a block (row t / c16, column t % c16; nr * cnt is a prefix, rows of nr > 1 whole) at off[t] */
    const int c16 = OW < 16 ? OW : 16;
    uint32_t off[NNFX_RT_QDW_OUT];
    for (j = 0; j < NNFX_RT_QDW_OUT; j++)
        off[j] = (uint32_t)((j / c16) * SH * WB + (j % c16) * SW);
#endif
    if (small) memset(buf, 0, sizeof buf);
    for (n = 0; n < N; n++)
        for (ch = 0; ch < C; ch++) {
            const int8_t *xp = (const int8_t *)x + ((long)n * C + ch) * H * W, *k = w + (long)ch * 9;
            if (small) { /* x - zx into the buffer's interior (its padding stays zero) */
                nnfx_rt_q16pad(buf + (long)PH * WB + PW, WB, xp, W, H < HB - PH ? H : HB - PH, len, zp);
                for (oh = 0; oh < OH; oh += nr) {
                    nr = OH - oh < rb ? OH - oh : rb;
                    for (ow0 = 0; ow0 < OW; ow0 += 16) { /* rows of nr > 1 are whole: contiguous in y */
                        const int cnt = OW - ow0 < 16 ? OW - ow0 : 16;
#if defined(__ARM_FEATURE_MVE)
                        nnfx_rt_qdw3_mve(buf + (long)oh * SH * WB + (long)ow0 * SW, WB, off, k, r, nr * cnt);
#else
                        nnfx_rt_qdw3_run(buf + (long)oh * SH * WB + (long)ow0 * SW, WB, SW, (long)SH * WB, k, r, nr,
                                         cnt);
#endif
                        nnfx_rt_qstore_row(op, ch, r, nr * cnt, 0, y, (((long)n * C + ch) * OH + oh) * OW + ow0);
                    }
                }
                continue;
            }
            for (oh = 0; oh < OH; oh++)
                for (ow0 = 0; ow0 < OW; ow0 += 16) {
                    const int cnt = OW - ow0 < 16 ? OW - ow0 : 16;
                    int jlo = jlo0 - ow0, jhi = jhi0 - ow0;
                    jlo = jlo < 0 ? 0 : jlo > cnt ? cnt : jlo;
                    jhi = jhi < jlo ? jlo : jhi > cnt ? cnt : jhi;
                    for (j = 0; j < cnt; j++)
                        r[j] = 0;
                    for (kh = 0; kh < 3; kh++) {
                        const int ih = oh * SH - PH + kh;
                        const int8_t *q = k + kh * 3, *row, *p;
                        const int32_t q0 = q[0], q1 = q[1], q2 = q[2], zb = -zp * (q0 + q1 + q2);
                        if (ih < 0 || ih >= H) continue;
                        row = xp + (long)ih * W;
                        for (j = jlo, p = row + (long)(ow0 + jlo) * SW - PW; j < jhi; j++, p += SW)
                            r[j] += p[0] * q0 + p[1] * q1 + p[2] * q2 + zb;
                        for (j = 0; j < cnt; j++) { /* the border columns */
                            if (j == jlo && jhi > jlo) j = jhi;
                            if (j >= cnt) break;
                            for (kw = 0; kw < 3; kw++) {
                                const int iw = (ow0 + j) * SW - PW + kw;
                                if (iw >= 0 && iw < W) r[j] += (row[iw] - zp) * q[kw];
                            }
                        }
                    }
                    nnfx_rt_qstore_row(op, ch, r, cnt, 0, y, (((long)n * C + ch) * OH + oh) * OW + ow0);
                }
        }
}
/* @end */

/* @rt qconv1 needs:q8,qconv,q16pad */
/* int8 convolution where each output channel reads one input channel (C /
 * group == 1: depthwise with any multiplier, or a single-channel input such
 * as a spectrogram's first layer), any kernel, stride and padding,
 * dilation 1; the fast form of nnfx_rt_qconv for that case, same bytes: g
 * as nnfx_rt_qconv's, x int8 with zero point op->x_zp, w [M,1,KH,KW], y
 * int8 by the epilogue (no residual). Each input plane minus its zero point
 * is copied once into an int16 stack buffer padded with zeros, then every
 * output takes its KH x KW taps with no checks; under __ARM_FEATURE_DSP two
 * taps a time with SMLAD (weights packed in 16-bit pairs per channel, a
 * zero weight after an odd row's last tap; x - zx in [-255, 255], exact). A
 * padded plane over NNFX_RT_QC1_BUF values, or over NNFX_RT_QC1_TAPS weight
 * pairs, runs nnfx_rt_qconv. */
#define NNFX_RT_QC1_BUF  768
#define NNFX_RT_QC1_TAPS 64
#define NNFX_RT_QC1_OUT  128 /* int32 outputs of stack: output rows a block, one requantization */
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif
#if defined(__GNUC__)
#define NNFX_RT_QC1_NOINLINE __attribute__((noinline)) /* the loop keeps its registers */
#else
#define NNFX_RT_QC1_NOINLINE
#endif
/* acc + the KH x KW taps of the window at pr (rows WB apart): weights k
 * [KH][KW], or (DSP) their pairs wp [KH][KWP]. */
static inline int32_t nnfx_rt_qc1_win(const int16_t *pr, int WB, const int8_t *k, const int32_t *wp, int KH, int KW,
                                      int32_t acc) {
    int kh, kw;
#if defined(__ARM_FEATURE_DSP)
    const int KWP = (KW + 1) / 2;
    (void)k;
    for (kh = 0; kh < KH; kh++, pr += WB, wp += KWP)
        for (kw = 0; kw < KWP; kw++) {
            int32_t xv;
            memcpy(&xv, pr + 2 * kw, 4);
            acc = __smlad(xv, wp[kw], acc);
        }
#else
    (void)wp;
    for (kh = 0; kh < KH; kh++, pr += WB, k += KW)
        for (kw = 0; kw < KW; kw++)
            acc += pr[kw] * k[kw];
#endif
    return acc;
}
#if defined(__ARM_FEATURE_DSP)
/* r[0], r[1] = the KH x 4 taps (pairs wp [KH][2]) of the windows at pa and
 * pb (rows WB apart): each pair of weights loaded once for both. */
static NNFX_RT_QC1_NOINLINE void nnfx_rt_qc1_pair(const int16_t *pa, const int16_t *pb, int WB, const int32_t *wp,
                                                  int KH, int32_t *r) {
    const int32_t *const we = wp + 2 * KH;
    int32_t aa = 0, ab = 0;
    for (; wp < we; wp += 2, pa += WB, pb += WB) {
        int32_t x0, x1;
        const int32_t w0 = wp[0], w1 = wp[1];
        memcpy(&x0, pa, 4), memcpy(&x1, pa + 2, 4);
        aa = __smlad(x0, w0, aa), aa = __smlad(x1, w1, aa);
        memcpy(&x0, pb, 4), memcpy(&x1, pb + 2, 4);
        ab = __smlad(x0, w0, ab), ab = __smlad(x1, w1, ab);
    }
    r[0] = aa, r[1] = ab;
}
#endif
#if defined(__ARM_FEATURE_DSP)
/* r[0..3] = the KH x 4 taps (pairs wp [KH][2]) of the windows at p, p + 2,
 * p + 4, p + 6 (stride 2; rows WB apart): adjacent windows share a word,
 * so five loads a row feed eight SMLADs. */
static NNFX_RT_QC1_NOINLINE void nnfx_rt_qc1_quad2(const int16_t *p, int WB, const int32_t *wp, int KH, int32_t *r) {
    const int32_t *const we = wp + 2 * KH;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (; wp < we; wp += 2, p += WB) {
        int32_t x0, x1, x2;
        const int32_t w0 = wp[0], w1 = wp[1];
        memcpy(&x0, p, 4), memcpy(&x1, p + 2, 4), memcpy(&x2, p + 4, 4);
        a0 = __smlad(x0, w0, a0), a0 = __smlad(x1, w1, a0);
        a1 = __smlad(x1, w0, a1), a1 = __smlad(x2, w1, a1);
        memcpy(&x0, p + 6, 4), memcpy(&x1, p + 8, 4);
        a2 = __smlad(x2, w0, a2), a2 = __smlad(x0, w1, a2);
        a3 = __smlad(x0, w0, a3), a3 = __smlad(x1, w1, a3);
    }
    r[0] = a0, r[1] = a1, r[2] = a2, r[3] = a3;
}
#endif
/* r[i * cnt + j] = the KH x KW taps of the window at p + i * RS + j * SW
 * (rows WB apart), i < rows, j < cnt: weights k [KH][KW], or (DSP) their
 * pairs wp [KH][KWP]; under __ARM_FEATURE_DSP, kernels 3 or 4 wide take four
 * windows of a row at a time for stride 2 (nnfx_rt_qc1_quad2), else two at
 * a time (each pair of weights loaded once for both). */
static NNFX_RT_QC1_NOINLINE void nnfx_rt_qc1_run(const int16_t *p, int WB, int SW, long RS, const int8_t *k,
                                                 const int32_t *wp, int KH, int KW, int32_t *r, int rows, int cnt) {
    const int total = rows * cnt;
    int t = 0, i = 0, j = 0; /* output t is (i, j) */
#if defined(__ARM_FEATURE_DSP)
    if ((KW + 1) / 2 == 2 && SW == 2) { /* four windows of a row at a time, then one by one */
        for (i = 0; i < rows; i++) {
            const int16_t *pr = p + i * RS;
            int32_t *rr = r + (long)i * cnt;
            for (j = 0; j + 4 <= cnt; j += 4)
                nnfx_rt_qc1_quad2(pr + 2 * j, WB, wp, KH, rr + j);
            for (; j < cnt; j++)
                rr[j] = nnfx_rt_qc1_win(pr + 2 * j, WB, k, wp, KH, KW, 0);
        }
        return;
    }
    if ((KW + 1) / 2 == 2)
        for (; t + 1 < total; t += 2) {
            const int16_t *pa = p + i * RS + (long)j * SW;
            if (++j == cnt) j = 0, i++;
            nnfx_rt_qc1_pair(pa, p + i * RS + (long)j * SW, WB, wp, KH, r + t);
            if (++j == cnt) j = 0, i++;
        }
#endif
    for (; t < total; t++) {
        r[t] = nnfx_rt_qc1_win(p + i * RS + (long)j * SW, WB, k, wp, KH, KW, 0);
        if (++j == cnt) j = 0, i++;
    }
}
static void nnfx_rt_qconv1(const void *x, const int8_t *w, const nnfx_rt_qop *op, void *y, const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], M = g[4], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], MG = M / C;
    const int HB = (OH - 1) * SH + KH, WB = (OW - 1) * SW + KW, len = W < WB - PW ? W : WB - PW;
    const int32_t zp = op->x_zp;
    const int rb = OW <= 16 ? NNFX_RT_QC1_OUT / OW : 1; /* output rows a block */
    int16_t buf[NNFX_RT_QC1_BUF + 1];                   /* + 1: the pair read past the last window's odd last tap */
    int32_t r[NNFX_RT_QC1_OUT], wp[NNFX_RT_QC1_TAPS];
    int n, c, m, oh, ow0, nr;
    if ((long)HB * WB > NNFX_RT_QC1_BUF || KH * ((KW + 1) / 2) > NNFX_RT_QC1_TAPS) {
        nnfx_rt_qconv(x, w, op, 0, y, g);
        return;
    }
    memset(buf, 0, sizeof buf); /* the padding; each plane overwrites only the interior */
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++) {
            const int8_t *xp = (const int8_t *)x + ((long)n * C + c) * H * W;
            nnfx_rt_q16pad(buf + (long)PH * WB + PW, WB, xp, W, H < HB - PH ? H : HB - PH, len, zp);
            for (m = c * MG; m < (c + 1) * MG; m++) {
                const int8_t *k = w + (long)m * KH * KW;
#if defined(__ARM_FEATURE_DSP)
                int kh, kw, t = 0;
                for (kh = 0; kh < KH; kh++)
                    for (kw = 0; kw < KW; kw += 2) { /* (k[kw], k[kw + 1] or 0) as SMLAD's low, high halves */
                        const int32_t hi = kw + 1 < KW ? k[kh * KW + kw + 1] : 0;
                        wp[t++] = (int32_t)(((uint32_t)(uint16_t)k[kh * KW + kw]) | (uint32_t)hi << 16);
                    }
#endif
                for (oh = 0; oh < OH; oh += nr) {
                    nr = OH - oh < rb ? OH - oh : rb;
                    for (ow0 = 0; ow0 < OW; ow0 += 16) { /* rows of nr > 1 are whole: contiguous in y */
                        const int cnt = OW - ow0 < 16 ? OW - ow0 : 16;
                        nnfx_rt_qc1_run(buf + (long)oh * SH * WB + (long)ow0 * SW, WB, SW, (long)SH * WB, k, wp, KH, KW,
                                        r, nr, cnt);
                        nnfx_rt_qstore_row(op, m, r, nr * cnt, 0, y, (((long)n * M + m) * OH + oh) * OW + ow0);
                    }
                }
            }
        }
}
/* @end */

/* @rt qconvg needs:q8,qconv,qpwdot */
/* int8 convolution with group 1 (any kernel, stride, padding, dilation),
 * the fast form of nnfx_rt_qconv for that case under __ARM_FEATURE_DSP,
 * same bytes: g as nnfx_rt_qconv's, x int8 with zero point op->x_zp, w
 * [M,C,KH,KW], y int8 by the epilogue (no residual). As a pointwise
 * convolution of the K = C*KH*KW column of each output pixel (im2col): a
 * block of pixels' columns minus the zero point (0 in the padding) is
 * packed as nnfx_rt_qpw_dsp packs its pixels, then every output channel
 * takes them through nnfx_rt_qpw_dot4 (the last K % 4 taps in portable C)
 * and requantizes the block's row at once (a pixel whose window lies inside
 * the input is gathered with no bounds checks). Without the DSP extension,
 * or for K < 4 or K > NNFX_RT_QCG_KMAX: nnfx_rt_qconv. Stack: as
 * nnfx_rt_qpw_dsp, plus 2 * NNFX_RT_QCG_KMAX + 6 * NNFX_RT_QPW_PB bytes. */
static void nnfx_rt_qconvg(const void *x, const int8_t *w, const nnfx_rt_qop *op, void *y, const int *g) {
#if defined(__ARM_FEATURE_DSP)
    const int N = g[0], C = g[1], H = g[2], W = g[3], M = g[4], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14];
    const int K = C * KH * KW, K4 = K & ~3, KT = K - K4;
    const long P = (long)OH * OW;
    const int32_t zp = op->x_zp;
    long PB0, n, p0, p;
    int32_t xq[NNFX_RT_QPW_XQ], r[NNFX_RT_QPW_PB];
    int16_t col[NNFX_RT_QCG_KMAX], xt[3 * NNFX_RT_QPW_PB]; /* a pixel's column; the last taps of a block */
    int m, c, k, kh, kw, t;
    if (g[15] != 1 || K < 4 || K > NNFX_RT_QCG_KMAX) {
        nnfx_rt_qconv(x, w, op, 0, y, g);
        return;
    }
    PB0 = nnfx_rt_qpw_block(P, K4);
    for (n = 0; n < N; n++)
        for (p0 = 0; p0 < P; p0 += PB0) {
            const long np = P - p0 < PB0 ? P - p0 : PB0;
            for (p = 0; p < ((np + 3) & ~3L); p++) { /* pixel p0 + p's column into the packed group p / 4 */
                int32_t *o = xq + 2 * K4 * (p / 4) + 2 * (p % 4);
                if (p < np) {
                    const int oh = (int)((p0 + p) / OW), ow = (int)((p0 + p) % OW);
                    const int ih0 = oh * SH - PH, iw0 = ow * SW - PW;
                    const int8_t *xc = (const int8_t *)x + (long)n * C * H * W;
                    int16_t *cp = col;
                    if (ih0 >= 0 && ih0 + (KH - 1) * DH < H && iw0 >= 0 && iw0 + (KW - 1) * DW < W) /* inside */
                        for (c = 0; c < C; c++, xc += (long)H * W)
                            for (kh = 0; kh < KH; kh++) {
                                const int8_t *xr = xc + (long)(ih0 + kh * DH) * W + iw0, *const xe = xr + KW * DW;
                                for (; xr < xe; xr += DW)
                                    *cp++ = (int16_t)(*xr - zp);
                            }
                    else
                        for (c = 0; c < C; c++, xc += (long)H * W)
                            for (kh = 0; kh < KH; kh++) {
                                const int ih = oh * SH - PH + kh * DH;
                                for (kw = 0; kw < KW; kw++) {
                                    const int iw = ow * SW - PW + kw * DW;
                                    *cp++ =
                                        (int16_t)(ih >= 0 && ih < H && iw >= 0 && iw < W ? xc[(long)ih * W + iw] - zp
                                                                                         : 0);
                                }
                            }
                } else
                    for (t = 0; t < K; t++) /* past the last pixel: zeros */
                        col[t] = 0;
                for (t = 0; t < K4; t += 4, o += 8) { /* taps (t, t+2), (t+1, t+3) as 16-bit pairs */
                    o[0] = (int32_t)((uint32_t)(uint16_t)col[t] | (uint32_t)(uint16_t)col[t + 2] << 16);
                    o[1] = (int32_t)((uint32_t)(uint16_t)col[t + 1] | (uint32_t)(uint16_t)col[t + 3] << 16);
                }
                for (t = 0; t < KT; t++)
                    xt[t * NNFX_RT_QPW_PB + p] = col[K4 + t];
            }
            for (m = 0; m < M; m++) {
                const int8_t *w0 = w + (long)m * K;
                nnfx_rt_qpw_dot4(xq, w0, K4, r, (np + 3) / 4);
                for (t = 0; t < KT; t++)
                    for (k = 0; k < np; k++)
                        r[k] += xt[t * NNFX_RT_QPW_PB + k] * w0[K4 + t];
                nnfx_rt_qstore_row(op, m, r, (int)np, 0, y, (n * M + m) * P + p0);
            }
        }
#else
    nnfx_rt_qconv(x, w, op, 0, y, g);
#endif
}
/* @end */

/* @rt qfc needs:q8 */
/* int8 fully connected: y [rows, M] from x [rows, K] (zero point op->x_zp)
 * and w [M][K] (w_km: [K][M]); res shaped like y. */
static void nnfx_rt_qfc(const void *x, const int8_t *w, int w_km, const nnfx_rt_qop *op, const void *res, void *y,
                        long rows, long K, long M) {
    const int32_t zp = op->x_zp;
    const long ws = w_km ? M : 1, wm = w_km ? 1 : K; /* strides of k and m in w */
    long r, m, k;
    for (r = 0; r < rows; r++)
        for (m = 0; m < M; m++) {
            const int8_t *wr = w + m * wm;
            int32_t acc = 0;
            if (op->x_signed) {
                const int8_t *xr = (const int8_t *)x + r * K;
                for (k = 0; k < K; k++)
                    acc += (xr[k] - zp) * wr[k * ws];
            } else {
                const uint8_t *xr = (const uint8_t *)x + r * K;
                for (k = 0; k < K; k++)
                    acc += (xr[k] - zp) * wr[k * ws];
            }
            nnfx_rt_qstore(op, m, acc, res, y, r * M + m);
        }
}
/* @end */

/* @rt qpool needs:q8 */
/* int8 pooling as the plan runs DQ -> MaxPool | GlobalAveragePool -> Q on
 * [N, C, H, W]. g: NC H W OH OW KH KW stride h/w pad top/left dilation h/w
 * global_avg. Max: the max of the int8 inputs, requantized once (kept as is
 * when both sides share type, scale and zero point; an all-padding window
 * gives the type's minimum). Global average: the int32 sum of x - x_zp,
 * then one requantization (nnfx_rt_qavg). */
static void nnfx_rt_qpool(const void *x, void *y, const int *g, int x_signed, float x_scale, int32_t x_zp, int y_signed,
                          float y_scale, int32_t y_zp) {
    const long NC = g[0], H = g[1], W = g[2], OH = g[3], OW = g[4];
    const int KH = g[5], KW = g[6], SH = g[7], SW = g[8], PH = g[9], PW = g[10], DH = g[11], DW = g[12];
    const int32_t lo = y_signed ? -128 : 0, hi = y_signed ? 127 : 255;
    const int same = !g[13] && x_signed == y_signed && x_scale == y_scale && x_zp == y_zp;
    long t, i;
    int oh, ow, kh, kw;
    for (t = 0; t < NC; t++) {
        if (g[13]) {
            int32_t s = 0;
            for (i = 0; i < H * W; i++)
                s += nnfx_rt_ld8(x, x_signed, t * H * W + i) - x_zp;
            nnfx_rt_st8(y, y_signed, t, nnfx_rt_qavg(s, H * W, x_scale, y_scale, y_zp, lo, hi));
            continue;
        }
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                int32_t m = -1000, q;
                for (kh = 0; kh < KH; kh++) {
                    const int ih = oh * SH - PH + kh * DH;
                    if (ih < 0 || ih >= H) continue;
                    for (kw = 0; kw < KW; kw++) {
                        const int iw = ow * SW - PW + kw * DW;
                        int32_t v;
                        if (iw < 0 || iw >= W) continue;
                        v = nnfx_rt_ld8(x, x_signed, (t * H + ih) * W + iw);
                        if (v > m) m = v;
                    }
                }
                q = m == -1000 ? lo
                    : same     ? m
                               : nnfx_rt_quantize(nnfx_rt_dequantize(m, x_zp, x_scale), y_scale, y_zp, lo, hi);
                nnfx_rt_st8(y, y_signed, (t * OH + oh) * OW + ow, q);
            }
    }
}
/* @end */

/* @rt qmaxpool needs:q8 */
/* int8 max pooling whose input and output share type, scale and zero point
 * (no requantization: integer-only): g as nnfx_rt_qpool's; an
 * all-padding window gives the type's minimum, as nnfx_rt_qpool. */
static void nnfx_rt_qmaxpool(const void *x, void *y, const int *g, int sgn) {
    const long NC = g[0], H = g[1], W = g[2], OH = g[3], OW = g[4];
    const int KH = g[5], KW = g[6], SH = g[7], SW = g[8], PH = g[9], PW = g[10], DH = g[11], DW = g[12];
    long t;
    int oh, ow, kh, kw;
    for (t = 0; t < NC; t++)
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                int32_t m = -1000;
                for (kh = 0; kh < KH; kh++) {
                    const int ih = oh * SH - PH + kh * DH;
                    if (ih < 0 || ih >= H) continue;
                    for (kw = 0; kw < KW; kw++) {
                        const int iw = ow * SW - PW + kw * DW;
                        int32_t v;
                        if (iw < 0 || iw >= W) continue;
                        v = nnfx_rt_ld8(x, sgn, (t * H + ih) * W + iw);
                        if (v > m) m = v;
                    }
                }
                nnfx_rt_st8(y, sgn, (t * OH + oh) * OW + ow, m == -1000 ? (sgn ? -128 : 0) : m);
            }
}
/* @end */

/* @rt quantize_linear needs:q8 */
/* QuantizeLinear over x [outer, len, inner]: channel c has scale s[c] and
 * zero point z[c] (len 1: per tensor); y int8 when sgn, else uint8. */
static void nnfx_rt_quantize_linear(const float *x, void *y, int sgn, long outer, long len, long inner, const float *s,
                                    const int32_t *z) {
    const int32_t lo = sgn ? -128 : 0, hi = sgn ? 127 : 255;
    long o, c, j, i = 0;
    for (o = 0; o < outer; o++)
        for (c = 0; c < len; c++)
            for (j = 0; j < inner; j++, i++)
                nnfx_rt_st8(y, sgn, i, nnfx_rt_quantize(x[i], s[c], z[c], lo, hi));
}
/* @end */

/* @rt dequantize_linear needs:q8 */
/* DequantizeLinear over x [outer, len, inner] of type t (0 uint8, 1 int8,
 * 2 int32): channel c has scale s[c] and zero point z[c]. */
static void nnfx_rt_dequantize_linear(const void *x, int t, float *y, long outer, long len, long inner, const float *s,
                                      const int32_t *z) {
    long o, c, j, i = 0;
    for (o = 0; o < outer; o++)
        for (c = 0; c < len; c++)
            for (j = 0; j < inner; j++, i++) {
                int32_t q = t == 2 ? ((const int32_t *)x)[i] : nnfx_rt_ld8(x, t == 1, i);
                y[i] = nnfx_rt_dequantize(q, z[c], s[c]);
            }
}
/* @end */

#endif
