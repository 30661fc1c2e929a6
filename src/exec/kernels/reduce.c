/* reduce.c — ReduceMean / ReduceSum / ReduceMax / ReduceMin / ReduceProd /
 * ReduceL1 / ReduceL2 / ReduceLogSum / ReduceLogSumExp / ReduceSumSquare
 * (float32 and float64; all but Mean, L2 and the logs also int64) and ArgMax / ArgMin
 * (every numeric type in, compared as doubles by nnfx_rt_argmax, the generated
 * C's too; int64 out). */
#include <math.h>
#include <stdlib.h>

#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

typedef enum { R_MEAN, R_SUM, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQ } red_kind;

static nnfx_status reduce(red_kind k, const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                          nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "reduce needs an input");
    const nnfx_tensor *x = in[0];
    bool is_int = x->dtype == NNFX_I64;
    bool float_only = k == R_MEAN || k == R_L2 || k == R_LOGSUM || k == R_LOGSUMEXP;
    if (x->dtype != NNFX_F32 && x->dtype != NNFX_F64 && !(is_int && !float_only))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s does not take %s", nnfx_op_name(nnfx_node_op(n)),
                         nnfx_dtype_name(x->dtype));
    int64_t axes[NNFX_MAX_RANK];
    int na = 0;
    const nnfx_tensor *at = nin > 1 ? in[1] : NULL;
    if (at && !kern_ints(at, axes, NNFX_MAX_RANK, &na))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "reduce has more axes than dims");
    bool red[NNFX_MAX_RANK];
    char why[200];
    if (!ir_reduce_plan(n, x->rank, na, at ? axes : NULL, red, why, sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s", why);
    bool keep = ir_attr_int(n, "keepdims") != 0;
    int64_t oshape[NNFX_MAX_RANK], ost[NNFX_MAX_RANK], kshape[NNFX_MAX_RANK];
    int orank = 0;
    int64_t cnt = 1;
    for (int d = 0; d < x->rank; d++) {
        kshape[d] = red[d] ? 1 : x->shape[d];
        if (red[d]) cnt *= x->shape[d];
        if (!red[d] || keep) oshape[orank++] = kshape[d];
    }
    nnfx_status s = kern_check_out(n, out[0], orank, oshape, err);
    if (s) return s;
    /* output strides in the keepdims layout, 0 along reduced dims */
    kern_strides(x->rank, kshape, ost);
    for (int d = 0; d < x->rank; d++)
        if (red[d]) ost[d] = 0;
    int64_t on = nnfx_tensor_numel(out[0]), xn = nnfx_tensor_numel(x);
    if (x->dtype == NNFX_F32 && (k == R_SUM || k == R_MEAN) && x->rank <= 6) {
        /* generated C's own loop (nnfx_rt_reduce_axes; nnfx_rt_reduce sums a
         * contiguous run the same way, nnfx_rt_fsum): double, in the input's
         * order, so both give the same bits and overflow-range values whose
         * sum fits stay finite */
        long shp[6];
        int rd[6];
        for (int d = 0; d < x->rank; d++)
            shp[d] = (long)x->shape[d], rd[d] = red[d];
        nnfx_rt_reduce_axes(x->data, out[0]->data, x->rank, shp, rd, k == R_MEAN ? 0 : 1);
        return NNFX_OK;
    }
    double *acc = malloc((size_t)(on ? on : 1) * sizeof(double));
    if (!acc) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < on; i++)
        acc[i] = k == R_MAX ? -INFINITY : k == R_MIN ? INFINITY : k == R_PROD ? 1.0 : 0.0;
    int64_t idx[NNFX_MAX_RANK] = {0}, o = 0;
    for (int64_t i = 0; i < xn; i++) {
        double v = x->dtype == NNFX_F32 ? (double)((const float *)x->data)[i] : nnfx_tensor_get(x, i);
        switch (k) {
        case R_MAX:
            if (v > acc[o] || v != v) acc[o] = v;
            break;
        case R_MIN:
            if (v < acc[o] || v != v) acc[o] = v;
            break;
        case R_PROD: acc[o] *= v; break;
        case R_L1: acc[o] += fabs(v); break;
        case R_L2:
        case R_SUMSQ: acc[o] += v * v; break;
        case R_LOGSUMEXP: acc[o] += exp(v); break;
        default: acc[o] += v; break;
        }
        for (int d = x->rank - 1; d >= 0; d--) {
            o += ost[d];
            if (++idx[d] < x->shape[d]) break;
            o -= ost[d] * x->shape[d];
            idx[d] = 0;
        }
    }
    if ((k == R_MAX || k == R_MIN) && cnt == 0) {
        free(acc);
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "%s over an empty set", nnfx_op_name(nnfx_node_op(n)));
    }
    for (int64_t i = 0; i < on; i++) {
        double v = acc[i];
        if (k == R_MEAN)
            v = cnt ? acc[i] / (double)cnt : NAN;
        else if (k == R_L2)
            v = sqrt(acc[i]);
        else if (k == R_LOGSUM || k == R_LOGSUMEXP)
            v = log(acc[i]);
        if (x->dtype != NNFX_F32)
            kern_set(out[0], i, v);
        else
            ((float *)out[0]->data)[i] = (float)v;
    }
    free(acc);
    return NNFX_OK;
}

/* Each: reduces data over the axes input (all dims when absent). */
nnfx_status kern_reduce_mean(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err) {
    return reduce(R_MEAN, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_sum(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    return reduce(R_SUM, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_max(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    return reduce(R_MAX, n, nin, in, nout, out, err);
}

nnfx_status kern_reduce_min(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    return reduce(R_MIN, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_prod(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err) {
    return reduce(R_PROD, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_l1(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    return reduce(R_L1, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_l2(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    return reduce(R_L2, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_log_sum(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                nnfx_error *err) {
    return reduce(R_LOGSUM, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_log_sum_exp(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                    nnfx_tensor *const *out, nnfx_error *err) {
    return reduce(R_LOGSUMEXP, n, nin, in, nout, out, err);
}
nnfx_status kern_reduce_sum_square(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                   nnfx_tensor *const *out, nnfx_error *err) {
    return reduce(R_SUMSQ, n, nin, in, nout, out, err);
}

/* ArgMax / ArgMin(data) along axis: index of the first (or last, with
 * select_last_index) maximum / minimum, int64. */
nnfx_status kern_argmin(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    return kern_argmax(n, nin, in, nout, out, err);
}
nnfx_status kern_argmax(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    bool is_min = nnfx_node_op(n) == NNFX_OP_ARGMIN;
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "argmax needs an input");
    const nnfx_tensor *x = in[0];
    const int tc = kern_rt_tcode(x->dtype);
    if (tc < 0 || x->dtype == NNFX_BOOL)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "%s does not take %s", is_min ? "argmin" : "argmax",
                         nnfx_dtype_name(x->dtype));
    if (out[0]->dtype != NNFX_I64) return kern_fail(err, n, NNFX_ERR_RUNTIME, "argmax output must be int64");
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "argmax axis %lld out of range for rank %d", (long long)a, x->rank);
    bool last = ir_attr_int(n, "select_last_index") != 0;
    int64_t len = x->shape[axis], inner = 1, outer = 1;
    for (int i = axis + 1; i < x->rank; i++)
        inner *= x->shape[i];
    for (int i = 0; i < axis; i++)
        outer *= x->shape[i];
    if (nnfx_tensor_numel(out[0]) != outer * inner)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "argmax output buffer has the wrong size");
    if (len == 0 && outer * inner > 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "argmax over an empty axis");
    if (outer * inner > 0) nnfx_rt_argmax(x->data, tc, out[0]->data, (long)outer, (long)len, (long)inner, is_min, last);
    return NNFX_OK;
}
