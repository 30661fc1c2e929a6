/* infer_shape.c — shape inference of shape and data-movement ops:
 * Flatten, Reshape, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
 * Gather, Shape, Constant, ConstantOfShape, Expand, Pad, Range, Tile,
 * Resize, getitem. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/infer_int.h"

#define MAXV (2 * NNFX_MAX_RANK)

/* Flatten: [d0..dr) -> [prod(d[:axis]), prod(d[axis:])]. */
nnfx_status infer_flatten(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->rank < 0) {
        infer_set_rank(&c->out[0], x->dtype, 2);
        return NNFX_OK;
    }
    /* axis is in [-rank, rank]; a negative one counts from rank (not
     * rank + 1 as for Unsqueeze), so -1 keeps the last dim apart */
    int64_t a = nnfx_node_attr_int(c->node, "axis", 1);
    if (a < -x->rank || a > x->rank)
        return infer_fail(c, "flatten axis %lld out of range for rank %d", (long long)a, x->rank);
    int axis = (int)(a < 0 ? a + x->rank : a);
    nnfx_meta *o = &c->out[0];
    infer_set_rank(o, x->dtype, 2);
    /* keep a symbolic leading dim when it is flattened alone (batch) */
    if (axis == 1)
        o->dims[0] = x->dims[0];
    else
        o->dims[0] = infer_dim(infer_prod(x, 0, axis));
    if (axis == x->rank - 1)
        o->dims[1] = x->dims[axis];
    else
        o->dims[1] = infer_dim(infer_prod(x, axis, x->rank));
    return NNFX_OK;
}

/* Reshape(data, shape): 0 copies a dim (unless allowzero), -1 is inferred. */
nnfx_status infer_reshape(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "shape");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    int64_t v[NNFX_MAX_RANK];
    int n;
    bool too_many;
    nnfx_meta *o = &c->out[0];
    if (!infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &too_many)) {
        const nnfx_meta *sm = c->in[1];
        if (sm->rank == 1 && sm->dims[0].value >= 0 && sm->dims[0].value <= NNFX_MAX_RANK)
            infer_set_rank(o, x->dtype, (int)sm->dims[0].value);
        else
            infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (too_many) return infer_fail(c, "reshape target has more than %d dims", NNFX_MAX_RANK);
    bool allowzero = nnfx_node_attr_int(c->node, "allowzero", 0) != 0;
    infer_set_rank(o, x->dtype, n);
    int infer_at = -1;
    int64_t known = 1;
    bool all_known = true;
    for (int i = 0; i < n; i++) {
        if (v[i] == 0 && !allowzero) {
            if (x->rank < 0) {
                all_known = false;
                continue;
            }
            if (i >= x->rank)
                return infer_fail(c, "reshape target dim %d is 0 (copy) but the input %s has no dim %d", i,
                                  infer_meta_str(x, b1, sizeof b1), i);
            o->dims[i] = x->dims[i];
        } else if (v[i] == -1) {
            if (infer_at >= 0) return infer_fail(c, "reshape target has more than one -1");
            infer_at = i;
            continue;
        } else if (v[i] < -1) {
            return infer_fail(c, "reshape target dim %d is %lld", i, (long long)v[i]);
        } else {
            o->dims[i] = infer_dim(v[i]);
        }
        if (o->dims[i].value < 0)
            all_known = false;
        else if (__builtin_mul_overflow(known, o->dims[i].value, &known))
            return infer_fail(c, "reshape target %s has more than 2^63 elements", infer_meta_str(o, b1, sizeof b1));
    }
    int64_t total = x->rank >= 0 ? infer_prod(x, 0, x->rank) : -1;
    if (infer_at >= 0 && total < 0 && x->rank >= 0 && !allowzero) {
        /* dims copied with 0 appear on both sides and cancel: [batch, 3, 4]
         * reshaped to [0, -1] gives [batch, 12] */
        int64_t num = 1, den = 1;
        bool ok = true;
        for (int i = 0; i < x->rank && ok; i++) {
            bool copied = i < n && v[i] == 0;
            if (copied) continue;
            if (x->dims[i].value < 0)
                ok = false;
            else if (__builtin_mul_overflow(num, x->dims[i].value, &num))
                ok = false;
        }
        for (int i = 0; i < n && ok; i++) {
            if (v[i] == 0 || i == infer_at) continue;
            if (__builtin_mul_overflow(den, v[i], &den)) ok = false;
        }
        if (ok && den > 0 && num % den == 0) o->dims[infer_at] = infer_dim(num / den);
    }
    if (infer_at >= 0) {
        if (total >= 0 && all_known) {
            if (known == 0 || total % known != 0)
                return infer_fail(c, "cannot reshape %s (%lld elements) into a shape with %lld elements per -1",
                                  infer_meta_str(x, b1, sizeof b1), (long long)total, (long long)known);
            o->dims[infer_at] = infer_dim(total / known);
        }
    } else if (total >= 0 && all_known && total != known) {
        char b2[200];
        return infer_fail(c, "cannot reshape %s (%lld elements) into %s (%lld elements)",
                          infer_meta_str(x, b1, sizeof b1), (long long)total, infer_meta_str(o, b2, sizeof b2),
                          (long long)known);
    }
    return NNFX_OK;
}

/* Squeeze(data, axes?): removes the given size-1 dims (all when absent). */
nnfx_status infer_squeeze(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    nnfx_meta *o = &c->out[0];
    bool has_axes = c->nin > 1 && c->in[1];
    int64_t v[NNFX_MAX_RANK];
    int n = 0;
    bool too_many;
    if (x->rank < 0 || (has_axes && !infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &too_many))) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    bool drop[NNFX_MAX_RANK] = {false};
    if (has_axes) {
        for (int i = 0; i < n; i++) {
            int a;
            if (!infer_axis(v[i], x->rank, false, &a))
                return infer_fail(c, "squeeze axis %lld out of range for %s", (long long)v[i],
                                  infer_meta_str(x, b1, sizeof b1));
            if (x->dims[a].value >= 0 && x->dims[a].value != 1)
                return infer_fail(c, "squeeze axis %d of %s has size %lld, not 1", a, infer_meta_str(x, b1, sizeof b1),
                                  (long long)x->dims[a].value);
            drop[a] = true;
        }
    } else {
        for (int i = 0; i < x->rank; i++) {
            if (x->dims[i].value < 0) {
                infer_set_unknown(o, x->dtype);
                return NNFX_OK;
            }
            drop[i] = x->dims[i].value == 1;
        }
    }
    infer_set_rank(o, x->dtype, 0);
    for (int i = 0; i < x->rank; i++)
        if (!drop[i]) o->dims[o->rank++] = x->dims[i];
    return NNFX_OK;
}

/* Unsqueeze(data, axes): inserts size-1 dims at axes of the output. */
nnfx_status infer_unsqueeze(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "axes");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    nnfx_meta *o = &c->out[0];
    int64_t v[NNFX_MAX_RANK];
    int n;
    bool too_many;
    if (!infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &too_many)) {
        const nnfx_meta *am = c->in[1];
        int64_t na = am->rank == 0 ? 1 : (am->rank == 1 ? am->dims[0].value : -1);
        if (x->rank >= 0 && na >= 0 && x->rank + na <= NNFX_MAX_RANK)
            infer_set_rank(o, x->dtype, x->rank + (int)na);
        else
            infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    int r = x->rank + n;
    if (too_many || r > NNFX_MAX_RANK) return infer_fail(c, "unsqueeze result has more than %d dims", NNFX_MAX_RANK);
    bool ins[NNFX_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        int a;
        if (!infer_axis(v[i], r, false, &a))
            return infer_fail(c, "unsqueeze axis %lld out of range for output rank %d", (long long)v[i], r);
        if (ins[a]) return infer_fail(c, "unsqueeze axis %d repeated", a);
        ins[a] = true;
    }
    infer_set_rank(o, x->dtype, r);
    for (int i = 0, j = 0; i < r; i++)
        o->dims[i] = ins[i] ? infer_dim(1) : x->dims[j++];
    return NNFX_OK;
}

/* Transpose: out[i] = in[perm[i]] (perm defaults to reversed dims). */
nnfx_status infer_transpose(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    const nnfx_attr *p = nnfx_node_attr(c->node, "perm");
    bool has_perm = p && p->kind == NNFX_ATTR_INTS;
    if (x->rank < 0) {
        if (has_perm)
            infer_set_rank(&c->out[0], x->dtype, p->u.ints.n);
        else
            infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    if (has_perm && p->u.ints.n != x->rank)
        return infer_fail(c, "transpose perm has %d entries for input %s", p->u.ints.n,
                          infer_meta_str(x, b1, sizeof b1));
    bool seen[NNFX_MAX_RANK] = {false};
    nnfx_meta *o = &c->out[0];
    infer_set_rank(o, x->dtype, x->rank);
    for (int i = 0; i < x->rank; i++) {
        int64_t q = has_perm ? p->u.ints.v[i] : x->rank - 1 - i;
        if (q < 0) q += x->rank; /* tolerate negative entries */
        if (q < 0 || q >= x->rank || seen[q])
            return infer_fail(c, "transpose perm is not a permutation of 0..%d", x->rank - 1);
        seen[q] = true;
        o->dims[i] = x->dims[q];
    }
    return NNFX_OK;
}

/* Concat along axis: other dims equal, axis dim summed. */
nnfx_status infer_concat(nnfx_infer_ctx *c) {
    char b1[200], b2[200];
    if (c->nin < 1) return infer_fail(c, "concat needs at least one input");
    const nnfx_attr *ax = nnfx_node_attr(c->node, "axis");
    if (!ax || ax->kind != NNFX_ATTR_INT) return infer_fail(c, "concat needs attribute axis");
    const nnfx_meta *first = NULL;
    for (int i = 0; i < c->nin; i++) {
        nnfx_status s = infer_need(c, i, "input");
        if (s) return s;
        if (c->in[i]->rank >= 0 && !first) first = c->in[i];
    }
    if (!first) {
        infer_set_unknown(&c->out[0], c->in[0]->dtype);
        return NNFX_OK;
    }
    int rank = first->rank, axis;
    if (!infer_axis(ax->u.i, rank, false, &axis))
        return infer_fail(c, "concat axis %lld out of range for %s", (long long)ax->u.i,
                          infer_meta_str(first, b1, sizeof b1));
    nnfx_meta *o = &c->out[0];
    *o = *first;
    int64_t sum = 0;
    for (int i = 0; i < c->nin; i++) {
        const nnfx_meta *m = c->in[i];
        if (m->dtype != first->dtype && m->dtype != NNFX_DTYPE_UNDEFINED && first->dtype != NNFX_DTYPE_UNDEFINED)
            return infer_fail(c, "concat input %d has dtype %s, input 0 %s", i, nnfx_dtype_name(m->dtype),
                              nnfx_dtype_name(first->dtype));
        if (m->rank < 0) {
            sum = -1;
            continue;
        }
        if (m->rank != rank)
            return infer_fail(c, "concat input %d %s has rank %d, expected %d like %s", i,
                              infer_meta_str(m, b1, sizeof b1), m->rank, rank, infer_meta_str(first, b2, sizeof b2));
        for (int d = 0; d < rank; d++) {
            if (d == axis) continue;
            int64_t a = o->dims[d].value, b = m->dims[d].value;
            if (a >= 0 && b >= 0 && a != b)
                return infer_fail(c, "concat input %d %s differs from %s in dim %d (axis %d)", i,
                                  infer_meta_str(m, b1, sizeof b1), infer_meta_str(first, b2, sizeof b2), d, axis);
            if (a < 0 && b >= 0) o->dims[d] = m->dims[d];
        }
        if (sum >= 0) sum = m->dims[axis].value >= 0 ? sum + m->dims[axis].value : -1;
    }
    o->dims[axis] = infer_dim(sum);
    return NNFX_OK;
}

/* Split(input, split?) into nout parts along axis. */
nnfx_status infer_split(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    if (c->nout < 1) return infer_fail(c, "split has no outputs");
    for (int i = 0; i < c->nout; i++)
        infer_set_unknown(&c->out[i], x->dtype);
    if (x->rank < 0) return NNFX_OK;
    int axis;
    int64_t a = nnfx_node_attr_int(c->node, "axis", 0);
    if (!infer_axis(a, x->rank, false, &axis))
        return infer_fail(c, "split axis %lld out of range for %s", (long long)a, infer_meta_str(x, b1, sizeof b1));
    int64_t dim = x->dims[axis].value;
    int64_t sizes[4096];
    int n = 0;
    bool too_many = false;
    bool has_split = c->nin > 1 && c->in[1];
    if (has_split && infer_value_ints(c, 1, sizes, 4096, &n, &too_many)) {
        if (n != c->nout || too_many) return infer_fail(c, "split has %d sizes for %d outputs", n, c->nout);
        int64_t sum = 0;
        for (int i = 0; i < n; i++) {
            if (sizes[i] < 0) return infer_fail(c, "split size %d is negative (%lld)", i, (long long)sizes[i]);
            sum += sizes[i];
        }
        if (dim >= 0 && sum != dim)
            return infer_fail(c, "split sizes sum to %lld but %s has %lld along axis %d", (long long)sum,
                              infer_meta_str(x, b1, sizeof b1), (long long)dim, axis);
    } else if (has_split) {
        for (int i = 0; i < c->nout; i++)
            sizes[i] = -1;
    } else {
        if (c->nout > 4096) return infer_fail(c, "split into %d outputs is too many", c->nout);
        if (dim >= 0) {
            int64_t chunk = (dim + c->nout - 1) / c->nout;
            if (chunk * (c->nout - 1) >= dim && c->nout > 1 && dim > 0)
                return infer_fail(c, "cannot split %lld elements along axis %d into %d outputs", (long long)dim, axis,
                                  c->nout);
            for (int i = 0; i < c->nout; i++) {
                int64_t left = dim - chunk * i;
                sizes[i] = left < chunk ? (left < 0 ? 0 : left) : chunk;
            }
        } else {
            for (int i = 0; i < c->nout; i++)
                sizes[i] = -1;
        }
    }
    for (int i = 0; i < c->nout; i++) {
        c->out[i] = *x;
        c->out[i].dims[axis] = infer_dim(sizes[i]);
    }
    return NNFX_OK;
}

bool ir_slice_plan(int rank, const int64_t *dims, int n, const int64_t *starts, const int64_t *ends,
                   const int64_t *axes, const int64_t *steps, int64_t *start, int64_t *step, int64_t *count, char *why,
                   size_t whylen) {
    bool seen[NNFX_MAX_RANK] = {false};
    for (int d = 0; d < rank; d++) {
        start[d] = 0;
        step[d] = 1;
        count[d] = dims[d];
    }
    for (int i = 0; i < n; i++) {
        int a;
        int64_t ax = axes ? axes[i] : i;
        if (!infer_axis(ax, rank, false, &a)) {
            snprintf(why, whylen, "slice axis %lld out of range for rank %d", (long long)ax, rank);
            return false;
        }
        if (seen[a]) {
            snprintf(why, whylen, "slice axis %d repeated", a);
            return false;
        }
        seen[a] = true;
        int64_t sp = steps ? steps[i] : 1;
        if (sp == 0) {
            snprintf(why, whylen, "slice step for axis %d is 0", a);
            return false;
        }
        step[a] = sp;
        int64_t dim = dims[a];
        if (dim < 0) {
            count[a] = -1;
            continue;
        }
        if (dim == 0) { /* nothing to take, whatever the bounds (a negative step's clamp range is empty) */
            count[a] = 0;
            step[a] = 1;
            continue;
        }
        int64_t st = starts[i], en = ends[i];
        if (st < 0) st += dim;
        if (en < 0) en += dim;
        /* |step| without overflow (INT64_MIN has no positive twin); counts
         * as 1 + (span - 1) / |step| so nothing is added to a huge step */
        int64_t asp = sp > 0 ? sp : (sp == INT64_MIN ? INT64_MAX : -sp);
        if (sp > 0) {
            st = st < 0 ? 0 : (st > dim ? dim : st);
            en = en < 0 ? 0 : (en > dim ? dim : en);
            count[a] = en > st ? 1 + (en - st - 1) / asp : 0;
        } else {
            st = st < 0 ? 0 : (st > dim - 1 ? dim - 1 : st);
            en = en < -1 ? -1 : (en > dim - 1 ? dim - 1 : en);
            count[a] = st > en ? 1 + (st - en - 1) / asp : 0;
        }
        if (count[a] <= 1) step[a] = 1; /* one element: the step is never taken */
        start[a] = st;
    }
    return true;
}

/* Slice(data, starts, ends, axes?, steps?). */
nnfx_status infer_slice(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "starts");
    if (!s) s = infer_need(c, 2, "ends");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    nnfx_meta *o = &c->out[0];
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], ax[NNFX_MAX_RANK], sp[NNFX_MAX_RANK];
    int ns, ne, na = -1, np = -1;
    bool tm1, tm2, tm3 = false, tm4 = false;
    bool has_axes = c->nin > 3 && c->in[3], has_steps = c->nin > 4 && c->in[4];
    bool known = infer_value_ints(c, 1, st, NNFX_MAX_RANK, &ns, &tm1) &&
                 infer_value_ints(c, 2, en, NNFX_MAX_RANK, &ne, &tm2) &&
                 (!has_axes || infer_value_ints(c, 3, ax, NNFX_MAX_RANK, &na, &tm3)) &&
                 (!has_steps || infer_value_ints(c, 4, sp, NNFX_MAX_RANK, &np, &tm4));
    if (!known) {
        infer_set_rank(o, x->dtype, x->rank);
        /* dims outside known axes keep their size */
        if (has_axes && infer_value_ints(c, 3, ax, NNFX_MAX_RANK, &na, &tm3) && !tm3) {
            for (int d = 0; d < x->rank; d++)
                o->dims[d] = x->dims[d];
            for (int i = 0; i < na; i++) {
                int a;
                if (infer_axis(ax[i], x->rank, false, &a)) o->dims[a] = infer_dim(-1);
            }
        }
        return NNFX_OK;
    }
    if (tm1 || tm2 || tm3 || tm4 || ns != ne || (has_axes && na != ns) || (has_steps && np != ns))
        return infer_fail(c, "slice starts/ends/axes/steps lengths differ (%d, %d, %d, %d) or exceed rank %d", ns, ne,
                          na, np, x->rank);
    int64_t dims[NNFX_MAX_RANK], start[NNFX_MAX_RANK], step[NNFX_MAX_RANK], cnt[NNFX_MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = x->dims[d].value;
    char why[200];
    if (!ir_slice_plan(x->rank, dims, ns, st, en, has_axes ? ax : NULL, has_steps ? sp : NULL, start, step, cnt, why,
                       sizeof why))
        return infer_fail(c, "%s", why);
    *o = *x;
    for (int d = 0; d < x->rank; d++)
        if (!(start[d] == 0 && step[d] == 1 && cnt[d] == dims[d])) o->dims[d] = infer_dim(cnt[d]);
    return NNFX_OK;
}

/* Gather(data, indices) along axis: data[:axis] + indices + data[axis+1:]. */
nnfx_status infer_gather(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "indices");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *ix = c->in[1];
    char b1[200];
    if (ix->dtype != NNFX_DTYPE_UNDEFINED && ix->dtype != NNFX_I64 && ix->dtype != NNFX_I32)
        return infer_fail(c, "gather indices must be int64 or int32, got %s", nnfx_dtype_name(ix->dtype));
    nnfx_meta *o = &c->out[0];
    if (x->rank < 0 || ix->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    int axis;
    int64_t a = nnfx_node_attr_int(c->node, "axis", 0);
    if (!infer_axis(a, x->rank, false, &axis))
        return infer_fail(c, "gather axis %lld out of range for %s", (long long)a, infer_meta_str(x, b1, sizeof b1));
    int r = x->rank - 1 + ix->rank;
    if (r > NNFX_MAX_RANK) return infer_fail(c, "gather result has more than %d dims", NNFX_MAX_RANK);
    infer_set_rank(o, x->dtype, r);
    int k = 0;
    for (int i = 0; i < axis; i++)
        o->dims[k++] = x->dims[i];
    for (int i = 0; i < ix->rank; i++)
        o->dims[k++] = ix->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        o->dims[k++] = x->dims[i];
    return NNFX_OK;
}

/* Clamps Shape's start/end attributes into [0, rank]. */
static void shape_range(const nnfx_node *n, int rank, int64_t *lo, int64_t *hi) {
    int64_t st = nnfx_node_attr_int(n, "start", 0);
    const nnfx_attr *e = nnfx_node_attr(n, "end");
    int64_t en = (e && e->kind == NNFX_ATTR_INT) ? e->u.i : rank;
    if (st < 0) st += rank;
    if (en < 0) en += rank;
    st = st < 0 ? 0 : (st > rank ? rank : st);
    en = en < 0 ? 0 : (en > rank ? rank : en);
    *lo = st;
    *hi = en > st ? en : st;
}

/* Shape: int64 [end - start]. */
nnfx_status infer_shape_op(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (s) return s;
    int64_t lo, hi, len = -1;
    if (c->in[0]->rank >= 0) {
        shape_range(c->node, c->in[0]->rank, &lo, &hi);
        len = hi - lo;
    }
    infer_set_dims(&c->out[0], NNFX_I64, 1, &len);
    return NNFX_OK;
}

void ir_shape_op_range(const nnfx_node *n, int rank, int64_t *lo, int64_t *hi) { shape_range(n, rank, lo, hi); }

/* Constant: meta of whichever value attribute is set. */
nnfx_status infer_constant(nnfx_infer_ctx *c) {
    const nnfx_attr *a;
    nnfx_meta *o = &c->out[0];
    if ((a = nnfx_node_attr(c->node, "value")) && a->kind == NNFX_ATTR_TENSOR && a->u.t) {
        infer_set_dims(o, a->u.t->dtype, a->u.t->rank, a->u.t->shape);
    } else if ((a = nnfx_node_attr(c->node, "value_float")) && a->kind == NNFX_ATTR_FLOAT) {
        infer_set_dims(o, NNFX_F32, 0, NULL);
    } else if ((a = nnfx_node_attr(c->node, "value_int")) && a->kind == NNFX_ATTR_INT) {
        infer_set_dims(o, NNFX_I64, 0, NULL);
    } else if ((a = nnfx_node_attr(c->node, "value_floats")) && a->kind == NNFX_ATTR_FLOATS) {
        int64_t n = a->u.floats.n;
        infer_set_dims(o, NNFX_F32, 1, &n);
    } else if ((a = nnfx_node_attr(c->node, "value_ints")) && a->kind == NNFX_ATTR_INTS) {
        int64_t n = a->u.ints.n;
        infer_set_dims(o, NNFX_I64, 1, &n);
    } else {
        return infer_fail(c, "constant has no value attribute (value, value_float(s), value_int(s))");
    }
    return NNFX_OK;
}

/* ConstantOfShape(shape): dtype of the `value` attribute (float32 0). */
nnfx_status infer_constant_of_shape(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_attr *a = nnfx_node_attr(c->node, "value");
    nnfx_dtype dt = NNFX_F32;
    if (a && a->kind == NNFX_ATTR_TENSOR && a->u.t) {
        if (nnfx_tensor_numel(a->u.t) != 1) return infer_fail(c, "constant_of_shape value must hold one element");
        dt = a->u.t->dtype;
    }
    int64_t v[NNFX_MAX_RANK];
    int n;
    bool too_many;
    nnfx_meta *o = &c->out[0];
    if (!infer_value_ints(c, 0, v, NNFX_MAX_RANK, &n, &too_many)) {
        const nnfx_meta *m = c->in[0];
        if (m->rank == 1 && m->dims[0].value >= 0 && m->dims[0].value <= NNFX_MAX_RANK)
            infer_set_rank(o, dt, (int)m->dims[0].value);
        else
            infer_set_unknown(o, dt);
        return NNFX_OK;
    }
    if (too_many) return infer_fail(c, "constant_of_shape shape has more than %d dims", NNFX_MAX_RANK);
    for (int i = 0; i < n; i++)
        if (v[i] < 0) return infer_fail(c, "constant_of_shape dim %d is negative (%lld)", i, (long long)v[i]);
    infer_set_dims(o, dt, n, v);
    return NNFX_OK;
}

/* Expand(input, shape): bidirectional broadcast of input with shape. */
nnfx_status infer_expand(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (!s) s = infer_need(c, 1, "shape");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    int64_t v[NNFX_MAX_RANK];
    int n;
    bool too_many;
    nnfx_meta *o = &c->out[0];
    if (!infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &too_many) || x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (too_many) return infer_fail(c, "expand shape has more than %d dims", NNFX_MAX_RANK);
    int r = n > x->rank ? n : x->rank;
    infer_set_rank(o, x->dtype, r);
    for (int i = 0; i < r; i++) {
        int ix = i - (r - x->rank), iv = i - (r - n);
        nnfx_dim a = ix >= 0 ? x->dims[ix] : infer_dim(1);
        int64_t b = iv >= 0 ? v[iv] : 1;
        if (b == 1 || b == a.value)
            o->dims[i] = a;
        else if (a.value == 1)
            o->dims[i] = infer_dim(b);
        else if (a.value < 0)
            o->dims[i] = infer_dim(-1);
        else
            return infer_fail(c, "cannot expand %s to shape dim %d = %lld", infer_meta_str(x, b1, sizeof b1), i,
                              (long long)b);
    }
    return NNFX_OK;
}

bool ir_pad_plan(int rank, int n, const int64_t *pads, int naxes, const int64_t *axes, int64_t *pb, int64_t *pe,
                 char *why, size_t whylen) {
    for (int d = 0; d < rank; d++)
        pb[d] = pe[d] = 0;
    int k = axes ? naxes : rank;
    if (n != 2 * k) {
        snprintf(why, whylen, "pad expects %d pads values for %d axes, got %d", 2 * k, k, n);
        return false;
    }
    for (int i = 0; i < k; i++) {
        int a = i;
        if (axes && !infer_axis(axes[i], rank, false, &a)) {
            snprintf(why, whylen, "pad axis %lld out of range for rank %d", (long long)axes[i], rank);
            return false;
        }
        pb[a] = pads[i];
        pe[a] = pads[i + k];
    }
    return true;
}

/* Pad(data, pads, constant_value?, axes?). */
nnfx_status infer_pad(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "pads");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    const char *mode = nnfx_node_attr_string(c->node, "mode", "constant");
    if (!mode || (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge") && strcmp(mode, "wrap")))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "pad mode '%s' is not supported", mode ? mode : "");
    nnfx_meta *o = &c->out[0];
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    int64_t pads[MAXV], axes[NNFX_MAX_RANK];
    int n, na = 0;
    bool tm1, tm2 = false;
    bool has_axes = c->nin > 3 && c->in[3];
    if (!infer_value_ints(c, 1, pads, MAXV, &n, &tm1) ||
        (has_axes && !infer_value_ints(c, 3, axes, NNFX_MAX_RANK, &na, &tm2))) {
        infer_set_rank(o, x->dtype, x->rank);
        return NNFX_OK;
    }
    int64_t pb[NNFX_MAX_RANK], pe[NNFX_MAX_RANK];
    char why[200];
    if (tm1 || tm2) return infer_fail(c, "pad has too many pads or axes for rank %d", x->rank);
    if (!ir_pad_plan(x->rank, n, pads, na, has_axes ? axes : NULL, pb, pe, why, sizeof why))
        return infer_fail(c, "%s (input %s)", why, infer_meta_str(x, b1, sizeof b1));
    *o = *x;
    for (int d = 0; d < x->rank; d++) {
        if (pb[d] == 0 && pe[d] == 0) continue;
        int64_t v = x->dims[d].value;
        if (v < 0) {
            o->dims[d] = infer_dim(-1);
            continue;
        }
        if (pb[d] < -v || pe[d] < -v)
            return infer_fail(c, "pads (%lld, %lld) remove more than dim %d of %s has", (long long)pb[d],
                              (long long)pe[d], d, infer_meta_str(x, b1, sizeof b1));
        int64_t od;
        if (__builtin_add_overflow(v, pb[d], &od) || __builtin_add_overflow(od, pe[d], &od))
            return infer_fail(c, "pads (%lld, %lld) overflow dim %d of %s", (long long)pb[d], (long long)pe[d], d,
                              infer_meta_str(x, b1, sizeof b1));
        if (od < 0) return infer_fail(c, "pad makes dim %d of %s negative", d, infer_meta_str(x, b1, sizeof b1));
        if (strcmp(mode, "constant") != 0 && (pb[d] > 0 || pe[d] > 0) && v == 0)
            return infer_fail(c, "pad mode %s cannot pad an empty dim %d", mode, d);
        if (strcmp(mode, "reflect") == 0 && (pb[d] >= v || pe[d] >= v))
            return infer_fail(c, "reflect pad (%lld, %lld) must be smaller than dim %d (%lld)", (long long)pb[d],
                              (long long)pe[d], d, (long long)v);
        o->dims[d] = infer_dim(od);
    }
    return NNFX_OK;
}

/* Range(start, limit, delta): 1-d, max(ceil((limit - start) / delta), 0). */
nnfx_status infer_range(nnfx_infer_ctx *c) {
    for (int i = 0; i < 3; i++) {
        nnfx_status s = infer_need(c, i, i == 0 ? "start" : (i == 1 ? "limit" : "delta"));
        if (s) return s;
        if (c->in[i]->rank > 0 && infer_prod(c->in[i], 0, c->in[i]->rank) != 1)
            return infer_fail(c, "range input %d must be a scalar", i);
    }
    nnfx_dtype dt = c->in[0]->dtype;
    int64_t len = -1;
    if (c->in_value && c->in_value[0] && c->in_value[1] && c->in_value[2]) {
        double st = nnfx_tensor_get(c->in_value[0], 0), li = nnfx_tensor_get(c->in_value[1], 0),
               de = nnfx_tensor_get(c->in_value[2], 0);
        if (de == 0) return infer_fail(c, "range delta is 0");
        double n = ceil((li - st) / de);
        if (!(n < 1e12)) return infer_fail(c, "range has too many elements");
        len = n > 0 ? (int64_t)n : 0;
    }
    infer_set_dims(&c->out[0], dt, 1, &len);
    return NNFX_OK;
}

/* Tile(input, repeats): out[i] = in[i] * repeats[i]. */
nnfx_status infer_tile(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (!s) s = infer_need(c, 1, "repeats");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    nnfx_meta *o = &c->out[0];
    int64_t v[NNFX_MAX_RANK];
    int n;
    bool too_many;
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    if (!infer_value_ints(c, 1, v, NNFX_MAX_RANK, &n, &too_many)) {
        infer_set_rank(o, x->dtype, x->rank);
        return NNFX_OK;
    }
    if (too_many || n != x->rank) return infer_fail(c, "tile repeats has %d values for rank %d", n, x->rank);
    *o = *x;
    for (int d = 0; d < x->rank; d++) {
        if (v[d] < 0) return infer_fail(c, "tile repeat %d is negative", d);
        if (v[d] != 1) o->dims[d] = infer_dim(x->dims[d].value < 0 ? -1 : x->dims[d].value * v[d]);
    }
    return NNFX_OK;
}

/* Resize(X, roi?, scales?, sizes?): sizes, or floor(dim * scale). */
nnfx_status infer_resize(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    nnfx_meta *o = &c->out[0];
    const char *mode = nnfx_node_attr_string(c->node, "mode", "nearest");
    if (!mode || (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "cubic")))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "resize mode '%s' is not supported (nearest, linear, cubic)",
                                 mode ? mode : "");
    const char *kar = nnfx_node_attr_string(c->node, "keep_aspect_ratio_policy", "stretch");
    if (kar && strcmp(kar, "stretch"))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "resize keep_aspect_ratio_policy '%s' is not supported", kar);
    if (nnfx_node_attr_int(c->node, "antialias", 0))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "resize antialias is not supported");
    const char *ctm = nnfx_node_attr_string(c->node, "coordinate_transformation_mode", "half_pixel");
    if (x->rank < 0) {
        infer_set_unknown(o, x->dtype);
        return NNFX_OK;
    }
    int axes[NNFX_MAX_RANK], na = x->rank;
    const nnfx_attr *aa = nnfx_node_attr(c->node, "axes");
    if (aa && aa->kind == NNFX_ATTR_INTS && aa->u.ints.n > 0) {
        na = aa->u.ints.n;
        if (na > x->rank) return infer_fail(c, "resize has %d axes for rank %d", na, x->rank);
        for (int i = 0; i < na; i++)
            if (!infer_axis(aa->u.ints.v[i], x->rank, false, &axes[i]))
                return infer_fail(c, "resize axis %lld out of range", (long long)aa->u.ints.v[i]);
    } else {
        for (int i = 0; i < na; i++)
            axes[i] = i;
    }
    bool has_scales = c->nin > 2 && c->in[2] && !(c->in[2]->rank == 1 && c->in[2]->dims[0].value == 0);
    bool has_sizes = c->nin > 3 && c->in[3] && !(c->in[3]->rank == 1 && c->in[3]->dims[0].value == 0);
    if (has_scales && has_sizes) return infer_fail(c, "resize takes scales or sizes, not both");
    if (!has_scales && !has_sizes) return infer_fail(c, "resize needs scales or sizes");
    /* with scales the crop would also size the output (in * (end - start) * scale) */
    if (ctm && strcmp(ctm, "tf_crop_and_resize") == 0 && !has_sizes)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "resize tf_crop_and_resize is supported with sizes only");
    *o = *x;
    if (has_sizes) {
        int64_t v[NNFX_MAX_RANK];
        int n;
        bool tm;
        if (!infer_value_ints(c, 3, v, NNFX_MAX_RANK, &n, &tm)) {
            for (int i = 0; i < na; i++)
                o->dims[axes[i]] = infer_dim(-1);
            return NNFX_OK;
        }
        if (tm || n != na) return infer_fail(c, "resize sizes has %d values for %d axes", n, na);
        for (int i = 0; i < na; i++) {
            if (v[i] < 0) return infer_fail(c, "resize size %d is negative", i);
            if (v[i] != x->dims[axes[i]].value) o->dims[axes[i]] = infer_dim(v[i]);
        }
        return NNFX_OK;
    }
    const nnfx_tensor *sc = c->in_value ? c->in_value[2] : NULL;
    if (!sc) {
        for (int i = 0; i < na; i++)
            o->dims[axes[i]] = infer_dim(-1);
        return NNFX_OK;
    }
    if (nnfx_tensor_numel(sc) != na)
        return infer_fail(c, "resize scales has %lld values for %d axes", (long long)nnfx_tensor_numel(sc), na);
    for (int i = 0; i < na; i++) {
        double f = nnfx_tensor_get(sc, i);
        if (!(f > 0) || f > 1e6) return infer_fail(c, "resize scale %d is %g (must be > 0)", i, f);
        if (f == 1.0) continue;
        int64_t d = x->dims[axes[i]].value;
        o->dims[axes[i]] = infer_dim(d < 0 ? -1 : (int64_t)floor((double)d * f + 1e-9));
    }
    return NNFX_OK;
}

/* getitem(tuple, index): the meta of output `index` of the tuple node. */
nnfx_status infer_getitem(nnfx_infer_ctx *c) {
    const nnfx_node *src = nnfx_node_arg_node(c->node, 0);
    if (!src) return infer_fail(c, "getitem needs a node as argument 0");
    int64_t idx;
    nnfx_arg a = nnfx_node_arg(c->node, 1);
    if (a.kind == NNFX_ARG_INT)
        idx = a.u.i;
    else if (c->in_value && c->nin > 1 && c->in_value[1])
        idx = core_tensor_get_i64(c->in_value[1], 0);
    else
        return infer_fail(c, "getitem index must be an integer literal");
    int nout = nnfx_node_num_outputs(src);
    if (idx < 0 || idx >= nout)
        return infer_fail(c, "getitem index %lld out of range: %s has %d outputs", (long long)idx, nnfx_node_name(src),
                          nout);
    c->out[0] = *nnfx_node_meta_c(src, (int)idx);
    return NNFX_OK;
}
