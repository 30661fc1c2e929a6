/* qgemm.c — the int8 GEMM (see qgemm.h): ISA choice, weight packing (and
 * the split of unsafe weight pairs for the vpmaddubsw kernel), activation
 * packing, the portable tile kernel and epilogue, and the convolution /
 * fully connected drivers (im2col in u8 from a zero-point-padded window of
 * the input per column block, packed step by step; depthwise convs run
 * direct on a zero-point-padded int16 plane). Work is split into tasks by
 * shape only, so results never depend on the number of threads. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns") /* short row copies stay inline */
#endif
#include "core/core_int.h"
#include "exec/kernels/qgemm.h"

#include "rt/nnfx_rt_qfixed.h"
#include "rt/nnfx_rt_scalar.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#define FX_Q_X86 1
#include <immintrin.h>
#else
#define FX_Q_X86 0
#endif

/* ---- ISA ---------------------------------------------------------------- */

static fx_qisa g_best = FX_QISA_C, g_isa = FX_QISA_C;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Whether the CPU (and NNFX_ISA) allow isa. */
static bool isa_available(fx_qisa isa) {
    switch (isa) {
    case FX_QISA_C: return true;
#if FX_Q_X86
    case FX_QISA_AVX2: return core_cpu_avx2();
    case FX_QISA_AVXVNNI: return core_cpu_avx2() && core_cpu_avxvnni();
    case FX_QISA_AVX512VNNI: return core_cpu_avx2() && core_cpu_avx512vnni();
#endif
    default: return false;
    }
}

static void probe(void) {
    /* the best available (NNFX_ISA=portable: the C path) */
    for (fx_qisa i = FX_QISA_AVX512VNNI; i > FX_QISA_C && g_best == FX_QISA_C; i--)
        if (isa_available(i)) g_best = i;
    g_isa = g_best;
    const char *want = getenv("NNFX_QISA");
    for (fx_qisa i = FX_QISA_C; want && i <= FX_QISA_AVX512VNNI; i++)
        if (strcmp(want, fx_qisa_name(i)) == 0 && isa_available(i)) g_isa = i;
}

fx_qisa fx_qisa_active(void) {
    pthread_once(&g_once, probe);
    return g_isa;
}

bool fx_qisa_force(fx_qisa isa) {
    pthread_once(&g_once, probe);
    if (isa == FX_QISA_AUTO) {
        g_isa = g_best;
        return true;
    }
    if (!isa_available(isa)) return false;
    g_isa = isa;
    return true;
}

const char *fx_qisa_name(fx_qisa isa) {
    switch (isa) {
    case FX_QISA_C: return "c";
    case FX_QISA_AVX2: return "avx2";
    case FX_QISA_AVXVNNI: return "avxvnni";
    case FX_QISA_AVX512VNNI: return "avx512vnni";
    default: return "auto";
    }
}

/* ---- epilogue ------------------------------------------------------------ */

/* rne(v) for |v| < 2^24 (larger values saturate the output anyway); the
 * scalar meaning of the epilogue is nnfx_rt_qepi (src/rt/
 * nnfx_rt_scalar.h), shared with the generated C. */
static inline int32_t q_round(float v) { return nnfx_rt_qround(v); }

static inline int32_t q_clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

void fx_qepi_row_c(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res, void *y,
                   int64_t ys) {
    if (e->fixed) { /* TFLite's fixed-point requantization (nnfx_rt_qfixed.h) */
        int32_t b = comp + e->fb[m], qm = e->fm[m], sh = e->fs[m];
        for (int64_t j = 0; j < n; j++) {
            int32_t q = q_clamp(nnfx_rt_qf_mul(acc[j] + b, qm, (int)sh) + e->y_zp, e->lo, e->hi);
            if (e->y_signed)
                ((int8_t *)y)[j * ys] = (int8_t)q;
            else
                ((uint8_t *)y)[j * ys] = (uint8_t)q;
        }
        return;
    }
    nnfx_rt_qparam mid = {e->mid_scale, e->mid_inv, e->mid_zp, e->mid_lo, e->mid_hi},
                   rq = {e->res_scale, 0.0f, e->res_zp, 0, 0}, yq = {0.0f, 1.0f, e->y_zp, e->lo, e->hi};
    bool direct = !e->mid && !e->res; /* mult / y_scale and bias / y_scale, inv 1 */
    float mult = direct ? e->multq[m] : e->mult[m], bias = direct ? e->biasq[m] : e->bias[m];
    if (!direct) yq.inv = e->y_inv;
    for (int64_t j = 0; j < n; j++) {
        int32_t r = !e->res ? 0 : e->res_signed ? ((const int8_t *)res)[j * ys] : ((const uint8_t *)res)[j * ys];
        int32_t q = nnfx_rt_qepi(acc[j] + comp, mult, bias, e->mid ? &mid : NULL, e->res ? &rq : NULL, r, &yq);
        if (e->y_signed)
            ((int8_t *)y)[j * ys] = (int8_t)q;
        else
            ((uint8_t *)y)[j * ys] = (uint8_t)q;
    }
}

void fx_qepi_row(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res, void *y,
                 int64_t ys) {
    if (ys == 1 && fx_qisa_active() == FX_QISA_AVX512VNNI) /* float or fixed point on 16 lanes */
        fx_qepi_row_avx512(e, m, comp, acc, n, res, y);
    else if (e->fixed && ys == 1 && fx_qisa_active() >= FX_QISA_AVX2)
        fx_qepi_row_fixed_avx2(e, m, comp, acc, n, y);
    else if (e->fixed)
        fx_qepi_row_c(e, m, comp, acc, n, res, y, ys);
    else if (ys == 1 && fx_qisa_active() >= FX_QISA_AVX2)
        fx_qepi_row_avx2(e, m, comp, acc, n, res, y);
    else
        fx_qepi_row_c(e, m, comp, acc, n, res, y, ys);
}

/* ---- packing ------------------------------------------------------------- */

/* Corrections of the vpmaddubsw kernel for weights with unsafe pairs: a
 * pair with |w0| + |w1| = 128 + e (e in 1..128) keeps w0 and w1 less e on
 * the larger of the two (|larger| >= (128 + e) / 2 >= e, so it keeps its
 * sign), and that e (signed, an s8) becomes the pair's correction, a safe
 * pair itself; the sums of both parts are the exact sums. Worth it when at
 * most 1 in FX_QFIX_RATIO (row, quad step)s needs one (each costs about a
 * row's step); returns 1 with *w7 (the safe parts, [m][k]) and the
 * corrections in pw, 0 when too many, -1 on OOM. */
#define FX_QFIX_RATIO 4 /* break-even near 1 in 4: a correction costs ~1.7 row steps, vpmaddwd ~1.5x */
static int split_unsafe(fx_qgemm_w *pw, const int8_t *w, int64_t m, int64_t k, int64_t ldw, int8_t **w7) {
    int64_t ks = (k + 3) / 4, nfix = 0;
    for (int64_t row = 0; row < m; row++)
        for (int64_t q = 0; q < ks; q++) {
            bool need = false;
            for (int64_t kk = 4 * q; kk < 4 * q + 4 && kk < k; kk += 2) {
                int a0 = abs(w[row * ldw + kk]), a1 = kk + 1 < k ? abs(w[row * ldw + kk + 1]) : 0;
                need = need || a0 + a1 > 128;
            }
            nfix += need;
        }
    if (nfix * FX_QFIX_RATIO > m * ks) return 0;
    int64_t rows = (m + 3) / 4 * 4;
    *w7 = malloc((size_t)(m * k > 0 ? m * k : 1));
    pw->fix_start = malloc(sizeof *pw->fix_start * (size_t)(rows + 1));
    pw->fix = malloc(sizeof *pw->fix * (size_t)(nfix > 0 ? nfix : 1));
    if (!*w7 || !pw->fix_start || !pw->fix) {
        free(*w7);
        *w7 = NULL;
        return -1;
    }
    int32_t n = 0;
    for (int64_t row = 0; row < rows; row++) {
        pw->fix_start[row] = n;
        if (row >= m) continue;
        int8_t *d = *w7 + row * k;
        memcpy(d, w + row * ldw, (size_t)k);
        for (int64_t q = 0; q < ks; q++) {
            uint8_t fq[4] = {0, 0, 0, 0};
            bool need = false;
            for (int64_t kk = 4 * q; kk < 4 * q + 4 && kk < k; kk += 2) {
                int v0 = d[kk], v1 = kk + 1 < k ? d[kk + 1] : 0;
                int e = abs(v0) + abs(v1) - 128;
                if (e <= 0) continue;
                int64_t big = abs(v0) >= abs(v1) ? kk : kk + 1; /* kk + 1 < k here: |v1| > 0 */
                int corr = d[big] < 0 ? -e : e;
                d[big] = (int8_t)(d[big] - corr);
                fq[big - 4 * q] = (uint8_t)(int8_t)corr;
                need = true;
            }
            if (!need) continue;
            pw->fix[n].q = (int32_t)q;
            pw->fix[n].quad =
                (int32_t)((uint32_t)fq[0] | (uint32_t)fq[1] << 8 | (uint32_t)fq[2] << 16 | (uint32_t)fq[3] << 24);
            n++;
        }
    }
    pw->fix_start[rows] = n;
    return 1;
}

bool fx_qgemm_pack_w(fx_qgemm_w *pw, const int8_t *w, int64_t m, int64_t k, int64_t ldw) {
    memset(pw, 0, sizeof *pw);
    pw->m = m, pw->k = k;
    pw->pair_safe = true;
    for (int64_t row = 0; row < m && pw->pair_safe; row++)
        for (int64_t kk = 0; kk < k; kk += 2) {
            int a0 = abs(w[row * ldw + kk]), a1 = kk + 1 < k ? abs(w[row * ldw + kk + 1]) : 0;
            if (a0 + a1 > 128) pw->pair_safe = false;
        }
    fx_qisa isa = fx_qisa_active();
    pw->kern = isa == FX_QISA_AVX512VNNI ? FX_QK_VNNI512
               : isa == FX_QISA_AVXVNNI  ? FX_QK_VNNI
               : isa != FX_QISA_AVX2     ? FX_QK_C
               : pw->pair_safe           ? FX_QK_UBS
                                         : FX_QK_MADD;
    pw->mr = 4;
    int8_t *w7 = NULL;
    if (pw->kern == FX_QK_MADD) {
        /* vpmaddubsw with corrections when they are few; else vpmaddwd */
        int s = split_unsafe(pw, w, m, k, ldw, &w7);
        if (s < 0) return false;
        if (s) pw->kern = FX_QK_UBS, w = w7, ldw = k;
    }
    pw->kr = pw->kern == FX_QK_MADD ? 2 : 4;
    pw->nr = pw->kern == FX_QK_VNNI512 ? 16 : 8;
    pw->ks = (k + pw->kr - 1) / pw->kr;
    int64_t np = (m + pw->mr - 1) / pw->mr, n = np * pw->ks * pw->mr * pw->kr;
    if (pw->kern == FX_QK_MADD)
        pw->a16 = aligned_alloc(64, (size_t)(n * 2 + 63) / 64 * 64);
    else
        pw->a = aligned_alloc(64, (size_t)(n + 63) / 64 * 64);
    pw->wsum = malloc(sizeof *pw->wsum * (size_t)(m > 0 ? m : 1));
    if ((!pw->a && !pw->a16) || !pw->wsum) {
        free(w7);
        fx_qgemm_w_free(pw);
        return false;
    }
    /* row r of panel p, k index q * kr + j at ((p * ks + q) * mr + r) * kr + j; padding 0 */
    if (pw->a16)
        memset(pw->a16, 0, sizeof *pw->a16 * (size_t)n);
    else
        memset(pw->a, 0, (size_t)n);
    for (int64_t row = 0; row < m; row++) {
        const int8_t *src = w + row * ldw;
        int64_t o = (row / pw->mr * pw->ks * pw->mr + row % pw->mr) * pw->kr, step = (int64_t)pw->mr * pw->kr;
        for (int64_t kk = 0; kk < k; kk += pw->kr, o += step) {
            if (!pw->a16 && kk + 4 <= k) { /* a whole quad */
                memcpy(pw->a + o, src + kk, 4);
                continue;
            }
            for (int j = 0; j < pw->kr && kk + j < k; j++) {
                if (pw->a16)
                    pw->a16[o + j] = src[kk + j];
                else
                    pw->a[o + j] = src[kk + j];
            }
        }
    }
    for (int64_t row = 0; row < m; row++) {
        int32_t s = 0;
        for (int64_t kk = 0; kk < k; kk++)
            s += w[row * ldw + kk];
        if (pw->fix) /* the corrections' part of the row */
            for (int32_t i = pw->fix_start[row]; i < pw->fix_start[row + 1]; i++)
                for (int j = 0; j < 4; j++)
                    s += (int8_t)(uint8_t)((uint32_t)pw->fix[i].quad >> (8 * j));
        pw->wsum[row] = s;
    }
    free(w7);
    return true;
}

void fx_qgemm_w_free(fx_qgemm_w *pw) {
    if (!pw) return;
    free(pw->a);
    free(pw->a16);
    free(pw->wsum);
    free(pw->fix_start);
    free(pw->fix);
    pw->a = NULL, pw->a16 = NULL, pw->wsum = NULL, pw->fix_start = NULL, pw->fix = NULL;
}

int64_t fx_qpack_b_bytes(const fx_qgemm_w *pw, int64_t nc) { return (nc + pw->nr - 1) / pw->nr * pw->ks * pw->nr * 4; }

#if FX_Q_X86
/* The 4 rows' 16 bytes v[j] interleaved: byte 4i + j of o is v[j][i]. */
static inline void quad_interleave(const __m128i *v, __m128i *o) {
    __m128i a0 = _mm_unpacklo_epi8(v[0], v[1]), b0 = _mm_unpacklo_epi8(v[2], v[3]);
    __m128i a1 = _mm_unpackhi_epi8(v[0], v[1]), b1 = _mm_unpackhi_epi8(v[2], v[3]);
    o[0] = _mm_unpacklo_epi16(a0, b0), o[1] = _mm_unpackhi_epi16(a0, b0);
    o[2] = _mm_unpacklo_epi16(a1, b1), o[3] = _mm_unpackhi_epi16(a1, b1);
}

#endif

void fx_qpack_b_step_flip(const fx_qgemm_w *pw, const uint8_t *const *r, int64_t nc, int64_t s, uint8_t flip,
                          uint8_t *dst) {
    static const uint8_t zeros[16] = {0};
    int64_t c = 0, ks = pw->ks, nr = pw->nr, pstep = ks * nr * 4;
    int kr = pw->kr;
    dst += s * nr * 4;
#if FX_Q_X86
    bool all = r[0] && r[1] && (kr == 2 || (r[2] && r[3]));
    const __m128i vf = _mm_set1_epi8((char)flip);
    if (all && kr == 4 && nr == 16) /* 16 columns of 4 rows: 64 contiguous bytes */
        for (; c + 16 <= nc; c += 16, dst += pstep) {
            __m128i v[4], o[4];
            for (int j = 0; j < 4; j++)
                v[j] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(r[j] + c)), vf);
            quad_interleave(v, o);
            for (int k = 0; k < 4; k++)
                _mm_storeu_si128((__m128i *)(dst + 16 * k), o[k]);
        }
    if (all && kr == 4 && nr == 8)
        for (; c + 8 <= nc; c += 8, dst += pstep) {
            __m128i a = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[0] + c)), vf);
            __m128i b = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[1] + c)), vf);
            __m128i x = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[2] + c)), vf);
            __m128i d = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[3] + c)), vf);
            __m128i ab = _mm_unpacklo_epi8(a, b), xd = _mm_unpacklo_epi8(x, d);
            _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi16(ab, xd));
            _mm_storeu_si128((__m128i *)(dst + 16), _mm_unpackhi_epi16(ab, xd));
        }
    if (all && kr == 2 && nr == 8)
        for (; c + 8 <= nc; c += 8, dst += pstep) {
            __m128i a = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[0] + c)), vf);
            __m128i b = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(r[1] + c)), vf);
            __m128i ab = _mm_unpacklo_epi8(a, b), z = _mm_setzero_si128();
            _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi8(ab, z));
            _mm_storeu_si128((__m128i *)(dst + 16), _mm_unpackhi_epi8(ab, z));
        }
#endif
    for (; c < nc; c += nr, dst += pstep)
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < kr; j++) {
                const uint8_t *src = r[j] ? r[j] : zeros;
                uint8_t v = c + i < nc && r[j] ? (uint8_t)(src[c + i] ^ flip) : 0;
                if (kr == 4)
                    dst[i * 4 + j] = v;
                else
                    dst[i * 4 + j * 2] = v, dst[i * 4 + j * 2 + 1] = 0;
            }
}

void fx_qpack_b_step(const fx_qgemm_w *pw, const uint8_t *const *r, int64_t nc, int64_t s, uint8_t *dst) {
    fx_qpack_b_step_flip(pw, r, nc, s, 0, dst);
}

/* ---- portable tile and the GEMM loop ------------------------------------- */

void fx_qtile_c(int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    for (int p = 0; p < np; p++, b += ks * 32)
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < FX_QNR; c++) {
                int32_t s = 0;
                for (int64_t q = 0; q < ks; q++)
                    for (int j = 0; j < 4; j++)
                        s += (int32_t)b[q * 32 + c * 4 + j] * a[(q * 4 + r) * 4 + j];
                acc[r * 16 + p * FX_QNR + c] = s;
            }
}

/* fx_qgemm_run's AVX-512 VNNI path over pairs of weight panels: 8-row
 * tiles of two 16-column activation panels (32 columns) on zmm registers,
 * the last one or two panels' 17..32 columns likewise (the panels are zero
 * past nc), a last single panel as an 8 x 16 tile; contiguous output.
 * Returns the number of weight panels done (the rest, at most one, takes
 * the 4-row tile). */
static int64_t run_vnni_wide(const fx_qgemm_w *w, const uint8_t *b, const int64_t *koff, int64_t nc, int32_t x_zp,
                             const fx_qepi *e, int64_t m0, const void *res, void *y, int64_t ym) {
    int64_t ks = w->ks, nu = (nc + FX_QNR - 1) / FX_QNR, p = 0; /* nu: 8-column units */
    int mr = w->mr;
    for (; (p + 1) * mr < w->m; p += 2) {
        int64_t rows = w->m - p * mr < 2 * mr ? w->m - p * mr : 2 * mr;
        int32_t comp[8];
        for (int r = 0; r < rows; r++)
            comp[r] = -x_zp * w->wsum[p * mr + r];
        const int8_t *a0 = w->a + p * ks * 16, *a1 = a0 + ks * 16;
        for (int64_t j = 0; j < nu;) { /* j: a multiple of 4 units, the start of a 16-column panel */
            int np = nu - j >= 3 ? 4 : 2;
            const uint8_t *bp = b + j * (koff ? 32 : ks * 32);
            int64_t off = p * mr * ym + j * FX_QNR;
            int cols = (int)(nc - j * FX_QNR < np * FX_QNR ? nc - j * FX_QNR : np * FX_QNR);
            const char *ro = res ? (const char *)res + off : NULL;
            j += np;
            if (np == 4)
                fx_qtile_vnni_q16(ks, a0, a1, bp, koff, e, m0 + p * mr, comp, (int)rows, cols, ro, (char *)y + off, ym);
            else
                fx_qtile_vnni_q8(ks, a0, a1, bp, koff, e, m0 + p * mr, comp, (int)rows, cols, ro, (char *)y + off, ym);
        }
    }
    return p;
}

/* fx_qgemm_run, or with koff (VNNI kernels, yn 1 only) fx_qgemm_run_win:
 * the tiles' 8-column unit j (even) starts at b + j * ks * 32 when packed,
 * at b + j * 32 in a window. */
static void qgemm_run(const fx_qgemm_w *w, const uint8_t *b, const int64_t *koff, int64_t nc, int32_t x_zp,
                      const fx_qepi *e, int64_t m0, const void *res, void *y, int64_t ym, int64_t yn) {
    int64_t ks = w->ks, npan = (nc + FX_QNR - 1) / FX_QNR;
    int mr = w->mr;
    /* an x86 kernel: the AVX2 epilogue, fused in the tile (float requantization only; AVX-512 VNNI's tiles
     * fuse the fixed point too) */
    bool vec = w->kern != FX_QK_C && yn == 1 && (!e->fixed || w->kern == FX_QK_VNNI512);
    bool vnni = w->kern == FX_QK_VNNI || w->kern == FX_QK_VNNI512;
    int32_t acc[6 * 16];
    int64_t p0 = vec && w->kern == FX_QK_VNNI512 ? run_vnni_wide(w, b, koff, nc, x_zp, e, m0, res, y, ym) : 0;
    for (int64_t p = p0; p * mr < w->m; p++) {
        int64_t rows = w->m - p * mr < mr ? w->m - p * mr : mr;
        const int32_t *fs = w->fix_start ? w->fix_start + p * mr : NULL;
        for (int64_t j = 0; j < npan; j += 2) {
            int np = j + 1 < npan ? 2 : 1;
            const uint8_t *bp = b + j * (koff ? 32 : ks * 32);
            if (vec) { /* AVX2, contiguous output: the epilogue in the tile */
                int32_t comp[4];
                for (int r = 0; r < rows; r++)
                    comp[r] = -x_zp * w->wsum[p * mr + r];
                int64_t off = p * mr * ym + j * FX_QNR;
                int cols = (int)(nc - j * FX_QNR < np * FX_QNR ? nc - j * FX_QNR : np * FX_QNR);
                const void *a = w->kern == FX_QK_MADD ? (const void *)(w->a16 + p * ks * mr * 2)
                                                      : (const void *)(w->a + p * ks * 16);
                if (vnni) {
                    fx_qtile_vnni_q(w->kern, ks, a, bp, koff, np, e, m0 + p * mr, comp, (int)rows, cols,
                                    res ? (const char *)res + off : NULL, (char *)y + off, ym);
                    continue;
                }
                fx_qtile_avx2_q(w->kern == FX_QK_UBS, ks, a, bp, np, fs, w->fix, e, m0 + p * mr, comp, (int)rows, cols,
                                res ? (const char *)res + off : NULL, (char *)y + off, ym);
                continue;
            }
            switch (w->kern) {
            case FX_QK_UBS: fx_qtile_avx2_ubs(ks, w->a + p * ks * 16, bp, np, fs, w->fix, acc); break;
            case FX_QK_MADD: fx_qtile_avx2_madd(ks, w->a16 + p * ks * mr * 2, bp, np, acc); break;
            case FX_QK_VNNI:
            case FX_QK_VNNI512: fx_qtile_vnni(w->kern, ks, w->a + p * ks * 16, bp, np, acc); break;
            default: fx_qtile_c(ks, w->a + p * ks * 16, bp, np, acc); break;
            }
            int64_t c0 = j * FX_QNR, cols = nc - c0 < np * FX_QNR ? nc - c0 : np * FX_QNR;
            for (int64_t r = 0; r < rows; r++) {
                int64_t m = p * mr + r;
                int64_t off = m * ym + c0 * yn;
                const char *ro = res ? (const char *)res + off : NULL;
                if (e->fixed && yn == 1 && fx_qisa_active() >= FX_QISA_AVX2) /* the fixed point on 8 lanes */
                    fx_qepi_row_fixed_avx2(e, m0 + m, -x_zp * w->wsum[m], acc + r * 16, cols, (char *)y + off);
                else
                    fx_qepi_row_c(e, m0 + m, -x_zp * w->wsum[m], acc + r * 16, cols, ro, (char *)y + off, yn);
            }
        }
    }
}

void fx_qgemm_run(const fx_qgemm_w *w, const uint8_t *b, int64_t nc, int32_t x_zp, const fx_qepi *e, int64_t m0,
                  const void *res, void *y, int64_t ym, int64_t yn) {
    qgemm_run(w, b, NULL, nc, x_zp, e, m0, res, y, ym, yn);
}

void fx_qgemm_run_win(const fx_qgemm_w *w, const uint8_t *b, const int64_t *koff, int64_t nc, int32_t x_zp,
                      const fx_qepi *e, int64_t m0, const void *res, void *y, int64_t ym) {
    qgemm_run(w, b, koff, nc, x_zp, e, m0, res, y, ym, 1);
}

/* ---- conv / fc drivers ---------------------------------------------------- */

#define FX_QB_BYTES (192 * 1024) /* packed activation block budget per task (within L2) */

struct fx_qconv {
    fx_qconv_geom g;
    bool fc, dw;
    bool x_signed;
    int32_t x_zp;  /* in the u8 domain (s8 shifted by 128) */
    uint8_t x_pad; /* the raw byte of the zero point (padding value) */
    int64_t cg, mg, kk, ncols, nb, ncb;
    /* grid: stride-1 convs run the GEMM over the padded window's grid of
     * gcols = oh * pitch columns (im2col rows are then runs of the window,
     * packed without copies); output (oy, ox) is grid column oy * pitch +
     * ox, columns ox >= ow are computed and dropped. Else gcols = ncols. */
    bool grid;
    int64_t gcols;
    /* quad (grid convs on the VNNI tiles, stride 1 or 2): the window holds
     * the channels in interleaved quads (byte 4 * position + j of quad cq
     * is channel 4 cq + j), each quad as s * s phase planes of the padded
     * input (phase (a, b) row r, column c: padded row r * s + a, column
     * c * s + b), so every tap reads a plane at stride 1; the weights' k
     * runs over (quad, ky, kx) steps of 4 channels, and the tiles read the
     * window in place at koff[step]: no per-block packing. gpitch: the
     * grid's columns per output row (the phase planes' width); cq4:
     * channel quads; pstride, qstride: window bytes per phase plane and per
     * quad. */
    bool quad;
    int64_t gpitch, cq4, pstride, qstride;
    int64_t *koff;
    /* gemv (fully connected over at most FX_QGEMV_ROWS rows, AVX-512
     * VNNI): the weights row-major, each row zero-padded to kpad bytes, a
     * dot product per output instead of 16-column tiles mostly empty */
    bool gemv;
    int64_t kpad;
    int8_t *wrow;
    int32_t *wsum;
    fx_qgemm_w *wg;   /* per group */
    int16_t *dww;     /* depthwise: [m][kh * kw] */
    int64_t dph, dpw; /* depthwise: padded plane dims */
    float *mult, *bias, *multq, *biasq;
    int32_t *fq; /* fixed point: [3][m] bias, multiplier, shift (fx_qepi.fb, fm, fs), or NULL */
    /* dn (or NULL): oneDNN's sums (qconv_dnnl.c) for one-thread runs, then
     * the epilogue with the zero point's compensation dcomp[dcls[p] * m +
     * ch] at position p (use_dnnl); the packed weights stay for runs on
     * more threads */
    fx_qdnnl *dn;
    int32_t *dcomp, *dcls;
    fx_qepi e;
};

static void fill_epi(fx_qconv *c, const fx_qparams *q) {
    fx_qepi *e = &c->e;
    memset(e, 0, sizeof *e);
    e->mult = c->mult, e->bias = c->bias, e->multq = c->multq, e->biasq = c->biasq;
    int32_t tlo = q->y_signed ? -128 : 0, thi = q->y_signed ? 127 : 255;
    e->y_signed = q->y_signed;
    e->y_inv = 1.0f / q->y_scale;
    e->y_zp = q->y_zp;
    /* Relu/Clip then QuantizeLinear: quantization is monotone, so the bounds
     * (of the activation after the add, if any) become saturation bounds */
    e->lo = tlo, e->hi = thi;
    if (q->act_lo > -INFINITY) e->lo = q_clamp(q_round(q->act_lo * e->y_inv) + q->y_zp, tlo, thi);
    if (q->act_hi < INFINITY) e->hi = q_clamp(q_round(q->act_hi * e->y_inv) + q->y_zp, tlo, thi);
    if (q->mid) {
        int32_t mlo = q->mid_signed ? -128 : 0, mhi = q->mid_signed ? 127 : 255;
        e->mid = true;
        e->mid_scale = q->mid_scale, e->mid_inv = 1.0f / q->mid_scale, e->mid_zp = q->mid_zp;
        e->mid_lo = mlo, e->mid_hi = mhi;
        if (q->mid_lo > -INFINITY) e->mid_lo = q_clamp(q_round(q->mid_lo * e->mid_inv) + q->mid_zp, mlo, mhi);
        if (q->mid_hi < INFINITY) e->mid_hi = q_clamp(q_round(q->mid_hi * e->mid_inv) + q->mid_zp, mlo, mhi);
    }
    e->res = q->res;
    e->res_signed = q->res_signed;
    e->res_scale = q->res_scale, e->res_zp = q->res_zp;
    if (c->fq) {
        int64_t m = c->g.m;
        e->fixed = true;
        e->fb = c->fq, e->fm = c->fq + m, e->fs = c->fq + 2 * m;
    }
}

static fx_qconv *qconv_alloc(const fx_qparams *q, int64_t m) {
    fx_qconv *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->mult = malloc(sizeof *c->mult * (size_t)m);
    c->bias = malloc(sizeof *c->bias * (size_t)m);
    c->multq = malloc(sizeof *c->multq * (size_t)m);
    c->biasq = malloc(sizeof *c->biasq * (size_t)m);
    if (!c->mult || !c->bias || !c->multq || !c->biasq) {
        fx_qconv_free(c);
        return NULL;
    }
    for (int64_t i = 0; i < m; i++) {
        c->mult[i] = q->x_scale * q->w_scale[q->w_scale_n == 1 ? 0 : i];
        c->bias[i] = q->bias ? q->bias[i] : 0.0f;
        c->multq[i] = c->mult[i] / q->y_scale;
        c->biasq[i] = c->bias[i] / q->y_scale + (float)q->y_zp;
    }
    if (q->fixed && !q->mid && !q->res) { /* TFLite's requantization: int32 bias, q31 multiplier + shift */
        c->fq = malloc(sizeof *c->fq * (size_t)(3 * m));
        if (!c->fq) {
            fx_qconv_free(c);
            return NULL;
        }
        for (int64_t i = 0; i < m; i++) {
            double b = c->mult[i] > 0 ? rint((double)c->bias[i] / (double)c->mult[i]) : 0;
            int shift;
            c->fq[i] = (int32_t)(b > 2147483647.0 ? 2147483647.0 : b < -2147483647.0 ? -2147483647.0 : b);
            nnfx_rt_qf_quantize_multiplier((double)c->mult[i] / (double)q->y_scale, &c->fq[m + i], &shift);
            c->fq[2 * m + i] = shift;
        }
    }
    c->g.m = m;
    c->x_signed = q->x_signed;
    c->x_zp = q->x_zp + (q->x_signed ? 128 : 0);
    c->x_pad = q->x_signed ? (uint8_t)(int8_t)q->x_zp : (uint8_t)q->x_zp;
    fill_epi(c, q);
    return c;
}

static int64_t win_pitch(const fx_qconv *c);
static int64_t row_cols(const fx_qconv *c);

/* columns per block: the packed block stays within FX_QB_BYTES, in whole
 * widest tiles (32 columns on AVX-512 VNNI, else 16) so that only the last
 * block may end in a narrower one */
static void pick_blocks(fx_qconv *c) {
    int64_t unit = fx_qisa_active() == FX_QISA_AVX512VNNI ? 32 : 16;
    int64_t nb = FX_QB_BYTES / (((c->kk + 3) / 4) * 4);
    nb = nb < unit ? unit : nb > 1024 ? 1024 : nb / unit * unit;
    /* blocks of even size (in whole tiles) rather than a short last one */
    int64_t ncb = (c->gcols + nb - 1) / nb, even = ((c->gcols + ncb - 1) / ncb + unit - 1) / unit * unit;
    if (even < nb) nb = even;
    if (nb >= c->gcols) nb = c->gcols;
    c->nb = nb;
    c->ncb = (c->gcols + nb - 1) / nb;
}

static int64_t block_out_rows(const fx_qconv *c, int64_t nb);
static int64_t quad_rows(const fx_qconv *c, int64_t oy0, int64_t oy1);

/* The quad layout's weights (k over (quad, ky, kx, channel in quad), the
 * channels past cg zero) and step offsets. false on OOM. */
static bool pack_quad(fx_qconv *c, const int8_t *w) {
    const fx_qconv_geom *g = &c->g;
    int64_t taps = g->kh * g->kw, s = g->sw, rw = c->gpitch;
    c->cq4 = (c->cg + 3) / 4;
    c->pstride = quad_rows(c, 0, block_out_rows(c, c->nb) - 1) * rw * 4;
    c->qstride = s * s * c->pstride;
    int64_t k4 = c->cq4 * taps * 4;
    int8_t *w4 = malloc((size_t)(c->mg * k4));
    c->koff = malloc(sizeof *c->koff * (size_t)(c->cq4 * taps));
    bool ok = w4 && c->koff;
    for (int64_t gi = 0; ok && gi < g->group; gi++) {
        const int8_t *wgrp = w + gi * c->mg * c->kk;
        for (int64_t m = 0; m < c->mg; m++)
            for (int64_t cq = 0; cq < c->cq4; cq++)
                for (int64_t t = 0; t < taps; t++)
                    for (int64_t j = 0; j < 4; j++) {
                        int64_t ci = 4 * cq + j;
                        w4[m * k4 + (cq * taps + t) * 4 + j] = ci < c->cg ? wgrp[(m * c->cg + ci) * taps + t] : 0;
                    }
        ok = fx_qgemm_pack_w(&c->wg[gi], w4, c->mg, k4, k4) &&
             (c->wg[gi].kern == FX_QK_VNNI512 || c->wg[gi].kern == FX_QK_VNNI);
    }
    for (int64_t cq = 0; ok && cq < c->cq4; cq++)
        for (int64_t ky = 0; ky < g->kh; ky++)
            for (int64_t kx = 0; kx < g->kw; kx++)
                c->koff[(cq * g->kh + ky) * g->kw + kx] =
                    cq * c->qstride + (ky % s * s + kx % s) * c->pstride + (ky / s * rw + kx / s) * 4;
    free(w4);
    return ok;
}

/* The taps [*t0, *t1) of a window (k taps, stride s, begin pad p, image
 * size n) that fall inside the image for output o. */
static void taps_inside(int64_t o, int64_t s, int64_t p, int64_t k, int64_t n, int64_t *t0, int64_t *t1) {
    *t0 = p - o * s > 0 ? p - o * s : 0;
    *t1 = n + p - o * s < k ? n + p - o * s : k;
}

/* The index of (a, b) in the list r of *nr pairs, appended if new. */
static int32_t range_class(int64_t (*r)[2], int32_t *nr, int64_t a, int64_t b) {
    for (int32_t i = 0; i < *nr; i++)
        if (r[i][0] == a && r[i][1] == b) return i;
    r[*nr][0] = a, r[*nr][1] = b;
    return (*nr)++;
}

/* oneDNN's sums for c where fx_qdnnl_new offers them (c->dn stays NULL
 * otherwise) and where they paid on an AVX-512 VNNI host (Zen 4, one
 * thread): spatial windows, and 1x1 convs over at most 64 positions or
 * strided (else a 1x1 conv is a plain GEMM that nnfx's own tiles ran as
 * fast, without the transposes); sums that fit in L2 (the 7x7/s2 stem's 3 MB of
 * them cost more to requantize than oneDNN saved).
 * The sums skip the taps in the pads, so the zero point's compensation
 * -zp * (sum of the weights of the taps inside) depends on which rows and
 * columns of the window are inside: dcomp holds it per class of
 * positions (a row class times a column class), dcls the class of each
 * position. false on OOM. */
static bool use_dnnl(fx_qconv *c, const int8_t *w, int threads) {
    const fx_qconv_geom *g = &c->g;
    if (threads > 1) return true; /* never run on more threads */
    /* a 1x1 conv over few positions (nnfx's 32-column tiles half empty) or
     * strided (nnfx's gathers its im2col rows) */
    bool pointwise_ok = g->oh * g->ow <= 64 || g->sh * g->sw > 1;
    if ((g->kh * g->kw == 1 && !pointwise_ok) || g->oh * g->ow * g->m * 4 > (1 << 20)) return true;
    c->dn = fx_qdnnl_new(g, w, c->x_signed);
    if (!c->dn) return true;
    int64_t taps = g->kh * g->kw, np = g->oh * g->ow;
    int64_t(*rr)[2] = malloc(sizeof *rr * (size_t)(g->oh + g->ow));
    int32_t *wt = calloc((size_t)(g->m * taps), sizeof *wt), *rc = malloc(sizeof *rc * (size_t)(g->oh + g->ow));
    c->dcls = malloc(sizeof *c->dcls * (size_t)np);
    bool ok = rr && wt && rc && c->dcls;
    int32_t nrow = 0, ncol = 0;
    for (int64_t m = 0; ok && m < g->m; m++) /* per tap, summed over the channels */
        for (int64_t k = 0; k < c->kk; k++)
            wt[m * taps + k % taps] += w[m * c->kk + k];
    for (int64_t i = 0; ok && i < g->oh + g->ow; i++) {
        bool row = i < g->oh;
        int64_t t0, t1;
        taps_inside(row ? i : i - g->oh, row ? g->sh : g->sw, row ? g->ph : g->pw, row ? g->kh : g->kw,
                    row ? g->h : g->w, &t0, &t1);
        rc[i] = row ? range_class(rr, &nrow, t0, t1) : range_class(rr + g->oh, &ncol, t0, t1);
    }
    c->dcomp = ok ? malloc(sizeof *c->dcomp * (size_t)(nrow * ncol * g->m)) : NULL;
    ok = ok && c->dcomp;
    int32_t zp = c->x_signed ? c->x_zp - 128 : c->x_zp; /* the zero point as the sums see it */
    for (int32_t a = 0; ok && a < nrow; a++)
        for (int32_t b = 0; b < ncol; b++)
            for (int64_t m = 0; m < g->m; m++) {
                int32_t sum = 0;
                for (int64_t ky = rr[a][0]; ky < rr[a][1]; ky++)
                    for (int64_t kx = rr[g->oh + b][0]; kx < rr[g->oh + b][1]; kx++)
                        sum += wt[m * taps + ky * g->kw + kx];
                c->dcomp[(a * ncol + b) * g->m + m] = -zp * sum;
            }
    for (int64_t p = 0; ok && p < np; p++)
        c->dcls[p] = rc[p / g->ow] * ncol + rc[g->oh + p % g->ow];
    free(rr), free(wt), free(rc);
    return ok;
}

fx_qconv *fx_qconv_new(const fx_qconv_geom *g, const int8_t *w, const fx_qparams *q) {
    fx_qconv *c = qconv_alloc(q, g->m);
    if (!c) return NULL;
    c->g = *g;
    c->cg = g->c / g->group, c->mg = g->m / g->group;
    c->kk = c->cg * g->kh * g->kw;
    c->ncols = c->gcols = g->oh * g->ow;
    c->dw = c->cg == 1 && c->mg == 1 && g->group > 1;
    if (c->dw) {
        int64_t kk = g->kh * g->kw;
        c->dww = malloc(sizeof *c->dww * (size_t)(g->m * kk));
        c->g.m = g->m;
        if (!c->dww) goto oom;
        c->e.bias = c->bias;
        for (int64_t i = 0; i < g->m * kk; i++)
            c->dww[i] = w[i];
        c->dph = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh + 1;
        c->dpw = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1;
        /* wsum folded into the plane: x - zp is stored, so no compensation */
        return c;
    }
    /* the grid when its columns, in whole 16-column tiles, are at most 1/8
     * more than the output's: stride 1, or stride 2 over phase planes with
     * the quad window (the VNNI tiles: AVX-512 or AVX-VNNI) */
    bool quad = fx_qisa_active() == FX_QISA_AVX512VNNI ||             /* its window tiles fuse either epilogue */
                (fx_qisa_active() == FX_QISA_AVXVNNI && !c->e.fixed); /* AVX-VNNI's the float one only */
    int64_t s = g->sw;
    c->gpitch = (win_pitch(c) + s - 1) / s;
    int64_t gt = (g->oh * c->gpitch + 15) / 16, ot = (c->ncols + 15) / 16;
    c->grid = g->sh == s && (s == 1 || (s == 2 && quad)) && g->dh == 1 && g->dw == 1 && (g->kh > 1 || g->kw > 1) &&
              gt * 8 <= ot * 9;
    if (c->grid) c->gcols = g->oh * c->gpitch;
    pick_blocks(c);
    c->wg = calloc((size_t)g->group, sizeof *c->wg);
    if (!c->wg) goto oom;
    c->quad = c->grid && quad;
    if (c->quad) {
        if (!pack_quad(c, w)) goto oom;
    } else {
        for (int64_t gi = 0; gi < g->group; gi++)
            if (!fx_qgemm_pack_w(&c->wg[gi], w + gi * c->mg * c->kk, c->mg, c->kk, c->kk)) goto oom;
    }
    if (!use_dnnl(c, w, q->threads)) goto oom;
    return c;
oom:
    fx_qconv_free(c);
    return NULL;
}

#define FX_QGEMV_ROWS 4

fx_qconv *fx_qfc_new(int64_t rows, int64_t k, int64_t m, const int8_t *w, const fx_qparams *q) {
    fx_qconv *c = qconv_alloc(q, m);
    if (!c) return NULL;
    c->fc = true;
    c->g.n = 1, c->g.group = 1, c->g.m = m, c->g.c = k;
    c->cg = k, c->mg = m, c->kk = k, c->ncols = c->gcols = rows;
    pick_blocks(c);
    c->wg = calloc(1, sizeof *c->wg);
    c->gemv = rows <= FX_QGEMV_ROWS && fx_qisa_active() == FX_QISA_AVX512VNNI;
    if (c->wg && c->gemv) {
        c->kpad = (k + 63) / 64 * 64;
        c->wrow = aligned_alloc(64, (size_t)(m * c->kpad));
        c->wsum = malloc(sizeof *c->wsum * (size_t)m);
        if (c->wrow && c->wsum) {
            memset(c->wrow, 0, (size_t)(m * c->kpad));
            for (int64_t i = 0; i < m; i++) {
                int32_t sum = 0;
                for (int64_t kk = 0; kk < k; kk++)
                    sum += c->wrow[i * c->kpad + kk] = w[i * k + kk];
                c->wsum[i] = sum;
            }
            return c;
        }
    }
    if (!c->wg || c->gemv || !fx_qgemm_pack_w(c->wg, w, m, k, k)) {
        fx_qconv_free(c);
        return NULL;
    }
    return c;
}

void fx_qconv_free(fx_qconv *c) {
    if (!c) return;
    if (c->wg)
        for (int64_t gi = 0; gi < c->g.group; gi++)
            fx_qgemm_w_free(&c->wg[gi]);
    free(c->wg);
    free(c->dww);
    free(c->koff);
    free(c->wrow);
    free(c->wsum);
    free(c->mult);
    free(c->bias);
    free(c->multq);
    free(c->biasq);
    free(c->fq);
    fx_qdnnl_free(c->dn);
    free(c->dcomp);
    free(c->dcls);
    free(c);
}

static int64_t round64(int64_t b) { return (b + 63) / 64 * 64; }

/* int16 elements of the depthwise plane: the padded plane, then slack for
 * the vector rows reading up to 16 outputs past ow (their sums are dropped) */
/* the padded plane and the slack a 32-wide vector row may read past it */
static int64_t dw_plane_elems(const fx_qconv *c) { return c->dph * c->dpw + 32 * c->g.sw + c->g.kw * c->g.dw + 32; }

/* the packed block of the largest group layout */
static int64_t pack_bytes(const fx_qconv *c) {
    int64_t b = 0;
    if (c->quad || c->gemv) return 0; /* read in place */
    for (int64_t gi = 0; gi < c->g.group; gi++) {
        int64_t x = fx_qpack_b_bytes(&c->wg[gi], c->nb);
        if (x > b) b = x;
    }
    return b;
}

static int64_t win_bytes(const fx_qconv *c);

/* The row pitch of a block's im2col rows (and of the grid's staging): the
 * block's columns rounded up to a vector, plus a vector of slack. */
static int64_t block_pitch(const fx_qconv *c) { return (c->nb + 15) / 16 * 16 + 16; }

int64_t fx_qconv_scratch_bytes(const fx_qconv *c) {
    if (c->dw)
        return round64(dw_plane_elems(c) * 2) + round64((c->g.oh * (c->g.ow > c->dpw ? c->g.ow : c->dpw) + 32) * 4);
    if (c->gemv) /* a row of x padded, the row's sums */
        return round64(c->kpad) + round64(4 * (c->g.m + 16));
    int64_t nbr = block_pitch(c);
    int64_t own = round64(pack_bytes(c)) + round64(4 * nbr) + (c->fc ? 0 : round64(win_bytes(c))) +
                  (c->grid ? 2 * round64(c->mg * nbr) : 0); /* grid: staged output and residual */
    int64_t dn = c->dn ? fx_qdnnl_scratch_bytes(c->dn) : 0;
    return own > dn ? own : dn;
}

void fx_qconv_describe(const fx_qconv *c, char *buf, size_t len) {
    const fx_qepi *e = &c->e;
    const char *ker = c->dw                            ? "direct"
                      : c->gemv                        ? "u8s8 avx512-vnni gemv"
                      : c->wg[0].kern == FX_QK_UBS     ? (c->wg[0].fix ? "u8s8 maddubs + fixes" : "u8s8 maddubs")
                      : c->wg[0].kern == FX_QK_MADD    ? "u8s8 madd16"
                      : c->wg[0].kern == FX_QK_VNNI    ? "u8s8 avx-vnni"
                      : c->wg[0].kern == FX_QK_VNNI512 ? "u8s8 avx512-vnni"
                                                       : "portable";
    char head[64];
    if (c->fc)
        snprintf(head, sizeof head, "qgemm %lldx%lld", (long long)c->g.m, (long long)c->kk);
    else
        snprintf(head, sizeof head, "%s%lldx%lld/s%lld", c->dw ? "qdwconv" : "qconv", (long long)c->g.kh,
                 (long long)c->g.kw, (long long)c->g.sh);
    char dn[96] = "";
    if (c->dn) snprintf(dn, sizeof dn, "; one thread: onednn %s sums", fx_qdnnl_impl(c->dn));
    snprintf(buf, len, "%s int8 (%s, %s%s%s) + bias%s%s%s", head, ker, fx_qisa_name(fx_qisa_active()), dn,
             c->quad && c->g.sw == 2 ? ", padded grid, 4-channel window, phase planes"
             : c->quad               ? ", padded grid, 4-channel window"
             : c->grid               ? ", padded grid"
                                     : "",
             e->mid ? " + requant" : "", e->res ? " + add" : "",
             e->lo != (e->y_signed ? -128 : 0) || e->hi != (e->y_signed ? 127 : 255) ? " + clamp" : "");
}

typedef struct qjob {
    const fx_qconv *c;
    const uint8_t *x;
    const void *res;
    void *y;
    char *scratch;
    int64_t sbytes;
} qjob;

/* Output rows a block of nb columns can touch. */
static int64_t block_out_rows(const fx_qconv *c, int64_t nb) {
    int64_t rw = row_cols(c), orows = (nb + rw - 2) / rw + 1;
    return orows < c->g.oh ? orows : c->g.oh;
}

/* The im2col of a column block reads a window of the input: the input rows
 * its output rows need, for every channel of the group, copied once per
 * task into scratch in the u8 domain (s8 flipped) with the pads as the zero
 * point, so each im2col row segment is a plain (strided) copy.
 * win_rows: input rows of a block of nb columns; win_pitch: its row pitch. */
static int64_t win_rows(const fx_qconv *c, int64_t nb) {
    const fx_qconv_geom *g = &c->g;
    return (block_out_rows(c, nb) - 1) * g->sh + (g->kh - 1) * g->dh + 1;
}

static int64_t win_pitch(const fx_qconv *c) {
    const fx_qconv_geom *g = &c->g;
    int64_t right = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1 - g->pw - g->w;
    return g->pw + g->w + (right > 0 ? right : 0);
}

/* GEMM columns per output row: the window's pitch on the grid, else ow. */
static int64_t row_cols(const fx_qconv *c) { return c->grid ? c->gpitch : c->g.ow; }

/* Phase-plane rows of the quad window for output rows [oy0, oy1]. */
static int64_t quad_rows(const fx_qconv *c, int64_t oy0, int64_t oy1) {
    return oy1 - oy0 + 1 + (c->g.kh - 1) / c->g.sh;
}

#define FX_QWIN_SLACK 32 /* vector copies may read this far past a window */
/* the quad window's tiles read up to a 32-column tile past the last valid
 * column of a tap (columns dropped) */
#define FX_QQUAD_SLACK 256

static int64_t win_bytes(const fx_qconv *c) {
    if (c->quad) return c->cq4 * c->qstride + FX_QQUAD_SLACK;
    return c->cg * win_rows(c, c->nb) * win_pitch(c) + FX_QWIN_SLACK;
}

/* d[t] = s[t] ^ f for t < n */
static void copy_flip(uint8_t *d, const uint8_t *s, int64_t n, uint8_t f) {
    int64_t t = 0;
#if FX_Q_X86
    const __m128i vf = _mm_set1_epi8((char)f);
    for (; t + 16 <= n; t += 16)
        _mm_storeu_si128((__m128i *)(d + t), _mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + t)), vf));
#endif
    for (; t < n; t++)
        d[t] = s[t] ^ f;
}

/* Fills the window: input rows [iy0, iy0 + rows) of the cg channels at xi,
 * each padded to win_pitch with the u8 zero point. */
static void fill_window(const fx_qconv *c, const uint8_t *xi, int64_t iy0, int64_t rows, uint8_t *win) {
    const fx_qconv_geom *g = &c->g;
    int64_t pitch = win_pitch(c);
    uint8_t zp = (uint8_t)c->x_zp, f = c->x_signed ? 0x80 : 0;
    for (int64_t ci = 0; ci < c->cg; ci++)
        for (int64_t r = 0; r < rows; r++) {
            uint8_t *d = win + (ci * rows + r) * pitch;
            int64_t iy = iy0 + r;
            if (iy < 0 || iy >= g->h) {
                memset(d, zp, (size_t)pitch);
                continue;
            }
            for (int64_t t = 0; t < g->pw; t++) /* pads are short: no call */
                d[t] = zp;
            copy_flip(d + g->pw, xi + (ci * g->h + iy) * g->w, g->w, f);
            for (int64_t t = g->pw + g->w; t < pitch; t++)
                d[t] = zp;
        }
    memset(win + c->cg * rows * pitch, zp, FX_QWIN_SLACK);
}

#if FX_Q_X86
/* A row's 16 positions from its loaded bytes: lo (stride 1), or the even
 * bytes of lo and hi (stride 2); flipped by vf (s8 to u8). */
static inline __m128i quad_pick(__m128i lo, __m128i hi, int64_t s, __m128i vf) {
    const __m128i even = _mm_set1_epi16(0xff);
    __m128i v = s == 1 ? lo : _mm_packus_epi16(_mm_and_si128(lo, even), _mm_and_si128(hi, even));
    return _mm_xor_si128(v, vf);
}

/* Positions [t, t1) of quad_row, 16 at a time: 16 (stride 1) or 32 (stride
 * 2) bytes of each row (src[j] + ix for position t, NULL: the zero point),
 * masked at the row's end (w bytes; AVX-512BW). */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void quad_vec_avx512(const uint8_t *const *src,
                                                                                      int64_t s, int64_t ix, int64_t w,
                                                                                      int64_t t, int64_t t1, uint8_t zp,
                                                                                      uint8_t f, uint8_t *d) {
    const __m128i vz = _mm_set1_epi8((char)zp), vf = _mm_set1_epi8((char)f);
    for (; t < t1; t += 16, ix += 16 * s) {
        int64_t n = t1 - t < 16 ? t1 - t : 16, avail = w - ix;
        __mmask16 m0 = (__mmask16)(avail >= 16 ? 0xFFFF : (1u << avail) - 1);
        __mmask16 m1 = (__mmask16)(s == 1 || avail <= 16 ? 0 : avail >= 32 ? 0xFFFF : (1u << (avail - 16)) - 1);
        __m128i v[4], o[4];
        for (int j = 0; j < 4; j++)
            v[j] = src[j] ? quad_pick(_mm_maskz_loadu_epi8(m0, src[j] + ix), _mm_maskz_loadu_epi8(m1, src[j] + ix + 16),
                                      s, vf)
                          : vz;
        quad_interleave(v, o);
        for (int k = 0; k < 4; k++) { /* bytes [16k, 16k + 16) of the 4n written */
            int64_t left = 4 * n - 16 * k;
            if (left <= 0) break;
            _mm_mask_storeu_epi8(d + 4 * t + 16 * k, (__mmask16)(left >= 16 ? 0xFFFF : (1u << left) - 1), o[k]);
        }
    }
}

/* quad_vec_avx512 without masks (SSE2): the whole groups of 16 whose bytes
 * lie in the row; returns where it stopped (the rest is the caller's). */
static int64_t quad_vec_sse(const uint8_t *const *src, int64_t s, int64_t ix, int64_t w, int64_t t, int64_t t1,
                            uint8_t zp, uint8_t f, uint8_t *d) {
    const __m128i vz = _mm_set1_epi8((char)zp), vf = _mm_set1_epi8((char)f);
    for (; t + 16 <= t1 && ix + 16 * s <= w; t += 16, ix += 16 * s) {
        __m128i v[4], o[4];
        for (int j = 0; j < 4; j++) {
            if (!src[j]) {
                v[j] = vz;
                continue;
            }
            const __m128i *p = (const __m128i *)(src[j] + ix);
            v[j] = quad_pick(_mm_loadu_si128(p), s == 1 ? vz : _mm_loadu_si128(p + 1), s, vf);
        }
        quad_interleave(v, o);
        for (int k = 0; k < 4; k++)
            _mm_storeu_si128((__m128i *)(d + 4 * t + 16 * k), o[k]);
    }
    return t;
}
#endif

/* Channel quad cq's row iy (in the image) as phase plane b's row of q
 * positions at d: position t holds the 4 channels of padded column t * s +
 * b (the zero point outside the image and past cg). */
static void quad_row(const fx_qconv *c, const uint8_t *xi, int64_t cq, int64_t iy, int64_t b, int64_t q, uint8_t *d) {
    const fx_qconv_geom *g = &c->g;
    int64_t s = g->sw;
    uint8_t zp = (uint8_t)c->x_zp, f = c->x_signed ? 0x80 : 0;
    const uint8_t *src[4];
    for (int j = 0; j < 4; j++)
        src[j] = 4 * cq + j < c->cg ? xi + ((4 * cq + j) * g->h + iy) * g->w : NULL;
    /* positions [t0, t1) read the image: column t * s + b - pw in [0, w) */
    int64_t t0 = (g->pw - b + s - 1) / s, t1 = (g->w - 1 + g->pw - b) / s + 1;
    if (t0 < 0) t0 = 0;
    if (t1 > q) t1 = q;
    if (t1 < t0) t1 = t0;
    memset(d, zp, (size_t)(t0 * 4));
    int64_t t = t0;
#if FX_Q_X86
    if (fx_qisa_active() == FX_QISA_AVX512VNNI) {
        quad_vec_avx512(src, s, t0 * s + b - g->pw, g->w, t0, t1, zp, f, d);
        t = t1;
    } else {
        t = quad_vec_sse(src, s, t0 * s + b - g->pw, g->w, t0, t1, zp, f, d);
    }
#endif
    for (; t < t1; t++) {
        int64_t ix = t * s + b - g->pw;
        for (int j = 0; j < 4; j++)
            d[4 * t + j] = src[j] ? (uint8_t)(src[j][ix] ^ f) : zp;
    }
    memset(d + 4 * t1, zp, (size_t)((q - t1) * 4));
}

/* fill_window for the quad layout: the phase-plane rows [0, rows) from
 * output row oy0 on (phase (a, b) row r: padded row (oy0 + r) * s + a) of
 * every channel quad, pitch gpitch positions; the slack after the last
 * quad holds the zero point. */
static void fill_quad_window(const fx_qconv *c, const uint8_t *xi, int64_t oy0, int64_t rows, uint8_t *win) {
    const fx_qconv_geom *g = &c->g;
    int64_t s = g->sw, q = c->gpitch;
    uint8_t zp = (uint8_t)c->x_zp;
    for (int64_t cq = 0; cq < c->cq4; cq++)
        for (int64_t a = 0; a < s; a++)
            for (int64_t r = 0; r < rows; r++) {
                int64_t iy = (oy0 + r) * s + a - g->ph;
                for (int64_t b = 0; b < s; b++) {
                    uint8_t *d = win + cq * c->qstride + (a * s + b) * c->pstride + r * q * 4;
                    if (iy < 0 || iy >= g->h)
                        memset(d, zp, (size_t)(q * 4));
                    else
                        quad_row(c, xi, cq, iy, b, q, d);
                }
            }
    memset(win + c->cq4 * c->qstride, zp, FX_QQUAD_SLACK);
}

/* d[t] = s[t * sw] for t < n. Vector copies may write up to 15 bytes past
 * d + n (the next segment or the row's slack) and read up to
 * FX_QWIN_SLACK bytes past the last value used (the window's slack). */
static inline void seg_copy(uint8_t *d, const uint8_t *s, int64_t n, int64_t sw) {
#if FX_Q_X86
    if (sw == 1) {
        for (int64_t t = 0; t < n; t += 16)
            _mm_storeu_si128((__m128i *)(d + t), _mm_loadu_si128((const __m128i *)(s + t)));
        return;
    }
    if (sw == 2) {
        const __m128i even = _mm_set1_epi16(0xff);
        for (int64_t t = 0; t < n; t += 8) {
            __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(s + 2 * t)), even);
            _mm_storel_epi64((__m128i *)(d + t), _mm_packus_epi16(v, v));
        }
        return;
    }
#endif
    for (int64_t t = 0; t < n; t++)
        d[t] = s[t * sw];
}

/* one im2col row (channel ci of the window, tap ky, kx) over nc columns from
 * output position (oy, ox); the window starts at input row iy0 */
static void im2col_row(const fx_qconv *c, const uint8_t *win, int64_t wrows, int64_t iy0, int64_t ci, int64_t ky,
                       int64_t kx, int64_t oy, int64_t ox, int64_t nc, uint8_t *dst) {
    const fx_qconv_geom *g = &c->g;
    int64_t pitch = win_pitch(c);
    const uint8_t *base = win + ci * wrows * pitch + kx * g->dw;
    for (int64_t n = 0; n < nc;) {
        int64_t len = g->ow - ox < nc - n ? g->ow - ox : nc - n;
        seg_copy(dst + n, base + (oy * g->sh - g->ph + ky * g->dh - iy0) * pitch + ox * g->sw, len, g->sw);
        n += len;
        ox = 0;
        oy++;
    }
}

/* Grid columns [n0, n0 + nc) <-> their outputs: the runs of valid columns
 * (ox < ow) of each output row, grid position g - n0 and output position
 * oy * ow + ox, copied for every row of mg rows (row pitch nbr in the
 * grid, ncols in the planes) from src to dst: planes to grid (to_grid) or
 * grid to planes. */
static void grid_copy(const fx_qconv *c, int64_t n0, int64_t nc, int64_t nbr, bool to_grid, const uint8_t *src,
                      uint8_t *dst) {
    int64_t pitch = c->gpitch, ow = c->g.ow;
    for (int64_t m = 0; m < c->mg; m++)
        for (int64_t g = n0; g < n0 + nc;) {
            int64_t oy = g / pitch, ox = g % pitch, len = pitch - ox < n0 + nc - g ? pitch - ox : n0 + nc - g;
            int64_t v = ox < ow ? (ow - ox < len ? ow - ox : len) : 0;
            int64_t go = m * nbr + (g - n0), po = m * c->ncols + oy * ow + ox;
            if (v > 0) memcpy(dst + (to_grid ? go : po), src + (to_grid ? po : go), (size_t)v);
            g += len;
        }
}

/* The grid GEMM of one column block: the residual's valid columns staged
 * into grid layout, the fused tiles writing their outputs to a grid
 * buffer, then the valid columns to y (the group's planes; res likewise,
 * or NULL). stage: 2 * round64(mg * nbr) bytes of scratch. */
static void grid_gemm(const fx_qconv *c, const fx_qgemm_w *w, const uint8_t *bp, int64_t n0, int64_t nc, int64_t gi,
                      const uint8_t *res, uint8_t *y, uint8_t *stage, int64_t nbr) {
    uint8_t *ys = stage, *rs = stage + round64(c->mg * nbr);
    if (res) grid_copy(c, n0, nc, nbr, true, res, rs);
    if (c->quad) /* bp: the quad window at the block's first column */
        fx_qgemm_run_win(w, bp, c->koff, nc, c->x_zp, &c->e, gi * c->mg, res ? rs : NULL, ys, nbr);
    else
        fx_qgemm_run(w, bp, nc, c->x_zp, &c->e, gi * c->mg, res ? rs : NULL, ys, nbr, 1);
    grid_copy(c, n0, nc, nbr, false, ys, y);
}

static void gemm_task(void *ctx, int64_t t, int tid) {
    const qjob *j = ctx;
    const fx_qconv *c = j->c;
    const fx_qconv_geom *g = &c->g;
    int64_t cb = t % c->ncb, gi = t / c->ncb % g->group, i = t / c->ncb / g->group;
    int64_t n0 = cb * c->nb, nc = c->gcols - n0 < c->nb ? c->gcols - n0 : c->nb;
    uint8_t *bp = (uint8_t *)j->scratch + tid * j->sbytes;
    int64_t nbr = block_pitch(c);
    uint8_t *rows = bp + round64(pack_bytes(c));
    const fx_qgemm_w *w = &c->wg[gi];
    if (c->gemv) { /* each row of x: its padded copy, the dot products, the epilogue per output */
        uint8_t flip = c->x_signed ? 0x80 : 0, *xr = bp;
        int32_t *acc = (int32_t *)(bp + round64(c->kpad));
        for (int64_t n = n0; n < n0 + nc; n++) {
            const uint8_t *xs = j->x + n * c->kk;
            for (int64_t kk = 0; kk < c->kpad; kk++)
                xr[kk] = kk < c->kk ? (uint8_t)(xs[kk] ^ flip) : 0;
            fx_qgemv_avx512vnni(xr, c->wrow, g->m, c->kpad, acc);
            for (int64_t mm = 0; mm < g->m; mm++) {
                int64_t o = n * g->m + mm;
                fx_qepi_row_c(&c->e, mm, -c->x_zp * c->wsum[mm], acc + mm, 1,
                              j->res ? (const uint8_t *)j->res + o : NULL, (uint8_t *)j->y + o, 1);
            }
        }
        return;
    }
    if (c->fc) {
        /* column n of B is row n0 + n of x: kr contiguous bytes per step */
        const uint8_t *xs = j->x + n0 * c->kk;
        uint8_t flip = c->x_signed ? 0x80 : 0;
        int64_t nr = w->nr;
        for (int64_t q = 0; q < w->ks; q++)
            for (int64_t n = 0; n < (nc + nr - 1) / nr * nr; n++) {
                uint8_t *d = bp + (n / nr) * w->ks * nr * 4 + q * nr * 4 + (n % nr) * 4;
                for (int b = 0; b < w->kr; b++) {
                    int64_t kk = q * w->kr + b;
                    uint8_t v = n < nc && kk < c->kk ? (uint8_t)(xs[n * c->kk + kk] ^ flip) : 0;
                    if (w->kr == 4)
                        d[b] = v;
                    else
                        d[2 * b] = v, d[2 * b + 1] = 0;
                }
            }
        fx_qgemm_run(w, bp, nc, c->x_zp, &c->e, 0, j->res ? (const uint8_t *)j->res + n0 * g->m : NULL,
                     (uint8_t *)j->y + n0 * g->m, 1, g->m);
        return;
    }
    const uint8_t *xi = j->x + (i * g->c + gi * c->cg) * g->h * g->w;
    /* 1x1, stride 1, no padding: the im2col rows are the input planes (s8: flipped to u8 while packing) */
    bool direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0 && g->oh == g->h &&
                  g->ow == g->w;
    int64_t rw = row_cols(c);
    int64_t oy0 = n0 / rw, ox0 = n0 % rw, ci = 0, ky = 0, kx = 0; /* (ci, ky, kx) of row kk */
    uint8_t *win = rows + 4 * nbr;
    int64_t iy0 = oy0 * g->sh - g->ph, wrows = ((n0 + nc - 1) / rw - oy0) * g->sh + (g->kh - 1) * g->dh + 1;
    if (c->quad) {
        fill_quad_window(c, xi, oy0, quad_rows(c, oy0, (n0 + nc - 1) / rw), win);
        grid_gemm(c, w, win + ox0 * 4, n0, nc, gi,
                  j->res ? (const uint8_t *)j->res + (i * g->m + gi * c->mg) * c->ncols : NULL,
                  (uint8_t *)j->y + (i * g->m + gi * c->mg) * c->ncols, win + round64(win_bytes(c)), nbr);
        return;
    }
    if (!direct) fill_window(c, xi, iy0, wrows, win);
    for (int64_t q = 0; q < w->ks; q++) {
        const uint8_t *r[4] = {NULL, NULL, NULL, NULL};
        for (int b = 0; b < w->kr; b++) {
            int64_t kk = q * w->kr + b;
            if (kk >= c->kk) continue;
            if (direct)
                r[b] = xi + kk * g->h * g->w + n0;
            else if (c->grid) /* grid column n0 + t reads window row ky, column ox0 + t + kx */
                r[b] = win + (ci * wrows + ky) * rw + kx + ox0;
            else {
                im2col_row(c, win, wrows, iy0, ci, ky, kx, oy0, ox0, nc, rows + b * nbr);
                r[b] = rows + b * nbr;
            }
            if (++kx == g->kw) {
                kx = 0;
                if (++ky == g->kh) ky = 0, ci++;
            }
        }
        fx_qpack_b_step_flip(w, r, nc, q, direct && c->x_signed ? 0x80 : 0, bp);
    }
    if (c->grid) {
        grid_gemm(c, w, bp, n0, nc, gi, j->res ? (const uint8_t *)j->res + (i * g->m + gi * c->mg) * c->ncols : NULL,
                  (uint8_t *)j->y + (i * g->m + gi * c->mg) * c->ncols, win + round64(win_bytes(c)), nbr);
        return;
    }
    int64_t off = (i * g->m + gi * c->mg) * c->ncols + n0;
    fx_qgemm_run(w, bp, nc, c->x_zp, &c->e, gi * c->mg, j->res ? (const uint8_t *)j->res + off : NULL,
                 (uint8_t *)j->y + off, c->ncols, 1);
}

void fx_qdw_row_c(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t sw, int64_t dh,
                  int64_t dw, int32_t *acc, int64_t ow) {
    for (int64_t ox = 0; ox < ow; ox++)
        acc[ox] = 0;
    for (int64_t ky = 0; ky < kh; ky++)
        for (int64_t kx = 0; kx < kw; kx++) {
            const int16_t *s = xp + ky * dh * pitch + kx * dw;
            int32_t kv = k[ky * kw + kx];
            for (int64_t ox = 0; ox < ow; ox++)
                acc[ox] += s[ox * sw] * kv;
        }
}

/* The int16 padded plane of one depthwise channel (x - zp; the pads hold
 * real zero) and its zeroed slack; plane .. xend is readable input. */
static void plane_i16(const fx_qconv *c, const uint8_t *plane, const uint8_t *xend, int16_t *xp) {
    const fx_qconv_geom *g = &c->g;
    /* x - zp over the padded plane: the pads hold real zero */
    int16_t zp = (int16_t)c->x_zp;
    uint8_t flip = c->x_signed ? 0x80 : 0;
    int64_t lo = g->pw < c->dpw ? g->pw : c->dpw, hi = g->pw + g->w < c->dpw ? g->pw + g->w : c->dpw;
    if (fx_qisa_active() == FX_QISA_AVX512VNNI)
        fx_qdw_pad_plane_avx512(plane, g->h, g->w, g->ph, g->pw, c->dph, c->dpw, zp, flip, xp);
    else
        for (int64_t py = 0; py < c->dph; py++) {
            int64_t iy = py - g->ph;
            int16_t *d = xp + py * c->dpw;
            if (iy < 0 || iy >= g->h) {
                memset(d, 0, sizeof *d * (size_t)c->dpw);
                continue;
            }
            const uint8_t *s = plane + iy * g->w - g->pw;
            for (int64_t px = 0; px < lo; px++) /* pads are short: no call */
                d[px] = 0;
            int64_t px = lo;
#if FX_Q_X86
            const __m128i vf = _mm_set1_epi8((char)flip), vz = _mm_set1_epi16(zp), z = _mm_setzero_si128();
            for (; px + 16 <= hi; px += 16) {
                __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + px)), vf);
                _mm_storeu_si128((__m128i *)(d + px), _mm_sub_epi16(_mm_unpacklo_epi8(b, z), vz));
                _mm_storeu_si128((__m128i *)(d + px + 8), _mm_sub_epi16(_mm_unpackhi_epi8(b, z), vz));
            }
            for (; px < hi; px += 8) {
                /* the last 1-7 values: the vector store may pass hi (the
                 * right pad, the next row or the slack, all written after
                 * this); the load may pass the row, not the tensor's end */
                __m128i b;
                if (s + px + 8 <= xend)
                    b = _mm_loadl_epi64((const __m128i *)(s + px));
                else { /* gathered in a register (a copy in memory would stall the load) */
                    uint64_t v = 0;
                    for (int64_t u = hi - px - 1; u >= 0; u--)
                        v = v << 8 | s[px + u];
                    b = _mm_cvtsi64_si128((long long)v);
                }
                b = _mm_xor_si128(b, vf);
                _mm_storeu_si128((__m128i *)(d + px), _mm_sub_epi16(_mm_unpacklo_epi8(b, z), vz));
            }
#endif
            for (; px < hi; px++)
                d[px] = (int16_t)((int16_t)(uint8_t)(s[px] ^ flip) - zp);
            for (px = hi; px < c->dpw; px++)
                d[px] = 0;
        }
    for (int64_t e = c->dph * c->dpw; e < dw_plane_elems(c); e++)
        xp[e] = 0;
}

static bool g_dw_u8 = true;
void fx_qdw_u8_allow(bool on) { g_dw_u8 = on; }

/* The u8 depthwise of plane ch (fx_qdw_plane_u8) with its epilogue, when
 * the ISA, the shape and the switch allow; false when not taken. */
static bool dw_u8(const fx_qconv *c, const qjob *j, const uint8_t *plane, int64_t ch, int64_t off, uint8_t *xp,
                  int32_t *acc) {
    const fx_qconv_geom *g = &c->g;
    if (!g_dw_u8 || fx_qisa_active() != FX_QISA_AVX512VNNI) return false;
    const int16_t *k = c->dww + ch * g->kh * g->kw;
    /* the epilogue in the kernel's registers when it has neither requant
     * nor residual, else on the sums afterwards */
    bool simple = !c->e.mid && !c->e.res && !c->e.fixed;
    uint8_t *y = (uint8_t *)j->y + off;
    if (!fx_qdw_plane_u8(g, c->dph, c->dpw, (uint8_t)c->x_zp, c->x_signed ? 0x80 : 0, plane, k, xp, acc, &c->e, ch,
                         simple ? y : NULL))
        return false;
    if (simple) return true;
    int32_t sumw = 0;
    for (int64_t i = 0; i < g->kh * g->kw; i++)
        sumw += k[i];
    fx_qepi_row(&c->e, ch, -c->x_zp * sumw, acc, c->ncols, j->res ? (const uint8_t *)j->res + off : NULL, y, 1);
    return true;
}

static void dw_task(void *ctx, int64_t t, int tid) {
    const qjob *j = ctx;
    const fx_qconv *c = j->c;
    const fx_qconv_geom *g = &c->g;
    int64_t ch = t % g->m, i = t / g->m;
    int16_t *xp = (int16_t *)(j->scratch + tid * j->sbytes);
    int32_t *acc = (int32_t *)(j->scratch + tid * j->sbytes + round64(dw_plane_elems(c) * 2));
    const uint8_t *plane = j->x + (i * g->c + ch) * g->h * g->w;
    if (dw_u8(c, j, plane, ch, (i * g->m + ch) * c->ncols, (uint8_t *)xp, acc)) return;
    plane_i16(c, plane, j->x + g->n * g->c * g->h * g->w, xp);
    const int16_t *k = c->dww + ch * g->kh * g->kw;
    bool avx2 = fx_qisa_active() >= FX_QISA_AVX2;
    int64_t off = (i * g->m + ch) * c->ncols;
    /* the plane's sums, then one epilogue over the whole plane. Stride 1:
     * output (oy, ox) reads the plane from oy * dpw + ox on, so one long
     * row over the padded grid (dpw columns per output row) computes every
     * output, then the rows are moved together (the dpw - ow columns in
     * between are dropped). Otherwise row after row (a vector row may
     * write up to 16 values past its end: the next row overwrites them,
     * the buffer has room after the last). */
    if (g->sh == 1 && g->sw == 1) {
        int64_t n = (g->oh - 1) * c->dpw + g->ow;
        uint8_t *yb = (uint8_t *)acc; /* the grid's output bytes, then the rows moved to y */
        if (avx2 && g->dw == 1 && fx_qisa_active() != FX_QISA_AVX512VNNI &&
            fx_qdw_row_s1_q_avx2(xp, c->dpw, k, g->kh, g->kw, g->dh, &c->e, ch, yb, n)) {
            for (int64_t oy = 0; oy < g->oh; oy++)
                memcpy((uint8_t *)j->y + off + oy * g->ow, yb + oy * c->dpw, (size_t)g->ow);
            return;
        }
        if (avx2 && g->dw == 1 && fx_qisa_active() == FX_QISA_AVX512VNNI)
            fx_qdw_row_s1_avx512(xp, c->dpw, k, g->kh, g->kw, g->dh, acc, n);
        else if (avx2)
            fx_qdw_row_avx2(xp, c->dpw, k, g->kh, g->kw, 1, g->dh, g->dw, acc, n);
        else
            fx_qdw_row_c(xp, c->dpw, k, g->kh, g->kw, 1, g->dh, g->dw, acc, n);
        if (c->dpw != g->ow && g->ow % (fx_qisa_active() == FX_QISA_AVX512VNNI ? 16 : 8) == 0 && avx2) {
            /* rows of whole vectors: the epilogue row by row on the grid */
            for (int64_t oy = 0; oy < g->oh; oy++) {
                int64_t o = off + oy * g->ow;
                fx_qepi_row(&c->e, ch, 0, acc + oy * c->dpw, g->ow, j->res ? (const uint8_t *)j->res + o : NULL,
                            (uint8_t *)j->y + o, 1);
            }
            return;
        }
        if (c->dpw != g->ow)
            for (int64_t oy = 1; oy < g->oh; oy++)
                memmove(acc + oy * g->ow, acc + oy * c->dpw, sizeof *acc * (size_t)g->ow);
    } else
        for (int64_t oy = 0; oy < g->oh; oy++) {
            const int16_t *src = xp + oy * g->sh * c->dpw;
            if (avx2)
                fx_qdw_row_avx2(src, c->dpw, k, g->kh, g->kw, g->sw, g->dh, g->dw, acc + oy * g->ow, g->ow);
            else
                fx_qdw_row_c(src, c->dpw, k, g->kh, g->kw, g->sw, g->dh, g->dw, acc + oy * g->ow, g->ow);
        }
    const uint8_t *ro = j->res ? (const uint8_t *)j->res + off : NULL;
    fx_qepi_row(&c->e, ch, 0, acc, c->ncols, ro, (uint8_t *)j->y + off, 1);
}

/* One thread with oneDNN's sums: image by image, its sums then the
 * epilogue; false (some images perhaps written) when oneDNN failed. */
static bool run_dnnl(const fx_qconv *c, const uint8_t *x, const uint8_t *res, uint8_t *y, void *scratch) {
    const fx_qconv_geom *g = &c->g;
    int64_t np = g->oh * g->ow;
    for (int64_t i = 0; i < g->n; i++) {
        const int32_t *acc = fx_qdnnl_sums(c->dn, x + i * g->c * g->h * g->w, scratch);
        if (!acc) return false;
        fx_qepi_nhwc_avx512(&c->e, c->dcomp, c->dcls, acc, np, g->m, res ? res + i * g->m * np : NULL,
                            y + i * g->m * np);
    }
    return true;
}

void fx_qconv_run(const fx_qconv *c, fx_pool *pool, const void *x, const void *res, void *y, void *scratch) {
    qjob j = {c, x, res, y, scratch, fx_qconv_scratch_bytes(c)};
    if (c->dn && fx_pool_threads(pool) == 1 && run_dnnl(c, x, res, y, scratch)) return;
    if (c->dw)
        fx_pool_run(pool, c->g.n * c->g.m, dw_task, &j);
    else
        fx_pool_run(pool, c->g.n * c->g.group * c->ncb, gemm_task, &j);
}

const fx_qepi *fx_qconv_epi(const fx_qconv *c) { return &c->e; }
