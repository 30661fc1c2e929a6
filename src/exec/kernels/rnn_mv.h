/* rnn_mv.h — the matrix-vector product of a recurrent step (y = A x, A
 * row-major, read in place: no packing), in AVX-512, AVX2+FMA or portable
 * C, chosen at run time (rnn_mv.c). */
#ifndef NNFX_RNN_MV_H
#define NNFX_RNN_MV_H

#include <stdint.h>

typedef enum { FX_MV_PORTABLE, FX_MV_AVX2, FX_MV_AVX512 } fx_mv_isa;

/* The fastest variant this CPU and NNFX_ISA allow (core_cpu_avx512f,
 * core_cpu_avx2_fma). */
fx_mv_isa fx_mv_best(void);

/* y[j] = sum_k A[j * cols + k] * x[k] for j in [0, rows), any rows, cols
 * >= 1; A, x and y unaligned, y distinct from A and x. isa must be one the
 * CPU runs (at most fx_mv_best()). The sum's order differs between
 * variants (float rounding only). */
void fx_matvec(fx_mv_isa isa, const float *A, int64_t rows, int64_t cols, const float *x, float *y);

#endif
