/* plan_view.h — what exec publishes for the C generator (src/codegen),
 * read-only: a compiled plan built for generation and walked step by step
 * (its steps, its values, its arena), the int8 islands it fused, and the
 * geometry helpers whose results the interpreter's kernels and the
 * generated C share (broadcast strides, Pad and Resize taps, recurrent
 * activations, Einsum labels, the runtime's type codes). The generator
 * includes this header and no other of exec (exec's fast_int.h, qplan.h
 * and kernels/kernels_int.h stay exec's own); qplan.h and kernels_int.h
 * include it, and so do the files that define what it declares. */
#ifndef NNFX_PLAN_VIEW_H
#define NNFX_PLAN_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/kernels/qgemm.h"
#include "ir/infer_int.h"
#include "nnfx.h"
#include "rt/nnfx_rt_qfixed.h"

/* ---- the compiled plan, as the generator reads it (fast_plan.c) -------- */

typedef struct fx_plan fx_plan;

/* The plan for the C generator (src/codegen): as fx_plan_new with one
 * thread, but an If, Loop or Scan node with static output shapes is a
 * kernel step of its own (its outputs in the arena, its operands live
 * until it) whose bodies the generator writes out. Such a plan is read
 * through the views below, not run. NULL with err set as fx_plan_new. */
fx_plan *fx_plan_new_codegen(const nnfx_graph *g, nnfx_error *err);
/* As fx_plan_new_codegen, but the nodes kept[0..nkept) are steps of their
 * own even when their inputs are constants (not folded) or they are views
 * (not aliases): the generator writes them its own way (a Concat along a
 * dim whose size depends on the data, a Shape of one written at run time, a
 * Reshape compacting one). The array must outlive the plan. */
fx_plan *fx_plan_new_codegen_kept(const nnfx_graph *g, const nnfx_node *const *kept, int nkept, nnfx_error *err);
void fx_plan_free(fx_plan *p);

/* Read-only view of a built plan for the C generator (src/codegen): value
 * v is the node at position v of the graph (0 = head) or, past the nodes,
 * a literal argument; aliases are resolved to the storage they view. */
typedef enum fx_step_kind { FX_STEP_KERNEL, FX_STEP_CONV, FX_STEP_OUTPUT, FX_STEP_QOP } fx_step_kind;
typedef struct fx_step_view {
    fx_step_kind kind;
    const nnfx_node *first, *last; /* CONV: the conv and the last node of its fused chain */
    int nin;
    const int *in;            /* KERNEL: a value per argument of last (-1 absent); CONV: x, residual or -1 */
    int out;                  /* value written (-1 for OUTPUT, whose inputs are last's arguments) */
    int nout;                 /* values written: 1, or every output of a multi-output node (0 for OUTPUT) */
    const int *outs;          /* nout values (outs[0] == out) */
    const struct fx_qop *qop; /* QOP: the int8 island (src/exec/qplan.h: fx_qop_view_of); in: x, residual or -1 */
} fx_step_view;
typedef enum fx_value_kind { FX_VALUE_NONE, FX_VALUE_CONST, FX_VALUE_INPUT, FX_VALUE_ARENA } fx_value_kind;
typedef struct fx_value_view {
    fx_value_kind kind;
    int64_t off;          /* ARENA: byte offset in the activation arena */
    const nnfx_tensor *t; /* CONST: the value */
    int input;            /* INPUT: placeholder index */
} fx_value_view;
int64_t fx_plan_arena_bytes(const fx_plan *p);
/* The step at which the arena values alive together take the most bytes
 * (each rounded up to FX_ARENA_ALIGN), that many in *live; -1 without
 * steps. The arena is at least *live (more where placement fragments). */
int fx_plan_peak_step(const fx_plan *p, int64_t *live);
/* Bytes of the arena values alive at step s (each rounded up as above). */
int64_t fx_plan_step_live(const fx_plan *p, int s);
int fx_plan_nsteps(const fx_plan *p);
/* Values of the plan: every v passed to fx_plan_value_view is below this. */
int fx_plan_nvalues(const fx_plan *p);
fx_step_view fx_plan_step_view(const fx_plan *p, int s);
fx_value_view fx_plan_value_view(const fx_plan *p, int v);

/* ---- int8 islands (qplan.c) ------------------------------------------ */

typedef struct fx_qop fx_qop;

/* Read-only description of a prepared int8 op, for the C generator
 * (src/codegen): what the kernels compute, with the model's own int8
 * weights and the epilogue arrays the kernels use. Pointers live as long
 * as the plan (the weights are its constants). */
typedef enum fx_qop_kind {
    FX_QOP_CONV,
    FX_QOP_FC,
    FX_QOP_POOL,
    FX_QOP_LUT,  /* a 256-entry table */
    FX_QOP_MUL,  /* TFLite's int8 Mul of two values of one shape (x and the residual input) */
    FX_QOP_ADD,  /* TFLite's int8 Add (sub: Sub) likewise */
    FX_QOP_MEAN, /* a mean over the trailing inner values of each of outer rows, fixed point */
    FX_QOP_MOVE, /* a reshape between the same quantization: y = x's numel bytes */
} fx_qop_kind;
typedef struct fx_qop_view {
    fx_qop_kind kind;
    fx_qconv_geom g;    /* CONV: x [n, c, h, w] -> y [n, m, oh, ow] */
    int64_t rows, k, m; /* FC: y [rows, m] from x [rows, k] */
    const int8_t *w;    /* CONV: [m][c / group][kh][kw]; FC: [m][k], or [k][m] when w_km */
    bool w_km;          /* FC: weights stored [k][m] (MatMul, Gemm without transB) */
    bool x_signed;      /* CONV, FC: x is int8 (else uint8) */
    int32_t x_zp;       /* CONV, FC: x's zero point (of its own type) */
    const fx_qepi *e;   /* CONV, FC: the requantize epilogue */
    fx_qpool_geom pool; /* POOL */
    const int8_t *lut;  /* LUT: y = lut[x + 128] (int8 x) or lut[x] (uint8 x), y's bytes */
    bool y_signed;      /* LUT: y is int8 (else uint8) */
    int64_t numel;      /* LUT, MUL, ADD: values of x (and y) */
    /* MUL: y = nnfx_rt_qf_mul_q8(x, a_zp, r, b_zp, qm, shift, y_zp, -128, 127);
     * ADD: y = nnfx_rt_qf_add(&add, x, r, sub);
     * MEAN: y[o] = nnfx_rt_qf_requant(sum over i < inner of x[o * inner + i] - a_zp, qm, shift, y_zp, -128, 127) */
    int32_t a_zp, b_zp, y_zp, qm;
    int shift;
    bool sub;
    nnfx_rt_qf_addp add;
    int64_t outer, inner;
} fx_qop_view;
void fx_qop_view_of(const fx_qop *op, fx_qop_view *v);

/* ---- kernel geometry shared with generated C (kernels/) --------------- */

/* Reads up to max elements of an integer (or float) tensor as int64 into
 * v; *cnt = number read. Returns false if t holds more than max. */
bool kern_ints(const nnfx_tensor *t, int64_t *v, int max, int *cnt);

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

/* The generated C runtime's type code of dt (src/rt/
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
 * function of src/rt/nnfx_rt_scalar.h (nnfx_rt_dexp...) and
 * that file's section name ("dexp"...). */
typedef struct kern_dunary {
    const char *section;
    double (*f)(double);
} kern_dunary;

/* The double function of one-input op `op` for float64 / float16 values,
 * NULL when those types have none. */
const kern_dunary *kern_double_unary(nnfx_op op);

/* One activation of a recurrent op (RNN, GRU, LSTM): its scalar function
 * of src/rt/nnfx_rt_scalar.h, that file's section name
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
