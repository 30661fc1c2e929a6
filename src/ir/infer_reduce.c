/* infer_reduce.c — shape inference of reductions: ReduceMean/Sum/Max
 * (axes as an optional input) and ArgMax. */
#include <stdio.h>

#include "ir/infer_int.h"

bool ir_reduce_plan(const nnfx_node *n, int rank, int naxes, const int64_t *axes, bool *red, char *why, size_t whylen) {
    for (int d = 0; d < rank; d++)
        red[d] = false;
    if (!axes || naxes == 0) {
        bool noop = nnfx_node_attr_int(n, "noop_with_empty_axes", 0) != 0;
        for (int d = 0; d < rank; d++)
            red[d] = !noop;
        return true;
    }
    for (int i = 0; i < naxes; i++) {
        int a;
        if (!infer_axis(axes[i], rank, false, &a)) {
            snprintf(why, whylen, "reduce axis %lld out of range for rank %d", (long long)axes[i], rank);
            return false;
        }
        if (red[a]) {
            snprintf(why, whylen, "reduce axis %d repeated", a);
            return false;
        }
        red[a] = true;
    }
    return true;
}

/* ReduceMean/Sum/Max(data, axes?): reduced dims become 1 (keepdims) or go. */
nnfx_status infer_reduce(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    nnfx_meta *o = &c->out[0];
    bool keep = nnfx_node_attr_int(c->node, "keepdims", 1) != 0;
    bool has_axes = c->nin > 1 && c->in[1];
    int64_t v[NNFX_MAX_RANK];
    int n = 0;
    bool tm = false;
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (has_axes && !infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &tm)) {
        if (keep)
            infer_set_rank(o, x->dtype, x->rank);
        else
            infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (tm) return infer_fail(c, "reduce has more axes than dims of %s", infer_meta_str(x, b1, sizeof b1));
    bool red[NNFX_MAX_RANK];
    char why[200];
    if (!ir_reduce_plan(c->node, x->rank, n, has_axes ? v : NULL, red, why, sizeof why))
        return infer_fail(c, "%s (input %s)", why, infer_meta_str(x, b1, sizeof b1));
    infer_set_rank(o, x->dtype, 0);
    for (int d = 0; d < x->rank; d++) {
        if (!red[d])
            o->dims[o->rank++] = x->dims[d];
        else if (keep)
            o->dims[o->rank++] = infer_dim(1);
    }
    return NNFX_OK;
}

/* ArgMax(data) along axis: int64, axis kept as 1 or removed. */
nnfx_status infer_argmax(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    nnfx_meta *o = &c->out[0];
    bool keep = nnfx_node_attr_int(c->node, "keepdims", 1) != 0;
    if (x->rank < 0) {
        infer_set_unknown(o, NNFX_I64);
        return NNFX_OK;
    }
    int axis;
    int64_t a = nnfx_node_attr_int(c->node, "axis", 0);
    if (!infer_axis(a, x->rank, false, &axis))
        return infer_fail(c, "argmax axis %lld out of range for %s", (long long)a, infer_meta_str(x, b1, sizeof b1));
    if (x->dims[axis].value == 0) return infer_fail(c, "argmax over an empty axis %d", axis);
    infer_set_rank(o, NNFX_I64, 0);
    for (int d = 0; d < x->rank; d++) {
        if (d != axis)
            o->dims[o->rank++] = x->dims[d];
        else if (keep)
            o->dims[o->rank++] = infer_dim(1);
    }
    return NNFX_OK;
}
