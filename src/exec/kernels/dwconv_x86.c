/* dwconv_x86.c — vector rows of the direct depthwise convolution (see
 * dwconv_x86.h): eight outputs per step, the K*K taps broadcast once per
 * row, stride 2 by loading sixteen inputs and keeping the even or odd ones.
 * The end of a row repeats the last eight outputs with masked loads (loads
 * never pass the row; a row shorter than eight takes one masked step), so
 * every output sums the same taps in the same order: each tap column kx
 * down its own chain (so the K chains of FMAs overlap instead of waiting
 * on each other), then the column sums in kx order. */
#include "exec/kernels/dwconv_x86.h"

#include <string.h>

#include "core/core_int.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* Even (odd = false) or odd floats of p[0 .. 16) as one vector; only the
 * elements e with mask lane e set (m0: 0..7, m1: 8..15) are read. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 half16(const float *p, bool odd, __m256i m0,
                                                                               __m256i m1) {
    __m256 a = _mm256_maskload_ps(p, m0), b = _mm256_maskload_ps(p + 8, m1);
    __m256 s = odd ? _mm256_shuffle_ps(a, b, 0xDD) : _mm256_shuffle_ps(a, b, 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xD8));
}

/* lanes i < n set */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256i lanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* lanes lo <= i < hi set (lo, hi clamped to [-1, 9] first) */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256i range(int64_t lo, int64_t hi) {
    lo = lo < -1 ? -1 : lo > 9 ? 9 : lo;
    hi = hi < -1 ? -1 : hi > 9 ? 9 : hi;
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)hi), idx),
                            _mm256_cmpgt_epi32(idx, _mm256_set1_epi32((int)lo - 1)));
}

/* Eight outputs from ox, the first n valid (n < 8 at the end of a row).
 * full: every load lies inside the row. Else each load reads only the
 * columns in [0, w) of the taps of outputs ox .. ox + n - 1 (the others
 * count as zero), so the address may lie before the row; nothing outside
 * is touched. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
step(int K, int s, const float *const *rr, const __m256 *kv, int64_t w, int64_t pw, int64_t ox, int64_t n, bool full) {
    __m256 acc[5]; /* one chain per tap column, so K FMA chains overlap */
    __m256i all = _mm256_set1_epi32(-1);
    for (int kx = 0; kx < K; kx++) {
        acc[kx] = _mm256_setzero_ps();
        int64_t c0 = ox * s - pw + (s == 1 ? kx : (kx & ~1)); /* column of element 0 */
        __m256i m0 = all, m1 = all;
        if (!full) {
            int64_t end = s == 1 ? n : 2 * n - 1 + (kx & 1); /* elements read < end */
            if (w - c0 < end) end = w - c0;
            m0 = range(-c0, end);
            m1 = range(-c0 - 8, end - 8);
        }
        for (int ky = 0; ky < K; ky++) {
            const float *p = rr[ky] + c0;
            __m256 v;
            if (s == 1)
                v = full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m0);
            else
                v = half16(p, kx & 1, m0, m1);
            acc[kx] = _mm256_fmadd_ps(kv[ky * K + kx], v, acc[kx]);
        }
    }
    for (int kx = 1; kx < K; kx++)
        acc[0] = _mm256_add_ps(acc[0], acc[kx]);
    return acc[0];
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
row_avx2(int K, int s, const float *const *r, int64_t w, int64_t pw, const float *k, float *y, int64_t ow) {
    __m256 kv[25];
    const float *rr[5];
    for (int t = 0; t < K * K; t++)
        kv[t] = _mm256_broadcast_ss(k + t);
    for (int ky = 0; ky < K; ky++)
        rr[ky] = r[ky];
    if (ow < 8) {
        _mm256_maskstore_ps(y, lanes(ow), step(K, s, rr, kv, w, pw, 0, ow, false));
        return;
    }
    /* a full step at ox reads columns [ox*s - pw, ox*s - pw + span) */
    int64_t span = s == 1 ? 8 + K - 1 : 16 + K - 1;
    int64_t ox = 0;
    if (pw > 0) {
        _mm256_storeu_ps(y, step(K, s, rr, kv, w, pw, 0, 8, false));
        ox = 8;
    }
    for (; ox + 8 <= ow && ox * s >= pw && ox * s - pw + span <= w; ox += 8)
        _mm256_storeu_ps(y + ox, step(K, s, rr, kv, w, pw, ox, 8, true));
    for (; ox < ow; ox += 8) { /* the rest, the last eight overlapping */
        int64_t o = ox + 8 <= ow ? ox : ow - 8;
        _mm256_storeu_ps(y + o, step(K, s, rr, kv, w, pw, o, 8, false));
    }
}

/* the four shapes with constant K and s, so the tap loops unroll */
#define FX_DW_SHAPE(K, S)                                                                                              \
    __attribute__((target("avx2,fma"))) static void row_##K##_##S(const float *const *r, int64_t w, int64_t pw,        \
                                                                  const float *k, float *y, int64_t ow) {              \
        row_avx2(K, S, r, w, pw, k, y, ow);                                                                            \
    }
FX_DW_SHAPE(3, 1)
FX_DW_SHAPE(3, 2)
FX_DW_SHAPE(5, 1)
FX_DW_SHAPE(5, 2)

bool fx_dw_row(int K, int s, const float *const *r, int64_t w, int64_t pw, const float *k, float *y, int64_t ow) {
    if (!core_cpu_avx2_fma()) return false;
    if (K == 3 && s == 1)
        row_3_1(r, w, pw, k, y, ow);
    else if (K == 3 && s == 2)
        row_3_2(r, w, pw, k, y, ow);
    else if (K == 5 && s == 1)
        row_5_1(r, w, pw, k, y, ow);
    else if (K == 5 && s == 2)
        row_5_2(r, w, pw, k, y, ow);
    else
        return false;
    return true;
}
#else
bool fx_dw_row(int K, int s, const float *const *r, int64_t w, int64_t pw, const float *k, float *y, int64_t ow) {
    (void)K, (void)s, (void)r, (void)w, (void)pw, (void)k, (void)y, (void)ow;
    return false;
}
#endif
