/* dwconv_x86.c — vector rows of the direct depthwise convolution (see
 * dwconv_x86.h): eight outputs per step, the K*K taps held in registers,
 * stride 2 by loading sixteen inputs and keeping the even or odd ones. The
 * tail of a row runs the same taps in the same order, one output at a time
 * with fused multiply-adds, so every output is computed the same way. */
#include "exec/kernels/dwconv_x86.h"

#include <math.h>
#include <pthread.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

static bool g_avx2;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void probe(void) {
    __builtin_cpu_init();
    g_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Even (odd = false) or odd floats of p[0 .. 16) as one vector. */
__attribute__((target("avx2,fma"))) static inline __m256 half16(const float *p, bool odd) {
    __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    __m256 s = odd ? _mm256_shuffle_ps(a, b, 0xDD) : _mm256_shuffle_ps(a, b, 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xD8));
}

__attribute__((target("avx2,fma"), always_inline)) static inline void row_avx2(int K, int s, const float *const *r, int64_t wp,
                                                         const float *k, float *y, int64_t ow) {
    __m256 kv[25];
    for (int t = 0; t < K * K; t++) kv[t] = _mm256_broadcast_ss(k + t);
    int64_t ox = 0;
    /* a step reads r[ky][ox*s + kx .. + 8*s) for s == 1, up to + 16 for s == 2 */
    int64_t span = s == 1 ? 8 + K - 1 : 16 + K - 1;
    for (; ox + 8 <= ow && ox * s + span <= wp; ox += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int ky = 0; ky < K; ky++) {
            const float *p = r[ky] + ox * s;
            if (s == 1)
                for (int kx = 0; kx < K; kx++) acc = _mm256_fmadd_ps(kv[ky * K + kx], _mm256_loadu_ps(p + kx), acc);
            else
                for (int kx = 0; kx < K; kx++)
                    acc = _mm256_fmadd_ps(kv[ky * K + kx], half16(p + (kx & ~1), kx & 1), acc);
        }
        _mm256_storeu_ps(y + ox, acc);
    }
    for (; ox < ow; ox++) {
        float acc = 0.0f;
        for (int ky = 0; ky < K; ky++)
            for (int kx = 0; kx < K; kx++) acc = fmaf(k[ky * K + kx], r[ky][ox * s + kx], acc);
        y[ox] = acc;
    }
}

/* the four shapes with constant K and s, so the tap loops unroll */
#define FX_DW_SHAPE(K, S)                                                                                         \
    __attribute__((target("avx2,fma"))) static void row_##K##_##S(const float *const *r, int64_t wp, const float *k, \
                                                                  float *y, int64_t ow) {                          \
        row_avx2(K, S, r, wp, k, y, ow);                                                                          \
    }
FX_DW_SHAPE(3, 1)
FX_DW_SHAPE(3, 2)
FX_DW_SHAPE(5, 1)
FX_DW_SHAPE(5, 2)

bool fx_dw_row(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow) {
    pthread_once(&g_once, probe);
    if (!g_avx2) return false;
    if (K == 3 && s == 1) row_3_1(r, wp, k, y, ow);
    else if (K == 3 && s == 2) row_3_2(r, wp, k, y, ow);
    else if (K == 5 && s == 1) row_5_1(r, wp, k, y, ow);
    else if (K == 5 && s == 2) row_5_2(r, wp, k, y, ow);
    else return false;
    return true;
}
#else
bool fx_dw_row(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow) {
    (void)K, (void)s, (void)r, (void)wp, (void)k, (void)y, (void)ow;
    return false;
}
#endif
