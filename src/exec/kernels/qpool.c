/* qpool.c — int8 pooling for the compiled plan's DequantizeLinear ->
 * MaxPool | GlobalAveragePool -> QuantizeLinear islands (see qgemm.h).
 * MaxPool: quantization is monotone, so the max of the int8 inputs is
 * taken first and requantized once (no requantization at all when the two
 * sides share scale, zero point and type); the requantization is the
 * reference's own float computation, so results are exact.
 * GlobalAveragePool: the sum of (x - zp) in int32, then one float
 * requantization (a value on a rounding tie may differ by one unit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#define FX_QP_X86 1
#include <emmintrin.h>
#else
#define FX_QP_X86 0
#endif

#include "exec/kernels/qgemm.h"
#include "ir/quant_int.h"

struct fx_qpool {
    fx_qpool_geom g;
    bool same; /* max pool with identical quantization on both sides */
    /* max pool where every window holds an input: rows of the plane are
     * max-reduced as u8 keys (s8 flipped by 0x80, so byte order is value
     * order) into a padded row, then each output is the max of its taps
     * mapped through tab (the reference requantization of each of the 256
     * values, or the identity) */
    bool fast;
    int64_t pitch; /* padded row: pw + w + right pad + vector slack */
    uint8_t tab[256];
};

/* true when window o (of n) along a dim of size len has an input tap */
static bool win_has_input(int64_t o, int64_t s, int64_t p, int64_t k, int64_t d, int64_t len) {
    for (int64_t t = 0; t < k; t++) {
        int64_t i = o * s - p + t * d;
        if (i >= 0 && i < len) return true;
    }
    return false;
}

fx_qpool *fx_qpool_new(const fx_qpool_geom *g) {
    fx_qpool *p = malloc(sizeof *p);
    if (!p) return NULL;
    p->g = *g;
    p->same = !g->global_avg && g->x_signed == g->y_signed && g->x_scale == g->y_scale && g->x_zp == g->y_zp;
    p->fast = !g->global_avg;
    for (int64_t o = 0; p->fast && o < g->oh; o++)
        p->fast = win_has_input(o, g->sh, g->ph, g->kh, g->dh, g->h);
    for (int64_t o = 0; p->fast && o < g->ow; o++)
        p->fast = win_has_input(o, g->sw, g->pw, g->kw, g->dw, g->w);
    int64_t right = (g->ow + 16) * g->sw + (g->kw - 1) * g->dw + 16 - g->pw - g->w;
    p->pitch = g->pw + g->w + (right > 0 ? right : 0);
    int32_t lo = g->y_signed ? -128 : 0, hi = g->y_signed ? 127 : 255;
    for (int k = 0; k < 256; k++) {
        int32_t v = g->x_signed ? (int32_t)(int8_t)(uint8_t)(k ^ 0x80) : k; /* the value of key k */
        int32_t q = p->same ? v : ir_quant_one((float)(v - g->x_zp) * g->x_scale, g->y_scale, g->y_zp, lo, hi);
        p->tab[k] = (uint8_t)q;
    }
    return p;
}

void fx_qpool_free(fx_qpool *p) { free(p); }

static inline int32_t ld(bool sgn, const void *x, int64_t i) {
    return sgn ? ((const int8_t *)x)[i] : ((const uint8_t *)x)[i];
}

static inline void st(bool sgn, void *y, int64_t i, int32_t v) {
    if (sgn)
        ((int8_t *)y)[i] = (int8_t)v;
    else
        ((uint8_t *)y)[i] = (uint8_t)v;
}

typedef struct pjob {
    const fx_qpool *p;
    const void *x;
    void *y;
} pjob;

/* d[i] = max(d[i], s[i] ^ f) over n bytes */
static void max_row(uint8_t *d, const uint8_t *s, int64_t n, uint8_t f) {
    int64_t i = 0;
#if FX_QP_X86
    const __m128i vf = _mm_set1_epi8((char)f);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + i)), vf);
        _mm_storeu_si128((__m128i *)(d + i), _mm_max_epu8(_mm_loadu_si128((const __m128i *)(d + i)), x));
    }
#endif
    for (; i < n; i++) {
        uint8_t x = s[i] ^ f;
        d[i] = x > d[i] ? x : d[i];
    }
}

/* The max pool of plane t through padded rows of keys (p->fast). */
static bool fast_plane(const fx_qpool *p, const uint8_t *x, uint8_t *y) {
    const fx_qpool_geom *g = &p->g;
    uint8_t *row = malloc((size_t)p->pitch);
    if (!row) return false;
    uint8_t f = g->x_signed ? 0x80 : 0;
    for (int64_t oy = 0; oy < g->oh; oy++) {
        memset(row, 0, (size_t)p->pitch); /* key 0: below every input (each window has one) */
        for (int64_t ky = 0; ky < g->kh; ky++) {
            int64_t iy = oy * g->sh - g->ph + ky * g->dh;
            if (iy >= 0 && iy < g->h) max_row(row + g->pw, x + iy * g->w, g->w, f);
        }
        uint8_t *yr = y + oy * g->ow;
        int64_t ox = 0;
#if FX_QP_X86
        if (p->same && (g->sw == 1 || g->sw == 2)) {
            const __m128i even = _mm_set1_epi16(0xff), vf = _mm_set1_epi8((char)f);
            for (; ox + 8 <= g->ow; ox += 8) {
                __m128i m = _mm_setzero_si128();
                for (int64_t kx = 0; kx < g->kw; kx++) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(row + ox * g->sw + kx * g->dw));
                    if (g->sw == 2) v = _mm_and_si128(v, even);
                    m = _mm_max_epu8(m, v);
                }
                if (g->sw == 2) m = _mm_packus_epi16(m, m);
                _mm_storel_epi64((__m128i *)(yr + ox), _mm_xor_si128(m, vf));
            }
        }
#endif
        for (; ox < g->ow; ox++) {
            uint8_t m = 0;
            for (int64_t kx = 0; kx < g->kw; kx++) {
                uint8_t v = row[ox * g->sw + kx * g->dw];
                m = v > m ? v : m;
            }
            yr[ox] = p->tab[m];
        }
    }
    free(row);
    return true;
}

static void plane_task(void *ctx, int64_t t, int tid) {
    (void)tid;
    const pjob *j = ctx;
    const fx_qpool_geom *g = &j->p->g;
    if (j->p->fast && fast_plane(j->p, (const uint8_t *)j->x + t * g->h * g->w, (uint8_t *)j->y + t * g->oh * g->ow))
        return;
    int32_t lo = g->y_signed ? -128 : 0, hi = g->y_signed ? 127 : 255;
    int64_t hw = g->h * g->w;
    if (g->global_avg) {
        int32_t s = 0;
        for (int64_t i = 0; i < hw; i++)
            s += ld(g->x_signed, j->x, t * hw + i) - g->x_zp;
        st(g->y_signed, j->y, t, nnfx_rt_qavg(s, (long)hw, g->x_scale, g->y_scale, g->y_zp, lo, hi));
        return;
    }
    int64_t ohw = g->oh * g->ow;
    for (int64_t oy = 0; oy < g->oh; oy++)
        for (int64_t ox = 0; ox < g->ow; ox++) {
            int32_t m = -1000;
            for (int64_t ky = 0; ky < g->kh; ky++) {
                int64_t iy = oy * g->sh - g->ph + ky * g->dh;
                if (iy < 0 || iy >= g->h) continue;
                for (int64_t kx = 0; kx < g->kw; kx++) {
                    int64_t ix = ox * g->sw - g->pw + kx * g->dw;
                    if (ix < 0 || ix >= g->w) continue;
                    int32_t v = ld(g->x_signed, j->x, t * hw + iy * g->w + ix);
                    if (v > m) m = v;
                }
            }
            int32_t q = m;
            if (m == -1000) /* an all-padding window: the float max pool gives -inf */
                q = lo;
            else if (!j->p->same)
                q = ir_quant_one((float)(m - g->x_zp) * g->x_scale, g->y_scale, g->y_zp, lo, hi);
            st(g->y_signed, j->y, t * ohw + oy * g->ow + ox, q);
        }
}

void fx_qpool_run(const fx_qpool *p, fx_pool *pool, const void *x, void *y) {
    pjob j = {p, x, y};
    fx_pool_run(pool, p->g.n * p->g.c, plane_task, &j);
}

void fx_qpool_describe(const fx_qpool *p, char *buf, size_t len) {
    if (p->g.global_avg)
        snprintf(buf, len, "qglobal_avg_pool int8 (int32 sum + requant)");
    else
        snprintf(buf, len, "qmax_pool%lldx%lld/s%lld int8%s", (long long)p->g.kh, (long long)p->g.kw,
                 (long long)p->g.sh, p->same ? "" : " + requant");
}
