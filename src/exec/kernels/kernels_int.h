/* kernels_int.h — helpers shared by the float32 CPU kernels
 * (src/exec/kernels/): error text, dtype checks, reading integer
 * inputs, and broadcast iteration. */
#ifndef NNFX_KERNELS_INT_H
#define NNFX_KERNELS_INT_H

#include "ir/infer_int.h"
#include "ir/op_table.h"

#include "codegen/runtime/nnfx_rt_scalar.h"

/* Sets err to status s with "node <name>: <message>"; returns s. */
nnfx_status kern_fail(nnfx_error *err, const nnfx_node *n, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* NNFX_ERR_UNSUPPORTED unless t (input `what`) is present and of dtype dt. */
nnfx_status kern_need(const nnfx_node *n, const nnfx_tensor *t, nnfx_dtype dt, const char *what, nnfx_error *err);

/* Reads up to max elements of an integer (or float) tensor as int64 into
 * v; *cnt = number read. Returns false if t holds more than max. */
bool kern_ints(const nnfx_tensor *t, int64_t *v, int max, int *cnt);

/* Checks out has the given rank and shape (the executor allocated it from
 * inference); NNFX_ERR_RUNTIME naming the node otherwise. */
nnfx_status kern_check_out(const nnfx_node *n, const nnfx_tensor *out, int rank, const int64_t *shape, nnfx_error *err);

/* Row-major element strides of shape. */
void kern_strides(int rank, const int64_t *shape, int64_t *st);

/* Broadcast iteration plan over an output shape for k operands (k <= 4):
 * dims are right-aligned, broadcast dims get stride 0, and adjacent dims
 * that are contiguous for every operand are merged, so the innermost loop
 * is as long as possible. */
#define KERN_BCAST_MAX 4
typedef struct kern_bcast {
    int rank;                                  /* >= 1 after planning   */
    int64_t shape[NNFX_MAX_RANK];              /* merged output dims    */
    int64_t st[KERN_BCAST_MAX][NNFX_MAX_RANK]; /* element strides       */
    int k;
} kern_bcast;

/* Plans broadcasting of ops[0..k) into the output shape (orank, oshape);
 * false when an operand does not broadcast to it. */
bool kern_bcast_plan(kern_bcast *p, int orank, const int64_t *oshape, int k, const nnfx_tensor *const *ops);

/* Calls row(ctx, off, n, inner) once per innermost row: off[j] is the
 * element offset of operand j at the row start, inner[j] its stride along
 * the row, and out_off the output offset (output is contiguous). */
typedef void (*kern_row_fn)(void *ctx, const int64_t *off, const int64_t *inner, int64_t out_off, int64_t n);
void kern_bcast_run(const kern_bcast *p, kern_row_fn row, void *ctx);

/* Writes double v as element i of t (any supported dtype). */
void kern_set(nnfx_tensor *t, int64_t i, double v);
/* The generated C runtime's type code of dt (src/codegen/runtime/
 * nnfx_rt_typed.h: 0 float32, 1 int64, 2 int32, 3 int8, 4 uint8, 5 bool,
 * 6 float64, 7 float16, 8 int16, 9 uint16, 10 uint32, 11 uint64); -1 for a type it
 * does not hold. */
int kern_rt_tcode(nnfx_dtype dt);
/* kern_rt_tcode of a float type (float32, float64, float16); -1 for others. */
int kern_rt_float_tcode(nnfx_dtype dt);
/* Whether dt is an integer type whose Neg, Abs and Relu wrap through
 * nnfx_rt_iunary (every one but uint64, whose values past 2^63 read as
 * negative, and bool), in the interpreter and in generated C alike. */
bool kern_rt_unary_int(nnfx_dtype dt);

/* A one-input float op on float64 and float16 values: its double
 * function of src/codegen/runtime/nnfx_rt_scalar.h (nnfx_rt_dexp...) and
 * that file's section name ("dexp"...). */
typedef struct kern_dunary {
    const char *section;
    double (*f)(double);
} kern_dunary;

/* The double function of one-input op `op` for float64 / float16 values,
 * NULL when those types have none. */
const kern_dunary *kern_double_unary(nnfx_op op);

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

/* One activation of a recurrent op (RNN, GRU, LSTM): its scalar function
 * of src/codegen/runtime/nnfx_rt_scalar.h, that file's section name
 * ("sigmoid", ...) and its alpha / beta. */
typedef struct kern_rnn_act {
    const char *section;
    float (*f)(float, float, float);
    float a, b;
} kern_rnn_act;

/* The activations of recurrent node n into fn[0..per * dirs): per
 * direction `per` functions (RNN 1: f; GRU 2: f, g; LSTM 3: f, g, h), from
 * its `activations` with activation_alpha / activation_beta consumed in
 * order by the functions that take them; defaults Sigmoid then Tanh (RNN:
 * Tanh); a list for one direction serves both. NNFX_ERR_UNSUPPORTED for
 * an unknown name, NNFX_ERR_SHAPE for a list of the wrong length. */
nnfx_status kern_rnn_acts(const nnfx_node *n, int per, int dirs, kern_rnn_act *fn, nnfx_error *err);

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
/* x * sigmoid(x) of x = DequantizeLinear(in[0], in[1], in[2]) (int8 or
 * uint8, scalar scale and zero point; in[2] NULL: zero): the 256 values
 * DequantizeLinear can give, through kern_silu_fast's row, as a table
 * indexed by each byte: the same floats as the two steps. */
nnfx_status kern_dq_silu_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                              nnfx_error *err);

/* The compiled plan's float32 GlobalAveragePool (pool_fast.c): the mean of
 * each (n, c) plane as kern_global_average_pool's, summed in double by
 * independent accumulators instead of in order (within float rounding of
 * it; the same for every thread count). Other types: the reference. */
nnfx_status kern_global_average_pool_fast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                          nnfx_tensor *const *out, nnfx_error *err);

/* Pad's source coordinate along a dim of size dim for output coordinate i
 * (shifted by the begin pad) in mode 0 constant, 1 reflect, 2 edge, 3
 * wrap: an index in [0, dim), or -1 for the constant value. */
int64_t kern_pad_src(int mode, int64_t i, int64_t dim);

/* Pad's mode number for kern_pad_src from its mode attribute, -1 when
 * unknown. */
int kern_pad_mode(const char *mode);

/* The taps of dim d of Resize node n (input dims xs -> output dims os,
 * constant scales and roi or NULL), as kern_resize computes them: output
 * position x reads nt[x] source rows idx[4x + k] with weights w[4x + k]
 * (unused entries 0; nt[x] 0: the point lies outside the input and gets
 * *extrapolation); *skip when kern_resize leaves the dim as it is. */
nnfx_status kern_resize_taps(const nnfx_node *n, int rank, const int64_t *xs, const int64_t *os,
                             const nnfx_tensor *scales, const nnfx_tensor *roi, int d, int64_t *idx, float *w, int *nt,
                             float *extrapolation, bool *skip, nnfx_error *err);

/* Nearest Resize node n (input dims xs -> output dims os, constant scales
 * or NULL): idx[x] is the source index along dim d of each output position
 * x < os[d], as kern_resize computes it. */
nnfx_status kern_resize_nearest_index(const nnfx_node *n, int rank, const int64_t *xs, const int64_t *os,
                                      const nnfx_tensor *scales, int d, int64_t *idx, nnfx_error *err);

/* Max pooling's one rule for a tap (kern_max_pool, GlobalMaxPool, the
 * compiled plan's pool_fast.c and the generated C's pool): whether tap
 * value v replaces the running max m — nnfx_rt_max_takes
 * (src/codegen/runtime/nnfx_rt_scalar.h). */
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

/* The generic Einsum loop's geometry: its labels, the output's first
 * (nouter of them) then the summed ones (nall in all), each one's size
 * and, per input, element stride (summed over the dims it names: a
 * diagonal; 0 along a broadcast dim of size 1). The interpreter's loop and
 * generated C's nnfx_rt_einsum walk it the same way. */
#define KERN_EINSUM_MAX_LABELS (2 * NNFX_MAX_RANK * IR_EINSUM_MAX_IN)
typedef struct kern_einsum_geom {
    int nin, nall, nouter;
    int64_t size[KERN_EINSUM_MAX_LABELS];
    int64_t st[IR_EINSUM_MAX_IN][KERN_EINSUM_MAX_LABELS];
} kern_einsum_geom;
/* Fills *g for parsed equation p over nin inputs of the given ranks and
 * shapes; false when label sizes differ (other than 1). */
bool kern_einsum_geometry(const ir_einsum *p, int nin, const int64_t *const *shapes, kern_einsum_geom *g);

#endif
