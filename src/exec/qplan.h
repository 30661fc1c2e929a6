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
#include "exec/plan_view.h"
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
    int threads; /* the plan's threads (fx_qparams.threads) */
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

/* Whether op's output value i depends on its input value i only (a table,
 * a move, Mul / Add / Sub): it may write over its input x. */
bool fx_qop_inplace(const fx_qop *op);

#endif
