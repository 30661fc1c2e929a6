/* qgemm_vnni_tile.h — the VNNI GEMM tile, instantiated by qgemm_vnni.c once
 * per VNNI encoding (no include guard: included twice). Before including,
 * define VNNI_NAME(x) (the instance's suffix), VNNI_TARGET (its target
 * attribute) and VNNI_DPBUSD (its vpdpbusd intrinsic).
 *
 * The tile is the AVX2 ubs tile's (qgemm_x86.h: 4 rows x 8 * np columns,
 * the same quad packing) with vpdpbusd in place of vpmaddubsw + vpmaddwd:
 * each u8 x s8 product and the sum of four of them is exact in int32, so
 * no weight is "unsafe" and no correction is needed.
 *
 * Activation panels (fx_qgemm_w.nr columns): with VNNI_WIDE (AVX-512) a
 * panel has 16 columns, so a step of it is one 64-byte row (its first 8
 * columns, then the next 8); else 8 columns, a 32-byte step, the next
 * panel ks * 32 bytes on. VNNI_BSTEP: bytes per step; VNNI_BHALF(ks): from
 * a step's first 8 columns to the next 8.
 *
 * koff (NULL: the packed layout): the activations are not packed but read
 * in place from a 4-channel interleaved window (fx_qgemm_run_win): step
 * q's columns 16p.. are the 64 bytes at b + koff[q] + 64 * p, columns 8..15
 * of them 32 bytes on. VNNI_BQ: step q's first columns. */
#define VNNI_BQ(b, koff, q) ((koff) ? (b) + (koff)[q] : (b) + (q)*VNNI_BSTEP)
#ifdef VNNI_WIDE
#define VNNI_BSTEP     64
#define VNNI_BHALF(ks) ((void)(ks), 32)
#else
#define VNNI_BSTEP     32
#define VNNI_BHALF(ks) (koff ? 32 : (ks)*32) /* in a window the next 8 columns follow */
#endif

VNNI_TARGET static inline __attribute__((always_inline)) tile8
VNNI_NAME(core)(int64_t ks, const uint8_t *a, const uint8_t *b, const int64_t *koff, int np) {
    __m256i c00 = _mm256_setzero_si256(), c10 = c00, c20 = c00, c30 = c00;
    __m256i c01 = c00, c11 = c00, c21 = c00, c31 = c00;
    if (np == 2) {
        for (int64_t q = 0; q < ks; q++, a += 16) {
            const uint8_t *bq = VNNI_BQ(b, koff, q);
            __m256i x0 = _mm256_loadu_si256((const __m256i *)bq);
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(bq + VNNI_BHALF(ks)));
            __m256i w0 = _mm256_set1_epi32(ld32(a)), w1 = _mm256_set1_epi32(ld32(a + 4));
            __m256i w2 = _mm256_set1_epi32(ld32(a + 8)), w3 = _mm256_set1_epi32(ld32(a + 12));
            c00 = VNNI_DPBUSD(c00, x0, w0), c01 = VNNI_DPBUSD(c01, x1, w0);
            c10 = VNNI_DPBUSD(c10, x0, w1), c11 = VNNI_DPBUSD(c11, x1, w1);
            c20 = VNNI_DPBUSD(c20, x0, w2), c21 = VNNI_DPBUSD(c21, x1, w2);
            c30 = VNNI_DPBUSD(c30, x0, w3), c31 = VNNI_DPBUSD(c31, x1, w3);
        }
    } else {
        for (int64_t q = 0; q < ks; q++, a += 16) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)VNNI_BQ(b, koff, q));
            c00 = VNNI_DPBUSD(c00, x0, _mm256_set1_epi32(ld32(a)));
            c10 = VNNI_DPBUSD(c10, x0, _mm256_set1_epi32(ld32(a + 4)));
            c20 = VNNI_DPBUSD(c20, x0, _mm256_set1_epi32(ld32(a + 8)));
            c30 = VNNI_DPBUSD(c30, x0, _mm256_set1_epi32(ld32(a + 12)));
        }
    }
    tile8 t = {{{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}}};
    return t;
}

#ifdef VNNI_WIDE
/* Two 4-row panels (a0, a1) at once against the same activations: 8 rows x
 * 16 columns in 16 accumulators, which with the inputs and broadcasts
 * needs the 32 vector registers of AVX-512 (EVEX) encodings. Each loaded
 * activation vector serves 8 rows instead of 4: half the activation reads
 * per product. np = 2 only. */
VNNI_TARGET static inline __attribute__((always_inline)) void VNNI_NAME(core8)(int64_t ks, const uint8_t *a0,
                                                                               const uint8_t *a1, const uint8_t *b,
                                                                               const int64_t *koff, tile8 *t0,
                                                                               tile8 *t1) {
    __m256i c00 = _mm256_setzero_si256(), c10 = c00, c20 = c00, c30 = c00;
    __m256i c01 = c00, c11 = c00, c21 = c00, c31 = c00;
    __m256i d00 = c00, d10 = c00, d20 = c00, d30 = c00;
    __m256i d01 = c00, d11 = c00, d21 = c00, d31 = c00;
    for (int64_t q = 0; q < ks; q++, a0 += 16, a1 += 16) {
        const uint8_t *bq = VNNI_BQ(b, koff, q);
        __m256i x0 = _mm256_loadu_si256((const __m256i *)bq);
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(bq + VNNI_BHALF(ks)));
        __m256i w = _mm256_set1_epi32(ld32(a0));
        c00 = VNNI_DPBUSD(c00, x0, w), c01 = VNNI_DPBUSD(c01, x1, w);
        w = _mm256_set1_epi32(ld32(a0 + 4));
        c10 = VNNI_DPBUSD(c10, x0, w), c11 = VNNI_DPBUSD(c11, x1, w);
        w = _mm256_set1_epi32(ld32(a0 + 8));
        c20 = VNNI_DPBUSD(c20, x0, w), c21 = VNNI_DPBUSD(c21, x1, w);
        w = _mm256_set1_epi32(ld32(a0 + 12));
        c30 = VNNI_DPBUSD(c30, x0, w), c31 = VNNI_DPBUSD(c31, x1, w);
        w = _mm256_set1_epi32(ld32(a1));
        d00 = VNNI_DPBUSD(d00, x0, w), d01 = VNNI_DPBUSD(d01, x1, w);
        w = _mm256_set1_epi32(ld32(a1 + 4));
        d10 = VNNI_DPBUSD(d10, x0, w), d11 = VNNI_DPBUSD(d11, x1, w);
        w = _mm256_set1_epi32(ld32(a1 + 8));
        d20 = VNNI_DPBUSD(d20, x0, w), d21 = VNNI_DPBUSD(d21, x1, w);
        w = _mm256_set1_epi32(ld32(a1 + 12));
        d30 = VNNI_DPBUSD(d30, x0, w), d31 = VNNI_DPBUSD(d31, x1, w);
    }
    tile8 u0 = {{{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}}};
    tile8 u1 = {{{d00, d01}, {d10, d11}, {d20, d21}, {d30, d31}}};
    *t0 = u0, *t1 = u1;
}

/* Two 4-row weight panels against two 16-column activation panels (32
 * columns) on 512-bit registers: a step of a panel is one zmm whose lanes
 * are its 16 columns, 8 rows x 2 panels = 16 zmm accumulators. acc[i][h]
 * holds row i and columns 16h... */
VNNI_TARGET static inline __attribute__((always_inline)) void VNNI_NAME(core16)(int64_t ks, const uint8_t *a0,
                                                                                const uint8_t *a1, const uint8_t *b,
                                                                                const int64_t *koff,
                                                                                __m512i acc[8][2]) {
    const int64_t ps = koff ? 64 : ks * 64; /* bytes between activation panels */
    /* named accumulators, not an array: GCC kept the array's registers
     * rotating through moves and stack slots every step */
    __m512i r0a = _mm512_setzero_si512(), r0b = r0a, r1a = r0a, r1b = r0a, r2a = r0a, r2b = r0a, r3a = r0a, r3b = r0a;
    __m512i r4a = r0a, r4b = r0a, r5a = r0a, r5b = r0a, r6a = r0a, r6b = r0a, r7a = r0a, r7b = r0a;
    for (int64_t q = 0; q < ks; q++, a0 += 16, a1 += 16) {
        const uint8_t *bq = VNNI_BQ(b, koff, q);
        __m512i x0 = _mm512_loadu_si512((const void *)bq), x1 = _mm512_loadu_si512((const void *)(bq + ps));
        __m512i w = _mm512_set1_epi32(ld32(a0));
        r0a = _mm512_dpbusd_epi32(r0a, x0, w), r0b = _mm512_dpbusd_epi32(r0b, x1, w);
        w = _mm512_set1_epi32(ld32(a0 + 4));
        r1a = _mm512_dpbusd_epi32(r1a, x0, w), r1b = _mm512_dpbusd_epi32(r1b, x1, w);
        w = _mm512_set1_epi32(ld32(a0 + 8));
        r2a = _mm512_dpbusd_epi32(r2a, x0, w), r2b = _mm512_dpbusd_epi32(r2b, x1, w);
        w = _mm512_set1_epi32(ld32(a0 + 12));
        r3a = _mm512_dpbusd_epi32(r3a, x0, w), r3b = _mm512_dpbusd_epi32(r3b, x1, w);
        w = _mm512_set1_epi32(ld32(a1));
        r4a = _mm512_dpbusd_epi32(r4a, x0, w), r4b = _mm512_dpbusd_epi32(r4b, x1, w);
        w = _mm512_set1_epi32(ld32(a1 + 4));
        r5a = _mm512_dpbusd_epi32(r5a, x0, w), r5b = _mm512_dpbusd_epi32(r5b, x1, w);
        w = _mm512_set1_epi32(ld32(a1 + 8));
        r6a = _mm512_dpbusd_epi32(r6a, x0, w), r6b = _mm512_dpbusd_epi32(r6b, x1, w);
        w = _mm512_set1_epi32(ld32(a1 + 12));
        r7a = _mm512_dpbusd_epi32(r7a, x0, w), r7b = _mm512_dpbusd_epi32(r7b, x1, w);
    }
    acc[0][0] = r0a, acc[0][1] = r0b, acc[1][0] = r1a, acc[1][1] = r1b;
    acc[2][0] = r2a, acc[2][1] = r2b, acc[3][0] = r3a, acc[3][1] = r3b;
    acc[4][0] = r4a, acc[4][1] = r4b, acc[5][0] = r5a, acc[5][1] = r5b;
    acc[6][0] = r6a, acc[6][1] = r6b, acc[7][0] = r7a, acc[7][1] = r7b;
}

/* epi_q16 without requant or residual, its per-channel values given:
 * rne(clamp(a * mult + bias, lo, hi)). */
VNNI_TARGET static inline __attribute__((always_inline)) __m512i
VNNI_NAME(epi_simple16)(__m512i a, __m512 mult, __m512 bias, __m512 lo, __m512 hi) {
    __m512 t = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), mult), bias);
    t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
    return _mm512_cvt_roundps_epi32(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* fx_qepi_row_c's fixed-point path (TFLite's requantization, never with
 * mid or res) on 16 lanes, the same bytes: nnfx_rt_qf_mul of a + fb[m] as
 * fx_qepi_row_fixed_avx2 computes it (the 64-bit products of the even and
 * the odd lanes plus 2^30, shifted by 31; the rounding division by 2^rs:
 * floor, + 1 past the threshold), + y_zp, clamped. */
VNNI_TARGET static inline __attribute__((always_inline)) __m512i VNNI_NAME(epi_fixed16)(const fx_qepi *e, int64_t m,
                                                                                        __m512i a) {
    const int sh = (int)e->fs[m], ls = sh > 0 ? sh : 0, rs = sh > 0 ? 0 : -sh;
    const int32_t mask = (int32_t)(((int64_t)1 << rs) - 1);
    const __m512i vq = _mm512_set1_epi32(e->fm[m]), nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i x = _mm512_sll_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(e->fb[m])), _mm_cvtsi32_si128(ls));
    __m512i pe = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, vq), nudge), 31);
    __m512i po = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), vq), nudge), 31);
    __m512i r = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
    __m512i rem = _mm512_and_si512(r, _mm512_set1_epi32(mask));
    __m512i thr = _mm512_add_epi32(_mm512_set1_epi32(mask >> 1), _mm512_srli_epi32(r, 31));
    __mmask16 up = _mm512_cmpgt_epi32_mask(rem, thr);
    r = _mm512_sra_epi32(r, _mm_cvtsi32_si128(rs));
    r = _mm512_add_epi32(_mm512_mask_add_epi32(r, up, r, _mm512_set1_epi32(1)), _mm512_set1_epi32(e->y_zp));
    return _mm512_min_epi32(_mm512_max_epi32(r, _mm512_set1_epi32(e->lo)), _mm512_set1_epi32(e->hi));
}

/* epi_q8 (qgemm_x86.h) on 16 lanes: the same float operations in the same
 * order (this file is built without FMA contraction), rounding to nearest
 * even, so the same bytes; with e->fixed, epi_fixed16. res: 16 bytes
 * (lanes past the row's end are never stored). */
VNNI_TARGET static inline __attribute__((always_inline)) __m512i
VNNI_NAME(epi_q16)(const fx_qepi *e, int64_t m, __m512i a, const void *res, __mmask16 k) {
    __m512i q;
    if (e->fixed) return VNNI_NAME(epi_fixed16)(e, m, a);
    if (!e->mid && !e->res)
        return VNNI_NAME(epi_simple16)(a, _mm512_set1_ps(e->multq[m]), _mm512_set1_ps(e->biasq[m]),
                                       _mm512_set1_ps((float)e->lo), _mm512_set1_ps((float)e->hi));
    /* Rounding to nearest even commutes with clamping to integer bounds, and
     * the clamped integers (within 255 of 0) are exact floats: so
     * clamp(rne(v) + zp, lo, hi) - zp, converted back, is the float
     * clamp(rne_f(v), lo - zp, hi - zp) (vrndscaleps), with no trip through
     * int32 and no +-2^24 guard (C's qround clamps to it, then the bounds
     * clamp tighter): the same values in fewer instructions. */
    __m512 t =
        _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), _mm512_set1_ps(e->mult[m])), _mm512_set1_ps(e->bias[m]));
    if (e->mid) {
        __m512 v = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(e->mid_inv)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps((float)(e->mid_lo - e->mid_zp))),
                          _mm512_set1_ps((float)(e->mid_hi - e->mid_zp)));
        t = _mm512_mul_ps(v, _mm512_set1_ps(e->mid_scale));
    }
    if (e->res) {
        __m128i rb = _mm_maskz_loadu_epi8(k, res);
        __m512i r = e->res_signed ? _mm512_cvtepi8_epi32(rb) : _mm512_cvtepu8_epi32(rb);
        r = _mm512_sub_epi32(r, _mm512_set1_epi32(e->res_zp));
        t = _mm512_add_ps(t, _mm512_mul_ps(_mm512_cvtepi32_ps(r), _mm512_set1_ps(e->res_scale)));
    }
    __m512 v =
        _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(e->y_inv)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps((float)(e->lo - e->y_zp))),
                      _mm512_set1_ps((float)(e->hi - e->y_zp)));
    q = _mm512_add_epi32(_mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                         _mm512_set1_epi32(e->y_zp));
    return q;
}

/* tile_finish (qgemm_x86.h) on 16 lanes: a row's two 8-column panels as
 * one register, the row's end masked. */
VNNI_TARGET static inline __attribute__((always_inline)) void VNNI_NAME(finish16)(const tile8 *t, const fx_qepi *e,
                                                                                  int64_t m, const int32_t *comp,
                                                                                  int rows, int cols, const void *res,
                                                                                  void *y, int64_t ym) {
    __mmask16 k = (__mmask16)(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
    const fx_qepi el = *e; /* as in fused16: not reloaded after each row's store */
    for (int r = 0; r < rows; r++) {
        __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(t->c[r][0]), t->c[r][1], 1);
        a = _mm512_add_epi32(a, _mm512_set1_epi32(comp[r]));
        __m512i q = VNNI_NAME(epi_q16)(&el, m + r, a, el.res ? (const char *)res + r * ym : NULL, k);
        _mm_mask_storeu_epi8((char *)y + r * ym, k, _mm512_cvtepi32_epi8(q));
    }
}

/* fx_qepi_row on 16 lanes (ys 1), the last step masked. */
VNNI_TARGET static void VNNI_NAME(epi_row)(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n,
                                           const void *res, void *y) {
    const __m512i vc = _mm512_set1_epi32(comp);
    for (int64_t j = 0; j < n; j += 16) {
        __mmask16 k = (__mmask16)(n - j >= 16 ? 0xFFFF : (1u << (n - j)) - 1);
        __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(k, acc + j), vc);
        __m512i q = VNNI_NAME(epi_q16)(e, m, a, e->res ? (const char *)res + j : NULL, k);
        _mm_mask_storeu_epi8((char *)y + j, k, _mm512_cvtepi32_epi8(q));
    }
}

/* The 8 x 32 tile with its epilogues on 16 lanes: rows (<= 8) from
 * channel m, cols (17..32) of the two 16-column panels, row r to y + r * ym (its
 * residual at res + r * ym), masked loads and stores at the row's end;
 * arguments otherwise as fused8. */
VNNI_TARGET static void VNNI_NAME(fused16)(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b,
                                           const int64_t *koff, const fx_qepi *e, int64_t m, const int32_t *comp,
                                           int rows, int cols, const void *res, void *y, int64_t ym) {
    __m512i acc[8][2];
    VNNI_NAME(core16)(ks, (const uint8_t *)a0, (const uint8_t *)a1, b, koff, acc);
    __mmask16 k1 = (__mmask16)(cols >= 32 ? 0xFFFF : (1u << (cols - 16)) - 1);
    /* a local copy of the epilogue's fields, and both halves of a row
     * before its stores: the byte stores to y could alias *e, which would
     * reload every field and per-channel value for each half */
    const fx_qepi el = *e;
    for (int r = 0; r < rows; r++) {
        __m512i q[2];
        for (int h = 0; h < 2; h++) {
            const char *rr = el.res ? (const char *)res + r * ym + 16 * h : NULL;
            q[h] = VNNI_NAME(epi_q16)(&el, m + r, _mm512_add_epi32(acc[r][h], _mm512_set1_epi32(comp[r])), rr,
                                      h == 0 ? (__mmask16)0xFFFF : k1);
        }
        _mm_storeu_si128((__m128i *)((char *)y + r * ym), _mm512_cvtepi32_epi8(q[0]));
        _mm_mask_storeu_epi8((char *)y + r * ym + 16, k1, _mm512_cvtepi32_epi8(q[1]));
    }
}

/* Two panels' tiles with their epilogues: rows (<= 8) from channel m, the
 * second panel's rows from m + 4; arguments otherwise as fused. */
VNNI_TARGET static void VNNI_NAME(fused8)(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b,
                                          const int64_t *koff, const fx_qepi *e, int64_t m, const int32_t *comp,
                                          int rows, int cols, const void *res, void *y, int64_t ym) {
    tile8 t0, t1;
    VNNI_NAME(core8)(ks, (const uint8_t *)a0, (const uint8_t *)a1, b, koff, &t0, &t1);
    VNNI_NAME(finish16)(&t0, e, m, comp, rows < 4 ? rows : 4, cols, res, y, ym);
    if (rows <= 4) return;
    const char *r1 = res ? (const char *)res + 4 * ym : NULL;
    VNNI_NAME(finish16)(&t1, e, m + 4, comp + 4, rows - 4, cols, r1, (char *)y + 4 * ym, ym);
}
#endif

/* The tile's int32 sums, row r at acc + r * 16. */
VNNI_TARGET static void VNNI_NAME(sums)(int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    tile8 t = VNNI_NAME(core)(ks, (const uint8_t *)a, b, NULL, np);
    for (int r = 0; r < 4; r++)
        for (int p = 0; p < np; p++)
            _mm256_storeu_si256((__m256i *)(acc + r * 16 + p * 8), t.c[r][p]);
}

/* The tile with the requantize epilogue in registers (tile_finish). */
VNNI_TARGET static void VNNI_NAME(fused)(int64_t ks, const int8_t *a, const uint8_t *b, const int64_t *koff, int np,
                                         const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols,
                                         const void *res, void *y, int64_t ym) {
    tile8 t = VNNI_NAME(core)(ks, (const uint8_t *)a, b, koff, np);
#ifdef VNNI_WIDE
    VNNI_NAME(finish16)(&t, e, m, comp, rows, cols, res, y, ym); /* cols <= 8 * np */
#else
    tile_finish(&t, np, e, m, comp, rows, cols, res, y, ym);
#endif
}

#undef VNNI_BSTEP
#undef VNNI_BQ
#undef VNNI_BHALF
