/* fuse_layernorm.h — recognising the decomposed LayerNorm chain that
 * exporters write for a layer norm over the last axis (fuse_layernorm.c),
 * for the compiled plan to run it as one row step. */
#ifndef NNFX_FUSE_LAYERNORM_H
#define NNFX_FUSE_LAYERNORM_H

#include <stdbool.h>

#include "nnfx.h"

/* The nodes of a matched chain, in graph order: ReduceMean (mean), Sub (d),
 * Pow or Mul (d squared), ReduceMean (var), Add (var + eps), Sqrt, Div,
 * then Mul (scale) and Add (bias) when present. */
#define FX_LN_MAX_NODES 9

typedef struct fx_ln_match {
    const nnfx_node *x;                      /* the normalised value */
    const nnfx_node *nodes[FX_LN_MAX_NODES]; /* the chain, its last node last */
    int nnodes;
    const nnfx_arg *eps;   /* the scalar constant added to the variance */
    const nnfx_arg *scale; /* NULL: no multiply */
    const nnfx_arg *bias;  /* NULL: no add */
} fx_ln_match;

/* What the matcher asks of the plan: the constant float32 / int64 tensor
 * held by node n (NULL when n is not a constant), and whether node n is free
 * for a fusion (a float32 arena value no other fusion took). */
typedef struct fx_ln_env {
    const void *ctx;
    const nnfx_tensor *(*const_of)(const void *ctx, const nnfx_node *n);
    bool (*free_node)(const void *ctx, const nnfx_node *n);
} fx_ln_env;

/* Whether Div node div ends y = (x - mean(x)) / sqrt(mean((x - mean(x))^2)
 * + eps), the means ReduceMean over the last axis only (keepdims), eps a
 * scalar constant, the square Pow(d, 2) or Mul(d, d); extended over a
 * following Mul by a constant scale and Add of a constant bias (each of one
 * value or one per element of the last axis, broadcast over it alone) when
 * each intermediate value is read only inside the chain. Fills *m. */
bool fx_layernorm_match(const fx_ln_env *env, const nnfx_node *div, fx_ln_match *m);

#endif
