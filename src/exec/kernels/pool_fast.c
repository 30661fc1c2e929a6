/* pool_fast.c — 2-d MaxPool for the compiled executor: one plane per
 * task; interior windows without bounds checks, edge windows clipped to
 * the image (padding never wins a max, as in ONNX). A faster equivalent of
 * kern_max_pool (pool.c, the meaning), checked against it by
 * kernels_differential. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math") /* lets the max selects vectorise */
#endif
#include <math.h>
#include <stdlib.h>

#include "core/core_int.h"
#include "exec/fast_int.h"
#include "exec/kernels/kernels_int.h"
#include "ir/op_table.h"

struct fx_maxpool {
    int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
};

fx_maxpool *fx_maxpool_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, nnfx_error *err) {
    if (ir_attr_int(n, "storage_order") != 0 || nnfx_node_num_outputs(n) != 1) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast max pool: one output, row-major only");
        return NULL;
    }
    const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != 2) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast max pool: 2-d kernel_shape only");
        return NULL;
    }
    int64_t in_sp[2] = {xs[2], xs[3]}, k[2] = {ks->u.ints.v[0], ks->u.ints.v[1]};
    ir_window win;
    if (ir_window_read(n, 2, k, in_sp, &win, err)) return NULL;
    fx_maxpool m = {xs[0],    xs[1],    xs[2],    xs[3],    ys[2],    ys[3],     win.k[0],
                    win.k[1], win.s[0], win.s[1], win.d[0], win.d[1], win.pb[0], win.pb[1]};
    if (m.w > 1024 || m.kh < 1 || m.kw < 1 || m.sh < 1 || m.sw < 1 || m.dh < 1 || m.dw < 1 || ys[0] != m.n ||
        ys[1] != m.c) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast max pool: unusual window");
        return NULL;
    }
    fx_maxpool *p = malloc(sizeof *p);
    if (!p) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    *p = m;
    return p;
}

void fx_maxpool_free(fx_maxpool *m) { free(m); }

/* The running max m after tap v: max pooling's one rule (KERN_MAX_TAKES,
 * as kern_max_pool): a NaN input wins. */
static inline float max_nan(float m, float v) { return KERN_MAX_TAKES(m, v) ? v : m; }

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* max_nan on sixteen lanes */
__attribute__((target("avx512f"))) static inline __m512 max_nan16(__m512 m, __m512 v) {
    __mmask16 take = _mm512_cmp_ps_mask(v, m, _CMP_GT_OQ) |
                     (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(m, m, _CMP_ORD_Q));
    return _mm512_mask_mov_ps(m, take, v);
}

/* tmp[0, w) = the max_nan of -inf and rows r[0 .. nr) at each column,
 * sixteen columns at a time (the last step masked). plain: by the plain
 * vmaxps instead (v > m ? v : m: max_nan for every value but a NaN tap,
 * so the same where no tap is NaN); returns whether a tap was NaN (then
 * the caller runs it again without plain). */
__attribute__((target("avx512f"))) static bool column_max_avx512(float *tmp, const float *const *r, int nr, int64_t w,
                                                                 bool plain) {
    __mmask16 nan = 0;
    for (int64_t i = 0; i < w; i += 16) {
        __mmask16 k = w - i < 16 ? (__mmask16)((1u << (w - i)) - 1) : (__mmask16)0xFFFF;
        __m512 acc = _mm512_set1_ps(-INFINITY);
        for (int q = 0; q < nr; q++) {
            __m512 v = _mm512_maskz_loadu_ps(k, r[q] + i);
            if (plain) {
                nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
                acc = _mm512_max_ps(v, acc);
            } else {
                acc = max_nan16(acc, v);
            }
        }
        _mm512_mask_storeu_ps(tmp + i, k, acc);
    }
    return nan != 0;
}

/* The interior outputs [lo, hi) of one row from the column maxima tmp
 * (stride 1 or 2, no dilation), sixteen at a time, the same taps in the
 * same order as the scalar loop; the last step is masked. A stride-2 step
 * loads 32 column maxima and keeps the even ones. nan: whether tmp may
 * hold a NaN (else the plain vmaxps, the same there). */
__attribute__((target("avx512f"))) static void window_row_avx512(const fx_maxpool *m, const float *tmp, float *yr,
                                                                 int64_t lo, int64_t hi, bool nan) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t ox = lo; ox < hi; ox += 16) {
        int64_t n = hi - ox < 16 ? hi - ox : 16;
        __mmask16 k = (__mmask16)((1u << n) - 1);
        __m512 acc = _mm512_set1_ps(-INFINITY);
        for (int64_t kx = 0; kx < m->kw; kx++) {
            const float *t = tmp + ox * m->sw + kx - m->pw;
            __m512 v;
            if (m->sw == 1) {
                v = _mm512_maskz_loadu_ps(k, t);
            } else { /* elements 2i, i < n, are window taps; 2n - 1 <= 31 */
                __mmask16 k1 = n > 8 ? (__mmask16)((1u << (2 * n - 16 - 1)) - 1) : 0;
                __mmask16 k0 = n >= 8 ? (__mmask16)0xFFFF : (__mmask16)((1u << (2 * n - 1)) - 1);
                v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(k0, t), even, _mm512_maskz_loadu_ps(k1, t + 16));
            }
            acc = nan ? max_nan16(acc, v) : _mm512_max_ps(v, acc);
        }
        _mm512_mask_storeu_ps(yr + ox, k, acc);
    }
}
#endif

/* One plane: per output row, the column-wise max of the window's input
 * rows (contiguous, vectorised), then the max along each window. */
static inline CORE_ALWAYS_INLINE void plane_body(const fx_maxpool *m, const float *restrict x, float *restrict y,
                                                 float *restrict tmp) {
    /* the AVX-512 rows: stride 1 or 2, no dilation, at most 16 window rows */
    bool vec16 = m->dw == 1 && (m->sw == 1 || m->sw == 2) && m->kh <= 16 && core_cpu_avx512f();
    for (int64_t oy = 0; oy < m->oh; oy++) {
        int64_t y0 = oy * m->sh - m->ph;
        const float *rows[16];
        int nr = 0;
        for (int64_t ky = 0; ky < m->kh && vec16; ky++) {
            int64_t iy = y0 + ky * m->dh;
            if (iy >= 0 && iy < m->h) rows[nr++] = x + iy * m->w;
        }
#if defined(__GNUC__) && defined(__x86_64__)
        bool nan = true; /* whether the row's taps may hold a NaN */
        if (vec16) {
            nan = column_max_avx512(tmp, rows, nr, m->w, true);
            if (nan) column_max_avx512(tmp, rows, nr, m->w, false);
        } else
#endif
        {
            for (int64_t i = 0; i < m->w; i++)
                tmp[i] = -INFINITY;
            for (int64_t ky = 0; ky < m->kh; ky++) {
                int64_t iy = y0 + ky * m->dh;
                if (iy < 0 || iy >= m->h) continue;
                const float *restrict row = x + iy * m->w;
                for (int64_t i = 0; i < m->w; i++)
                    tmp[i] = max_nan(tmp[i], row[i]);
            }
        }
        float *restrict yr = y + oy * m->ow;
        /* interior outputs [lo, hi): the whole window inside the row;
         * taps outer, outputs inner, so the loops vectorise */
        int64_t lo = (m->pw + m->sw - 1) / m->sw, last = m->w - 1 - (m->kw - 1) * m->dw + m->pw;
        int64_t hi = last < 0 ? 0 : last / m->sw + 1;
        if (hi > m->ow) hi = m->ow;
        if (lo > hi) lo = hi;
        int64_t shi = hi; /* the scalar interior: [lo, shi) */
#if defined(__GNUC__) && defined(__x86_64__)
        if (vec16) window_row_avx512(m, tmp, yr, lo, hi, nan), shi = lo;
#endif
        for (int64_t ox = lo; ox < shi; ox++)
            yr[ox] = -INFINITY;
        for (int64_t kx = 0; kx < m->kw; kx++) {
            const float *restrict t = tmp + kx * m->dw - m->pw;
            if (m->sw == 1)
                for (int64_t ox = lo; ox < shi; ox++)
                    yr[ox] = max_nan(yr[ox], t[ox]);
            else if (m->sw == 2)
                for (int64_t ox = lo; ox < shi; ox++)
                    yr[ox] = max_nan(yr[ox], t[2 * ox]);
            else
                for (int64_t ox = lo; ox < shi; ox++)
                    yr[ox] = max_nan(yr[ox], t[ox * m->sw]);
        }
        for (int64_t ox = 0; ox < m->ow; ox++) {
            if (ox == lo) ox = hi;
            if (ox >= m->ow) break;
            int64_t x0 = ox * m->sw - m->pw;
            float best = -INFINITY;
            for (int64_t kx = 0; kx < m->kw; kx++) {
                int64_t ix = x0 + kx * m->dw;
                if (ix >= 0 && ix < m->w) best = max_nan(best, tmp[ix]);
            }
            yr[ox] = best;
        }
    }
}

CORE_ISA_VARIANTS(plane, (const fx_maxpool *m, const float *restrict x, float *restrict y, float *restrict tmp),
                  (m, x, y, tmp))

static void plane(const fx_maxpool *m, const float *restrict x, float *restrict y, float *restrict tmp) {
    CORE_ISA_PICK(plane)(m, x, y, tmp);
}

typedef struct pool_job {
    const fx_maxpool *m;
    const float *x;
    float *y;
} pool_job;

/* Eight planes per task (by shape, not by thread count). */
#define PLANES_PER_TASK 8

static void pool_task(void *ctx, int64_t t, int tid) {
    const pool_job *j = ctx;
    const fx_maxpool *m = j->m;
    float tmp[1024]; /* rows are at most 1024 wide (checked at build) */
    int64_t p0 = t * PLANES_PER_TASK, p1 = p0 + PLANES_PER_TASK < m->n * m->c ? p0 + PLANES_PER_TASK : m->n * m->c;
    for (int64_t pl = p0; pl < p1; pl++)
        plane(m, j->x + pl * m->h * m->w, j->y + pl * m->oh * m->ow, tmp);
}

void fx_maxpool_run(const fx_maxpool *m, fx_pool *pool, const float *x, float *y) {
    pool_job j = {m, x, y};
    fx_pool_run(pool, (m->n * m->c + PLANES_PER_TASK - 1) / PLANES_PER_TASK, pool_task, &j);
}

/* ---- channels-last (NHWC) values ------------------------------------- */

/* Output row (image i, row oy) of a channels-last max pool: for each output
 * column, the running max_nan over its window's taps, all C channels of a
 * tap being contiguous. */
static inline CORE_ALWAYS_INLINE void nhwc_row_body(const fx_maxpool *m, const float *restrict x, float *restrict y,
                                                    int64_t i, int64_t oy) {
    int64_t c = m->c;
    for (int64_t ox = 0; ox < m->ow; ox++) {
        float *restrict acc = y + ((i * m->oh + oy) * m->ow + ox) * c;
        for (int64_t k = 0; k < c; k++)
            acc[k] = -INFINITY;
        for (int64_t ky = 0; ky < m->kh; ky++) {
            int64_t iy = oy * m->sh - m->ph + ky * m->dh;
            if (iy < 0 || iy >= m->h) continue;
            for (int64_t kx = 0; kx < m->kw; kx++) {
                int64_t ix = ox * m->sw - m->pw + kx * m->dw;
                if (ix < 0 || ix >= m->w) continue;
                const float *restrict v = x + ((i * m->h + iy) * m->w + ix) * c;
                for (int64_t k = 0; k < c; k++)
                    acc[k] = max_nan(acc[k], v[k]);
            }
        }
    }
}

CORE_ISA_VARIANTS(nhwc_row, (const fx_maxpool *m, const float *restrict x, float *restrict y, int64_t i, int64_t oy),
                  (m, x, y, i, oy))

static void nhwc_task(void *ctx, int64_t t, int tid) {
    const pool_job *j = ctx;
    CORE_ISA_PICK(nhwc_row)(j->m, j->x, j->y, t / j->m->oh, t % j->m->oh);
}

void fx_maxpool_run_nhwc(const fx_maxpool *m, fx_pool *pool, const float *x, float *y) {
    pool_job j = {m, x, y};
    fx_pool_run(pool, m->n * m->oh, nhwc_task, &j);
}

/* The sum of x[0..n) in double by 16 independent accumulators (so the
 * adds pipeline and vectorise), combined pairwise at the end. */
static inline CORE_ALWAYS_INLINE void fsum16_body(const float *restrict x, int64_t n, double *out) {
    double a[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            a[k] += (double)x[i + k];
    for (; i < n; i++)
        a[i % 16] += (double)x[i];
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++)
            a[k] += a[k + w];
    *out = a[0];
}

CORE_ISA_VARIANTS(fsum16, (const float *restrict x, int64_t n, double *out), (x, n, out))

nnfx_status kern_global_average_pool_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                          nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0] || in[0]->dtype != NNFX_F32 || in[0]->rank < 3 ||
        out[0]->dtype != NNFX_F32)
        return ir_op_info(NNFX_OP_GLOBAL_AVERAGE_POOL)->kernel(n, nin, in, nout, out, err); /* its checks, messages */
    const nnfx_tensor *x = in[0];
    int64_t oshape[NNFX_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        oshape[i] = i < 2 ? x->shape[i] : 1;
    nnfx_status s = kern_check_out(n, out[0], x->rank, oshape, err);
    if (s) return s;
    int64_t nc = x->shape[0] * x->shape[1], sp = nnfx_tensor_numel(x) / (nc ? nc : 1);
    const float *xd = x->data;
    float *y = out[0]->data;
    void (*sum)(const float *restrict, int64_t, double *) = CORE_ISA_PICK(fsum16);
    for (int64_t c = 0; c < nc; c++) {
        double t = 0;
        sum(xd + c * sp, sp, &t);
        y[c] = sp ? (float)(t / (double)sp) : 0.0f;
    }
    return NNFX_OK;
}

nnfx_status kern_reduce_mean_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                  nnfx_tensor *const *out, nnfx_error *err) {
    nnfx_status (*ref)(const nnfx_node *, int, nnfx_tensor *const *, int, nnfx_tensor *const *, nnfx_error *) =
        ir_op_info(NNFX_OP_REDUCE_MEAN)->kernel;
    if (nin < 1 || nout < 1 || !in[0] || !out[0] || in[0]->dtype != NNFX_F32 || out[0]->dtype != NNFX_F32 ||
        in[0]->rank < 1)
        return ref(n, nin, in, nout, out, err); /* its checks, messages */
    const nnfx_tensor *x = in[0];
    int64_t axes[NNFX_MAX_RANK];
    int na = 0;
    const nnfx_tensor *at = nin > 1 ? in[1] : NULL;
    bool red[NNFX_MAX_RANK];
    char why[200];
    if ((at && !kern_ints(at, axes, NNFX_MAX_RANK, &na)) ||
        !ir_reduce_plan(n, x->rank, na, at ? axes : NULL, red, why, sizeof why))
        return ref(n, nin, in, nout, out, err);
    int d0 = x->rank; /* the reduced dims must be the last ones: rows of len contiguous values */
    while (d0 > 0 && red[d0 - 1])
        d0--;
    int64_t rows = 1, len = 1;
    for (int d = 0; d < x->rank; d++) {
        if (red[d] && d < d0) return ref(n, nin, in, nout, out, err);
        if (d < d0)
            rows *= x->shape[d];
        else
            len *= x->shape[d];
    }
    if (d0 == x->rank || len == 0 || nnfx_tensor_numel(out[0]) != rows) return ref(n, nin, in, nout, out, err);
    const float *xd = x->data;
    float *y = out[0]->data;
    void (*sum)(const float *restrict, int64_t, double *) = CORE_ISA_PICK(fsum16);
    for (int64_t r = 0; r < rows; r++) {
        double t = 0;
        sum(xd + r * len, len, &t);
        y[r] = (float)(t / (double)len);
    }
    return NNFX_OK;
}

/* d = x - mean into y[0..n) (x NULL: y holds x, centred in place) and the
 * sum of the float squares d * d (each rounded to float, as a Pow(d, 2)
 * step writes them), accumulated as fsum16's. */
static inline CORE_ALWAYS_INLINE void centre_sumsq16_body(const float *restrict x, float *restrict y, int64_t n,
                                                          float mean, double *out) {
    double a[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) {
            float d = (x ? x[i + k] : y[i + k]) - mean, q = d * d;
            y[i + k] = d;
            a[k] += (double)q;
        }
    for (; i < n; i++) {
        float d = (x ? x[i] : y[i]) - mean, q = d * d;
        y[i] = d;
        a[i % 16] += (double)q;
    }
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++)
            a[k] += a[k + w];
    *out = a[0];
}

/* Rows [0, rows) of len values of the chain: y = ((x - mean) / sqrt(var +
 * eps)) * sc + b, each operation rounded to float as its step rounds it
 * (sc, b NULL: absent; ns, nb: 1 or len values). x and y are the same
 * buffer or disjoint ones; sc and b never overlap y. */
static inline CORE_ALWAYS_INLINE void lnchain_rows_body(const float *x, float *y, int64_t rows, int64_t len, float eps,
                                                        const float *sc, int64_t ns, const float *b, int64_t nb) {
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * len;
        double t = 0;
        fsum16_body(xr, len, &t);
        const float mean = (float)(t / (double)len);
        float *yr = y + r * len;
        if (xr == yr)
            centre_sumsq16_body(NULL, yr, len, mean, &t);
        else
            centre_sumsq16_body(xr, yr, len, mean, &t);
        const float var = (float)(t / (double)len), den = sqrtf(var + eps);
        const float *restrict s = sc, *restrict c = b;
        if (s && c && ns == len && nb == len) { /* the usual affine chain: one pass */
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] / den * s[i] + c[i];
            continue;
        }
        for (int64_t i = 0; i < len; i++)
            yr[i] = yr[i] / den;
        if (s && ns == 1)
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] * s[0];
        else if (s)
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] * s[i];
        if (c && nb == 1)
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] + c[0];
        else if (c)
            for (int64_t i = 0; i < len; i++)
                yr[i] = yr[i] + c[i];
    }
}

CORE_ISA_VARIANTS(lnchain_rows,
                  (const float *x, float *y, int64_t rows, int64_t len, float eps, const float *sc, int64_t ns,
                   const float *b, int64_t nb),
                  (x, y, rows, len, eps, sc, ns, b, nb))

nnfx_status kern_layernorm_chain_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                      nnfx_tensor *const *out, nnfx_error *err) {
    const nnfx_tensor *x = nin == 4 ? in[0] : NULL, *e = nin == 4 ? in[1] : NULL;
    bool ok = x && e && x->dtype == NNFX_F32 && x->rank >= 1 && e->dtype == NNFX_F32 && nnfx_tensor_numel(e) == 1 &&
              nout >= 1 && out[0] && out[0]->dtype == NNFX_F32 && nnfx_tensor_numel(out[0]) == nnfx_tensor_numel(x);
    const int64_t len = ok ? x->shape[x->rank - 1] : 0;
    for (int k = 2; ok && k < 4; k++)
        ok = !in[k] || (in[k]->dtype == NNFX_F32 && (nnfx_tensor_numel(in[k]) == 1 || nnfx_tensor_numel(in[k]) == len));
    if (!ok || len < 1)
        return nnfx_error_set(err, NNFX_ERR_RUNTIME,
                              "node '%s': layer norm step needs float32 x, a scalar eps and scale / bias of one value "
                              "or one per element of x's last axis",
                              nnfx_node_name(n));
    const float *xd = x->data, *sc = in[2] ? in[2]->data : NULL, *b = in[3] ? in[3]->data : NULL;
    float *y = out[0]->data;
    const float eps = *(const float *)e->data;
    const int64_t rows = nnfx_tensor_numel(x) / len, ns = in[2] ? nnfx_tensor_numel(in[2]) : 0,
                  nb = in[3] ? nnfx_tensor_numel(in[3]) : 0;
    CORE_ISA_PICK(lnchain_rows)(xd, y, rows, len, eps, sc, ns, b, nb);
    return NNFX_OK;
}
