/* qplan.h — int8 islands of the compiled plan. A QDQ model states an int8
 * layer as DequantizeLinear(x) -> Conv / Gemm / MatMul (weights: a
 * DequantizeLinear of an int8 initializer; a float or dequantized bias)
 * -> [Relu | Clip] -> [QuantizeLinear -> DequantizeLinear] ->
 * [Add(DequantizeLinear(r))] -> [Relu | Clip] -> QuantizeLinear. The plan
 * runs such a chain as one int8 kernel (src/exec/kernels/qgemm.c) reading
 * x (and r) in their int8 form and writing the final QuantizeLinear's
 * value; weights are packed once here. DequantizeLinear(x) -> element-wise
 * float ops with no other run-time input (Sigmoid, x * sigmoid(x), an erf
 * GELU...) -> QuantizeLinear is a 256-entry table built here from the
 * interpreter's own kernels (exact on the int8 grid). On int8 (signed)
 * values, Q(Mul | Add | Sub(DQ(a), DQ(b))) of one shape and Q(ReduceMean |
 * GlobalAveragePool(DQ(x))) over trailing axes run in TFLite's fixed point
 * (nnfx_rt_qfixed.h), as do the conv / gemm epilogues with int8 input and
 * output. Anything else keeps the reference
 * semantics: DequantizeLinear, the float op, QuantizeLinear. */
#ifndef NNFX_QPLAN_H
#define NNFX_QPLAN_H

#include "exec/fast_int.h"
#include "rt/nnfx_rt_qfixed.h"
#include "exec/kernels/qgemm.h"
#include "ir/ir_int.h"

typedef struct fx_qop fx_qop;

/* What the matcher asks of the plan. */
typedef struct fx_qenv {
    /* The build-time constant value of node n, or NULL when n is computed
     * at run time. */
    const nnfx_tensor *(*const_of)(void *ctx, const nnfx_node *n);
    /* True when node n is already part of another fused step. */
    bool (*claimed)(void *ctx, const nnfx_node *n);
    void *ctx;
} fx_qenv;

#define FX_QOP_MAX_NODES 10

typedef struct fx_qmatch {
    const nnfx_node *x;     /* the int8 value the op reads (input of the first DequantizeLinear) */
    const nnfx_node *res;   /* the int8 residual value, or NULL */
    const nnfx_node *dq[2]; /* DequantizeLinear nodes of x and res: dead once all their users are fused */
    const nnfx_node *nodes[FX_QOP_MAX_NODES]; /* fused nodes, the QuantizeLinear last */
    int nnodes;
} fx_qmatch;

/* When QuantizeLinear node q ends an int8 island (see above) whose every
 * intermediate value has no other reader, prepares its kernel and fills m.
 * Returns NULL when it does not match (err untouched), or on OOM with err
 * set to NNFX_ERR_NOMEM. */
fx_qop *fx_qop_match(const nnfx_node *q, const fx_qenv *env, fx_qmatch *m, nnfx_error *err);
void fx_qop_free(fx_qop *op);
/* Bytes of scratch per thread. */
int64_t fx_qop_scratch_bytes(const fx_qop *op);
void fx_qop_describe(const fx_qop *op, char *buf, size_t len);
/* y = the island's value from x (and res); scratch as fx_qconv_run's. */
void fx_qop_run(const fx_qop *op, fx_pool *pool, const void *x, const void *res, void *y, void *scratch);

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
/* Whether op's output value i depends on its input value i only (a table,
 * a move, Mul / Add / Sub): it may write over its input x. */
bool fx_qop_inplace(const fx_qop *op);

#endif
