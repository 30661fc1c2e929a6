/* index.c — indexing and scan kernels: Size, GatherElements, Trilu,
 * CumSum, Hardmax. Data movement is dtype-agnostic (element bytes);
 * CumSum computes through double. */
#include <string.h>

#include "exec/kernels/kernels_int.h"

/* Size(X): number of elements, int64 scalar. */
nnfx_status kern_size(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0] || out[0]->dtype != NNFX_I64 || nnfx_tensor_numel(out[0]) != 1)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "size needs an input and an int64 scalar output");
    *(int64_t *)out[0]->data = nnfx_tensor_numel(in[0]);
    return NNFX_OK;
}

/* GatherElements(data, indices) along axis: out[i] = data[i with its axis
 * coordinate replaced by indices[i]] (negative indices count from the end). */
nnfx_status kern_gather_elements(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                 nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather_elements needs data and indices");
    const nnfx_tensor *x = in[0], *ix = in[1];
    if (ix->dtype != NNFX_I64 && ix->dtype != NNFX_I32)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "gather_elements indices must be int32 or int64");
    if (ix->rank != x->rank || out[0]->dtype != x->dtype)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather_elements indices rank %d differs from data rank %d", ix->rank,
                         x->rank);
    nnfx_status s = kern_check_out(n, out[0], ix->rank, ix->shape, err);
    if (s) return s;
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather_elements axis %lld out of range", (long long)a);
    int64_t xst[NNFX_MAX_RANK], idx[NNFX_MAX_RANK] = {0};
    kern_strides(x->rank, x->shape, xst);
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t cnt = nnfx_tensor_numel(ix), len = x->shape[axis];
    const char *src = x->data;
    char *dst = out[0]->data;
    for (int64_t i = 0; i < cnt; i++) {
        int64_t j = ix->dtype == NNFX_I64 ? ((const int64_t *)ix->data)[i] : ((const int32_t *)ix->data)[i];
        if (j < 0) j += len;
        if (j < 0 || j >= len)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather_elements index %lld out of range [0, %lld)",
                             (long long)j, (long long)len);
        int64_t off = 0;
        for (int d = 0; d < x->rank; d++) {
            int64_t c = d == axis ? j : idx[d];
            if (c >= x->shape[d])
                return kern_fail(err, n, NNFX_ERR_SHAPE, "gather_elements indices exceed data along dim %d", d);
            off += c * xst[d];
        }
        memcpy(dst + (size_t)i * es, src + (size_t)off * es, es);
        for (int d = ix->rank - 1; d >= 0; d--) {
            if (++idx[d] < ix->shape[d]) break;
            idx[d] = 0;
        }
    }
    return NNFX_OK;
}

/* Trilu(X, k?): keeps the upper (j - i >= k) or lower (j - i <= k) triangle
 * of each matrix in the last two dims, zeroes the rest. */
nnfx_status kern_trilu(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "trilu needs an input");
    const nnfx_tensor *x = in[0];
    if (x->rank < 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "trilu needs rank >= 2, got %d", x->rank);
    nnfx_status s = kern_check_out(n, out[0], x->rank, x->shape, err);
    if (s) return s;
    int64_t k = 0, kv[1];
    int nk = 0;
    if (nin > 1 && in[1]) {
        if (!kern_ints(in[1], kv, 1, &nk) || nk != 1)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "trilu k must hold one value");
        k = kv[0];
    }
    bool upper = ir_attr_int(n, "upper") != 0;
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    int64_t mats = (rows > 0 && cols > 0) ? nnfx_tensor_numel(x) / (rows * cols) : 0;
    const char *src = x->data;
    char *dst = out[0]->data;
    for (int64_t m = 0; m < mats; m++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                size_t off = (size_t)((m * rows + i) * cols + j) * es;
                bool keep = upper ? j - i >= k : j - i <= k;
                if (keep)
                    memcpy(dst + off, src + off, es);
                else
                    memset(dst + off, 0, es);
            }
    return NNFX_OK;
}

/* CumSum(X, axis): running sums along axis; exclusive leaves out the
 * element itself, reverse runs from the end. */
nnfx_status kern_cum_sum(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "cum_sum needs x and axis");
    const nnfx_tensor *x = in[0];
    if (x->dtype == NNFX_BOOL) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "cum_sum does not take bool");
    nnfx_status s = kern_check_out(n, out[0], x->rank, x->shape, err);
    if (s) return s;
    int64_t av[1];
    int na = 0, axis;
    if (!kern_ints(in[1], av, 1, &na) || na != 1 || !infer_axis(av[0], x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "cum_sum axis must be one value in range for rank %d", x->rank);
    bool excl = ir_attr_int(n, "exclusive") != 0, rev = ir_attr_int(n, "reverse") != 0;
    int64_t len = x->shape[axis], inner = 1, outer = 1;
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            double acc = 0;
            for (int64_t t = 0; t < len; t++) {
                int64_t i = rev ? len - 1 - t : t, off = (o * len + i) * inner + j;
                double v = nnfx_tensor_get(x, off);
                if (!excl) acc += v;
                kern_set(out[0], off, acc);
                if (excl) acc += v;
            }
        }
    return NNFX_OK;
}

/* Hardmax(X) along axis: 1 at the first maximum, 0 elsewhere (float32). */
nnfx_status kern_hardmax(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    nnfx_status s;
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "hardmax needs an input");
    const nnfx_tensor *x = in[0];
    if ((s = kern_need(n, x, NNFX_F32, "input", err))) return s;
    if ((s = kern_check_out(n, out[0], x->rank, x->shape, err))) return s;
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (x->rank == 0 || !infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "hardmax axis %lld out of range for rank %d", (long long)a, x->rank);
    int64_t len = x->shape[axis], inner = 1, outer = 1;
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    const float *xd = x->data;
    float *y = out[0]->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            int64_t base = o * len * inner + j, best = 0;
            for (int64_t i = 0; i < len; i++) {
                y[base + i * inner] = 0.0f;
                if (xd[base + i * inner] > xd[base + best * inner]) best = i;
            }
            if (len) y[base + best * inner] = 1.0f;
        }
    return NNFX_OK;
}
