/* norm_extra.c — the coverage normalisations (through double, any float
 * dtype): InstanceNormalization, LRN, MeanVarianceNormalization. */
#include <math.h>
#include <stdlib.h>

#include "rt/nnfx_rt_float.h"
#include "exec/kernels/kernels_int.h"

/* InstanceNormalization(x [N, C, ...], scale [C], B [C]): normalises each
 * (n, c) plane over the spatial dims. */
nnfx_status kern_instance_norm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                               nnfx_error *err) {
    if (nin < 3 || !in[0] || !in[1] || !in[2] || nout < 1 || !out[0] || in[0]->rank < 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "instance_normalization needs x [N, C, ...], scale and B");
    const nnfx_tensor *x = in[0];
    int64_t N = x->shape[0], C = x->shape[1], D = 1;
    for (int i = 2; i < x->rank; i++)
        D *= x->shape[i];
    if (nnfx_tensor_numel(in[1]) != C || nnfx_tensor_numel(in[2]) != C)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "scale and B need one value per channel");
    double eps = ir_attr_float(n, "epsilon");
    bool f32 = x->dtype == NNFX_F32 && out[0]->dtype == NNFX_F32;
    for (int64_t p = 0; p < N * C; p++) {
        int64_t c = p % C, o = p * D;
        double mu = 0, var = 0;
        for (int64_t i = 0; i < D; i++)
            mu += f32 ? ((const float *)x->data)[o + i] : nnfx_tensor_get(x, o + i);
        mu /= (double)(D > 0 ? D : 1);
        for (int64_t i = 0; i < D; i++) {
            double d = (f32 ? ((const float *)x->data)[o + i] : nnfx_tensor_get(x, o + i)) - mu;
            var += d * d;
        }
        var /= (double)(D > 0 ? D : 1);
        double a = nnfx_tensor_get(in[1], c) / sqrt(var + eps), b = nnfx_tensor_get(in[2], c) - mu * a;
        if (f32) {
            const float *xi = (const float *)x->data + o;
            float *yo = (float *)out[0]->data + o;
            for (int64_t i = 0; i < D; i++)
                yo[i] = (float)(xi[i] * a + b);
        } else {
            for (int64_t i = 0; i < D; i++)
                kern_set(out[0], o + i, nnfx_tensor_get(x, o + i) * a + b);
        }
    }
    return NNFX_OK;
}

/* LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window
 * [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta. */
nnfx_status kern_lrn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0] || in[0]->rank < 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "lrn needs x [N, C, ...]");
    const nnfx_tensor *x = in[0];
    int64_t size = nnfx_node_attr_int(n, "size", 0);
    if (size <= 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "lrn size must be positive");
    double alpha = ir_attr_float(n, "alpha"), beta = ir_attr_float(n, "beta"), bias = ir_attr_float(n, "bias");
    int64_t N = x->shape[0], C = x->shape[1], D = 1, lo = (size - 1) / 2, hi = size / 2;
    for (int i = 2; i < x->rank; i++)
        D *= x->shape[i];
    for (int64_t b = 0; b < N; b++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t i = 0; i < D; i++) {
                double ss = 0;
                for (int64_t k = c - lo; k <= c + hi; k++) {
                    if (k < 0 || k >= C) continue;
                    double v = nnfx_tensor_get(x, (b * C + k) * D + i);
                    ss += v * v;
                }
                int64_t o = (b * C + c) * D + i;
                kern_set(out[0], o, nnfx_tensor_get(x, o) / pow(bias + alpha / (double)size * ss, beta));
            }
    return NNFX_OK;
}

/* MeanVarianceNormalization: (x - mean) / (std + 1e-9) over axes (default
 * 0, 2, 3), std = sqrt(E[x^2] - E[x]^2) as ONNX's function body. */
nnfx_status kern_mvn(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "mvn needs an input");
    const nnfx_tensor *x = in[0];
    bool red[NNFX_MAX_RANK] = {false};
    const nnfx_attr *ax = nnfx_node_attr(n, "axes");
    if (ax && ax->kind == NNFX_ATTR_INTS) {
        for (int i = 0; i < ax->u.ints.n; i++) {
            int a;
            if (!infer_axis(ax->u.ints.v[i], x->rank, false, &a))
                return kern_fail(err, n, NNFX_ERR_SHAPE, "mvn axis out of range");
            red[a] = true;
        }
    } else {
        if (x->rank != 4) return kern_fail(err, n, NNFX_ERR_SHAPE, "mvn default axes need rank 4");
        red[0] = red[2] = red[3] = true;
    }
    int64_t cnt = nnfx_tensor_numel(x), st[NNFX_MAX_RANK], gcnt = 1, per = 1;
    kern_strides(x->rank, x->shape, st);
    for (int d = 0; d < x->rank; d++)
        *(red[d] ? &per : &gcnt) *= x->shape[d];
    double *s1 = calloc((size_t)(gcnt > 0 ? gcnt : 1), sizeof *s1),
           *s2 = calloc((size_t)(gcnt > 0 ? gcnt : 1), sizeof *s2);
    if (!s1 || !s2) {
        free(s1);
        free(s2);
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    }
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < cnt; i++) {
            int64_t g = 0;
            for (int d = 0; d < x->rank; d++)
                if (!red[d]) g = g * x->shape[d] + (i / st[d]) % x->shape[d];
            double v = nnfx_tensor_get(x, i);
            if (pass == 0) {
                s1[g] += v;
                s2[g] += v * v;
            } else {
                double mu = s1[g] / (double)per, var = s2[g] / (double)per - mu * mu;
                kern_set(out[0], i, (v - mu) / (sqrt(var > 0 ? var : 0) + 1e-9));
            }
        }
    free(s1);
    free(s2);
    return NNFX_OK;
}

/* LpNormalization: x / ||x||_p along axis (p 1 or 2), 0 where the norm is 0
 * (nnfx_rt_lp_norm, the generated C's). */
nnfx_status kern_lp_norm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "lp_normalization needs x");
    if ((s = kern_need(n, in[0], NNFX_F32, "X", err))) return s;
    const nnfx_tensor *x = in[0];
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    const int64_t p = ir_attr_int(n, "p"), a = ir_attr_int(n, "axis");
    const int rank = x->rank ? x->rank : 1;
    if (p != 1 && p != 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "p is %lld (1 or 2)", (long long)p);
    if (a < -rank || a >= rank) return kern_fail(err, n, NNFX_ERR_SHAPE, "axis %lld out of range", (long long)a);
    const int axis = (int)(a < 0 ? a + rank : a);
    int64_t outer = 1, len = x->rank ? x->shape[axis] : 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    nnfx_rt_lp_norm(x->data, out[0]->data, (long)outer, (long)len, (long)inner, (int)p);
    return NNFX_OK;
}
