/* pool.c — MaxPool (with its optional Indices output; float32, and other
 * element types through double) / AveragePool (float32) over 1 to 3
 * spatial dims, and the global pools (any rank >= 3). These kernels are the
 * ops' meaning; the compiled plan's pool_fast.c is a faster equivalent of
 * 2-d float32 MaxPool (threaded by plane, no bounds checks inside), checked
 * against this one by kernels_differential (the maxpool rows) and, for NaN
 * and padding, by test_fast_exec (test_maxpool_nan); both take the tap rule
 * KERN_MAX_TAKES (kernels_int.h). */
#include <math.h>
#include <string.h>

#include "rt/nnfx_rt_kernels.h"
#include "exec/kernels/kernels_int.h"

/* Window geometry over three spatial dims (d, h, w); inputs with fewer
 * spatial dims have the leading ones of size 1 with a 1-wide window. */
typedef struct pool3d {
    int64_t nc;
    int64_t in[3], out[3], k[3], s[3], dl[3], pb[3], pe[3];
} pool3d;

/* Reads the window of a pooling node for x and checks the output shape. */
static nnfx_status pool_setup(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              pool3d *p, nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "pooling needs an input");
    const nnfx_tensor *x = in[0];
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != x->rank - 2)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "pooling kernel_shape must have %d values", x->rank - 2);
    int nsp = x->rank - 2;
    if (nsp < 1 || nsp > 3)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "pooling supports 1-d to 3-d inputs, got rank %d", x->rank);
    int64_t in_sp[3];
    for (int i = 0; i < nsp; i++)
        in_sp[i] = x->shape[2 + i];
    ir_window win;
    if ((s = ir_window_read(n, nsp, ks->u.ints.v, in_sp, &win, err))) return s;
    int64_t oshape[5] = {x->shape[0], x->shape[1], 0, 0, 0};
    for (int i = 0; i < nsp; i++)
        oshape[2 + i] = ir_window_out(&win, i, in_sp[i]);
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    p->nc = x->shape[0] * x->shape[1];
    for (int j = 0; j < 3; j++) {
        int i = j - (3 - nsp); /* spatial dim of x, or < 0 for a padding dim */
        if (i < 0) {
            p->in[j] = p->out[j] = p->k[j] = p->s[j] = p->dl[j] = 1;
            p->pb[j] = p->pe[j] = 0;
        } else {
            p->in[j] = in_sp[i], p->out[j] = oshape[2 + i], p->k[j] = win.k[i], p->s[j] = win.s[i];
            p->dl[j] = win.d[i], p->pb[j] = win.pb[i], p->pe[j] = win.pe[i];
        }
    }
    return NNFX_OK;
}

/* MaxPool(X) -> Y, Indices?: max over each window (padding never wins).
 * Indices (int64) are flat offsets into X of the first maximum: row-major,
 * or with storage_order=1 the spatial part column-major, as ONNX defines. */
nnfx_status kern_max_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    pool3d p;
    nnfx_status s = pool_setup(n, nin, in, nout, out, &p, err);
    if (s) return s;
    const nnfx_tensor *xt = in[0];
    nnfx_tensor *yt = out[0], *it = nout > 1 ? out[1] : NULL;
    if (xt->dtype == NNFX_I64 || xt->dtype == NNFX_BOOL || nnfx_dtype_size(xt->dtype) == 0 || yt->dtype != xt->dtype)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "max_pool of %s is not supported", nnfx_dtype_name(xt->dtype));
    if (it && (it->dtype != NNFX_I64 || nnfx_tensor_numel(it) != nnfx_tensor_numel(yt)))
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "max_pool Indices buffer does not match the output");
    bool col = ir_attr_int(n, "storage_order") != 0;
    const float *x32 = xt->dtype == NNFX_F32 ? xt->data : NULL;
    float *y32 = yt->dtype == NNFX_F32 ? yt->data : NULL;
    int64_t *ind = it ? it->data : NULL;
    int64_t D = p.in[0], H = p.in[1], W = p.in[2], sp = D * H * W;
    int64_t oidx = 0;
    for (int64_t c = 0; c < p.nc; c++)
        for (int64_t oz = 0; oz < p.out[0]; oz++)
            for (int64_t oy = 0; oy < p.out[1]; oy++)
                for (int64_t ox = 0; ox < p.out[2]; ox++, oidx++) {
                    double m = -INFINITY;
                    int64_t arg = -1;
                    for (int64_t kz = 0; kz < p.k[0]; kz++) {
                        int64_t iz = oz * p.s[0] - p.pb[0] + kz * p.dl[0];
                        if (iz < 0 || iz >= D) continue;
                        for (int64_t ky = 0; ky < p.k[1]; ky++) {
                            int64_t iy = oy * p.s[1] - p.pb[1] + ky * p.dl[1];
                            if (iy < 0 || iy >= H) continue;
                            for (int64_t kx = 0; kx < p.k[2]; kx++) {
                                int64_t ix = ox * p.s[2] - p.pb[2] + kx * p.dl[2];
                                if (ix < 0 || ix >= W) continue;
                                int64_t at = c * sp + (iz * H + iy) * W + ix;
                                double v = x32 ? (double)x32[at] : nnfx_tensor_get(xt, at);
                                if (arg < 0 || KERN_MAX_TAKES(m, v)) {
                                    m = v;
                                    arg = col ? c * sp + iz + D * (iy + H * ix) : at;
                                }
                            }
                        }
                    }
                    if (y32)
                        y32[oidx] = (float)m;
                    else
                        kern_set(yt, oidx, m);
                    if (ind) ind[oidx] = arg;
                }
    return NNFX_OK;
}

/* AveragePool(X): mean over each window. count_include_pad counts padded
 * positions inside the declared pads (not the extra ceil_mode overhang),
 * as PyTorch does. */
nnfx_status kern_average_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err) {
    pool3d p;
    nnfx_status s = pool_setup(n, nin, in, nout, out, &p, err);
    if (s) return s;
    if ((s = kern_need(n, in[0], NNFX_F32, "X", err))) return s;
    bool incl = ir_attr_int(n, "count_include_pad") != 0;
    const float *x = in[0]->data;
    float *y = out[0]->data;
    int64_t D = p.in[0], H = p.in[1], W = p.in[2];
    for (int64_t c = 0; c < p.nc; c++) {
        const float *xc = x + c * D * H * W;
        float *yc = y + c * p.out[0] * p.out[1] * p.out[2];
        for (int64_t oz = 0; oz < p.out[0]; oz++)
            for (int64_t oy = 0; oy < p.out[1]; oy++)
                for (int64_t ox = 0; ox < p.out[2]; ox++) {
                    double sum = 0;
                    int64_t cnt = 0, cnt_pad = 0;
                    for (int64_t kz = 0; kz < p.k[0]; kz++) {
                        int64_t iz = oz * p.s[0] - p.pb[0] + kz * p.dl[0];
                        bool zin = iz >= 0 && iz < D, zpad = iz >= -p.pb[0] && iz < D + p.pe[0];
                        for (int64_t ky = 0; ky < p.k[1]; ky++) {
                            int64_t iy = oy * p.s[1] - p.pb[1] + ky * p.dl[1];
                            bool yin = iy >= 0 && iy < H, ypad = iy >= -p.pb[1] && iy < H + p.pe[1];
                            for (int64_t kx = 0; kx < p.k[2]; kx++) {
                                int64_t ix = ox * p.s[2] - p.pb[2] + kx * p.dl[2];
                                bool xin = ix >= 0 && ix < W, xpad = ix >= -p.pb[2] && ix < W + p.pe[2];
                                if (zpad && ypad && xpad) cnt_pad++;
                                if (zin && yin && xin) {
                                    sum += xc[(iz * H + iy) * W + ix];
                                    cnt++;
                                }
                            }
                        }
                    }
                    int64_t d = incl ? cnt_pad : cnt;
                    yc[(oz * p.out[1] + oy) * p.out[2] + ox] = d > 0 ? (float)(sum / (double)d) : 0.0f;
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
    for (int i = 0; i < x->rank; i++)
        oshape[i] = i < 2 ? x->shape[i] : 1;
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    int64_t nc = x->shape[0] * x->shape[1], sp = nnfx_tensor_numel(x) / (nc ? nc : 1);
    const float *xd = x->data;
    float *y = out[0]->data;
    for (int64_t c = 0; c < nc; c++) {
        const float *xc = xd + c * sp;
        if (is_max) {
            float m = -INFINITY;
            for (int64_t i = 0; i < sp; i++)
                if (KERN_MAX_TAKES(m, xc[i])) m = xc[i];
            y[c] = m;
        } else {
            /* the sum generated C computes (nnfx_rt_reduce, kind mean):
             * double, in order, so both give the same bits */
            y[c] = sp ? (float)(nnfx_rt_fsum(xc, (long)sp, 1) / (double)sp) : 0.0f;
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
nnfx_status kern_global_max_pool(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                 nnfx_error *err) {
    return global_pool(true, n, nin, in, nout, out, err);
}
