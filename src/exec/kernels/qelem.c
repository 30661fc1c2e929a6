/* qelem.c — element-wise int8 rows (see qelem.h): the portable definitions
 * (the scalar meaning of nnfx_rt_qfixed.h, one value at a time) and their
 * AVX-512 / AVX2 forms. The vector fixed-point multiply is the scalar's
 * nnfx_rt_qf_mul step by step: a left shift by max(shift, 0), the 64-bit
 * product of each lane (vpmuldq on the even and the odd lanes) plus 2^30
 * shifted right by 31 (whose low 32 bits are the scalar's), then the
 * rounding division by 2^max(-shift, 0) as nnfx_rt_qf_rdbpot: floor by an
 * arithmetic shift, + 1 past the threshold. Multipliers lie in [0, 2^31),
 * so srdhm's one saturating case (INT32_MIN * INT32_MIN) cannot occur. */
#include "exec/kernels/qelem.h"

#include "core/core_int.h"
#include "exec/kernels/qgemm.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define QE_X86 1
#else
#define QE_X86 0
#endif

void fx_qlut_row_c(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        y[i] = tab[x[i] ^ flip];
}

void fx_qadd_row_c(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n, bool sub) {
    for (int64_t i = 0; i < n; i++)
        y[i] = nnfx_rt_qf_add(p, a[i], b[i], sub);
}

void fx_qmul_row_c(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift, int32_t y_zp,
                   int8_t *y, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        y[i] = nnfx_rt_qf_mul_q8(a[i], a_zp, b[i], b_zp, qm, shift, y_zp, -128, 127);
}

#if QE_X86
#define T512  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
#define TVBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define T256  __attribute__((target("avx2")))

/* The constants of one fixed-point multiplier (qm, shift). */
typedef struct qmk {
    int32_t qm, mask, half;
    int ls, rs;
} qmk;

static qmk qmk_of(int32_t qm, int shift) {
    qmk k;
    k.qm = qm;
    k.ls = shift > 0 ? shift : 0;
    k.rs = shift > 0 ? 0 : -shift;
    k.mask = (int32_t)(((int64_t)1 << k.rs) - 1);
    k.half = k.mask >> 1;
    return k;
}

T512 static inline __m512i qmul16(__m512i x, const qmk *k) {
    const __m512i vq = _mm512_set1_epi32(k->qm), nudge = _mm512_set1_epi64((int64_t)1 << 30);
    x = _mm512_sll_epi32(x, _mm_cvtsi32_si128(k->ls));
    __m512i pe = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, vq), nudge), 31);
    __m512i po = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), vq), nudge), 31);
    __m512i r = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
    __m512i rem = _mm512_and_si512(r, _mm512_set1_epi32(k->mask));
    __m512i thr = _mm512_add_epi32(_mm512_set1_epi32(k->half), _mm512_srli_epi32(r, 31));
    __mmask16 up = _mm512_cmpgt_epi32_mask(rem, thr);
    r = _mm512_sra_epi32(r, _mm_cvtsi32_si128(k->rs));
    return _mm512_mask_add_epi32(r, up, r, _mm512_set1_epi32(1));
}

T256 static inline __m256i qmul8(__m256i x, const qmk *k) {
    const __m256i vq = _mm256_set1_epi32(k->qm), nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    x = _mm256_sll_epi32(x, _mm_cvtsi32_si128(k->ls));
    __m256i pe = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, vq), nudge), 31);
    __m256i po = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), vq), nudge), 31);
    __m256i r = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
    __m256i rem = _mm256_and_si256(r, _mm256_set1_epi32(k->mask));
    __m256i thr = _mm256_add_epi32(_mm256_set1_epi32(k->half), _mm256_srli_epi32(r, 31));
    r = _mm256_sra_epi32(r, _mm_cvtsi32_si128(k->rs));
    return _mm256_sub_epi32(r, _mm256_cmpgt_epi32(rem, thr)); /* true is -1 */
}

/* 8 int32 lanes within [-128, 127] stored as 8 bytes. */
T256 static inline void st8(int8_t *y, __m256i r) {
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64((__m128i *)y, _mm_packs_epi16(w, w));
}

T256 static inline __m256i ld8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

TVBMI static void lut_vbmi(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n) {
    const __m512i t0 = _mm512_loadu_si512(tab), t1 = _mm512_loadu_si512(tab + 64);
    const __m512i t2 = _mm512_loadu_si512(tab + 128), t3 = _mm512_loadu_si512(tab + 192);
    const __m512i vf = _mm512_set1_epi8((char)flip);
    for (int64_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
        __m512i v = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x + i), vf);
        /* bits 0-6 pick within 128 entries, bit 7 which half */
        __m512i lo = _mm512_permutex2var_epi8(t0, v, t1), hi = _mm512_permutex2var_epi8(t2, v, t3);
        _mm512_mask_storeu_epi8(y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi));
    }
}

/* The table as 16 rows of 16 entries: row h (the high nibble) by
 * vpshufb on the low nibble, kept where the high nibble is h. */
T256 static void lut_avx2(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n) {
    __m256i t[16];
    for (int h = 0; h < 16; h++)
        t[h] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(tab + 16 * h)));
    const __m256i vf = _mm256_set1_epi8((char)flip), m4 = _mm256_set1_epi8(0x0F);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(x + i)), vf);
        __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
        __m256i r = _mm256_setzero_si256();
        for (int h = 0; h < 16; h++) {
            __m256i sel = _mm256_cmpeq_epi8(hi, _mm256_set1_epi8((char)h));
            r = _mm256_or_si256(r, _mm256_and_si256(sel, _mm256_shuffle_epi8(t[h], lo)));
        }
        _mm256_storeu_si256((__m256i *)(y + i), r);
    }
    fx_qlut_row_c(tab, flip, x + i, y + i, n - i);
}

T512 static void add_avx512(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n,
                            bool sub) {
    const qmk ka = qmk_of(p->a_qm, p->a_shift), kb = qmk_of(p->b_qm, p->b_shift), ky = qmk_of(p->y_qm, p->y_shift);
    const __m512i az = _mm512_set1_epi32(p->a_zp), bz = _mm512_set1_epi32(p->b_zp), yz = _mm512_set1_epi32(p->y_zp);
    const __m512i lo = _mm512_set1_epi32(p->lo), hi = _mm512_set1_epi32(p->hi);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i av = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(a + i)));
        __m512i bv = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(b + i)));
        av = qmul16(_mm512_slli_epi32(_mm512_sub_epi32(av, az), NNFX_RT_QF_ADD_LSHIFT), &ka);
        bv = qmul16(_mm512_slli_epi32(_mm512_sub_epi32(bv, bz), NNFX_RT_QF_ADD_LSHIFT), &kb);
        __m512i r = qmul16(sub ? _mm512_sub_epi32(av, bv) : _mm512_add_epi32(av, bv), &ky);
        r = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(r, yz), lo), hi);
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtepi32_epi8(r));
    }
    fx_qadd_row_c(p, a + i, b + i, y + i, n - i, sub);
}

T256 static void add_avx2(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n, bool sub) {
    const qmk ka = qmk_of(p->a_qm, p->a_shift), kb = qmk_of(p->b_qm, p->b_shift), ky = qmk_of(p->y_qm, p->y_shift);
    const __m256i az = _mm256_set1_epi32(p->a_zp), bz = _mm256_set1_epi32(p->b_zp), yz = _mm256_set1_epi32(p->y_zp);
    const __m256i lo = _mm256_set1_epi32(p->lo), hi = _mm256_set1_epi32(p->hi);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i av = qmul8(_mm256_slli_epi32(_mm256_sub_epi32(ld8(a + i), az), NNFX_RT_QF_ADD_LSHIFT), &ka);
        __m256i bv = qmul8(_mm256_slli_epi32(_mm256_sub_epi32(ld8(b + i), bz), NNFX_RT_QF_ADD_LSHIFT), &kb);
        __m256i r = qmul8(sub ? _mm256_sub_epi32(av, bv) : _mm256_add_epi32(av, bv), &ky);
        st8(y + i, _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, yz), lo), hi));
    }
    fx_qadd_row_c(p, a + i, b + i, y + i, n - i, sub);
}

T512 static void mul_avx512(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift,
                            int32_t y_zp, int8_t *y, int64_t n) {
    const qmk k = qmk_of(qm, shift);
    const __m512i az = _mm512_set1_epi32(a_zp), bz = _mm512_set1_epi32(b_zp), yz = _mm512_set1_epi32(y_zp);
    const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i av = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(a + i))), az);
        __m512i bv = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(b + i))), bz);
        __m512i r = _mm512_add_epi32(qmul16(_mm512_mullo_epi32(av, bv), &k), yz);
        _mm_storeu_si128((__m128i *)(y + i), _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(r, lo), hi)));
    }
    fx_qmul_row_c(a + i, a_zp, b + i, b_zp, qm, shift, y_zp, y + i, n - i);
}

T256 static void mul_avx2(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift,
                          int32_t y_zp, int8_t *y, int64_t n) {
    const qmk k = qmk_of(qm, shift);
    const __m256i az = _mm256_set1_epi32(a_zp), bz = _mm256_set1_epi32(b_zp), yz = _mm256_set1_epi32(y_zp);
    const __m256i lo = _mm256_set1_epi32(-128), hi = _mm256_set1_epi32(127);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i av = _mm256_sub_epi32(ld8(a + i), az), bv = _mm256_sub_epi32(ld8(b + i), bz);
        __m256i r = _mm256_add_epi32(qmul8(_mm256_mullo_epi32(av, bv), &k), yz);
        st8(y + i, _mm256_min_epi32(_mm256_max_epi32(r, lo), hi));
    }
    fx_qmul_row_c(a + i, a_zp, b + i, b_zp, qm, shift, y_zp, y + i, n - i);
}
#endif

void fx_qlut_row(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n) {
#if QE_X86
    if (fx_qisa_active() == FX_QISA_AVX512VNNI && core_cpu_avx512vbmi()) {
        lut_vbmi(tab, flip, x, y, n);
        return;
    }
    if (fx_qisa_active() >= FX_QISA_AVX2) {
        lut_avx2(tab, flip, x, y, n);
        return;
    }
#endif
    fx_qlut_row_c(tab, flip, x, y, n);
}

void fx_qadd_row(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n, bool sub) {
#if QE_X86
    fx_qisa isa = fx_qisa_active();
    if (isa == FX_QISA_AVX512VNNI) {
        add_avx512(p, a, b, y, n, sub);
        return;
    }
    if (isa == FX_QISA_AVX2 || isa == FX_QISA_AVXVNNI) {
        add_avx2(p, a, b, y, n, sub);
        return;
    }
#endif
    fx_qadd_row_c(p, a, b, y, n, sub);
}

void fx_qmul_row(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift, int32_t y_zp,
                 int8_t *y, int64_t n) {
#if QE_X86
    fx_qisa isa = fx_qisa_active();
    if (isa == FX_QISA_AVX512VNNI) {
        mul_avx512(a, a_zp, b, b_zp, qm, shift, y_zp, y, n);
        return;
    }
    if (isa == FX_QISA_AVX2 || isa == FX_QISA_AVXVNNI) {
        mul_avx2(a, a_zp, b, b_zp, qm, shift, y_zp, y, n);
        return;
    }
#endif
    fx_qmul_row_c(a, a_zp, b, b_zp, qm, shift, y_zp, y, n);
}
