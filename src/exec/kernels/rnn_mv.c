/* rnn_mv.c — y = A x for the recurrence of an RNN step (see rnn_mv.h).
 *
 * A is read as it is stored (row-major, no packing, so nothing is cached
 * between runs): a block of rows (16 with AVX-512, 8 with AVX2) is
 * accumulated as one vector per row over the columns, four rows at a time
 * (each x vector loaded once for four rows), then the block's vectors are
 * summed across lanes together by a transpose-and-add tree (one vector of
 * block sums, no horizontal sum per row). The tail of the columns is a
 * masked load (zeros beyond), the tail of the rows repeats the last row
 * and stores only the rows that exist. */
#include "exec/kernels/rnn_mv.h"

#include <string.h>

#include "core/core_int.h"

static void mv_portable(const float *A, int64_t rows, int64_t cols, const float *x, float *y) {
    for (int64_t j = 0; j < rows; j++) {
        const float *a = A + j * cols;
        float s = 0.0f;
        for (int64_t k = 0; k < cols; k++)
            s += a[k] * x[k];
        y[j] = s;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#include "exec/kernels/act_x86_vec.h"

/* AVX-512 with FMA on 256-bit vectors too (the gates' sig16 / tanh16) */
#define MV_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))

/* Lane r of the result is the sum of the sixteen lanes of a[r]. */
MV_AVX512 static inline CORE_ALWAYS_INLINE __m512 sum16x16(const __m512 *a) {
    __m512 b[8], c[4], d[2];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) /* b[i], each 128-bit lane: rows 2i, 2i+1, 2i, 2i+1 */
        b[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]), _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) { /* c[i], each 128-bit lane: rows 4i .. 4i + 3 */
        __m512d u = _mm512_castps_pd(b[2 * i]), v = _mm512_castps_pd(b[2 * i + 1]);
        c[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(u, v)), _mm512_castpd_ps(_mm512_unpackhi_pd(u, v)));
    }
#pragma GCC unroll 2
    for (int i = 0; i < 2; i++) /* d[i]: c[2i]'s lanes 0+1, 2+3, then c[2i+1]'s */
        d[i] = _mm512_add_ps(_mm512_shuffle_f32x4(c[2 * i], c[2 * i + 1], 0x88),
                             _mm512_shuffle_f32x4(c[2 * i], c[2 * i + 1], 0xDD));
    return _mm512_add_ps(_mm512_shuffle_f32x4(d[0], d[1], 0x88), _mm512_shuffle_f32x4(d[0], d[1], 0xDD));
}

/* The rows p[0..7] (at most nr of them from p's first row, the last one
 * repeated beyond) times x over kf columns (a multiple of 16) and the masked
 * tail km: one vector of partial sums per row into acc[0..7]. */
MV_AVX512 static inline CORE_ALWAYS_INLINE void rows8_avx512(const float *A, int64_t first, int64_t nr, int64_t cols,
                                                             int64_t kf, __mmask16 km, const float *x, __m512 *acc) {
    const float *p[8];
    for (int r = 0; r < 8; r++)
        p[r] = A + (first + (r < nr ? r : nr - 1)) * cols;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int64_t k = 0; k < kf; k += 16) {
        __m512 xv = _mm512_loadu_ps(x + k);
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(p[0] + k), xv, a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(p[1] + k), xv, a1);
        a2 = _mm512_fmadd_ps(_mm512_loadu_ps(p[2] + k), xv, a2);
        a3 = _mm512_fmadd_ps(_mm512_loadu_ps(p[3] + k), xv, a3);
        a4 = _mm512_fmadd_ps(_mm512_loadu_ps(p[4] + k), xv, a4);
        a5 = _mm512_fmadd_ps(_mm512_loadu_ps(p[5] + k), xv, a5);
        a6 = _mm512_fmadd_ps(_mm512_loadu_ps(p[6] + k), xv, a6);
        a7 = _mm512_fmadd_ps(_mm512_loadu_ps(p[7] + k), xv, a7);
    }
    if (km) {
        __m512 xv = _mm512_maskz_loadu_ps(km, x + kf);
        a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[0] + kf), xv, a0);
        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[1] + kf), xv, a1);
        a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[2] + kf), xv, a2);
        a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[3] + kf), xv, a3);
        a4 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[4] + kf), xv, a4);
        a5 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[5] + kf), xv, a5);
        a6 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[6] + kf), xv, a6);
        a7 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(km, p[7] + kf), xv, a7);
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
}

/* Lane r: the sum over the columns of row first + r of A times x, for r
 * < nr (nr <= 16; the lanes beyond repeat the last row). */
MV_AVX512 static inline CORE_ALWAYS_INLINE __m512 rows16_avx512(const float *A, int64_t first, int64_t nr, int64_t cols,
                                                                int64_t kf, __mmask16 km, const float *x) {
    __m512 acc[16];
    rows8_avx512(A, first, nr, cols, kf, km, x, acc);
    rows8_avx512(A, first + (nr > 8 ? 8 : nr - 1), nr > 8 ? nr - 8 : 1, cols, kf, km, x, acc + 8);
    return sum16x16(acc);
}

MV_AVX512 static void mv_avx512(const float *A, int64_t rows, int64_t cols, const float *x, float *y) {
    const int64_t kf = cols & ~(int64_t)15;
    const __mmask16 km = (__mmask16)((1u << (cols - kf)) - 1);
    for (int64_t j0 = 0; j0 < rows; j0 += 16) {
        const int64_t nr = rows - j0 < 16 ? rows - j0 : 16;
        _mm512_mask_storeu_ps(y + j0, (__mmask16)((1u << nr) - 1), rows16_avx512(A, j0, nr, cols, kf, km, x));
    }
}

/* fx_lstm_cell on sixteen hidden units at a time: the four gates' rows of
 * the block, then the gate math in registers. */
MV_AVX512 static void lstm_cell_avx512(const float *R, int64_t Hd, const float *h, const float *g, float *c,
                                       float *ho) {
    const int64_t kf = Hd & ~(int64_t)15;
    const __mmask16 km = (__mmask16)((1u << (Hd - kf)) - 1);
    for (int64_t j0 = 0; j0 < Hd; j0 += 16) {
        const int64_t nr = Hd - j0 < 16 ? Hd - j0 : 16;
        const __mmask16 m = (__mmask16)((1u << nr) - 1);
        __m512 s[4];
        for (int q = 0; q < 4; q++)
            s[q] = _mm512_add_ps(rows16_avx512(R, q * Hd + j0, nr, Hd, kf, km, h),
                                 _mm512_maskz_loadu_ps(m, g + q * Hd + j0));
        __m512 i = sig16(s[0], false), o = sig16(s[1], false), f = sig16(s[2], false), ct = tanh16(s[3]);
        __m512 cv = _mm512_add_ps(_mm512_mul_ps(f, _mm512_maskz_loadu_ps(m, c + j0)), _mm512_mul_ps(i, ct));
        _mm512_mask_storeu_ps(c + j0, m, cv);
        _mm512_mask_storeu_ps(ho + j0, m, _mm512_mul_ps(o, tanh16(cv)));
    }
}

/* fx_gru_cell on sixteen hidden units at a time. */
MV_AVX512 static void gru_cell_avx512(const float *R, int64_t Hd, const float *h, const float *g, const float *rbh,
                                      float *ho) {
    const int64_t kf = Hd & ~(int64_t)15;
    const __mmask16 km = (__mmask16)((1u << (Hd - kf)) - 1);
    for (int64_t j0 = 0; j0 < Hd; j0 += 16) {
        const int64_t nr = Hd - j0 < 16 ? Hd - j0 : 16;
        const __mmask16 m = (__mmask16)((1u << nr) - 1);
        __m512 z =
            sig16(_mm512_add_ps(rows16_avx512(R, j0, nr, Hd, kf, km, h), _mm512_maskz_loadu_ps(m, g + j0)), false);
        __m512 r = sig16(
            _mm512_add_ps(rows16_avx512(R, Hd + j0, nr, Hd, kf, km, h), _mm512_maskz_loadu_ps(m, g + Hd + j0)), false);
        __m512 qh = _mm512_add_ps(rows16_avx512(R, 2 * Hd + j0, nr, Hd, kf, km, h),
                                  rbh ? _mm512_maskz_loadu_ps(m, rbh + j0) : _mm512_setzero_ps());
        __m512 hh = tanh16(_mm512_add_ps(_mm512_maskz_loadu_ps(m, g + 2 * Hd + j0), _mm512_mul_ps(r, qh)));
        __m512 mix = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_set1_ps(1.0f), z), hh),
                                   _mm512_mul_ps(z, _mm512_maskz_loadu_ps(m, h + j0)));
        _mm512_mask_storeu_ps(ho + j0, m, mix);
    }
}

/* Lane r of the result is the sum of the eight lanes of a[r]. */
__attribute__((target("avx2,fma"))) static inline __m256 sum8x8(const __m256 *a) {
    __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
    __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
    __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3); /* each 128-bit lane: rows 0-3, 4-7 */
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

static const int32_t ones_then_zeros[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

/* Lane r: the sum over the columns of row first + r of A times x, for r
 * < nr (nr <= 8; the lanes beyond repeat the last row); kf the columns in
 * whole vectors, km the mask of the rest. */
__attribute__((target("avx2,fma"))) static inline CORE_ALWAYS_INLINE __m256 rows8_avx2(const float *A, int64_t first,
                                                                                       int64_t nr, int64_t cols,
                                                                                       int64_t kf, __m256i km,
                                                                                       const float *x) {
    __m256 acc[8];
    for (int g = 0; g < 8; g += 4) {
        const float *p0 = A + (first + (g < nr ? g : nr - 1)) * cols;
        const float *p1 = A + (first + (g + 1 < nr ? g + 1 : nr - 1)) * cols;
        const float *p2 = A + (first + (g + 2 < nr ? g + 2 : nr - 1)) * cols;
        const float *p3 = A + (first + (g + 3 < nr ? g + 3 : nr - 1)) * cols;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t k = 0; k < kf; k += 8) {
            __m256 xv = _mm256_loadu_ps(x + k);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p0 + k), xv, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(p1 + k), xv, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(p2 + k), xv, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(p3 + k), xv, a3);
        }
        if (kf < cols) {
            __m256 xv = _mm256_maskload_ps(x + kf, km);
            a0 = _mm256_fmadd_ps(_mm256_maskload_ps(p0 + kf, km), xv, a0);
            a1 = _mm256_fmadd_ps(_mm256_maskload_ps(p1 + kf, km), xv, a1);
            a2 = _mm256_fmadd_ps(_mm256_maskload_ps(p2 + kf, km), xv, a2);
            a3 = _mm256_fmadd_ps(_mm256_maskload_ps(p3 + kf, km), xv, a3);
        }
        acc[g] = a0, acc[g + 1] = a1, acc[g + 2] = a2, acc[g + 3] = a3;
    }
    return sum8x8(acc);
}

__attribute__((target("avx2,fma"))) static void mv_avx2(const float *A, int64_t rows, int64_t cols, const float *x,
                                                        float *y) {
    const int64_t kf = cols & ~(int64_t)7;
    const __m256i km = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - (cols - kf)));
    for (int64_t j0 = 0; j0 < rows; j0 += 8) {
        const int64_t nr = rows - j0 < 8 ? rows - j0 : 8;
        __m256 s = rows8_avx2(A, j0, nr, cols, kf, km, x);
        if (nr == 8) {
            _mm256_storeu_ps(y + j0, s);
        } else {
            float t[8];
            _mm256_storeu_ps(t, s);
            memcpy(y + j0, t, sizeof(float) * (size_t)nr);
        }
    }
}

/* fx_lstm_cell on eight hidden units at a time (lstm_cell_avx512's steps). */
__attribute__((target("avx2,fma"))) static void lstm_cell_avx2(const float *R, int64_t Hd, const float *h,
                                                               const float *g, float *c, float *ho) {
    const int64_t kf = Hd & ~(int64_t)7;
    const __m256i km = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - (Hd - kf)));
    for (int64_t j0 = 0; j0 < Hd; j0 += 8) {
        const int64_t nr = Hd - j0 < 8 ? Hd - j0 : 8;
        const __m256i m = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - nr));
        __m256 s[4];
        for (int q = 0; q < 4; q++)
            s[q] = _mm256_add_ps(rows8_avx2(R, q * Hd + j0, nr, Hd, kf, km, h), _mm256_maskload_ps(g + q * Hd + j0, m));
        __m256 i = sig8(s[0], false), o = sig8(s[1], false), f = sig8(s[2], false), ct = tanh8(s[3]);
        __m256 cv = _mm256_add_ps(_mm256_mul_ps(f, _mm256_maskload_ps(c + j0, m)), _mm256_mul_ps(i, ct));
        _mm256_maskstore_ps(c + j0, m, cv);
        _mm256_maskstore_ps(ho + j0, m, _mm256_mul_ps(o, tanh8(cv)));
    }
}

fx_mv_isa fx_mv_best(void) {
    return core_cpu_avx512f() ? FX_MV_AVX512 : core_cpu_avx2_fma() ? FX_MV_AVX2 : FX_MV_PORTABLE;
}

void fx_matvec(fx_mv_isa isa, const float *A, int64_t rows, int64_t cols, const float *x, float *y) {
    if (isa == FX_MV_AVX512)
        mv_avx512(A, rows, cols, x, y);
    else if (isa == FX_MV_AVX2)
        mv_avx2(A, rows, cols, x, y);
    else
        mv_portable(A, rows, cols, x, y);
}
/* fx_gru_cell on eight hidden units at a time (gru_cell_avx512's steps). */
__attribute__((target("avx2,fma"))) static void gru_cell_avx2(const float *R, int64_t Hd, const float *h,
                                                              const float *g, const float *rbh, float *ho) {
    const int64_t kf = Hd & ~(int64_t)7;
    const __m256i km = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - (Hd - kf)));
    for (int64_t j0 = 0; j0 < Hd; j0 += 8) {
        const int64_t nr = Hd - j0 < 8 ? Hd - j0 : 8;
        const __m256i m = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - nr));
        __m256 z = sig8(_mm256_add_ps(rows8_avx2(R, j0, nr, Hd, kf, km, h), _mm256_maskload_ps(g + j0, m)), false);
        __m256 r =
            sig8(_mm256_add_ps(rows8_avx2(R, Hd + j0, nr, Hd, kf, km, h), _mm256_maskload_ps(g + Hd + j0, m)), false);
        __m256 qh = _mm256_add_ps(rows8_avx2(R, 2 * Hd + j0, nr, Hd, kf, km, h),
                                  rbh ? _mm256_maskload_ps(rbh + j0, m) : _mm256_setzero_ps());
        __m256 hh = tanh8(_mm256_add_ps(_mm256_maskload_ps(g + 2 * Hd + j0, m), _mm256_mul_ps(r, qh)));
        __m256 mix = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), z), hh),
                                   _mm256_mul_ps(z, _mm256_maskload_ps(h + j0, m)));
        _mm256_maskstore_ps(ho + j0, m, mix);
    }
}

bool fx_gru_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, const float *rbh,
                 float *ho) {
    if (isa == FX_MV_AVX512)
        gru_cell_avx512(R, Hd, h, g, rbh, ho);
    else if (isa == FX_MV_AVX2)
        gru_cell_avx2(R, Hd, h, g, rbh, ho);
    else
        return false;
    return true;
}

bool fx_lstm_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, float *c, float *ho) {
    if (isa == FX_MV_AVX512)
        lstm_cell_avx512(R, Hd, h, g, c, ho);
    else if (isa == FX_MV_AVX2)
        lstm_cell_avx2(R, Hd, h, g, c, ho);
    else
        return false;
    return true;
}
#else
fx_mv_isa fx_mv_best(void) { return FX_MV_PORTABLE; }

bool fx_lstm_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, float *c, float *ho) {
    (void)isa, (void)R, (void)Hd, (void)h, (void)g, (void)c, (void)ho;
    return false;
}

bool fx_gru_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, const float *rbh,
                 float *ho) {
    (void)isa, (void)R, (void)Hd, (void)h, (void)g, (void)rbh, (void)ho;
    return false;
}

void fx_matvec(fx_mv_isa isa, const float *A, int64_t rows, int64_t cols, const float *x, float *y) {
    (void)isa;
    mv_portable(A, rows, cols, x, y);
}
#endif
