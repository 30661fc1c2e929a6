/* infer_optional_outputs.c — shape inference for ops whose ONNX form has
 * optional extra outputs that nnfx computes: Dropout's mask and
 * LayerNormalization's Mean / InvStdDev. Output 0 is the input's meta. */
#include "ir/infer_int.h"

/* Dropout(data, ratio?, training_mode?) -> output, mask? (bool, data's
 * shape). Inference only: a training_mode known to be true with a ratio
 * other than 0 draws random masks, which is not supported. */
nnfx_status infer_dropout(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    if (c->nout > 2) return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "dropout has %d outputs (at most 2)", c->nout);
    if (c->nin > 2 && c->in_value && c->in_value[2] && nnfx_tensor_numel(c->in_value[2]) == 1 &&
        nnfx_tensor_get(c->in_value[2], 0) != 0) {
        double ratio = 0.5;
        if (c->nin > 1 && c->in_value[1] && nnfx_tensor_numel(c->in_value[1]) == 1)
            ratio = nnfx_tensor_get(c->in_value[1], 0);
        else if (c->nin > 1 && c->in[1])
            ratio = -1; /* unknown */
        if (ratio != 0)
            return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "training-mode dropout (random masks) is not supported");
    }
    c->out[0] = *c->in[0];
    if (c->nout > 1) {
        c->out[1] = *c->in[0];
        c->out[1].dtype = NNFX_BOOL;
    }
    return NNFX_OK;
}

/* LayerNormalization(X, scale, B?) -> Y, Mean?, InvStdDev?: Mean and
 * InvStdDev are float32 with X's shape where dims [axis, rank) are 1. */
nnfx_status infer_layer_norm(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    if (c->nout > 3)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "layer_normalization has %d outputs (at most 3)", c->nout);
    const nnfx_meta *x = c->in[0];
    c->out[0] = *x;
    for (int k = 1; k < c->nout; k++) {
        if (x->rank < 0) {
            infer_set_unknown(&c->out[k], NNFX_F32);
            continue;
        }
        int axis;
        int64_t a = nnfx_node_attr_int(c->node, "axis", -1);
        if (!infer_axis(a, x->rank, false, &axis))
            return infer_fail(c, "layer_normalization axis %lld out of range for rank %d", (long long)a, x->rank);
        c->out[k] = *x;
        c->out[k].dtype = NNFX_F32;
        for (int i = axis; i < x->rank; i++)
            c->out[k].dims[i] = infer_dim(1);
    }
    return NNFX_OK;
}
