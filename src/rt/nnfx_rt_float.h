/* nnfx_rt_float.h — portable C99 kernels for further float32 ops of the C
 * that `nnfx codegen` writes (src/codegen/emit_float_ops.c): the variadic
 * Min/Max/Sum/Mean, Hardmax, the reductions beyond Mean/Sum/Max/Min,
 * InstanceNormalization, LRN, MeanVarianceNormalization, ConvTranspose and
 * MaxPool with its Indices. Each computes what the interpreter's kernel of
 * its op computes (src/exec/kernels/), in the same precision (double where
 * that kernel accumulates in double). No nnfx types, no allocation, no
 * state; libm only in the sections marked so. */
#ifndef NNFX_RT_FLOAT_H
#define NNFX_RT_FLOAT_H

#include <math.h>
#include <string.h>

#include "nnfx_rt_scalar.h"

/* @rt resize_taps libm */
/* The source coordinate of output position x along one axis of a Resize
 * from in to out at scale `scale`, coordinate mode ct: 0 half_pixel, 1
 * pytorch_half_pixel, 2 align_corners, 3 asymmetric, 4
 * tf_half_pixel_for_nn (tf_crop_and_resize is the interpreter's own). */
static inline double nnfx_rt_resize_coord(int ct, double scale, long x, long in, long out) {
    switch (ct) {
    case 0: return ((double)x + 0.5) / scale - 0.5;
    case 1: return out > 1 ? ((double)x + 0.5) / scale - 0.5 : 0.0;
    /* ONNX divides by (in * scale - 1), the unrounded output length: with a scales input that is not
     * out - 1 (downsampling 4 by 0.6 gives 1.4) */
    case 2: return out > 1 ? (double)x * (double)(in - 1) / ((double)in * scale - 1.0) : 0.0;
    case 3: return (double)x / scale;
    default: return ((double)x + 0.5) / scale;
    }
}

/* The taps at source coordinate s of an axis of length in > 0: nt source
 * rows idx[k] with weights w[k]. mode 0 nearest (nm: 0 round_prefer_floor,
 * 1 round_prefer_ceil, 2 floor, 3 ceil), 1 linear, 2 cubic (coefficient
 * ca, exclude_outside ex). The interpreter's taps (kern_resize). */
static inline void nnfx_rt_resize_taps(int mode, int nm, double ca, int ex, double s, long in, long *idx, float *w,
                                       int *nt) {
    int k;
    if (mode == 1) {
        long b;
        float f;
        if (s < 0) s = 0;
        if (s > (double)(in - 1)) s = (double)(in - 1);
        b = (long)floor(s);
        f = (float)(s - (double)b);
        *nt = 2;
        idx[0] = b, w[0] = 1.0f - f;
        idx[1] = b + 1 < in ? b + 1 : in - 1, w[1] = f;
    } else if (mode == 2) {
        double fl = floor(s), c[4], sum = 0, r, t0, t1, t2, t3;
        long b;
        if (fl < -4.0) fl = -4.0; /* far outside: every tap clamps to row 0 anyway */
        if (fl > (double)in + 4.0) fl = (double)in + 4.0;
        b = (long)fl;
        r = s - fl, t0 = r + 1, t1 = r, t2 = 1 - r, t3 = 2 - r;
        c[0] = ((ca * t0 - 5 * ca) * t0 + 8 * ca) * t0 - 4 * ca;
        c[1] = ((ca + 2) * t1 - (ca + 3)) * t1 * t1 + 1;
        c[2] = ((ca + 2) * t2 - (ca + 3)) * t2 * t2 + 1;
        c[3] = ((ca * t3 - 5 * ca) * t3 + 8 * ca) * t3 - 4 * ca;
        *nt = 4;
        for (k = 0; k < 4; k++) {
            long i = b - 1 + k;
            if (ex && (i < 0 || i >= in)) c[k] = 0;
            sum += c[k];
        }
        for (k = 0; k < 4; k++) {
            long i = b - 1 + k;
            idx[k] = i < 0 ? 0 : i >= in ? in - 1 : i;
            w[k] = (float)(ex && sum != 0 ? c[k] / sum : c[k]);
        }
    } else {
        double r;
        switch (nm) {
        case 0: r = (s == floor(s) + 0.5) ? floor(s) : round(s); break;
        case 1: r = (s == floor(s) + 0.5) ? ceil(s) : round(s); break;
        case 2: r = floor(s); break;
        default: r = ceil(s); break;
        }
        *nt = 1;
        idx[0] = r < 0 ? 0 : (r > (double)(in - 1) ? in - 1 : (long)r);
        w[0] = 1.0f;
    }
}
/* @end */

/* @rt variadic */
/* y = Min / Max / Sum / Mean (op 0 / 1 / 2 / 3) of the k <= 8 operands x[j]
 * broadcast to y's `rank` <= 6 dims `shape`; st[j * rank + d] is operand j's
 * element stride along output dim d (0 where it broadcasts). Computed in
 * double as the interpreter's variadic kernels: Min / Max give NaN when an
 * operand is NaN (with more than one operand), Mean divides the sum by k. */
static inline void nnfx_rt_variadic(const float *const *x, int k, float *y, int rank, const long *shape, const long *st,
                                    int op) {
    long idx[6] = {0, 0, 0, 0, 0, 0}, off[8] = {0, 0, 0, 0, 0, 0, 0, 0}, total = 1, i;
    int d, j;
    for (d = 0; d < rank; d++)
        total *= shape[d];
    for (i = 0; i < total; i++) {
        double r = x[0][off[0]];
        if (op <= 1) {
            for (j = 1; j < k; j++) {
                const double v = x[j][off[j]];
                if (v != v || r != r) {
                    r = NAN;
                    break;
                }
                if (op == 0 ? v < r : v > r) r = v;
            }
        } else {
            for (j = 1; j < k; j++)
                r += x[j][off[j]];
            if (op == 3) r /= k;
        }
        y[i] = (float)r;
        for (d = rank - 1; d >= 0; d--) {
            idx[d]++;
            for (j = 0; j < k; j++)
                off[j] += st[j * rank + d];
            if (idx[d] < shape[d]) break;
            for (j = 0; j < k; j++)
                off[j] -= st[j * rank + d] * shape[d];
            idx[d] = 0;
        }
    }
}
/* @end */

/* @rt hardmax */
/* Hardmax of x viewed as [outer, n, inner] along n: 1 at the first
 * maximum, 0 elsewhere. */
static inline void nnfx_rt_hardmax(const float *x, float *y, long outer, long n, long inner) {
    long o, j, i;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const long base = o * n * inner + j;
            long best = 0;
            for (i = 0; i < n; i++) {
                y[base + i * inner] = 0.0f;
                if (x[base + i * inner] > x[base + best * inner]) best = i;
            }
            if (n) y[base + best * inner] = 1.0f;
        }
}
/* @end */

/* @rt reduce_ext libm */
/* Over x viewed as [outer, n, inner]: y[o, i] = reduction over the middle
 * dim, accumulated in double in the input's order as the interpreter's
 * reduce: kind 4 product, 5 L1 (sum of |v|), 6 L2 (sqrt of the sum of
 * squares), 7 log of the sum, 8 log of the sum of exp, 9 sum of squares. */
static inline void nnfx_rt_reduce_ext(const float *x, float *y, long outer, long n, long inner, int kind) {
    long o, i, k;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float *p = x + o * n * inner + i;
            double acc = kind == 4 ? 1.0 : 0.0;
            for (k = 0; k < n; k++) {
                const double v = p[k * inner];
                acc = kind == 4   ? acc * v
                      : kind == 5 ? acc + fabs(v)
                      : kind == 8 ? acc + exp(v)
                      : kind == 7 ? acc + v
                                  : acc + v * v;
            }
            y[o * inner + i] = (float)(kind == 6 ? sqrt(acc) : kind == 7 || kind == 8 ? log(acc) : acc);
        }
}
/* @end */

/* @rt axes_walk */
/* A shape (`rank` <= 6 dims) split into the dims with red[d] set and the
 * others: row-major strides st, elements per group of the red dims (*per),
 * groups (*groups, one per position of the other dims). */
static inline void nnfx_rt_axes_split(int rank, const long *shape, const int *red, long *st, long *per, long *groups) {
    long e = 1;
    int d;
    *per = *groups = 1;
    for (d = rank - 1; d >= 0; d--) {
        st[d] = e;
        e *= shape[d];
        if (red[d])
            *per *= shape[d];
        else
            *groups *= shape[d];
    }
}

/* The next position over the dims whose red[d] is `reduced` (counters idx,
 * in row-major order), moving *off along strides st when off is given. */
static inline void nnfx_rt_axes_next(int rank, const long *shape, const int *red, int reduced, const long *st,
                                     long *idx, long *off) {
    int d;
    for (d = rank - 1; d >= 0; d--) {
        if (!red[d] != !reduced) continue;
        if (off) *off += st[d];
        if (++idx[d] < shape[d]) return;
        if (off) *off -= st[d] * shape[d];
        idx[d] = 0;
    }
}
/* @end */

/* @rt instance_norm libm */
/* InstanceNormalization over x [N, C, D]: each (n, c) plane normalised by
 * its mean and variance (in double), y = x * a + b with a = scale[c] /
 * sqrt(var + eps), b = B[c] - mean * a. */
static inline void nnfx_rt_instance_norm(const float *x, const float *scale, const float *bias, double eps, float *y,
                                         long N, long C, long D) {
    long p, i;
    for (p = 0; p < N * C; p++) {
        const long c = p % C;
        const float *xi = x + p * D;
        float *yo = y + p * D;
        double mu = 0, var = 0, a, b;
        for (i = 0; i < D; i++)
            mu += xi[i];
        mu /= (double)(D > 0 ? D : 1);
        for (i = 0; i < D; i++) {
            const double d = xi[i] - mu;
            var += d * d;
        }
        var /= (double)(D > 0 ? D : 1);
        a = scale[c] / sqrt(var + eps);
        b = bias[c] - mu * a;
        for (i = 0; i < D; i++)
            yo[i] = (float)(xi[i] * a + b);
    }
}
/* @end */

/* @rt lrn libm */
/* LRN over x [N, C, D]: y = x / (bias + alpha / size * sum of x^2 over the
 * channels [c - (size - 1) / 2, c + size / 2])^beta, in double. */
static inline void nnfx_rt_lrn(const float *x, float *y, long N, long C, long D, long size, double alpha, double beta,
                               double bias) {
    const long lo = (size - 1) / 2, hi = size / 2;
    long b, c, i, k;
    for (b = 0; b < N; b++)
        for (c = 0; c < C; c++)
            for (i = 0; i < D; i++) {
                double ss = 0;
                const long o = (b * C + c) * D + i;
                for (k = c - lo; k <= c + hi; k++) {
                    double v;
                    if (k < 0 || k >= C) continue;
                    v = x[(b * C + k) * D + i];
                    ss += v * v;
                }
                y[o] = (float)(x[o] / pow(bias + alpha / (double)size * ss, beta));
            }
}
/* @end */

/* @rt lp_norm libm */
/* LpNormalization of x [outer, n, inner] along n: y = x / ||x||_p (p 1 or
 * 2, the norm summed in double), 0 where the norm is 0 (as ONNX Runtime). */
static inline void nnfx_rt_lp_norm(const float *x, float *y, long outer, long n, long inner, int p) {
    long o, i, k;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float *xo = x + o * n * inner + i;
            float *yo = y + o * n * inner + i;
            double s = 0;
            for (k = 0; k < n; k++) {
                const double v = xo[k * inner];
                s += p == 1 ? (v < 0 ? -v : v) : v * v;
            }
            if (p != 1) s = sqrt(s);
            for (k = 0; k < n; k++)
                yo[k * inner] = s != 0 ? (float)(xo[k * inner] / s) : 0.0f;
        }
}
/* @end */

/* @rt mvn libm needs:axes_walk */
/* MeanVarianceNormalization of x (`rank` <= 6 dims `shape`) over the dims
 * with red[d] set: per group of the other dims, y = (x - mean) / (sqrt(var)
 * + 1e-9) with var = E[x^2] - E[x]^2 (0 when negative), in double. */
static inline void nnfx_rt_mvn(const float *x, float *y, int rank, const long *shape, const int *red) {
    long st[6], gi[6] = {0, 0, 0, 0, 0, 0}, ri[6], per, groups, g, e;
    int d;
    nnfx_rt_axes_split(rank, shape, red, st, &per, &groups);
    for (g = 0; g < groups; g++) {
        long base = 0;
        double s1 = 0, s2 = 0, mu, var;
        int pass;
        for (d = 0; d < rank; d++)
            base += red[d] ? 0 : gi[d] * st[d];
        for (pass = 0; pass < 2; pass++) {
            long off = base;
            for (d = 0; d < rank; d++)
                ri[d] = 0;
            mu = s1 / (double)per, var = s2 / (double)per - mu * mu;
            for (e = 0; e < per; e++) {
                const double v = x[off];
                if (pass == 0) {
                    s1 += v;
                    s2 += v * v;
                } else {
                    y[off] = (float)((v - mu) / (sqrt(var > 0 ? var : 0) + 1e-9));
                }
                nnfx_rt_axes_next(rank, shape, red, 1, st, ri, &off);
            }
        }
        nnfx_rt_axes_next(rank, shape, red, 0, st, gi, 0);
    }
}
/* @end */

/* @rt conv_transpose */
/* ConvTranspose over up to three spatial dims (fewer: leading dims of 1).
 * g: N, C, M, group, then per spatial dim j < 3 (outermost first) its
 * input size, output size, kernel size, stride, dilation and begin pad at
 * g[4 + 6 * j ...]. x is [N, C, in...], w [C, M / group, k...], b [M] (NULL:
 * none), y [N, M, out...]: every input value scatters into the outputs
 * o = i * stride + k * dilation - pad that lie inside. */
static inline void nnfx_rt_conv_transpose(const float *x, const float *w, const float *b, float *y, const long *g) {
    const long N = g[0], C = g[1], M = g[2], G = g[3], cg = C / G, mg = M / G;
    const long *D0 = g + 4, *D1 = g + 10, *D2 = g + 16;
    const long IN = D0[0] * D1[0] * D2[0], O = D0[1] * D1[1] * D2[1], K = D0[2] * D1[2] * D2[2];
    long n, gi, m, c, k0, k1, k2, i0, i1, i2, i;
    for (n = 0; n < N; n++)
        for (gi = 0; gi < G; gi++)
            for (m = 0; m < mg; m++) {
                float *yp = y + (n * M + gi * mg + m) * O;
                const float bv = b ? b[gi * mg + m] : 0.0f;
                for (i = 0; i < O; i++)
                    yp[i] = bv;
                for (c = 0; c < cg; c++) {
                    const float *xp = x + (n * C + gi * cg + c) * IN;
                    const float *wp = w + ((gi * cg + c) * mg + m) * K;
                    for (k0 = 0; k0 < D0[2]; k0++)
                        for (k1 = 0; k1 < D1[2]; k1++)
                            for (k2 = 0; k2 < D2[2]; k2++) {
                                const float wv = wp[(k0 * D1[2] + k1) * D2[2] + k2];
                                for (i0 = 0; i0 < D0[0]; i0++) {
                                    const long o0 = i0 * D0[3] + k0 * D0[4] - D0[5];
                                    if (o0 < 0 || o0 >= D0[1]) continue;
                                    for (i1 = 0; i1 < D1[0]; i1++) {
                                        const long o1 = i1 * D1[3] + k1 * D1[4] - D1[5];
                                        const float *xr = xp + (i0 * D1[0] + i1) * D2[0];
                                        float *yr;
                                        if (o1 < 0 || o1 >= D1[1]) continue;
                                        yr = yp + (o0 * D1[1] + o1) * D2[1];
                                        for (i2 = 0; i2 < D2[0]; i2++) {
                                            const long o2 = i2 * D2[3] + k2 * D2[4] - D2[5];
                                            if (o2 >= 0 && o2 < D2[1]) yr[o2] += xr[i2] * wv;
                                        }
                                    }
                                }
                            }
                }
            }
}
/* @end */

/* @rt tile */
/* Tile: y (`rank` <= 6 dims yshape) takes x (dims xshape) at each
 * coordinate modulo x's dim. */
static inline void nnfx_rt_tile(const float *x, float *y, int rank, const long *xshape, const long *yshape) {
    long pos[6] = {0, 0, 0, 0, 0, 0}, xst[6], cnt = 1, i;
    int d;
    for (d = rank - 1, i = 1; d >= 0; d--) {
        xst[d] = i;
        i *= xshape[d];
        cnt *= yshape[d];
    }
    for (i = 0; i < cnt; i++) {
        long off = 0;
        for (d = 0; d < rank; d++)
            off += pos[d] % xshape[d] * xst[d];
        y[i] = x[off];
        for (d = rank - 1; d >= 0; d--) {
            if (++pos[d] < yshape[d]) break;
            pos[d] = 0;
        }
    }
}
/* @end */

/* @rt grid_coord libm */
/* GridSample's coordinate rules (PyTorch's grid_sampler_2d, which ONNX's
 * GridSample follows), in double; the interpreter's kernel
 * (src/exec/kernels/sampling.c) calls them too. pm: padding mode 0 zeros,
 * 1 border, 2 reflection. */
static inline double nnfx_rt_gs_unnormalize(double c, long size, int align) {
    return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}
static inline double nnfx_rt_gs_clip(double c, long size) { return fmin((double)(size - 1), fmax(c, 0.0)); }
static inline double nnfx_rt_gs_reflect(double c, double twice_low, double twice_high) {
    double mn, span, extra;
    long long flips;
    if (twice_low == twice_high) return 0;
    mn = twice_low / 2, span = (twice_high - twice_low) / 2;
    c = fabs(c - mn);
    extra = fmod(c, span);
    flips = (long long)floor(c / span);
    return flips % 2 == 0 ? extra + mn : span - extra + mn;
}
static inline double nnfx_rt_gs_pad(double c, long size, int pm, int align) {
    if (pm == 1) return nnfx_rt_gs_clip(c, size);
    if (pm == 2) {
        c = align ? nnfx_rt_gs_reflect(c, 0, 2.0 * (double)(size - 1))
                  : nnfx_rt_gs_reflect(c, -1, 2.0 * (double)size - 1);
        return nnfx_rt_gs_clip(c, size);
    }
    return c;
}
/* The bicubic convolution weights (A = -0.75) of |distance| x in [0, 1]
 * (cc1) and [1, 2] (cc2). */
static inline double nnfx_rt_gs_cc1(double x, double A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
static inline double nnfx_rt_gs_cc2(double x, double A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }
/* @end */

/* @rt grid_sample needs:grid_coord */
/* GridSample of x [N, C, H, W] at grid [N, Ho, Wo, 2] (x, y in [-1, 1])
 * into y [N, C, Ho, Wo]: mode 0 bilinear, 1 nearest, 2 bicubic; pm and
 * align as nnfx_rt_gs_pad; outside the image: 0. */
static inline double nnfx_rt_gs_at(const float *p, long H, long W, long y, long x) {
    return y < 0 || y >= H || x < 0 || x >= W ? 0.0 : (double)p[y * W + x];
}
static inline void nnfx_rt_grid_sample(const float *x, const float *grid, float *y, long N, long C, long H, long W,
                                       long Ho, long Wo, int mode, int pm, int align) {
    long b, oy, ox, c;
    int i, j;
    for (b = 0; b < N; b++)
        for (oy = 0; oy < Ho; oy++)
            for (ox = 0; ox < Wo; ox++) {
                const float *g = grid + ((b * Ho + oy) * Wo + ox) * 2;
                const double ix = nnfx_rt_gs_unnormalize(g[0], W, align), iy = nnfx_rt_gs_unnormalize(g[1], H, align);
                for (c = 0; c < C; c++) {
                    const float *p = x + (b * C + c) * H * W;
                    double v = 0;
                    if (mode == 2) {
                        const double x0 = floor(ix), y0 = floor(iy), tx = ix - x0, ty = iy - y0, A = -0.75;
                        const double wx[4] = {nnfx_rt_gs_cc2(tx + 1, A), nnfx_rt_gs_cc1(tx, A),
                                              nnfx_rt_gs_cc1(1 - tx, A), nnfx_rt_gs_cc2(2 - tx, A)};
                        const double wy[4] = {nnfx_rt_gs_cc2(ty + 1, A), nnfx_rt_gs_cc1(ty, A),
                                              nnfx_rt_gs_cc1(1 - ty, A), nnfx_rt_gs_cc2(2 - ty, A)};
                        for (j = 0; j < 4; j++)
                            for (i = 0; i < 4; i++) {
                                const double sx = nnfx_rt_gs_pad(x0 - 1 + i, W, pm, align),
                                             sy = nnfx_rt_gs_pad(y0 - 1 + j, H, pm, align);
                                v += wy[j] * wx[i] * nnfx_rt_gs_at(p, H, W, (long)sy, (long)sx);
                            }
                    } else {
                        const double sx = nnfx_rt_gs_pad(ix, W, pm, align), sy = nnfx_rt_gs_pad(iy, H, pm, align);
                        if (mode == 1) {
                            v = nnfx_rt_gs_at(p, H, W, (long)nearbyint(sy), (long)nearbyint(sx));
                        } else {
                            const double x0 = floor(sx), y0 = floor(sy), tx = sx - x0, ty = sy - y0;
                            const long xi = (long)x0, yi = (long)y0;
                            v = nnfx_rt_gs_at(p, H, W, yi, xi) * (1 - tx) * (1 - ty) +
                                nnfx_rt_gs_at(p, H, W, yi, xi + 1) * tx * (1 - ty) +
                                nnfx_rt_gs_at(p, H, W, yi + 1, xi) * (1 - tx) * ty +
                                nnfx_rt_gs_at(p, H, W, yi + 1, xi + 1) * tx * ty;
                        }
                    }
                    y[((b * C + c) * Ho + oy) * Wo + ox] = (float)v;
                }
            }
}
/* @end */

/* Indexing by indices computed at run time (an int64 or int32 tensor,
 * stored bytewise: a model input or a value in the arena). An index
 * outside its dim, which the interpreter refuses with an error, reads zeros
 * (Gather*) or writes nothing (Scatter*) in generated C, which has no error
 * path: never memory outside the tensors. */

/* @rt index_at */
#include <stdint.h>
/* Entry i of the int64 (is64) or int32 indices at p. */
static inline long long nnfx_rt_index_raw(const unsigned char *p, long i, int is64) {
    long long v;
    if (is64) {
        memcpy(&v, p + i * 8, 8);
    } else {
        int32_t w;
        memcpy(&w, p + i * 4, 4);
        v = w;
    }
    return v;
}
/* Index i made non-negative by adding len; -1 when outside [0, len). */
static inline long nnfx_rt_index_at(const unsigned char *p, long i, int is64, long len) {
    long long v = nnfx_rt_index_raw(p, i, is64);
    if (v < 0) v += len;
    return v >= 0 && v < len ? (long)v : -1;
}
/* @end */

/* @rt reverse_sequence needs:index_at */
/* ReverseSequence of x [T, B, inner] (time_major) or [B, T, inner]: for
 * batch b the first lens[b] steps reversed, the rest copied (a length
 * outside [0, T], which the interpreter refuses: a plain copy). */
static inline void nnfx_rt_reverse_sequence(const float *x, float *y, const unsigned char *lens, int is64, long T,
                                            long B, long inner, int time_major) {
    long b, t, i;
    for (b = 0; b < B; b++) {
        long long len = nnfx_rt_index_raw(lens, b, is64);
        if (len < 0 || len > T) len = 0;
        for (t = 0; t < T; t++) {
            const long st = t < len ? (long)len - 1 - t : t;
            const long so = time_major ? st * B + b : b * T + st, dof = time_major ? t * B + b : b * T + t;
            for (i = 0; i < inner; i++)
                y[dof * inner + i] = x[so * inner + i];
        }
    }
}
/* @end */

#endif
