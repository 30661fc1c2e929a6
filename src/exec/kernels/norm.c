/* norm.c — normalisation kernels (float32): BatchNormalization
 * (inference), LayerNormalization, Softmax, LogSoftmax. */
#include <math.h>

#include "rt/nnfx_rt_kernels.h"
#include "exec/kernels/kernels_int.h"

/* BatchNormalization(X, scale, B, mean, var), inference form:
 * y = scale * (x - mean) / sqrt(var + epsilon) + B per channel (dim 1). */
nnfx_status kern_batch_norm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    static const char *names[5] = {"X", "scale", "B", "input_mean", "input_var"};
    nnfx_status s;
    if (nin < 5 || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "batch_normalization needs 5 inputs");
    for (int i = 0; i < 5; i++)
        if ((s = kern_need(n, in[i], NNFX_F32, names[i], err))) return s;
    const nnfx_tensor *x = in[0];
    if (x->rank < 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "batch_normalization expects rank >= 2");
    int64_t ch = x->shape[1];
    for (int i = 1; i < 5; i++)
        if (nnfx_tensor_numel(in[i]) != ch)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "batch_normalization %s has %lld values for %lld channels",
                             names[i], (long long)nnfx_tensor_numel(in[i]), (long long)ch);
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    float eps = (float)ir_attr_float(n, "epsilon");
    const float *sc = in[1]->data, *bi = in[2]->data, *mu = in[3]->data, *va = in[4]->data, *xd = x->data;
    int64_t inner = 1;
    for (int i = 2; i < x->rank; i++)
        inner *= x->shape[i];
    nnfx_rt_batch_norm(xd, sc, bi, mu, va, eps, out[0]->data, (long)x->shape[0], (long)ch, (long)inner);
    return NNFX_OK;
}

/* LayerNormalization(X, scale, B?): normalises over dims [axis, rank);
 * scale and B hold one value per normalised element (or one in all). */
nnfx_status kern_layer_norm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    nnfx_status s;
    if (nin < 2 || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "layer_normalization needs X and scale");
    const nnfx_tensor *x = in[0], *sc = in[1], *bi = nin > 2 ? in[2] : NULL;
    if ((s = kern_need(n, x, NNFX_F32, "X", err)) || (s = kern_need(n, sc, NNFX_F32, "scale", err))) return s;
    if (bi && (s = kern_need(n, bi, NNFX_F32, "B", err))) return s;
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "layer_normalization axis %lld out of range for rank %d", (long long)a,
                         x->rank);
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    int64_t inner = 1;
    for (int i = axis; i < x->rank; i++)
        inner *= x->shape[i];
    int64_t outer = inner ? nnfx_tensor_numel(x) / inner : 0;
    int64_t ns = nnfx_tensor_numel(sc), nb = bi ? nnfx_tensor_numel(bi) : 0;
    if ((ns != inner && ns != 1) || (bi && nb != inner && nb != 1))
        return kern_fail(err, n, NNFX_ERR_SHAPE,
                         "layer_normalization scale/B have %lld/%lld values for %lld normalised elements",
                         (long long)ns, (long long)nb, (long long)inner);
    float eps = (float)ir_attr_float(n, "epsilon");
    const float *xd = x->data, *sd = sc->data, *bd = bi ? bi->data : NULL;
    float *y = out[0]->data;
    /* optional outputs Mean and InvStdDev: one value per normalised row */
    float *mean_out = NULL, *inv_out = NULL;
    for (int k = 1; k < nout && k < 3; k++) {
        if (!out[k]) continue;
        if (out[k]->dtype != NNFX_F32 || nnfx_tensor_numel(out[k]) != outer)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "layer_normalization output %d does not hold %lld values", k,
                             (long long)outer);
        if (k == 1)
            mean_out = out[k]->data;
        else
            inv_out = out[k]->data;
    }
    nnfx_rt_layer_norm(xd, sd, (long)ns, bd, (long)nb, eps, y, (long)outer, (long)inner, mean_out, inv_out);
    return NNFX_OK;
}

static nnfx_status softmax(bool logsm, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                           nnfx_tensor *const *out, nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "softmax needs an input");
    const nnfx_tensor *x = in[0];
    if ((s = kern_need(n, x, NNFX_F32, "input", err))) return s;
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    int rank = x->rank ? x->rank : 1;
    if (!infer_axis(a, rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "softmax axis %lld out of range for rank %d", (long long)a, x->rank);
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    int64_t len = x->rank ? x->shape[axis] : 1, inner = 1, outer = 1;
    for (int i = axis + 1; i < x->rank; i++)
        inner *= x->shape[i];
    for (int i = 0; i < axis; i++)
        outer *= x->shape[i];
    nnfx_rt_softmax(x->data, out[0]->data, (long)outer, (long)len, (long)inner, logsm);
    return NNFX_OK;
}

/* Softmax(input) along axis (opset 13 form). */
nnfx_status kern_softmax(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    return softmax(false, n, nin, in, nout, out, err);
}

/* LogSoftmax(input) along axis. */
nnfx_status kern_log_softmax(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err) {
    return softmax(true, n, nin, in, nout, out, err);
}
