/* infer_index.c — shape inference of Size (int64 scalar) and
 * GatherElements (the indices' shape, the data's dtype). */
#include "ir/infer_int.h"

/* Size(X) -> int64 scalar. */
nnfx_status infer_size(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    infer_set_dims(&c->out[0], NNFX_I64, 0, NULL);
    return NNFX_OK;
}

/* GatherElements(data, indices): indices' shape; ranks must agree. */
nnfx_status infer_gather_elements(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "indices");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *ix = c->in[1];
    if (x->rank >= 0 && ix->rank >= 0) {
        if (x->rank != ix->rank)
            return infer_fail(c, "gather_elements indices rank %d differs from data rank %d", ix->rank, x->rank);
        int axis;
        int64_t a = nnfx_node_attr_int(c->node, "axis", 0);
        if (!infer_axis(a, x->rank, false, &axis))
            return infer_fail(c, "gather_elements axis %lld out of range for rank %d", (long long)a, x->rank);
    }
    c->out[0] = *ix;
    c->out[0].dtype = x->dtype;
    return NNFX_OK;
}
