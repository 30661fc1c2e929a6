/* loss.c — NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (any
 * float dtype; computed through double, as ONNX's reference does).
 *
 *   input  [N, C, d1, ..., dk]  log-probabilities (NLL) or scores (SCE)
 *   target [N, d1, ..., dk]     class indices; ignore_index entries count 0
 *   weight [C]                  optional per-class weights
 *   loss   [N, d1, ..., dk] (reduction none) or a scalar (sum; mean divides
 *          by the summed weights of the counted entries) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"

/* Loss over log-probabilities lp (double, input's layout) into out[0]. */
static nnfx_status nll_core(const nnfx_node *n, const nnfx_tensor *x, const double *lp, const nnfx_tensor *tg,
                            const nnfx_tensor *wt, nnfx_tensor *out, nnfx_error *err) {
    if (x->rank < 2 || tg->rank != x->rank - 1)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "loss target rank %d does not fit input rank %d", tg->rank, x->rank);
    if (tg->dtype != NNFX_I64 && tg->dtype != NNFX_I32)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "loss target must be int32 or int64");
    int64_t N = x->shape[0], C = x->shape[1], D = 1;
    for (int i = 2; i < x->rank; i++)
        D *= x->shape[i];
    if (wt && nnfx_tensor_numel(wt) != C)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "loss weight has %lld values for %lld classes",
                         (long long)nnfx_tensor_numel(wt), (long long)C);
    const char *red = ir_attr_string(n, "reduction");
    bool has_ii = nnfx_node_attr(n, "ignore_index") != NULL;
    int64_t ii = nnfx_node_attr_int(n, "ignore_index", 0);
    bool none = strcmp(red, "none") == 0, mean = strcmp(red, "mean") == 0;
    double sum = 0, wsum = 0;
    for (int64_t b = 0; b < N; b++)
        for (int64_t d = 0; d < D; d++) {
            int64_t t = core_tensor_get_i64(tg, b * D + d), o = b * D + d;
            double l = 0, w = 0;
            if (!(has_ii && t == ii)) {
                if (t < 0 || t >= C)
                    return kern_fail(err, n, NNFX_ERR_RUNTIME, "loss target %lld out of range [0, %lld)", (long long)t,
                                     (long long)C);
                w = wt ? nnfx_tensor_get(wt, t) : 1.0;
                l = -lp[(b * C + t) * D + d] * w;
            }
            if (none) kern_set(out, o, l);
            sum += l;
            wsum += w;
        }
    if (!none) kern_set(out, 0, mean ? sum / wsum : sum);
    return NNFX_OK;
}

nnfx_status kern_nll_loss(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "negative_log_likelihood_loss needs input and target");
    const nnfx_tensor *x = in[0];
    int64_t cnt = nnfx_tensor_numel(x);
    double *lp = malloc(sizeof *lp * (size_t)(cnt > 0 ? cnt : 1));
    if (!lp) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < cnt; i++)
        lp[i] = nnfx_tensor_get(x, i);
    nnfx_status s = nll_core(n, x, lp, in[1], nin > 2 ? in[2] : NULL, out[0], err);
    free(lp);
    return s;
}

nnfx_status kern_sce_loss(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "softmax_cross_entropy_loss needs scores and labels");
    const nnfx_tensor *x = in[0];
    if (x->rank < 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "softmax_cross_entropy_loss needs rank >= 2");
    int64_t cnt = nnfx_tensor_numel(x), N = x->shape[0], C = x->shape[1], D = cnt / (N * C > 0 ? N * C : 1);
    double *lp = malloc(sizeof *lp * (size_t)(cnt > 0 ? cnt : 1));
    if (!lp) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    for (int64_t b = 0; b < N; b++) /* log_softmax over dim 1 */
        for (int64_t d = 0; d < D; d++) {
            double mx = -INFINITY, se = 0;
            for (int64_t c = 0; c < C; c++)
                mx = fmax(mx, nnfx_tensor_get(x, (b * C + c) * D + d));
            for (int64_t c = 0; c < C; c++)
                se += exp(nnfx_tensor_get(x, (b * C + c) * D + d) - mx);
            for (int64_t c = 0; c < C; c++) {
                int64_t i = (b * C + c) * D + d;
                lp[i] = nnfx_tensor_get(x, i) - mx - log(se);
            }
        }
    if (nout > 1 && out[1])
        for (int64_t i = 0; i < cnt; i++)
            kern_set(out[1], i, lp[i]);
    nnfx_status s = nll_core(n, x, lp, in[1], nin > 2 ? in[2] : NULL, out[0], err);
    free(lp);
    return s;
}
