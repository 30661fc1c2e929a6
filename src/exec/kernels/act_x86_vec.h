/* act_x86_vec.h — the vector sigmoid (sig8, sig16: exp(-x) as 2^k * p(r),
 * the reciprocal by the hardware estimate and two Newton steps) and tanh
 * (tanh8, tanh16: a rational function) of act_x86.c's rows, as inline
 * functions for kernels that apply them in registers (the fused gates of
 * rnn_mv.c), so their values are the rows' own. x86-64 with GCC or clang
 * only; include after <immintrin.h>. */
#ifndef NNFX_ACT_X86_VEC_H
#define NNFX_ACT_X86_VEC_H

#include <stdbool.h>

/* sigmoid(x) (silu false) or x * sigmoid(x) (silu true) on eight lanes. */
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

/* tanh(x) as x * P(x^2) / Q(x^2) (degrees 13 / 6; Eigen's float
 * coefficients, the steps of tanh_fast in act_fast.c) for |x| clamped to
 * 7.99881172; x itself below 0.0004, where the series' next term is under
 * half an ulp. A NaN passes. */
#define TANH_COEFS(X)                                                                                                  \
    X(a13, -2.76076847742355e-16f)                                                                                     \
    X(a11, 2.00018790482477e-13f)                                                                                      \
    X(a9, -8.60467152213735e-11f)                                                                                      \
    X(a7, 5.12229709037114e-08f)                                                                                       \
    X(a5, 1.48572235717979e-05f)                                                                                       \
    X(a3, 6.37261928875436e-04f)                                                                                       \
    X(a1, 4.89352455891786e-03f)                                                                                       \
    X(b6, 1.19825839466702e-06f)                                                                                       \
    X(b4, 1.18534705686654e-04f)                                                                                       \
    X(b2, 2.26843463243900e-03f)                                                                                       \
    X(b0, 4.89352518554385e-03f)
#define TANH_ENUM(name, v) static const float tanh_##name = v;
TANH_COEFS(TANH_ENUM)
#undef TANH_ENUM

__attribute__((target("avx2,fma"))) static inline __m256 tanh8(__m256 x) {
    __m256 c =
        _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-7.99881172180175781f)), _mm256_set1_ps(7.99881172180175781f));
    __m256 x2 = _mm256_mul_ps(c, c);
    __m256 p = _mm256_fmadd_ps(x2, _mm256_set1_ps(tanh_a13), _mm256_set1_ps(tanh_a11));
    p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(tanh_a9));
    p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(tanh_a7));
    p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(tanh_a5));
    p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(tanh_a3));
    p = _mm256_fmadd_ps(x2, p, _mm256_set1_ps(tanh_a1));
    p = _mm256_mul_ps(c, p);
    __m256 q = _mm256_fmadd_ps(x2, _mm256_set1_ps(tanh_b6), _mm256_set1_ps(tanh_b4));
    q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(tanh_b2));
    q = _mm256_fmadd_ps(x2, q, _mm256_set1_ps(tanh_b0));
    __m256 y = _mm256_div_ps(p, q);
    __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    /* tiny |x| or NaN (unordered): x itself */
    __m256 keep = _mm256_cmp_ps(ax, _mm256_set1_ps(0.0004f), _CMP_NGE_UQ);
    return _mm256_blendv_ps(y, x, keep);
}

__attribute__((target("avx512f,avx2,fma"))) static inline __m512 tanh16(__m512 x) {
    __m512 c =
        _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-7.99881172180175781f)), _mm512_set1_ps(7.99881172180175781f));
    __m512 x2 = _mm512_mul_ps(c, c);
    __m512 p = _mm512_fmadd_ps(x2, _mm512_set1_ps(tanh_a13), _mm512_set1_ps(tanh_a11));
    p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(tanh_a9));
    p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(tanh_a7));
    p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(tanh_a5));
    p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(tanh_a3));
    p = _mm512_fmadd_ps(x2, p, _mm512_set1_ps(tanh_a1));
    p = _mm512_mul_ps(c, p);
    __m512 q = _mm512_fmadd_ps(x2, _mm512_set1_ps(tanh_b6), _mm512_set1_ps(tanh_b4));
    q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(tanh_b2));
    q = _mm512_fmadd_ps(x2, q, _mm512_set1_ps(tanh_b0));
    __m512 y = _mm512_div_ps(p, q);
    __m512 ax = _mm512_abs_ps(x);
    __mmask16 keep = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.0004f), _CMP_NGE_UQ);
    return _mm512_mask_mov_ps(y, keep, x);
}

#endif
