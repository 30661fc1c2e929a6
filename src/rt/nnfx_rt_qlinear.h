/* nnfx_rt_qlinear.h — the operator-form quantized ops (QLinearConv,
 * QLinearMatMul, ConvInteger, MatMulInteger: what ONNX Runtime's quantizer
 * writes in its QOperator format) as direct loops: (q - zero_point)
 * products summed exactly (in 64 bits, stored as int32, as the spec and
 * ONNX Runtime do), then for the QLinear ops the float32 multiplier
 * a_scale * b_scale / y_scale, rounding half to even, the output zero point
 * and saturation (nnfx_rt_quantize). The interpreter's kernels
 * (src/exec/kernels/quant.c) call these same loops: one meaning. Values are
 * uint8 (type 0) or int8 (type 1) bytes; zero points are read at run time
 * (NULL: 0). Sections as in nnfx_rt_kernels.h. */
#ifndef NNFX_RT_QLINEAR_H
#define NNFX_RT_QLINEAR_H

#include <stdint.h>

#include "nnfx_rt_scalar.h"

/* @rt qlinear needs:quant */
/* Element i of quantized values p: uint8 (t 0) or int8 (t 1); 0 when p is NULL. */
static inline int32_t nnfx_rt_qld(const void *p, int t, long i) {
    if (!p) return 0;
    return t ? (int32_t)((const int8_t *)p)[i] : (int32_t)((const uint8_t *)p)[i];
}

/* y[i] (type t: 0 uint8, 1 int8, 2 int32) = v. */
static inline void nnfx_rt_qst(void *y, int t, long i, int32_t v) {
    if (t == 2)
        ((int32_t *)y)[i] = v;
    else if (t == 1)
        ((int8_t *)y)[i] = (int8_t)v;
    else
        ((uint8_t *)y)[i] = (uint8_t)v;
}

/* y = saturate(round_half_even(acc * (as[r] * bs[c] / ys)) + yzp) for
 * `outer` blocks of rows x cols accumulators (ra / cb: the scale follows
 * the row / the column, else one); y of type ty (0 uint8, 1 int8). */
static inline void nnfx_rt_requantize(const int32_t *acc, long outer, long rows, long cols, const float *as, int ra,
                                      const float *bs, int cb, float ys, int32_t yzp, void *y, int ty) {
    const int32_t lo = ty ? -128 : 0, hi = ty ? 127 : 255;
    long t, r, c, i = 0;
    for (t = 0; t < outer; t++)
        for (r = 0; r < rows; r++)
            for (c = 0; c < cols; c++, i++) {
                const float mult = as[ra ? r : 0] * bs[cb ? c : 0] / ys;
                nnfx_rt_qst(y, ty, i, nnfx_rt_quantize((float)acc[i] * mult, 1.0f, yzp, lo, hi));
            }
}
/* @end */

/* @rt iconv needs:qlinear */
/* Integer convolution over 1 to 3 spatial dims padded to 3 (leading dims of
 * size 1): g holds N C M group, then per spatial dim (3 each) the input
 * size D, kernel K, output O, stride S, dilation DL and begin pad P. x [N, C,
 * D...] of type tx with zero point xz (one value), w [M, C/group, K...] of
 * type tw with zero points wz (nwz values: 1, or one per output channel),
 * bias int32 [M] (NULL: none); acc [N, M, O...] = bias + sum (x - xz)(w - wz). */
static inline void nnfx_rt_iconv(const void *x, int tx, const void *xz, const void *w, int tw, const void *wz, long nwz,
                                 const int32_t *bias, int32_t *acc, const long *g) {
    const long N = g[0], C = g[1], M = g[2], G = g[3], cg = C / G, mg = M / G;
    const long *D = g + 4, *K = g + 7, *O = g + 10, *S = g + 13, *DL = g + 16, *P = g + 19;
    const long dsz = D[0] * D[1] * D[2], ksz = K[0] * K[1] * K[2], osz = O[0] * O[1] * O[2];
    const int32_t xzp = nnfx_rt_qld(xz, tx, 0);
    long b, m, o0, o1, o2, ci, k0, k1, k2;
    for (b = 0; b < N; b++)
        for (m = 0; m < M; m++) {
            const long grp = m / mg;
            const int32_t wzp = nnfx_rt_qld(wz, tw, nwz == 1 ? 0 : m);
            int32_t *ao = acc + (b * M + m) * osz;
            for (o0 = 0; o0 < O[0]; o0++)
                for (o1 = 0; o1 < O[1]; o1++)
                    for (o2 = 0; o2 < O[2]; o2++) {
                        int64_t sum = bias ? bias[m] : 0;
                        for (ci = 0; ci < cg; ci++) {
                            const long xc = (b * C + grp * cg + ci) * dsz, wc = (m * cg + ci) * ksz;
                            for (k0 = 0; k0 < K[0]; k0++) {
                                const long i0 = o0 * S[0] - P[0] + k0 * DL[0];
                                if (i0 < 0 || i0 >= D[0]) continue;
                                for (k1 = 0; k1 < K[1]; k1++) {
                                    const long i1 = o1 * S[1] - P[1] + k1 * DL[1];
                                    if (i1 < 0 || i1 >= D[1]) continue;
                                    for (k2 = 0; k2 < K[2]; k2++) {
                                        const long i2 = o2 * S[2] - P[2] + k2 * DL[2];
                                        if (i2 < 0 || i2 >= D[2]) continue;
                                        sum += (int64_t)(nnfx_rt_qld(x, tx, xc + (i0 * D[1] + i1) * D[2] + i2) - xzp) *
                                               (nnfx_rt_qld(w, tw, wc + (k0 * K[1] + k1) * K[2] + k2) - wzp);
                                    }
                                }
                            }
                        }
                        ao[(o0 * O[1] + o1) * O[2] + o2] = (int32_t)sum;
                    }
        }
}
/* @end */

/* @rt imatmul needs:qlinear */
/* One integer matrix product: acc [M, N] = (a - az[row]) @ (b - bz[col])
 * with a [M, K] at element aoff of a (type ta), b [K, N] at element boff
 * of b (type tb); az holds naz zero points (1 or M), bz nbz (1 or N). */
static inline void nnfx_rt_imatmul(const void *a, int ta, long aoff, const void *az, long naz, const void *b, int tb,
                                   long boff, const void *bz, long nbz, int32_t *acc, long M, long K, long N) {
    long i, j, k;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            const int32_t za = nnfx_rt_qld(az, ta, naz == 1 ? 0 : i), zb = nnfx_rt_qld(bz, tb, nbz == 1 ? 0 : j);
            int64_t sum = 0;
            for (k = 0; k < K; k++)
                sum +=
                    (int64_t)(nnfx_rt_qld(a, ta, aoff + i * K + k) - za) * (nnfx_rt_qld(b, tb, boff + k * N + j) - zb);
            acc[i * N + j] = (int32_t)sum;
        }
}
/* @end */

/* @rt dynamic_quantize needs:qlinear */
/* DynamicQuantizeLinear of x[0..n) (as the ONNX reference): the range
 * [min(0, min x), max(0, max x)] over 255 levels gives *scale, the zero
 * point *zp is 0 - min / scale clipped to [0, 255] and rounded half to
 * even, and y[i] = quantize(x[i], scale, zp) (zp everywhere when the scale
 * is 0). Returns 0, or 1 + i for the first element i that is NaN or
 * infinite (no scale fits it; nothing is written then). */
static inline long nnfx_rt_dynamic_quantize(const float *x, long n, uint8_t *y, float *scale, uint8_t *zp) {
    float mn = 0.0f, mx = 0.0f, s;
    int32_t z = 0;
    long i;
    for (i = 0; i < n; i++) {
        if (x[i] != x[i] || x[i] - x[i] != 0.0f) return 1 + i;
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
    }
    s = (mx - mn) / 255.0f;
    if (s > 0.0f) {
        float f = 0.0f - mn / s;
        f = f < 0.0f ? 0.0f : f > 255.0f ? 255.0f : f;
        z = nnfx_rt_qround(f);
    }
    for (i = 0; i < n; i++)
        y[i] = (uint8_t)(s > 0.0f ? nnfx_rt_quantize(x[i], s, z, 0, 255) : z);
    *scale = s;
    *zp = (uint8_t)z;
    return 0;
}
/* @end */

#endif
