/* scatter.c — coverage indexing kernels: OneHot, GatherND, ScatterND,
 * ScatterElements (and the deprecated Scatter). Moves are element bytes
 * (any dtype); reductions and OneHot compute through double. */
#include <math.h>
#include <string.h>

#include "core/core_int.h"
#include "exec/kernels/kernels_int.h"

typedef enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN, RED_BAD } red_kind;

static red_kind red_of(const nnfx_node *n) {
    /* Scatter (the older form) has no reduction in ops.def: it never reduces */
    const char *r =
        nnfx_node_op(n) == NNFX_OP_SCATTER && !nnfx_node_attr(n, "reduction") ? "none" : ir_attr_string(n, "reduction");
    if (strcmp(r, "none") == 0) return RED_NONE;
    if (strcmp(r, "add") == 0) return RED_ADD;
    if (strcmp(r, "mul") == 0) return RED_MUL;
    if (strcmp(r, "max") == 0) return RED_MAX;
    if (strcmp(r, "min") == 0) return RED_MIN;
    return RED_BAD;
}

/* out[o] (op)= upd[u] for one element. */
static void apply(nnfx_tensor *out, int64_t o, const nnfx_tensor *upd, int64_t u, red_kind r, size_t es) {
    if (r == RED_NONE) {
        memcpy((char *)out->data + (size_t)o * es, (const char *)upd->data + (size_t)u * es, es);
        return;
    }
    double a = nnfx_tensor_get(out, o), b = nnfx_tensor_get(upd, u);
    kern_set(out, o, r == RED_ADD ? a + b : r == RED_MUL ? a * b : r == RED_MAX ? fmax(a, b) : fmin(a, b));
}

/* Indices must be int32 or int64 (ONNX's index types). */
static bool index_dtype_ok(const nnfx_tensor *ix) { return ix->dtype == NNFX_I64 || ix->dtype == NNFX_I32; }

static int64_t index_at(const nnfx_tensor *ix, int64_t i) {
    return ix->dtype == NNFX_I64 ? ((const int64_t *)ix->data)[i] : core_tensor_get_i64(ix, i);
}

/* OneHot(indices, depth, values [off, on]) along axis. */
nnfx_status kern_one_hot(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    if (nin < 3 || !in[0] || !in[1] || !in[2] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "one_hot needs indices, depth and values");
    if (nnfx_tensor_numel(in[2]) != 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "one_hot values must hold 2 values");
    const nnfx_tensor *ix = in[0];
    nnfx_tensor *o = out[0];
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), o->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "one_hot axis out of range");
    int64_t depth = o->shape[axis], inner = 1, cnt = nnfx_tensor_numel(o);
    for (int d = axis + 1; d < o->rank; d++)
        inner *= o->shape[d];
    double off = nnfx_tensor_get(in[2], 0), on = nnfx_tensor_get(in[2], 1);
    for (int64_t i = 0; i < cnt; i++)
        kern_set(o, i, off);
    int64_t icnt = nnfx_tensor_numel(ix);
    for (int64_t i = 0; i < icnt; i++) {
        double dv = nnfx_tensor_get(ix, i);
        if (!(dv > -1e18 && dv < 1e18)) continue; /* NaN or huge: no class */
        int64_t v = (int64_t)dv;
        if (v < 0) v += depth;
        if (v < 0 || v >= depth) continue;
        int64_t outer = i / inner, in_ = i % inner;
        kern_set(o, (outer * depth + v) * inner + in_, on);
    }
    return NNFX_OK;
}

/* GatherND(data, indices) with batch_dims b. */
nnfx_status kern_gather_nd(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather_nd needs data and indices");
    const nnfx_tensor *x = in[0], *ix = in[1];
    if (!index_dtype_ok(ix) || ix->rank < 1)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather_nd indices must be int32/int64 of rank >= 1");
    int b = (int)ir_attr_int(n, "batch_dims");
    int k = (int)ix->shape[ix->rank - 1];
    if (b < 0 || k < 1 || b + k > x->rank || b >= ix->rank)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather_nd indices do not fit the data rank");
    int64_t B = 1, Q = 1, slice = 1, xst[NNFX_MAX_RANK];
    for (int d = 0; d < b; d++)
        B *= x->shape[d];
    for (int d = b; d < ix->rank - 1; d++)
        Q *= ix->shape[d];
    for (int d = b + k; d < x->rank; d++)
        slice *= x->shape[d];
    kern_strides(x->rank, x->shape, xst);
    int64_t bstride = b > 0 ? xst[b - 1] : nnfx_tensor_numel(x);
    size_t es = nnfx_dtype_size(x->dtype), row = (size_t)slice * es;
    for (int64_t bi = 0; bi < B; bi++)
        for (int64_t q = 0; q < Q; q++) {
            int64_t off = bi * bstride, base = (bi * Q + q) * k;
            for (int j = 0; j < k; j++) {
                int64_t v = index_at(ix, base + j), dim = x->shape[b + j];
                if (v < 0) v += dim;
                if (v < 0 || v >= dim)
                    return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather_nd index %lld out of range", (long long)v);
                off += v * xst[b + j];
            }
            memcpy((char *)out[0]->data + (size_t)(bi * Q + q) * row, (const char *)x->data + (size_t)off * es, row);
        }
    return NNFX_OK;
}

/* ScatterND(data, indices, updates): out = data; out[indices[q]] (op)=
 * updates[q] for every index tuple q. */
nnfx_status kern_scatter_nd(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                            nnfx_error *err) {
    if (nin < 3 || !in[0] || !in[1] || !in[2] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "scatter_nd needs data, indices and updates");
    const nnfx_tensor *x = in[0], *ix = in[1], *up = in[2];
    red_kind r = red_of(n);
    if (r == RED_BAD) return kern_fail(err, n, NNFX_ERR_SHAPE, "unknown reduction");
    if (up->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_SHAPE, "updates dtype differs from data");
    if (!index_dtype_ok(ix)) return kern_fail(err, n, NNFX_ERR_SHAPE, "indices must be int32 or int64");
    int k = ix->rank > 0 ? (int)ix->shape[ix->rank - 1] : 0;
    if (k > x->rank) return kern_fail(err, n, NNFX_ERR_SHAPE, "indices last dim exceeds data rank");
    memcpy(out[0]->data, x->data, x->nbytes);
    int64_t Q = 1, slice = 1, xst[NNFX_MAX_RANK];
    for (int d = 0; d < ix->rank - 1; d++)
        Q *= ix->shape[d];
    for (int d = k; d < x->rank; d++)
        slice *= x->shape[d];
    if (nnfx_tensor_numel(up) != Q * slice) return kern_fail(err, n, NNFX_ERR_SHAPE, "updates shape does not fit");
    kern_strides(x->rank, x->shape, xst);
    size_t es = nnfx_dtype_size(x->dtype);
    for (int64_t q = 0; q < Q; q++) {
        int64_t off = 0;
        for (int j = 0; j < k; j++) {
            int64_t v = index_at(ix, q * k + j), dim = x->shape[j];
            if (v < 0) v += dim;
            if (v < 0 || v >= dim)
                return kern_fail(err, n, NNFX_ERR_RUNTIME, "scatter_nd index %lld out of range", (long long)v);
            off += v * xst[j];
        }
        for (int64_t e = 0; e < slice; e++)
            apply(out[0], off + e, up, q * slice + e, r, es);
    }
    return NNFX_OK;
}

/* ScatterElements(data, indices, updates) along axis. */
nnfx_status kern_scatter_elements(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                  nnfx_tensor *const *out, nnfx_error *err) {
    if (nin < 3 || !in[0] || !in[1] || !in[2] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "scatter_elements needs data, indices and updates");
    const nnfx_tensor *x = in[0], *ix = in[1], *up = in[2];
    red_kind r = red_of(n);
    if (r == RED_BAD) return kern_fail(err, n, NNFX_ERR_SHAPE, "unknown reduction");
    if (ix->rank != x->rank || up->rank != x->rank || up->dtype != x->dtype || !index_dtype_ok(ix))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "indices (int32/int64) and updates must have data's rank");
    for (int d = 0; d < ix->rank; d++)
        if (ix->shape[d] != up->shape[d]) return kern_fail(err, n, NNFX_ERR_SHAPE, "indices and updates shapes differ");
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "axis out of range");
    memcpy(out[0]->data, x->data, x->nbytes);
    int64_t xst[NNFX_MAX_RANK], idx[NNFX_MAX_RANK] = {0}, cnt = nnfx_tensor_numel(ix);
    kern_strides(x->rank, x->shape, xst);
    size_t es = nnfx_dtype_size(x->dtype);
    for (int64_t i = 0; i < cnt; i++) {
        int64_t v = index_at(ix, i), dim = x->shape[axis], off = 0;
        if (v < 0) v += dim;
        if (v < 0 || v >= dim)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "scatter index %lld out of range", (long long)v);
        for (int d = 0; d < x->rank; d++) {
            int64_t c = d == axis ? v : idx[d];
            if (c >= x->shape[d]) return kern_fail(err, n, NNFX_ERR_SHAPE, "indices exceed data along dim %d", d);
            off += c * xst[d];
        }
        apply(out[0], off, up, i, r, es);
        for (int d = ix->rank - 1; d >= 0; d--) {
            if (++idx[d] < ix->shape[d]) break;
            idx[d] = 0;
        }
    }
    return NNFX_OK;
}
