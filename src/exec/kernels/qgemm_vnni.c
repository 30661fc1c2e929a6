/* qgemm_vnni.c — the int8 GEMM tile on VNNI (vpdpbusd: four u8 x s8
 * products summed into each int32 lane in one instruction), in its two
 * encodings: AVX-512 VNNI (EVEX, with AVX-512VL on ymm registers: Cascade
 * Lake, Ice Lake, Sapphire Rapids, Zen 4) and AVX-VNNI (VEX: Alder Lake and
 * later clients, Zen 5). One body (qgemm_vnni_tile.h) instantiated twice.
 * Called only when fx_qisa_active() names the encoding; the epilogue is the
 * AVX2 one (qgemm_x86.h), on 16 lanes with the AVX-512 encoding, so the
 * bytes equal the AVX2 and C paths'. Also the u8 depthwise plane on VNNI
 * with VBMI byte permutes (fx_qdw_plane_u8). This
 * file is compiled with -ffp-contract=off: the epilogue must not fuse its
 * multiply and add (FMA is part of the AVX-512 target). */
#include "exec/kernels/qgemm.h"

#include <pthread.h>
#include <string.h>

#include "core/core_int.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include "exec/kernels/qgemm_x86.h"

#define VNNI_NAME(x) x##_avx512vnni
#define VNNI_TARGET  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define VNNI_DPBUSD  _mm256_dpbusd_epi32
#define VNNI_WIDE    1
#include "exec/kernels/qgemm_vnni_tile.h"
#undef VNNI_WIDE
#undef VNNI_NAME
#undef VNNI_TARGET
#undef VNNI_DPBUSD

#define VNNI_NAME(x) x##_avxvnni
#define VNNI_TARGET  __attribute__((target("avx2,avxvnni")))
#define VNNI_DPBUSD  _mm256_dpbusd_avx_epi32
#include "exec/kernels/qgemm_vnni_tile.h"
#undef VNNI_NAME
#undef VNNI_TARGET
#undef VNNI_DPBUSD

void fx_qtile_vnni(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    if (k == FX_QK_VNNI512)
        sums_avx512vnni(ks, a, b, np, acc);
    else
        sums_avxvnni(ks, a, b, np, acc);
}

void fx_qtile_vnni_q(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, const int64_t *koff, int np,
                     const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                     int64_t ym) {
    if (k == FX_QK_VNNI512)
        fused_avx512vnni(ks, a, b, koff, np, e, m, comp, rows, cols, res, y, ym);
    else
        fused_avxvnni(ks, a, b, koff, np, e, m, comp, rows, cols, res, y, ym);
}

void fx_qtile_vnni_q16(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                       const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                       int64_t ym) {
    fused16_avx512vnni(ks, a0, a1, b, koff, e, m, comp, rows, cols, res, y, ym);
}

void fx_qepi_row_avx512(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                        void *y) {
    epi_row_avx512vnni(e, m, comp, acc, n, res, y);
}

void fx_qtile_vnni_q8(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                      const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                      int64_t ym) {
    fused8_avx512vnni(ks, a0, a1, b, koff, e, m, comp, rows, cols, res, y, ym);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni"))) void
fx_qgemv_avx512vnni(const uint8_t *x, const int8_t *w, int64_t m, int64_t kpad, int32_t *acc) {
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) { /* four rows share each load of x */
        const int8_t *w0 = w + i * kpad;
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t k = 0; k < kpad; k += 64) {
            __m512i xv = _mm512_loadu_si512((const void *)(x + k));
            a0 = _mm512_dpbusd_epi32(a0, xv, _mm512_load_si512((const void *)(w0 + k)));
            a1 = _mm512_dpbusd_epi32(a1, xv, _mm512_load_si512((const void *)(w0 + kpad + k)));
            a2 = _mm512_dpbusd_epi32(a2, xv, _mm512_load_si512((const void *)(w0 + 2 * kpad + k)));
            a3 = _mm512_dpbusd_epi32(a3, xv, _mm512_load_si512((const void *)(w0 + 3 * kpad + k)));
        }
        acc[i] = _mm512_reduce_add_epi32(a0), acc[i + 1] = _mm512_reduce_add_epi32(a1);
        acc[i + 2] = _mm512_reduce_add_epi32(a2), acc[i + 3] = _mm512_reduce_add_epi32(a3);
    }
    for (; i < m; i++) {
        __m512i a = _mm512_setzero_si512();
        for (int64_t k = 0; k < kpad; k += 64)
            a = _mm512_dpbusd_epi32(a, _mm512_loadu_si512((const void *)(x + k)),
                                    _mm512_load_si512((const void *)(w + i * kpad + k)));
        acc[i] = _mm512_reduce_add_epi32(a);
    }
}

#define NHWC_TARGET __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))

/* r[i] lane j <- r[j] lane i (a 16 x 16 int32 transpose). */
NHWC_TARGET static inline __attribute__((always_inline)) void transpose16(__m512i r[16]) {
    __m512i t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0xdd);
        t[i + 8] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0x88);
        t[i + 12] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0xdd);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88);
        r[i + 4] = _mm512_shuffle_i32x4(t[i + 4], t[i + 12], 0x88);
        r[i + 8] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd);
        r[i + 12] = _mm512_shuffle_i32x4(t[i + 4], t[i + 12], 0xdd);
    }
}

/* Blocks of 16 positions x 16 channels: the positions' rows of sums
 * loaded with their compensations added and transposed, so a register
 * holds a channel's 16 positions, its epilogue on 16 lanes as epi_row's,
 * 16 bytes stored; channels past the last 16 by the gathers of a stride of
 * m values. */
NHWC_TARGET void fx_qepi_nhwc_avx512(const fx_qepi *e, const int32_t *comp, const int32_t *cls, const int32_t *acc,
                                     int64_t np, int64_t m, const void *res, void *y) {
    const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32((int)m));
    const fx_qepi el = *e; /* the byte stores could alias *e */
    int64_t m16 = m / 16 * 16;
    for (int64_t p = 0; p < np; p += 16) {
        int64_t n = np - p < 16 ? np - p : 16;
        __mmask16 k = (__mmask16)(n == 16 ? 0xFFFF : (1u << n) - 1);
        const int32_t *ap = acc + p * m;
        __m512i ci = _mm512_mullo_epi32(_mm512_maskz_loadu_epi32(k, cls + p), _mm512_set1_epi32((int)m));
        for (int64_t c0 = 0; c0 < m16; c0 += 16) {
            __m512i r[16];
            for (int i = 0; i < 16; i++)
                r[i] = i < n ? _mm512_add_epi32(_mm512_loadu_si512((const void *)(ap + i * m + c0)),
                                                _mm512_loadu_si512((const void *)(comp + cls[p + i] * m + c0)))
                             : _mm512_setzero_si512();
            transpose16(r);
            for (int i = 0; i < 16; i++) {
                int64_t ch = c0 + i;
                __m512i a = r[i];
                const char *rr = el.res ? (const char *)res + ch * np + p : NULL;
                __m512i q = epi_q16_avx512vnni(&el, ch, a, rr, k);
                _mm_mask_storeu_epi8((char *)y + ch * np + p, k, _mm512_cvtepi32_epi8(q));
            }
        }
        for (int64_t ch = m16; ch < m; ch++) {
            __m512i a = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k, idx, ap + ch, 4);
            a = _mm512_add_epi32(a, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k, ci, comp + ch, 4));
            const char *rr = el.res ? (const char *)res + ch * np + p : NULL;
            __m512i q = epi_q16_avx512vnni(&el, ch, a, rr, k);
            _mm_mask_storeu_epi8((char *)y + ch * np + p, k, _mm512_cvtepi32_epi8(q));
        }
    }
}

/* ---- u8 depthwise on VNNI with byte permutes (fx_qdw_plane_u8) ---------- */

#define VBMI_TARGET __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

/* The padded u8 plane: rows of dpw bytes, the image's values (^ flip) at
 * columns [pw, pw + w) of rows [ph, ph + h), the zero point elsewhere, and
 * 128 bytes of it after the last row (a step's 64-byte load may pass it,
 * by up to 16 positions more on the stride-1 long row). */
VBMI_TARGET static void u8_plane(const uint8_t *plane, int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t dph,
                                 int64_t dpw, uint8_t zp, uint8_t flip, uint8_t *xp) {
    int64_t lo = pw < dpw ? pw : dpw, hi = pw + w < dpw ? pw + w : dpw;
    memset(xp, zp, (size_t)(dph * dpw + 128));
    const __m256i vf = _mm256_set1_epi8((char)flip);
    for (int64_t iy = 0; iy < h; iy++) {
        if (iy + ph >= dph) break;
        const uint8_t *s = plane + iy * w - pw;
        uint8_t *d = xp + (iy + ph) * dpw;
        for (int64_t px = lo; px < hi; px += 32) {
            int64_t n = hi - px < 32 ? hi - px : 32;
            __mmask32 m = (__mmask32)(n == 32 ? ~0u : (1u << n) - 1);
            _mm256_mask_storeu_epi8(d + px, m, _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, s + px), vf));
        }
    }
}

/* The output rows of plane_u8 (kh rows of nq tap groups; inlined with
 * the common sizes constant, so the weights and permutes stay in
 * registers). Stride 1 with rows narrower than a vector: output (oy, ox)
 * reads the plane from oy * dpw + ox on, so one long row over the padded
 * grid (dpw positions per output row) computes them all in whole vectors,
 * then the rows are moved together (the dpw - ow positions between them
 * dropped). */
/* The requantize epilogue of epi_q16 without requant or residual, its
 * per-channel constants in registers: y (NULL: sums stored to acc). */
typedef struct dw_epi {
    uint8_t *y;
    __m512i comp;
    __m512 mult, bias, lo, hi;
} dw_epi;

VBMI_TARGET static inline __attribute__((always_inline)) void plane_u8_rows(const fx_qconv_geom *g, int64_t dpw,
                                                                            const uint8_t *xp, int32_t *acc,
                                                                            const __m512i *idx, __m512i (*wk)[2],
                                                                            int kh, int nq, const dw_epi *de) {
    if (g->sw == 1 && g->ow < 16) { /* rows shorter than a vector: the long row */
        int64_t n = (g->oh - 1) * dpw + g->ow;
        for (int64_t p = 0; p < n; p += 16) {
            __m512i s = _mm512_setzero_si512();
            for (int ky = 0; ky < kh; ky++) {
                __m512i v = _mm512_loadu_si512((const void *)(xp + ky * dpw + p));
                for (int q = 0; q < nq; q++)
                    s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi8(idx[q], v), wk[ky][q]);
            }
            _mm512_storeu_si512((void *)(acc + p), s);
        }
        if (dpw != g->ow)
            for (int64_t oy = 1; oy < g->oh; oy++)
                memmove(acc + oy * g->ow, acc + oy * dpw, sizeof *acc * (size_t)g->ow);
        return;
    }
    const dw_epi d = *de; /* in registers: the stores to y alias nothing the loop reads */
    for (int64_t oy = 0; oy < g->oh; oy++) {
        const uint8_t *r0 = xp + oy * g->sw * dpw;
        int32_t *a = acc + oy * g->ow;
        for (int64_t ox = 0; ox < g->ow; ox += 16) {
            __m512i s = _mm512_setzero_si512();
            for (int ky = 0; ky < kh; ky++) {
                __m512i v = _mm512_loadu_si512((const void *)(r0 + ky * dpw + ox * g->sw));
                for (int q = 0; q < nq; q++)
                    s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi8(idx[q], v), wk[ky][q]);
            }
            int64_t n = g->ow - ox < 16 ? g->ow - ox : 16;
            __mmask16 k = (__mmask16)((1u << n) - 1);
            if (!d.y) {
                _mm512_mask_storeu_epi32(a + ox, k, s);
                continue;
            }
            __m512i q = epi_simple16_avx512vnni(_mm512_add_epi32(s, d.comp), d.mult, d.bias, d.lo, d.hi);
            _mm_mask_storeu_epi8(d.y + oy * g->ow + ox, k, _mm512_cvtepi32_epi8(q));
        }
    }
}

/* The byte permutes of plane_u8: [stride - 1][tap group q], lane i of
 * group q reading bytes stride * i + 4q + t, t < 4. */
static uint8_t g_u8_idx[2][2][64];
static pthread_once_t g_u8_idx_once = PTHREAD_ONCE_INIT;
static void u8_idx_init(void) {
    for (int s = 1; s <= 2; s++)
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < 16; i++)
                for (int t = 0; t < 4; t++)
                    g_u8_idx[s - 1][q][4 * i + t] = (uint8_t)(s * i + 4 * q + t);
}

VBMI_TARGET static void plane_u8(const fx_qconv_geom *g, int64_t dph, int64_t dpw, uint8_t zp, uint8_t flip,
                                 const uint8_t *plane, const int16_t *k, uint8_t *xp, int32_t *acc, const fx_qepi *e,
                                 int64_t ch, uint8_t *y) {
    u8_plane(plane, g->h, g->w, g->ph, g->pw, dph, dpw, zp, flip, xp);
    /* the dword vpdpbusd multiplies by the group's four weights (0 past kw) */
    int nq = (int)((g->kw + 3) / 4);
    __m512i idx[2], wk[8][2];
    pthread_once(&g_u8_idx_once, u8_idx_init);
    for (int q = 0; q < nq; q++) {
        idx[q] = _mm512_loadu_si512((const void *)g_u8_idx[g->sw - 1][q]);
        for (int64_t ky = 0; ky < g->kh; ky++) {
            int8_t wb[4];
            for (int t = 0; t < 4; t++)
                wb[t] = 4 * q + t < g->kw ? (int8_t)k[ky * g->kw + 4 * q + t] : 0;
            int32_t wd;
            memcpy(&wd, wb, 4);
            wk[ky][q] = _mm512_set1_epi32(wd);
        }
    }
    dw_epi de = {NULL,
                 _mm512_setzero_si512(),
                 _mm512_setzero_ps(),
                 _mm512_setzero_ps(),
                 _mm512_setzero_ps(),
                 _mm512_setzero_ps()};
    bool longrow = g->sw == 1 && g->ow < 16;
    int32_t sumk = 0; /* the zero point's part: acc - zp * sum(k) */
    for (int64_t i = 0; i < g->kh * g->kw; i++)
        sumk += k[i];
    int32_t comp = -(int32_t)zp * sumk;
    if (y && !longrow) {
        de.y = y, de.comp = _mm512_set1_epi32(comp);
        de.mult = _mm512_set1_ps(e->multq[ch]), de.bias = _mm512_set1_ps(e->biasq[ch]);
        de.lo = _mm512_set1_ps((float)e->lo), de.hi = _mm512_set1_ps((float)e->hi);
    }
    if (g->kh == 3 && nq == 1)
        plane_u8_rows(g, dpw, xp, acc, idx, wk, 3, 1, &de);
    else if (g->kh == 5 && nq == 2)
        plane_u8_rows(g, dpw, xp, acc, idx, wk, 5, 2, &de);
    else
        plane_u8_rows(g, dpw, xp, acc, idx, wk, (int)g->kh, nq, &de);
    if (y && longrow) epi_row_avx512vnni(e, ch, comp, acc, g->oh * g->ow, NULL, y);
}
bool fx_qdw_plane_u8(const fx_qconv_geom *g, int64_t dph, int64_t dpw, uint8_t zp, uint8_t flip, const uint8_t *plane,
                     const int16_t *k, uint8_t *xp, int32_t *acc, const fx_qepi *e, int64_t ch, uint8_t *y) {
    if (!core_cpu_avx512vbmi() || (g->sw != 1 && g->sw != 2) || g->sh != g->sw || g->dh != 1 || g->dw != 1 ||
        g->kw > 8 || g->kh > 8)
        return false;
    plane_u8(g, dph, dpw, zp, flip, plane, k, xp, acc, e, ch, y);
    return true;
}

#else
bool fx_qdw_plane_u8(const fx_qconv_geom *g, int64_t dph, int64_t dpw, uint8_t zp, uint8_t flip, const uint8_t *plane,
                     const int16_t *k, uint8_t *xp, int32_t *acc, const fx_qepi *e, int64_t ch, uint8_t *y) {
    (void)g, (void)dph, (void)dpw, (void)zp, (void)flip, (void)plane, (void)k, (void)xp, (void)acc, (void)e, (void)ch,
        (void)y;
    return false;
}
void fx_qepi_row_avx512(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                        void *y) {
    fx_qepi_row_c(e, m, comp, acc, n, res, y, 1);
}
void fx_qepi_nhwc_avx512(const fx_qepi *e, const int32_t *comp, const int32_t *cls, const int32_t *acc, int64_t np,
                         int64_t m, const void *res, void *y) {
    for (int64_t ch = 0; ch < m; ch++)
        for (int64_t j = 0; j < np; j++)
            fx_qepi_row_c(e, ch, comp[cls[j] * m + ch], acc + j * m + ch, 1,
                          res ? (const char *)res + ch * np + j : NULL, (char *)y + ch * np + j, 1);
}
void fx_qgemv_avx512vnni(const uint8_t *x, const int8_t *w, int64_t m, int64_t kpad, int32_t *acc) {
    for (int64_t i = 0; i < m; i++) {
        int32_t s = 0;
        for (int64_t k = 0; k < kpad; k++)
            s += x[k] * w[i * kpad + k];
        acc[i] = s;
    }
}
void fx_qtile_vnni_q16(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                       const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                       int64_t ym) {
    (void)ks, (void)a0, (void)a1, (void)b, (void)koff, (void)e, (void)m, (void)comp, (void)rows, (void)cols, (void)res,
        (void)y, (void)ym;
}
void fx_qtile_vnni_q8(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                      const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                      int64_t ym) {
    (void)ks, (void)a0, (void)a1, (void)b, (void)koff, (void)e, (void)m, (void)comp, (void)rows, (void)cols, (void)res,
        (void)y, (void)ym;
}
void fx_qtile_vnni(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    (void)k;
    fx_qtile_c(ks, a, b, np, acc);
}
void fx_qtile_vnni_q(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, const int64_t *koff, int np,
                     const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                     int64_t ym) {
    (void)k, (void)ks, (void)a, (void)b, (void)koff, (void)np, (void)e, (void)m, (void)comp, (void)rows, (void)cols,
        (void)res, (void)y, (void)ym;
}
#endif
