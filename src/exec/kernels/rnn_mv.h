/* rnn_mv.h — the matrix-vector product of a recurrent step (y = A x, A
 * row-major, read in place: no packing), in AVX-512, AVX2+FMA or portable
 * C, chosen at run time (rnn_mv.c). */
#ifndef NNFX_RNN_MV_H
#define NNFX_RNN_MV_H

#include <stdbool.h>
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

/* One LSTM step of one batch row with the default activations, no clip,
 * peepholes or input_forget, fused with its recurrence: the gate sums s =
 * R h + g (R [4 Hd, Hd] row-major, gate order i, o, f, c; g the step's
 * input projections with both biases), then c = sigmoid(s_f) * c +
 * sigmoid(s_i) * tanh(s_c) and ho = sigmoid(s_o) * tanh(c), by the
 * sigmoid / tanh rows of act_x86.c (rnn.c's lstm_row_fast, whose sums are
 * fx_matvec's). c is updated in place, ho is distinct from h. Returns
 * false (nothing written) for FX_MV_PORTABLE: the caller runs fx_matvec
 * and the gate rows then. */
bool fx_lstm_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, float *c, float *ho);

/* One GRU step of one batch row with the default activations, no clip and
 * linear_before_reset 1, fused with its recurrence: q = R h (R [3 Hd, Hd]
 * row-major, gate order z, r, h), z = sigmoid(q_z + g_z), r =
 * sigmoid(q_r + g_r), hh = tanh(g_h + r * (q_h + rbh)) (rbh the
 * recurrence bias of h, or NULL for none; g the step's input projections,
 * z's and r's recurrence biases included) and ho = (1 - z) * hh + z * h,
 * by the sigmoid / tanh rows of act_x86.c (rnn.c's gru_row_fast). ho is
 * distinct from h. Returns false (nothing written) for FX_MV_PORTABLE. */
bool fx_gru_cell(fx_mv_isa isa, const float *R, int64_t Hd, const float *h, const float *g, const float *rbh,
                 float *ho);

#endif
