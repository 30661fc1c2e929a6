/* qgemm_vnni.c — the int8 GEMM tile on VNNI (vpdpbusd: four u8 x s8
 * products summed into each int32 lane in one instruction), in its two
 * encodings: AVX-512 VNNI (EVEX, with AVX-512VL on ymm registers: Cascade
 * Lake, Ice Lake, Sapphire Rapids, Zen 4) and AVX-VNNI (VEX: Alder Lake and
 * later clients, Zen 5). One body (qgemm_vnni_tile.h) instantiated twice.
 * Called only when fx_qisa_active() names the encoding; the epilogue is the
 * AVX2 one (qgemm_x86.h), so the bytes equal the AVX2 and C paths'. This
 * file is compiled with -ffp-contract=off: the epilogue must not fuse its
 * multiply and add (FMA is part of the AVX-512 target). */
#include "exec/kernels/qgemm.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include "exec/kernels/qgemm_x86.h"

#define VNNI_NAME(x) x##_avx512vnni
#define VNNI_TARGET  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vnni")))
#define VNNI_DPBUSD  _mm256_dpbusd_epi32
#define VNNI_WIDE    1
#include "exec/kernels/qgemm_vnni_tile.h"
#undef VNNI_WIDE
#undef VNNI_NAME
#undef VNNI_TARGET
#undef VNNI_DPBUSD

#define VNNI_NAME(x) x##_avxvnni
#define VNNI_TARGET  __attribute__((target("avx2,avxvnni")))
#define VNNI_DPBUSD  _mm256_dpbusd_avx_epi32
#include "exec/kernels/qgemm_vnni_tile.h"
#undef VNNI_NAME
#undef VNNI_TARGET
#undef VNNI_DPBUSD

void fx_qtile_vnni(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    if (k == FX_QK_VNNI512)
        sums_avx512vnni(ks, a, b, np, acc);
    else
        sums_avxvnni(ks, a, b, np, acc);
}

void fx_qtile_vnni_q(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, const fx_qepi *e, int64_t m,
                     const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    if (k == FX_QK_VNNI512)
        fused_avx512vnni(ks, a, b, np, e, m, comp, rows, cols, res, y, ym);
    else
        fused_avxvnni(ks, a, b, np, e, m, comp, rows, cols, res, y, ym);
}

void fx_qtile_vnni_q16(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const fx_qepi *e, int64_t m,
                       const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    fused16_avx512vnni(ks, a0, a1, b, e, m, comp, rows, cols, res, y, ym);
}

void fx_qepi_row_avx512(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                        void *y) {
    epi_row_avx512vnni(e, m, comp, acc, n, res, y);
}

void fx_qtile_vnni_q8(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const fx_qepi *e, int64_t m,
                      const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    fused8_avx512vnni(ks, a0, a1, b, e, m, comp, rows, cols, res, y, ym);
}

#else
void fx_qepi_row_avx512(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                        void *y) {
    fx_qepi_row_c(e, m, comp, acc, n, res, y, 1);
}
void fx_qtile_vnni_q16(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const fx_qepi *e, int64_t m,
                       const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    (void)ks, (void)a0, (void)a1, (void)b, (void)e, (void)m, (void)comp, (void)rows, (void)cols, (void)res, (void)y,
        (void)ym;
}
void fx_qtile_vnni_q8(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const fx_qepi *e, int64_t m,
                      const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    (void)ks, (void)a0, (void)a1, (void)b, (void)e, (void)m, (void)comp, (void)rows, (void)cols, (void)res, (void)y,
        (void)ym;
}
void fx_qtile_vnni(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc) {
    (void)k;
    fx_qtile_c(ks, a, b, np, acc);
}
void fx_qtile_vnni_q(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, const fx_qepi *e, int64_t m,
                     const int32_t *comp, int rows, int cols, const void *res, void *y, int64_t ym) {
    (void)k, (void)ks, (void)a, (void)b, (void)np, (void)e, (void)m, (void)comp, (void)rows, (void)cols, (void)res,
        (void)y, (void)ym;
}
#endif
