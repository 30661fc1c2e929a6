/* qgemm_x86.h — what the x86 int8 GEMM tiles share (qgemm_avx2.c,
 * qgemm_vnni.c): the 4 x 16 accumulator tile and the AVX2 requantize
 * epilogue applied to it in registers. Static inline, compiled for AVX2;
 * the VNNI tiles, compiled for a superset, inline them too. Included only
 * on x86-64 GCC/Clang builds. */
#ifndef NNFX_QGEMM_X86_H
#define NNFX_QGEMM_X86_H

#include <immintrin.h>
#include <string.h>

#include "exec/kernels/qgemm.h"

#define AVX2 __attribute__((target("avx2")))

/* 4 bytes at p as one int32 (no alignment or type assumed). */
static inline int32_t ld32(const void *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

typedef struct tile8 {
    __m256i c[4][2]; /* [row][panel] */
} tile8;

/* The epilogue of fx_qepi_row_c on 8 values: the same float operations in
 * the same order (no FMA contraction), rounding by the default MXCSR mode
 * (nearest even), so both paths give identical bytes. */
AVX2 static inline __m256i q_round8(__m256 v) {
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-16777216.0f)), _mm256_set1_ps(16777216.0f));
    return _mm256_cvtps_epi32(v);
}

/* 8 accumulators (comp added) of channel m, with the residual's 8 bytes at
 * res (when e->res), to 8 int32 outputs within [lo, hi]. */
AVX2 static inline __m256i epi_q8(const fx_qepi *e, int64_t m, __m256i a, const void *res) {
    if (!e->mid && !e->res) { /* biasq holds the zero point; clamped before rounding (fx_qepi_row_c) */
        __m256 t = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), _mm256_set1_ps(e->multq[m])),
                                 _mm256_set1_ps(e->biasq[m]));
        t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps((float)e->lo)), _mm256_set1_ps((float)e->hi));
        return _mm256_cvtps_epi32(t);
    }
    /* With mid / res. A clamp to integer bounds commutes with rounding to
     * the nearest integer (rne(clamp(v, a, b)) == clamp(rne(v), a, b)), so
     * each requantization clamps in float, the zero point taken out of the
     * bounds, and rounds after: the bytes of fx_qepi_row_c, in fewer
     * operations (the range is within +-255, inside q_round8's guard). The
     * intermediate one stays in float: _mm256_round_ps rounds as
     * _mm256_cvtps_epi32 does (to nearest even) and its integers convert
     * back exactly. */
    __m256 t =
        _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), _mm256_set1_ps(e->mult[m])), _mm256_set1_ps(e->bias[m]));
    if (e->mid) {
        __m256 v = _mm256_mul_ps(t, _mm256_set1_ps(e->mid_inv));
        v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps((float)(e->mid_lo - e->mid_zp))),
                          _mm256_set1_ps((float)(e->mid_hi - e->mid_zp)));
        v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        t = _mm256_mul_ps(v, _mm256_set1_ps(e->mid_scale));
    }
    if (e->res) {
        __m128i rb = _mm_loadl_epi64((const __m128i *)res);
        __m256i r = e->res_signed ? _mm256_cvtepi8_epi32(rb) : _mm256_cvtepu8_epi32(rb);
        r = _mm256_sub_epi32(r, _mm256_set1_epi32(e->res_zp));
        t = _mm256_add_ps(t, _mm256_mul_ps(_mm256_cvtepi32_ps(r), _mm256_set1_ps(e->res_scale)));
    }
    __m256 u = _mm256_mul_ps(t, _mm256_set1_ps(e->y_inv));
    u = _mm256_min_ps(_mm256_max_ps(u, _mm256_set1_ps((float)(e->lo - e->y_zp))),
                      _mm256_set1_ps((float)(e->hi - e->y_zp)));
    return _mm256_add_epi32(_mm256_cvtps_epi32(u), _mm256_set1_epi32(e->y_zp));
}

/* 16 int32 outputs in [-128, 255] (q0: the first 8) to 16 bytes at y. */
AVX2 static inline void store16(bool sgn, __m256i q0, __m256i q1, void *y) {
    /* [q0 0-3, q1 0-3 | q0 4-7, q1 4-7] -> in order, then to bytes */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), _MM_SHUFFLE(3, 1, 2, 0));
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    _mm_storeu_si128((__m128i *)y, sgn ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi));
}

/* One vector of the epilogue: 8 values of acc (+ comp), res 8 bytes or
 * NULL, to 8 bytes. */
AVX2 static inline __m128i epi8(const fx_qepi *e, int64_t m, __m256i vcomp, const int32_t *acc, const void *res) {
    __m256i q = epi_q8(e, m, _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)acc), vcomp), res);
    __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    return e->y_signed ? _mm_packs_epi16(w16, w16) : _mm_packus_epi16(w16, w16);
}

/* A tile with the epilogue applied in registers: rows x cols of the 4 x
 * (8 * np) tile, row r's bytes to y + r * ym (its residual at res + r * ym).
 * A short row goes through a 16-byte copy (residual in, output out). The
 * operations of fx_qepi_row_avx2, so the same bytes. */
AVX2 static inline __attribute__((always_inline)) void tile_finish(const tile8 *tp, int np, const fx_qepi *e, int64_t m,
                                                                   const int32_t *comp, int rows, int cols,
                                                                   const void *res, void *y, int64_t ym) {
    const tile8 t = *tp;
    for (int r = 0; r < rows; r++) {
        const __m256i vc = _mm256_set1_epi32(comp[r]);
        uint8_t rt[16] = {0}, yt[16];
        const char *rr = e->res ? (const char *)res + r * ym : NULL;
        if (rr && cols < 16) rr = memcpy(rt, rr, (size_t)cols);
        __m256i q0 = epi_q8(e, m + r, _mm256_add_epi32(t.c[r][0], vc), rr);
        __m256i q1 = np == 2 ? epi_q8(e, m + r, _mm256_add_epi32(t.c[r][1], vc), rr ? rr + 8 : NULL) : q0;
        if (cols == 16) {
            store16(e->y_signed, q0, q1, (char *)y + r * ym);
        } else {
            store16(e->y_signed, q0, q1, yt);
            memcpy((char *)y + r * ym, yt, (size_t)cols);
        }
    }
}

#endif
