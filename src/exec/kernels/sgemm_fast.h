/* sgemm_fast.h — single-threaded float32 GEMM blocks over packed operands
 * for the compiled executor: A (weights) packed once into FX_MR-row panels,
 * B packed per block into FX_NR-column panels by the caller (so an im2col
 * can be fused into the packing), and a register-tile micro-kernel picked at
 * run time for the CPU (AVX2+FMA, or portable C). */
#ifndef NNFX_SGEMM_FAST_H
#define NNFX_SGEMM_FAST_H

#include <stdbool.h>
#include <stdint.h>

#define FX_MR 6  /* rows of the register tile    */
#define FX_NR 16 /* columns of the register tile */

/* Floats of the packed form of an m x k matrix: ceil(m / FX_MR) panels of
 * k x FX_MR values. */
int64_t fx_pack_a_floats(int64_t m, int64_t k);

/* Packs rows [0, m) of row-major a (leading dimension lda) into out
 * (fx_pack_a_floats(m, k) floats): panel p holds rows p*FX_MR.. as
 * out[p * k * FX_MR + kk * FX_MR + r]; rows past m are zero. */
void fx_pack_a(const float *a, int64_t lda, int64_t m, int64_t k, float *out);

/* Packs one row of B, src[0 .. nc), as row kk of a packed block of kc rows:
 * column j goes to dst[(j / FX_NR) * kc * FX_NR + kk * FX_NR + j % FX_NR];
 * the columns of the last panel past nc are zeroed. */
void fx_pack_b_row(const float *src, int64_t nc, int64_t kc, int64_t kk, float *dst);

/* C[mrows, nc] (leading dimension ldc) = (accumulate ? C : 0) + A * B for
 * the A panels of mrows rows (panel p: kc x FX_MR values at a + p * kc *
 * FX_MR, rows past mrows zero) and a packed B block of kc rows and nc
 * columns (fx_pack_b_row layout). Columns go in the outer loop, panels in
 * the inner one. Each C value sums its products in k order, so results do
 * not depend on how callers split C into blocks. */
void fx_sgemm_panel(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, float *c, int64_t ldc,
                    bool accumulate);

/* fx_sgemm_panel over an unpacked row-major B: row k of B at b + k * ldb;
 * the full FX_NR-column panels are read in place, the last partial one
 * (columns nc / FX_NR * FX_NR .. nc, if any) from tail, packed by the
 * caller with fx_pack_b_row (kc rows), so no read passes column nc. Same
 * sums in the same order as fx_sgemm_panel on the packed B. */
void fx_sgemm_panel_rows(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, int64_t ldb,
                         const float *tail, float *c, int64_t ldc, bool accumulate);

/* fx_sgemm_panel over a gathered B: row k is the run b + koff[k] (columns
 * contiguous), read in place. Every tile reads whole FX_NR-column panels,
 * so b + koff[k] + j must be readable for j < nc rounded up to FX_NR (what
 * the columns past nc hold does not matter: they are not written to C).
 * Same sums in the same order as fx_sgemm_panel. */
void fx_sgemm_panel_gather(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, const int64_t *koff,
                           float *c, int64_t ldc, bool accumulate);

/* The micro-kernel the CPU takes ("avx512 6x32 and 6x16", "avx2+fma 6x16" or
 * "portable 6x16"), for benchmark headers and tests. */
const char *fx_sgemm_kernel_name(void);

#endif
