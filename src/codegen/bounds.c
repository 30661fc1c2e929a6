/* bounds.c — values whose size depends on the data, for generated C (which
 * has static shapes). A NonZero, Compress, Unique or NonMaxSuppression gets
 * its bound as a static shape (emit_bounded.c); the nodes after it are
 * inferred again from that bound, and each value keeps, per dim, which
 * data-dependent extent (a source's actual dim, known at run time) it holds.
 * The generated steps compute over the whole bound; the values past the
 * extent are padding nobody reads. Only ops whose valid part depends on the
 * valid part of their inputs alone are taken (elementwise, views keeping the
 * dim, a Gather's rows, a matrix product's rows...); an op that reads along
 * such a dim (a reduction, a softmax, a contraction) gets its padding filled
 * with the value that leaves the result unchanged first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

const int16_t *cg_dyn_of(const cg_bounds *b, const nnfx_node *v) {
    for (int i = 0; b && v && i < b->ndyn; i++)
        if (b->dyn[i].node == v) return b->dyn[i].ext;
    return NULL;
}

void cg_extent_expr(int e, char *buf, size_t len) {
    snprintf(buf, len, "bounded%d_dims%d[%d]", e / (4 * NNFX_MAX_RANK), e / NNFX_MAX_RANK % 4, e % NNFX_MAX_RANK);
}

/* Adds value v with extents ext (rank dims) to b. */
static nnfx_status add_dyn(cg_bounds *b, const nnfx_node *v, const int16_t *ext, int rank, nnfx_error *err) {
    bool any = false;
    for (int d = 0; d < rank; d++)
        any |= ext[d] >= 0;
    if (!any) return NNFX_OK; /* every dim static again (a reduction over the data-dependent one) */
    if (b->ndyn == b->cap) {
        int cap = b->cap ? 2 * b->cap : 32;
        cg_dyn *d = realloc(b->dyn, sizeof *d * (size_t)cap);
        if (!d) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->dyn = d, b->cap = cap;
    }
    cg_dyn *d = &b->dyn[b->ndyn++];
    d->node = v;
    for (int i = 0; i < NNFX_MAX_RANK; i++)
        d->ext[i] = i < rank ? ext[i] : -1;
    return NNFX_OK;
}

/* Records that input a of n gets its padding filled with fill before n runs. */
static nnfx_status add_fill(cg_bounds *b, const nnfx_node *n, int a, cg_fill_kind fill, nnfx_error *err) {
    if (b->nfill == CG_MAX_FILLS)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: more than %d padding fills", n->name,
                              CG_MAX_FILLS);
    b->fill[b->nfill++] = (cg_fill){n, a, fill, 0};
    return NNFX_OK;
}

void cg_bounds_free(cg_bounds *b) {
    free(b->dyn);
    memset(b, 0, sizeof *b);
}

/* Integers of constant argument a of n (a parameter) into v (at most max);
 * their count, or -1 when it is not a constant. */
static int const_ints(const nnfx_graph *g, const nnfx_node *n, int a, int64_t *v, int max) {
    const nnfx_node *s = a < n->nargs && n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
    if (a < n->nargs && n->args[a].kind == NNFX_ARG_INT) {
        v[0] = n->args[a].u.i;
        return 1;
    }
    const nnfx_tensor *t = s && s->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, s->target) : NULL;
    if (!t || nnfx_tensor_numel(t) > max) return -1;
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        v[i] = (int64_t)nnfx_tensor_get(t, i);
    return (int)nnfx_tensor_numel(t);
}

/* Whether argument a of n is a constant (a parameter or a literal). */
static bool arg_const(const nnfx_node *n, int a) {
    if (a >= n->nargs) return true;
    if (n->args[a].kind != NNFX_ARG_NODE) return true;
    return n->args[a].u.node->opcode == NNFX_GET_ATTR;
}

/* ---- how each op carries data-dependent dims --------------------------------
 * Each rule sets ext[0..rank of n's output) from din (the inputs' extents,
 * NULL for a static input) or writes why it cannot. */

typedef struct rule_ctx {
    const nnfx_graph *g;
    cg_bounds *b;
    const nnfx_node *n;
    const int16_t *const *din;
    int16_t *ext;
    char *why;
    size_t wlen;
    nnfx_error *err;
} rule_ctx;

static bool refuse(rule_ctx *r, const char *why) {
    snprintf(r->why, r->wlen, "%s", why);
    return false;
}

/* Elementwise with ONNX broadcasting over arguments [0, nargs). */
static bool rule_broadcast(rule_ctx *r, int nargs) {
    const nnfx_meta *ym = &r->n->meta[0];
    for (int a = 0; a < nargs; a++) {
        const nnfx_meta *m = cg_arg_meta(r->n, a);
        if (!m || !r->din[a]) continue;
        for (int j = 0; j < m->rank; j++) {
            const int od = ym->rank - m->rank + j, e = r->din[a][j];
            if (e < 0) continue;
            if (m->dims[j].value != ym->dims[od].value)
                return refuse(r, "it broadcasts a data-dependent dim to a larger static one");
            if (r->ext[od] >= 0 && r->ext[od] != e)
                return refuse(r, "it meets two data-dependent dims of different nodes, which may differ at run time");
            r->ext[od] = (int16_t)e;
        }
    }
    for (int a = 0; a < nargs; a++) { /* a static dim meeting a data-dependent one must be 1 */
        const nnfx_meta *m = cg_arg_meta(r->n, a);
        for (int j = 0; m && j < m->rank; j++) {
            const int od = ym->rank - m->rank + j;
            if (r->ext[od] >= 0 && (!r->din[a] || r->din[a][j] != r->ext[od]) && m->dims[j].value != 1)
                return refuse(r, "it meets a data-dependent dim with a static one (they must be equal at run time)");
        }
    }
    return true;
}

/* A view (Reshape, Flatten, Squeeze, Unsqueeze): each data-dependent dim
 * must stay one dim, with the same elements before it. */
static bool rule_view(rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *ym = &r->n->meta[0];
    bool used[NNFX_MAX_RANK] = {false};
    for (int d = 0; d < xm->rank; d++) {
        if (r->din[0][d] < 0) continue;
        const int64_t before = infer_prod(xm, 0, d);
        int j = 0;
        while (j < ym->rank && !(infer_prod(ym, 0, j) == before && ym->dims[j].value == xm->dims[d].value && !used[j]))
            j++;
        if (j == ym->rank) return refuse(r, "it merges or splits a data-dependent dim");
        used[j] = true;
        r->ext[j] = r->din[0][d];
    }
    return true;
}

static bool rule_transpose(rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    const nnfx_attr *p = nnfx_node_attr(r->n, "perm");
    for (int i = 0; i < xm->rank; i++) {
        const int64_t src = p && p->u.ints.n == xm->rank ? p->u.ints.v[i] : xm->rank - 1 - i;
        if (src < 0 || src >= xm->rank) return refuse(r, "its perm is out of range");
        r->ext[i] = r->din[0][src];
    }
    return true;
}

static bool rule_gather(rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *im = cg_arg_meta(r->n, 1);
    int axis;
    if (!infer_axis(nnfx_node_attr_int(r->n, "axis", 0), xm->rank, false, &axis))
        return refuse(r, "its axis is out of range");
    const int16_t *dx = r->din[0], *di = r->din[1];
    if (dx && dx[axis] >= 0 && arg_const(r->n, 1))
        return refuse(r, "it picks constant indices along a data-dependent dim (they may be past it at run time)");
    for (int d = 0; d < axis; d++)
        r->ext[d] = dx ? dx[d] : -1;
    for (int j = 0; j < im->rank; j++)
        r->ext[axis + j] = di ? di[j] : -1;
    for (int d = axis + 1; d < xm->rank; d++)
        r->ext[axis + im->rank + d - axis - 1] = dx ? dx[d] : -1;
    return true;
}

/* GatherND: the index tuples' dims carry over (their values past the
 * extent, padding, are range-checked by the kernel); the data's dims must
 * be static. */
static bool rule_gather_nd(rule_ctx *r) {
    const nnfx_meta *im = cg_arg_meta(r->n, 1), *ym = &r->n->meta[0];
    if (r->din[0]) return refuse(r, "its data has a data-dependent dim");
    if (im->rank < 1 || r->din[1][im->rank - 1] >= 0) return refuse(r, "its index tuples' length depends on the data");
    if (nnfx_node_attr_int(r->n, "batch_dims", 0) != 0) return refuse(r, "batch_dims with data-dependent indices");
    for (int j = 0; j < im->rank - 1 && j < ym->rank; j++)
        r->ext[j] = r->din[1][j];
    return true;
}

/* Gemm / MatMul: rows of A and columns of B carry over; a data-dependent
 * inner dim is summed over with both operands' padding zero. */
static bool rule_matmul(rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *am = cg_arg_meta(n, 0), *bm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    const int16_t *da = r->din[0], *db = r->din[1];
    int ak, bk, am_, bn; /* A's inner and row dims, B's inner and column dims (-1: none) */
    if (n->op == NNFX_OP_GEMM) {
        const bool ta = nnfx_node_attr_int(n, "transA", 0) != 0, tb = nnfx_node_attr_int(n, "transB", 0) != 0;
        ak = ta ? 0 : 1, am_ = ta ? 1 : 0, bk = tb ? 1 : 0, bn = tb ? 0 : 1;
        if (n->nargs > 2 && r->din[2]) return refuse(r, "its bias C has a data-dependent dim");
    } else {
        if (am->rank < 2 || bm->rank < 2) return refuse(r, "a vector operand with a data-dependent dim");
        ak = am->rank - 1, am_ = am->rank - 2, bk = bm->rank - 2, bn = bm->rank - 1;
        for (int j = 0; j < ym->rank - 2; j++) { /* batch dims broadcast */
            const int ja = j - (ym->rank - am->rank), jb = j - (ym->rank - bm->rank);
            const int ea = da && ja >= 0 ? da[ja] : -1, eb = db && jb >= 0 ? db[jb] : -1;
            if ((ea >= 0 && ((eb >= 0 && eb != ea) || (eb < 0 && jb >= 0 && bm->dims[jb].value != 1))) ||
                (eb >= 0 && ea < 0 && ja >= 0 && am->dims[ja].value != 1))
                return refuse(r, "its batch dims meet a data-dependent dim with another size");
            r->ext[j] = (int16_t)(ea >= 0 ? ea : eb);
        }
    }
    const int ea = da ? da[ak] : -1, eb = db ? db[bk] : -1;
    if (ea != eb) return refuse(r, "it sums over a data-dependent dim against a static one");
    if (ea >= 0 && (add_fill(r->b, n, 0, CG_FILL_ZERO, r->err) || add_fill(r->b, n, 1, CG_FILL_ZERO, r->err)))
        return refuse(r, "too many padding fills");
    r->ext[ym->rank - 2] = da ? da[am_] : -1;
    r->ext[ym->rank - 1] = db ? db[bn] : -1;
    return true;
}

/* The dims a reduction node n reduces over (of rank dims) into red. */
static bool reduce_dims(rule_ctx *r, int rank, bool *red) {
    const nnfx_node *n = r->n;
    int64_t axes[NNFX_MAX_RANK];
    int na = 0;
    const nnfx_attr *at = nnfx_node_attr(n, "axes");
    if (n->nargs > 1 && n->args[1].kind == NNFX_ARG_NODE) {
        if ((na = const_ints(r->g, n, 1, axes, NNFX_MAX_RANK)) < 0) return refuse(r, "its axes are not constants");
    } else if (at && at->kind == NNFX_ATTR_INTS) {
        if (at->u.ints.n > NNFX_MAX_RANK) return refuse(r, "more axes than dims");
        for (na = 0; na < at->u.ints.n; na++)
            axes[na] = at->u.ints.v[na];
    }
    char why[200];
    if (!ir_reduce_plan(n, rank, na, na ? axes : NULL, red, why, sizeof why)) return refuse(r, why);
    return true;
}

/* The fill that leaves reduction op's result unchanged (-1: none). */
static int reduce_fill(nnfx_op op, bool flt) {
    switch (op) {
    case NNFX_OP_REDUCE_MEAN:
    case NNFX_OP_REDUCE_SUM:
    case NNFX_OP_REDUCE_L1:
    case NNFX_OP_REDUCE_L2:
    case NNFX_OP_REDUCE_SUM_SQUARE:
    case NNFX_OP_REDUCE_LOG_SUM: return CG_FILL_ZERO;
    case NNFX_OP_REDUCE_PROD: return CG_FILL_ONE;
    case NNFX_OP_ARGMAX:
    case NNFX_OP_REDUCE_MAX: return CG_FILL_LOWEST;
    case NNFX_OP_ARGMIN:
    case NNFX_OP_REDUCE_MIN: return CG_FILL_HIGHEST;
    case NNFX_OP_REDUCE_LOG_SUM_EXP: return flt ? CG_FILL_LOWEST : -1;
    default: return -1;
    }
}

static bool rule_reduce(rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    bool red[NNFX_MAX_RANK] = {false}, any = false;
    if (n->op == NNFX_OP_ARGMAX || n->op == NNFX_OP_ARGMIN) {
        int axis;
        if (!infer_axis(nnfx_node_attr_int(n, "axis", 0), xm->rank, false, &axis))
            return refuse(r, "its axis is out of range");
        red[axis] = true;
    } else if (!reduce_dims(r, xm->rank, red)) {
        return false;
    }
    const bool keep = nnfx_node_attr_int(n, "keepdims", 1) != 0;
    for (int d = 0, j = 0; d < xm->rank; d++) {
        if (!red[d])
            r->ext[j++] = r->din[0][d];
        else if (keep)
            j++;
        any |= red[d] && r->din[0][d] >= 0;
    }
    (void)ym;
    if (!any) return true;
    const bool flt = xm->dtype == NNFX_F32 || xm->dtype == NNFX_F64;
    const int fill = reduce_fill(n->op, flt);
    if (fill < 0 || (!flt && xm->dtype != NNFX_I64 && xm->dtype != NNFX_I32))
        return refuse(r, "generated C reduces over a data-dependent dim only in ReduceSum/Mean/Max/Min/Prod/L1/L2/"
                         "SumSquare/LogSum/LogSumExp and ArgMax/ArgMin (float, or int32/int64 for the exact ones)");
    if (n->op == NNFX_OP_REDUCE_MEAN && xm->dtype != NNFX_F32)
        return refuse(r, "a mean over a data-dependent dim is generated for float32 only");
    if (add_fill(r->b, n, 0, (cg_fill_kind)fill, r->err)) return refuse(r, "too many padding fills");
    for (int d = 0; n->op == NNFX_OP_REDUCE_MEAN && d < xm->rank; d++)
        if (red[d] && r->din[0][d] >= 0) r->b->fill[r->b->nfill - 1].mean_dims |= 1u << d;
    return true;
}

static bool rule_softmax(rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    int axis;
    if (!infer_axis(nnfx_node_attr_int(r->n, "axis", -1), xm->rank, false, &axis))
        return refuse(r, "its axis is out of range");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0][d];
    if (r->din[0][axis] >= 0) {
        if (xm->dtype != NNFX_F32) return refuse(r, "a softmax over a data-dependent dim is generated for float32");
        if (add_fill(r->b, r->n, 0, CG_FILL_LOWEST, r->err)) return refuse(r, "too many padding fills");
    }
    return true;
}

static bool rule_slice(rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], ax[NNFX_MAX_RANK], sp[NNFX_MAX_RANK], dims[NNFX_MAX_RANK];
    const int ns = const_ints(r->g, n, 1, st, NNFX_MAX_RANK), ne = const_ints(r->g, n, 2, en, NNFX_MAX_RANK);
    const int na = n->nargs > 3 ? const_ints(r->g, n, 3, ax, NNFX_MAX_RANK) : 0;
    const int np = n->nargs > 4 ? const_ints(r->g, n, 4, sp, NNFX_MAX_RANK) : 0;
    if (ns < 0 || ne != ns || (na >= 0 && na && na != ns) || (np >= 0 && np && np != ns) || na < 0 || np < 0)
        return refuse(r, "its starts, ends, axes and steps are not constants");
    for (int d = 0; d < xm->rank; d++)
        dims[d] = xm->dims[d].value;
    int64_t start[NNFX_MAX_RANK], step[NNFX_MAX_RANK], count[NNFX_MAX_RANK];
    char why[160];
    if (!ir_slice_plan(xm->rank, dims, ns, st, en, na ? ax : NULL, np ? sp : NULL, start, step, count, why, sizeof why))
        return refuse(r, why);
    for (int d = 0; d < xm->rank; d++) {
        const int e = r->din[0][d];
        if (e >= 0 && (start[d] != 0 || step[d] != 1 || count[d] != dims[d]))
            return refuse(r, "it slices a data-dependent dim");
        r->ext[d] = (int16_t)e;
    }
    return true;
}

static bool rule_concat(rule_ctx *r) {
    const nnfx_meta *ym = &r->n->meta[0];
    int axis;
    if (!infer_axis(nnfx_node_attr_int(r->n, "axis", 0), ym->rank, false, &axis))
        return refuse(r, "its axis is out of range");
    for (int d = 0; d < ym->rank; d++) {
        int e = -2;
        for (int a = 0; a < r->n->nargs; a++) {
            const int ea = r->din[a] ? r->din[a][d] : -1;
            if (e != -2 && ea != e) return refuse(r, "its inputs differ in which dims depend on the data");
            e = ea;
        }
        if (d == axis && e >= 0) return refuse(r, "it concatenates along a data-dependent dim");
        r->ext[d] = (int16_t)(e < 0 ? -1 : e);
    }
    return true;
}

/* Ops that treat each index of their leading dims (dims below `lead`: the
 * batch of a conv or pooling, the rows of a LayerNormalization) apart. */
static bool rule_leading(rule_ctx *r, int lead) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    for (int a = 1; a < r->n->nargs; a++)
        if (r->din[a]) return refuse(r, "a parameter input has a data-dependent dim");
    for (int d = 0; d < xm->rank; d++) {
        if (r->din[0][d] >= 0 && d >= lead) return refuse(r, "it reads along its input's data-dependent dim");
        r->ext[d] = r->din[0][d];
    }
    return true;
}

static bool apply_rule(rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_op_info *info = ir_op_info(n->op);
    if (n->nout != 1) return refuse(r, "a node of several outputs");
    for (int d = 0; d < NNFX_MAX_RANK; d++)
        r->ext[d] = -1;
    switch (n->op) {
    case NNFX_OP_CAST:
    case NNFX_OP_CAST_LIKE:
    case NNFX_OP_IDENTITY:
    case NNFX_OP_DROPOUT: return rule_broadcast(r, 1);
    case NNFX_OP_TRANSPOSE: return rule_transpose(r);
    case NNFX_OP_RESHAPE:
    case NNFX_OP_FLATTEN:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE:
        for (int a = 1; a < n->nargs; a++)
            if (r->din[a]) return refuse(r, "its shape or axes depend on the data");
        return rule_view(r);
    case NNFX_OP_GATHER: return rule_gather(r);
    case NNFX_OP_GATHER_ND: return rule_gather_nd(r);
    case NNFX_OP_GEMM:
    case NNFX_OP_MATMUL: return rule_matmul(r);
    case NNFX_OP_ARGMAX:
    case NNFX_OP_ARGMIN: return rule_reduce(r);
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX: return rule_softmax(r);
    case NNFX_OP_SLICE: return rule_slice(r);
    case NNFX_OP_CONCAT: return rule_concat(r);
    case NNFX_OP_CONV:
    case NNFX_OP_AVERAGE_POOL:
    case NNFX_OP_MAX_POOL:
    case NNFX_OP_GLOBAL_AVERAGE_POOL:
    case NNFX_OP_GLOBAL_MAX_POOL:
    case NNFX_OP_BATCH_NORM: return rule_leading(r, 1);
    case NNFX_OP_LAYER_NORM: {
        int axis;
        const nnfx_meta *xm = cg_arg_meta(n, 0);
        if (!infer_axis(nnfx_node_attr_int(n, "axis", -1), xm->rank, false, &axis))
            return refuse(r, "its axis is out of range");
        return rule_leading(r, axis);
    }
    default: break;
    }
    if (info->flags & NNFX_F_REDUCE) return rule_reduce(r);
    if (info->flags & (NNFX_F_ELEMENTWISE | NNFX_F_BROADCAST)) return rule_broadcast(r, n->nargs);
    return refuse(r, "generated C has no kernel for it that takes a size known only at run time");
}

/* ---- the sources ------------------------------------------------------------ */

/* The elements of n's argument a (a static value), -1 when absent or not
 * static. */
static int64_t arg_numel(const nnfx_node *n, int a) {
    const nnfx_meta *m = cg_arg_meta(n, a);
    return m && nnfx_meta_is_static(m) ? nnfx_meta_numel(m) : -1;
}

/* NonMaxSuppression's max_output_boxes_per_class when it is a parameter of
 * g (at most n; 0 gives 0), else n. */
static int64_t nms_per_class(const nnfx_graph *g, const nnfx_node *nms, int64_t n) {
    const nnfx_node *a = nms->nargs > 2 && nms->args[2].kind == NNFX_ARG_NODE ? nms->args[2].u.node : NULL;
    const nnfx_tensor *t = a && a->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, a->target) : NULL;
    if (!t || nnfx_tensor_numel(t) < 1) return a ? n : 0; /* absent: no box is selected */
    const int64_t mo = ir_tensor_int_at0(t);
    return mo < 0 ? 0 : mo < n ? mo : n;
}

/* The bounds of n's outputs (a data-dependent NonZero, Compress, Unique or
 * NonMaxSuppression of g whose inputs are static) into m[0..n->nout) and
 * the dim of each that depends on the data into dd (-1: none); false when
 * n is not such a node. *padded: the kernel leaves each output's values
 * where the bound's layout has them (not compacted across an outer dim). */
static bool bound_of(const nnfx_graph *g, const nnfx_node *n, nnfx_meta *m, int *dd, bool *padded) {
    if (n->opcode != NNFX_CALL_FUNCTION || n->nout > 4) return false;
    bool dynamic = false;
    for (int k = 0; k < n->nout; k++)
        dynamic |= !nnfx_meta_is_static(&n->meta[k]);
    if (!dynamic) return false;
    const nnfx_meta *x = cg_arg_meta(n, 0);
    if (!x || !nnfx_meta_is_static(x) || x->rank > 8) return false;
    for (int a = 1; a < n->nargs; a++)
        if (n->args[a].kind == NNFX_ARG_NODE && arg_numel(n, a) < 0) return false;
    int64_t dims[NNFX_MAX_RANK];
    const nnfx_attr *at = nnfx_node_attr(n, "axis");
    int axis = -1;
    if (at && !infer_axis(at->u.i, x->rank, false, &axis)) return false;
    const bool outer1 = axis < 0 || infer_prod(x, 0, axis) == 1;
    *padded = true;
    switch (n->op) {
    case NNFX_OP_NON_ZERO:
        dims[0] = x->rank, dims[1] = nnfx_meta_numel(x);
        nnfx_meta_set_shape(&m[0], NNFX_I64, 2, dims);
        dd[0] = 1;
        return true;
    case NNFX_OP_COMPRESS: {
        const int64_t clen = arg_numel(n, 1);
        if (clen < 0 || clen > (axis < 0 ? nnfx_meta_numel(x) : x->dims[axis].value)) return false;
        for (int d = 0; d < x->rank; d++)
            dims[d] = d == axis ? clen : x->dims[d].value;
        if (axis < 0) dims[0] = clen;
        nnfx_meta_set_shape(&m[0], x->dtype, axis < 0 ? 1 : x->rank, dims);
        dd[0] = axis < 0 ? 0 : axis;
        *padded = outer1;
        return true;
    }
    case NNFX_OP_UNIQUE: { /* at most every slice distinct */
        const int64_t S = axis < 0 ? nnfx_meta_numel(x) : x->dims[axis].value;
        for (int d = 0; d < x->rank; d++)
            dims[d] = x->dims[d].value;
        if (axis < 0) dims[0] = S;
        nnfx_meta_set_shape(&m[0], x->dtype, axis < 0 ? 1 : x->rank, dims);
        dd[0] = axis < 0 ? 0 : axis;
        for (int k = 1; k < n->nout && k < 4; k++) {
            nnfx_meta_set_shape(&m[k], NNFX_I64, 1, &S);
            dd[k] = k == 2 ? -1 : 0; /* inverse_indices: one per slice */
        }
        *padded = outer1;
        return true;
    }
    case NNFX_OP_NMS: { /* every box of every class of every batch, or max_output_boxes_per_class of them */
        const nnfx_meta *sm = cg_arg_meta(n, 1);
        if (x->rank != 3 || !sm || sm->rank != 3 || !nnfx_meta_is_static(sm)) return false;
        dims[0] = sm->dims[0].value * sm->dims[1].value * nms_per_class(g, n, sm->dims[2].value), dims[1] = 3;
        nnfx_meta_set_shape(&m[0], NNFX_I64, 2, dims);
        dd[0] = 0;
        return true;
    }
    default: return false;
    }
}

bool cg_has_bounds(const nnfx_graph *g) {
    for (const nnfx_node *n = g->head; n; n = n->next) {
        nnfx_meta m[4] = {{0}};
        int dd[4];
        bool padded;
        if (bound_of(g, n, m, dd, &padded)) return true;
    }
    return false;
}

/* The computed values n reads (not parameters or model inputs),
 * comma-separated, into buf. */
static void data_args(const nnfx_node *n, char *buf, size_t len) {
    size_t k = 0;
    buf[0] = 0;
    for (int a = 0; a < n->nargs; a++) {
        const nnfx_node *v = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
        if (v && v->opcode == NNFX_CALL_FUNCTION && k + strlen(v->name) + 2 < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "", v->name);
    }
}

/* NNFX_ERR_UNSUPPORTED: node n reads a data-dependent value and why it
 * cannot be generated, with the --outputs that generate the part before. */
static nnfx_status refuse_node(const nnfx_node *n, const char *why, nnfx_error *err) {
    char before[256];
    data_args(n, before, sizeof before);
    return nnfx_error_set(
        err, NNFX_ERR_UNSUPPORTED,
        "codegen: node %s (%s) reads a value whose size depends on the input data; generated C "
        "computes such a value over its bound, and cannot for this node: %s%s%s",
        n->name, ir_op_info(n->op)->onnx_type, why,
        before[0] ? ". To generate the part before it (and run the rest in your own code): --outputs " : "", before);
}

/* Registers source n (bounds m, data-dependent dims dd) as b->src[b->nsrc]. */
static nnfx_status add_source(cg_bounds *b, nnfx_node *n, const nnfx_meta *m, const int *dd, bool padded,
                              nnfx_error *err) {
    if (b->nsrc == CG_MAX_BOUNDED)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: more than %d data-dependent nodes", n->name,
                              CG_MAX_BOUNDED);
    const int id = b->nsrc++;
    b->src[id] = n;
    for (int o = 0; o < n->nout; o++)
        n->meta[o] = m[o];
    nnfx_status st = NNFX_OK;
    for (int k = 0; k < n->nout && !st; k++) {
        int16_t ext[NNFX_MAX_RANK];
        for (int d = 0; d < NNFX_MAX_RANK; d++)
            ext[d] = d == dd[k] ? (int16_t)((id * 4 + k) * NNFX_MAX_RANK + d) : -1;
        if (n->nout == 1) {
            if (padded && dd[k] >= 0) st = add_dyn(b, n, ext, m[k].rank, err);
            continue;
        }
        for (int u = 0; u < n->nusers && !st; u++) { /* a multi-output node's getitems */
            nnfx_node *r = n->users[u];
            if (r->opcode == NNFX_CALL_FUNCTION && r->op == NNFX_OP_GETITEM && r->args[1].kind == NNFX_ARG_INT &&
                r->args[1].u.i == k) {
                r->meta[0] = m[k];
                if (padded && dd[k] >= 0) st = add_dyn(b, r, ext, m[k].rank, err);
            }
        }
    }
    return st;
}

/* Whether value v of a compacting source (no dyn entry) is read by a node
 * other than the output node (directly or through a getitem). */
static bool read_by_nodes(const nnfx_node *v) {
    for (int u = 0; u < v->nusers; u++) {
        const nnfx_node *r = v->users[u];
        if (r->opcode == NNFX_CALL_FUNCTION && r->op == NNFX_OP_GETITEM) {
            if (read_by_nodes(r)) return true;
        } else if (r->opcode != NNFX_OUTPUT) {
            return true;
        }
    }
    return false;
}

nnfx_status cg_set_bounds(nnfx_graph *g, cg_bounds *b, nnfx_error *err) {
    memset(b, 0, sizeof *b);
    for (nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || n->op == NNFX_OP_GETITEM) continue;
        const int16_t *din_stack[16], **din = din_stack;
        if (n->nargs > 16 && !(din = calloc((size_t)n->nargs, sizeof *din)))
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        bool any = false;
        for (int a = 0; a < n->nargs; a++) {
            din[a] = n->args[a].kind == NNFX_ARG_NODE ? cg_dyn_of(b, n->args[a].u.node) : NULL;
            any |= din[a] != NULL;
        }
        nnfx_status st = NNFX_OK;
        char why[240] = "";
        if (any && (ir_op_is_ctrl(n->op) || n->nout != 1)) {
            st = refuse_node(n, ir_op_is_ctrl(n->op) ? "a control-flow node" : "a node of several outputs", err);
        } else if (any) { /* the bound's shapes through n, then which dims of its output depend on the data */
            nnfx_error ierr = {0};
            const bool source = n->op == NNFX_OP_NON_ZERO;
            if (!source && (ir_infer_node(n, NULL, false, NULL, &ierr) || !nnfx_meta_is_static(&n->meta[0]))) {
                snprintf(why, sizeof why, "its shape does not follow from the bound%s%.160s", ierr.msg[0] ? ": " : "",
                         ierr.msg);
                st = refuse_node(n, why, err);
            } else if (source) {
                nnfx_meta m[4] = {{0}};
                int dd[4] = {-1, -1, -1, -1};
                bool padded;
                if (ir_infer_node(n, NULL, false, NULL, &ierr) || !bound_of(g, n, m, dd, &padded))
                    st = refuse_node(n, "its input's bound is not static", err);
                else if (!(st = add_source(b, n, m, dd, padded, err)))
                    b->src_dyn_in[b->nsrc - 1] = true;
            } else {
                int16_t ext[NNFX_MAX_RANK];
                rule_ctx r = {g, b, n, din, ext, why, sizeof why, err};
                if (!apply_rule(&r))
                    st = err && err->status ? err->status : refuse_node(n, why, err);
                else
                    st = add_dyn(b, n, ext, n->meta[0].rank, err);
            }
        } else {
            nnfx_meta m[4] = {{0}};
            int dd[4] = {-1, -1, -1, -1};
            bool padded;
            if (bound_of(g, n, m, dd, &padded)) {
                if (!padded && read_by_nodes(n))
                    st = refuse_node(n->users[0],
                                     "its input is compacted across an outer dim (a Compress or Unique along an axis "
                                     "past the first non-1 dim) and only a model output may read it",
                                     err);
                else
                    st = add_source(b, n, m, dd, padded, err);
            }
        }
        if (din != din_stack) free(din);
        if (st) {
            cg_bounds_free(b);
            return st;
        }
    }
    return NNFX_OK;
}
