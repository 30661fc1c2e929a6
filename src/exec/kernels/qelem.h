/* qelem.h — element-wise int8 rows of the compiled plan's int8 steps: the
 * 256-entry table lookup and TFLite's fixed-point Add / Sub / Mul
 * (nnfx_rt_qfixed.h), each with a portable definition and vector paths
 * picked at run time by fx_qisa_active() (AVX-512 with the VNNI choice,
 * AVX2 otherwise; FX_QISA_C or NNFX_ISA=portable: the definition). Every
 * path gives the same bytes as the definition. */
#ifndef NNFX_QELEM_H
#define NNFX_QELEM_H

#include <stdbool.h>
#include <stdint.h>

#include "rt/nnfx_rt_qfixed.h"

/* y[i] = tab[x[i] ^ flip] for i in [0, n) (flip 0x80 for int8 x: entry v
 * is int8 v - 128). y may be x. AVX-512 VBMI: four 64-byte permutes and a
 * blend per 64 values; AVX2: the 16 rows of 16 entries by vpshufb, each
 * kept where the high nibble picks it (16 shuffles per 32 values, about
 * 2-3 times the scalar loop's speed); otherwise the definition. */
void fx_qlut_row(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n);
void fx_qlut_row_c(const uint8_t *tab, uint8_t flip, const uint8_t *x, uint8_t *y, int64_t n);

/* y[i] = nnfx_rt_qf_add(p, a[i], b[i], sub) for i in [0, n); y may be a or b. */
void fx_qadd_row(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n, bool sub);
void fx_qadd_row_c(const nnfx_rt_qf_addp *p, const int8_t *a, const int8_t *b, int8_t *y, int64_t n, bool sub);

/* y[i] = nnfx_rt_qf_mul_q8(a[i], a_zp, b[i], b_zp, qm, shift, y_zp, -128, 127) for i in [0, n); y may be a or b. */
void fx_qmul_row(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift, int32_t y_zp,
                 int8_t *y, int64_t n);
void fx_qmul_row_c(const int8_t *a, int32_t a_zp, const int8_t *b, int32_t b_zp, int32_t qm, int shift, int32_t y_zp,
                   int8_t *y, int64_t n);

#endif
