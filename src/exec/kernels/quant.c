/* quant.c — reference kernels of the quantized ops: QuantizeLinear,
 * DequantizeLinear (per tensor and per axis), DynamicQuantizeLinear,
 * QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger.
 *
 * Integer ops accumulate (q - zero_point) products in int32 (as the spec
 * and ONNX Runtime do); QLinear* requantize the accumulator with the float32
 * multiplier x_scale * w_scale / y_scale, round half to even, add the output
 * zero point and saturate. These loops are the definition; fast int8
 * kernels are checked against them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"
#include "ir/quant_int.h"

#include "rt/nnfx_rt_qlinear.h"
#include "rt/nnfx_rt_scalar.h"

/* Zero points as int32 (k values; zeros when zp is NULL), malloc'd. */
static int32_t *zp_read(const nnfx_tensor *zp, int64_t k) {
    int32_t *z = calloc((size_t)(k > 0 ? k : 1), sizeof *z);
    if (z && zp)
        for (int64_t i = 0; i < k; i++)
            z[i] = (int32_t)nnfx_tensor_get(zp, i);
    return z;
}

/* Quantized element i of t as int32 (t of a qtype or int32). */
static inline int32_t q_get(const nnfx_tensor *t, int64_t i) {
    switch (t->dtype) {
    case NNFX_U8: return ((const uint8_t *)t->data)[i];
    case NNFX_I8: return ((const int8_t *)t->data)[i];
    case NNFX_U16: return ((const uint16_t *)t->data)[i];
    case NNFX_I16: return ((const int16_t *)t->data)[i];
    default: return ((const int32_t *)t->data)[i];
    }
}

static inline void q_set(nnfx_tensor *t, int64_t i, int32_t v) {
    switch (t->dtype) {
    case NNFX_U8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case NNFX_I8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case NNFX_U16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    case NNFX_I16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    default: ((int32_t *)t->data)[i] = v; break;
    }
}

/* Per-axis layout of x for Q/DQ: outer x len x inner (len 1 per tensor). */
static nnfx_status qdq_layout(const nnfx_node *n, const nnfx_tensor *x, const nnfx_tensor *scale, int64_t *outer,
                              int64_t *len, int64_t *inner, nnfx_error *err) {
    int64_t k = nnfx_tensor_numel(scale);
    *outer = 1, *len = 1, *inner = nnfx_tensor_numel(x);
    if (scale->rank == 0 || k == 1) return NNFX_OK;
    int64_t axis = ir_attr_int(n, "axis");
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "axis %lld is out of range for input of rank %d",
                         (long long)ir_attr_int(n, "axis"), x->rank);
    *len = x->shape[axis];
    *outer = nnfx_shape_numel((int)axis, x->shape);
    *inner = nnfx_shape_numel(x->rank - (int)axis - 1, x->shape + axis + 1);
    return NNFX_OK;
}

/* One run of QuantizeLinear into an 8-bit type with one scale and zero
 * point (nnfx_rt_quantize: its loop vectorises; compiled per ISA). The
 * value, in [lo, hi], is stored as its low byte: the u8 value, or the s8
 * value's two's-complement bits. */
static inline CORE_ALWAYS_INLINE void quantize_8bit_body(const float *restrict x, int64_t n, float s, int32_t zp,
                                                         int32_t lo, int32_t hi, uint8_t *restrict y) {
    for (int64_t j = 0; j < n; j++)
        y[j] = (uint8_t)nnfx_rt_quantize(x[j], s, zp, lo, hi);
}
CORE_ISA_VARIANTS(quantize_8bit,
                  (const float *restrict x, int64_t n, float s, int32_t zp, int32_t lo, int32_t hi,
                   uint8_t *restrict y),
                  (x, n, s, zp, lo, hi, y))

nnfx_status kern_quantize_linear(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                 nnfx_error *err) {
    nnfx_status s = kern_need(n, in[0], NNFX_F32, "x", err);
    if (s || (s = kern_need(n, nin > 1 ? in[1] : NULL, NNFX_F32, "y_scale", err))) return s;
    const nnfx_tensor *x = in[0], *scale = in[1], *zp = nin > 2 ? in[2] : NULL;
    int64_t outer, len, inner;
    if ((s = qdq_layout(n, x, scale, &outer, &len, &inner, err))) return s;
    if ((s = ir_quant_check(n, "y_scale", scale, zp, len, false, err))) return s;
    nnfx_tensor *y = out[0];
    if ((s = kern_check_out(n, y, x->rank, x->shape, err))) return s;
    if (!ir_quant_is_qtype(y->dtype))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "output dtype %s", nnfx_dtype_name(y->dtype));
    int32_t lo, hi, *z = zp_read(zp, len);
    if (!z) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    ir_quant_range(y->dtype, &lo, &hi);
    const float *xs = x->data, *sc = scale->data;
    for (int64_t o = 0, i = 0; o < outer; o++)
        for (int64_t ch = 0; ch < len; ch++) {
            float sv = sc[ch];
            int32_t zv = z[ch];
            if (y->dtype == NNFX_U8 || y->dtype == NNFX_I8) {
                CORE_ISA_PICK(quantize_8bit)(xs + i, inner, sv, zv, lo, hi, (uint8_t *)y->data + i);
            } else {
                for (int64_t j = 0; j < inner; j++)
                    q_set(y, i + j, ir_quant_one(xs[i + j], sv, zv, lo, hi));
            }
            i += inner;
        }
    free(z);
    return NNFX_OK;
}

nnfx_status kern_dequantize_linear(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                   nnfx_tensor *const *out, nnfx_error *err) {
    nnfx_status s = kern_need(n, nin > 1 ? in[1] : NULL, NNFX_F32, "x_scale", err);
    if (s) return s;
    const nnfx_tensor *x = in[0], *scale = in[1], *zp = nin > 2 ? in[2] : NULL;
    if (!x || !(ir_quant_is_qtype(x->dtype) || x->dtype == NNFX_I32))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "x has dtype %s (int8/uint8/int32 expected)",
                         x ? nnfx_dtype_name(x->dtype) : "(none)");
    if (zp && zp->dtype != x->dtype)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "x has dtype %s but its zero point %s", nnfx_dtype_name(x->dtype),
                         nnfx_dtype_name(zp->dtype));
    int64_t outer, len, inner;
    if ((s = qdq_layout(n, x, scale, &outer, &len, &inner, err))) return s;
    if ((s = ir_quant_check(n, "x_scale", scale, zp, len, true, err))) return s;
    nnfx_tensor *y = out[0];
    if ((s = kern_need(n, y, NNFX_F32, "y", err)) || (s = kern_check_out(n, y, x->rank, x->shape, err))) return s;
    int32_t *z = zp_read(zp, len);
    if (!z) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    const float *sc = scale->data;
    float *yd = y->data;
    for (int64_t o = 0, i = 0; o < outer; o++)
        for (int64_t ch = 0; ch < len; ch++) {
            float sv = sc[ch];
            int32_t zv = z[ch];
            if (x->dtype == NNFX_U8) {
                const uint8_t *xd = (const uint8_t *)x->data + i;
                for (int64_t j = 0; j < inner; j++)
                    yd[i + j] = nnfx_rt_dequantize(xd[j], zv, sv);
            } else if (x->dtype == NNFX_I8) {
                const int8_t *xd = (const int8_t *)x->data + i;
                for (int64_t j = 0; j < inner; j++)
                    yd[i + j] = nnfx_rt_dequantize(xd[j], zv, sv);
            } else {
                for (int64_t j = 0; j < inner; j++)
                    yd[i + j] = (float)((int64_t)q_get(x, i + j) - zv) * sv;
            }
            i += inner;
        }
    free(z);
    return NNFX_OK;
}

/* As the ONNX reference: range [min(0, min x), max(0, max x)] over 255
 * levels, zero point rounded from the clipped real one. */
nnfx_status kern_dynamic_quantize_linear(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                         nnfx_tensor *const *out, nnfx_error *err) {
    nnfx_status s = kern_need(n, in[0], NNFX_F32, "x", err);
    if (s) return s;
    const nnfx_tensor *x = in[0];
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    float scale;
    uint8_t zp;
    const long bad = nnfx_rt_dynamic_quantize(x->data, (long)nnfx_tensor_numel(x), out[0]->data, &scale, &zp);
    if (bad)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "input element %ld is %g; no scale fits it", bad - 1,
                         (double)((const float *)x->data)[bad - 1]);
    if (nout > 1 && out[1]) ((float *)out[1]->data)[0] = scale;
    if (nout > 2 && out[2]) ((uint8_t *)out[2]->data)[0] = zp;
    return NNFX_OK;
}

/* --- Integer convolution -------------------------------------------------- */

/* acc [N, M, O...] = conv(x - x_zp, w - w_zp[m]) + bias[m] in int32, for 1
 * to 3 spatial dims (nnfx_rt_iconv). x [N, C, D...], w [M, C/group, K...];
 * xz one zero point (NULL: 0), wz nwz of them (1 or M; NULL: 0). */
static nnfx_status iconv(const nnfx_node *n, const nnfx_tensor *x, const nnfx_tensor *xz, const nnfx_tensor *w,
                         const nnfx_tensor *wz, int64_t nwz, const nnfx_tensor *bias, const nnfx_tensor *o,
                         int32_t *acc, nnfx_error *err) {
    int nsp = x->rank - 2;
    if (nsp < 1 || nsp > 3 || w->rank != x->rank || o->rank != x->rank)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "integer conv supports 1 to 3 spatial dims (input rank %d)",
                         x->rank);
    int64_t k[NNFX_MAX_RANK], in_sp[NNFX_MAX_RANK];
    for (int i = 0; i < nsp; i++)
        k[i] = w->shape[2 + i], in_sp[i] = x->shape[2 + i];
    ir_window win;
    nnfx_status s = ir_window_read(n, nsp, k, in_sp, &win, err);
    if (s) return s;
    int64_t N = x->shape[0], C = x->shape[1], M = w->shape[0], G = ir_attr_int(n, "group");
    int64_t cg = w->shape[1], mg = G > 0 ? M / G : 0;
    if (G < 1 || cg * G != C || mg * G != M)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "channels %lld / %lld do not fit group %lld", (long long)C,
                         (long long)M, (long long)G);
    /* geometry padded to 3 spatial dims (leading dims of size 1) */
    long g[22] = {(long)N, (long)C, (long)M, (long)G, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
    for (int i = 0; i < nsp; i++) {
        int j = 3 - nsp + i;
        g[4 + j] = (long)in_sp[i], g[7 + j] = (long)k[i], g[10 + j] = (long)o->shape[2 + i];
        g[13 + j] = (long)win.s[i], g[16 + j] = (long)win.d[i], g[19 + j] = (long)win.pb[i];
    }
    nnfx_rt_iconv(x->data, x->dtype == NNFX_I8, xz ? xz->data : NULL, w->data, w->dtype == NNFX_I8,
                  wz ? wz->data : NULL, (long)nwz, bias ? bias->data : NULL, acc, g);
    return NNFX_OK;
}

/* --- Integer matmul ------------------------------------------------------- */

/* acc = (a - a_zp[row]) @ (b - b_zp[col]) in int32 with numpy matmul
 * broadcasting (nnfx_rt_imatmul per matrix); az holds nazp zero points
 * (NULL: 0), bz nbzp; o is the (already shaped) output. */
static nnfx_status imatmul(const nnfx_node *n, const nnfx_tensor *a, const nnfx_tensor *b, const nnfx_tensor *az,
                           int64_t nazp, const nnfx_tensor *bz, int64_t nbzp, const nnfx_tensor *o, int32_t *acc,
                           nnfx_error *err) {
    if (a->rank < 1 || b->rank < 1) return kern_fail(err, n, NNFX_ERR_SHAPE, "matmul does not take scalars");
    int64_t M = a->rank >= 2 ? a->shape[a->rank - 2] : 1, K = a->shape[a->rank - 1];
    int64_t KB = b->rank >= 2 ? b->shape[b->rank - 2] : b->shape[0], N = b->rank >= 2 ? b->shape[b->rank - 1] : 1;
    if (K != KB)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "inner dims differ (%lld vs %lld)", (long long)K, (long long)KB);
    if ((nazp != 1 && nazp != M) || (nbzp != 1 && nbzp != N))
        return kern_fail(err, n, NNFX_ERR_SHAPE,
                         "zero points (%lld, %lld) fit neither per tensor nor %lld rows / %lld columns",
                         (long long)nazp, (long long)nbzp, (long long)M, (long long)N);
    int ob = o->rank - (a->rank >= 2) - (b->rank >= 2); /* batch dims of the output */
    int ab = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
    int64_t nbatch = nnfx_shape_numel(ob, o->shape);
    for (int64_t t = 0; t < nbatch; t++) {
        /* batch offsets of a and b (broadcast dims of size 1 stay at 0) */
        int64_t rem = t, aoff = 0, boff = 0, ast = M * K, bst = K * N;
        for (int d = ob - 1; d >= 0; d--) {
            int64_t idx = rem % o->shape[d];
            rem /= o->shape[d];
            int da = d - (ob - ab), db = d - (ob - bb);
            if (da >= 0) {
                if (a->shape[da] != 1) aoff += idx * ast;
                ast *= a->shape[da];
            }
            if (db >= 0) {
                if (b->shape[db] != 1) boff += idx * bst;
                bst *= b->shape[db];
            }
        }
        nnfx_rt_imatmul(a->data, a->dtype == NNFX_I8, (long)aoff, az ? az->data : NULL, (long)nazp, b->data,
                        b->dtype == NNFX_I8, (long)boff, bz ? bz->data : NULL, (long)nbzp, acc + t * M * N, (long)M,
                        (long)K, (long)N);
    }
    return NNFX_OK;
}

/* Checks data input t is int8/uint8 and its zero point (if any) matches. */
static nnfx_status need_q(const nnfx_node *n, const nnfx_tensor *t, const nnfx_tensor *zp, const char *what,
                          nnfx_error *err) {
    if (!t || (t->dtype != NNFX_U8 && t->dtype != NNFX_I8))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s has dtype %s (int8 or uint8 expected)", what,
                         t ? nnfx_dtype_name(t->dtype) : "(none)");
    if (zp && zp->dtype != t->dtype)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s has dtype %s but its zero point %s", what,
                         nnfx_dtype_name(t->dtype), nnfx_dtype_name(zp->dtype));
    return NNFX_OK;
}

nnfx_status kern_qlinear_conv(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    const nnfx_tensor *x = in[0], *xs = in[1], *xz = in[2], *w = in[3], *wsc = in[4], *wz = in[5], *ysc = in[6],
                      *yz = in[7], *bias = nin > 8 ? in[8] : NULL;
    nnfx_status s;
    if ((s = need_q(n, x, xz, "x", err)) || (s = need_q(n, w, wz, "w", err))) return s;
    if ((s = ir_quant_check(n, "x_scale", xs, xz, -2, false, err)) ||
        (s = ir_quant_check(n, "w_scale", wsc, wz, w->shape[0], false, err)) ||
        (s = ir_quant_check(n, "y_scale", ysc, yz, -2, false, err)))
        return s;
    if (bias && (bias->dtype != NNFX_I32 || nnfx_tensor_numel(bias) != w->shape[0]))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "bias must be int32[%lld]", (long long)w->shape[0]);
    nnfx_tensor *y = out[0];
    if (y->dtype != NNFX_U8 && y->dtype != NNFX_I8)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "y is %s (uint8 or int8 expected)", nnfx_dtype_name(y->dtype));
    int64_t M = w->shape[0], cnt = nnfx_tensor_numel(y);
    int32_t *acc = malloc(sizeof *acc * (size_t)(cnt + 1));
    if (!acc) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    bool per_m = nnfx_tensor_numel(wsc) != 1;
    s = iconv(n, x, xz, w, wz, per_m ? M : 1, bias, y, acc, err);
    if (!s) {
        int64_t osp = cnt / (y->shape[0] * M > 0 ? y->shape[0] * M : 1);
        nnfx_rt_requantize(acc, (long)y->shape[0], (long)M, (long)osp, wsc->data, per_m, xs->data, 0,
                           ((const float *)ysc->data)[0], yz ? q_get(yz, 0) : 0, y->data, y->dtype == NNFX_I8);
    }
    free(acc);
    return s;
}

nnfx_status kern_conv_integer(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    const nnfx_tensor *x = in[0], *w = in[1], *xz = nin > 2 ? in[2] : NULL, *wz = nin > 3 ? in[3] : NULL;
    nnfx_status s;
    if ((s = need_q(n, x, xz, "x", err)) || (s = need_q(n, w, wz, "w", err))) return s;
    int64_t M = w->shape[0], nwz = wz ? nnfx_tensor_numel(wz) : 1;
    if ((xz && nnfx_tensor_numel(xz) != 1) || (nwz != 1 && nwz != M))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "zero points must be scalars (w_zero_point may have %lld values)",
                         (long long)M);
    return iconv(n, x, xz, w, wz, nwz, NULL, out[0], out[0]->data, err);
}

nnfx_status kern_qlinear_matmul(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    const nnfx_tensor *a = in[0], *as = in[1], *az = in[2], *b = in[3], *bs = in[4], *bz = in[5], *ysc = in[6],
                      *yz = in[7];
    nnfx_status s;
    if ((s = need_q(n, a, az, "a", err)) || (s = need_q(n, b, bz, "b", err))) return s;
    if (a->rank < 1 || b->rank < 1) return kern_fail(err, n, NNFX_ERR_SHAPE, "matmul does not take scalars");
    int64_t M = a->rank >= 2 ? a->shape[a->rank - 2] : 1, N = b->rank >= 2 ? b->shape[b->rank - 1] : 1;
    if ((s = ir_quant_check(n, "a_scale", as, az, M, false, err)) ||
        (s = ir_quant_check(n, "b_scale", bs, bz, N, false, err)) ||
        (s = ir_quant_check(n, "y_scale", ysc, yz, -2, false, err)))
        return s;
    nnfx_tensor *y = out[0];
    if (y->dtype != NNFX_U8 && y->dtype != NNFX_I8)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "y is %s (uint8 or int8 expected)", nnfx_dtype_name(y->dtype));
    int64_t cnt = nnfx_tensor_numel(y), na = nnfx_tensor_numel(as), nb = nnfx_tensor_numel(bs);
    int32_t *acc = malloc(sizeof *acc * (size_t)(cnt + 1));
    if (!acc) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    s = imatmul(n, a, b, az, na, bz, nb, y, acc, err);
    if (!s)
        nnfx_rt_requantize(acc, (long)(M * N > 0 ? cnt / (M * N) : 0), (long)M, (long)N, as->data, na != 1, bs->data,
                           nb != 1, ((const float *)ysc->data)[0], yz ? q_get(yz, 0) : 0, y->data, y->dtype == NNFX_I8);
    free(acc);
    return s;
}

nnfx_status kern_matmul_integer(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    const nnfx_tensor *a = in[0], *b = in[1], *az = nin > 2 ? in[2] : NULL, *bz = nin > 3 ? in[3] : NULL;
    nnfx_status s;
    if ((s = need_q(n, a, az, "a", err)) || (s = need_q(n, b, bz, "b", err))) return s;
    int64_t na = az ? nnfx_tensor_numel(az) : 1, nb = bz ? nnfx_tensor_numel(bz) : 1;
    return imatmul(n, a, b, az, na, bz, nb, out[0], out[0]->data, err);
}
