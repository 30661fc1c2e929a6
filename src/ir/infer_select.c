/* infer_select.c — shape inference of the coverage indexing ops: OneHot,
 * GatherND, TopK, and the ops whose output size depends on input data
 * (NonZero, Compress, Unique). Their exact shapes come from the input
 * values, which are known at run time (and statically only for constants);
 * otherwise the data-dependent dim is left unknown and the compiled plan
 * leaves the node to the interpreter. Also the sort and unique helpers the
 * kernels share. */
#include <stdlib.h>
#include <string.h>

#include "ir/infer_int.h"

bool ir_sort_idx(int64_t *idx, int64_t n, bool (*before)(const void *ctx, int64_t a, int64_t b), const void *ctx) {
    if (n < 2) return true;
    int64_t *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp) return false;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = before(ctx, idx[j], idx[i]) ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, sizeof *tmp * (size_t)n);
    }
    free(tmp);
    return true;
}

/* One loop per element type (the element's bits read as its type): the
 * count without branches, then, when positions are asked for, a scan that
 * stops at the last of them. */
#define NZ_SCAN(T, TEST)                                                                                               \
    do {                                                                                                               \
        const T *p = t->data;                                                                                          \
        for (int64_t i = 0; i < cnt; i++)                                                                              \
            k += (TEST) ? 1 : 0;                                                                                       \
        int64_t want = pos ? (k < cap ? k : cap) : 0, j = 0;                                                           \
        for (int64_t i = 0; j < want; i++)                                                                             \
            if (TEST) pos[j++] = i;                                                                                    \
    } while (0)

/* Bytes: eight at a time past runs of zeros (sparse masks). */
static int64_t nz_bytes(const uint8_t *p, int64_t cnt, int64_t *pos, int64_t cap) {
    int64_t k = 0;
    for (int64_t i = 0; i < cnt; i++)
        k += p[i] != 0;
    int64_t want = pos ? (k < cap ? k : cap) : 0, j = 0;
    for (int64_t i = 0; j < want; i++) {
        uint64_t w;
        if (!(i & 7) && i + 8 <= cnt && (memcpy(&w, p + i, 8), w == 0)) {
            i += 7;
            continue;
        }
        if (p[i]) pos[j++] = i;
    }
    return k;
}

int64_t ir_nonzero_index(const nnfx_tensor *t, int64_t lim, int64_t *pos, int64_t cap) {
    int64_t cnt = nnfx_tensor_numel(t), k = 0;
    if (lim >= 0 && lim < cnt) cnt = lim;
    switch (t->dtype) {
    case NNFX_F32: NZ_SCAN(float, p[i] != 0); break;
    case NNFX_F64: NZ_SCAN(double, p[i] != 0); break;
    case NNFX_F16: NZ_SCAN(uint16_t, (p[i] & 0x7fff) != 0); break; /* only +-0 are zero */
    case NNFX_BOOL:
    case NNFX_U8:
    case NNFX_I8: k = nz_bytes(t->data, cnt, pos, cap); break;
    case NNFX_U16:
    case NNFX_I16: NZ_SCAN(uint16_t, p[i] != 0); break;
    case NNFX_U32:
    case NNFX_I32: NZ_SCAN(uint32_t, p[i] != 0); break;
    case NNFX_U64:
    case NNFX_I64: NZ_SCAN(uint64_t, p[i] != 0); break;
    default:
        for (int64_t i = 0; i < cnt; i++)
            if (nnfx_tensor_get(t, i) != 0) {
                if (pos && k < cap) pos[k] = i;
                k++;
            }
    }
    return k;
}

int64_t ir_count_nonzero(const nnfx_tensor *t, int64_t lim) { return ir_nonzero_index(t, lim, NULL, 0); }

typedef struct slices {
    const nnfx_tensor *x;
    int64_t A, inner, outer;
} slices;

static double slice_at(const slices *s, int64_t sl, int64_t k) {
    int64_t o = k / s->inner, in = k % s->inner;
    return nnfx_tensor_get(s->x, (o * s->A + sl) * s->inner + in);
}

static int slice_cmp(const slices *s, int64_t a, int64_t b) {
    for (int64_t k = 0; k < s->outer * s->inner; k++) {
        double va = slice_at(s, a, k), vb = slice_at(s, b, k);
        if (va != vb) return va < vb ? -1 : 1;
    }
    return 0;
}

static bool slice_before(const void *ctx, int64_t a, int64_t b) { return slice_cmp(ctx, a, b) < 0; }

bool ir_unique_plan(const nnfx_tensor *x, int axis, bool sorted, int64_t *u, int64_t *ns, int64_t **first,
                    int64_t **inverse, int64_t **counts) {
    slices s = {x, nnfx_tensor_numel(x), 1, 1};
    if (axis >= 0) {
        s.A = x->shape[axis];
        for (int d = 0; d < axis; d++)
            s.outer *= x->shape[d];
        for (int d = axis + 1; d < x->rank; d++)
            s.inner *= x->shape[d];
    }
    int64_t S = s.A, n1 = S > 0 ? S : 1;
    int64_t *ord = malloc(sizeof *ord * (size_t)n1), *grp = malloc(sizeof *grp * (size_t)n1);
    *first = malloc(sizeof **first * (size_t)n1);
    *inverse = malloc(sizeof **inverse * (size_t)n1);
    *counts = calloc((size_t)n1, sizeof **counts);
    bool ok = ord && grp && *first && *inverse && *counts;
    for (int64_t i = 0; ok && i < S; i++)
        ord[i] = i;
    ok = ok && ir_sort_idx(ord, S, slice_before, &s);
    int64_t U = 0;
    for (int64_t i = 0; ok && i < S; i++) { /* groups of equal slices in sorted order */
        if (i == 0 || slice_cmp(&s, ord[i - 1], ord[i]) != 0) (*first)[U++] = ord[i];
        grp[ord[i]] = U - 1;
    }
    if (ok && !sorted) { /* renumber groups by first occurrence */
        int64_t *pos = malloc(sizeof *pos * (size_t)n1), *rank = malloc(sizeof *rank * (size_t)n1);
        ok = pos && rank;
        for (int64_t g = 0; ok && g < U; g++)
            pos[g] = g;
        const int64_t *fst = *first;
        /* order groups by their first index: a simple insertion over U */
        for (int64_t g = 1; ok && g < U; g++)
            for (int64_t h = g; h > 0 && fst[pos[h]] < fst[pos[h - 1]]; h--) {
                int64_t t = pos[h];
                pos[h] = pos[h - 1];
                pos[h - 1] = t;
            }
        for (int64_t g = 0; ok && g < U; g++)
            rank[pos[g]] = g;
        for (int64_t i = 0; ok && i < S; i++)
            grp[i] = rank[grp[i]];
        for (int64_t g = 0; ok && g < U; g++)
            ord[g] = fst[pos[g]];
        if (ok) memcpy(*first, ord, sizeof *ord * (size_t)U);
        free(pos);
        free(rank);
    }
    for (int64_t i = 0; ok && i < S; i++) {
        (*inverse)[i] = grp[i];
        (*counts)[grp[i]]++;
    }
    free(ord);
    free(grp);
    if (!ok) {
        free(*first);
        free(*inverse);
        free(*counts);
        *first = *inverse = *counts = NULL;
        return false;
    }
    *u = U;
    *ns = S;
    return true;
}

/* OneHot(indices, depth, values): indices' shape with a depth dim inserted
 * at axis; the values' dtype. */
nnfx_status infer_one_hot(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "indices");
    if (!s) s = infer_need(c, 1, "depth");
    if (!s) s = infer_need(c, 2, "values");
    if (s) return s;
    const nnfx_meta *ix = c->in[0];
    nnfx_dtype dt = c->in[2]->dtype;
    if (ix->rank < 0 || ix->rank + 1 > NNFX_MAX_RANK) {
        infer_set_unknown(&c->out[0], dt);
        return NNFX_OK;
    }
    int axis;
    if (!infer_axis(nnfx_node_attr_int(c->node, "axis", -1), ix->rank + 1, false, &axis))
        return infer_fail(c, "one_hot axis out of range for rank %d", ix->rank + 1);
    int64_t depth = -1;
    if (c->in_value && c->in_value[1]) {
        if (nnfx_tensor_numel(c->in_value[1]) != 1) return infer_fail(c, "one_hot depth must hold one value");
        double dv = nnfx_tensor_get(c->in_value[1], 0);
        if (!(dv >= 1 && dv < 1e15)) return infer_fail(c, "one_hot depth %g must be a positive count", dv);
        depth = (int64_t)dv;
        if (depth < 1) return infer_fail(c, "one_hot depth %lld must be positive", (long long)depth);
    }
    nnfx_meta *o = &c->out[0];
    o->dtype = dt;
    o->rank = ix->rank + 1;
    for (int d = 0, k = 0; d < o->rank; d++)
        o->dims[d] = d == axis ? infer_dim(depth) : ix->dims[k++];
    return NNFX_OK;
}

/* GatherND(data, indices) with batch_dims b: indices.shape[:-1] +
 * data.shape[b + k:], k = indices.shape[-1]. */
nnfx_status infer_gather_nd(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "data");
    if (!s) s = infer_need(c, 1, "indices");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *ix = c->in[1];
    int64_t b = nnfx_node_attr_int(c->node, "batch_dims", 0);
    if (ix->rank == 0) return infer_fail(c, "gather_nd indices must have rank >= 1");
    if (x->rank < 0 || ix->rank < 0 || ix->dims[ix->rank - 1].value < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    int64_t k = ix->dims[ix->rank - 1].value;
    if (b < 0 || b >= ix->rank || k < 1 || b + k > x->rank)
        return infer_fail(c, "gather_nd indices of last dim %lld and batch_dims %lld do not fit data rank %d",
                          (long long)k, (long long)b, x->rank);
    int r = ix->rank - 1 + x->rank - (int)(b + k);
    if (r > NNFX_MAX_RANK) return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "gather_nd output rank %d too large", r);
    nnfx_meta *o = &c->out[0];
    o->dtype = x->dtype;
    o->rank = r;
    int d = 0;
    for (int i = 0; i < ix->rank - 1; i++)
        o->dims[d++] = ix->dims[i];
    for (int i = (int)(b + k); i < x->rank; i++)
        o->dims[d++] = x->dims[i];
    return NNFX_OK;
}

/* TopK(X, K) -> Values (X's dtype), Indices (int64): X's shape with K
 * along axis. */
nnfx_status infer_topk(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "K");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    int64_t kv[1];
    int nk = 0;
    bool many = false;
    int64_t k = -1;
    if (infer_value_ints(c, 1, kv, 1, &nk, &many) && nk == 1) k = kv[0];
    if (many) return infer_fail(c, "topk K must hold one value");
    if (nk == 1 && k < 0) return infer_fail(c, "topk K %lld is negative", (long long)k);
    for (int o = 0; o < c->nout && o < 2; o++) {
        nnfx_dtype dt = o == 0 ? x->dtype : NNFX_I64;
        if (x->rank < 0) {
            infer_set_unknown(&c->out[o], dt);
            continue;
        }
        int axis;
        if (!infer_axis(nnfx_node_attr_int(c->node, "axis", -1), x->rank, false, &axis))
            return infer_fail(c, "topk axis out of range for rank %d", x->rank);
        if (k >= 0 && x->dims[axis].value >= 0 && k > x->dims[axis].value)
            return infer_fail(c, "topk K %lld exceeds the axis size %lld", (long long)k,
                              (long long)x->dims[axis].value);
        c->out[o] = *x;
        c->out[o].dtype = dt;
        c->out[o].dims[axis] = infer_dim(k);
    }
    return NNFX_OK;
}

/* NonZero(X) -> int64 [rank, nonzero count]. */
nnfx_status infer_non_zero(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    int64_t cnt = c->in_value && c->in_value[0] ? ir_count_nonzero(c->in_value[0], -1) : -1;
    infer_set_rank(&c->out[0], NNFX_I64, 2);
    c->out[0].dims[0] = infer_dim(x->rank >= 0 ? x->rank : -1);
    c->out[0].dims[1] = infer_dim(cnt);
    return NNFX_OK;
}

/* Compress(input, condition): the selected slices along axis, or the
 * selected elements of the flattened input. */
nnfx_status infer_compress(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (!s) s = infer_need(c, 1, "condition");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    const nnfx_attr *a = nnfx_node_attr(c->node, "axis");
    int axis = -1;
    if (a) {
        if (x->rank < 0) {
            infer_set_unknown(&c->out[0], x->dtype);
            return NNFX_OK;
        }
        if (!infer_axis(a->u.i, x->rank, false, &axis))
            return infer_fail(c, "compress axis %lld out of range for rank %d", (long long)a->u.i, x->rank);
    }
    int64_t lim = axis >= 0 ? x->dims[axis].value : infer_prod(x, 0, x->rank < 0 ? 0 : x->rank);
    int64_t cnt = -1;
    if (c->in_value && c->in_value[1] && (lim >= 0 || x->rank < 0))
        cnt = ir_count_nonzero(c->in_value[1], x->rank < 0 ? -1 : lim);
    if (axis < 0) {
        infer_set_rank(&c->out[0], x->dtype, 1);
        c->out[0].dims[0] = infer_dim(cnt);
    } else {
        c->out[0] = *x;
        c->out[0].dims[axis] = infer_dim(cnt);
    }
    return NNFX_OK;
}

/* Unique(X) -> Y, indices, inverse_indices, counts (int64). */
nnfx_status infer_unique(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    if (c->nout > 4) return infer_fail(c, "unique has at most 4 outputs, the node has %d", c->nout);
    const nnfx_meta *x = c->in[0];
    const nnfx_attr *a = nnfx_node_attr(c->node, "axis");
    int axis = -1;
    if (a && x->rank >= 0 && !infer_axis(a->u.i, x->rank, false, &axis))
        return infer_fail(c, "unique axis %lld out of range for rank %d", (long long)a->u.i, x->rank);
    int64_t u = -1, ns = -1;
    if (c->in_value && c->in_value[0] && (!a || axis >= 0)) {
        int64_t *f, *inv, *cn;
        if (!ir_unique_plan(c->in_value[0], axis, true, &u, &ns, &f, &inv, &cn))
            return infer_fail_status(c, NNFX_ERR_NOMEM, "out of memory");
        free(f);
        free(inv);
        free(cn);
    } else if (axis >= 0) {
        ns = x->dims[axis].value;
    } else {
        ns = infer_prod(x, 0, x->rank < 0 ? 0 : x->rank);
    }
    if (a && axis < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
    } else if (axis >= 0) {
        c->out[0] = *x;
        c->out[0].dims[axis] = infer_dim(u);
    } else {
        infer_set_rank(&c->out[0], x->dtype, 1);
        c->out[0].dims[0] = infer_dim(u);
    }
    for (int o = 1; o < c->nout; o++) {
        infer_set_rank(&c->out[o], NNFX_I64, 1);
        c->out[o].dims[0] = infer_dim(o == 2 ? ns : u);
    }
    return NNFX_OK;
}

/* TfIdfVectorizer(X [C] or [N, C]) -> float32 [max(ngram_indexes) + 1]
 * (or [N, ...]). */
nnfx_status infer_tfidf(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (nnfx_node_attr(c->node, "pool_strings"))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "tfidf string pools are not supported (no string tensors)");
    const nnfx_attr *idx = nnfx_node_attr(c->node, "ngram_indexes");
    int64_t cout = 0;
    for (int i = 0; idx && idx->kind == NNFX_ATTR_INTS && i < idx->u.ints.n; i++)
        if (idx->u.ints.v[i] + 1 > cout) cout = idx->u.ints.v[i] + 1;
    if (x->rank > 2 || x->rank == 0) return infer_fail(c, "tfidf X must have rank 1 or 2, got %d", x->rank);
    if (x->rank < 0) {
        infer_set_unknown(&c->out[0], NNFX_F32);
        return NNFX_OK;
    }
    c->out[0].dtype = NNFX_F32;
    c->out[0].rank = x->rank;
    if (x->rank == 2) c->out[0].dims[0] = x->dims[0];
    c->out[0].dims[x->rank - 1] = infer_dim(cout);
    return NNFX_OK;
}
