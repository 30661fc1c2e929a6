/* resize.c — Resize (float32), modes nearest, linear and cubic, one axis
 * at a time (all three are separable), with ONNX's coordinate
 * transformation modes including tf_crop_and_resize. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "rt/nnfx_rt_float.h"
#include "exec/kernels/kernels_int.h"

typedef enum { CT_HALF, CT_PYTORCH_HALF, CT_ALIGN, CT_ASYM, CT_TF_HALF_NN, CT_TF_CROP } ctm_kind;
typedef enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL } nearest_kind;
typedef enum { RM_NEAREST, RM_LINEAR, RM_CUBIC } resize_mode;

/* How one axis is resampled. */
typedef struct axis_cfg {
    resize_mode mode;
    ctm_kind ct;
    nearest_kind nm;
    double scale;
    double roi_lo, roi_hi; /* tf_crop_and_resize: the crop, as fractions of the axis */
    double cubic_a;        /* cubic_coeff_a */
    bool exclude_outside;  /* cubic: drop taps outside the input, renormalise */
    float extrapolation;   /* tf_crop_and_resize: value for points outside the input */
} axis_cfg;

/* Up to four source rows, with weights, for one output position; nt == 0
 * means the point lies outside the input (tf_crop_and_resize). */
typedef struct resize_taps {
    int64_t i[4];
    float w[4];
    int nt;
} resize_taps;

/* Source coordinate of output coordinate x along one axis (the modes
 * but tf_crop_and_resize: nnfx_rt_resize_coord, shared with generated C). */
static double src_coord(const axis_cfg *a, double x, int64_t in, int64_t out) {
    if (a->ct != CT_TF_CROP) return nnfx_rt_resize_coord((int)a->ct, a->scale, (long)x, (long)in, (long)out);
    return out > 1 ? a->roi_lo * (double)(in - 1) + x * (a->roi_hi - a->roi_lo) * (double)(in - 1) / (double)(out - 1)
                   : 0.5 * (a->roi_lo + a->roi_hi) * (double)(in - 1);
}

/* The taps of output position x of an axis of length in -> out
 * (nnfx_rt_resize_taps, shared with generated C). */
static void axis_taps(const axis_cfg *a, int64_t x, int64_t in, int64_t out, resize_taps *t) {
    double s = src_coord(a, (double)x, in, out);
    if (a->ct == CT_TF_CROP && (s < 0 || s > (double)(in - 1))) {
        t->nt = 0;
        return;
    }
    long idx[4];
    nnfx_rt_resize_taps((int)a->mode, (int)a->nm, a->cubic_a, a->exclude_outside, s, (long)in, idx, t->w, &t->nt);
    for (int k = 0; k < t->nt; k++)
        t->i[k] = idx[k];
}

/* Resizes src [outer, in, inner] into dst [outer, out, inner]; taps holds
 * out entries of scratch. */
static void resize_axis(const axis_cfg *a, const float *src, float *dst, int64_t outer, int64_t in, int64_t out,
                        int64_t inner, resize_taps *taps) {
    for (int64_t x = 0; x < out; x++)
        axis_taps(a, x, in, out, &taps[x]);
    for (int64_t o = 0; o < outer; o++) {
        const float *sp = src + o * in * inner;
        float *dp = dst + o * out * inner;
        for (int64_t x = 0; x < out; x++) {
            const resize_taps *t = &taps[x];
            float *d = dp + x * inner;
            if (t->nt == 0) {
                for (int64_t j = 0; j < inner; j++)
                    d[j] = a->extrapolation;
            } else if (t->nt == 1 || (t->nt == 2 && t->w[1] == 0)) {
                memcpy(d, sp + t->i[0] * inner, (size_t)inner * sizeof(float));
            } else {
                for (int64_t j = 0; j < inner; j++) {
                    float v = 0;
                    for (int k = 0; k < t->nt; k++)
                        v += t->w[k] * sp[t->i[k] * inner + j];
                    d[j] = v;
                }
            }
        }
    }
}

/* Resize node n's modes (into cfg) and per-dim scales for input dims xs ->
 * output dims os: the scales input sc (NULL or empty: out / in), mapped
 * through the axes attribute (axes[0..*na) gets the listed dims). */
static nnfx_status resize_setup(const nnfx_node *n, int rank, const int64_t *xs, const int64_t *os,
                                const nnfx_tensor *sc, axis_cfg *cfg, int *axes, int *na, double *scale,
                                nnfx_error *err) {
    const char *mode = ir_attr_string(n, "mode");
    if (mode && !strcmp(mode, "nearest"))
        cfg->mode = RM_NEAREST;
    else if (mode && !strcmp(mode, "linear"))
        cfg->mode = RM_LINEAR;
    else if (mode && !strcmp(mode, "cubic"))
        cfg->mode = RM_CUBIC;
    else
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize mode '%s' is not supported", mode ? mode : "");
    const char *cs = ir_attr_string(n, "coordinate_transformation_mode");
    if (!cs || !strcmp(cs, "half_pixel"))
        cfg->ct = CT_HALF;
    else if (!strcmp(cs, "pytorch_half_pixel"))
        cfg->ct = CT_PYTORCH_HALF;
    else if (!strcmp(cs, "align_corners"))
        cfg->ct = CT_ALIGN;
    else if (!strcmp(cs, "asymmetric"))
        cfg->ct = CT_ASYM;
    else if (!strcmp(cs, "tf_half_pixel_for_nn"))
        cfg->ct = CT_TF_HALF_NN;
    else if (!strcmp(cs, "tf_crop_and_resize"))
        cfg->ct = CT_TF_CROP;
    else
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize coordinate_transformation_mode '%s' is not supported",
                         cs);
    const char *ns = ir_attr_string(n, "nearest_mode");
    if (!ns || !strcmp(ns, "round_prefer_floor"))
        cfg->nm = NM_ROUND_FLOOR;
    else if (!strcmp(ns, "round_prefer_ceil"))
        cfg->nm = NM_ROUND_CEIL;
    else if (!strcmp(ns, "floor"))
        cfg->nm = NM_FLOOR;
    else if (!strcmp(ns, "ceil"))
        cfg->nm = NM_CEIL;
    else
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize nearest_mode '%s' is not supported", ns);
    cfg->cubic_a = ir_attr_float(n, "cubic_coeff_a");
    cfg->exclude_outside = ir_attr_int(n, "exclude_outside") != 0;
    cfg->extrapolation = ir_attr_float(n, "extrapolation_value");
    /* the axes that scales and roi list */
    *na = rank;
    const nnfx_attr *aa = nnfx_node_attr(n, "axes");
    if (aa && aa->kind == NNFX_ATTR_INTS && aa->u.ints.n > 0) {
        *na = aa->u.ints.n;
        if (*na > rank) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize has %d axes for rank %d", *na, rank);
        for (int i = 0; i < *na; i++)
            if (!infer_axis(aa->u.ints.v[i], rank, false, &axes[i]))
                return kern_fail(err, n, NNFX_ERR_SHAPE, "resize axis out of range");
    } else {
        for (int i = 0; i < *na; i++)
            axes[i] = i;
    }
    /* per-dim scale: the scales input (mapped through axes) or out / in */
    for (int d = 0; d < rank; d++) {
        scale[d] = xs[d] ? (double)os[d] / (double)xs[d] : 1.0;
    }
    if (sc && nnfx_tensor_numel(sc) > 0) {
        if (nnfx_tensor_numel(sc) != *na)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "resize scales has %lld values for %d axes",
                             (long long)nnfx_tensor_numel(sc), *na);
        for (int i = 0; i < *na; i++) {
            double f = nnfx_tensor_get(sc, i);
            if (!(f > 0)) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize scale %d is not positive", i);
            scale[axes[i]] = f;
        }
    }
    return NNFX_OK;
}

/* The crop of each dim (fractions of it, roi_lo / roi_hi; 0 and 1 but for
 * tf_crop_and_resize with a roi) from the roi input (NULL: none). */
static nnfx_status resize_roi(const nnfx_node *n, const axis_cfg *cfg, const nnfx_tensor *roi, int rank,
                              const int *axes, int na, double *roi_lo, double *roi_hi, nnfx_error *err) {
    for (int d = 0; d < rank; d++)
        roi_lo[d] = 0.0, roi_hi[d] = 1.0;
    if (cfg->ct == CT_TF_CROP && roi && nnfx_tensor_numel(roi) > 0) {
        if (nnfx_tensor_numel(roi) != 2 * (int64_t)na)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "resize roi has %lld values for %d axes (2 per axis)",
                             (long long)nnfx_tensor_numel(roi), na);
        for (int i = 0; i < na; i++) {
            double lo = nnfx_tensor_get(roi, i), hi = nnfx_tensor_get(roi, na + i);
            if (!isfinite(lo) || !isfinite(hi)) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize roi is not finite");
            roi_lo[axes[i]] = lo, roi_hi[axes[i]] = hi;
        }
    }
    return NNFX_OK;
}

/* Whether kern_resize leaves dim d as it is. */
static bool resize_skips(const axis_cfg *cfg, const int64_t *xs, const int64_t *os, const double *scale,
                         const double *roi_lo, const double *roi_hi, int d) {
    bool whole = cfg->ct != CT_TF_CROP || (roi_lo[d] == 0.0 && roi_hi[d] == 1.0);
    return os[d] == xs[d] && scale[d] == 1.0 && whole;
}

nnfx_status kern_resize_taps(const nnfx_node *n, int rank, const int64_t *xs, const int64_t *os,
                             const nnfx_tensor *scales, const nnfx_tensor *roi, int d, int64_t *idx, float *w, int *nt,
                             float *extrapolation, bool *skip, nnfx_error *err) {
    axis_cfg cfg = {0};
    int axes[NNFX_MAX_RANK], na;
    double scale[NNFX_MAX_RANK], roi_lo[NNFX_MAX_RANK], roi_hi[NNFX_MAX_RANK];
    nnfx_status s = resize_setup(n, rank, xs, os, scales, &cfg, axes, &na, scale, err);
    if (!s) s = resize_roi(n, &cfg, roi, rank, axes, na, roi_lo, roi_hi, err);
    if (s) return s;
    *skip = resize_skips(&cfg, xs, os, scale, roi_lo, roi_hi, d);
    *extrapolation = cfg.extrapolation;
    cfg.scale = scale[d];
    cfg.roi_lo = roi_lo[d], cfg.roi_hi = roi_hi[d];
    for (int64_t x = 0; x < os[d]; x++) {
        resize_taps t;
        axis_taps(&cfg, x, xs[d], os[d], &t);
        nt[x] = t.nt;
        for (int k = 0; k < 4; k++) {
            idx[4 * x + k] = k < t.nt ? t.i[k] : 0;
            w[4 * x + k] = k < t.nt ? t.w[k] : 0.0f;
        }
    }
    return NNFX_OK;
}

nnfx_status kern_resize_nearest_index(const nnfx_node *n, int rank, const int64_t *xs, const int64_t *os,
                                      const nnfx_tensor *scales, int d, int64_t *idx, nnfx_error *err) {
    axis_cfg cfg = {0};
    int axes[NNFX_MAX_RANK], na;
    double scale[NNFX_MAX_RANK];
    nnfx_status s = resize_setup(n, rank, xs, os, scales, &cfg, axes, &na, scale, err);
    if (s) return s;
    if (cfg.mode != RM_NEAREST || cfg.ct == CT_TF_CROP)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "only nearest resize without tf_crop_and_resize is mapped");
    cfg.scale = scale[d];
    for (int64_t x = 0; x < os[d]; x++) {
        resize_taps t;
        axis_taps(&cfg, x, xs[d], os[d], &t);
        idx[x] = t.i[0];
    }
    return NNFX_OK;
}

/* One output row (or column run) from its taps: d[j] for j < len from the
 * rows sp + i[k] * stride (the arithmetic of resize_axis, so the values are
 * its own). */
static void taps_row(const axis_cfg *a, const resize_taps *t, const float *sp, int64_t stride, float *d, int64_t len) {
    if (t->nt == 0) {
        for (int64_t j = 0; j < len; j++)
            d[j] = a->extrapolation;
    } else if (t->nt == 1 || (t->nt == 2 && t->w[1] == 0)) {
        memcpy(d, sp + t->i[0] * stride, (size_t)len * sizeof(float));
    } else {
        for (int64_t j = 0; j < len; j++) {
            float v = 0;
            for (int k = 0; k < t->nt; k++)
                v += t->w[k] * sp[t->i[k] * stride + j];
            d[j] = v;
        }
    }
}

/* The width pass of one row from its column taps (resize_axis's sums). */
static void taps_cols(const axis_cfg *a, const resize_taps *tw, const float *src, float *d, int64_t ow) {
    for (int64_t c = 0; c < ow; c++) {
        const resize_taps *t = &tw[c];
        if (t->nt == 0) {
            d[c] = a->extrapolation;
        } else if (t->nt == 1 || (t->nt == 2 && t->w[1] == 0)) {
            d[c] = src[t->i[0]];
        } else {
            float v = 0;
            for (int k = 0; k < t->nt; k++)
                v += t->w[k] * src[t->i[k]];
            d[c] = v;
        }
    }
}

/* Column taps of one or two source columns (linear, nearest) as arrays:
 * every column summed as two taps, then the copies (one tap, or a second
 * of weight 0) written over theirs, so each value is taps_cols's. */
typedef struct lin_cols {
    int64_t *i0, *i1, *copy; /* one buffer from i0: 3 x ow */
    float *w0, *w1;          /* one buffer from w0: 2 x ow */
    int64_t ncopy;
} lin_cols;

/* lin of taps tw (ow columns); true with lin->i0 NULL when a column has
 * no or more than two taps (taps_cols runs then); false on OOM. */
static bool lin_new(const resize_taps *tw, int64_t ow, lin_cols *lin) {
    for (int64_t c = 0; c < ow; c++)
        if (tw[c].nt < 1 || tw[c].nt > 2) return true;
    lin->i0 = malloc((size_t)(3 * ow) * sizeof *lin->i0);
    lin->w0 = malloc((size_t)(2 * ow) * sizeof *lin->w0);
    if (!lin->i0 || !lin->w0) {
        free(lin->i0), free(lin->w0);
        lin->i0 = NULL;
        return false;
    }
    lin->i1 = lin->i0 + ow, lin->copy = lin->i0 + 2 * ow, lin->w1 = lin->w0 + ow, lin->ncopy = 0;
    for (int64_t c = 0; c < ow; c++) {
        const resize_taps *t = &tw[c];
        bool copy = t->nt == 1 || t->w[1] == 0;
        lin->i0[c] = t->i[0], lin->w0[c] = t->w[0];
        lin->i1[c] = copy ? t->i[0] : t->i[1], lin->w1[c] = copy ? 0.0f : t->w[1];
        if (copy) lin->copy[lin->ncopy++] = c;
    }
    return true;
}

static inline CORE_ALWAYS_INLINE void lin_row_body(const lin_cols *lin, const float *restrict src, float *restrict d,
                                                   int64_t ow) {
    const int64_t *i0 = lin->i0, *i1 = lin->i1;
    const float *w0 = lin->w0, *w1 = lin->w1;
    for (int64_t c = 0; c < ow; c++) {
        float v = 0;
        v += w0[c] * src[i0[c]];
        v += w1[c] * src[i1[c]];
        d[c] = v;
    }
    for (int64_t k = 0; k < lin->ncopy; k++)
        d[lin->copy[k]] = src[lin->i0[lin->copy[k]]];
}

CORE_ISA_VARIANTS(lin_row, (const lin_cols *lin, const float *restrict src, float *restrict d, int64_t ow),
                  (lin, src, d, ow))

/* The width pass of one row through lin (taps_cols's values). */
static void lin_row(const lin_cols *lin, const float *src, float *d, int64_t ow) {
    CORE_ISA_PICK(lin_row)(lin, src, d, ow);
}

/* Resize of the last two dims only (images): per output row, the row of
 * the height pass (resize_axis over H) then that row's width pass, so no
 * whole intermediate is written; the same operations as the two passes of
 * kern_resize in the same order, hence the same values. ch: rows of taps,
 * cw: columns; skip_h / skip_w: that dim is left as it is. */
static nnfx_status resize_planes(const nnfx_node *n, const axis_cfg *ch, const axis_cfg *cw, bool skip_h, bool skip_w,
                                 const float *x, float *y, int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                 nnfx_error *err) {
    resize_taps *th = malloc((size_t)oh * sizeof *th), *tw = malloc((size_t)ow * sizeof *tw);
    float *row = malloc((size_t)w * sizeof *row);
    if (!th || !tw || !row) {
        free(th), free(tw), free(row);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for resize buffers");
    }
    for (int64_t r = 0; r < oh; r++)
        axis_taps(ch, r, h, oh, &th[r]);
    for (int64_t c = 0; c < ow; c++)
        axis_taps(cw, c, w, ow, &tw[c]);
    lin_cols lin = {0};
    if (!skip_w && !lin_new(tw, ow, &lin)) {
        free(th), free(tw), free(row);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for resize buffers");
    }
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * h * w;
        float *yp = y + pl * oh * ow;
        for (int64_t r = 0; r < oh; r++) {
            const float *src = xp + r * w; /* skip_h: oh == h */
            if (!skip_h) {
                taps_row(ch, &th[r], xp, w, row, w);
                src = row;
            }
            float *d = yp + r * ow;
            if (skip_w) {
                memcpy(d, src, (size_t)w * sizeof(float));
                continue;
            }
            if (lin.i0)
                lin_row(&lin, src, d, ow);
            else
                taps_cols(cw, tw, src, d, ow);
        }
    }
    free(th), free(tw), free(row), free(lin.i0), free(lin.w0);
    return NNFX_OK;
}

/* Resize(X, roi?, scales?, sizes?): output shape from inference; scales
 * (when given) also drive the coordinate mapping, as in ONNX; roi is read
 * for tf_crop_and_resize only. */
nnfx_status kern_resize(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "resize needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    if ((s = kern_need(n, x, NNFX_F32, "X", err))) return s;
    if (o->rank != x->rank || o->dtype != NNFX_F32)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "resize output buffer does not match the input rank");
    axis_cfg cfg = {0};
    int axes[NNFX_MAX_RANK], na;
    double scale[NNFX_MAX_RANK], roi_lo[NNFX_MAX_RANK], roi_hi[NNFX_MAX_RANK];
    if ((s = resize_setup(n, x->rank, x->shape, o->shape, nin > 2 ? in[2] : NULL, &cfg, axes, &na, scale, err)) ||
        (s = resize_roi(n, &cfg, nin > 1 ? in[1] : NULL, x->rank, axes, na, roi_lo, roi_hi, err)))
        return s;
    int64_t total = nnfx_tensor_numel(o), maxn = 1;
    if (total == 0) return NNFX_OK;
    for (int d = 0; d < x->rank; d++) {
        if (x->shape[d] == 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize of an empty dim %d", d);
        if (o->shape[d] > maxn) maxn = o->shape[d];
    }
    int r = x->rank;
    bool lead_same = r >= 2;
    for (int d = 0; d < r - 2 && lead_same; d++)
        lead_same = resize_skips(&cfg, x->shape, o->shape, scale, roi_lo, roi_hi, d);
    if (lead_same) { /* images: the last two dims only, row by row */
        axis_cfg ch = cfg, cw = cfg;
        ch.scale = scale[r - 2], ch.roi_lo = roi_lo[r - 2], ch.roi_hi = roi_hi[r - 2];
        cw.scale = scale[r - 1], cw.roi_lo = roi_lo[r - 1], cw.roi_hi = roi_hi[r - 1];
        return resize_planes(n, &ch, &cw, resize_skips(&cfg, x->shape, o->shape, scale, roi_lo, roi_hi, r - 2),
                             resize_skips(&cfg, x->shape, o->shape, scale, roi_lo, roi_hi, r - 1), x->data, o->data,
                             total / (o->shape[r - 2] * o->shape[r - 1]), x->shape[r - 2], x->shape[r - 1],
                             o->shape[r - 2], o->shape[r - 1], err);
    }
    /* ping-pong buffers sized for the largest intermediate */
    int64_t cur[NNFX_MAX_RANK], big = nnfx_tensor_numel(x);
    memcpy(cur, x->shape, sizeof(int64_t) * (size_t)x->rank);
    for (int d = 0; d < x->rank; d++) {
        cur[d] = o->shape[d];
        int64_t t = nnfx_shape_numel(x->rank, cur);
        if (t > big) big = t;
    }
    float *buf[2] = {malloc((size_t)big * sizeof(float)), malloc((size_t)big * sizeof(float))};
    resize_taps *taps = malloc((size_t)maxn * sizeof *taps);
    if (!buf[0] || !buf[1] || !taps) {
        free(buf[0]), free(buf[1]), free(taps);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for resize buffers");
    }
    memcpy(cur, x->shape, sizeof(int64_t) * (size_t)x->rank);
    const float *src = x->data;
    int which = 0;
    for (int d = 0; d < x->rank; d++) {
        if (resize_skips(&cfg, x->shape, o->shape, scale, roi_lo, roi_hi, d)) continue;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < d; i++)
            outer *= cur[i];
        for (int i = d + 1; i < x->rank; i++)
            inner *= cur[i];
        cfg.scale = scale[d];
        cfg.roi_lo = roi_lo[d], cfg.roi_hi = roi_hi[d];
        resize_axis(&cfg, src, buf[which], outer, cur[d], o->shape[d], inner, taps);
        cur[d] = o->shape[d];
        src = buf[which];
        which ^= 1;
    }
    memcpy(o->data, src, (size_t)total * sizeof(float));
    free(buf[0]), free(buf[1]), free(taps);
    return NNFX_OK;
}
