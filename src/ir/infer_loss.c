/* infer_loss.c — shape inference of the losses NegativeLogLikelihoodLoss
 * and SoftmaxCrossEntropyLoss: input [N, C, d1...], target [N, d1...];
 * the loss has the target's shape (reduction "none") or is a scalar. */
#include <string.h>

#include "ir/infer_int.h"

static nnfx_status infer_loss_common(nnfx_infer_ctx *c, const char *what) {
    nnfx_status s = infer_need(c, 0, "input");
    if (!s) s = infer_need(c, 1, "target");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    const char *red = nnfx_node_attr_string(c->node, "reduction", "mean");
    if (strcmp(red, "none") != 0 && strcmp(red, "mean") != 0 && strcmp(red, "sum") != 0)
        return infer_fail(c, "%s reduction '%s' is not none, mean or sum", what, red);
    if (x->rank >= 0 && x->rank < 2) return infer_fail(c, "%s input needs rank >= 2, got %d", what, x->rank);
    if (strcmp(red, "none") != 0) {
        infer_set_dims(&c->out[0], x->dtype, 0, NULL);
    } else if (x->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
    } else {
        c->out[0] = *x;
        c->out[0].rank = x->rank - 1;
        for (int i = 1; i < x->rank - 1; i++)
            c->out[0].dims[i] = x->dims[i + 1];
    }
    return NNFX_OK;
}

/* NegativeLogLikelihoodLoss(input, target, weight?) -> loss. */
nnfx_status infer_nll_loss(nnfx_infer_ctx *c) { return infer_loss_common(c, "negative_log_likelihood_loss"); }

/* SoftmaxCrossEntropyLoss(scores, labels, weights?) -> output, log_prob?
 * (log_prob has the scores' meta). */
nnfx_status infer_sce_loss(nnfx_infer_ctx *c) {
    if (c->nout > 2)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "softmax_cross_entropy_loss has %d outputs (at most 2)",
                                 c->nout);
    nnfx_status s = infer_loss_common(c, "softmax_cross_entropy_loss");
    if (s) return s;
    if (c->nout > 1) c->out[1] = *c->in[0];
    return NNFX_OK;
}
