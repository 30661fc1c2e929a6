/* movement.c — data-movement kernels, any element type: copy (Flatten,
 * Reshape, Squeeze, Unsqueeze), Transpose, Concat, Split, Slice, Gather,
 * Expand, Tile. */
#include <string.h>

#include "exec/kernels/kernels_int.h"

/* Flatten/Reshape/Squeeze/Unsqueeze: same bytes, new shape. */
nnfx_status kern_copy(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "copy needs an input");
    if (in[0]->dtype != out[0]->dtype || in[0]->nbytes != out[0]->nbytes) {
        char b1[160], b2[160];
        return kern_fail(err, n, NNFX_ERR_SHAPE, "cannot view %s %s as %s %s", nnfx_dtype_name(in[0]->dtype),
                         nnfx_shape_str(in[0]->rank, in[0]->shape, b1, sizeof b1), nnfx_dtype_name(out[0]->dtype),
                         nnfx_shape_str(out[0]->rank, out[0]->shape, b2, sizeof b2));
    }
    if (in[0]->nbytes && in[0]->data != out[0]->data) memcpy(out[0]->data, in[0]->data, in[0]->nbytes);
    return NNFX_OK;
}

/* Copies the elements of a strided view of src (shape, strides in elements,
 * base offset) into contiguous dst. */
static void gather_strided(const char *src, int64_t base, int rank, const int64_t *shape, const int64_t *st, char *dst,
                           size_t es) {
    int64_t total = nnfx_shape_numel(rank, shape);
    if (total <= 0) return;
    if (rank == 0) {
        memcpy(dst, src + base * (int64_t)es, es);
        return;
    }
    /* merge each dim into the next where the two walk memory as one (and
     * drop dims of 1): longer inner runs, the same bytes in the same order */
    int64_t csh[NNFX_MAX_RANK], cst[NNFX_MAX_RANK];
    int cr = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        if (cr > 0 && cst[cr - 1] == st[d] * shape[d]) {
            csh[cr - 1] *= shape[d];
            cst[cr - 1] = st[d];
        } else {
            csh[cr] = shape[d];
            cst[cr++] = st[d];
        }
    }
    if (cr == 0) csh[cr] = 1, cst[cr++] = 1;
    rank = cr, shape = csh, st = cst;
    int64_t idx[NNFX_MAX_RANK] = {0}, off = base, inner = shape[rank - 1], ist = st[rank - 1];
    for (int64_t done = 0; done < total; done += inner) {
        if (ist == 1) {
            memcpy(dst, src + off * (int64_t)es, (size_t)inner * es);
            dst += (size_t)inner * es;
        } else if (es == 4) {
            const uint32_t *s = (const uint32_t *)src + off;
            uint32_t *d = (uint32_t *)dst;
            for (int64_t i = 0; i < inner; i++)
                d[i] = s[i * ist];
            dst += (size_t)inner * es;
        } else {
            for (int64_t i = 0; i < inner; i++, dst += es)
                memcpy(dst, src + (off + i * ist) * (int64_t)es, es);
        }
        int d = rank - 2;
        for (; d >= 0; d--) {
            off += st[d];
            if (++idx[d] < shape[d]) break;
            off -= st[d] * shape[d];
            idx[d] = 0;
        }
        if (d < 0) break;
    }
}

/* Transpose(data): out[i0..] = in[perm-permuted index]. */
nnfx_status kern_transpose(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    return kern_transpose_range(n, nin, in, nout, out, -1, 0, 0, err);
}

nnfx_status kern_transpose_range(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                                 int dim, int64_t r0, int64_t r1, nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "transpose needs an input");
    const nnfx_tensor *x = in[0];
    const nnfx_attr *p = nnfx_node_attr(n, "perm");
    int64_t perm[NNFX_MAX_RANK], oshape[NNFX_MAX_RANK], st[NNFX_MAX_RANK], vst[NNFX_MAX_RANK];
    bool seen[NNFX_MAX_RANK] = {false};
    if (p && p->kind == NNFX_ATTR_INTS && p->u.ints.n != x->rank)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "transpose perm has %d entries for rank %d", p->u.ints.n, x->rank);
    for (int i = 0; i < x->rank; i++) {
        int64_t q = (p && p->kind == NNFX_ATTR_INTS) ? p->u.ints.v[i] : x->rank - 1 - i;
        if (q < 0) q += x->rank;
        if (q < 0 || q >= x->rank || seen[q])
            return kern_fail(err, n, NNFX_ERR_SHAPE, "transpose perm is not a permutation");
        seen[q] = true;
        perm[i] = q;
        oshape[i] = x->shape[q];
    }
    nnfx_status s = kern_check_out(n, out[0], x->rank, oshape, err);
    if (s) return s;
    if (out[0]->dtype != x->dtype) return kern_fail(err, n, NNFX_ERR_RUNTIME, "transpose output dtype differs");
    kern_strides(x->rank, x->shape, st);
    for (int i = 0; i < x->rank; i++)
        vst[i] = st[perm[i]];
    size_t es = nnfx_dtype_size(x->dtype);
    char *dst = out[0]->data;
    int64_t base = 0;
    if (dim >= 0 && dim < x->rank) { /* output rows [r0, r1) of dim: every dim before it is 1 */
        int64_t ost = 1;
        for (int i = dim + 1; i < x->rank; i++)
            ost *= oshape[i];
        if (r1 > oshape[dim]) r1 = oshape[dim];
        if (r0 >= r1) return NNFX_OK;
        base = r0 * vst[dim];
        dst += (size_t)(r0 * ost) * es;
        oshape[dim] = r1 - r0;
    }
    gather_strided(x->data, base, x->rank, oshape, vst, dst, es);
    return NNFX_OK;
}

/* Concat(inputs...) along axis. */
nnfx_status kern_concat(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 1 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "concat needs inputs");
    nnfx_tensor *o = out[0];
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, o->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "concat axis %lld out of range for rank %d", (long long)a, o->rank);
    size_t es = nnfx_dtype_size(o->dtype);
    int64_t outer = 1, inner = 1, sum = 0;
    for (int i = 0; i < axis; i++)
        outer *= o->shape[i];
    for (int i = axis + 1; i < o->rank; i++)
        inner *= o->shape[i];
    for (int k = 0; k < nin; k++) {
        const nnfx_tensor *t = in[k];
        if (!t || t->dtype != o->dtype || t->rank != o->rank)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "concat input %d does not match the output's dtype/rank", k);
        for (int d = 0; d < o->rank; d++)
            if (d != axis && t->shape[d] != o->shape[d])
                return kern_fail(err, n, NNFX_ERR_SHAPE, "concat input %d differs in dim %d", k, d);
        sum += t->shape[axis];
    }
    if (sum != o->shape[axis]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "concat output buffer has the wrong size");
    size_t orow = (size_t)(o->shape[axis] * inner) * es, pos = 0;
    for (int k = 0; k < nin; k++) {
        size_t row = (size_t)(in[k]->shape[axis] * inner) * es;
        if (row)
            for (int64_t q = 0; q < outer; q++)
                memcpy((char *)o->data + (size_t)q * orow + pos, (const char *)in[k]->data + (size_t)q * row, row);
        pos += row;
    }
    return NNFX_OK;
}

/* Split(input, split?) along axis into the outputs (their shapes give the
 * part sizes). */
nnfx_status kern_split(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "split needs an input");
    const nnfx_tensor *x = in[0];
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "split axis %lld out of range for rank %d", (long long)a, x->rank);
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t outer = 1, inner = 1, sum = 0;
    for (int i = 0; i < axis; i++)
        outer *= x->shape[i];
    for (int i = axis + 1; i < x->rank; i++)
        inner *= x->shape[i];
    for (int k = 0; k < nout; k++) {
        const nnfx_tensor *t = out[k];
        bool ok = t && t->dtype == x->dtype && t->rank == x->rank;
        for (int d = 0; ok && d < x->rank; d++)
            ok = d == axis || t->shape[d] == x->shape[d];
        if (!ok) return kern_fail(err, n, NNFX_ERR_RUNTIME, "split output %d buffer does not fit the input", k);
        sum += t->shape[axis];
    }
    if (sum != x->shape[axis])
        return kern_fail(err, n, NNFX_ERR_SHAPE, "split parts sum to %lld, input has %lld along axis %d",
                         (long long)sum, (long long)x->shape[axis], axis);
    size_t xrow = (size_t)(x->shape[axis] * inner) * es, pos = 0;
    for (int k = 0; k < nout; k++) {
        size_t row = (size_t)(out[k]->shape[axis] * inner) * es;
        if (row)
            for (int64_t q = 0; q < outer; q++)
                memcpy((char *)out[k]->data + (size_t)q * row, (const char *)x->data + (size_t)q * xrow + pos, row);
        pos += row;
    }
    return NNFX_OK;
}

/* Slice(data, starts, ends, axes?, steps?): negative steps walk backwards. */
nnfx_status kern_slice(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 3 || nout < 1 || !in[0] || !in[1] || !in[2] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "slice needs data, starts and ends");
    const nnfx_tensor *x = in[0];
    int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], ax[NNFX_MAX_RANK], sp[NNFX_MAX_RANK];
    int ns, ne, na = 0, np = 0;
    const nnfx_tensor *at = nin > 3 ? in[3] : NULL, *pt = nin > 4 ? in[4] : NULL;
    if (!kern_ints(in[1], st, NNFX_MAX_RANK, &ns) || !kern_ints(in[2], en, NNFX_MAX_RANK, &ne) ||
        !kern_ints(at, ax, NNFX_MAX_RANK, &na) || !kern_ints(pt, sp, NNFX_MAX_RANK, &np) || ns != ne ||
        (at && na != ns) || (pt && np != ns))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "slice starts/ends/axes/steps lengths differ or exceed the rank");
    int64_t start[NNFX_MAX_RANK], step[NNFX_MAX_RANK], cnt[NNFX_MAX_RANK], xst[NNFX_MAX_RANK], vst[NNFX_MAX_RANK];
    char why[200];
    if (!ir_slice_plan(x->rank, x->shape, ns, st, en, at ? ax : NULL, pt ? sp : NULL, start, step, cnt, why,
                       sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s", why);
    nnfx_status s = kern_check_out(n, out[0], x->rank, cnt, err);
    if (s) return s;
    kern_strides(x->rank, x->shape, xst);
    int64_t base = 0;
    for (int d = 0; d < x->rank; d++) {
        base += start[d] * xst[d];
        vst[d] = step[d] * xst[d];
    }
    gather_strided(x->data, base, x->rank, cnt, vst, out[0]->data, nnfx_dtype_size(x->dtype));
    return NNFX_OK;
}

/* Gather(data, indices) along axis; negative indices count from the end. */
nnfx_status kern_gather(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 2 || nout < 1 || !in[0] || !in[1] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather needs data and indices");
    const nnfx_tensor *x = in[0], *ix = in[1];
    if (ix->dtype != NNFX_I64 && ix->dtype != NNFX_I32)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "gather indices must be int64 or int32");
    int axis;
    int64_t a = ir_attr_int(n, "axis");
    if (!infer_axis(a, x->rank, false, &axis))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather axis %lld out of range for rank %d", (long long)a, x->rank);
    if (x->rank - 1 + ix->rank > NNFX_MAX_RANK)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gather result rank too large");
    int64_t oshape[NNFX_MAX_RANK];
    int r = 0;
    for (int i = 0; i < axis; i++)
        oshape[r++] = x->shape[i];
    for (int i = 0; i < ix->rank; i++)
        oshape[r++] = ix->shape[i];
    for (int i = axis + 1; i < x->rank; i++)
        oshape[r++] = x->shape[i];
    nnfx_status s = kern_check_out(n, out[0], r, oshape, err);
    if (s) return s;
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t outer = 1, inner = 1, len = x->shape[axis], ni = nnfx_tensor_numel(ix);
    for (int i = 0; i < axis; i++)
        outer *= x->shape[i];
    for (int i = axis + 1; i < x->rank; i++)
        inner *= x->shape[i];
    size_t blk = (size_t)inner * es;
    for (int64_t j = 0; j < ni; j++) { /* every index checked once */
        int64_t k = ix->dtype == NNFX_I64 ? ((const int64_t *)ix->data)[j] : ((const int32_t *)ix->data)[j];
        if (k < -len || k >= len)
            return kern_fail(err, n, NNFX_ERR_RUNTIME, "gather index %lld out of range for axis %d of size %lld",
                             (long long)k, axis, (long long)len);
    }
    if (!blk || !outer || !ni) return NNFX_OK;
    if (ni == 1) { /* one index: a strided view (a column when inner is 1) */
        int64_t k = ix->dtype == NNFX_I64 ? ((const int64_t *)ix->data)[0] : ((const int32_t *)ix->data)[0];
        k += k < 0 ? len : 0;
        int64_t shp[2] = {outer, inner}, st[2] = {len * inner, 1};
        gather_strided(x->data, k * inner, inner == 1 ? 1 : 2, shp, st, out[0]->data, es);
        return NNFX_OK;
    }
    char *dst = out[0]->data;
    for (int64_t q = 0; q < outer; q++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t k = ix->dtype == NNFX_I64 ? ((const int64_t *)ix->data)[j] : ((const int32_t *)ix->data)[j];
            k += k < 0 ? len : 0;
            const char *src = (const char *)x->data + (size_t)((q * len + k) * inner) * es;
            if (blk == 4)
                memcpy(dst, src, 4); /* a constant size: one move */
            else if (blk == 8)
                memcpy(dst, src, 8);
            else
                memcpy(dst, src, blk);
            dst += blk;
        }
    return NNFX_OK;
}

/* Expand(input, shape): broadcast input to the output shape. */
nnfx_status kern_expand(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 1 || nout < 1 || !in[0] || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "expand needs an input");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    if (x->rank > o->rank || x->dtype != o->dtype)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "expand output does not fit the input");
    int64_t xst[NNFX_MAX_RANK], vst[NNFX_MAX_RANK];
    kern_strides(x->rank, x->shape, xst);
    for (int d = 0; d < o->rank; d++) {
        int xd = d - (o->rank - x->rank);
        if (xd >= 0 && x->shape[xd] != 1 && x->shape[xd] != o->shape[d])
            return kern_fail(err, n, NNFX_ERR_SHAPE, "cannot expand dim %d of size %lld to %lld", xd,
                             (long long)x->shape[xd], (long long)o->shape[d]);
        vst[d] = (xd < 0 || x->shape[xd] == 1) ? 0 : xst[xd];
    }
    gather_strided(x->data, 0, o->rank, o->shape, vst, o->data, nnfx_dtype_size(x->dtype));
    return NNFX_OK;
}

/* Tile(input, repeats): out[i] = in[i mod dim] per dim. */
nnfx_status kern_tile(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    if (nin < 2 || nout < 1 || !in[0] || !in[1] || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "tile needs input and repeats");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *o = out[0];
    int64_t rep[NNFX_MAX_RANK], oshape[NNFX_MAX_RANK];
    int nr;
    if (!kern_ints(in[1], rep, NNFX_MAX_RANK, &nr) || nr != x->rank)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "tile repeats must have %d values", x->rank);
    for (int d = 0; d < x->rank; d++) {
        if (rep[d] < 0) return kern_fail(err, n, NNFX_ERR_SHAPE, "tile repeat %d is negative", d);
        oshape[d] = x->shape[d] * rep[d];
    }
    nnfx_status s = kern_check_out(n, o, x->rank, oshape, err);
    if (s) return s;
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t total = nnfx_tensor_numel(o), xst[NNFX_MAX_RANK], idx[NNFX_MAX_RANK] = {0};
    kern_strides(x->rank, x->shape, xst);
    char *dst = o->data;
    for (int64_t i = 0; i < total; i++, dst += es) {
        int64_t off = 0;
        for (int d = 0; d < x->rank; d++)
            off += (idx[d] % x->shape[d]) * xst[d];
        memcpy(dst, (const char *)x->data + (size_t)off * es, es);
        for (int d = x->rank - 1; d >= 0; d--) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    return NNFX_OK;
}
