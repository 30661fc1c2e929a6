/* kernels_int.h — helpers shared by the float32 CPU kernels
 * (src/exec/kernels/): error text, dtype checks, reading integer
 * inputs, and broadcast iteration. */
#ifndef NNFX_KERNELS_INT_H
#define NNFX_KERNELS_INT_H

#include "ir/infer_int.h"
#include "exec/plan_view.h"
#include "ir/op_table.h"

#include "rt/nnfx_rt_scalar.h"

/* Sets err to status s with "node <name>: <message>"; returns s. */
nnfx_status kern_fail(nnfx_error *err, const nnfx_node *n, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* NNFX_ERR_UNSUPPORTED unless t (input `what`) is present and of dtype dt. */
nnfx_status kern_need(const nnfx_node *n, const nnfx_tensor *t, nnfx_dtype dt, const char *what, nnfx_error *err);

/* Checks out has the given rank and shape (the executor allocated it from
 * inference); NNFX_ERR_RUNTIME naming the node otherwise. */
nnfx_status kern_check_out(const nnfx_node *n, const nnfx_tensor *out, int rank, const int64_t *shape, nnfx_error *err);

/* Calls row(ctx, off, n, inner) once per innermost row: off[j] is the
 * element offset of operand j at the row start, inner[j] its stride along
 * the row, and out_off the output offset (output is contiguous). */
typedef void (*kern_row_fn)(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n);
void kern_bcast_run(const kern_bcast *p, kern_row_fn row, void *ctx);

/* Writes double v as element i of t (any supported dtype). */
void kern_set(nnfx_tensor *t, int64_t i, double v);
/* y = f(x) over integers (nnfx_rt_iunary, the generated C's loop: wrapping,
 * stored modulo the width) when x is of a type kern_rt_unary_int takes;
 * *handled false (NNFX_OK) for other types. */
nnfx_status kern_iunary(const nnfx_node *n, nnfx_tensor *const *in, nnfx_tensor *const *out, long long (*f)(long long),
                        bool *handled, nnfx_error *err);

/* y = f(x) in double (nnfx_rt_funary, the generated C's loop) when x is
 * float64 or float16 and node n's op has a kern_double_unary; *handled
 * false (NNFX_OK) for other types, which the caller's float32 path takes. */
nnfx_status kern_funary(const nnfx_node *n, nnfx_tensor *const *in, nnfx_tensor *const *out, bool *handled,
                        nnfx_error *err);

/* The compiled plan's LSTM and GRU kernels (rnn.c): kern_lstm / kern_gru
 * with the gate math of the default activations on vector rows (within 8
 * ulp per activation of the scalar meaning, fast_int.h); the same
 * arguments, outputs and errors. */
nnfx_status kern_lstm_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err);
nnfx_status kern_gru_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err);

/* The compiled plan's float32 Sigmoid and x * sigmoid(x) steps (act_fast.c):
 * y = sigmoid(in[0]) / in[0] * sigmoid(in[0]) by the vector rows of the
 * fused epilogues (fx_act_row: error bounds in fast_int.h); y must have
 * in[0]'s element count. kern_sigmoid_fast passes other types to the
 * reference kernel. */
nnfx_status kern_sigmoid_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err);
nnfx_status kern_silu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err);
/* The compiled plan's float32 Erf step and its fused GELU step (act_fast.c,
 * fx_erf_row: error bound in fast_int.h). kern_erf_fast: y = erf(in[0]);
 * other types go to the reference kernel. kern_gelu_fast: y = (x * (erf(x
 * / in[1]) + in[2])) * in[3] for x = in[0], each in[k] a float32 scalar
 * (NULL: 1); y must have x's element count. */
nnfx_status kern_erf_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err);
nnfx_status kern_gelu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err);
/* The compiled plan's float32 Softmax over the last axis (act_fast.c,
 * fx_softmax_rows: nnfx_rt_softmax compiled per ISA); other axes and types: the
 * reference kernel. */
nnfx_status kern_softmax_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err);
/* x * sigmoid(x) of x = DequantizeLinear(in[0], in[1], in[2]) (int8 or
 * uint8, scalar scale and zero point; in[2] NULL: zero): the 256 values
 * DequantizeLinear can give, through kern_silu_fast's row, as a table
 * indexed by each byte: the same floats as the two steps. */
nnfx_status kern_dq_silu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err);

/* The compiled plan's float32 ReduceMean over the last dims (pool_fast.c;
 * LayerNorm's means): each row's mean as kern_reduce_mean's, summed in
 * double by independent accumulators instead of in order (within float
 * rounding of it). Other axes or types: the reference kernel. */
nnfx_status kern_reduce_mean_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                  nnfx_tensor *const *out, nnfx_error *err);

/* The compiled plan's fused LayerNorm chain over the last axis
 * (pool_fast.c; fuse_layernorm.c matches it): per row of x = in[0], mean m
 * and variance v as kern_reduce_mean_fast computes them over x and over the
 * float squares of d = x - m, then y = (d / sqrt(v + eps)) * in[2] + in[3],
 * eps = in[1] (float32 scalar), in[2] and in[3] (NULL: absent) of one value
 * or one per element of the last axis; each operation rounded to float as
 * the chain's steps round it (the sums' order aside). y may be x. */
nnfx_status kern_layernorm_chain_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                      nnfx_tensor *const *out, nnfx_error *err);

/* The compiled plan's float32 GlobalAveragePool (pool_fast.c): the mean of
 * each (n, c) plane as kern_global_average_pool's, summed in double by
 * independent accumulators instead of in order (within float rounding of
 * it; the same for every thread count). Other types: the reference. */
nnfx_status kern_global_average_pool_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                          nnfx_tensor *const *out, nnfx_error *err);

/* Max pooling's one rule for a tap (kern_max_pool, GlobalMaxPool, the
 * compiled plan's pool_fast.c and the generated C's pool): whether tap
 * value v replaces the running max m — nnfx_rt_max_takes
 * (src/rt/nnfx_rt_scalar.h). */
#define KERN_MAX_TAKES(m, v) nnfx_rt_max_takes((m), (v))

/* One plane of a depthwise convolution: input [H, W], output [OH, OW],
 * window KH x KW, strides, top/left pads, dilations. */
typedef struct kern_dw_geom {
    int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
} kern_dw_geom;

/* Whether every size of g (and OH * OW) fits the int geometry kern_dw_plane
 * passes on. */
bool kern_dw_geom_fits(const kern_dw_geom *g);

/* Depthwise Conv's meaning on one output-channel plane (conv.c): yo [OH, OW]
 * = bias (0 when NULL) + the taps of kernel k [KH, KW] over input plane xi
 * [H, W], padding reading zeros. The generated C's nnfx_rt_conv2d_dw on one
 * plane; the interpreter and the compiled plan's general depthwise case
 * (conv_fast.c) both call it. g must fit (kern_dw_geom_fits). */
void kern_dw_plane(const kern_dw_geom *g, const float *xi, const float *k, const float *bias, float *yo);

/* Gemm's kernel (kern_gemm) on output columns [j0, j1) only (j1 past the
 * output's width: up to it): every check kern_gemm makes, then those
 * columns of Y for every row. j0 >= j1 checks only. Column ranges of one
 * output may run at the same time on different threads. */
nnfx_status kern_gemm_cols(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           int64_t j0, int64_t j1, nnfx_error *err);
/* MatMul's kernel (kern_matmul) on output columns [j0, j1) only, as
 * kern_gemm_cols: every check, then those columns. A range short of the
 * whole width needs B to be one 2-d matrix (else NNFX_ERR_UNSUPPORTED). */
nnfx_status kern_matmul_cols(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             int64_t j0, int64_t j1, nnfx_error *err);
/* Transpose's kernel (kern_transpose) on output rows [r0, r1) of output dim
 * `dim` only, every output dim before it being 1 (so the rows are one
 * contiguous run of the output): every check, then those rows; dim < 0:
 * the whole output. Ranges of one output may run at the same time on
 * different threads. */
nnfx_status kern_transpose_range(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                 int dim, int64_t r0, int64_t r1, nnfx_error *err);

#endif
