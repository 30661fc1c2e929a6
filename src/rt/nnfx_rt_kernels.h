/* nnfx_rt_kernels.h — portable C99 kernels over raw float pointers for the
 * C that `nnfx codegen` writes: no nnfx types, no allocation, no state, no
 * libc beyond memcpy/memset. The generator copies the sections a model uses
 * (between the "@rt NAME" and "@end" markers; "needs:A,B" names sections
 * that must come first) into NAME.c; the scalar meaning of the element-wise ops
 * is nnfx_rt_scalar.h, shared with the interpreter. Geometry arrays are
 * described beside each kernel; shapes are row-major (NCHW for images). */
#ifndef NNFX_RT_KERNELS_H
#define NNFX_RT_KERNELS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nnfx_rt_float.h"
#include "nnfx_rt_scalar.h"

/* @rt map */
/* y[i] = f(x[i], a, b) for i < n (x == y allowed). */
static inline void nnfx_rt_map(const float *x, float *y, long n, float a, float b, float (*f)(float, float, float)) {
    long i;
    for (i = 0; i < n; i++)
        y[i] = f(x[i], a, b);
}
/* @end */

/* @rt bcast_next */
/* Steps the outer index idx[0 .. rank - 1) of a broadcast walk (the
 * innermost dim is the caller's row) and the operands' offsets *oa, *ob
 * (strides sa, sb); 0 when the walk is done. */
static inline int nnfx_rt_bcast_next(int rank, const long *shape, const long *sa, const long *sb, long *idx, long *oa,
                                     long *ob) {
    int d = rank - 2;
    while (d >= 0) {
        idx[d]++;
        *oa += sa[d];
        *ob += sb[d];
        if (idx[d] < shape[d]) return 1;
        *oa -= sa[d] * shape[d];
        *ob -= sb[d] * shape[d];
        idx[d] = 0;
        d--;
    }
    return 0;
}
/* @end */

/* @rt bcast needs:bcast_next */
/* y = f(a, b) with broadcasting: the output has `rank` dims `shape`
 * (rank <= 6, innermost last); sa/sb are each operand's element strides
 * per output dim (0 where it broadcasts). */
static inline void nnfx_rt_bcast(const float *a, const float *b, float *y, int rank, const long *shape, const long *sa,
                                 const long *sb, float (*f)(float, float)) {
    long idx[6] = {0, 0, 0, 0, 0, 0}, oa = 0, ob = 0, n = shape[rank - 1], ia = sa[rank - 1], ib = sb[rank - 1];
    for (;;) {
        long i;
        if (ia == 1 && ib == 1)
            for (i = 0; i < n; i++)
                y[i] = f(a[oa + i], b[ob + i]);
        else if (ia == 1 && ib == 0)
            for (i = 0; i < n; i++)
                y[i] = f(a[oa + i], b[ob]);
        else if (ia == 0 && ib == 1)
            for (i = 0; i < n; i++)
                y[i] = f(a[oa], b[ob + i]);
        else
            for (i = 0; i < n; i++)
                y[i] = f(a[oa + i * ia], b[ob + i * ib]);
        y += n;
        if (!nnfx_rt_bcast_next(rank, shape, sa, sb, idx, &oa, &ob)) return;
    }
}
/* @end */

/* @rt compare needs:bcast_next */
/* y[i] = (a op b) as one byte 0 / 1 (a bool tensor), operands broadcast as
 * in nnfx_rt_bcast: op 0 >, 1 <, 2 >=, 3 <=, 4 ==; false when either is NaN
 * (the interpreter's comparisons of float32 values). */
static inline void nnfx_rt_compare(const float *a, const float *b, unsigned char *y, int rank, const long *shape,
                                   const long *sa, const long *sb, int op) {
    long idx[6] = {0, 0, 0, 0, 0, 0}, oa = 0, ob = 0, n = shape[rank - 1], ia = sa[rank - 1], ib = sb[rank - 1];
    for (;;) {
        long i;
        for (i = 0; i < n; i++) {
            float u = a[oa + i * ia], v = b[ob + i * ib];
            y[i] = (unsigned char)(op == 0 ? u > v : op == 1 ? u < v : op == 2 ? u >= v : op == 3 ? u <= v : u == v);
        }
        y += n;
        if (!nnfx_rt_bcast_next(rank, shape, sa, sb, idx, &oa, &ob)) return;
    }
}
/* @end */

/* @rt add_inplace */
/* y[i] += r[i]: a residual added in a convolution's epilogue. */
static inline void nnfx_rt_add_inplace(float *y, const float *r, long n) {
    long i;
    for (i = 0; i < n; i++)
        y[i] += r[i];
}
/* @end */

/* @rt window */
/* The taps k < K of a window whose input index o*S - P + k*D lies in
 * [0, n): k in [*lo, *hi) (empty when *lo == *hi). Shared by the direct
 * convolution and pooling. */
static inline void nnfx_rt_window(int o, int S, int P, int D, int K, int n, int *lo, int *hi) {
    const int s = o * S - P;
    int a = 0, z = K;
    while (a < z && s + a * D < 0)
        a++;
    while (z > a && s + (z - 1) * D >= n)
        z--;
    *lo = a;
    *hi = z;
}
/* @end */

/* @rt conv2d needs:window */
/* 2-d convolution, the smallest code (`nnfx codegen --optimize size`): one
 * dot product per output over the taps inside the input. g: N, C, M, H, W,
 * OH, OW, KH, KW, stride h/w, pad top/left, dilation h/w, group.
 * x [N,C,H,W], w [M,C/group,KH,KW], b [M] or NULL, y [N,M,OH,OW]. */
static inline void nnfx_rt_conv2d(const float *x, const float *w, const float *b, float *y, const int *g) {
    const int N = g[0], C = g[1], M = g[2], H = g[3], W = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int cg = C / g[15], mg = M / g[15];
    int n, m, oh, ow, c, kh, kw, h0, h1, w0, w1;
    for (n = 0; n < N; n++)
        for (m = 0; m < M; m++) {
            const float *xg = x + ((long)n * C + (long)(m / mg) * cg) * H * W, *wm = w + (long)m * cg * KH * KW;
            for (oh = 0; oh < OH; oh++) {
                nnfx_rt_window(oh, g[9], g[11], g[13], KH, H, &h0, &h1);
                for (ow = 0; ow < OW; ow++) {
                    const int ih = oh * g[9] - g[11], iw = ow * g[10] - g[12];
                    float s = b ? b[m] : 0.0f;
                    nnfx_rt_window(ow, g[10], g[12], g[14], KW, W, &w0, &w1);
                    for (c = 0; c < cg; c++)
                        for (kh = h0; kh < h1; kh++)
                            for (kw = w0; kw < w1; kw++)
                                s += wm[(c * KH + kh) * KW + kw] *
                                     xg[((long)c * H + ih + kh * g[13]) * W + iw + kw * g[14]];
                    *y++ = s;
                }
            }
        }
}
/* @end */

/* @rt vec */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(NNFX_RT_NO_VECTOR)
/* GCC/Clang vector types (8 floats; no intrinsics, any ISA of these
 * targets): the same sums, held in registers */
typedef float nnfx_rt_v8 __attribute__((vector_size(32)));
typedef float nnfx_rt_v8u __attribute__((vector_size(32), aligned(4)));
#define NNFX_RT_VEC 1
#endif
/* @end */

/* @rt conv2d_dw */
/* Depthwise 2-d convolution (one input channel per group; g and the
 * tensors as for nnfx_rt_conv2d): each output row is accumulated tap by
 * tap over its valid columns (a contiguous axpy for stride 1). */
static inline void nnfx_rt_conv2d_dw(const float *x, const float *w, const float *b, float *y, const int *g) {
    const int N = g[0], C = g[1], H = g[3], W = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14];
    int n, m, kh, kw, oh, ow;
    for (n = 0; n < N; n++)
        for (m = 0; m < C; m++) {
            float *yp = y + ((long)n * C + m) * OH * OW;
            const float *xp = x + ((long)n * C + m) * H * W, *wp = w + (long)m * KH * KW;
            for (oh = 0; oh < OH * OW; oh++)
                yp[oh] = b ? b[m] : 0.0f;
            for (kh = 0; kh < KH; kh++)
                for (kw = 0; kw < KW; kw++) {
                    const float wv = wp[kh * KW + kw];
                    const int dx = kw * DW - PW;
                    /* valid columns: 0 <= ow*SW + dx < W */
                    int lo = dx >= 0 ? 0 : (-dx + SW - 1) / SW, hi = W - 1 - dx < 0 ? 0 : (W - 1 - dx) / SW + 1;
                    if (hi > OW) hi = OW;
                    for (oh = 0; oh < OH; oh++) {
                        const int ih = oh * SH - PH + kh * DH;
                        const float *xr = xp + (long)ih * W + dx;
                        float *yr = yp + (long)oh * OW;
                        if (ih < 0 || ih >= H) continue;
                        if (SW == 1)
                            for (ow = lo; ow < hi; ow++)
                                yr[ow] += wv * xr[ow];
                        else
                            for (ow = lo; ow < hi; ow++)
                                yr[ow] += wv * xr[(long)ow * SW];
                    }
                }
        }
}
/* @end */

/* @rt conv2d_vt needs:vec */
/* The host kernel behind nnfx_rt_conv2d_packed with 64 or more output
 * channels a group (fewer do not repay the gather) and behind the
 * convolutions of nnfx_rt_conv2d_same that are 1x1 or sum C/group x taps >=
 * 64 products into 64 or more channels a group, where GCC/Clang vectors
 * exist (NNFX_RT_VEC) and the
 * target has no AVX-512 (which keeps the 16-float tiles below): the conv as
 * a matrix product y[m][p] = sum over k of w[m][k] * xcol[k][p], k = tap *
 * C/group + c, over the packed weights. For each run of NNFX_RT_TP output
 * pixels (flattened plane: any stride, padding, dilation) the xcol rows of
 * a chunk of at most NNFX_RT_KC k are gathered into a buffer on the stack
 * (taps in the padding read 0; a 1x1 convolution that keeps its plane reads
 * x in place), then register tiles run over them: 6 pixels x the 16
 * channels of a weight block (the channels one vector pair, a broadcast
 * input per pixel) when the sum (C/group x taps) has 32 or more products,
 * which repay its transposed store, else 4 channels x NNFX_RT_TP pixels
 * (the pixels in vectors). The first chunk starts from the bias (and
 * residual r), later ones from the partial sums in y; the last applies
 * ReLU (g[16]). Not for an MCU: the buffer
 * takes 48 KiB of stack, and there is no NNFX_RT_VEC there. */
#if defined(NNFX_RT_VEC)
#define NNFX_RT_VT 1
#ifndef NNFX_RT_OB
#define NNFX_RT_OB 16 /* fixed by the weight layout (also nnfx_rt_conv2d_packed's) */
#endif
typedef int nnfx_rt_v8i __attribute__((vector_size(32)));
#ifdef __AVX512F__
/* AVX-512: only the short sums come here (the 16-float tiles below keep
 * the rest), in 8 channels x 3 vectors of 16 pixels */
#define NNFX_RT_TV 16  /* floats a vector of the short-sum tiles */
#define NNFX_RT_TC 8   /* channels a short-sum tile */
#define NNFX_RT_KC 256 /* xcol rows per chunk: the same 48 KiB */
typedef float nnfx_rt_vtv __attribute__((vector_size(64)));
typedef float nnfx_rt_vtvu __attribute__((vector_size(64), aligned(4)));
typedef int nnfx_rt_vtvi __attribute__((vector_size(64)));
#define NNFX_RT_TSPLAT(v)                                                                                              \
    { v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v } /* a vector of v */
#else
#define NNFX_RT_TV 8
#define NNFX_RT_TC 4
#define NNFX_RT_KC 512 /* xcol rows per chunk */
typedef nnfx_rt_v8 nnfx_rt_vtv;
typedef nnfx_rt_v8u nnfx_rt_vtvu;
typedef nnfx_rt_v8i nnfx_rt_vtvi;
#define NNFX_RT_TSPLAT(v)                                                                                              \
    { v, v, v, v, v, v, v, v }
#endif
#define NNFX_RT_TP (3 * NNFX_RT_TV) /* pixels per gathered run: 3 vectors (AVX2: 4 tiles of 6) */
/* What one conv's tiles share: output y [N, M, P], bias b, residual r. */
struct nnfx_rt_vt {
    const float *b, *r;
    float *y;
    long P;
    int M, mg, relu;
};
/* acc[i*3 + v] (channel i, pixels NNFX_RT_TV*v..) += xs row k (at xs +
 * k*ld) times w[k*NNFX_RT_OB + i], k < kn: NNFX_RT_TC channels x
 * NNFX_RT_TP pixels. */
static inline void nnfx_rt_vt_k4(const float *xs, long ld, const float *w, int kn, nnfx_rt_vtv *acc) {
    nnfx_rt_vtv a[NNFX_RT_TC][3];
    int i, v, k;
    memcpy(a, acc, sizeof a);
    for (k = 0; k < kn; k++, xs += ld, w += NNFX_RT_OB) {
        nnfx_rt_vtv xv[3];
        for (v = 0; v < 3; v++)
            xv[v] = *(const nnfx_rt_vtvu *)(xs + NNFX_RT_TV * v);
        for (i = 0; i < NNFX_RT_TC; i++) {
            const float wv = w[i];
            for (v = 0; v < 3; v++)
                a[i][v] += xv[v] * wv;
        }
    }
    memcpy(acc, a, sizeof a);
}
/* acc[2j + v] (pixel j, channels 8v..) += xs[k*ld + j] times the block's
 * weights w[k*NNFX_RT_OB + 8v ..], k < kn: 6 pixels x 16 channels. */
static inline void nnfx_rt_vt_k6(const float *xs, long ld, const float *w, int kn, nnfx_rt_v8 *acc) {
    nnfx_rt_v8 a[6][2];
    int j, k;
    memcpy(a, acc, sizeof a);
    for (k = 0; k < kn; k++, xs += ld, w += NNFX_RT_OB) {
        const nnfx_rt_v8 w0 = *(const nnfx_rt_v8u *)w, w1 = *(const nnfx_rt_v8u *)(w + 8);
        for (j = 0; j < 6; j++) {
            const float xb = xs[j];
            a[j][0] += xb * w0;
            a[j][1] += xb * w1;
        }
    }
    memcpy(acc, a, sizeof a);
}
/* xcol rows k0 .. k0+kn-1 of output pixels p0 .. p0+pt-1 (of one group,
 * whose input is xg) into xs, NNFX_RT_TP floats a row; lanes past pt and
 * taps in the padding 0. With the plane kept at stride 1 (same) a tap
 * shifts every pixel alike: whole vectors, masked, where they stay in the
 * channel. */
static inline void nnfx_rt_vt_gather(const float *xg, const int *g, int cg, int p0, int pt, int k0, int kn, float *xs) {
    const int H = g[3], W = g[4], OW = g[6], KW = g[8], SH = g[9], SW = g[10], PH = g[11], PW = g[12];
    const int DH = g[13], DW = g[14], same = SH == 1 && SW == 1 && g[5] == H && OW == W;
    const long HW = (long)H * W;
    int ih0[NNFX_RT_TP], iw0[NNFX_RT_TP], ok[NNFX_RT_TP], l, k, c = cg, v, row = 0;
    long off[NNFX_RT_TP], shift = 0;
    nnfx_rt_v8i okv[NNFX_RT_TP / 8];
    memset(okv, 0, sizeof okv);
    for (l = 0; l < NNFX_RT_TP; l++) {
        const int p = p0 + (l < pt ? l : 0);
        ih0[l] = p / OW * SH - PH;
        iw0[l] = p % OW * SW - PW;
    }
    for (k = k0; k < k0 + kn; k++, c++, xs += NNFX_RT_TP) {
        const float *xc;
        if (k == k0 || c == cg) { /* a new tap: each lane's offset */
            const int t = k / cg, kh = t / KW, kw = t % KW;
            c = k % cg;
            for (l = 0; l < NNFX_RT_TP; l++) {
                const int ih = ih0[l] + kh * DH, iw = iw0[l] + kw * DW;
                ok[l] = l < pt && ih >= 0 && ih < H && iw >= 0 && iw < W ? -1 : 0;
                off[l] = ok[l] ? (long)ih * W + iw : 0;
            }
            memcpy(okv, ok, sizeof okv);
            shift = p0 + (long)(kh * DH - PH) * W + kw * DW - PW; /* lane 0's input pixel when same */
            /* every lane inside, on one input row: lane l reads off[0] + l * SW */
            row = ih0[0] == ih0[NNFX_RT_TP - 1];
            for (l = 0; l < NNFX_RT_TP; l++)
                row &= ok[l] != 0;
        }
        xc = xg + c * HW;
        if (same && shift >= 0 && shift + NNFX_RT_TP <= HW)
            for (v = 0; v < NNFX_RT_TP / 8; v++) {
                nnfx_rt_v8i xv;
                memcpy(&xv, xc + shift + 8 * v, sizeof xv);
                xv &= okv[v];
                memcpy(xs + 8 * v, &xv, sizeof xv);
            }
        else if (row)
            for (l = 0; l < NNFX_RT_TP; l++)
                xs[l] = xc[off[0] + (long)l * SW];
        else
            for (l = 0; l < NNFX_RT_TP; l++) {
                const float x = xc[off[l]];
                xs[l] = ok[l] ? x : 0.0f;
            }
    }
}
/* Channels mo .. mo+mb-1 (mb <= 16) of the group (its output at yo, bias
 * at bo) over the pt <= NNFX_RT_TP pixels from p0, kn xcol rows at src
 * (stride ld; zeros past pt), weights wt: 6-pixel tiles. */
static inline void nnfx_rt_vt_block6(const struct nnfx_rt_vt *s, const float *src, long ld, const float *wt, int kn,
                                     long yo, int bo, int mb, int pt, int first, int last) {
    const nnfx_rt_v8 z = {0, 0, 0, 0, 0, 0, 0, 0};
    nnfx_rt_v8 b0 = z, b1 = z;
    int q, i, j;
    /* a whole block starting from its bias: the bias vectors as they are */
    const int bias_only = first && !s->r && mb == NNFX_RT_OB;
    if (bias_only && s->b) b0 = *(const nnfx_rt_v8u *)(s->b + bo), b1 = *(const nnfx_rt_v8u *)(s->b + bo + 8);
    for (q = 0; q < pt; q += 6) {
        const int nj = pt - q < 6 ? pt - q : 6; /* pixels of this tile in the plane */
        float t[6][NNFX_RT_OB];
        nnfx_rt_v8 acc[12];
        if (bias_only)
            for (j = 0; j < 6; j++)
                acc[2 * j] = b0, acc[2 * j + 1] = b1;
        else {
            for (i = 0; i < NNFX_RT_OB; i++) {
                const long o = yo + (long)(i < mb ? i : 0) * s->P + q;
                const float bv = s->b && i < mb ? s->b[bo + i] : 0.0f;
                for (j = 0; j < 6; j++)
                    t[j][i] = i >= mb || j >= nj ? 0.0f : !first ? s->y[o + j] : s->r ? bv + s->r[o + j] : bv;
            }
            memcpy(acc, t, sizeof acc);
        }
        nnfx_rt_vt_k6(src + q, ld, wt, kn, acc);
        if (last && s->relu)
            for (j = 0; j < 12; j++)
                acc[j] = (nnfx_rt_v8)((nnfx_rt_v8i)acc[j] & ~(acc[j] < z)); /* NaN kept */
        memcpy(t, acc, sizeof t);
        for (i = 0; i < mb; i++) {
            float *yr = s->y + yo + (long)i * s->P + q;
            for (j = 0; j < nj; j++)
                yr[j] = t[j][i];
        }
    }
}
/* Channels mo .. mo+mb-1 (mb <= NNFX_RT_TC) as nnfx_rt_vt_block6: one
 * NNFX_RT_TC x NNFX_RT_TP tile. */
static inline void nnfx_rt_vt_tile4(const struct nnfx_rt_vt *s, const float *src, long ld, const float *wt, int kn,
                                    long yo, int bo, int mb, int pt, int first, int last) {
    nnfx_rt_vtv acc[NNFX_RT_TC * 3];
    const nnfx_rt_vtv z = NNFX_RT_TSPLAT(0);
    int i, v;
    if (mb == NNFX_RT_TC && pt == NNFX_RT_TP) { /* whole vectors in and out */
        for (i = 0; i < NNFX_RT_TC; i++)
            for (v = 0; v < 3; v++) {
                const long o = yo + (long)i * s->P + NNFX_RT_TV * v;
                const float bv = s->b ? s->b[bo + i] : 0.0f;
                nnfx_rt_vtv a = NNFX_RT_TSPLAT(bv);
                if (!first)
                    a = *(const nnfx_rt_vtvu *)(s->y + o);
                else if (s->r)
                    a += *(const nnfx_rt_vtvu *)(s->r + o);
                acc[i * 3 + v] = a;
            }
        nnfx_rt_vt_k4(src, ld, wt, kn, acc);
        for (i = 0; i < NNFX_RT_TC; i++)
            for (v = 0; v < 3; v++) {
                nnfx_rt_vtv a = acc[i * 3 + v];
                if (last && s->relu) a = (nnfx_rt_vtv)((nnfx_rt_vtvi)a & ~(a < z)); /* NaN kept */
                *(nnfx_rt_vtvu *)(s->y + yo + (long)i * s->P + NNFX_RT_TV * v) = a;
            }
    } else {
        float t[NNFX_RT_TC][NNFX_RT_TP];
        for (i = 0; i < NNFX_RT_TC; i++)
            for (v = 0; v < NNFX_RT_TP; v++) {
                const long o = yo + (long)i * s->P + v;
                const float bv = s->b && i < mb ? s->b[bo + i] : 0.0f;
                t[i][v] = i >= mb || v >= pt ? 0.0f : !first ? s->y[o] : s->r ? bv + s->r[o] : bv;
            }
        memcpy(acc, t, sizeof acc);
        nnfx_rt_vt_k4(src, ld, wt, kn, acc);
        memcpy(t, acc, sizeof t);
        for (i = 0; i < mb; i++)
            for (v = 0; v < pt; v++)
                s->y[yo + (long)i * s->P + v] = last && s->relu && t[i][v] < 0.0f ? 0.0f : t[i][v];
    }
}
static inline void nnfx_rt_conv2d_vt(const float *x, const float *wp, const float *b, const float *r, float *y,
                                     const int *g) {
    const int N = g[0], C = g[1], M = g[2], H = g[3], W = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int G = g[15], cg = C / G, mg = M / G, nb = (mg + NNFX_RT_OB - 1) / NNFX_RT_OB, K = cg * KH * KW;
    const long HW = (long)H * W, wblock = (long)K * NNFX_RT_OB;
    /* a 1x1 convolution keeping its plane reads its xcol rows from x */
    const int direct = KH == 1 && KW == 1 && g[9] == 1 && g[10] == 1 && g[11] == 0 && g[12] == 0 && OH == H && OW == W;
    float xs[NNFX_RT_KC * NNFX_RT_TP];
    struct nnfx_rt_vt s;
    int n, grp, p0, k0, blk, i;
    s.b = b, s.r = r, s.y = y, s.P = (long)OH * OW, s.M = M, s.mg = mg, s.relu = g[16];
    for (n = 0; n < N; n++)
        for (grp = 0; grp < G; grp++) {
            const float *xg = x + ((long)n * C + (long)grp * cg) * HW;
            for (k0 = 0; k0 < K; k0 += NNFX_RT_KC) {
                const int kn = K - k0 < NNFX_RT_KC ? K - k0 : NNFX_RT_KC, first = k0 == 0, last = k0 + kn == K;
                for (p0 = 0; p0 < s.P; p0 += NNFX_RT_TP) {
                    const int pt = s.P - p0 < NNFX_RT_TP ? (int)(s.P - p0) : NNFX_RT_TP;
                    const float *src = xs;
                    long ld = NNFX_RT_TP;
                    if (direct && pt == NNFX_RT_TP)
                        src = xg + (long)k0 * HW + p0, ld = HW;
                    else
                        nnfx_rt_vt_gather(xg, g, cg, p0, pt, k0, kn, xs);
                    for (blk = 0; blk < nb; blk++) {
                        const int mo = blk * NNFX_RT_OB, bo = grp * mg + mo;
                        const long yo = ((long)n * M + bo) * s.P + p0;
                        const float *wt = wp + ((long)grp * nb + blk) * wblock + (long)k0 * NNFX_RT_OB;
                        const int mb = mg - mo < NNFX_RT_OB ? mg - mo : NNFX_RT_OB;
                        if (K >= 32 && NNFX_RT_TV == 8) /* long enough sums: 6 x 16 tiles (not AVX-512's) */
                            nnfx_rt_vt_block6(&s, src, ld, wt, kn, yo, bo, mb, pt, first, last);
                        else
                            for (i = 0; i < mb; i += NNFX_RT_TC)
                                nnfx_rt_vt_tile4(&s, src, ld, wt + i, kn, yo + (long)i * s.P, bo + i,
                                                 mb - i < NNFX_RT_TC ? mb - i : NNFX_RT_TC, pt, first, last);
                    }
                }
            }
        }
}
#endif
/* @end */

/* @rt conv2d_packed needs:vec,conv2d_vt */
/* 2-d convolution over weights packed by the generator (`--optimize
 * speed`): wp is [group][M/group in blocks of NNFX_RT_OB][KH][KW][C/group]
 * [NNFX_RT_OB], a block's output channels innermost (zeros past the last
 * channel), so one tap of one input channel is NNFX_RT_OB contiguous
 * weights. Each tile of NNFX_RT_OP output pixels (over the flattened
 * output plane: any stride, padding or width) x one channel block is
 * accumulated in registers: per input value, one broadcast times the
 * block's weights; pixels whose tap falls in the padding read 0. The
 * epilogue adds r (a residual [N,M,OH,OW], or NULL) and applies ReLU when
 * g[16] is 1. g[0..15] as for nnfx_rt_conv2d. */
#ifndef NNFX_RT_OB
#define NNFX_RT_OB 16 /* fixed by the weight layout (also nnfx_rt_conv2d_same's) */
#endif
/* One tap of every input channel into the tile: XV reads pixel j of
 * channel c (xc); the common case (no pixel in the padding) has no test. */
#if defined(NNFX_RT_VEC) && defined(__AVX512F__)
#define NNFX_RT_OP 12 /* a block is one 16-float vector: 12 of the 32 registers */
typedef float nnfx_rt_v16 __attribute__((vector_size(64)));
typedef float nnfx_rt_v16u __attribute__((vector_size(64), aligned(4)));
#define NNFX_RT_TAP(XV)                                                                                                \
    for (c = 0; c < cg; c++, w += NNFX_RT_OB) {                                                                        \
        const float *xc = xg + c * HW;                                                                                 \
        const nnfx_rt_v16 w0 = *(const nnfx_rt_v16u *)w;                                                               \
        for (j = 0; j < NNFX_RT_OP; j++) {                                                                             \
            const float xv = XV;                                                                                       \
            acc[j][0] += xv * w0;                                                                                      \
        }                                                                                                              \
    }
#elif defined(NNFX_RT_VEC)
#define NNFX_RT_OP 6
#define NNFX_RT_TAP(XV)                                                                                                \
    for (c = 0; c < cg; c++, w += NNFX_RT_OB) {                                                                        \
        const float *xc = xg + c * HW;                                                                                 \
        const nnfx_rt_v8 w0 = *(const nnfx_rt_v8u *)w, w1 = *(const nnfx_rt_v8u *)(w + 8);                             \
        for (j = 0; j < NNFX_RT_OP; j++) {                                                                             \
            const float xv = XV;                                                                                       \
            acc[j][0] += xv * w0;                                                                                      \
            acc[j][1] += xv * w1;                                                                                      \
        }                                                                                                              \
    }
#else
#define NNFX_RT_OP 6
#define NNFX_RT_TAP(XV)                                                                                                \
    for (c = 0; c < cg; c++, w += NNFX_RT_OB) {                                                                        \
        const float *xc = xg + c * HW;                                                                                 \
        for (j = 0; j < NNFX_RT_OP; j++) {                                                                             \
            const float xv = XV;                                                                                       \
            for (i = 0; i < NNFX_RT_OB; i++)                                                                           \
                acc[j][i] += xv * w[i];                                                                                \
        }                                                                                                              \
    }
#endif
static inline void nnfx_rt_conv2d_packed(const float *x, const float *wp, const float *b, const float *r, float *y,
                                         const int *g) {
#ifdef NNFX_RT_VT  /* a host: the matrix-product tiles where 4 blocks or more share each gathered run */
#ifdef __AVX512F__ /* only short sums (a stem): the 16-float tiles below are as fast on longer ones */
    if (g[2] / g[15] >= 64 && g[1] / g[15] * g[7] * g[8] < 32) {
#else
    if (g[2] / g[15] >= 64) {
#endif
        nnfx_rt_conv2d_vt(x, wp, b, r, y, g);
        return;
    }
#endif
    const int N = g[0], C = g[1], M = g[2], H = g[3], W = g[4], OH = g[5], OW = g[6], KH = g[7], KW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14], G = g[15], relu = g[16];
    const int cg = C / G, mg = M / G, nb = (mg + NNFX_RT_OB - 1) / NNFX_RT_OB, P = OH * OW;
    const long HW = (long)H * W, wblock = (long)KH * KW * cg * NNFX_RT_OB;
    const long ntiles = (P + NNFX_RT_OP - 1) / NNFX_RT_OP;
    /* the operand read again and again should be the smaller one: when a
     * group's weights outweigh its input, each block of weights goes over
     * every tile (weights stay in cache), else each tile over every block */
    const int wfirst = wblock * nb > HW * cg;
    long q;
    int n, grp, kh, kw, c, i, j;
    for (n = 0; n < N; n++)
        for (grp = 0; grp < G; grp++) {
            const float *xg = x + ((long)n * C + (long)grp * cg) * HW;
            for (q = 0; q < ntiles * nb; q++) {
                const int blk = (int)(wfirst ? q / ntiles : q % nb);
                const int p0 = (int)(wfirst ? q % ntiles : q / nb) * NNFX_RT_OP;
                /* a short last tile repeats its last pixel (computed, not stored) */
                const int pt = p0 + NNFX_RT_OP <= P ? NNFX_RT_OP : P - p0;
                int ih0[NNFX_RT_OP], iw0[NNFX_RT_OP], inside = 1, oh = p0 / OW, ow = p0 % OW;
                long base[NNFX_RT_OP];
                for (j = 0; j < NNFX_RT_OP; j++) {
                    ih0[j] = oh * SH - PH;
                    iw0[j] = ow * SW - PW;
                    base[j] = (long)ih0[j] * W + iw0[j];
                    /* every tap of this pixel inside the input */
                    inside &= ih0[j] >= 0 && ih0[j] + (KH - 1) * DH < H && iw0[j] >= 0 && iw0[j] + (KW - 1) * DW < W;
                    if (j + 1 < pt && ++ow == OW) ow = 0, oh++;
                }
                {
                    const int m0 = grp * mg + blk * NNFX_RT_OB;
                    const int mb = mg - blk * NNFX_RT_OB < NNFX_RT_OB ? mg - blk * NNFX_RT_OB : NNFX_RT_OB;
                    const float *wt = wp + ((long)grp * nb + blk) * wblock;
                    float t[NNFX_RT_OP][NNFX_RT_OB];
#if defined(NNFX_RT_VEC) && defined(__AVX512F__)
                    nnfx_rt_v16 acc[NNFX_RT_OP][1];
#elif defined(NNFX_RT_VEC)
                    nnfx_rt_v8 acc[NNFX_RT_OP][NNFX_RT_OB / 8];
#else
                    float acc[NNFX_RT_OP][NNFX_RT_OB];
#endif
                    for (i = 0; i < NNFX_RT_OB; i++)
                        t[0][i] = b && i < mb ? b[m0 + i] : 0.0f;
                    for (j = 0; j < NNFX_RT_OP; j++)
                        memcpy(acc[j], t[0], sizeof acc[j]);
                    for (kh = 0; kh < KH; kh++)
                        for (kw = 0; kw < KW; kw++, wt += (long)cg * NNFX_RT_OB) {
                            long off[NNFX_RT_OP];
                            int all = 1, any = 1;
                            const float *w = wt;
                            if (inside)
                                for (j = 0; j < NNFX_RT_OP; j++)
                                    off[j] = base[j] + (long)kh * DH * W + kw * DW;
                            else
                                for (j = 0, any = 0; j < NNFX_RT_OP; j++) {
                                    const int ih = ih0[j] + kh * DH, iw = iw0[j] + kw * DW;
                                    const int ok = ih >= 0 && ih < H && iw >= 0 && iw < W;
                                    off[j] = ok ? (long)ih * W + iw : -1;
                                    all &= ok;
                                    any |= ok;
                                }
                            if (!any) continue;
                            if (all)
                                NNFX_RT_TAP(xc[off[j]])
                            else
                                NNFX_RT_TAP(off[j] >= 0 ? xc[off[j]] : 0.0f)
                        }
                    memcpy(t, acc, sizeof t);
                    for (i = 0; i < mb; i++) {
                        const long o = ((long)n * M + m0 + i) * P + p0;
                        for (j = 0; j < pt; j++) {
                            float v = r ? t[j][i] + r[o + j] : t[j][i];
                            y[o + j] = relu && v < 0.0f ? 0.0f : v;
                        }
                    }
                }
            }
        }
}
#undef NNFX_RT_TAP
/* @end */

/* @rt conv2d_same needs:vec,conv2d_vt */
/* nnfx_rt_conv2d_packed's convolution (the same packed weights, geometry,
 * residual r and ReLU) when the output plane is the input's (stride 1,
 * OH == H, OW == W): then tap (kh, kw) of output pixel p reads input pixel
 * p + (kh*DH - PH)*W + kw*DW - PW, one shift for every pixel, so a tile of
 * NNFX_RT_SL consecutive output pixels reads NNFX_RT_SL consecutive inputs
 * per tap and input channel. Each tile x NNFX_RT_SC output channels is
 * accumulated in registers (a vector of pixels per channel: the input
 * vector times each channel's weight), lanes whose tap falls in the
 * padding (or past the plane) masked to 0, then stored per channel. */
#ifndef NNFX_RT_OB
#define NNFX_RT_OB 16 /* fixed by the weight layout (also nnfx_rt_conv2d_packed's) */
#endif
#if defined(NNFX_RT_VEC) && defined(__AVX512F__)
#define NNFX_RT_SL 16 /* pixels per tile: one vector */
#define NNFX_RT_SC 16 /* output channels per tile: a divisor of NNFX_RT_OB */
#elif defined(NNFX_RT_VEC)
#define NNFX_RT_SL 8
#define NNFX_RT_SC 8
#else
#define NNFX_RT_SL 4
#define NNFX_RT_SC 4
#endif
#ifdef NNFX_RT_VEC
typedef float nnfx_rt_vs __attribute__((vector_size(NNFX_RT_SL * 4)));
typedef float nnfx_rt_vsu __attribute__((vector_size(NNFX_RT_SL * 4), aligned(4)));
typedef int nnfx_rt_vsi __attribute__((vector_size(NNFX_RT_SL * 4)));
/* acc[i] += the input vector xv (LOAD sets it from x[xo ..)) times channel
 * i's weight, every input channel */
#define NNFX_RT_SAME_TAP(LOAD)                                                                                         \
    for (c = 0; c < cg; c++) {                                                                                         \
        const long xo = xb + c * HW;                                                                                   \
        const float *wc = wt + (long)c * NNFX_RT_OB;                                                                   \
        nnfx_rt_vs xv;                                                                                                 \
        LOAD;                                                                                                          \
        for (i = 0; i < NNFX_RT_SC; i++)                                                                               \
            acc[i] += xv * wc[i];                                                                                      \
    }
#endif
/* v[l] = x[o + l] for the lanes whose tap (lane row + dh, column + dw) is
 * inside the H x W input, 0 for the others (which are not read). */
static inline void nnfx_rt_same_gather(const float *x, long o, const int *lh, const int *lw, int dh, int dw, int H,
                                       int W, float *v) {
    int l;
    for (l = 0; l < NNFX_RT_SL; l++) {
        const int ih = lh[l] + dh, iw = lw[l] + dw;
        v[l] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[o + l] : 0.0f;
    }
}
static inline void nnfx_rt_conv2d_same(const float *x, const float *wp, const float *b, const float *r, float *y,
                                       const int *g) {
#if defined(NNFX_RT_VT) && defined(__AVX512F__) /* 1x1 summing <= 32 into 64+ channels: the short-sum tiles */
    if (g[7] == 1 && g[8] == 1 && g[1] / g[15] <= 32 && g[2] / g[15] >= 64) {
        nnfx_rt_conv2d_vt(x, wp, b, r, y, g);
        return;
    }
#elif defined(NNFX_RT_VT) /* a host: 1x1 convs, long sums into 64+ channels: tiles */
    if ((g[7] == 1 && g[8] == 1) || (g[1] / g[15] * g[7] * g[8] >= 64 && g[2] / g[15] >= 64)) {
        nnfx_rt_conv2d_vt(x, wp, b, r, y, g);
        return;
    }
#endif
    const int N = g[0], C = g[1], M = g[2], H = g[3], W = g[4], KH = g[7], KW = g[8];
    const int PH = g[11], PW = g[12], DH = g[13], DW = g[14], G = g[15], relu = g[16];
    const int cg = C / G, mg = M / G, nb = (mg + NNFX_RT_OB - 1) / NNFX_RT_OB, npass = NNFX_RT_OB / NNFX_RT_SC;
    const long HW = (long)H * W, wblock = (long)KH * KW * cg * NNFX_RT_OB;
    const long ntiles = (HW + NNFX_RT_SL - 1) / NNFX_RT_SL, nunits = (long)nb * npass;
    /* as in nnfx_rt_conv2d_packed: the larger operand is read once */
    const int wfirst = wblock * nb > HW * cg;
    long q;
    int n, grp, kh, kw, c, i, l;
    for (n = 0; n < N; n++)
        for (grp = 0; grp < G; grp++) {
            const float *xg = x + ((long)n * C + (long)grp * cg) * HW;
            for (q = 0; q < ntiles * nunits; q++) {
                const long unit = wfirst ? q / ntiles : q % nunits,
                           p0 = (wfirst ? q % ntiles : q / nunits) * NNFX_RT_SL;
                const int blk = (int)(unit / npass), sub = (int)(unit % npass);
                const int nv = HW - p0 < NNFX_RT_SL ? (int)(HW - p0) : NNFX_RT_SL,
                          first = blk * NNFX_RT_OB + sub * NNFX_RT_SC;
                const int mb = mg - first < NNFX_RT_SC ? mg - first : NNFX_RT_SC;
                const int hmin = (int)(p0 / W), hmax = (int)((p0 + nv - 1) / W);
                /* the columns in the tile: one row's span, or every column */
                const int wmin = hmin == hmax ? (int)(p0 % W) : 0,
                          wmax = hmin == hmax ? (int)((p0 + nv - 1) % W) : W - 1;
                const float *wt = wp + ((long)grp * nb + blk) * wblock + sub * NNFX_RT_SC;
                int lh[NNFX_RT_SL], lw[NNFX_RT_SL];
                float t[NNFX_RT_SC][NNFX_RT_SL];
#ifdef NNFX_RT_VEC
                nnfx_rt_vs acc[NNFX_RT_SC];
                nnfx_rt_vsi vh, vw;
#else
                float acc[NNFX_RT_SC][NNFX_RT_SL], xv[NNFX_RT_SL];
#endif
                if (mb <= 0) continue;
                /* each lane's output row and column; lanes past the plane
                 * get a row no tap reaches */
                for (l = 0; l < NNFX_RT_SL; l++) {
                    lh[l] = l < nv ? (int)((p0 + l) / W) : -H - KH * DH - PH;
                    lw[l] = l < nv ? (int)((p0 + l) % W) : 0;
                }
                for (i = 0; i < NNFX_RT_SC; i++)
                    for (l = 0; l < NNFX_RT_SL; l++)
                        t[i][l] = b && i < mb ? b[grp * mg + first + i] : 0.0f;
                memcpy(acc, t, sizeof acc);
#ifdef NNFX_RT_VEC
                memcpy(&vh, lh, sizeof vh);
                memcpy(&vw, lw, sizeof vw);
#endif
                for (kh = 0; kh < KH; kh++)
                    for (kw = 0; kw < KW; kw++, wt += (long)cg * NNFX_RT_OB) {
                        const int dh = kh * DH - PH, dw = kw * DW - PW;
                        /* offset in x of lane 0's tap for input channel 0 */
                        const long xb = (xg - x) + p0 + (long)dh * W + dw;
                        if (hmax + dh < 0 || hmin + dh >= H) continue; /* every lane in the padding */
                        const int inside =
                            nv == NNFX_RT_SL && hmin + dh >= 0 && hmax + dh < H && wmin + dw >= 0 && wmax + dw < W;
#ifdef NNFX_RT_VEC
                        if (inside) {
                            NNFX_RT_SAME_TAP(xv = *(const nnfx_rt_vsu *)(x + xo))
                        } else {
                            /* lanes whose tap is inside the input; a vector
                             * reaching past the tensor is read lane by lane */
                            const long xn = (long)N * C * HW;
                            const nnfx_rt_vsi ok = (vh + dh >= 0) & (vh + dh < H) & (vw + dw >= 0) & (vw + dw < W);
                            NNFX_RT_SAME_TAP(if (xo >= 0 && xo + NNFX_RT_SL <= xn) xv =
                                                 (nnfx_rt_vs)((nnfx_rt_vsi) * (const nnfx_rt_vsu *)(x + xo) & ok);
                                             else {
                                                 float v[NNFX_RT_SL];
                                                 nnfx_rt_same_gather(x, xo, lh, lw, dh, dw, H, W, v);
                                                 memcpy(&xv, v, sizeof xv);
                                             })
                        }
#else
                        for (c = 0; c < cg; c++) {
                            const long xo = xb + c * HW;
                            const float *wc = wt + (long)c * NNFX_RT_OB;
                            if (inside)
                                memcpy(xv, x + xo, sizeof xv);
                            else
                                nnfx_rt_same_gather(x, xo, lh, lw, dh, dw, H, W, xv);
                            for (i = 0; i < NNFX_RT_SC; i++)
                                for (l = 0; l < NNFX_RT_SL; l++)
                                    acc[i][l] += xv[l] * wc[i];
                        }
#endif
                    }
                memcpy(t, acc, sizeof t);
                for (i = 0; i < mb; i++) {
                    const long o = ((long)n * M + (long)grp * mg + first + i) * HW + p0;
                    for (l = 0; l < nv; l++) {
                        const float v = r ? t[i][l] + r[o + l] : t[i][l];
                        y[o + l] = relu && v < 0.0f ? 0.0f : v;
                    }
                }
            }
        }
}
#undef NNFX_RT_SAME_TAP
/* @end */

/* @rt pool2d_vec needs:vec,max_takes */
#ifdef NNFX_RT_VEC
/* *v = lanes p[0], p[S], ..., p[7S] (lane l past n - 1 reads lane n - 1):
 * one load for S 1, two and a shuffle for S 2 when p[15] is in the row
 * (wide), else lane by lane. */
typedef int nnfx_rt_p8i __attribute__((vector_size(32)));
static inline void nnfx_rt_load8(nnfx_rt_v8 *v, const float *p, int S, int n, int wide) {
    if (n == 8 && S == 1)
        *v = *(const nnfx_rt_v8u *)p;
    else if (n == 8 && S == 2 && wide) {
        const nnfx_rt_v8 a = *(const nnfx_rt_v8u *)p, b = *(const nnfx_rt_v8u *)(p + 8);
#ifdef __clang__
        *v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
        *v = __builtin_shuffle(a, b, (nnfx_rt_p8i){0, 2, 4, 6, 8, 10, 12, 14});
#endif
    } else {
        long o[8];
        int l;
        for (l = 0; l < 8; l++)
            o[l] = (long)(l < n ? l : n - 1) * S;
        *v = (nnfx_rt_v8){p[o[0]], p[o[1]], p[o[2]], p[o[3]], p[o[4]], p[o[5]], p[o[6]], p[o[7]]};
    }
}
/* nnfx_rt_pool2d's inner columns [lo, hi) of one output row yr, 8 at a time
 * in vectors: the same taps in the same order (kh, then kw), a max by
 * nnfx_rt_max_takes (the first tap, then every tap), an average as the
 * bare sum (the caller divides). xc is the channel, ih the row's first
 * input row, taps kh in [h0, h1); g as nnfx_rt_pool2d's. */
static inline void nnfx_rt_pool_cols(const float *xc, float *yr, int lo, int hi, int ih, int h0, int h1, const int *g,
                                     int is_max) {
    const int W = g[2], KW = g[6], SW = g[8], PW = g[10], DH = g[11], DW = g[12];
    int ow, kh, kw, l;
    for (ow = lo; ow < hi; ow += 8) {
        const int nl = hi - ow < 8 ? hi - ow : 8;
        nnfx_rt_v8 m = {0, 0, 0, 0, 0, 0, 0, 0};
        float t[8];
        for (kh = h0; kh < h1; kh++)
            for (kw = 0; kw < KW; kw++) {
                const int iw = ow * SW + kw * DW - PW;
                nnfx_rt_v8 v;
                nnfx_rt_load8(&v, xc + (long)(ih + kh * DH) * W + iw, SW, nl, iw + 16 <= W);
                if (!is_max)
                    m += v;
                else if (kh == h0 && kw == 0)
                    m = v;
                else {
                    const nnfx_rt_p8i tk = (v > m) | ((v != v) & (m == m));
                    m = (nnfx_rt_v8)(((nnfx_rt_p8i)v & tk) | ((nnfx_rt_p8i)m & ~tk));
                }
            }
        if (nl == 8)
            *(nnfx_rt_v8u *)(yr + ow) = m;
        else {
            memcpy(t, &m, sizeof t);
            for (l = 0; l < nl; l++)
                yr[ow + l] = t[l];
        }
    }
}
#ifdef __AVX512F__
/* AVX-512 hosts: rows of 16 inner columns or more in 16-float vectors. */
typedef float nnfx_rt_p16 __attribute__((vector_size(64)));
typedef float nnfx_rt_p16u __attribute__((vector_size(64), aligned(4)));
typedef int nnfx_rt_p16i __attribute__((vector_size(64)));
/* Lanes p[0], p[S], ..., p[15S], every one inside the row: one load for S
 * 1; for S 2 p[0..15] and p[15..30] (p[30] is the last lane's, so nothing
 * past the row is read) and a shuffle; else lane by lane. */
static inline nnfx_rt_p16 nnfx_rt_load16(const float *p, int S) {
    float t[16];
    nnfx_rt_p16 v;
    int l;
    if (S == 1) return *(const nnfx_rt_p16u *)p;
    if (S == 2) {
        const nnfx_rt_p16 a = *(const nnfx_rt_p16u *)p, b = *(const nnfx_rt_p16u *)(p + 15);
#ifdef __clang__
        return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
#else
        return __builtin_shuffle(a, b, (nnfx_rt_p16i){0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31});
#endif
    }
    for (l = 0; l < 16; l++)
        t[l] = p[(long)l * S];
    memcpy(&v, t, sizeof v);
    return v;
}
/* nnfx_rt_load16 with lanes 8..15 from column d (1 <= d <= 8) on: p[0],
 * ..., p[7S], p[dS], ..., p[(d+7)S] (a row of 9 to 16 columns as two
 * overlapping halves). For S 2 p[0..15] and p[2d-1 .. 2d+14], shuffled. */
static inline nnfx_rt_p16 nnfx_rt_load16d(const float *p, int S, int d) {
    if (d == 8 || S == 2) {
        const nnfx_rt_p16 a = *(const nnfx_rt_p16u *)p;
        if (S != 2) return nnfx_rt_load16(p, S);
        {
            const nnfx_rt_p16 b = *(const nnfx_rt_p16u *)(p + 2 * d - 1);
#ifdef __clang__
            return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
#else
            return __builtin_shuffle(a, b, (nnfx_rt_p16i){0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31});
#endif
        }
    }
    {
        const float *q = p + (long)d * S;
        const long s1 = S, s2 = 2L * S, s3 = 3L * S, s4 = 4L * S, s5 = 5L * S, s6 = 6L * S, s7 = 7L * S;
        return (nnfx_rt_p16){p[0], p[s1], p[s2], p[s3], p[s4], p[s5], p[s6], p[s7],
                             q[0], q[s1], q[s2], q[s3], q[s4], q[s5], q[s6], q[s7]};
    }
}
/* m, or v where nnfx_rt_max_takes(m, v): v is not at most m (larger, or
 * either a NaN) while m is no NaN. */
static inline nnfx_rt_p16 nnfx_rt_max16(nnfx_rt_p16 m, nnfx_rt_p16 v) {
    const nnfx_rt_p16i tk = ~(v <= m) & (m == m);
    return (nnfx_rt_p16)(((nnfx_rt_p16i)v & tk) | ((nnfx_rt_p16i)m & ~tk));
}
/* One vector of nnfx_rt_pool_cols16 (lanes as nnfx_rt_load16d's, x0 at
 * the first lane's tap (0, 0) less the row offset of h0): taps kh in [h0,
 * h1). */
static inline nnfx_rt_p16 nnfx_rt_pool16(const float *x0, const int *g, int h0, int h1, int d, int is_max) {
    const int W = g[2], KW = g[6], SW = g[8], DH = g[11], DW = g[12];
    nnfx_rt_p16 m = {0};
    int kh, kw;
    for (kh = h0; kh < h1; kh++) {
        const float *xr = x0 + (long)kh * DH * W;
        nnfx_rt_p16 r = nnfx_rt_load16d(xr, SW, d);
        if (!is_max) {
            m += r;
            for (kw = 1; kw < KW; kw++)
                m += nnfx_rt_load16d(xr + kw * DW, SW, d);
            continue;
        }
        for (kw = 1; kw < KW; kw++)
            r = nnfx_rt_max16(r, nnfx_rt_load16d(xr + kw * DW, SW, d));
        m = kh == h0 ? r : nnfx_rt_max16(m, r);
    }
    return m;
}
/* nnfx_rt_pool_cols over hi - lo > 8 columns, 16 at a time (the last 16
 * of the row again where a run is short: the same values rewritten; 9 to
 * 15 columns as two overlapping halves of 8, lanes 8.. from column hi - 8).
 * A max
 * of each tap row's taps, then of the rows in order: the first of the
 * largest taps in (kh, kw) order as tap by tap, the rule keeping the first
 * of equals in any grouping. An average sums tap by tap in that order. */
static inline void nnfx_rt_pool_cols16(const float *xc, float *yr, int lo, int hi, int ih, int h0, int h1, const int *g,
                                       int is_max) {
    const int W = g[2], SW = g[8], PW = g[10];
    const float *x0 = xc + (long)ih * W - PW;
    int ow;
    if (hi - lo < 16) { /* one vector, two halves */
        const int d = hi - lo - 8;
        const nnfx_rt_p16 m = nnfx_rt_pool16(x0 + (long)lo * SW, g, h0, h1, d, is_max);
        memcpy(yr + lo + d, (const float *)&m + 8, 8 * sizeof(float)); /* then the low half over the common columns */
        memcpy(yr + lo, &m, 8 * sizeof(float));
        return;
    }
    for (ow = lo; ow < hi; ow += 16) {
        const int o = ow + 16 > hi ? hi - 16 : ow;
        *(nnfx_rt_p16u *)(yr + o) = nnfx_rt_pool16(x0 + (long)o * SW, g, h0, h1, 8, is_max);
    }
}
#endif
#endif
/* @end */

/* @rt pool2d needs:window,max_takes,pool2d_vec */
/* Max (is_max) or average pooling over [NC, H, W] -> [NC, OH, OW].
 * g: NC, H, W, OH, OW, KH, KW, stride h/w, pad top/left, dilation h/w,
 * count_include_pad, pad bottom/right. A max takes taps by
 * nnfx_rt_max_takes; an average divides by the taps inside the input, or with
 * count_include_pad by those inside the declared pads (not a ceil_mode
 * overhang), as PyTorch does. Each output row is built tap by tap over the
 * columns whose window lies inside the row (vectorisable), then the edge
 * columns one by one. x and y do not overlap. */
static inline void nnfx_rt_pool2d(const float *restrict x, float *restrict y, const int *g, int is_max) {
    const int NC = g[0], H = g[1], W = g[2], OH = g[3], OW = g[4], KH = g[5], KW = g[6];
    const int SH = g[7], SW = g[8], PH = g[9], PW = g[10], DH = g[11], DW = g[12], incl = g[13];
    const int PE_H = g[14], PE_W = g[15], span = (KW - 1) * DW;
    /* inner columns [lo, hi): 0 <= ow*SW - PW and ow*SW - PW + span < W */
    int lo = (PW + SW - 1) / SW, hi = W - 1 + PW - span < 0 ? 0 : (W - 1 + PW - span) / SW + 1;
    int c, oh, ow, kh, kw, h0, h1, w0, w1;
    if (hi > OW) hi = OW;
    if (lo > hi) lo = hi;
    for (c = 0; c < NC; c++)
        for (oh = 0; oh < OH; oh++) {
            const int ih = oh * SH - PH;
            const float *xc = x + (long)c * H * W;
            float *yr = y + ((long)c * OH + oh) * OW;
            int ch;
            nnfx_rt_window(oh, SH, PH, DH, KH, H, &h0, &h1);
            ch = h1 - h0;
            if (incl) {
                const int he = ih + (KH - 1) * DH + 1 > H + PE_H ? H + PE_H : ih + (KH - 1) * DH + 1;
                ch = (he - ih + DH - 1) / DH;
            }
#if defined(NNFX_RT_VEC) && defined(__AVX512F__)
            if (hi - lo > 8) /* AVX-512: 16-float vectors (shuffled for stride 2) beat the compiler's loop */
                nnfx_rt_pool_cols16(xc, yr, lo, hi, ih, h0, h1, g, is_max);
            else
#endif
#ifdef NNFX_RT_VEC
                if (hi - lo < 16) /* a short row, which the compiler leaves scalar: explicit vectors */
                nnfx_rt_pool_cols(xc, yr, lo, hi, ih, h0, h1, g, is_max);
            else
#endif
            {
                for (ow = lo; ow < hi; ow++)
                    yr[ow] = is_max && h0 < h1 ? xc[(long)(ih + h0 * DH) * W + ow * SW - PW] : 0.0f;
                for (kh = h0; kh < h1; kh++)
                    for (kw = 0; kw < KW; kw++) {
                        const float *xr = xc + (long)(ih + kh * DH) * W + kw * DW - PW;
                        if (is_max)
                            for (ow = lo; ow < hi; ow++) {
                                const float v = xr[(long)ow * SW];
                                yr[ow] = nnfx_rt_max_takes(yr[ow], v) ? v : yr[ow];
                            }
                        else
                            for (ow = lo; ow < hi; ow++)
                                yr[ow] += xr[(long)ow * SW];
                    }
            }
            if (!is_max && h0 < h1)
                for (ow = lo; ow < hi; ow++)
                    yr[ow] /= (float)(ch * KW);
            for (ow = 0; ow < OW; ow++) {
                const int iw = ow * SW - PW;
                float acc = 0.0f;
                int cnt;
                if (ow >= lo && ow < hi) { /* done above */
                    ow = hi - 1;
                    continue;
                }
                nnfx_rt_window(ow, SW, PW, DW, KW, W, &w0, &w1);
                cnt = (h1 - h0) * (w1 - w0);
                if (cnt && is_max) acc = xc[(long)(ih + h0 * DH) * W + iw + w0 * DW];
                for (kh = h0; kh < h1; kh++)
                    for (kw = w0; kw < w1; kw++) {
                        const float v = xc[(long)(ih + kh * DH) * W + iw + kw * DW];
                        if (!is_max)
                            acc += v;
                        else if (nnfx_rt_max_takes(acc, v))
                            acc = v;
                    }
                if (!is_max) {
                    if (incl) {
                        const int we = iw + span + 1 > W + PE_W ? W + PE_W : iw + span + 1;
                        cnt = ch * ((we - iw + DW - 1) / DW);
                    }
                    acc = cnt ? acc / (float)cnt : 0.0f;
                }
                yr[ow] = acc;
            }
        }
}
/* @end */

/* @rt fsum */
/* The sum of n floats p[0], p[stride], ... accumulated in double in that
 * order: the one definition of a float32 ReduceSum / ReduceMean /
 * GlobalAveragePool sum, shared by the interpreter (src/exec/kernels/reduce.c,
 * pool.c) and generated C, so both give the same bits; partial sums past
 * float's range (values near 3e38) stay finite when the result is. A target
 * without a double FPU (Cortex-M4) calls its compiler's soft-double helpers. */
static inline double nnfx_rt_fsum(const float *p, long n, long stride) {
    double s = 0.0;
    long k;
    for (k = 0; k < n; k++)
        s += (double)p[k * stride];
    return s;
}
/* @end */

/* @rt reduce needs:fsum */
/* Over x viewed as [outer, n, inner]: y[o, i] = reduction over the middle
 * dim. kind 0 mean, 1 sum (nnfx_rt_fsum, then divided by n in double for
 * the mean, rounded to float once), 2 max, 3 min (a NaN wins). */
static inline void nnfx_rt_reduce(const float *x, float *y, long outer, long n, long inner, int kind) {
    long o = 0, i, k;
#ifdef __AVX512F__
    /* AVX-512 hosts, a sum over contiguous rows (GlobalAveragePool): 8 rows
     * side by side, each summed in nnfx_rt_fsum's order (the same bits),
     * the chains of additions overlapping */
    if (inner == 1 && kind <= 1) {
        for (; o + 8 <= outer; o += 8) {
            const float *p = x + o * n;
            double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int j;
            for (k = 0; k < n; k++)
                for (j = 0; j < 8; j++)
                    s[j] += (double)p[j * n + k];
            for (j = 0; j < 8; j++)
                y[o + j] = (float)(kind == 0 ? s[j] / (double)n : s[j]);
        }
        x += o * n, y += o, outer -= o;
    }
#endif
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float *p = x + o * n * inner + i;
            if (kind <= 1) {
                const double s = nnfx_rt_fsum(p, n, inner);
                y[o * inner + i] = (float)(kind == 0 ? s / (double)n : s);
            } else {
                float m = p[0];
                for (k = 1; k < n; k++) {
                    float v = p[k * inner];
                    if (v != v || (kind == 2 ? v > m : v < m)) m = v;
                }
                y[o * inner + i] = m;
            }
        }
}
/* @end */

/* @rt batch_norm libm */
/* Inference BatchNormalization over x [N, C, inner]:
 * y = (x - mean) * scale / sqrt(var + eps) + bias, per channel. */
static inline void nnfx_rt_batch_norm(const float *x, const float *scale, const float *bias, const float *mean,
                                      const float *var, float eps, float *y, long N, long C, long inner) {
    long b, c, i;
    for (b = 0; b < N; b++)
        for (c = 0; c < C; c++) {
            const float a = scale[c] / sqrtf(var[c] + eps), off = bias[c] - mean[c] * a;
            const float *xi = x + (b * C + c) * inner;
            float *yo = y + (b * C + c) * inner;
            for (i = 0; i < inner; i++)
                yo[i] = xi[i] * a + off;
        }
}
/* @end */

/* @rt gemm */
/* Y[M,N] = alpha * op(A) op(B) + beta * C: op(A) is [M,K] (A stored [K,M]
 * when transA), op(B) is [K,N] (B stored [N,K] when transB); C (or NULL)
 * is [cm, cn] with cm in {1, M} and cn in {1, N}, broadcast. */
static inline void nnfx_rt_gemm(const float *A, const float *B, const float *Cm, float *Y, int M, int N, int K,
                                int transA, int transB, float alpha, float beta, int cm, int cn) {
    int i, j, k;
    for (i = 0; i < M; i++) {
        float *y = Y + (long)i * N;
        if (transB) {
            for (j = 0; j < N; j++) {
                const float *bp = B + (long)j * K;
                float s = 0.0f, l8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                if (transA)
                    for (k = 0; k < K; k++)
                        s += A[(long)k * M + i] * bp[k];
                else { /* eight interleaved partial sums: a vector of them */
                    const float *ap = A + (long)i * K;
                    int l;
                    for (k = 0; k + 8 <= K; k += 8)
                        for (l = 0; l < 8; l++)
                            l8[l] += ap[k + l] * bp[k + l];
                    s = ((l8[0] + l8[4]) + (l8[1] + l8[5])) + ((l8[2] + l8[6]) + (l8[3] + l8[7]));
                    for (; k < K; k++)
                        s += ap[k] * bp[k];
                }
                y[j] = alpha * s;
            }
        } else {
            for (j = 0; j < N; j++)
                y[j] = 0.0f;
            for (k = 0; k < K; k++) {
                const float a = alpha * (transA ? A[(long)k * M + i] : A[(long)i * K + k]);
                const float *bp = B + (long)k * N;
                for (j = 0; j < N; j++)
                    y[j] += a * bp[j];
            }
        }
        if (Cm)
            for (j = 0; j < N; j++)
                y[j] += beta * Cm[(cm == 1 ? 0 : (long)i * cn) + (cn == 1 ? 0 : j)];
    }
}
/* @end */

/* @rt matmul */
/* batch x ([M,K] x [K,N]): A advances sa floats per batch, B sb (0 when
 * one B is shared); Y is contiguous [batch, M, N]. */
static inline void nnfx_rt_matmul(const float *A, const float *B, float *Y, long batch, int M, int K, int N, long sa,
                                  long sb) {
    long t;
    int i, j, k;
    for (t = 0; t < batch; t++) {
        const float *a = A + t * sa, *b = B + t * sb;
        float *y = Y + t * (long)M * N;
        for (i = 0; i < M; i++) {
            float *yr = y + (long)i * N;
            for (j = 0; j < N; j++)
                yr[j] = 0.0f;
            for (k = 0; k < K; k++) {
                const float av = a[(long)i * K + k];
                const float *br = b + (long)k * N;
                for (j = 0; j < N; j++)
                    yr[j] += av * br[j];
            }
        }
    }
}
/* @end */

/* @rt exp_nonpos */
/* exp(x) for x <= 0, as softmax needs it (x minus the row's maximum): x =
 * n ln2 + r with |r| <= ln2/2 (n rounded by adding 1.5 * 2^23), exp(r) by
 * Cephes' degree-6 polynomial (within 1 ulp of expf over [-87.3, 0]), times
 * 2^n built in the exponent bits; 0 below -87.3365 (where expf is
 * subnormal) and for x > 0, NaN kept. The selections are bit masks, not
 * branches, so that the loops over it vectorise. */
static inline float nnfx_rt_exp_nonpos(float x) {
    uint32_t u, a, ok, xb, yb;
    float xc, n, r, p, y, sc;
    memcpy(&u, &x, sizeof u);
    a = u & 0x7fffffffu;
    ok = 0u - (uint32_t)(a <= 0x42aeac50u); /* |x| <= 87.3365, not NaN */
    xb = (u & ok) | (0xc2aeac50u & ~ok);    /* else -87.3365: n stays in range */
    xb &= 0u - (xb >> 31);                  /* x > 0: 0 */
    memcpy(&xc, &xb, sizeof xc);
    n = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;
    r = xc - n * 0.693359375f + n * 2.12194440e-4f;
    p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    y = p * r * r + r + 1.0f;
    xb = (uint32_t)((int32_t)n + 127) << 23; /* 2^n, n in [-126, 0] */
    memcpy(&sc, &xb, sizeof sc);
    y *= sc;
    memcpy(&yb, &y, sizeof yb);
    yb = (yb & ok) | (u & ~ok & (0u - (uint32_t)(a > 0x7f800000u))); /* NaN in, NaN out; else 0 */
    memcpy(&y, &yb, sizeof y);
    return y;
}
/* @end */

/* @rt softmax libm needs:exp_nonpos */
/* Softmax (or, with log_out, LogSoftmax) over the middle dim of x viewed
 * as [outer, n, inner]: the maximum, exp(x - max) by nnfx_rt_exp_nonpos,
 * the sum in double (four partial sums, element i in sum i % 4). */
static inline void nnfx_rt_softmax(const float *x, float *y, long outer, long n, long inner, int log_out) {
    long o, j, i;
    if (inner == 1) { /* rows: contiguous loops, which vectorise */
        for (o = 0; o < outer; o++) {
            const float *xi = x + o * n;
            float *yo = y + o * n;
            float m4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, m, ls, inv;
            double s4[4] = {0, 0, 0, 0}, sum;
            for (i = 0; i + 4 <= n; i += 4)
                for (j = 0; j < 4; j++)
                    m4[j] = xi[i + j] > m4[j] ? xi[i + j] : m4[j];
            for (j = 0; j < 3; j++) /* the last n % 4, no loop to the end (GCC's range warnings) */
                if (i + j < n) m4[j] = xi[i + j] > m4[j] ? xi[i + j] : m4[j];
            m = m4[0];
            for (j = 1; j < 4; j++)
                m = m4[j] > m ? m4[j] : m;
            for (i = 0; i < n; i++)
                yo[i] = nnfx_rt_exp_nonpos(xi[i] - m);
            for (i = 0; i + 4 <= n; i += 4) {
                s4[0] += yo[i];
                s4[1] += yo[i + 1];
                s4[2] += yo[i + 2];
                s4[3] += yo[i + 3];
            }
            for (j = 0; j < 3; j++)
                if (i + j < n) s4[j] += yo[i + j];
            sum = (s4[0] + s4[1]) + (s4[2] + s4[3]);
            if (log_out) {
                ls = (float)log(sum);
                for (i = 0; i < n; i++)
                    yo[i] = xi[i] - m - ls;
                continue;
            }
            inv = (float)(1.0 / sum);
            for (i = 0; i < n; i++)
                yo[i] *= inv;
        }
        return;
    }
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const float *xi = x + o * n * inner + j;
            float *yo = y + o * n * inner + j;
            float m = -INFINITY;
            double s4[4] = {0, 0, 0, 0}, sum;
            for (i = 0; i < n; i++)
                if (xi[i * inner] > m) m = xi[i * inner];
            for (i = 0; i < n; i++) {
                float e = nnfx_rt_exp_nonpos(xi[i * inner] - m);
                s4[i & 3] += e;
                if (!log_out) yo[i * inner] = e;
            }
            sum = (s4[0] + s4[1]) + (s4[2] + s4[3]);
            if (log_out) {
                float ls = (float)log(sum);
                for (i = 0; i < n; i++)
                    yo[i * inner] = xi[i * inner] - m - ls;
            } else {
                float inv = (float)(1.0 / sum);
                for (i = 0; i < n; i++)
                    yo[i * inner] *= inv;
            }
        }
}
/* @end */

/* @rt copy_rows */
/* outer rows of `row` floats from src (rows contiguous) into dst, whose
 * rows are dst_stride floats apart: one input of a Concat. */
static inline void nnfx_rt_copy_rows(const float *src, float *dst, long outer, long row, long dst_stride) {
    long o;
    for (o = 0; o < outer; o++)
        memcpy(dst + o * dst_stride, src + o * row, (size_t)row * sizeof(float));
}
/* @end */

/* @rt strided_copy */
/* y[oy] = x[ox] for every index idx of the dims shape[0..rank) (rank <= 8),
 * ox = sum idx[d] * sx[d], oy = sum idx[d] * sy[d]: the copy under
 * transpose, slice and pad. */
static inline void nnfx_rt_strided_copy(const float *x, const long *sx, float *y, const long *sy, int rank,
                                        const long *shape) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ox = 0, oy = 0;
    int d;
    for (d = 0; d < rank; d++)
        if (shape[d] <= 0) return;
    for (;;) {
        y[oy] = x[ox];
        d = rank - 1;
        while (d >= 0) {
            idx[d]++;
            ox += sx[d];
            oy += sy[d];
            if (idx[d] < shape[d]) break;
            ox -= sx[d] * shape[d];
            oy -= sy[d] * shape[d];
            idx[d] = 0;
            d--;
        }
        if (d < 0) return;
    }
}
/* @end */

/* @rt transpose needs:strided_copy */
/* y = x permuted: y's dims are shape[0..rank) (rank <= 8) and st[d] is the
 * stride in x of y's dim d. */
static inline void nnfx_rt_transpose(const float *x, float *y, int rank, const long *shape, const long *st) {
    long sy[8], acc = 1;
    int d;
    for (d = rank - 1; d >= 0; d--) {
        sy[d] = acc;
        acc *= shape[d];
    }
    nnfx_rt_strided_copy(x, st, y, sy, rank, shape);
}
/* @end */

/* @rt layer_norm libm */
/* LayerNormalization over rows: x and y are [outer, inner]; each row is
 * normalised to mean 0 / variance 1 (accumulated in double), then scaled
 * by sc and shifted by b (NULL: none); sc/b hold inner values, or one
 * (ns/nb == 1). mean/inv (NULL: not wanted) get each row's mean and
 * 1/sqrt(var + eps). */
static inline void nnfx_rt_layer_norm(const float *x, const float *sc, long ns, const float *b, long nb, float eps,
                                      float *y, long outer, long inner, float *mean_out, float *inv_out) {
    long o, i;
    for (o = 0; o < outer; o++) {
        const float *xi = x + o * inner;
        float *yo = y + o * inner;
        double mean = 0, var = 0;
        float inv;
        for (i = 0; i < inner; i++)
            mean += xi[i];
        mean /= (double)inner;
        for (i = 0; i < inner; i++)
            var += (xi[i] - mean) * (xi[i] - mean);
        var /= (double)inner;
        inv = (float)(1.0 / sqrt(var + eps));
        if (mean_out) mean_out[o] = (float)mean;
        if (inv_out) inv_out[o] = inv;
        for (i = 0; i < inner; i++) {
            float v = (float)(xi[i] - mean) * inv * sc[ns == 1 ? 0 : i];
            yo[i] = b ? v + b[nb == 1 ? 0 : i] : v;
        }
    }
}
/* @end */

/* @rt gather */
/* Gather along one axis: x is [outer, len, inner], idx holds ni indices
 * in [0, len); y is [outer, ni, inner]. */
static inline void nnfx_rt_gather(const float *x, float *y, long outer, long len, long inner, const long *idx,
                                  long ni) {
    long o, j;
    for (o = 0; o < outer; o++)
        for (j = 0; j < ni; j++) {
            memcpy(y, x + (o * len + idx[j]) * inner, (size_t)inner * sizeof(float));
            y += inner;
        }
}
/* @end */

/* @rt pad needs:strided_copy */
/* Constant padding: y (ny values) is filled with v, then x (dims
 * shape[0..rank), rank <= 6, row-major) is written to y + base where
 * st[d] is y's stride of dim d. */
static inline void nnfx_rt_pad(const float *x, float *y, long ny, float v, long base, int rank, const long *shape,
                               const long *st) {
    long sx[6], acc = 1, i;
    int d;
    for (i = 0; i < ny; i++)
        y[i] = v;
    for (d = rank - 1; d >= 0; d--) {
        sx[d] = acc;
        acc *= shape[d];
    }
    nnfx_rt_strided_copy(x, sx, y + base, st, rank, shape);
}
/* @end */

/* @rt index_map */
/* y = x gathered per dim: for every index (o_0 .. o_rank-1) of y's dims
 * shape[0..rank) (1 <= rank <= 6, row-major), y = x[sum_d tab_d[o_d] *
 * xs[d]], or v where some tab_d[o_d] is negative. tab holds the tables of
 * every dim one after the other (shape[0] entries, then shape[1], ...):
 * Pad in every mode, cropping, nearest Resize of any dim. Values of es
 * bytes (any type; v points to one). */
static inline void nnfx_rt_index_map_bytes(const unsigned char *x, unsigned char *y, long es, int rank,
                                           const long *shape, const long *xs, const long *tab, const unsigned char *v) {
    const long *t[6];
    long idx[6] = {0, 0, 0, 0, 0, 0};
    int d;
    for (d = 0; d < rank; d++) {
        if (shape[d] <= 0) return;
        t[d] = d ? t[d - 1] + shape[d - 1] : tab;
    }
    for (;;) {
        long off = 0;
        int inside = 1;
        for (d = 0; d < rank && inside; d++) {
            const long s = t[d][idx[d]];
            if (s < 0)
                inside = 0;
            else
                off += s * xs[d];
        }
        memcpy(y, inside ? x + off * es : v, (size_t)es);
        y += es;
        for (d = rank - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

/* nnfx_rt_index_map_bytes of float values. */
static inline void nnfx_rt_index_map(const float *x, float *y, int rank, const long *shape, const long *xs,
                                     const long *tab, float v) {
    nnfx_rt_index_map_bytes((const unsigned char *)x, (unsigned char *)y, 4, rank, shape, xs, tab,
                            (const unsigned char *)&v);
}
/* @end */

/* @rt resize_axis */
/* One dim of a linear or cubic Resize (or tf_crop_and_resize): x [outer,
 * in, inner] -> y [outer, out, inner]; output row r is the sum of nt[r]
 * source rows idx[4r + k] times w[4r + k] (float, in that order), a copy
 * of row idx[4r] when nt[r] is 1 (or 2 with w[4r + 1] 0), v when nt[r] is
 * 0 (a point outside the input). The interpreter's resize_axis. */
static inline void nnfx_rt_resize_axis(const float *x, float *y, long outer, long in, long out, long inner,
                                       const long *idx, const float *w, const signed char *nt, float v) {
    long o, r, j;
    int k;
    for (o = 0; o < outer; o++) {
        const float *sp = x + o * in * inner;
        float *dp = y + o * out * inner;
        for (r = 0; r < out; r++) {
            float *d = dp + r * inner;
            const long *ti = idx + 4 * r;
            const float *tw = w + 4 * r;
            if (nt[r] == 0) {
                for (j = 0; j < inner; j++)
                    d[j] = v;
            } else if (nt[r] == 1 || (nt[r] == 2 && tw[1] == 0)) {
                memcpy(d, sp + ti[0] * inner, (size_t)inner * sizeof(float));
            } else {
                for (j = 0; j < inner; j++) {
                    float s = 0;
                    for (k = 0; k < nt[r]; k++)
                        s += tw[k] * sp[ti[k] * inner + j];
                    d[j] = s;
                }
            }
        }
    }
}
/* @end */

/* @rt resize_sized needs:resize_axis,resize_taps */
/* A Resize of the last two dims of x [outer, ih, iw] to oh x ow known at
 * run time, into y [outer, yh, yw] (its bound: oh <= yh, ow <= yw), as the
 * interpreter resizes: the rows' pass, then the columns', each with the
 * taps of nnfx_rt_resize_taps (mode, nearest mode nm, cubic coefficient
 * ca, exclude_outside ex) at the coordinates of mode ct. Working memory:
 * ti [4 m], tw [4 m], tn [m] (m = max(oh, ow)), t1 [outer oh iw], t2
 * [outer oh ow]. */
static inline void nnfx_rt_resize_sized(const float *x, float *y, long outer, long ih, long iw, long oh, long ow,
                                        long yh, long yw, int mode, int ct, int nm, double ca, int ex, long *ti,
                                        float *tw, signed char *tn, float *t1, float *t2) {
    const double sh = (double)oh / (double)ih, sw = (double)ow / (double)iw;
    long r, o;
    int nt;
    for (r = 0; r < oh; r++) {
        nnfx_rt_resize_taps(mode, nm, ca, ex, nnfx_rt_resize_coord(ct, sh, r, ih, oh), ih, ti + 4 * r, tw + 4 * r, &nt);
        tn[r] = (signed char)nt;
    }
    nnfx_rt_resize_axis(x, t1, outer, ih, oh, iw, ti, tw, tn, 0.0f);
    for (r = 0; r < ow; r++) {
        nnfx_rt_resize_taps(mode, nm, ca, ex, nnfx_rt_resize_coord(ct, sw, r, iw, ow), iw, ti + 4 * r, tw + 4 * r, &nt);
        tn[r] = (signed char)nt;
    }
    nnfx_rt_resize_axis(t1, t2, outer * oh, iw, ow, 1, ti, tw, tn, 0.0f);
    for (o = 0; o < outer; o++)
        for (r = 0; r < oh; r++)
            memcpy(y + (o * yh + r) * yw, t2 + (o * oh + r) * ow, (size_t)ow * sizeof(float));
}
/* @end */

/* @rt copy_window */
/* Copies a window of cnt[0..rank) elements of `es` bytes each from x
 * (element strides xst) to y (element strides yst), row-major: a Slice
 * from starts read at run time into a value at its bound. */
static inline void nnfx_rt_copy_window(const unsigned char *x, unsigned char *y, long es, int rank, const long *cnt,
                                       const long *xst, const long *yst) {
    long idx[8] = {0}, xo = 0, yo = 0, n = 1;
    int d;
    for (d = 0; d < rank; d++)
        n *= cnt[d] > 0 ? cnt[d] : 0;
    if (n == 0) return;
    for (;;) {
        memcpy(y + yo * es, x + xo * es, (size_t)(cnt[rank - 1] * es)); /* the innermost run */
        for (d = rank - 2; d >= 0; d--) {
            idx[d]++, xo += xst[d], yo += yst[d];
            if (idx[d] < cnt[d]) break;
            xo -= xst[d] * cnt[d], yo -= yst[d] * cnt[d], idx[d] = 0;
        }
        if (d < 0) return;
    }
}
/* @end */

/* @rt resize_nearest */
/* Nearest-neighbour resize of the last two dims: x [outer, ih, iw] ->
 * y [outer, oh, ow]; th[i] / tw[j] are the source row / column of output
 * row i / column j. */
static inline void nnfx_rt_resize_nearest(const float *x, float *y, long outer, long ih, long iw, long oh, long ow,
                                          const long *th, const long *tw) {
    long o, i, j;
    for (o = 0; o < outer; o++)
        for (i = 0; i < oh; i++) {
            const float *r = x + (o * ih + th[i]) * iw;
            for (j = 0; j < ow; j++)
                *y++ = r[tw[j]];
        }
}
/* @end */

/* @rt einsum needs:einsum_start,einsum_step */
/* Einsum of nin float32 inputs x into y (total values): labels 0..nall of
 * sizes size[], the output's first (nouter), then the summed ones; input i
 * moves st[i * nall + a] elements along label a (0 where it lacks it).
 * Each output value is the sum, in double, of the products (in double) of
 * the inputs over the summed labels, in odometer order (the interpreter's
 * generic loop, kern_einsum_geometry; nnfx_rt_teinsum for other types).
 * At most 64 labels. */
static inline void nnfx_rt_einsum(int nin, const float *const *x, float *y, long total, int nall, int nouter,
                                  const long *size, const long *st) {
    long idx[64], off[8], o, s;
    const long inner = nnfx_rt_einsum_start(nin, nall, nouter, size, idx, off);
    int i;
    for (o = 0; o < total; o++) {
        double acc = 0;
        for (s = 0; s < (inner ? inner : 1); s++) {
            double prod = 1;
            for (i = 0; i < nin && inner; i++)
                prod *= (double)x[i][off[i]];
            if (inner) acc += prod;
            /* an empty sum: the output's odometer alone */
            nnfx_rt_einsum_step(nin, nall, inner ? nall : nouter, size, st, idx, off);
        }
        y[o] = (float)acc;
    }
}
/* @end */

/* @rt conv3d needs:window */
/* Direct 3-d convolution y [N, M, OD, OH, OW] = x [N, C, D, H, W] * w
 * [M, C/group, KD, KH, KW] + b[m] (b may be NULL), taps accumulated in
 * float in (channel, kd, kh, kw) order; g: N C M D H W OD OH OW KD KH KW,
 * strides d/h/w, pads begin d/h/w, dilations d/h/w, group. */
static inline void nnfx_rt_conv3d(const float *restrict x, const float *restrict w, const float *b, float *restrict y,
                                  const int *g) {
    const int N = g[0], C = g[1], M = g[2], D = g[3], H = g[4], W = g[5], OD = g[6], OH = g[7], OW = g[8];
    const int KD = g[9], KH = g[10], KW = g[11], G = g[21], cg = C / G, mg = M / G;
    int n, m, od, oh, ow, c, kd, kh, kw, d0, d1, h0, h1, w0, w1;
    for (n = 0; n < N; n++)
        for (m = 0; m < M; m++) {
            const int grp = m / mg;
            const float *wm = w + (long)m * cg * KD * KH * KW;
            for (od = 0; od < OD; od++) {
                nnfx_rt_window(od, g[12], g[15], g[18], KD, D, &d0, &d1);
                for (oh = 0; oh < OH; oh++) {
                    nnfx_rt_window(oh, g[13], g[16], g[19], KH, H, &h0, &h1);
                    for (ow = 0; ow < OW; ow++) {
                        float acc = b ? b[m] : 0.0f;
                        nnfx_rt_window(ow, g[14], g[17], g[20], KW, W, &w0, &w1);
                        for (c = 0; c < cg; c++) {
                            const float *xc = x + ((long)n * C + (long)grp * cg + c) * D * H * W;
                            const float *wc = wm + (long)c * KD * KH * KW;
                            for (kd = d0; kd < d1; kd++)
                                for (kh = h0; kh < h1; kh++)
                                    for (kw = w0; kw < w1; kw++)
                                        acc += xc[((long)(od * g[12] - g[15] + kd * g[18]) * H +
                                                   (oh * g[13] - g[16] + kh * g[19])) *
                                                      W +
                                                  ow * g[14] - g[17] + kw * g[20]] *
                                               wc[(kd * KH + kh) * KW + kw];
                        }
                        y[(((long)n * M + m) * OD + od) * OH * OW + (long)oh * OW + ow] = acc;
                    }
                }
            }
        }
}
/* @end */

/* @rt pool3d needs:window,max_takes */
/* Max (is_max) or average pooling over [NC, D, H, W] -> [NC, OD, OH, OW],
 * as nnfx_rt_pool2d per dim: g: NC D H W OD OH OW KD KH KW, strides
 * d/h/w, pads begin d/h/w, dilations d/h/w, count_include_pad, pads end
 * d/h/w. An average divides by the taps inside the input, or with
 * count_include_pad by those inside the declared pads. */
static inline void nnfx_rt_pool3d(const float *restrict x, float *restrict y, const int *g, int is_max) {
    const int NC = g[0], D = g[1], H = g[2], W = g[3], OD = g[4], OH = g[5], OW = g[6];
    int c, od, oh, ow, kd, kh, kw, lo[3], hi[3], k;
    for (c = 0; c < NC; c++)
        for (od = 0; od < OD; od++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    const int o[3] = {od, oh, ow}, in[3] = {D, H, W};
                    long cnt = 1;
                    float acc = 0.0f;
                    int first = 1;
                    for (k = 0; k < 3; k++) {
                        nnfx_rt_window(o[k], g[10 + k], g[13 + k], g[16 + k], g[7 + k], in[k], &lo[k], &hi[k]);
                        if (g[19]) { /* taps inside the declared pads */
                            const int s = o[k] * g[10 + k] - g[13 + k], e0 = s + (g[7 + k] - 1) * g[16 + k] + 1;
                            const int e = e0 > in[k] + g[20 + k] ? in[k] + g[20 + k] : e0;
                            cnt *= (e - s + g[16 + k] - 1) / g[16 + k];
                        } else {
                            cnt *= hi[k] - lo[k];
                        }
                    }
                    for (kd = lo[0]; kd < hi[0]; kd++)
                        for (kh = lo[1]; kh < hi[1]; kh++)
                            for (kw = lo[2]; kw < hi[2]; kw++) {
                                const float v = x[(((long)c * D + od * g[10] - g[13] + kd * g[16]) * H + oh * g[11] -
                                                   g[14] + kh * g[17]) *
                                                      W +
                                                  ow * g[12] - g[15] + kw * g[18]];
                                if (is_max)
                                    acc = first || nnfx_rt_max_takes(acc, v) ? v : acc;
                                else
                                    acc += v;
                                first = 0;
                            }
                    y[(((long)c * OD + od) * OH + oh) * OW + ow] = is_max ? acc : cnt > 0 ? acc / (float)cnt : 0.0f;
                }
}
/* @end */

#endif
