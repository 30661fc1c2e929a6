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
 * (nearest even), so both paths give identical bytes. Its per-tensor
 * constants are taken as vectors once (epiv_of) for a tile or a row: the
 * output bytes may alias fx_qepi, so read through e they would be reloaded
 * and rebuilt after every store. */
typedef struct epiv {
    bool direct, mid, res, res_signed;
    __m256 mid_inv, mid_lo, mid_hi, mid_scale, res_scale, y_inv;
    __m256 lo, hi; /* direct: lo, hi; else lo - y_zp, hi - y_zp */
    __m256i res_zp, y_zp;
} epiv;

AVX2 static inline epiv epiv_of(const fx_qepi *e) {
    epiv v;
    v.direct = !e->mid && !e->res, v.mid = e->mid, v.res = e->res, v.res_signed = e->res_signed;
    v.mid_inv = _mm256_set1_ps(e->mid_inv), v.mid_scale = _mm256_set1_ps(e->mid_scale);
    v.mid_lo = _mm256_set1_ps((float)(e->mid_lo - e->mid_zp)),
    v.mid_hi = _mm256_set1_ps((float)(e->mid_hi - e->mid_zp));
    v.res_scale = _mm256_set1_ps(e->res_scale), v.res_zp = _mm256_set1_epi32(e->res_zp);
    v.y_inv = _mm256_set1_ps(e->y_inv), v.y_zp = _mm256_set1_epi32(e->y_zp);
    int32_t z = v.direct ? 0 : e->y_zp;
    v.lo = _mm256_set1_ps((float)(e->lo - z)), v.hi = _mm256_set1_ps((float)(e->hi - z));
    return v;
}

/* Channel m's multiplier and bias for epi_q8v: multq / biasq (zero point
 * folded in) for the direct form, else mult / bias. */
AVX2 static inline void epiv_chan(const epiv *v, const fx_qepi *e, int64_t m, __m256 *mult, __m256 *bias) {
    *mult = _mm256_set1_ps(v->direct ? e->multq[m] : e->mult[m]);
    *bias = _mm256_set1_ps(v->direct ? e->biasq[m] : e->bias[m]);
}

/* 8 accumulators (comp added) of a channel (mult, bias from epiv_chan),
 * with the residual's 8 bytes at res (when e->res), to 8 int32 outputs
 * within [lo, hi].
 * Without mid and res, y = rne(clamp(acc * multq + biasq, lo, hi)).
 * Otherwise each requantization clamps in float against the bounds less
 * the zero point and rounds after: a clamp to integer bounds commutes with
 * round-to-nearest (rne(clamp(v, a, b)) == clamp(rne(v), a, b)), and the
 * range is within +-255, inside fx_qepi_row_c's +-2^24 guard. The
 * intermediate one stays in float: _mm256_round_ps rounds as
 * _mm256_cvtps_epi32 does (to nearest even) and its integers convert back
 * exactly. The bytes of fx_qepi_row_c either way. */
AVX2 static inline __m256i epi_q8v(const epiv *v, __m256 mult, __m256 bias, __m256i a, const void *res) {
    __m256 t = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), mult), bias);
    if (v->direct) return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(t, v->lo), v->hi));
    if (v->mid) {
        __m256 q = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(t, v->mid_inv), v->mid_lo), v->mid_hi);
        t = _mm256_mul_ps(_mm256_round_ps(q, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), v->mid_scale);
    }
    if (v->res) {
        __m128i rb = _mm_loadl_epi64((const __m128i *)res);
        __m256i r = v->res_signed ? _mm256_cvtepi8_epi32(rb) : _mm256_cvtepu8_epi32(rb);
        t = _mm256_add_ps(t, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(r, v->res_zp)), v->res_scale));
    }
    __m256 u = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(t, v->y_inv), v->lo), v->hi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(u), v->y_zp);
}

/* 16 int32 outputs in [-128, 255] (q0: the first 8) to 16 bytes at y. */
AVX2 static inline void store16(bool sgn, __m256i q0, __m256i q1, void *y) {
    /* [q0 0-3, q1 0-3 | q0 4-7, q1 4-7] -> in order, then to bytes */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), _MM_SHUFFLE(3, 1, 2, 0));
    __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    _mm_storeu_si128((__m128i *)y, sgn ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi));
}

/* A tile with the epilogue applied in registers: rows x cols of the 4 x
 * (8 * np) tile, row r's bytes to y + r * ym (its residual at res + r * ym).
 * A short row goes through a 16-byte copy (residual in, output out). The
 * operations of fx_qepi_row_avx2, so the same bytes. */
AVX2 static inline __attribute__((always_inline)) void tile_finish(const tile8 *tp, int np, const fx_qepi *e, int64_t m,
                                                                   const int32_t *comp, int rows, int cols,
                                                                   const void *res, void *y, int64_t ym) {
    const tile8 t = *tp;
    const epiv v = epiv_of(e);
    const bool sgn = e->y_signed;
    uint8_t rt[16], yt[16];
    for (int r = 0; r < rows; r++) {
        const __m256i vc = _mm256_set1_epi32(comp[r]);
        __m256 mult, bias;
        epiv_chan(&v, e, m + r, &mult, &bias);
        const char *rr = v.res ? (const char *)res + r * ym : NULL;
        if (rr && cols < 16) {
            memset(rt, 0, sizeof rt);
            rr = memcpy(rt, rr, (size_t)cols);
        }
        __m256i q0 = epi_q8v(&v, mult, bias, _mm256_add_epi32(t.c[r][0], vc), rr);
        __m256i q1 = np == 2 ? epi_q8v(&v, mult, bias, _mm256_add_epi32(t.c[r][1], vc), rr ? rr + 8 : NULL) : q0;
        if (cols == 16) {
            store16(sgn, q0, q1, (char *)y + r * ym);
        } else {
            store16(sgn, q0, q1, yt);
            memcpy((char *)y + r * ym, yt, (size_t)cols);
        }
    }
}

#endif
