/* resize.c — Resize (float32), modes nearest and linear, one axis at a
 * time (both are separable), with ONNX's coordinate transformation modes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

typedef enum { CT_HALF, CT_PYTORCH_HALF, CT_ALIGN, CT_ASYM, CT_TF_HALF_NN } ctm_kind;
typedef enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL } nearest_kind;

/* Source coordinate of output coordinate x along one axis. */
static double src_coord(ctm_kind ct, double x, double scale, int64_t in, int64_t out) {
    switch (ct) {
    case CT_HALF: return (x + 0.5) / scale - 0.5;
    case CT_PYTORCH_HALF: return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    /* ONNX divides by (in * scale - 1), the unrounded output length: with a
     * scales input that is not out - 1 (downsampling 4 by 0.6 gives 1.4) */
    case CT_ALIGN: return out > 1 ? x * (double)(in - 1) / ((double)in * scale - 1.0) : 0.0;
    case CT_ASYM: return x / scale;
    case CT_TF_HALF_NN: return (x + 0.5) / scale;
    }
    return 0;
}

/* Resizes src [outer, in, inner] into dst [outer, out, inner]. */
static void resize_axis(bool linear, ctm_kind ct, nearest_kind nm, double scale, const float *src, float *dst,
                        int64_t outer, int64_t in, int64_t out, int64_t inner, int64_t *i0, int64_t *i1, float *wt) {
    for (int64_t x = 0; x < out; x++) {
        double s = src_coord(ct, (double)x, scale, in, out);
        if (linear) {
            if (s < 0) s = 0;
            if (s > (double)(in - 1)) s = (double)(in - 1);
            int64_t a = (int64_t)floor(s);
            i0[x] = a;
            i1[x] = a + 1 < in ? a + 1 : in - 1;
            wt[x] = (float)(s - (double)a);
        } else {
            double r;
            switch (nm) {
            case NM_ROUND_FLOOR: r = (s == floor(s) + 0.5) ? floor(s) : round(s); break;
            case NM_ROUND_CEIL: r = (s == floor(s) + 0.5) ? ceil(s) : round(s); break;
            case NM_FLOOR: r = floor(s); break;
            default: r = ceil(s); break;
            }
            int64_t a = r < 0 ? 0 : (r > (double)(in - 1) ? in - 1 : (int64_t)r);
            i0[x] = i1[x] = a;
            wt[x] = 0;
        }
    }
    for (int64_t o = 0; o < outer; o++) {
        const float *sp = src + o * in * inner;
        float *dp = dst + o * out * inner;
        for (int64_t x = 0; x < out; x++) {
            const float *r0 = sp + i0[x] * inner, *r1 = sp + i1[x] * inner;
            float w = wt[x];
            float *d = dp + x * inner;
            if (w == 0)
                memcpy(d, r0, (size_t)inner * sizeof(float));
            else
                for (int64_t j = 0; j < inner; j++) d[j] = r0[j] + (r1[j] - r0[j]) * w;
        }
    }
}

/* Resize(X, roi?, scales?, sizes?): output shape from inference; scales
 * (when given) also drive the coordinate mapping, as in ONNX. */
nnfx_status kern_resize(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "resize needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    if ((s = kern_need(n, x, NNFX_F32, "X", err))) return s;
    if (o->rank != x->rank || o->dtype != NNFX_F32)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "resize output buffer does not match the input rank");
    const char *mode = nnfx_node_attr_string(n, "mode", "nearest");
    bool linear = mode && !strcmp(mode, "linear");
    if (!linear && (!mode || strcmp(mode, "nearest")))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize mode '%s' is not supported", mode ? mode : "");
    const char *cs = nnfx_node_attr_string(n, "coordinate_transformation_mode", "half_pixel");
    ctm_kind ct;
    if (!cs || !strcmp(cs, "half_pixel")) ct = CT_HALF;
    else if (!strcmp(cs, "pytorch_half_pixel")) ct = CT_PYTORCH_HALF;
    else if (!strcmp(cs, "align_corners")) ct = CT_ALIGN;
    else if (!strcmp(cs, "asymmetric")) ct = CT_ASYM;
    else if (!strcmp(cs, "tf_half_pixel_for_nn")) ct = CT_TF_HALF_NN;
    else return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize coordinate_transformation_mode '%s' is not supported", cs);
    const char *ns = nnfx_node_attr_string(n, "nearest_mode", "round_prefer_floor");
    nearest_kind nm;
    if (!ns || !strcmp(ns, "round_prefer_floor")) nm = NM_ROUND_FLOOR;
    else if (!strcmp(ns, "round_prefer_ceil")) nm = NM_ROUND_CEIL;
    else if (!strcmp(ns, "floor")) nm = NM_FLOOR;
    else if (!strcmp(ns, "ceil")) nm = NM_CEIL;
    else return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "resize nearest_mode '%s' is not supported", ns);
    /* per-dim scale: the scales input (mapped through axes) or out / in */
    double scale[NNFX_MAX_RANK];
    for (int d = 0; d < x->rank; d++) scale[d] = x->shape[d] ? (double)o->shape[d] / (double)x->shape[d] : 1.0;
    const nnfx_tensor *sc = nin > 2 ? in[2] : NULL;
    if (sc && nnfx_tensor_numel(sc) > 0) {
        int axes[NNFX_MAX_RANK], na = x->rank;
        const nnfx_attr *aa = nnfx_node_attr(n, "axes");
        if (aa && aa->kind == NNFX_ATTR_INTS && aa->u.ints.n > 0) {
            na = aa->u.ints.n;
            for (int i = 0; i < na && i < NNFX_MAX_RANK; i++)
                if (!infer_axis(aa->u.ints.v[i], x->rank, false, &axes[i]))
                    return kern_fail(err, n, NNFX_ERR_SHAPE, "resize axis out of range");
        } else {
            for (int i = 0; i < na; i++) axes[i] = i;
        }
        if (nnfx_tensor_numel(sc) != na || na > NNFX_MAX_RANK)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "resize scales has %lld values for %d axes",
                             (long long)nnfx_tensor_numel(sc), na);
        for (int i = 0; i < na; i++) {
            double f = nnfx_tensor_get(sc, i);
            if (!(f > 0)) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize scale %d is not positive", i);
            scale[axes[i]] = f;
        }
    }
    int64_t total = nnfx_tensor_numel(o), maxn = 1;
    if (total == 0) return NNFX_OK;
    for (int d = 0; d < x->rank; d++) {
        if (x->shape[d] == 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "resize of an empty dim %d", d);
        if (o->shape[d] > maxn) maxn = o->shape[d];
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
    int64_t *i0 = malloc((size_t)maxn * sizeof(int64_t)), *i1 = malloc((size_t)maxn * sizeof(int64_t));
    float *wt = malloc((size_t)maxn * sizeof(float));
    if (!buf[0] || !buf[1] || !i0 || !i1 || !wt) {
        free(buf[0]), free(buf[1]), free(i0), free(i1), free(wt);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for resize buffers");
    }
    memcpy(cur, x->shape, sizeof(int64_t) * (size_t)x->rank);
    const float *src = x->data;
    int which = 0;
    for (int d = 0; d < x->rank; d++) {
        if (o->shape[d] == x->shape[d] && scale[d] == 1.0) continue;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < d; i++) outer *= cur[i];
        for (int i = d + 1; i < x->rank; i++) inner *= cur[i];
        resize_axis(linear, ct, nm, scale[d], src, buf[which], outer, cur[d], o->shape[d], inner, i0, i1, wt);
        cur[d] = o->shape[d];
        src = buf[which];
        which ^= 1;
    }
    memcpy(o->data, src, (size_t)total * sizeof(float));
    free(buf[0]), free(buf[1]), free(i0), free(i1), free(wt);
    return NNFX_OK;
}
