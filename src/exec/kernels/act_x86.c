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

#include "exec/kernels/act_x86_vec.h"

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

__attribute__((target("avx512f,avx2,fma"))) static void row16(float *y, int64_t n, bool silu) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, sig16(_mm512_loadu_ps(y + i), silu));
    if (i < n) { /* the tail in one masked step: lanes past n are neither read nor written */
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, m, sig16(_mm512_maskz_loadu_ps(m, y + i), silu));
    }
}

__attribute__((target("avx2,fma"))) static void tanh_row8(float *y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, tanh8(_mm256_loadu_ps(y + i)));
    if (i < n) {
        float t[8] = {0};
        memcpy(t, y + i, (size_t)(n - i) * sizeof(float));
        _mm256_storeu_ps(t, tanh8(_mm256_loadu_ps(t)));
        memcpy(y + i, t, (size_t)(n - i) * sizeof(float));
    }
}

__attribute__((target("avx512f,avx2,fma"))) static void tanh_row16(float *y, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, tanh16(_mm512_loadu_ps(y + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, m, tanh16(_mm512_maskz_loadu_ps(m, y + i)));
    }
}

bool fx_tanh_row(float *y, int64_t n) {
    if (!core_cpu_avx2_fma()) return false;
    if (core_cpu_avx512f())
        tanh_row16(y, n);
    else
        tanh_row8(y, n);
    return true;
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

bool fx_tanh_row(float *y, int64_t n) {
    (void)y, (void)n;
    return false;
}
#endif
