/* const_eval.c — the inputs of constant evaluation, gathered one way for
 * the three places that compute a node's constant value with its op's one
 * kernel: shape inference (ir/shape_infer.c: small values, to resolve
 * shapes), the fold-constants pass (passes/fold_constants.c: rewrites the
 * graph) and the compiled plan (exec/fast_plan.c: once per plan). What
 * differs between them is which values each knows and keeps, not how a
 * value is computed; Shape and Size of a value whose shape is static are
 * computed by their kernels too, over a header that has the shape and no
 * data. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

/* Ops whose kernel reads only its input's shape, never its data. */
static bool reads_shape_only(nnfx_op op) { return op == NNFX_OP_SHAPE || op == NNFX_OP_SIZE; }

/* A tensor of static meta m over no data (a single shared float that the
 * shape-only kernels never read). NULL on OOM. */
static nnfx_tensor *shape_header(const nnfx_meta *m, nnfx_error *err) {
    static float nodata;
    int64_t dims[NNFX_MAX_RANK];
    for (int d = 0; d < m->rank; d++)
        dims[d] = m->dims[d].value;
    return nnfx_tensor_borrow(m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype, m->rank, dims, &nodata, err);
}

nnfx_status ir_const_in_gather(ir_const_in *ci, const nnfx_node *n, ir_value_fn value_of, void *ctx, nnfx_error *err) {
    int k = n->nargs;
    ci->n = 0; /* entries are set one by one below: the stack arrays need no clearing */
    ci->known = false;
    ci->t = k <= 16 ? ci->t_stack : calloc((size_t)k, sizeof *ci->t);
    ci->owned = k <= 16 ? ci->owned_stack : calloc((size_t)k, sizeof *ci->owned);
    if (!ci->t || !ci->owned) {
        ir_const_in_release(ci);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    ci->known = true;
    for (int i = 0; i < k; i++) {
        const nnfx_arg *a = &n->args[i];
        ci->t[i] = NULL;
        ci->owned[i] = false;
        ci->n = i + 1; /* a failure below releases the entries set so far */
        if (a->kind == NNFX_ARG_NONE) continue;
        if (a->kind != NNFX_ARG_NODE) { /* a literal */
            ci->owned[i] = true;
            if (!(ci->t[i] = ir_literal_tensor(a, err))) return NNFX_ERR_NOMEM;
            continue;
        }
        const nnfx_meta *m = &a->u.node->meta[0];
        if ((ci->t[i] = (nnfx_tensor *)value_of(ctx, a->u.node))) continue;
        if (i == 0 && reads_shape_only(n->op) && nnfx_meta_is_static(m)) {
            ci->owned[i] = true;
            if (!(ci->t[i] = shape_header(m, err))) return NNFX_ERR_NOMEM;
            continue;
        }
        ci->known = false;
    }
    return NNFX_OK;
}

void ir_const_in_release(ir_const_in *ci) {
    for (int i = 0; i < ci->n; i++)
        if (ci->owned[i]) nnfx_tensor_release(ci->t[i]);
    if (ci->t != ci->t_stack) free(ci->t);
    if (ci->owned != ci->owned_stack) free(ci->owned);
    ci->n = 0;
    ci->t = NULL;
    ci->owned = NULL;
    ci->known = false;
}
