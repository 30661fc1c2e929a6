/* nnfx_rt_kernels.h — portable C99 kernels over raw float pointers for the
 * C that `nnfx codegen` writes: no nnfx types, no allocation, no state, no
 * libc beyond memcpy/memset. The generator copies the sections a model uses
 * (between the "@rt NAME" and "@end" markers; "needs:" names sections that
 * must come first) into NAME.c; the scalar meaning of the element-wise ops
 * is nnfx_rt_scalar.h, shared with the interpreter. Geometry arrays are
 * described beside each kernel; shapes are row-major (NCHW for images). */
#ifndef NNFX_RT_KERNELS_H
#define NNFX_RT_KERNELS_H

#include <math.h>
#include <string.h>

/* @rt map */
/* y[i] = f(x[i], a, b) for i < n (x == y allowed). */
static inline void nnfx_rt_map(const float *x, float *y, long n, float a, float b, float (*f)(float, float, float)) {
    long i;
    for (i = 0; i < n; i++)
        y[i] = f(x[i], a, b);
}
/* @end */

/* @rt bcast */
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
        {
            int d = rank - 2;
            while (d >= 0) {
                idx[d]++;
                oa += sa[d];
                ob += sb[d];
                if (idx[d] < shape[d]) break;
                oa -= sa[d] * shape[d];
                ob -= sb[d] * shape[d];
                idx[d] = 0;
                d--;
            }
            if (d < 0) return;
        }
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

/* @rt conv2d */
/* 2-d convolution, direct, no scratch memory. g: N, C, H, W, M, KH, KW,
 * OH, OW, stride h/w, pad top/left, dilation h/w, group. x [N,C,H,W],
 * w [M,C/group,KH,KW], b [M] or NULL, y [N,M,OH,OW].
 * Depthwise (one channel per group): each output row is accumulated tap by
 * tap over its valid columns (a contiguous axpy for stride 1). Otherwise
 * each tile of NNFX_RT_MB output channels x NNFX_RT_PT columns of one row
 * is accumulated in a local array over every input channel and tap, with
 * constant loop bounds so the compiler keeps it in vector registers; taps
 * that reach the padding read through a checked copy. A 1x1, stride-1,
 * unpadded conv runs over each plane as one long row. */
#define NNFX_RT_MB 6
#define NNFX_RT_PT 16
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(NNFX_RT_NO_VECTOR)
/* GCC/Clang vector types: the same sums, held in registers (8 floats) */
typedef float nnfx_rt_v8 __attribute__((vector_size(32)));
typedef float nnfx_rt_v8u __attribute__((vector_size(32), aligned(4)));
#define NNFX_RT_VEC 1
#endif
static inline void nnfx_rt_conv2d_dw(const float *x, const float *w, const float *b, float *y, const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
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

/* Rows narrower than a tile: tiles run over the flattened output plane
 * (several rows each), every tap's input offsets computed once per tile. */
static inline void nnfx_rt_conv2d_small(const float *x, const float *w, const float *b, float *y, const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], M = g[4], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14], G = g[15];
    const int cg = C / G, mg = M / G, K = cg * KH * KW, P = OH * OW;
    int n, p0, m0, mb, kh, kw, c, i, j;
    for (n = 0; n < N; n++)
        for (p0 = 0; p0 < P; p0 += NNFX_RT_PT)
            for (m0 = 0; m0 < M; m0 += mb) {
                const int grp = m0 / mg, mlim = (grp + 1) * mg;
                const float *xg = x + ((long)n * C + (long)grp * cg) * H * W;
                const int pt = p0 + NNFX_RT_PT <= P ? NNFX_RT_PT : P - p0;
                mb = m0 + NNFX_RT_MB <= mlim ? NNFX_RT_MB : mlim - m0;
#ifdef NNFX_RT_VEC
                nnfx_rt_v8 acc[NNFX_RT_MB][2];
                for (i = 0; i < NNFX_RT_MB; i++) {
                    const nnfx_rt_v8 z = {0};
                    acc[i][0] = acc[i][1] = z + (b && i < mb ? b[m0 + i] : 0.0f);
                }
#else
                float acc[NNFX_RT_MB][NNFX_RT_PT];
                for (i = 0; i < NNFX_RT_MB; i++)
                    for (j = 0; j < NNFX_RT_PT; j++)
                        acc[i][j] = b && i < mb ? b[m0 + i] : 0.0f;
#endif
                for (kh = 0; kh < KH; kh++)
                    for (kw = 0; kw < KW; kw++) {
                        int idx[NNFX_RT_PT], any = 0;
                        const float *wb = w + (long)m0 * K + kh * KW + kw;
                        for (j = 0; j < NNFX_RT_PT; j++) {
                            const int p = p0 + j, oh = p / OW, ow = p % OW;
                            const int ih = oh * SH - PH + kh * DH, iw = ow * SW - PW + kw * DW;
                            idx[j] = j < pt && ih >= 0 && ih < H && iw >= 0 && iw < W ? ih * W + iw : -1;
                            any |= idx[j] >= 0;
                        }
                        if (!any) continue;
                        for (c = 0; c < cg; c++) {
                            const float *xc = xg + (long)c * H * W, *wp = wb + (long)c * KH * KW;
                            float wv[NNFX_RT_MB], xv[NNFX_RT_PT];
                            if (mb == NNFX_RT_MB)
                                for (i = 0; i < NNFX_RT_MB; i++)
                                    wv[i] = wp[(long)i * K];
                            else
                                for (i = 0; i < NNFX_RT_MB; i++)
                                    wv[i] = i < mb ? wp[(long)i * K] : 0.0f;
                            for (j = 0; j < NNFX_RT_PT; j++)
                                xv[j] = idx[j] >= 0 ? xc[idx[j]] : 0.0f;
#ifdef NNFX_RT_VEC
                            {
                                const nnfx_rt_v8 x0 = *(const nnfx_rt_v8u *)xv, x1 = *(const nnfx_rt_v8u *)(xv + 8);
                                for (i = 0; i < NNFX_RT_MB; i++) {
                                    acc[i][0] += wv[i] * x0;
                                    acc[i][1] += wv[i] * x1;
                                }
                            }
#else
                            for (i = 0; i < NNFX_RT_MB; i++)
                                for (j = 0; j < NNFX_RT_PT; j++)
                                    acc[i][j] += wv[i] * xv[j];
#endif
                        }
                    }
                for (i = 0; i < mb; i++) {
                    float *yr = y + ((long)n * M + m0 + i) * P + p0;
                    float t[NNFX_RT_PT];
                    memcpy(t, acc[i], sizeof t);
                    for (j = 0; j < pt; j++)
                        yr[j] = t[j];
                }
            }
}

static inline void nnfx_rt_conv2d(const float *x, const float *w, const float *b, float *y, const int *g) {
    const int N = g[0], C = g[1], M = g[4], KH = g[5], KW = g[6];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], G = g[15];
    const int DW = g[14], cg = C / G, mg = M / G, K = cg * KH * KW;
    const int flat = KH == 1 && KW == 1 && SH == 1 && SW == 1 && PH == 0 && PW == 0;
    const int H = flat ? 1 : g[2], W = flat ? g[2] * g[3] : g[3];
    const int OH = flat ? 1 : g[7], OW = flat ? g[7] * g[8] : g[8];
    int n, m0, mb, oh, ow0, c, kh, kw, i, j;
    if (cg == 1 && mg == 1) {
        nnfx_rt_conv2d_dw(x, w, b, y, g);
        return;
    }
    if (!flat && OW < NNFX_RT_PT) {
        nnfx_rt_conv2d_small(x, w, b, y, g);
        return;
    }
    /* tiles outer, channel blocks inner: a tile's input columns stay in cache */
    for (n = 0; n < N; n++)
        for (oh = 0; oh < OH; oh++)
            for (ow0 = 0; ow0 < OW; ow0 += NNFX_RT_PT)
                for (m0 = 0; m0 < M; m0 += mb) {
                    /* a block of output channels never crosses a group */
                    const int grp = m0 / mg, mlim = (grp + 1) * mg;
                    const float *xg = x + ((long)n * C + (long)grp * cg) * H * W;
                    const int pt = ow0 + NNFX_RT_PT <= OW ? NNFX_RT_PT : OW - ow0;
                    mb = m0 + NNFX_RT_MB <= mlim ? NNFX_RT_MB : mlim - m0;
#ifdef NNFX_RT_VEC
                    nnfx_rt_v8 acc[NNFX_RT_MB][2];
                    for (i = 0; i < NNFX_RT_MB; i++) {
                        const nnfx_rt_v8 z = {0};
                        acc[i][0] = acc[i][1] = z + (b && i < mb ? b[m0 + i] : 0.0f);
                    }
#else
                    float acc[NNFX_RT_MB][NNFX_RT_PT];
                    for (i = 0; i < NNFX_RT_MB; i++)
                        for (j = 0; j < NNFX_RT_PT; j++)
                            acc[i][j] = b && i < mb ? b[m0 + i] : 0.0f;
#endif
                    for (kh = 0; kh < KH; kh++) {
                        const int ih = oh * SH - PH + kh * DH;
                        if (ih < 0 || ih >= H) continue;
                        for (kw = 0; kw < KW; kw++) {
                            const int iw0 = ow0 * SW - PW + kw * DW;
                            const int inside =
                                pt == NNFX_RT_PT && iw0 >= 0 && iw0 + (NNFX_RT_PT - 1) * SW < W && SW == 1;
                            const float *xrow = xg + (long)ih * W, *wb = w + (long)m0 * K + kh * KW + kw;
                            float xv[NNFX_RT_PT];
                            int jlo = 0, jhi = pt;
                            /* the input channels innermost: one tap of every channel */
#ifdef NNFX_RT_VEC
                            if (inside && mb == NNFX_RT_MB) { /* the common case, no checks */
                                for (c = 0; c < cg; c++) {
                                    const float *xp = xrow + (long)c * H * W + iw0, *wp = wb + (long)c * KH * KW;
                                    const nnfx_rt_v8 x0 = *(const nnfx_rt_v8u *)xp, x1 = *(const nnfx_rt_v8u *)(xp + 8);
                                    for (i = 0; i < NNFX_RT_MB; i++) {
                                        const float wi = wp[(long)i * K];
                                        acc[i][0] += wi * x0;
                                        acc[i][1] += wi * x1;
                                    }
                                }
                                continue;
                            }
#endif
                            /* columns j < pt with 0 <= iw0 + j * SW < W; the rest read as 0 */
                            while (jlo < jhi && iw0 + jlo * SW < 0)
                                jlo++;
                            while (jhi > jlo && iw0 + (jhi - 1) * SW >= W)
                                jhi--;
                            for (j = 0; j < NNFX_RT_PT; j++)
                                xv[j] = 0.0f;
                            for (c = 0; c < cg; c++) {
                                const float *xr = xrow + (long)c * H * W, *wp = wb + (long)c * KH * KW;
                                const float *xp = xv;
                                float wv[NNFX_RT_MB];
                                for (i = 0; i < NNFX_RT_MB; i++)
                                    wv[i] = i < mb ? wp[(long)i * K] : 0.0f;
                                if (inside)
                                    xp = xr + iw0;
                                else
                                    for (j = jlo; j < jhi; j++)
                                        xv[j] = xr[iw0 + j * SW];
#ifdef NNFX_RT_VEC
                                {
                                    const nnfx_rt_v8 x0 = *(const nnfx_rt_v8u *)xp, x1 = *(const nnfx_rt_v8u *)(xp + 8);
                                    for (i = 0; i < NNFX_RT_MB; i++) {
                                        acc[i][0] += wv[i] * x0;
                                        acc[i][1] += wv[i] * x1;
                                    }
                                }
#else
                                for (i = 0; i < NNFX_RT_MB; i++)
                                    for (j = 0; j < NNFX_RT_PT; j++)
                                        acc[i][j] += wv[i] * xp[j];
#endif
                            }
                        }
                    }
                    for (i = 0; i < mb; i++) {
                        float *yr = y + (((long)n * M + m0 + i) * OH + oh) * OW + ow0;
                        float t[NNFX_RT_PT];
                        memcpy(t, acc[i], sizeof t);
                        for (j = 0; j < pt; j++)
                            yr[j] = t[j];
                    }
                }
}
/* @end */

/* @rt pool2d */
/* Max (is_max) or average pooling over [NC, H, W] -> [NC, OH, OW].
 * g: NC, H, W, OH, OW, KH, KW, stride h/w, pad top/left, dilation h/w,
 * count_include_pad, pad bottom/right. Padding never wins a max; an average
 * divides by the taps inside the input, or with count_include_pad by those
 * inside the declared pads (not a ceil_mode overhang), as PyTorch does. */
static inline void nnfx_rt_pool2d(const float *x, float *y, const int *g, int is_max) {
    const int NC = g[0], H = g[1], W = g[2], OH = g[3], OW = g[4], KH = g[5], KW = g[6];
    const int SH = g[7], SW = g[8], PH = g[9], PW = g[10], DH = g[11], DW = g[12], incl = g[13];
    const int PE_H = g[14], PE_W = g[15];
    int c, oh, ow, kh, kw;
    for (c = 0; c < NC; c++) {
        const float *xc = x + (long)c * H * W;
        for (oh = 0; oh < OH; oh++)
            for (ow = 0; ow < OW; ow++) {
                float acc = is_max ? 0.0f : 0.0f;
                int cnt = 0, first = 1;
                for (kh = 0; kh < KH; kh++) {
                    const int ih = oh * SH - PH + kh * DH;
                    if (ih < 0 || ih >= H) continue;
                    for (kw = 0; kw < KW; kw++) {
                        const int iw = ow * SW - PW + kw * DW;
                        float v;
                        if (iw < 0 || iw >= W) continue;
                        v = xc[(long)ih * W + iw];
                        if (is_max) {
                            if (first || v > acc || (v != v && acc == acc)) acc = v;
                            first = 0;
                        } else {
                            acc += v;
                            cnt++;
                        }
                    }
                }
                if (!is_max) {
                    if (incl) {
                        int h0 = oh * SH - PH, w0 = ow * SW - PW;
                        int h1 = h0 + (KH - 1) * DH + 1, w1 = w0 + (KW - 1) * DW + 1;
                        if (h1 > H + PE_H) h1 = H + PE_H;
                        if (w1 > W + PE_W) w1 = W + PE_W;
                        cnt = ((h1 - h0 + DH - 1) / DH) * ((w1 - w0 + DW - 1) / DW);
                    }
                    acc = cnt ? acc / (float)cnt : 0.0f;
                }
                y[((long)c * OH + oh) * OW + ow] = acc;
            }
    }
}
/* @end */

/* @rt reduce */
/* Over x viewed as [outer, n, inner]: y[o, i] = reduction over the middle
 * dim. kind 0 mean, 1 sum, 2 max, 3 min. Sums are compensated (Kahan) in
 * float, so targets without a double FPU need no soft-float calls. */
static inline void nnfx_rt_reduce(const float *x, float *y, long outer, long n, long inner, int kind) {
    long o, i, k;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const float *p = x + o * n * inner + i;
            if (kind <= 1) {
                float s = 0.0f, comp = 0.0f;
                for (k = 0; k < n; k++) {
                    float v = p[k * inner] - comp, t = s + v;
                    comp = (t - s) - v;
                    s = t;
                }
                y[o * inner + i] = kind == 0 ? s / (float)n : s;
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
                float s = 0.0f;
                for (k = 0; k < K; k++)
                    s += (transA ? A[(long)k * M + i] : A[(long)i * K + k]) * bp[k];
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

/* @rt softmax libm */
/* Softmax (or, with log_out, LogSoftmax) over the middle dim of x viewed
 * as [outer, n, inner]; sums in double. */
static inline void nnfx_rt_softmax(const float *x, float *y, long outer, long n, long inner, int log_out) {
    long o, j, i;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const float *xi = x + o * n * inner + j;
            float *yo = y + o * n * inner + j;
            float m = -INFINITY;
            double sum = 0;
            for (i = 0; i < n; i++)
                if (xi[i * inner] > m) m = xi[i * inner];
            for (i = 0; i < n; i++) {
                float e = expf(xi[i * inner] - m);
                sum += e;
                if (!log_out) yo[i * inner] = e;
            }
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
/* y[oy] = x[ox] for every index idx of the dims shape[0..rank) (rank <= 6),
 * ox = sum idx[d] * sx[d], oy = sum idx[d] * sy[d]: the copy under
 * transpose, slice and pad. */
static inline void nnfx_rt_strided_copy(const float *x, const long *sx, float *y, const long *sy, int rank,
                                        const long *shape) {
    long idx[6] = {0, 0, 0, 0, 0, 0}, ox = 0, oy = 0;
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
/* y = x permuted: y's dims are shape[0..rank) (rank <= 6) and st[d] is the
 * stride in x of y's dim d. */
static inline void nnfx_rt_transpose(const float *x, float *y, int rank, const long *shape, const long *st) {
    long sy[6], acc = 1;
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

#endif
