/* nnfx_rt_indexed.h — float ops whose integer input picks positions:
 * MaxUnpool (values scattered to the flat indices a MaxPool gave),
 * RoiAlign (bilinear samples of regions of a batch image, as
 * torchvision / ONNX Runtime) and TfIdfVectorizer (n-gram counts of
 * integer tokens). Values are typed bytes (nnfx_rt_typed.h's
 * codes); indices int64. The interpreter's kernels
 * (src/exec/kernels/layout.c, sampling.c) call these same loops; an index
 * out of range makes them return 1 + its position (the interpreter fails,
 * generated C's NAME_run returns 2). Sections as in nnfx_rt_kernels.h. */
#ifndef NNFX_RT_INDEXED_H
#define NNFX_RT_INDEXED_H

#include <math.h>
#include <string.h>

#include "nnfx_rt_typed.h"

/* @rt max_unpool needs:tval */
/* MaxUnpool: y (rank dims yshape, values of es bytes, zeroed first) gets
 * x[i] (cnt values) at the flat index ix[i] (int64) of the default output
 * shape def (the pooling's input shape), mapped to y's shape. Returns 0, or
 * 1 + i for the first index out of range or past y's shape (y then
 * incomplete). */
static inline long nnfx_rt_max_unpool(const unsigned char *x, long es, const unsigned char *ix, long cnt, int rank,
                                      const long *def, const long *yshape, unsigned char *y) {
    long i, lim = 1, ny = 1;
    int d;
    for (d = 0; d < rank; d++)
        lim *= def[d], ny *= yshape[d];
    memset(y, 0, (size_t)(ny * es));
    for (i = 0; i < cnt; i++) {
        long long j = nnfx_rt_ld_i(ix, i, 1);
        long o = 0, mul = 1;
        if (j < 0 || j >= lim) return 1 + i;
        for (d = rank - 1; d >= 0; d--) {
            const long cd = (long)(j % def[d]);
            if (cd >= yshape[d]) return 1 + i;
            o += cd * mul;
            mul *= yshape[d];
            j /= def[d];
        }
        memcpy(y + o * es, x + i * es, (size_t)es);
    }
    return 0;
}
/* @end */

/* @rt roi_align libm needs:tval */
/* Value (y, x) of the H x W plane at element off of x (type tx), 0 outside. */
static inline double nnfx_rt_roi_at(const unsigned char *x, int tx, long off, long H, long W, long y, long xx) {
    if (y < 0 || y >= H || xx < 0 || xx >= W) return 0;
    return nnfx_rt_ld_f(x, off + y * W + xx, tx);
}

/* Bilinear sample at (y, x) as RoiAlign defines it (clamped at the border,
 * zero beyond one pixel outside). */
static inline double nnfx_rt_roi_bilinear(const unsigned char *x, int tx, long off, long H, long W, double y,
                                          double xx) {
    long yl, xl, yh, xh;
    double ly, lx, hy, hx;
    if (y < -1.0 || y > (double)H || xx < -1.0 || xx > (double)W) return 0;
    y = fmax(y, 0), xx = fmax(xx, 0);
    yl = (long)y, xl = (long)xx;
    if (yl >= H - 1)
        yh = yl = H - 1, y = (double)yl;
    else
        yh = yl + 1;
    if (xl >= W - 1)
        xh = xl = W - 1, xx = (double)xl;
    else
        xh = xl + 1;
    ly = y - (double)yl, lx = xx - (double)xl, hy = 1 - ly, hx = 1 - lx;
    return hy * hx * nnfx_rt_roi_at(x, tx, off, H, W, yl, xl) + hy * lx * nnfx_rt_roi_at(x, tx, off, H, W, yl, xh) +
           ly * hx * nnfx_rt_roi_at(x, tx, off, H, W, yh, xl) + ly * lx * nnfx_rt_roi_at(x, tx, off, H, W, yh, xh);
}

/* RoiAlign of x [N, C, H, W] (type tx) over the R regions rois [R, 4]
 * (x1, y1, x2, y2; type tr) of the batch images bi [R] (int64): y [R, C,
 * PH, PW] (type ty), the average (or max when mx) of sr x sr bilinear
 * samples per bin (sr 0: ceil(region / bins) per axis), coordinates scaled
 * by scale less 0.5 when half (half_pixel). Returns 0, or 1 + r for the
 * first region whose batch index is out of range. */
static inline long nnfx_rt_roi_align(const unsigned char *x, int tx, const unsigned char *rois, int tr,
                                     const unsigned char *bi, unsigned char *y, int ty, long N, long C, long H, long W,
                                     long R, long PH, long PW, long sr, double scale, int half, int mx) {
    const double off = half ? 0.5 : 0.0;
    long r, c, ph, pw, iy, ix;
    for (r = 0; r < R; r++) {
        const long long b = nnfx_rt_ld_i(bi, r, 1);
        double x1, y1, x2, y2, rw, rh, bh, bw, cnt;
        long gh, gw;
        if (b < 0 || b >= N) return 1 + r;
        x1 = nnfx_rt_ld_f(rois, r * 4, tr) * scale - off, y1 = nnfx_rt_ld_f(rois, r * 4 + 1, tr) * scale - off;
        x2 = nnfx_rt_ld_f(rois, r * 4 + 2, tr) * scale - off, y2 = nnfx_rt_ld_f(rois, r * 4 + 3, tr) * scale - off;
        rw = x2 - x1, rh = y2 - y1;
        if (!half) rw = fmax(rw, 1.0), rh = fmax(rh, 1.0);
        bh = rh / (double)PH, bw = rw / (double)PW;
        gh = sr > 0 ? sr : (long)ceil(rh / (double)PH), gw = sr > 0 ? sr : (long)ceil(rw / (double)PW);
        cnt = (double)(gh * gw > 0 ? gh * gw : 1);
        for (c = 0; c < C; c++) {
            const long po = ((long)b * C + c) * H * W;
            for (ph = 0; ph < PH; ph++)
                for (pw = 0; pw < PW; pw++) {
                    double acc = mx ? -INFINITY : 0;
                    for (iy = 0; iy < gh; iy++)
                        for (ix = 0; ix < gw; ix++) {
                            const double yy = y1 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                            const double xx = x1 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                            const double v = nnfx_rt_roi_bilinear(x, tx, po, H, W, yy, xx);
                            acc = mx ? fmax(acc, v) : acc + v;
                        }
                    nnfx_rt_st_f(y, ((r * C + c) * PH + ph) * PW + pw, ty, mx ? acc : acc / cnt);
                }
        }
    }
    return 0;
}
/* @end */

/* @rt tfidf needs:tval */
/* TfIdfVectorizer over integer tokens x [rows, C] (type tx): counts the
 * pool's n-grams (lengths mn..mx; n-grams of length L are pool[cnts[L-1] ..
 * cnts[L]) in groups of L; taken every skip + 1 tokens for skip 0..skips,
 * unigrams once) in each row and writes, per output index idx[g], the count
 * (mode 0: TF), the n-gram's weight wts[g] (1 past nwts) when it occurs (1:
 * IDF) or their product (2: TFIDF) into y [rows, Cout], float32. Returns 0,
 * or 1 when cnts do not fit the pool, 2 when an n-gram that occurs has no
 * output index, 3 when its index is past Cout (y then incomplete). */
static inline int nnfx_rt_tfidf(const unsigned char *x, int tx, long rows, long C, float *y, long Cout,
                                const long *cnts, long ncnts, const long *idx, long nidx, const long *pool, long npool,
                                const float *wts, long nwts, long mn, long mx, long skips, int mode) {
    long r, len, skip, s, g, k;
    for (r = 0; r < rows * Cout; r++)
        y[r] = 0;
    for (r = 0; r < rows; r++) {
        long ordinal = 0; /* index of the first n-gram of the current length */
        for (len = 1; len <= ncnts && len <= mx; len++) {
            const long lo = cnts[len - 1], hi = len < ncnts ? cnts[len] : npool;
            long ngrams;
            if (lo < 0 || hi > npool || hi < lo || (hi - lo) % len) return 1;
            ngrams = (hi - lo) / len;
            for (skip = 0; len >= mn && skip <= skips && !(len == 1 && skip > 0); skip++) {
                const long step = skip + 1;
                for (s = 0; s + (len - 1) * step < C; s++)
                    for (g = 0; g < ngrams; g++) {
                        int same = 1;
                        long o;
                        for (k = 0; k < len && same; k++)
                            same = nnfx_rt_ld_i(x, r * C + s + k * step, tx) == pool[lo + g * len + k];
                        if (!same) continue;
                        if (ordinal + g >= nidx) return 2;
                        o = idx[ordinal + g];
                        if (o < 0 || o >= Cout) return 3;
                        y[r * Cout + o] = (float)((double)y[r * Cout + o] + 1);
                    }
            }
            ordinal += ngrams;
        }
        if (mode == 0) continue;
        for (g = 0; g < nidx; g++) { /* IDF / TFIDF: weigh each n-gram's count */
            const long o = idx[g];
            double w, c;
            if (o < 0 || o >= Cout) continue;
            w = wts && g < nwts ? (double)wts[g] : 1.0;
            c = y[r * Cout + o];
            y[r * Cout + o] = (float)(mode == 1 ? (c > 0 ? w : 0) : c * w);
        }
    }
    return 0;
}
/* @end */

#endif
