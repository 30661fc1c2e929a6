/* pool.c — MaxPool / AveragePool (1-d and 2-d, float32) and the global
 * pools (any rank >= 3). */
#include <math.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

typedef struct pool2d {
    int64_t nc, h, w, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw, peh, pew;
} pool2d;

/* Reads the window of a pooling node for x and checks the output shape. */
static nnfx_status pool_setup(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              pool2d *p, nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "pooling needs an input");
    const nnfx_tensor *x = in[0];
    if ((s = kern_need(n, x, NNFX_F32, "X", err))) return s;
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != x->rank - 2)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "pooling kernel_shape must have %d values", x->rank - 2);
    int nsp = x->rank - 2;
    if (nsp != 1 && nsp != 2)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "pooling supports 1-d and 2-d inputs, got rank %d", x->rank);
    int64_t in_sp[2];
    for (int i = 0; i < nsp; i++) in_sp[i] = x->shape[2 + i];
    ir_window win;
    if ((s = ir_window_read(n, nsp, ks->u.ints.v, in_sp, &win, err))) return s;
    int64_t oshape[4] = {x->shape[0], x->shape[1], 0, 0};
    for (int i = 0; i < nsp; i++) oshape[2 + i] = ir_window_out(&win, i, in_sp[i]);
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    p->nc = x->shape[0] * x->shape[1];
    if (nsp == 1) {
        p->h = p->oh = p->kh = p->sh = p->dh = 1;
        p->ph = p->peh = 0;
        p->w = x->shape[2], p->ow = oshape[2], p->kw = win.k[0], p->sw = win.s[0], p->dw = win.d[0];
        p->pw = win.pb[0], p->pew = win.pe[0];
    } else {
        p->h = x->shape[2], p->w = x->shape[3], p->oh = oshape[2], p->ow = oshape[3];
        p->kh = win.k[0], p->kw = win.k[1], p->sh = win.s[0], p->sw = win.s[1], p->dh = win.d[0], p->dw = win.d[1];
        p->ph = win.pb[0], p->pw = win.pb[1], p->peh = win.pe[0], p->pew = win.pe[1];
    }
    return NNFX_OK;
}

/* MaxPool(X): max over each window (padding never wins). */
nnfx_status kern_max_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    pool2d p;
    nnfx_status s = pool_setup(n, nin, in, nout, out, &p, err);
    if (s) return s;
    if (nout > 1) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "max_pool Indices output is not supported");
    const float *x = in[0]->data;
    float *y = out[0]->data;
    for (int64_t c = 0; c < p.nc; c++) {
        const float *xc = x + c * p.h * p.w;
        float *yc = y + c * p.oh * p.ow;
        for (int64_t oy = 0; oy < p.oh; oy++)
            for (int64_t ox = 0; ox < p.ow; ox++) {
                float m = -INFINITY;
                for (int64_t ky = 0; ky < p.kh; ky++) {
                    int64_t iy = oy * p.sh - p.ph + ky * p.dh;
                    if (iy < 0 || iy >= p.h) continue;
                    for (int64_t kx = 0; kx < p.kw; kx++) {
                        int64_t ix = ox * p.sw - p.pw + kx * p.dw;
                        if (ix < 0 || ix >= p.w) continue;
                        float v = xc[iy * p.w + ix];
                        if (v > m || v != v) m = v;
                    }
                }
                yc[oy * p.ow + ox] = m;
            }
    }
    return NNFX_OK;
}

/* AveragePool(X): mean over each window. count_include_pad counts padded
 * positions inside the declared pads (not the extra ceil_mode overhang),
 * as PyTorch does. */
nnfx_status kern_average_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                              nnfx_tensor *const *out, nnfx_error *err) {
    pool2d p;
    nnfx_status s = pool_setup(n, nin, in, nout, out, &p, err);
    if (s) return s;
    bool incl = nnfx_node_attr_int(n, "count_include_pad", 0) != 0;
    const float *x = in[0]->data;
    float *y = out[0]->data;
    for (int64_t c = 0; c < p.nc; c++) {
        const float *xc = x + c * p.h * p.w;
        float *yc = y + c * p.oh * p.ow;
        for (int64_t oy = 0; oy < p.oh; oy++)
            for (int64_t ox = 0; ox < p.ow; ox++) {
                double sum = 0;
                int64_t cnt = 0, cnt_pad = 0;
                for (int64_t ky = 0; ky < p.kh; ky++) {
                    int64_t iy = oy * p.sh - p.ph + ky * p.dh;
                    bool yin = iy >= 0 && iy < p.h, ypad = iy >= -p.ph && iy < p.h + p.peh;
                    for (int64_t kx = 0; kx < p.kw; kx++) {
                        int64_t ix = ox * p.sw - p.pw + kx * p.dw;
                        bool xin = ix >= 0 && ix < p.w, xpad = ix >= -p.pw && ix < p.w + p.pew;
                        if (ypad && xpad) cnt_pad++;
                        if (yin && xin) {
                            sum += xc[iy * p.w + ix];
                            cnt++;
                        }
                    }
                }
                int64_t d = incl ? cnt_pad : cnt;
                yc[oy * p.ow + ox] = d > 0 ? (float)(sum / (double)d) : 0.0f;
            }
    }
    return NNFX_OK;
}

static nnfx_status global_pool(bool is_max, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                               nnfx_tensor *const *out, nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "global pooling needs an input");
    const nnfx_tensor *x = in[0];
    if ((s = kern_need(n, x, NNFX_F32, "X", err))) return s;
    if (x->rank < 3) return kern_fail(err, n, NNFX_ERR_SHAPE, "global pooling expects rank >= 3, got %d", x->rank);
    int64_t oshape[NNFX_MAX_RANK];
    for (int i = 0; i < x->rank; i++) oshape[i] = i < 2 ? x->shape[i] : 1;
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    int64_t nc = x->shape[0] * x->shape[1], sp = nnfx_tensor_numel(x) / (nc ? nc : 1);
    const float *xd = x->data;
    float *y = out[0]->data;
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = xd + c * sp;
        if (is_max) {
            float m = -INFINITY;
            for (int64_t i = 0; i < sp; i++)
                if (xc[i] > m || xc[i] != xc[i]) m = xc[i];
            y[c] = m;
        } else {
            double sum = 0;
            for (int64_t i = 0; i < sp; i++) sum += xc[i];
            y[c] = sp ? (float)(sum / (double)sp) : 0.0f;
        }
    }
    return NNFX_OK;
}

/* GlobalAveragePool(X): mean over all spatial dims per (N, C). */
nnfx_status kern_global_average_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                     nnfx_tensor *const *out, nnfx_error *err) {
    return global_pool(false, n, nin, in, nout, out, err);
}

/* GlobalMaxPool(X): max over all spatial dims per (N, C). */
nnfx_status kern_global_max_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                 nnfx_tensor *const *out, nnfx_error *err) {
    return global_pool(true, n, nin, in, nout, out, err);
}
