/* conv.c — Conv (float32, any number of spatial dims): im2col +
 * cblas_sgemm per group, a direct loop for 1-d/2-d depthwise convolution
 * (kern_dw_plane: the generated C's nnfx_rt_conv2d_dw, one definition for
 * the interpreter, the compiled plan's general depthwise case and the
 * generated C), no copy for 1x1 stride-1; 3-d and higher go through an N-d
 * im2col. This kernel is Conv's meaning. The compiled plan's conv_fast.c
 * (its 3x3 / 5x5 depthwise rows, and dwconv_x86.c's vector rows) is a
 * faster equivalent for 2-d float32 with a fused epilogue, not a second
 * definition: kernels_differential runs every conv row of the kernel table
 * (conv_dw, conv_dw_mult, conv_dw_dil: depthwise) through both,
 * test_fast_exec the fused epilogues. */
#include <cblas.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_kernels.h"
#include "exec/kernels/kernels_int.h"

/* 2-d geometry of one conv (1-d convs use H = 1). */
typedef struct conv2d {
    int64_t n, c, h, w; /* input  [N, C, H, W]            */
    int64_t m, oh, ow;  /* output [N, M, OH, OW]          */
    int64_t kh, kw, sh, sw, dh, dw, ph, pw;
    int64_t group;
} conv2d;

/* col [C/g * KH * KW, OH * OW] from one image's group slice x [C/g, H, W]. */
static void im2col(const conv2d *g, int64_t cg, const float *x, float *col) {
    int64_t ohw = g->oh * g->ow;
    for (int64_t ci = 0; ci < cg; ci++)
        for (int64_t ky = 0; ky < g->kh; ky++)
            for (int64_t kx = 0; kx < g->kw; kx++) {
                float *dst = col + ((ci * g->kh + ky) * g->kw + kx) * ohw;
                const float *src = x + ci * g->h * g->w;
                for (int64_t oy = 0; oy < g->oh; oy++) {
                    int64_t iy = oy * g->sh - g->ph + ky * g->dh;
                    float *row = dst + oy * g->ow;
                    if (iy < 0 || iy >= g->h) {
                        memset(row, 0, (size_t)g->ow * sizeof(float));
                        continue;
                    }
                    const float *srow = src + iy * g->w;
                    int64_t ix = -g->pw + kx * g->dw;
                    for (int64_t ox = 0; ox < g->ow; ox++, ix += g->sw)
                        row[ox] = (ix >= 0 && ix < g->w) ? srow[ix] : 0.0f;
                }
            }
}

bool kern_dw_geom_fits(const kern_dw_geom *g) {
    const int64_t v[] = {g->h, g->w, g->oh, g->ow, g->kh, g->kw, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] < 0 || v[i] > INT_MAX) return false;
    return g->oh * g->ow <= INT_MAX;
}

void kern_dw_plane(const kern_dw_geom *g, const float *xi, const float *k, const float *bias, float *yo) {
    /* nnfx_rt_conv2d_dw's g: N, C, M, H, W, OH, OW, KH, KW, strides, pads, dilations, group */
    const int rt[16] = {1,          1,          1,          (int)g->h,  (int)g->w,  (int)g->oh, (int)g->ow, (int)g->kh,
                        (int)g->kw, (int)g->sh, (int)g->sw, (int)g->ph, (int)g->pw, (int)g->dh, (int)g->dw, 1};
    nnfx_rt_conv2d_dw(xi, k, bias, yo, rt);
}

/* Depthwise: each output channel reads one input channel (of mult output
 * channels per input channel), plane by plane through kern_dw_plane. */
static void conv_depthwise(const conv2d *g, const kern_dw_geom *dg, const float *x, const float *wt, const float *bias,
                           float *y) {
    int64_t mult = g->m / g->group; /* output channels per input channel */
    for (int64_t b = 0; b < g->n; b++)
        for (int64_t oc = 0; oc < g->m; oc++)
            kern_dw_plane(dg, x + (b * g->c + oc / mult) * g->h * g->w, wt + oc * g->kh * g->kw,
                          bias ? bias + oc : NULL, y + (b * g->m + oc) * g->oh * g->ow);
}

/* Conv over nsp >= 3 spatial dims (3-d video convs and beyond): N-d im2col
 * col [C/g * K, O] (K, O: products of kernel and output sizes), then one
 * GEMM per image and group. */
static nnfx_status conv_nd(const nnfx_node *n, const nnfx_tensor *x, const nnfx_tensor *w, const nnfx_tensor *bias,
                           const ir_window *win, const int64_t *oshape, nnfx_tensor *y, nnfx_error *err) {
    int nsp = x->rank - 2;
    int64_t N = x->shape[0], C = x->shape[1], M = w->shape[0], group = ir_attr_int(n, "group");
    int64_t cg = C / group, mg = M / group, K = 1, O = 1, IN = 1;
    for (int i = 0; i < nsp; i++) {
        K *= win->k[i];
        O *= oshape[2 + i];
        IN *= x->shape[2 + i];
    }
    if (mg > INT_MAX || O > INT_MAX || cg * K > INT_MAX)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "conv is too large for the BLAS int range");
    float *col = malloc(sizeof *col * (size_t)(cg * K * O > 0 ? cg * K * O : 1));
    if (!col) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for the conv column buffer");
    const float *xd = x->data, *wd = w->data, *bd = bias ? bias->data : NULL;
    float *yd = y->data;
    for (int64_t b = 0; b < N; b++)
        for (int64_t gi = 0; gi < group; gi++) {
            const float *xg = xd + (b * C + gi * cg) * IN;
            int L = nsp - 1; /* innermost spatial dim: contiguous rows */
            int64_t OL = oshape[2 + L], IL = x->shape[2 + L], rows = O / (OL > 0 ? OL : 1);
            for (int64_t r = 0; r < cg * K; r++) {
                int64_t ci = r / K, kk[NNFX_MAX_RANK], oo[NNFX_MAX_RANK] = {0};
                for (int64_t q = r % K, d = nsp - 1; d >= 0; d--) {
                    kk[d] = q % win->k[d];
                    q /= win->k[d];
                }
                float *dst = col + r * O;
                int64_t x0 = kk[L] * win->d[L] - win->pb[L], sl = win->s[L];
                for (int64_t row = 0; row < rows; row++, dst += OL) {
                    int64_t off = 0;
                    bool inside = true;
                    for (int d = 0; d < L && inside; d++) {
                        int64_t iv = oo[d] * win->s[d] - win->pb[d] + kk[d] * win->d[d];
                        inside = iv >= 0 && iv < x->shape[2 + d];
                        off = off * x->shape[2 + d] + iv;
                    }
                    if (!inside) {
                        memset(dst, 0, sizeof *dst * (size_t)OL);
                    } else {
                        const float *src = xg + ci * IN + off * IL;
                        for (int64_t ox = 0, ix = x0; ox < OL; ox++, ix += sl)
                            dst[ox] = ix >= 0 && ix < IL ? src[ix] : 0.0f;
                    }
                    for (int d = L - 1; d >= 0; d--) {
                        if (++oo[d] < oshape[2 + d]) break;
                        oo[d] = 0;
                    }
                }
            }
            float *yg = yd + (b * M + gi * mg) * O;
            for (int64_t oc = 0; oc < mg; oc++)
                for (int64_t i = 0; i < O; i++)
                    yg[oc * O + i] = bd ? bd[gi * mg + oc] : 0.0f;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)O, (int)(cg * K), 1.0f,
                        wd + gi * mg * cg * K, (int)(cg * K), col, (int)O, 1.0f, yg, (int)O);
        }
    free(col);
    return NNFX_OK;
}

/* Conv(X, W, B?): see ONNX Conv; pads/strides/dilations/group/auto_pad. */
nnfx_status kern_conv(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    nnfx_status s;
    if (nin < 2 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "conv needs X and W");
    const nnfx_tensor *x = in[0], *w = in[1], *bias = nin > 2 ? in[2] : NULL;
    if ((s = kern_need(n, x, NNFX_F32, "X", err)) || (s = kern_need(n, w, NNFX_F32, "W", err))) return s;
    if (bias && (s = kern_need(n, bias, NNFX_F32, "B", err))) return s;
    if (x->rank != w->rank || x->rank < 3)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "conv needs input and weight of one rank >= 3, got %d and %d", x->rank,
                         w->rank);
    int nsp = x->rank - 2;
    int64_t ksz[NNFX_MAX_RANK], in_sp[NNFX_MAX_RANK];
    for (int i = 0; i < nsp; i++) {
        ksz[i] = w->shape[2 + i];
        in_sp[i] = x->shape[2 + i];
    }
    ir_window win;
    if ((s = ir_window_read(n, nsp, ksz, in_sp, &win, err))) return s;
    conv2d g;
    g.n = x->shape[0];
    g.c = x->shape[1];
    g.m = w->shape[0];
    g.group = ir_attr_int(n, "group");
    if (g.group < 1 || g.c != w->shape[1] * g.group || g.m % g.group != 0)
        return kern_fail(err, n, NNFX_ERR_SHAPE,
                         "conv channels do not fit: input %lld, weight [%lld, %lld, ...], group %lld", (long long)g.c,
                         (long long)g.m, (long long)w->shape[1], (long long)g.group);
    if (bias && nnfx_tensor_numel(bias) != g.m)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "conv bias has %lld values for %lld channels",
                         (long long)nnfx_tensor_numel(bias), (long long)g.m);
    int64_t oshape[NNFX_MAX_RANK] = {g.n, g.m};
    for (int i = 0; i < nsp; i++)
        oshape[2 + i] = ir_window_out(&win, i, in_sp[i]);
    if ((s = kern_check_out(n, out[0], x->rank, oshape, err))) return s;
    if (nsp > 2) return nnfx_tensor_numel(out[0]) ? conv_nd(n, x, w, bias, &win, oshape, out[0], err) : NNFX_OK;
    if (nsp == 1) {
        g.h = 1, g.w = x->shape[2], g.oh = 1, g.ow = oshape[2];
        g.kh = 1, g.kw = win.k[0], g.sh = 1, g.sw = win.s[0], g.dh = 1, g.dw = win.d[0], g.ph = 0, g.pw = win.pb[0];
    } else {
        g.h = x->shape[2], g.w = x->shape[3], g.oh = oshape[2], g.ow = oshape[3];
        g.kh = win.k[0], g.kw = win.k[1], g.sh = win.s[0], g.sw = win.s[1];
        g.dh = win.d[0], g.dw = win.d[1], g.ph = win.pb[0], g.pw = win.pb[1];
    }
    const float *xd = x->data, *wd = w->data, *bd = bias ? bias->data : NULL;
    float *yd = out[0]->data;
    int64_t cg = g.c / g.group, mg = g.m / g.group, ohw = g.oh * g.ow, kk = cg * g.kh * g.kw;
    if (nnfx_tensor_numel(out[0]) == 0) return NNFX_OK;
    if (mg > INT_MAX || ohw > INT_MAX || kk > INT_MAX || kk * ohw > (int64_t)(SIZE_MAX / 2 / sizeof(float)))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "conv is too large for the BLAS int range");
    if (cg == 1 && g.group > 1) {
        kern_dw_geom dg = {g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
        if (!kern_dw_geom_fits(&dg))
            return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "depthwise conv is too large for the int range");
        conv_depthwise(&g, &dg, xd, wd, bd, yd);
        return NNFX_OK;
    }
    bool direct =
        g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 && g.oh == g.h && g.ow == g.w;
    float *col = NULL;
    if (!direct) {
        col = malloc((size_t)(kk * ohw) * sizeof(float));
        if (!col)
            return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory for the conv column buffer (%lld floats)",
                             (long long)(kk * ohw));
    }
    for (int64_t b = 0; b < g.n; b++)
        for (int64_t gi = 0; gi < g.group; gi++) {
            const float *xg = xd + (b * g.c + gi * cg) * g.h * g.w;
            float *yg = yd + (b * g.m + gi * mg) * ohw;
            const float *src = xg;
            if (!direct) {
                im2col(&g, cg, xg, col);
                src = col;
            }
            float beta = 0.0f;
            if (bd) {
                for (int64_t oc = 0; oc < mg; oc++) {
                    float bv = bd[gi * mg + oc];
                    for (int64_t i = 0; i < ohw; i++)
                        yg[oc * ohw + i] = bv;
                }
                beta = 1.0f;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)ohw, (int)kk, 1.0f, wd + gi * mg * kk,
                        (int)kk, src, (int)ohw, beta, yg, (int)ohw);
        }
    free(col);
    return NNFX_OK;
}
