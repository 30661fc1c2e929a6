/* bounds_int.h — shared by bounds.c (how each op carries data-dependent
 * dims) and sizes.c (small integer values computed from them). */
#ifndef NNFX_CODEGEN_BOUNDS_INT_H
#define NNFX_CODEGEN_BOUNDS_INT_H

#include "codegen/codegen_int.h"

/* One node's rule: it sets ext[0..rank of n's output) from din (the
 * inputs' extents, NULL for a static input) and sin (the inputs computed
 * from extents, NULL for others), or writes why it cannot into why. */
typedef struct cg_rule_ctx {
    const nnfx_graph *g;
    cg_bounds *b;
    const nnfx_node *n;
    const int *const *din;
    const cg_sym *const *sin;
    int *ext;
    char *why;
    size_t wlen;
    nnfx_error *err;
} cg_rule_ctx;

/* Whether argument a of n is a constant (absent, a parameter or a literal). */
bool cg_arg_is_const(const nnfx_node *n, int a);

/* ---- sizes.c ---- */

/* The values computed from extents that v holds (its elements' extents),
 * NULL when v is not one. */
const cg_sym *cg_sym_of(const cg_bounds *b, const nnfx_node *v);

/* Whether sy depends on an extent: an element unknown or not a constant
 * (one of constants, a static dim of such a value's shape, may be read as
 * data). */
bool cg_sym_depends(const cg_bounds *b, const cg_sym *sy);

/* Whether r->n computes a small integer value from values computed from
 * extents and constants (a Shape, Gather, Concat, arithmetic...); its
 * elements' extents (-1: unknown) into *out. */
bool cg_sym_rule(cg_rule_ctx *r, cg_sym *out);

/* Adds a copy of sy to b, and its value at the bound as n's pass_data
 * (what shape inference of its readers sees). */
nnfx_status cg_add_sym(cg_bounds *b, nnfx_node *n, const cg_sym *sy, nnfx_error *err);

/* The value of v when it is a small static value shape inference can
 * compute (a Shape of a static value, and what Gather, Concat... make of
 * it), kept as v's pass_data for the inference of its readers; NULL when
 * not (depth: recursion left). */
const nnfx_tensor *cg_static_value(cg_bounds *b, nnfx_node *v, int depth);

/* Drops the values at the bound that shape inference read (pass_data). */
void cg_release_sym_values(cg_bounds *b);

#endif
