/* select.c — coverage kernels whose outputs are selections of the input:
 * TopK, NonZero, Compress, Unique. The output sizes of NonZero, Compress
 * and Unique depend on the data; inference computes them from the values
 * at run time (src/ir/infer_select.c). */
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

typedef struct topk_ctx {
    const double *v;
    bool largest;
} topk_ctx;

/* The order of nnfx_rt_topk_before (the generated C's too): NaN above
 * every number, ties by the lower index. */
static bool topk_before(const void *ctx, int64_t a, int64_t b) {
    const topk_ctx *c = ctx;
    return nnfx_rt_topk_before(c->v[a], (long)a, c->v[b], (long)b, c->largest);
}

/* TopK(X, K) -> Values, Indices along axis (ties: the lower index first;
 * NaN counts as the largest value). */
nnfx_status kern_topk(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 2 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "topk needs X and K");
    const nnfx_tensor *x = in[0];
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "topk axis out of range");
    int64_t A = x->shape[axis], K = out[0]->shape[axis], inner = 1, outer = 1;
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    if (out[0]->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_RUNTIME, "topk values must be of X's type");
    const size_t es = nnfx_dtype_size(x->dtype);
    size_t n1 = (size_t)(A > 0 ? A : 1);
    double *v = malloc(sizeof *v * n1);
    int64_t *idx = malloc(sizeof *idx * n1);
    topk_ctx c = {v, ir_attr_int(n, "largest") != 0};
    bool ok = v && idx;
    for (int64_t o = 0; ok && o < outer; o++)
        for (int64_t i = 0; ok && i < inner; i++) {
            for (int64_t a = 0; a < A; a++) {
                v[a] = nnfx_tensor_get(x, (o * A + a) * inner + i);
                idx[a] = a;
            }
            ok = ir_sort_idx(idx, A, topk_before, &c);
            for (int64_t k = 0; ok && k < K; k++) { /* the value's bytes, exact for every type */
                int64_t dst = (o * K + k) * inner + i;
                memcpy((char *)out[0]->data + dst * es, (const char *)x->data + ((o * A + idx[k]) * inner + i) * es,
                       es);
                if (nout > 1 && out[1]) ((int64_t *)out[1]->data)[dst] = idx[k];
            }
        }
    free(v);
    free(idx);
    return ok ? NNFX_OK : kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
}

/* NonZero(X) -> int64 [rank, count]: the coordinates of nonzero elements
 * in row-major order. */
nnfx_status kern_non_zero(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0] || out[0]->rank != 2)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "non_zero needs an input");
    const nnfx_tensor *x = in[0];
    int64_t nz = out[0]->shape[1];
    int64_t *o = out[0]->data;
    if (x->rank == 0) { /* [0, nz]: no coordinates to write */
        if (ir_count_nonzero(x, -1) > nz)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "more nonzeros than the output holds");
        return NNFX_OK;
    }
    /* the flat indices into the last row, then each unravelled in place */
    int64_t *flat = o + (x->rank - 1) * nz;
    int64_t cnt = ir_nonzero_index(x, -1, flat, nz);
    if (cnt > nz) return kern_fail(err, n, NNFX_ERR_RUNTIME, "more nonzeros than the output holds");
    for (int64_t k = 0; x->rank > 1 && k < cnt; k++) {
        int64_t f = flat[k];
        for (int d = x->rank - 1; d >= 0; d--) {
            o[d * nz + k] = f % x->shape[d];
            f /= x->shape[d];
        }
    }
    return NNFX_OK;
}

/* Compress(input, condition): slices along axis (or elements of the
 * flattened input) whose condition entry is nonzero. */
nnfx_status kern_compress(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "compress needs input and condition");
    const nnfx_tensor *x = in[0], *cond = in[1];
    const nnfx_attr *a = nnfx_node_attr(n, "axis");
    int axis = -1;
    if (a && !infer_axis(a->u.i, x->rank, false, &axis)) return kern_fail(err, n, NNFX_ERR_SHAPE, "axis out of range");
    int64_t A = nnfx_tensor_numel(x), inner = 1, outer = 1;
    if (axis >= 0) {
        A = x->shape[axis];
        for (int d = 0; d < axis; d++)
            outer *= x->shape[d];
        for (int d = axis + 1; d < x->rank; d++)
            inner *= x->shape[d];
    }
    int64_t cl = nnfx_tensor_numel(cond);
    if (cl > A) return kern_fail(err, n, NNFX_ERR_SHAPE, "condition longer than the compressed axis");
    size_t es = nnfx_dtype_size(x->dtype), row = (size_t)inner * es;
    char *dst = out[0]->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < cl; i++)
            if (nnfx_tensor_get(cond, i) != 0) {
                memcpy(dst, (const char *)x->data + (size_t)(o * A + i) * row, row);
                dst += row;
            }
    return NNFX_OK;
}

/* Unique(X) -> Y, indices, inverse_indices, counts. */
nnfx_status kern_unique(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "unique needs X");
    const nnfx_tensor *x = in[0];
    const nnfx_attr *a = nnfx_node_attr(n, "axis");
    int axis = -1;
    if (a && !infer_axis(a->u.i, x->rank, false, &axis)) return kern_fail(err, n, NNFX_ERR_SHAPE, "axis out of range");
    int64_t U, S, *first, *inv, *cnts;
    if (!ir_unique_plan(x, axis, ir_attr_int(n, "sorted") != 0, &U, &S, &first, &inv, &cnts))
        return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    int64_t inner = 1, outer = 1;
    if (axis >= 0) {
        for (int d = 0; d < axis; d++)
            outer *= x->shape[d];
        for (int d = axis + 1; d < x->rank; d++)
            inner *= x->shape[d];
    }
    size_t es = nnfx_dtype_size(x->dtype), row = (size_t)inner * es;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t u = 0; u < U; u++)
            memcpy((char *)out[0]->data + (size_t)(o * U + u) * row,
                   (const char *)x->data + (size_t)(o * S + first[u]) * row, row);
    if (nout > 1 && out[1]) memcpy(out[1]->data, first, sizeof *first * (size_t)U);
    if (nout > 2 && out[2]) memcpy(out[2]->data, inv, sizeof *inv * (size_t)S);
    if (nout > 3 && out[3]) memcpy(out[3]->data, cnts, sizeof *cnts * (size_t)U);
    free(first);
    free(inv);
    free(cnts);
    return NNFX_OK;
}

/* NonMaxSuppression: the selection of ir_nms_run, copied out. */
nnfx_status kern_nms(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "non_max_suppression needs boxes and scores");
    int64_t *sel, cnt;
    char why[160];
    if (!ir_nms_run(n, in[0], in[1], nin > 2 ? in[2] : NULL, nin > 3 ? in[3] : NULL, nin > 4 ? in[4] : NULL, &sel, &cnt,
                    why, sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s", why);
    int64_t shape[2] = {cnt, 3};
    nnfx_status s = kern_check_out(n, out[0], 2, shape, err);
    if (!s && cnt > 0) memcpy(out[0]->data, sel, sizeof *sel * (size_t)(3 * cnt));
    free(sel);
    return s;
}
