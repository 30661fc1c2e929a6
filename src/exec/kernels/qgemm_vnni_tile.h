/* qgemm_vnni_tile.h — the VNNI GEMM tile, instantiated by qgemm_vnni.c once
 * per VNNI encoding (no include guard: included twice). Before including,
 * define VNNI_NAME(x) (the instance's suffix), VNNI_TARGET (its target
 * attribute) and VNNI_DPBUSD (its vpdpbusd intrinsic).
 *
 * The tile is the AVX2 ubs tile's (qgemm_x86.h: 4 rows x 8 * np columns,
 * the same quad packing) with vpdpbusd in place of vpmaddubsw + vpmaddwd:
 * each u8 x s8 product and the sum of four of them is exact in int32, so
 * no weight is "unsafe" and no correction is needed. */

VNNI_TARGET static inline __attribute__((always_inline)) tile8 VNNI_NAME(core)(int64_t ks, const uint8_t *a,
                                                                               const uint8_t *b, int np) {
    const uint8_t *b1 = b + ks * 32;
    __m256i c00 = _mm256_setzero_si256(), c10 = c00, c20 = c00, c30 = c00;
    __m256i c01 = c00, c11 = c00, c21 = c00, c31 = c00;
    if (np == 2) {
        for (int64_t q = 0; q < ks; q++, a += 16, b += 32, b1 += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)b), x1 = _mm256_loadu_si256((const __m256i *)b1);
            __m256i w0 = _mm256_set1_epi32(ld32(a)), w1 = _mm256_set1_epi32(ld32(a + 4));
            __m256i w2 = _mm256_set1_epi32(ld32(a + 8)), w3 = _mm256_set1_epi32(ld32(a + 12));
            c00 = VNNI_DPBUSD(c00, x0, w0), c01 = VNNI_DPBUSD(c01, x1, w0);
            c10 = VNNI_DPBUSD(c10, x0, w1), c11 = VNNI_DPBUSD(c11, x1, w1);
            c20 = VNNI_DPBUSD(c20, x0, w2), c21 = VNNI_DPBUSD(c21, x1, w2);
            c30 = VNNI_DPBUSD(c30, x0, w3), c31 = VNNI_DPBUSD(c31, x1, w3);
        }
    } else {
        for (int64_t q = 0; q < ks; q++, a += 16, b += 32) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)b);
            c00 = VNNI_DPBUSD(c00, x0, _mm256_set1_epi32(ld32(a)));
            c10 = VNNI_DPBUSD(c10, x0, _mm256_set1_epi32(ld32(a + 4)));
            c20 = VNNI_DPBUSD(c20, x0, _mm256_set1_epi32(ld32(a + 8)));
            c30 = VNNI_DPBUSD(c30, x0, _mm256_set1_epi32(ld32(a + 12)));
        }
    }
    tile8 t = {{{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}}};
    return t;
}

/* The tile's int32 sums, row r at acc + r * 16. */
VNNI_TARGET static void VNNI_NAME(sums)(int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    tile8 t = VNNI_NAME(core)(ks, (const uint8_t *)a, b, np);
    for (int r = 0; r < 4; r++)
        for (int p = 0; p < np; p++)
            _mm256_storeu_si256((__m256i *)(acc + r * 16 + p * 8), t.c[r][p]);
}

/* The tile with the requantize epilogue in registers (tile_finish). */
VNNI_TARGET static void VNNI_NAME(fused)(int64_t ks, const int8_t *a, const uint8_t *b, int np, const fx_qepi *e,
                                         int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                                         int64_t ym) {
    tile8 t = VNNI_NAME(core)(ks, (const uint8_t *)a, b, np);
    tile_finish(&t, np, e, m, comp, rows, cols, res, y, ym);
}
