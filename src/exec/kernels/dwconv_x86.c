/* dwconv_x86.c — vector rows of the direct depthwise convolution (see
 * dwconv_x86.h): eight outputs per step, the K*K taps broadcast once per
 * row, stride 2 by loading sixteen inputs and keeping the even or odd ones.
 * The end of a row takes masked steps (loads never pass the row), so every
 * output sums the same taps in the same order. */
#include "exec/kernels/dwconv_x86.h"

#include <pthread.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

static bool g_avx2;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void probe(void) {
    __builtin_cpu_init();
    g_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

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

/* Eight outputs from ox (n < 8 of them, masked, at the end of a row). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 step(int K, int s, const float *const *rr,
                                                                             const __m256 *kv, int64_t ox, int64_t n) {
    __m256 acc = _mm256_setzero_ps();
    __m256i all = _mm256_set1_epi32(-1);
    for (int ky = 0; ky < K; ky++) {
        const float *p = rr[ky] + ox * s;
        for (int kx = 0; kx < K; kx++) {
            __m256 v;
            if (s == 1)
                v = n == 8 ? _mm256_loadu_ps(p + kx) : _mm256_maskload_ps(p + kx, lanes(n));
            else if (n == 8)
                v = half16(p + (kx & ~1), kx & 1, all, all);
            else /* elements e <= 2 (n - 1) + (kx & 1) of the sixteen */
                v = half16(p + (kx & ~1), kx & 1, lanes(2 * n - 1 + (kx & 1)), lanes(2 * n - 9 + (kx & 1)));
            acc = _mm256_fmadd_ps(kv[ky * K + kx], v, acc);
        }
    }
    return acc;
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
row_avx2(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow) {
    __m256 kv[25];
    const float *rr[5];
    for (int t = 0; t < K * K; t++)
        kv[t] = _mm256_broadcast_ss(k + t);
    for (int ky = 0; ky < K; ky++)
        rr[ky] = r[ky];
    int64_t ox = 0;
    /* a full step reads rr[ky][ox*s .. ox*s + span) */
    int64_t span = s == 1 ? 8 + K - 1 : 16 + K - 1;
    for (; ox + 8 <= ow && ox * s + span <= wp; ox += 8)
        _mm256_storeu_ps(y + ox, step(K, s, rr, kv, ox, 8));
    while (ox < ow) { /* at most two masked steps */
        int64_t n = ow - ox < 8 ? ow - ox : 8;
        if (n == 8 && ox * s + span > wp) n = 7;
        _mm256_maskstore_ps(y + ox, lanes(n), step(K, s, rr, kv, ox, n));
        ox += n;
    }
}

/* the four shapes with constant K and s, so the tap loops unroll */
#define FX_DW_SHAPE(K, S)                                                                                              \
    __attribute__((target("avx2,fma"))) static void row_##K##_##S(const float *const *r, int64_t wp, const float *k,   \
                                                                  float *y, int64_t ow) {                              \
        row_avx2(K, S, r, wp, k, y, ow);                                                                               \
    }
FX_DW_SHAPE(3, 1)
FX_DW_SHAPE(3, 2)
FX_DW_SHAPE(5, 1)
FX_DW_SHAPE(5, 2)

bool fx_dw_row(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow) {
    pthread_once(&g_once, probe);
    if (!g_avx2) return false;
    if (K == 3 && s == 1)
        row_3_1(r, wp, k, y, ow);
    else if (K == 3 && s == 2)
        row_3_2(r, wp, k, y, ow);
    else if (K == 5 && s == 1)
        row_5_1(r, wp, k, y, ow);
    else if (K == 5 && s == 2)
        row_5_2(r, wp, k, y, ow);
    else
        return false;
    return true;
}
#else
bool fx_dw_row(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow) {
    (void)K, (void)s, (void)r, (void)wp, (void)k, (void)y, (void)ow;
    return false;
}
#endif
