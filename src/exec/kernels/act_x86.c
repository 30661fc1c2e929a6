/* act_x86.c — vector sigmoid / SiLU rows (see act_x86.h; AVX-512 or
 * AVX2, by the CPU), a faster
 * equivalent of the scalar meaning nnfx_rt_sigmoid (nnfx_rt_scalar.h),
 * checked against it by tests/test_act.c: exp(-x) as 2^k * p(r) with fused
 * multiply-adds (the steps of fx_sigmoid_fast in act_fast.c), 1 / (1 + e)
 * by the hardware reciprocal estimate refined with two Newton steps. The
 * tail of a row is padded into one vector so all values take the same
 * path. */
#include "exec/kernels/act_x86.h"

#include <string.h>

#include "core/core_int.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) static inline __m256 sig8(__m256 x, bool silu) {
    __m256 t = _mm256_sub_ps(_mm256_setzero_ps(), x); /* exp(-x) */
    /* clamped to [-87, 87]; a NaN passes (max/min return their second
     * operand when one is NaN) and makes q NaN */
    t = _mm256_max_ps(_mm256_set1_ps(-87.0f), t);
    t = _mm256_min_ps(_mm256_set1_ps(87.0f), t);
    __m256 k = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693145751953125f), t);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(1.42860682030941723e-06f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    __m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
    __m256 q = _mm256_rcp_ps(d), two = _mm256_set1_ps(2.0f);
    q = _mm256_mul_ps(q, _mm256_fnmadd_ps(d, q, two));
    q = _mm256_mul_ps(q, _mm256_fnmadd_ps(d, q, two));
    /* x <= -87: the meaning is below 2^-125; 0 (silu(-inf) is then NaN, as in the meaning) */
    q = _mm256_andnot_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-87.0f), _CMP_LE_OQ), q);
    return silu ? _mm256_mul_ps(x, q) : q;
}

__attribute__((target("avx2,fma"))) static void row(float *y, int64_t n, bool silu) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, sig8(_mm256_loadu_ps(y + i), silu));
    if (i < n) {
        float t[8] = {0};
        memcpy(t, y + i, (size_t)(n - i) * sizeof(float));
        _mm256_storeu_ps(t, sig8(_mm256_loadu_ps(t), silu));
        memcpy(y + i, t, (size_t)(n - i) * sizeof(float));
    }
}

/* sig8's steps on sixteen lanes (AVX-512F); the reciprocal estimate has
 * 14 bits instead of 12 before the same two Newton steps. */
__attribute__((target("avx512f,avx2,fma"))) static inline __m512 sig16(__m512 x, bool silu) {
    __m512 t = _mm512_sub_ps(_mm512_setzero_ps(), x);
    t = _mm512_max_ps(_mm512_set1_ps(-87.0f), t);
    t = _mm512_min_ps(_mm512_set1_ps(87.0f), t);
    __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), t);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.42860682030941723e-06f), r);
    __m512 p = _mm512_set1_ps(1.0f / 720.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(k), _mm512_set1_epi32(127)), 23);
    __m512 d = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_mul_ps(p, _mm512_castsi512_ps(e)));
    __m512 q = _mm512_rcp14_ps(d), two = _mm512_set1_ps(2.0f);
    q = _mm512_mul_ps(q, _mm512_fnmadd_ps(d, q, two));
    q = _mm512_mul_ps(q, _mm512_fnmadd_ps(d, q, two));
    __mmask16 low = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.0f), _CMP_LE_OQ);
    q = _mm512_mask_mov_ps(q, low, _mm512_setzero_ps());
    return silu ? _mm512_mul_ps(x, q) : q;
}

__attribute__((target("avx512f,avx2,fma"))) static void row16(float *y, int64_t n, bool silu) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, sig16(_mm512_loadu_ps(y + i), silu));
    if (i < n) { /* the tail in one masked step: lanes past n are neither read nor written */
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, m, sig16(_mm512_maskz_loadu_ps(m, y + i), silu));
    }
}

bool fx_sigmoid_row(float *y, int64_t n, bool silu) {
    if (!core_cpu_avx2_fma()) return false;
    if (core_cpu_avx512f())
        row16(y, n, silu);
    else
        row(y, n, silu);
    return true;
}
#else
bool fx_sigmoid_row(float *y, int64_t n, bool silu) {
    (void)y, (void)n, (void)silu;
    return false;
}
#endif
