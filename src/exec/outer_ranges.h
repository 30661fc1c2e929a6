/* outer_ranges.h — a compiled-plan kernel step split into ranges of one
 * outer dimension of its output, run on the plan's pool (outer_ranges.c). */
#ifndef NNFX_OUTER_RANGES_H
#define NNFX_OUTER_RANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/fast_int.h"
#include "ir/op_table.h"

#define FX_RANGES_MAX_IN 8

typedef struct fx_ranges {
    int tasks;                    /* pool tasks (0: the step runs as one call) */
    int dim;                      /* the output dim split: its first of more than one element */
    int64_t len;                  /* that dim's size */
    int in_dim[FX_RANGES_MAX_IN]; /* per input: its dim split along, -1: read whole */
    bool transpose;               /* ranges through kern_transpose_range */
} fx_ranges;

/* Whether node n's kernel step, of inputs in[0..nin) (static shapes;
 * NULL: an absent optional input; bit a of const_mask set when in[a] is a
 * constant whose data may be read) and output out, splits into ranges of
 * out's first dim of more than one element; fills *r (r->tasks 0 when
 * not). By the op and the shapes alone: element-wise and broadcasting ops,
 * the row ops (Softmax, LogSoftmax, Hardmax, LayerNormalization of one
 * output, reductions over later dims), MatMul over batch or A's rows, and
 * Transpose, each with enough work per range (a size threshold). */
bool fx_ranges_plan(const nnfx_node *n, int nin, nnfx_tensor *const *in, unsigned const_mask, const nnfx_tensor *out,
                    fx_ranges *r);

/* Runs a step planned by fx_ranges_plan: kern (the step's kernel) on each
 * range as a task of pool (NULL: in turn on this thread), over in and out
 * (the step's current tensors, of the planned shapes). When a range's call
 * fails, the whole step runs again as one call for its error; if that call
 * succeeds, NNFX_ERR_RUNTIME (the ranges were planned wrong). */
nnfx_status fx_ranges_run(const fx_ranges *r, fx_pool *pool, nnfx_kernel_fn kern, const nnfx_node *n, int nin,
                          nnfx_tensor *const *in, nnfx_tensor *out, nnfx_error *err);

#endif
