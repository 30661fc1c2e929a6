/* misc.c — Pad, Shape, Constant, ConstantOfShape, Range, Cast, getitem. */
#include <math.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

/* Maps output coordinate i (already shifted by the begin pad) into
 * [0, dim) per the pad mode; -1 means "use the constant". */
int64_t kern_pad_src(int mode, int64_t i, int64_t dim) {
    if (i >= 0 && i < dim) return i;
    switch (mode) {
    case 1: /* reflect (without repeating the edge) */
        if (dim == 1) return 0;
        for (;;) {
            if (i < 0) i = -i;
            if (i >= dim) i = 2 * (dim - 1) - i;
            if (i >= 0 && i < dim) return i;
        }
    case 2: return i < 0 ? 0 : dim - 1;     /* edge */
    case 3: return ((i % dim) + dim) % dim; /* wrap */
    default: return -1;
    }
}

int kern_pad_mode(const char *ms) {
    return !ms || !strcmp(ms, "constant") ? 0
           : !strcmp(ms, "reflect")       ? 1
           : !strcmp(ms, "edge")          ? 2
           : !strcmp(ms, "wrap")          ? 3
                                          : -1;
}

/* Constant Pad without crops (every pad >= 0): o filled with the value
 * cval (es bytes), then each innermost row of x copied to its place.
 * Returns false (nothing written) for other modes or negative pads. */
static bool pad_constant_rows(const nnfx_tensor *x, nnfx_tensor *o, int mode, const int64_t *pb, const int64_t *pe,
                              const unsigned char *cval, size_t es) {
    int r = x->rank;
    if (mode != 0 || r < 1 || nnfx_tensor_numel(x) == 0) return false;
    for (int d = 0; d < r; d++)
        if (pb[d] < 0 || pe[d] < 0) return false;
    bool zero = true;
    for (size_t b = 0; b < es; b++)
        zero = zero && cval[b] == 0;
    int64_t total = nnfx_tensor_numel(o), row = x->shape[r - 1], ost[NNFX_MAX_RANK], idx[NNFX_MAX_RANK] = {0};
    char *dst = o->data;
    if (zero)
        memset(dst, 0, (size_t)total * es);
    else
        for (int64_t i = 0; i < total; i++)
            memcpy(dst + (size_t)i * es, cval, es);
    kern_strides(r, o->shape, ost);
    int64_t rows = nnfx_tensor_numel(x) / row;
    const char *src = x->data;
    for (int64_t i = 0; i < rows; i++, src += (size_t)row * es) {
        int64_t off = pb[r - 1];
        for (int d = 0; d < r - 1; d++)
            off += (idx[d] + pb[d]) * ost[d];
        memcpy(dst + (size_t)off * es, src, (size_t)row * es);
        for (int d = r - 2; d >= 0; d--) {
            if (++idx[d] < x->shape[d]) break;
            idx[d] = 0;
        }
    }
    return true;
}

/* Pad(data, pads, constant_value?, axes?) with mode constant, reflect, edge
 * or wrap; negative pads crop. */
nnfx_status kern_pad(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                     nnfx_error *err) {
    if (nin < 2 || nout < 1 || !in[0] || !in[1] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "pad needs data and pads");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    const char *ms = ir_attr_string(n, "mode");
    int mode = kern_pad_mode(ms);
    if (mode < 0) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "pad mode '%s' is not supported", ms);
    int64_t pads[2 * NNFX_MAX_RANK], axes[NNFX_MAX_RANK], pb[NNFX_MAX_RANK], pe[NNFX_MAX_RANK], oshape[NNFX_MAX_RANK];
    int np, na = 0;
    const nnfx_tensor *at = nin > 3 ? in[3] : NULL;
    char why[200];
    if (!kern_ints(in[1], pads, 2 * NNFX_MAX_RANK, &np) || !kern_ints(at, axes, NNFX_MAX_RANK, &na) ||
        !ir_pad_plan(x->rank, np, pads, na, at ? axes : NULL, pb, pe, why, sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "bad pads for rank %d", x->rank);
    for (int d = 0; d < x->rank; d++) {
        if (pb[d] < -x->shape[d] || pe[d] < -x->shape[d])
            return kern_fail(err, n, NNFX_ERR_SHAPE, "pads (%lld, %lld) remove more than dim %d has", (long long)pb[d],
                             (long long)pe[d], d);
        if (__builtin_add_overflow(x->shape[d], pb[d], &oshape[d]) ||
            __builtin_add_overflow(oshape[d], pe[d], &oshape[d]))
            return kern_fail(err, n, NNFX_ERR_SHAPE, "pads (%lld, %lld) overflow dim %d", (long long)pb[d],
                             (long long)pe[d], d);
        if (oshape[d] < 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "pad makes dim %d negative", d);
        if (mode && x->shape[d] == 0 && oshape[d] > 0)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "pad mode %s cannot pad an empty dim %d", ms, d);
    }
    nnfx_status s = kern_check_out(n, o, x->rank, oshape, err);
    if (s) return s;
    if (o->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_RUNTIME, "pad output dtype differs");
    size_t es = nnfx_dtype_size(x->dtype);
    unsigned char cval[16] = {0};
    const nnfx_tensor *cv = nin > 2 ? in[2] : NULL;
    if (cv && nnfx_tensor_numel(cv) >= 1) {
        nnfx_tensor tmp = *o;
        tmp.data = cval;
        kern_set(&tmp, 0, nnfx_tensor_get(cv, 0));
    }
    if (pad_constant_rows(x, o, mode, pb, pe, cval, es)) return NNFX_OK;
    int64_t total = nnfx_tensor_numel(o), xst[NNFX_MAX_RANK], idx[NNFX_MAX_RANK] = {0};
    kern_strides(x->rank, x->shape, xst);
    if (total <= 0) return NNFX_OK;
    if (x->rank == 0) {
        memcpy(o->data, x->data, es);
        return NNFX_OK;
    }
    /* row by row along the last dim: its columns [lo, hi) read one
     * contiguous run of the input row, the others map one by one */
    int r = x->rank - 1;
    int64_t w = oshape[r], dw = x->shape[r], b = pb[r], lo = b > 0 ? b : 0, hi = b + dw < w ? b + dw : w;
    char *dst = o->data;
    for (int64_t row = 0; row < total / w; row++, dst += (size_t)w * es) {
        int64_t off = 0;
        bool inside = true;
        for (int d = 0; d < r && inside; d++) {
            int64_t si = kern_pad_src(mode, idx[d] - pb[d], x->shape[d]);
            if (si < 0)
                inside = false;
            else
                off += si * xst[d];
        }
        const char *src = (const char *)x->data + (size_t)off * es;
        for (int64_t j = 0; j < w; j++) {
            if (inside && j >= lo && j < hi) { /* the contiguous run */
                memcpy(dst + (size_t)j * es, src + (size_t)(j - b) * es, (size_t)(hi - lo) * es);
                j = hi - 1;
                continue;
            }
            int64_t si = inside ? kern_pad_src(mode, j - b, dw) : -1;
            memcpy(dst + (size_t)j * es, si < 0 ? (const char *)cval : src + (size_t)si * es, es);
        }
        for (int d = r - 1; d >= 0; d--) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    return NNFX_OK;
}

/* Shape(data): its dims [start, end) as int64. */
nnfx_status kern_shape_op(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "shape needs an input");
    int64_t lo, hi;
    ir_shape_op_range(n, in[0]->rank, &lo, &hi);
    int64_t len = hi - lo;
    nnfx_status s = kern_check_out(n, out[0], 1, &len, err);
    if (s) return s;
    if (out[0]->dtype != NNFX_I64) return kern_fail(err, n, NNFX_ERR_RUNTIME, "shape output must be int64");
    for (int64_t i = 0; i < len; i++)
        ((int64_t *)out[0]->data)[i] = in[0]->shape[lo + i];
    return NNFX_OK;
}

/* Constant: copies its value attribute. */
nnfx_status kern_constant(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                          nnfx_error *err) {
    if (nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant needs an output");
    nnfx_tensor *o = out[0];
    const nnfx_attr *a;
    if ((a = nnfx_node_attr(n, "value")) && a->kind == NNFX_ATTR_TENSOR && a->u.t) {
        if (a->u.t->nbytes != o->nbytes || a->u.t->dtype != o->dtype)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant output buffer does not match its value");
        if (o->nbytes) memcpy(o->data, a->u.t->data, o->nbytes);
    } else if ((a = nnfx_node_attr(n, "value_float")) && a->kind == NNFX_ATTR_FLOAT) {
        kern_set(o, 0, a->u.f);
    } else if ((a = nnfx_node_attr(n, "value_int")) && a->kind == NNFX_ATTR_INT) {
        if (o->dtype == NNFX_I64)
            ((int64_t *)o->data)[0] = a->u.i;
        else
            kern_set(o, 0, (double)a->u.i);
    } else if ((a = nnfx_node_attr(n, "value_floats")) && a->kind == NNFX_ATTR_FLOATS) {
        if (nnfx_tensor_numel(o) != a->u.floats.n) return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant size mismatch");
        for (int i = 0; i < a->u.floats.n; i++)
            kern_set(o, i, a->u.floats.v[i]);
    } else if ((a = nnfx_node_attr(n, "value_ints")) && a->kind == NNFX_ATTR_INTS) {
        if (nnfx_tensor_numel(o) != a->u.ints.n || o->dtype != NNFX_I64)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant size mismatch");
        for (int i = 0; i < a->u.ints.n; i++)
            ((int64_t *)o->data)[i] = a->u.ints.v[i];
    } else {
        return kern_fail(err, n, NNFX_ERR_SHAPE, "constant has no value attribute");
    }
    return NNFX_OK;
}

/* ConstantOfShape(shape): filled with the `value` attribute (float32 0). */
nnfx_status kern_constant_of_shape(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                   nnfx_tensor *const *out, nnfx_error *err) {
    if (nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant_of_shape needs an output");
    nnfx_tensor *o = out[0];
    const nnfx_attr *a = nnfx_node_attr(n, "value");
    size_t es = nnfx_dtype_size(o->dtype);
    unsigned char v[16] = {0};
    if (a && a->kind == NNFX_ATTR_TENSOR && a->u.t) {
        if (a->u.t->dtype != o->dtype || nnfx_tensor_numel(a->u.t) != 1)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "constant_of_shape value does not match the output");
        memcpy(v, a->u.t->data, es);
    }
    int64_t total = nnfx_tensor_numel(o);
    for (int64_t i = 0; i < total; i++)
        memcpy((char *)o->data + (size_t)i * es, v, es);
    return NNFX_OK;
}

/* Range(start, limit, delta): start + i * delta (float32 or int64). */
nnfx_status kern_range(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 3 || nout < 1 || !in[0] || !in[1] || !in[2] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "range needs start, limit and delta");
    nnfx_tensor *o = out[0];
    int64_t cnt = nnfx_tensor_numel(o);
    if (o->dtype == NNFX_I64 && in[0]->dtype == NNFX_I64 && in[2]->dtype == NNFX_I64) {
        int64_t st = ((const int64_t *)in[0]->data)[0], de = ((const int64_t *)in[2]->data)[0];
        /* wraps instead of overflowing (unsigned arithmetic) */
        for (int64_t i = 0; i < cnt; i++)
            ((int64_t *)o->data)[i] = (int64_t)((uint64_t)st + (uint64_t)i * (uint64_t)de);
        return NNFX_OK;
    }
    double st = nnfx_tensor_get(in[0], 0), de = nnfx_tensor_get(in[2], 0);
    for (int64_t i = 0; i < cnt; i++)
        kern_set(o, i, st + (double)i * de);
    return NNFX_OK;
}

/* Cast(input) to the output's dtype; float-to-integer truncates toward
 * zero and saturates. */
nnfx_status kern_cast(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "cast needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    nnfx_status s = kern_check_out(n, o, x->rank, x->shape, err);
    if (s) return s;
    int64_t cnt = nnfx_tensor_numel(x);
    if (x->dtype == o->dtype) {
        if (x->nbytes) memcpy(o->data, x->data, x->nbytes);
    } else if (x->dtype == NNFX_I64 && o->dtype == NNFX_F32) {
        for (int64_t i = 0; i < cnt; i++)
            ((float *)o->data)[i] = (float)((const int64_t *)x->data)[i];
    } else {
        for (int64_t i = 0; i < cnt; i++)
            kern_set(o, i, nnfx_tensor_get(x, i));
    }
    return NNFX_OK;
}

/* getitem is resolved by the executor; reaching this kernel is a bug. */
nnfx_status kern_getitem(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                         nnfx_error *err) {
    return kern_fail(err, n, NNFX_ERR_RUNTIME, "getitem is handled by the executor and has no kernel");
}
