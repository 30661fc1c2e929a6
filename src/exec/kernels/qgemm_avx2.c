/* qgemm_avx2.c — AVX2 paths of the int8 kernels (see qgemm.h): two GEMM
 * tiles over the same packing, the requantize epilogue on 8 values at a
 * time, and the depthwise row. Called only when the CPU has AVX2
 * (fx_qisa_active); on other targets these are stubs never reached. */
#include "exec/kernels/qgemm.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include "exec/kernels/qgemm_x86.h"

/* The GEMM tile: 4 rows x 16 columns (np = 2 panels of 8; np = 1: one)
 * in 8 accumulators, so with the 2 inputs, the broadcast weights and a
 * product all 16 ymm registers hold without spills. One skeleton for both
 * kernels, which pack the same shape per step (16 bytes of weights: 4 rows
 * x 4 bytes; 32 bytes of activations per panel) and differ in the multiply:
 * - ubs: u8 quads x s8 quads by vpmaddubsw (adjacent products summed in
 *   int16, exact only when the pair cannot pass 32767: the caller uses it
 *   for pair-safe weights, |w0| + |w1| <= 128, so |pair| <= 255 * 128),
 *   then vpmaddwd against ones adds the two pairs of each column in int32;
 * - madd: int16 pairs (activations widened while packing) x the row's
 *   weight pair by vpmaddwd, exact for any s8 weights (at most
 *   2 * 255 * 128 per pair). */
AVX2 static inline __m256i kmul(bool ubs, __m256i x, __m256i w) {
    return ubs ? _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), _mm256_set1_epi16(1)) : _mm256_madd_epi16(x, w);
}

AVX2 static inline __attribute__((always_inline)) tile8
tile_core(bool ubs, int64_t ks, const uint8_t *a, const uint8_t *b, int np, const int32_t *fs, const fx_qfix *fix) {
    const uint8_t *b0 = b, *b1 = b + ks * 32;
    __m256i c00 = _mm256_setzero_si256(), c10 = c00, c20 = c00, c30 = c00;
    __m256i c01 = c00, c11 = c00, c21 = c00, c31 = c00;
    if (np == 2) {
        for (int64_t q = 0; q < ks; q++, a += 16, b += 32, b1 += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)b), x1 = _mm256_loadu_si256((const __m256i *)b1);
            __m256i w;
#define ROW(r, c0, c1)                                                                                                 \
    w = _mm256_set1_epi32(ld32(a + 4 * r));                                                                            \
    c0 = _mm256_add_epi32(c0, kmul(ubs, x0, w));                                                                       \
    c1 = _mm256_add_epi32(c1, kmul(ubs, x1, w));
            ROW(0, c00, c01)
            ROW(1, c10, c11)
            ROW(2, c20, c21)
            ROW(3, c30, c31)
#undef ROW
        }
    } else {
        for (int64_t q = 0; q < ks; q++, a += 16, b += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)b);
            __m256i w;
#define ROW(r, c0)                                                                                                     \
    w = _mm256_set1_epi32(ld32(a + 4 * r));                                                                            \
    c0 = _mm256_add_epi32(c0, kmul(ubs, x0, w));
            ROW(0, c00)
            ROW(1, c10)
            ROW(2, c20)
            ROW(3, c30)
#undef ROW
        }
    }
    if (ubs && fs) {
        /* the corrections of the split pairs, row by row (vpmaddubsw on
         * safe pairs too) */
#define FIX(r, c0, c1)                                                                                                 \
    for (int32_t i = fs[r]; i < fs[r + 1]; i++) {                                                                      \
        const uint8_t *bq = b0 + (int64_t)fix[i].q * 32;                                                               \
        __m256i w = _mm256_set1_epi32(fix[i].quad);                                                                    \
        c0 = _mm256_add_epi32(c0, kmul(true, _mm256_loadu_si256((const __m256i *)bq), w));                             \
        if (np == 2) c1 = _mm256_add_epi32(c1, kmul(true, _mm256_loadu_si256((const __m256i *)(bq + ks * 32)), w));    \
    }
        FIX(0, c00, c01)
        FIX(1, c10, c11)
        FIX(2, c20, c21)
        FIX(3, c30, c31)
#undef FIX
    }
    tile8 t = {{{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}}};
    return t;
}

AVX2 static inline void tile_store(const tile8 *t, int np, int32_t *acc) {
    for (int r = 0; r < 4; r++)
        for (int p = 0; p < np; p++)
            _mm256_storeu_si256((__m256i *)(acc + r * 16 + p * 8), t->c[r][p]);
}

AVX2 void fx_qtile_avx2_ubs(int64_t ks, const int8_t *a, const uint8_t *b, int np, const int32_t *fs,
                            const fx_qfix *fix, int32_t *acc) {
    tile8 t = tile_core(true, ks, (const uint8_t *)a, b, np, fs, fix);
    tile_store(&t, np, acc);
}

AVX2 void fx_qtile_avx2_madd(int64_t ks, const int16_t *a16, const uint8_t *b, int np, int32_t *acc) {
    tile8 t = tile_core(false, ks, (const uint8_t *)a16, b, np, NULL, NULL);
    tile_store(&t, np, acc);
}

/* The tile of kernel ubs or madd with its epilogue (tile_finish). */
AVX2 static inline __attribute__((always_inline)) void
tile_q(bool ubs, int64_t ks, const uint8_t *a, const uint8_t *b, int np, const int32_t *fs, const fx_qfix *fix,
       const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    tile8 t = tile_core(ubs, ks, a, b, np, fs, fix);
    tile_finish(&t, np, e, m, comp, rows, cols, res, y, ym);
}

AVX2 void fx_qtile_avx2_q(bool ubs, int64_t ks, const void *a, const uint8_t *b, int np, const int32_t *fs,
                          const fx_qfix *fix, const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols,
                          const void *res, void *y, int64_t ym) {
    if (ubs)
        tile_q(true, ks, a, b, np, fs, fix, e, m, comp, rows, cols, res, y, ym);
    else
        tile_q(false, ks, a, b, np, NULL, NULL, e, m, comp, rows, cols, res, y, ym);
}

/* acc must be readable up to 8 values past the last multiple of 8 below n
 * (a 16-wide tile row, or a depthwise row with room for ow rounded up to
 * 16): the tail is one full vector whose first n % 8 bytes are stored. */
AVX2 void fx_qepi_row_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                           void *y) {
    const __m256i vcomp = _mm256_set1_epi32(comp);
    const epiv v = epiv_of(e);
    const bool sgn = e->y_signed;
    __m256 mult, bias;
    epiv_chan(&v, e, m, &mult, &bias);
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) { /* 16 values per step */
        __m256i a0 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + j)), vcomp);
        __m256i a1 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + j + 8)), vcomp);
        const char *r = v.res ? (const char *)res + j : NULL;
        store16(sgn, epi_q8v(&v, mult, bias, a0, r), epi_q8v(&v, mult, bias, a1, r ? r + 8 : NULL), (char *)y + j);
    }
    for (; j < n; j += 8) { /* the last 1-15: 8 at a time, a short one through copies */
        uint8_t tr[8] = {0}, ty[16];
        int64_t k = n - j < 8 ? n - j : 8;
        const char *r = v.res ? (const char *)res + j : NULL;
        if (r && k < 8) r = memcpy(tr, r, (size_t)k);
        __m256i a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + j)), vcomp);
        __m256i q = epi_q8v(&v, mult, bias, a, r);
        store16(sgn, q, q, ty);
        memcpy((char *)y + j, ty, (size_t)k);
    }
}

/* The depthwise row of fx_qdw_row_c, 8 outputs at a time for stride 1
 * (contiguous taps, sign-extended int16 products summed in int32); other
 * strides gather each tap's 8 inputs. Integer sums: bit-identical. The
 * last vector may run past ow: acc has room for ow rounded up to 16 and the
 * plane has slack after it (qgemm.c); those sums are not used. */
/* Two taps' weights as the int16 pair of one int32 lane. */
static inline int32_t kpair(int16_t k0, int16_t k1) {
    return (int32_t)((uint32_t)(uint16_t)k0 | ((uint32_t)(uint16_t)k1 << 16));
}

/* The weight pairs of the taps (kx, kx + 1) of each kernel row, the last
 * one of an odd row with 0: pr[ky * ((kw + 1) / 2) + kx / 2]. false when
 * the kernel has more pairs than fit (the caller takes the gather path). */
#define FX_QDW_PAIRS 64
static bool dw_pairs(const int16_t *k, int64_t kh, int64_t kw, int32_t *pr) {
    int64_t kp = (kw + 1) / 2;
    if (kh * kp > FX_QDW_PAIRS) return false;
    for (int64_t ky = 0; ky < kh; ky++)
        for (int64_t kx = 0; kx < kw; kx += 2)
            pr[ky * kp + kx / 2] = kpair(k[ky * kw + kx], kx + 1 < kw ? k[ky * kw + kx + 1] : 0);
    return true;
}

/* The n weight pairs pr, each broadcast to every lane of wv[i]. */
AVX2 static inline __attribute__((always_inline)) void broadcast_pairs(const int32_t *pr, int64_t n, __m256i *wv) {
    for (int64_t i = 0; i < n; i++)
        wv[i] = _mm256_set1_epi32(pr[i]);
}

/* The sums of 16 stride-1 depthwise outputs from column ox: lo holds
 * outputs 0-3 and 8-11, hi 4-7 and 12-15 (the unpack order). */
AVX2 static inline __attribute__((always_inline)) void dw_s1_sums(const int16_t *xp, int64_t pitch, const __m256i *wv,
                                                                  int64_t kh, int64_t kw, int64_t dh, int64_t ox,
                                                                  __m256i *lo_out, __m256i *hi_out) {
    int64_t kp = (kw + 1) / 2;
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    for (int64_t ky = 0; ky < kh; ky++) {
        const int16_t *row = xp + ky * dh * pitch + ox;
        for (int64_t kx = 0; kx < kw; kx += 2) {
            __m256i w = wv[ky * kp + kx / 2];
            __m256i xa = _mm256_loadu_si256((const __m256i *)(row + kx));
            __m256i xb = _mm256_loadu_si256((const __m256i *)(row + kx + 1));
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb), w));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb), w));
        }
    }
    *lo_out = lo, *hi_out = hi;
}

/* Stride 1, dilation 1: 16 outputs per step. The inputs of taps kx and
 * kx + 1 are interleaved (unpack) so one vpmaddwd applies both. The weight
 * pairs are broadcast once per call (a 3 x 3 kernel, inlined with constant
 * sizes, keeps all 6 in registers). */
AVX2 static inline __attribute__((always_inline)) void dw_s1(const int16_t *xp, int64_t pitch, const int32_t *pr,
                                                             int64_t kh, int64_t kw, int64_t dh, int32_t *acc,
                                                             int64_t ow) {
    int64_t kp = (kw + 1) / 2;
    __m256i wv[FX_QDW_PAIRS];
    broadcast_pairs(pr, kh * kp, wv);
    for (int64_t ox = 0; ox < ow; ox += 16) {
        __m256i lo, hi;
        dw_s1_sums(xp, pitch, wv, kh, kw, dh, ox, &lo, &hi);
        _mm256_storeu_si256((__m256i *)(acc + ox), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(acc + ox + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}

/* dw_s1 with the epilogue (channel m, no residual) applied in registers:
 * 16 output bytes per step to yb (so up to 15 past n). */
AVX2 static inline __attribute__((always_inline)) void dw_s1_q(const int16_t *xp, int64_t pitch, const int32_t *pr,
                                                               int64_t kh, int64_t kw, int64_t dh, const fx_qepi *e,
                                                               int64_t m, uint8_t *yb, int64_t n) {
    int64_t kp = (kw + 1) / 2;
    __m256i wv[FX_QDW_PAIRS];
    broadcast_pairs(pr, kh * kp, wv);
    const epiv v = epiv_of(e);
    const bool sgn = e->y_signed;
    __m256 mult, bias;
    epiv_chan(&v, e, m, &mult, &bias);
    for (int64_t ox = 0; ox < n; ox += 16) {
        __m256i lo, hi;
        dw_s1_sums(xp, pitch, wv, kh, kw, dh, ox, &lo, &hi);
        __m256i q0 = epi_q8v(&v, mult, bias, _mm256_permute2x128_si256(lo, hi, 0x20), NULL);
        __m256i q1 = epi_q8v(&v, mult, bias, _mm256_permute2x128_si256(lo, hi, 0x31), NULL);
        store16(sgn, q0, q1, yb + ox);
    }
}

AVX2 bool fx_qdw_row_s1_q_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t dh,
                               const fx_qepi *e, int64_t m, uint8_t *yb, int64_t n) {
    int32_t pr[FX_QDW_PAIRS];
    if (e->res || e->fixed || !dw_pairs(k, kh, kw, pr)) return false;
    if (kh == 3 && kw == 3)
        dw_s1_q(xp, pitch, pr, 3, 3, dh, e, m, yb, n);
    else
        dw_s1_q(xp, pitch, pr, kh, kw, dh, e, m, yb, n);
    return true;
}

/* Stride 2, dilation 1: taps kx and kx + 1 of output o read the adjacent
 * inputs 2o + kx and 2o + kx + 1, so 16 loaded values are 8 ready pairs. */
AVX2 static inline __attribute__((always_inline)) void dw_s2(const int16_t *xp, int64_t pitch, const int32_t *pr,
                                                             int64_t kh, int64_t kw, int64_t dh, int32_t *acc,
                                                             int64_t ow) {
    int64_t kp = (kw + 1) / 2;
    __m256i wv[FX_QDW_PAIRS];
    broadcast_pairs(pr, kh * kp, wv);
    for (int64_t ox = 0; ox < ow; ox += 8) {
        __m256i s = _mm256_setzero_si256();
        for (int64_t ky = 0; ky < kh; ky++) {
            const int16_t *row = xp + ky * dh * pitch + 2 * ox;
            for (int64_t kx = 0; kx < kw; kx += 2)
                s = _mm256_add_epi32(
                    s, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(row + kx)), wv[ky * kp + kx / 2]));
        }
        _mm256_storeu_si256((__m256i *)(acc + ox), s);
    }
}

/* dw_s1 on 512-bit registers (AVX-512BW): 32 outputs per step. vpunpck
 * works within 128-bit lanes, so lo holds the sums of outputs 0-3, 8-11,
 * 16-19, 24-27 and hi the others; two two-source permutes put them back in
 * order. Same int32 sums as dw_s1. */
#define AVX512BW __attribute__((target("avx512f,avx512bw,avx2")))
AVX512BW static inline __attribute__((always_inline)) void dw_s1_512(const int16_t *xp, int64_t pitch,
                                                                     const int32_t *pr, int64_t kh, int64_t kw,
                                                                     int64_t dh, int32_t *acc, int64_t ow) {
    int64_t kp = (kw + 1) / 2;
    __m512i wv[FX_QDW_PAIRS];
    for (int64_t i = 0; i < kh * kp; i++)
        wv[i] = _mm512_set1_epi32(pr[i]);
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
                  second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    for (int64_t ox = 0; ox < ow; ox += 32) {
        __m512i lo = _mm512_setzero_si512(), hi = lo;
        for (int64_t ky = 0; ky < kh; ky++) {
            const int16_t *row = xp + ky * dh * pitch + ox;
            for (int64_t kx = 0; kx < kw; kx += 2) {
                __m512i w = wv[ky * kp + kx / 2];
                __m512i xa = _mm512_loadu_si512((const void *)(row + kx));
                __m512i xb = _mm512_loadu_si512((const void *)(row + kx + 1));
                lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(xa, xb), w));
                hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(xa, xb), w));
            }
        }
        _mm512_storeu_si512((void *)(acc + ox), _mm512_permutex2var_epi64(lo, first, hi));
        _mm512_storeu_si512((void *)(acc + ox + 16), _mm512_permutex2var_epi64(lo, second, hi));
    }
}

AVX512BW void fx_qdw_row_s1_avx512(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw,
                                   int64_t dh, int32_t *acc, int64_t ow) {
    int32_t pr[FX_QDW_PAIRS];
    if (!dw_pairs(k, kh, kw, pr)) {
        fx_qdw_row_avx2(xp, pitch, k, kh, kw, 1, dh, 1, acc, ow);
        return;
    }
    if (kh == 3 && kw == 3)
        dw_s1_512(xp, pitch, pr, 3, 3, dh, acc, ow);
    else
        dw_s1_512(xp, pitch, pr, kh, kw, dh, acc, ow);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) void
fx_qdw_pad_plane_avx512(const uint8_t *plane, int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t dph, int64_t dpw,
                        int16_t zp, uint8_t flip, int16_t *xp) {
    int64_t lo = pw < dpw ? pw : dpw, hi = pw + w < dpw ? pw + w : dpw;
    const __m256i vf = _mm256_set1_epi8((char)flip);
    const __m512i vz = _mm512_set1_epi16(zp), zero = _mm512_setzero_si512();
    for (int64_t py = 0; py < dph; py++) {
        int16_t *d = xp + py * dpw;
        int64_t iy = py - ph;
        /* the row's pads (all of it outside the image), then its values */
        for (int64_t px = 0; px < dpw; px += 32) {
            int64_t n = dpw - px < 32 ? dpw - px : 32;
            _mm512_mask_storeu_epi16(d + px, (__mmask32)(n == 32 ? ~0u : (1u << n) - 1), zero);
        }
        if (iy < 0 || iy >= h) continue;
        const uint8_t *s = plane + iy * w - pw;
        for (int64_t px = lo; px < hi; px += 32) {
            int64_t n = hi - px < 32 ? hi - px : 32;
            __mmask32 m = (__mmask32)(n == 32 ? ~0u : (1u << n) - 1);
            __m256i b = _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, s + px), vf);
            _mm512_mask_storeu_epi16(d + px, m, _mm512_sub_epi16(_mm512_cvtepu8_epi16(b), vz));
        }
    }
}

AVX2 void fx_qdw_row_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t sw,
                          int64_t dh, int64_t dw, int32_t *acc, int64_t ow) {
    int32_t pr[FX_QDW_PAIRS];
    if (dw == 1 && (sw == 1 || sw == 2) && dw_pairs(k, kh, kw, pr)) {
        bool k3 = kh == 3 && kw == 3;
        if (sw == 1 && k3)
            dw_s1(xp, pitch, pr, 3, 3, dh, acc, ow);
        else if (sw == 1)
            dw_s1(xp, pitch, pr, kh, kw, dh, acc, ow);
        else if (k3)
            dw_s2(xp, pitch, pr, 3, 3, dh, acc, ow);
        else
            dw_s2(xp, pitch, pr, kh, kw, dh, acc, ow);
        return;
    }
    int64_t ox = 0;
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)sw));
    for (; ox < ow; ox += 8) {
        __m256i s = _mm256_setzero_si256();
        for (int64_t ky = 0; ky < kh; ky++)
            for (int64_t kx = 0; kx < kw; kx++) {
                const int16_t *src = xp + ky * dh * pitch + kx * dw + ox * sw;
                __m256i x;
                if (sw == 1)
                    x = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)src));
                else {
                    /* gather 32-bit words at 2-byte steps; keep the low half */
                    __m256i g = _mm256_i32gather_epi32((const int *)(const void *)src, idx, 2);
                    x = _mm256_srai_epi32(_mm256_slli_epi32(g, 16), 16);
                }
                s = _mm256_add_epi32(s, _mm256_mullo_epi32(x, _mm256_set1_epi32(k[ky * kw + kx])));
            }
        _mm256_storeu_si256((__m256i *)(acc + ox), s);
    }
}

/* fx_qepi_row_c's fixed-point path (TFLite's MultiplyByQuantizedMultiplier,
 * nnfx_rt_qfixed.h) on 8 values at a time, the same bytes: the two 32x32
 * products of each 64-bit lane (vpmuldq on even and odd lanes), TFLite's
 * rounding doubling high multiply, and the rounding division by 2^rs as
 * the scalar's (floor by vpsrad, + 1 past the threshold). The high multiply
 * adds the nudge (2^30, or 1 - 2^30 below zero) and divides by 2^31 toward
 * zero; below zero that is floor((p + 1 - 2^30 + 2^31 - 1) / 2^31), so in
 * both cases floor((p + 2^30) / 2^31): one add and a shift whose low 32
 * bits equal the arithmetic shift's (|p| < 2^62). The multiplier is never
 * INT32_MIN (it lies in [2^30, 2^31) or is 0), so the saturating case
 * cannot occur. */
AVX2 static inline __m256i srdhm_even(__m256i p) {
    return _mm256_srli_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x((int64_t)1 << 30)), 31);
}

AVX2 void fx_qepi_row_fixed_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, void *y) {
    const int32_t b = comp + e->fb[m], qm = e->fm[m];
    const int sh = (int)e->fs[m], ls = sh > 0 ? sh : 0, rs = sh > 0 ? 0 : -sh;
    const __m256i vb = _mm256_set1_epi32(b), vq = _mm256_set1_epi32(qm);
    const __m256i mask = _mm256_set1_epi32((int32_t)(((int64_t)1 << rs) - 1));
    const __m256i half = _mm256_set1_epi32((int32_t)((((int64_t)1 << rs) - 1) >> 1));
    const __m128i cls = _mm_cvtsi32_si128(ls), crs = _mm_cvtsi32_si128(rs);
    const __m256i vzp = _mm256_set1_epi32(e->y_zp), vlo = _mm256_set1_epi32(e->lo), vhi = _mm256_set1_epi32(e->hi);
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(acc + j)), vb);
        x = _mm256_sll_epi32(x, cls);
        __m256i pe = srdhm_even(_mm256_mul_epi32(x, vq));
        __m256i po = srdhm_even(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), vq));
        __m256i r = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
        __m256i rem = _mm256_and_si256(r, mask);
        __m256i thr = _mm256_add_epi32(half, _mm256_srli_epi32(r, 31));
        r = _mm256_sub_epi32(_mm256_sra_epi32(r, crs), _mm256_cmpgt_epi32(rem, thr));
        r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, vzp), vlo), vhi);
        /* within [lo, hi] of the output type: the packs keep the values */
        __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64((__m128i *)((uint8_t *)y + j),
                         e->y_signed ? _mm_packs_epi16(w16, w16) : _mm_packus_epi16(w16, w16));
    }
    if (j < n) fx_qepi_row_c(e, m, comp, acc + j, n - j, NULL, (uint8_t *)y + j, 1);
}

#else
void fx_qtile_avx2_ubs(int64_t ks, const int8_t *a, const uint8_t *b, int np, const int32_t *fs, const fx_qfix *fix,
                       int32_t *acc) {
    (void)fs, (void)fix;
    fx_qtile_c(ks, a, b, np, acc);
}
void fx_qtile_avx2_madd(int64_t ks, const int16_t *a16, const uint8_t *b, int np, int32_t *acc) {
    (void)a16;
    (void)ks, (void)b, (void)np, (void)acc;
}
void fx_qepi_row_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                      void *y) {
    fx_qepi_row_c(e, m, comp, acc, n, res, y, 1);
}
void fx_qepi_row_fixed_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, void *y) {
    fx_qepi_row_c(e, m, comp, acc, n, NULL, y, 1);
}
void fx_qtile_avx2_q(bool ubs, int64_t ks, const void *a, const uint8_t *b, int np, const int32_t *fs,
                     const fx_qfix *fix, const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols,
                     const void *res, void *y, int64_t ym) {
    (void)ubs, (void)ks, (void)a, (void)b, (void)np, (void)fs, (void)fix, (void)e, (void)m, (void)comp, (void)rows,
        (void)cols, (void)res, (void)y, (void)ym;
}
void fx_qdw_row_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t sw, int64_t dh,
                     int64_t dw, int32_t *acc, int64_t ow) {
    fx_qdw_row_c(xp, pitch, k, kh, kw, sw, dh, dw, acc, ow);
}
void fx_qdw_row_s1_avx512(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t dh,
                          int32_t *acc, int64_t ow) {
    fx_qdw_row_c(xp, pitch, k, kh, kw, 1, dh, 1, acc, ow);
}
void fx_qdw_pad_plane_avx512(const uint8_t *plane, int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t dph,
                             int64_t dpw, int16_t zp, uint8_t flip, int16_t *xp) {
    (void)plane, (void)h, (void)w, (void)ph, (void)pw, (void)dph, (void)dpw, (void)zp, (void)flip, (void)xp;
}
bool fx_qdw_row_s1_q_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t dh,
                          const fx_qepi *e, int64_t m, uint8_t *yb, int64_t n) {
    (void)xp, (void)pitch, (void)k, (void)kh, (void)kw, (void)dh, (void)e, (void)m, (void)yb, (void)n;
    return false;
}
#endif
