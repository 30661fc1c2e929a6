/* bounds.c — values whose size depends on the data, for generated C (which
 * has static shapes). A NonZero, Compress, Unique or NonMaxSuppression gets
 * its bound as a static shape (emit_bounded.c); the nodes after it are
 * inferred again from that bound, and each value keeps, per dim, which
 * data-dependent extent (a source's actual dim, known at run time) it holds.
 * The generated steps compute over the whole bound; the values past the
 * extent are padding no valid result depends on. Only ops whose valid part
 * depends on the valid part of their inputs alone are taken (elementwise,
 * views keeping the dim, a Gather's rows, a matrix product's rows...); an op
 * that reads along such a dim (a reduction, a softmax, a contraction, a
 * TopK) gets its padding filled with the value that leaves the result
 * unchanged first. Extents are integer expressions (extents.c): a Shape of
 * such a value and what Gather, Concat, ReduceMin, arithmetic make of it are
 * followed per element (sizes.c's "sym" values, folded by the plan at the
 * bound) into the readers that size a dim with them (a TopK's K, a Slice's
 * end...). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/bounds_int.h"
#include "codegen/codegen_int.h"
#include "core/core_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

const int *cg_dyn_of(const cg_bounds *b, const nnfx_node *v) {
    for (int i = 0; b && v && i < b->ndyn; i++)
        if (b->dyn[i].node == v) return b->dyn[i].ext;
    return NULL;
}

/* Adds value v with extents ext (rank dims) to b. */
static nnfx_status add_dyn(cg_bounds *b, const nnfx_node *v, const int *ext, int rank, nnfx_error *err) {
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
    for (int i = 0; i < NNFX_MAX_RANK; i++) {
        d->ext[i] = i < rank ? ext[i] : -1;
        if (d->ext[i] >= 0) b->xp[d->ext[i]].dim = true;
    }
    return NNFX_OK;
}

/* Records that the plan must compute n in a step even from constants
 * (folded, its inputs' padding would count). */
static nnfx_status keep_node(cg_bounds *b, const nnfx_node *n, nnfx_error *err) {
    if (b->nkept && b->kept[b->nkept - 1] == n) return NNFX_OK;
    if (b->nkept == b->keptcap) {
        int cap = b->keptcap ? 2 * b->keptcap : 32;
        const nnfx_node **k = realloc(b->kept, sizeof *k * (size_t)cap);
        if (!k) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->kept = k, b->keptcap = cap;
    }
    b->kept[b->nkept++] = n;
    return NNFX_OK;
}

/* Records that input a of n gets its padding filled with fill before n runs. */
static nnfx_status add_fill(cg_bounds *b, const nnfx_node *n, int a, cg_fill_kind fill, nnfx_error *err) {
    if (b->nfill == CG_MAX_FILLS)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: more than %d padding fills", n->name,
                              CG_MAX_FILLS);
    b->fill[b->nfill++] = (cg_fill){n, a, fill, 0};
    return keep_node(b, n, err);
}

void cg_bounds_free(cg_bounds *b) {
    for (int i = 0; i < b->nbodies; i++) {
        cg_bounds_free(b->bodies[i]);
        free(b->bodies[i]);
    }
    free(b->bodies);
    free(b->root);
    free(b->starts);
    free(b->dyn);
    free(b->xp);
    free(b->sym);
    free(b->kept);
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
        v[i] = core_tensor_get_i64(t, i);
    return (int)nnfx_tensor_numel(t);
}

bool cg_arg_is_const(const nnfx_node *n, int a) {
    if (a >= n->nargs) return true;
    if (n->args[a].kind != NNFX_ARG_NODE) return true;
    return n->args[a].u.node->opcode == NNFX_GET_ATTR;
}

/* ---- how each op carries data-dependent dims --------------------------------
 * Each rule sets ext[0..rank of n's output) from din (the inputs' extents,
 * NULL for a static input) or writes why it cannot. */

static bool refuse(cg_rule_ctx *r, const char *why) {
    snprintf(r->why, r->wlen, "%s", why);
    return false;
}

static bool oom(cg_rule_ctx *r) {
    nnfx_error_set(r->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    return refuse(r, "out of memory");
}

/* Elementwise with ONNX broadcasting over arguments [0, nargs). */
static bool rule_broadcast(cg_rule_ctx *r, int nargs) {
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
            r->ext[od] = (int)e;
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
 * must stay one dim, with the same elements before it, or be the outermost
 * dim merged with static dims after it (its valid rows are a prefix: the
 * extent times their product). */
static bool rule_view(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *ym = &r->n->meta[0];
    bool used[NNFX_MAX_RANK] = {false};
    for (int d = 0; d < xm->rank; d++) {
        if (r->din[0][d] < 0) continue;
        const int64_t before = infer_prod(xm, 0, d);
        int j = 0;
        while (j < ym->rank && !(infer_prod(ym, 0, j) == before && ym->dims[j].value == xm->dims[d].value && !used[j]))
            j++;
        if (j == ym->rank && before == 1) { /* the outermost dim merged with static ones after it: a prefix */
            int64_t inner = 1;
            int d2 = d;
            for (j = 0; j < ym->rank && infer_prod(ym, 0, j) == 1 && ym->dims[j].value == 1; j++)
                ;
            while (j < ym->rank && d2 + 1 < xm->rank && xm->dims[d].value * inner < ym->dims[j].value &&
                   r->din[0][d2 + 1] < 0)
                inner *= xm->dims[++d2].value;
            if (j < ym->rank && xm->dims[d].value * inner == ym->dims[j].value && !used[j] && d2 > d) {
                const int e = cg_x_make(r->b, CG_X_MUL, r->din[0][d], cg_x_const(r->b, inner), -1, 0);
                if (e < 0) return oom(r);
                used[j] = true;
                r->ext[j] = e;
                d = d2;
                continue;
            }
            j = ym->rank;
        }
        if (j == ym->rank) return refuse(r, "it merges or splits a data-dependent dim");
        used[j] = true;
        r->ext[j] = r->din[0][d];
    }
    return true;
}

static bool rule_transpose(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    const nnfx_attr *p = nnfx_node_attr(r->n, "perm");
    for (int i = 0; i < xm->rank; i++) {
        const int64_t src = p && p->u.ints.n == xm->rank ? p->u.ints.v[i] : xm->rank - 1 - i;
        if (src < 0 || src >= xm->rank) return refuse(r, "its perm is out of range");
        r->ext[i] = r->din[0][src];
    }
    return true;
}

static bool rule_gather(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *im = cg_arg_meta(r->n, 1);
    int axis;
    if (!infer_axis(ir_attr_int(r->n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
    const int *dx = r->din[0], *di = r->din[1];
    if (dx && dx[axis] >= 0 && cg_arg_is_const(r->n, 1))
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
static bool rule_gather_nd(cg_rule_ctx *r) {
    const nnfx_meta *im = cg_arg_meta(r->n, 1), *ym = &r->n->meta[0];
    if (r->din[0]) return refuse(r, "its data has a data-dependent dim");
    if (im->rank < 1 || r->din[1][im->rank - 1] >= 0) return refuse(r, "its index tuples' length depends on the data");
    if (ir_attr_int(r->n, "batch_dims") != 0) return refuse(r, "batch_dims with data-dependent indices");
    for (int j = 0; j < im->rank - 1 && j < ym->rank; j++)
        r->ext[j] = r->din[1][j];
    return true;
}

/* Gemm / MatMul: rows of A and columns of B carry over; a data-dependent
 * inner dim is summed over with both operands' padding zero. */
static bool rule_matmul(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *am = cg_arg_meta(n, 0), *bm = cg_arg_meta(n, 1), *ym = &n->meta[0];
    const int *da = r->din[0], *db = r->din[1];
    int ak, bk, am_, bn; /* A's inner and row dims, B's inner and column dims (-1: none) */
    if (n->op == NNFX_OP_GEMM) {
        const bool ta = ir_attr_int(n, "transA") != 0, tb = ir_attr_int(n, "transB") != 0;
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
            r->ext[j] = (int)(ea >= 0 ? ea : eb);
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
static bool reduce_dims(cg_rule_ctx *r, int rank, bool *red) {
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

static bool rule_reduce(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    bool red[NNFX_MAX_RANK] = {false}, any = false;
    if (n->op == NNFX_OP_ARGMAX || n->op == NNFX_OP_ARGMIN) {
        int axis;
        if (!infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
        red[axis] = true;
    } else if (!reduce_dims(r, xm->rank, red)) {
        return false;
    }
    const bool keep = ir_attr_int(n, "keepdims") != 0;
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

static bool rule_softmax(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    int axis;
    if (!infer_axis(ir_attr_int(r->n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0][d];
    if (r->din[0][axis] >= 0) {
        if (xm->dtype != NNFX_F32) return refuse(r, "a softmax over a data-dependent dim is generated for float32");
        if (add_fill(r->b, r->n, 0, CG_FILL_LOWEST, r->err)) return refuse(r, "too many padding fills");
    }
    return true;
}

/* The count of a step-1 Slice from constant start s (>= 0) to end e (an
 * extent; a negative constant counts from the end) of a dim of extent dim:
 * max(0, min(dim, e) - s); -1 when it cannot be written so. */
static int slice_count(cg_rule_ctx *r, int dim, int64_t s, int e) {
    cg_bounds *b = r->b;
    int64_t ev;
    if (b->xp[e].kind == CG_X_CONST && (ev = b->xp[e].v) < 0 && ev != INT64_MIN)
        e = cg_x_make(b, CG_X_MAX, cg_x_make(b, CG_X_ADD, dim, cg_x_const(b, ev), -1, 0), cg_x_const(b, 0), -1, 0);
    else if (!b->xp[e].nonneg)
        return -1; /* a computed end that may be negative: from the end at run time */
    int m = cg_x_make(b, CG_X_MIN, dim, e, -1, 0);
    if (s > 0) m = cg_x_make(b, CG_X_MAX, cg_x_make(b, CG_X_SUB, m, cg_x_const(b, s), -1, 0), cg_x_const(b, 0), -1, 0);
    return m;
}

static int static_ints(cg_rule_ctx *r, int a, int64_t *v, int max);

/* Index i (an extent) of a dim of extent dim as ONNX's Slice takes it: from
 * the end when negative, then clamped to [0, dim]. */
static int clamp_index(cg_bounds *b, int i, int dim) {
    const int zero = cg_x_const(b, 0);
    const int from_end =
        cg_x_make(b, CG_X_SEL, cg_x_make(b, CG_X_ADD, i, dim, -1, 0), i, cg_x_make(b, CG_X_LT, i, zero, -1, 0), 0);
    return cg_x_make(b, CG_X_MIN, cg_x_make(b, CG_X_MAX, from_end, zero, -1, 0), dim, -1, 0);
}

/* Records r->n's first index per input dim (extents; -1: 0). */
static bool add_starts(cg_rule_ctx *r, const int *start) {
    cg_bounds *b = r->b;
    if (b->nstarts == b->startcap) {
        int cap = b->startcap ? 2 * b->startcap : 16;
        cg_dyn *d = realloc(b->starts, sizeof *d * (size_t)cap);
        if (!d) return oom(r);
        b->starts = d, b->startcap = cap;
    }
    cg_dyn *d = &b->starts[b->nstarts++];
    d->node = r->n;
    for (int i = 0; i < NNFX_MAX_RANK; i++)
        d->ext[i] = start[i];
    return true;
}

/* Slice: a data-dependent dim, or an end computed from one, is taken with
 * step 1 from a constant start >= 0 (the kernel copies the bound's rows
 * from there; the valid ones come first). */
static bool rule_slice(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    cg_bounds *b = r->b;
    int el[4][NNFX_MAX_RANK]; /* starts, ends, axes, steps as extents */
    int cnt[4] = {0, 0, -1, -1};
    for (int a = 1; a <= 4; a++) {
        int64_t v[NNFX_MAX_RANK];
        if (a >= n->nargs || n->args[a].kind == NNFX_ARG_NONE) continue;
        const cg_sym *sy = r->sin[a];
        if (r->din[a]) return refuse(r, "its starts or ends have a data-dependent length");
        if (sy && a >= 3) return refuse(r, "its axes or steps are computed from a data-dependent size");
        int k = sy ? sy->n : static_ints(r, a, v, NNFX_MAX_RANK);
        if (k < 0) return refuse(r, "its starts, ends, axes and steps are neither constants nor computed from sizes");
        for (int i = 0; i < k; i++)
            if ((el[a - 1][i] = sy ? sy->el[i] : cg_x_const(b, v[i])) < 0)
                return sy ? refuse(r,
                                   "its starts or ends are computed from a size in a way generated C does not follow")
                          : oom(r);
        cnt[a - 1] = k;
    }
    if (cnt[1] != cnt[0] || (cnt[2] >= 0 && cnt[2] != cnt[0]) || (cnt[3] >= 0 && cnt[3] != cnt[0]))
        return refuse(r, "its starts, ends, axes and steps differ in length");
    int start[NNFX_MAX_RANK]; /* the first index per dim, when read from data */
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0] ? r->din[0][d] : -1, start[d] = -1;
    for (int j = 0; j < cnt[0]; j++) {
        const int64_t ax0 = cnt[2] >= 0 ? b->xp[el[2][j]].v : j, step = cnt[3] >= 0 ? b->xp[el[3][j]].v : 1;
        int ax;
        if (!infer_axis(ax0, xm->rank, false, &ax)) return refuse(r, "its axes are out of range");
        const int dx = r->din[0] ? r->din[0][ax] : -1, es = el[0][j], ee = el[1][j];
        if (dx < 0 && b->xp[es].kind == CG_X_CONST && b->xp[ee].kind == CG_X_CONST) {
            r->ext[ax] = -1; /* static */
            continue;
        }
        if (step == 1 && (b->xp[es].data || b->xp[ee].data)) { /* bounds read from data: ONNX's clamps at run time */
            const int dim = dx >= 0 ? dx : cg_x_const(b, xm->dims[ax].value);
            const int s0 = clamp_index(b, es, dim), e0 = clamp_index(b, ee, dim), zero = cg_x_const(b, 0);
            const int count = cg_x_make(b, CG_X_MAX, cg_x_make(b, CG_X_SUB, e0, s0, -1, 0), zero, -1, 0);
            if (count < 0) return oom(r);
            r->ext[ax] = b->xp[count].kind == CG_X_CONST ? -1 : count;
            start[ax] = s0;
            continue;
        }
        if (step != 1 || b->xp[es].kind != CG_X_CONST || b->xp[es].v < 0)
            return refuse(r, "it slices a data-dependent dim (or to a computed end) with a step other than 1 or a "
                             "start that is not a constant >= 0");
        const int dim = dx >= 0 ? dx : cg_x_const(b, xm->dims[ax].value);
        const int count = dim < 0 ? -1 : slice_count(r, dim, b->xp[es].v, ee);
        if (count < 0) return refuse(r, "its end is computed from a size and may be negative");
        r->ext[ax] = b->xp[count].kind == CG_X_CONST ? -1 : count;
    }
    for (int d = 0; d < xm->rank; d++)
        if (start[d] >= 0) return add_starts(r, start);
    return true;
}

/* Concat: along a data-dependent dim, the output's extent is the sum of
 * the pieces' (the kernel places each after the previous pieces' valid
 * rows); the other dims must agree. */
static bool rule_concat(cg_rule_ctx *r) {
    const nnfx_meta *ym = &r->n->meta[0];
    int axis;
    if (!infer_axis(ir_attr_int(r->n, "axis"), ym->rank, false, &axis)) return refuse(r, "its axis is out of range");
    bool dd_axis = false;
    for (int a = 0; a < r->n->nargs; a++)
        dd_axis |= r->din[a] && r->din[a][axis] >= 0;
    for (int d = 0; d < ym->rank; d++) {
        if (d == axis && dd_axis) {
            int sum = cg_x_const(r->b, 0);
            for (int a = 0; a < r->n->nargs && sum >= 0; a++) {
                const nnfx_meta *am = cg_arg_meta(r->n, a);
                if (!am) return refuse(r, "a literal input");
                const int ea = r->din[a] && r->din[a][d] >= 0 ? r->din[a][d] : cg_x_const(r->b, am->dims[d].value);
                sum = cg_x_make(r->b, CG_X_ADD, sum, ea, -1, 0);
            }
            if (sum < 0) return oom(r);
            if (keep_node(r->b, r->n, r->err)) return refuse(r, "out of memory");
            r->ext[d] = sum;
            if (r->b->xp[sum].kind == CG_X_CONST) { /* pieces that always fill it (w and k - w): static */
                ((nnfx_node *)r->n)->meta[0].dims[d].value = r->b->xp[sum].v;
                r->ext[d] = -1;
            }
            continue;
        }
        int e = -2;
        for (int a = 0; a < r->n->nargs; a++) {
            const int ea = r->din[a] ? r->din[a][d] : -1;
            if (e != -2 && ea != e) return refuse(r, "its inputs differ in which dims depend on the data");
            e = ea;
        }
        r->ext[d] = e < 0 ? -1 : e;
    }
    return true;
}

/* TopK: along a data-dependent axis its input's padding is filled with
 * the value that sorts last (the valid values come first), and a K
 * computed from a size sizes the output's axis. */
static bool rule_topk(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    int axis;
    if (!infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
    if (r->din[1]) return refuse(r, "its K has a data-dependent length");
    const cg_sym *k = r->sin[1];
    if (k && (k->n != 1 || k->el[0] < 0))
        return refuse(r, "its K is computed from a size in a way generated C does not follow");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0] ? r->din[0][d] : -1;
    r->ext[axis] = k && r->b->xp[k->el[0]].kind != CG_X_CONST ? k->el[0] : -1;
    if (r->din[0] && r->din[0][axis] >= 0) {
        if (xm->dtype != NNFX_F32) return refuse(r, "a TopK along a data-dependent dim is generated for float32");
        const bool largest = ir_attr_int(n, "largest") != 0;
        if (add_fill(r->b, n, 0, largest ? CG_FILL_LOWEST : CG_FILL_HIGHEST, r->err))
            return refuse(r, "too many padding fills");
    }
    return true;
}

/* ConstantOfShape of a shape computed from sizes. */
static bool rule_constant_of_shape(cg_rule_ctx *r) {
    const cg_sym *sh = r->sin[0];
    const nnfx_meta *ym = &r->n->meta[0];
    if (!sh || sh->n != ym->rank) return refuse(r, "its shape has a data-dependent length");
    for (int d = 0; d < ym->rank; d++) {
        if (sh->el[d] < 0) return refuse(r, "its shape is computed from a size in a way generated C does not follow");
        r->ext[d] = r->b->xp[sh->el[d]].kind == CG_X_CONST ? -1 : sh->el[d];
    }
    return true;
}

/* Split along a dim that does not depend on the data: each output keeps
 * the input's extents (they share r->ext). */
static bool rule_split(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    int axis;
    if (!infer_axis(ir_attr_int(r->n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
    if (r->din[0][axis] >= 0) return refuse(r, "it splits a data-dependent dim");
    for (int a = 1; a < r->n->nargs; a++)
        if (r->din[a] || r->sin[a]) return refuse(r, "its split sizes depend on the data");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0][d];
    return true;
}

/* Ops that treat each index of their leading dims (dims below `lead`: the
 * batch of a conv or pooling, the rows of a LayerNormalization) apart. */
static bool rule_leading(cg_rule_ctx *r, int lead) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    for (int a = 1; a < r->n->nargs; a++)
        if (r->din[a]) return refuse(r, "a parameter input has a data-dependent dim");
    for (int d = 0; d < xm->rank; d++) {
        if (r->din[0][d] >= 0 && d >= lead) return refuse(r, "it reads along its input's data-dependent dim");
        r->ext[d] = r->din[0][d];
    }
    return true;
}

/* A Reshape to a shape computed from sizes (torchvision's box clipping:
 * boxes.reshape(boxes.shape)): each computed dim must be the extent the
 * view gave that dim (r->ext); 0 and -1 keep their meaning. */
static bool reshape_to_sizes(cg_rule_ctx *r) {
    const cg_sym *sh = r->sin[1];
    const nnfx_meta *ym = &r->n->meta[0];
    if (sh->n != ym->rank) return refuse(r, "its shape has another length than its output's rank");
    for (int d = 0; d < ym->rank; d++) {
        const int e = sh->el[d];
        if (e < 0) return refuse(r, "its shape is computed from a size in a way generated C does not follow");
        const cg_xp *x = &r->b->xp[e];
        if (x->kind == CG_X_CONST ? (x->v != 0 && x->v != -1 && r->ext[d] >= 0) : e != r->ext[d])
            return refuse(r, "its shape computed from sizes does not keep the data-dependent dim where it was");
    }
    return true;
}

/* Expand to a shape computed from sizes: a data-dependent input dim stays
 * (its shape element 1 or that extent), a static 1 grows to a computed
 * size (the kernel expands to its bound; the valid part comes first). */
static bool rule_expand(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *ym = &r->n->meta[0];
    const cg_sym *sh = r->sin[1];
    int64_t cv[NNFX_MAX_RANK];
    const int nc = sh ? -1 : const_ints(r->g, r->n, 1, cv, NNFX_MAX_RANK);
    if (r->din[1] || (!sh && nc < 0)) return refuse(r, "its shape is neither a constant nor computed from sizes");
    const int ns = sh ? sh->n : nc;
    for (int d = 0; d < ym->rank; d++) {
        const int j = d - (ym->rank - xm->rank), k = d - (ym->rank - ns);
        const int ein = r->din[0] && j >= 0 ? r->din[0][j] : -1;
        const int es = k < 0 ? -1 : sh ? sh->el[k] : cg_x_const(r->b, cv[k]);
        if (k >= 0 && es < 0)
            return refuse(r, "its shape is computed from a size in a way generated C does not follow");
        const bool one = es >= 0 && r->b->xp[es].kind == CG_X_CONST && r->b->xp[es].v == 1;
        if (ein >= 0) {
            if (es >= 0 && !one && es != ein) return refuse(r, "it expands a data-dependent dim to another size");
            r->ext[d] = ein;
        } else {
            const bool in_one = j < 0 || xm->dims[j].value == 1;
            if (es >= 0 && r->b->xp[es].kind != CG_X_CONST && !in_one)
                return refuse(r, "it expands a static dim to a size computed from the data");
            r->ext[d] = es >= 0 && r->b->xp[es].kind != CG_X_CONST ? es : -1;
        }
    }
    return true;
}

/* Range to a limit computed from sizes, from a constant start by 1: its
 * count max(0, limit - start) (the plan folds it at the bound: the valid
 * values come first). */
static bool rule_range(cg_rule_ctx *r) {
    int64_t st, dl;
    const cg_sym *lim = r->sin[1];
    if (const_ints(r->g, r->n, 0, &st, 1) != 1 || const_ints(r->g, r->n, 2, &dl, 1) != 1 || dl != 1 || !lim ||
        lim->n != 1 || lim->el[0] < 0)
        return refuse(r, "only a Range by 1 from a constant start to a limit computed from sizes is taken");
    cg_bounds *b = r->b;
    const int e =
        cg_x_make(b, CG_X_MAX, cg_x_make(b, CG_X_SUB, lim->el[0], cg_x_const(b, st), -1, 0), cg_x_const(b, 0), -1, 0);
    if (e < 0) return oom(r);
    r->ext[0] = b->xp[e].kind == CG_X_CONST ? -1 : e;
    return true;
}

/* ScatterElements: the data's extents carry over; indices and updates may
 * depend on the data along their first dim (one extent: the kernel
 * scatters their valid rows only); along the data's first dim when that
 * depends on the data (torchvision's merge of RoIAlign levels), its indices
 * are taken against the actual extent. */
static bool rule_scatter_elements(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *im = cg_arg_meta(r->n, 1);
    const int *di = r->din[1], *du = r->din[2];
    if (!im || !xm || im->rank != xm->rank) return refuse(r, "its indices' rank differs from the data's");
    for (int d = 0; d < im->rank; d++) {
        const int ei = di ? di[d] : -1, eu = du ? du[d] : -1;
        if (ei != eu || (d > 0 && ei >= 0))
            return refuse(r, "its indices and updates depend on the data along other dims than their first");
    }
    int axis;
    if (!infer_axis(ir_attr_int(r->n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
    if (r->din[0] && r->din[0][axis] >= 0 && axis != 0)
        return refuse(r, "it scatters along a data-dependent dim other than the first");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0] ? r->din[0][d] : -1;
    return true;
}

/* As const_ints, also for a computed static value (cg_static_value). */
static int static_ints(cg_rule_ctx *r, int a, int64_t *v, int max) {
    const int k = const_ints(r->g, r->n, a, v, max);
    nnfx_node *s = a < r->n->nargs && r->n->args[a].kind == NNFX_ARG_NODE ? r->n->args[a].u.node : NULL;
    if (k < 0 && r->sin[a] && !cg_sym_depends(r->b, r->sin[a]) && r->sin[a]->n <= max) { /* sizes that are constants */
        for (int i = 0; i < r->sin[a]->n; i++)
            v[i] = r->b->xp[r->sin[a]->el[i]].v;
        return r->sin[a]->n;
    }
    if (k >= 0 || !s || r->din[a] || r->sin[a]) return k;
    const nnfx_tensor *t = cg_static_value(r->b, s, 8);
    if (!t || nnfx_tensor_numel(t) > max) return -1;
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        v[i] = core_tensor_get_i64(t, i);
    return (int)nnfx_tensor_numel(t);
}

/* Pad with constant pads none of which is on a data-dependent dim. */
static bool rule_pad(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    int64_t pads[2 * NNFX_MAX_RANK], axes[NNFX_MAX_RANK], pb[NNFX_MAX_RANK], pe[NNFX_MAX_RANK];
    const int np = static_ints(r, 1, pads, 2 * NNFX_MAX_RANK);
    const int na = r->n->nargs > 3 && r->n->args[3].kind == NNFX_ARG_NODE ? static_ints(r, 3, axes, NNFX_MAX_RANK) : 0;
    char why[160];
    for (int a = 1; a < r->n->nargs; a++)
        if (r->din[a]) return refuse(r, "its pads or value depend on the data");
    if (np < 0 || na < 0) return refuse(r, "its pads are not constants");
    if (!ir_pad_plan(xm->rank, np, pads, na, na ? axes : NULL, pb, pe, why, sizeof why)) return refuse(r, why);
    for (int d = 0; d < xm->rank; d++) {
        if (r->din[0][d] >= 0 && (pb[d] || pe[d])) return refuse(r, "it pads a data-dependent dim");
        r->ext[d] = r->din[0][d];
    }
    return true;
}

/* CumSum along a constant axis: a running sum over the valid prefix reads
 * no padding; a reversed one along a data-dependent dim reads it, so its
 * padding is filled with 0 first. */
static bool rule_cumsum(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0);
    int64_t av;
    int axis;
    if (r->n->nargs < 2 || r->din[1] || static_ints(r, 1, &av, 1) != 1 || !infer_axis(av, xm->rank, false, &axis))
        return refuse(r, "its axis is not a constant in range");
    for (int d = 0; d < xm->rank; d++)
        r->ext[d] = r->din[0][d];
    if (r->din[0][axis] >= 0 && ir_attr_int(r->n, "reverse") != 0 && add_fill(r->b, r->n, 0, CG_FILL_ZERO, r->err))
        return refuse(r, "too many padding fills");
    return true;
}

/* RoiAlign of a data-dependent number of regions (their boxes and batch
 * indices of one extent): the kernel runs over the actual regions. */
static bool rule_roi_align(cg_rule_ctx *r) {
    const int *dr = r->din[1], *db = r->din[2];
    if (r->din[0]) return refuse(r, "its feature map has a data-dependent dim");
    if (!dr || dr[1] >= 0 || (db && db[0] != dr[0]) ||
        (!db && r->n->nargs > 2 && r->n->args[2].kind == NNFX_ARG_NODE && !cg_arg_is_const(r->n, 2)))
        return refuse(r, "its regions and batch indices do not share one data-dependent count");
    r->ext[0] = dr[0];
    return true;
}

/* A Reshape or Flatten in a loop body merging its input's last dims, some
 * of them sized by data, into its last dim ([K, h, w] -> [K, h * w]): the
 * valid values are compacted to the front of each row (a step of its own,
 * emit_bounded.c); the dims before are kept as they are. */
static bool rule_merge_tail(cg_rule_ctx *r) {
    const nnfx_meta *xm = cg_arg_meta(r->n, 0), *ym = &r->n->meta[0];
    cg_bounds *b = r->b;
    const int ry = ym->rank;
    if (ry < 1 || ry > xm->rank) return refuse(r, "it merges or splits a data-dependent dim");
    for (int d = 0; d < ry - 1; d++) {
        if (xm->dims[d].value != ym->dims[d].value) return refuse(r, "it merges or splits a data-dependent dim");
        r->ext[d] = r->din[0][d];
    }
    int e = cg_x_const(b, 1);
    for (int d = ry - 1; d < xm->rank && e >= 0; d++) {
        const int x = r->din[0][d] >= 0 ? r->din[0][d] : cg_x_const(b, xm->dims[d].value);
        e = cg_x_make(b, CG_X_MUL, e, cg_x_make(b, CG_X_MAX, x, cg_x_const(b, 0), -1, 0), -1, 0);
    }
    if (e < 0) return oom(r);
    if (infer_prod(xm, ry - 1, xm->rank) != ym->dims[ry - 1].value)
        return refuse(r, "it merges or splits a data-dependent dim");
    r->ext[ry - 1] = b->xp[e].kind == CG_X_CONST ? -1 : e;
    return keep_node(b, r->n, r->err) ? refuse(r, "out of memory") : true;
}

static int64_t arg_numel(const nnfx_node *n, int a);

/* Resize to sizes computed from sizes (a loop body's box size): its
 * input static, every size but the last two that of the input; the kernel
 * resamples to the actual sizes at run time (emit_bounded.c), tap modes
 * but tf_crop_and_resize. */
static bool rule_resize_sizes(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_meta *xm = cg_arg_meta(n, 0), *ym = &n->meta[0];
    const cg_sym *sz = r->sin[3];
    const char *ct = ir_attr_string(n, "coordinate_transformation_mode");
    if (r->din[0] || !xm || xm->rank < 2 || sz->n != xm->rank || ym->rank != xm->rank)
        return refuse(r, "it resizes a value whose size depends on the data, or its sizes do not match its rank");
    if ((n->nargs > 2 && n->args[2].kind == NNFX_ARG_NODE && arg_numel(n, 2) != 0) ||
        (ct && !strcmp(ct, "tf_crop_and_resize")) || ir_attr_int(n, "antialias") != 0)
        return refuse(
            r, "a resize to sizes known at run time is generated without scales, tf_crop_and_resize or antialias");
    for (int d = 0; d < xm->rank; d++) {
        const int e = sz->el[d];
        if (e < 0) return refuse(r, "its sizes are computed in a way generated C does not follow");
        const cg_xp *x = &r->b->xp[e];
        if (d < xm->rank - 2 && (x->kind != CG_X_CONST || x->v != xm->dims[d].value))
            return refuse(r, "it resizes a dim other than the last two to a size known at run time");
        r->ext[d] = x->kind == CG_X_CONST ? -1 : e;
    }
    return true;
}

/* Whether argument a of n may be a value computed from sizes (the plan
 * folds it at the bound; the rule sizes the output from its extents). */
static bool sym_param(const nnfx_node *n, int a) {
    switch (n->op) {
    case NNFX_OP_TOPK: return a == 1;
    case NNFX_OP_CONSTANT_OF_SHAPE: return a == 0;
    case NNFX_OP_SLICE: return a >= 1 && a <= 2;
    case NNFX_OP_RESHAPE:
    case NNFX_OP_EXPAND:
    case NNFX_OP_RANGE: return a == 1;
    case NNFX_OP_RESIZE: return a == 3;
    default: return false;
    }
}

static bool apply_rule(cg_rule_ctx *r) {
    const nnfx_node *n = r->n;
    const nnfx_op_info *info = ir_op_info(n->op);
    if (n->nout != 1 && n->op != NNFX_OP_TOPK && n->op != NNFX_OP_SPLIT)
        return refuse(r, "a node of several outputs (of which only TopK and Split are taken)");
    for (int d = 0; d < NNFX_MAX_RANK; d++)
        r->ext[d] = -1;
    for (int a = 0; a < n->nargs; a++) /* a size read as a TopK's K, a shape, a Slice's bounds: below */
        if (r->sin[a] && !sym_param(n, a) && !r->sin[a]->runtime && cg_sym_depends(r->b, r->sin[a]))
            return refuse(r, "it reads the size of a data-dependent value as data (generated C takes such a size only "
                             "as a TopK's K, the shape of a ConstantOfShape, Expand or Reshape, a Slice's ends or a "
                             "Range's limit)");
    bool any_din = false, any_size = false; /* values computed at run time only (a loop body's): static dims */
    for (int a = 0; a < n->nargs; a++)
        any_din |= r->din[a] != NULL, any_size |= r->sin[a] && sym_param(n, a);
    if (!any_din && !any_size) return true;
    switch (n->op) {
    case NNFX_OP_TOPK: return rule_topk(r);
    case NNFX_OP_ROI_ALIGN: return rule_roi_align(r);
    case NNFX_OP_PAD: return rule_pad(r);
    case NNFX_OP_EXPAND: return rule_expand(r);
    case NNFX_OP_RANGE: return rule_range(r);
    case NNFX_OP_SCATTER_ELEMENTS: return rule_scatter_elements(r);
    case NNFX_OP_CONSTANT_OF_SHAPE: return rule_constant_of_shape(r);
    case NNFX_OP_SPLIT: return rule_split(r);
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
        if (!r->din[0]) return refuse(r, "its shape is computed from a data-dependent size but its input's is static");
        if (!rule_view(r))
            return r->b->loop && n->op != NNFX_OP_SQUEEZE && n->op != NNFX_OP_UNSQUEEZE && rule_merge_tail(r);
        return n->op != NNFX_OP_RESHAPE || !r->sin[1] || reshape_to_sizes(r);
    case NNFX_OP_GATHER: return rule_gather(r);
    case NNFX_OP_GATHER_ND: return rule_gather_nd(r);
    case NNFX_OP_GEMM:
    case NNFX_OP_MATMUL: return rule_matmul(r);
    case NNFX_OP_ARGMAX:
    case NNFX_OP_ARGMIN: return rule_reduce(r);
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX: return rule_softmax(r);
    case NNFX_OP_SLICE: return rule_slice(r);
    case NNFX_OP_CUM_SUM: return rule_cumsum(r);
    case NNFX_OP_CONCAT: return rule_concat(r);
    case NNFX_OP_RESIZE: /* to sizes computed at run time, or along the batch when it keeps it */
        if (n->nargs > 3 && r->sin[3]) return rule_resize_sizes(r);
        if (cg_arg_meta(n, 0)->rank < 3 || n->meta[0].dims[0].value != cg_arg_meta(n, 0)->dims[0].value ||
            n->meta[0].dims[1].value != cg_arg_meta(n, 0)->dims[1].value)
            return refuse(r, "it resizes a data-dependent dim");
        return rule_leading(r, 1);
    case NNFX_OP_CONV:
    case NNFX_OP_CONV_TRANSPOSE:
    case NNFX_OP_INSTANCE_NORM:
    case NNFX_OP_LRN:
    case NNFX_OP_DEPTH_TO_SPACE:
    case NNFX_OP_SPACE_TO_DEPTH:
    case NNFX_OP_AVERAGE_POOL:
    case NNFX_OP_MAX_POOL:
    case NNFX_OP_GLOBAL_AVERAGE_POOL:
    case NNFX_OP_GLOBAL_MAX_POOL:
    case NNFX_OP_BATCH_NORM: return rule_leading(r, 1);
    case NNFX_OP_LAYER_NORM: {
        int axis;
        const nnfx_meta *xm = cg_arg_meta(n, 0);
        if (!infer_axis(ir_attr_int(n, "axis"), xm->rank, false, &axis)) return refuse(r, "its axis is out of range");
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

bool cg_bound_source(const nnfx_graph *g, const nnfx_node *n) {
    nnfx_meta m[4] = {{0}};
    int dd[4];
    bool padded;
    return bound_of(g, n, m, dd, &padded);
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

/* The computed values n reads (not parameters, model inputs or sizes),
 * comma-separated, into buf. */
static void data_args(const cg_bounds *b, const nnfx_node *n, char *buf, size_t len) {
    size_t k = 0;
    buf[0] = 0;
    for (int a = 0; a < n->nargs; a++) {
        const nnfx_node *v = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
        if (v && v->opcode == NNFX_CALL_FUNCTION && !cg_sym_of(b, v) && k + strlen(v->name) + 2 < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "", v->name);
    }
}

/* NNFX_ERR_UNSUPPORTED: node n reads a data-dependent value and why it
 * cannot be generated, with the --outputs that generate the part before. */
static nnfx_status refuse_node(const cg_bounds *b, const nnfx_node *n, const char *why, nnfx_error *err) {
    char before[256] = "";
    if (!b->loop) data_args(b, n, before, sizeof before); /* a body's values are no model's outputs */
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
    /* a NonZero of the same value as an earlier one has its extents (torchvision takes boxes and scores
     * through two NonZeros of one mask): values of both then meet */
    int same = id;
    for (int i = 0; i < id && n->op == NNFX_OP_NON_ZERO; i++)
        if (b->src[i]->op == NNFX_OP_NON_ZERO && b->src[i]->args[0].kind == NNFX_ARG_NODE &&
            n->args[0].kind == NNFX_ARG_NODE && b->src[i]->args[0].u.node == n->args[0].u.node) {
            same = i;
            break;
        }
    nnfx_status st = NNFX_OK;
    for (int k = 0; k < n->nout && !st; k++) {
        int ext[NNFX_MAX_RANK];
        for (int d = 0; d < NNFX_MAX_RANK; d++) {
            ext[d] = -1;
            if (d != dd[k]) continue;
            if ((ext[d] = cg_x_make(b, CG_X_SRC, -1, -1, -1, (same * 4 + k) * NNFX_MAX_RANK + d)) < 0)
                return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
            b->xp[ext[d]].at_bound = b->xp[ext[d]].hi = m[k].dims[d].value;
        }
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

/* A NonMaxSuppression whose boxes [B, N, 4] and scores [B, C, N] depend
 * on the data along N alone (the same extent): it runs over the actual N. */
static bool nms_over_extent(const nnfx_node *n, const int *const *din) {
    if (n->op != NNFX_OP_NMS || !din[0] || n->nargs < 2 || !din[1]) return false;
    for (int a = 2; a < n->nargs; a++)
        if (din[a]) return false;
    for (int d = 0; d < 3; d++)
        if ((d != 1 && din[0][d] >= 0) || (d != 2 && din[1][d] >= 0)) return false;
    return din[0][1] >= 0 && din[0][1] == din[1][2];
}

/* The dims of node n's output (rank of them) whose extents ext holds
 * must be at their bound where the static shape has it; false when a
 * rule's extents disagree with the inferred shape. */
static bool extents_match(const cg_bounds *b, const nnfx_meta *m, const int *ext) {
    for (int d = 0; d < m->rank; d++)
        if (ext[d] >= 0 && b->xp[ext[d]].at_bound != m->dims[d].value) return false;
    return true;
}

/* Whether body input p (a captured value with data-dependent rows) is read
 * only as row `iter` (the trip number): Gather along axis 0 at it. */
static bool read_at_trip(const nnfx_node *p, const nnfx_node *iter) {
    for (int u = 0; u < p->nusers; u++) {
        const nnfx_node *r = p->users[u];
        if (r->opcode != NNFX_CALL_FUNCTION || r->op != NNFX_OP_GATHER || r->nargs != 2 ||
            r->args[0].kind != NNFX_ARG_NODE || r->args[0].u.node != p || r->args[1].kind != NNFX_ARG_NODE ||
            r->args[1].u.node != iter || ir_attr_int(r, "axis") != 0)
            return false;
    }
    return true;
}

static nnfx_status walk(nnfx_graph *g, cg_bounds *b, nnfx_error *err);

/* The bounds of the body (layout cs) of Loop r->n, whose shapes depend on
 * data it reads (a box's size): the body's own cg_bounds (in r->b's
 * bodies), its data roots within their intervals, the values they size at
 * the most those allow; the Loop's scan outputs take its results' bounds. */
static nnfx_status bound_body(cg_rule_ctx *r, const ir_ctrl_shape *cs) {
    cg_bounds *b = r->b, *bb;
    if (b->nbodies == b->bodycap) {
        int cap = b->bodycap ? 2 * b->bodycap : 4;
        cg_bounds **v = realloc(b->bodies, sizeof *v * (size_t)cap);
        if (!v) return nnfx_error_set(r->err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->bodies = v, b->bodycap = cap;
    }
    if (!(bb = calloc(1, sizeof *bb))) return nnfx_error_set(r->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    b->bodies[b->nbodies++] = bb;
    bb->graph = cs->body[0], bb->loop = r->n, bb->parent = b, bb->depth = b->depth + 1;
    nnfx_status st = walk(cs->body[0], bb, r->err);
    if (st == NNFX_ERR_UNSUPPORTED && r->err) { /* name the Loop first */
        char inner[sizeof r->err->msg];
        snprintf(inner, sizeof inner, "%s", strncmp(r->err->msg, "codegen: ", 9) ? r->err->msg : r->err->msg + 9);
        nnfx_error_set(r->err, st, "codegen: node %s (Loop): in its body: %s", r->n->name, inner);
    }
    if (st) return st;
    nnfx_node *n = (nnfx_node *)r->n;
    const nnfx_node *o = nnfx_graph_output_node(cs->body[0]);
    for (int j = 0; j < cs->nscan_out && o && 1 + cs->ncarried + j < o->nargs; j++) { /* [trips, item...] */
        const nnfx_arg *a = &o->args[1 + cs->ncarried + j];
        nnfx_meta *m = &n->meta[cs->ncarried + j];
        if (a->kind != NNFX_ARG_NODE || m->rank < 1) continue;
        const nnfx_meta *im = &a->u.node->meta[0];
        const nnfx_dim trips = m->dims[0];
        if (im->rank + 1 > NNFX_MAX_RANK) continue;
        m->dtype = im->dtype, m->rank = im->rank + 1, m->dims[0] = trips;
        for (int d = 0; d < im->rank; d++)
            m->dims[1 + d] = im->dims[d];
    }
    return NNFX_OK;
}

/* A Loop reading data-dependent values: one whose trip count is such a
 * count (a loop over detections), that runs all its trips, whose carried
 * values are static and whose body reads a captured value with
 * data-dependent rows only at the trip number (rows below the count are
 * valid). Its body's shapes are then static, or sized by numbers the body
 * reads from data (bound_body); its scan outputs get the count as their
 * first dim's extent (generated C runs the count's trips). */
static nnfx_status bound_loop(cg_rule_ctx *r) {
    nnfx_node *n = (nnfx_node *)r->n;
    ir_ctrl_shape cs;
    nnfx_error ierr = {0};
    if (ir_ctrl_layout(n, &cs, &ierr)) return refuse_node(r->b, n, "its operands do not match its body", r->err);
    const cg_sym *m = r->sin[0];
    const int trip = !r->din[0] && m && m->n == 1 ? m->el[0] : -1;
    if (trip < 0 || r->b->xp[trip].kind == CG_X_CONST)
        return refuse_node(r->b, n,
                           "a Loop reading such a value is generated when its trip count is such a value's count "
                           "(a loop over its rows), and this one's is not",
                           r->err);
    if (!cg_loop_runs_all_trips(r->g, n, cs.body[0]))
        return refuse_node(r->b, n, "a Loop over such a count whose condition may stop it early", r->err);
    const nnfx_node *iter = nnfx_graph_input(cs.body[0], 0);
    for (int a = 1; a < n->nargs; a++) {
        const bool capture = a >= cs.first_capture;
        if (r->sin[a] && cg_sym_depends(r->b, r->sin[a]))
            return refuse_node(r->b, n, "its body reads a size computed from such a value", r->err);
        if (!r->din[a]) continue;
        bool rows_only = r->din[a][0] == trip;
        for (int d = 1; d < NNFX_MAX_RANK; d++)
            rows_only &= r->din[a][d] < 0;
        const nnfx_node *p = capture ? nnfx_graph_input(cs.body[0], cs.nformal + (a - cs.first_capture)) : NULL;
        if (!capture || !rows_only || !p || !iter || !read_at_trip(p, iter))
            return refuse_node(r->b, n,
                               capture ? "its body reads a value whose rows depend on the data other than as the row "
                                         "at the trip number, of a count equal to the trip count"
                                       : "a loop-carried value whose size depends on the data",
                               r->err);
    }
    for (int k = cs.ncaptures - 1; k >= 0; k--) { /* captured values known now: constants of the body */
        const int a = cs.first_capture + k;
        nnfx_node *src = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
        const cg_sym *sy = src ? cg_sym_of(r->b, src) : NULL;
        const nnfx_tensor *t = !src || r->din[a] ? NULL
                               : sy              ? (cg_sym_depends(r->b, sy) ? NULL : src->pass_data)
                                                 : cg_static_value(r->b, src, 8);
        nnfx_status cst = t ? cg_inline_capture(n, k, (nnfx_tensor *)t, r->err) : NNFX_OK;
        if (cst) return cst;
    }
    if (ir_ctrl_layout(n, &cs, &ierr)) return refuse_node(r->b, n, "its operands do not match its body", r->err);
    nnfx_tensor *known[1] = {NULL};
    if (ir_infer_node(n, known, false, NULL, &ierr))
        return refuse_node(r->b, n, "its shapes do not follow from the bound", r->err);
    for (bool changed = true; changed;) { /* values it grows whose shapes follow only from the bounds */
        nnfx_status ast = cg_loop_append_in((nnfx_graph *)r->g, n, &changed, r->err);
        if (ast) return ast;
        if (changed && (ir_ctrl_layout(n, &cs, &ierr) || ir_infer_node(n, known, false, NULL, &ierr)))
            return refuse_node(r->b, n, "its shapes do not follow from the bound", r->err);
    }
    nnfx_status bst = cg_first_unsized(cs.body[0]) ? bound_body(r, &cs) : NNFX_OK;
    if (bst) return bst;
    const nnfx_node *varying = cg_first_unsized(cs.body[0]);
    if (varying) {
        snprintf(r->why, r->wlen,
                 "its body computes a value whose shape depends on data the body reads (node %.60s (%s): sizes "
                 "read from values, or a value that changes from trip to trip), and generated C has static shapes",
                 varying->name, ir_op_info(varying->op)->onnx_type);
        return refuse_node(r->b, n, r->why, r->err);
    }
    /* a negative trip count runs no trip (count - 1 of an empty selection): the scan outputs' rows are
     * max(trip count, 0) */
    const int zero = cg_x_const(r->b, 0), rows = zero < 0 ? -1 : cg_x_make(r->b, CG_X_MAX, trip, zero, -1, 0);
    if (rows < 0) return nnfx_error_set(r->err, NNFX_ERR_NOMEM, "codegen: out of memory");
    for (int k = 0; k < n->nout; k++)
        if (!nnfx_meta_is_static(&n->meta[k]) ||
            (k >= cs.ncarried && n->meta[k].dims[0].value != r->b->xp[rows].at_bound))
            return refuse_node(r->b, n, "its shapes do not follow from the bound", r->err);
    int ext[NNFX_MAX_RANK];
    for (int d = 0; d < NNFX_MAX_RANK; d++)
        ext[d] = d == 0 ? rows : -1;
    nnfx_status st = keep_node(r->b, n, r->err);
    if (n->nout == 1) return st ? st : cs.ncarried ? NNFX_OK : add_dyn(r->b, n, ext, n->meta[0].rank, r->err);
    for (int u = 0; u < n->nusers && !st; u++) {
        nnfx_node *gi = n->users[u];
        if (gi->opcode != NNFX_CALL_FUNCTION || gi->op != NNFX_OP_GETITEM || gi->args[1].kind != NNFX_ARG_INT ||
            gi->args[1].u.i < 0 || gi->args[1].u.i >= n->nout)
            continue;
        gi->meta[0] = n->meta[gi->args[1].u.i];
        if (gi->args[1].u.i >= cs.ncarried) st = add_dyn(r->b, gi, ext, gi->meta[0].rank, r->err);
    }
    return st;
}

/* Whether value v, or what small integer arithmetic and moves make of it
 * (depth: steps left), sizes a value: a Slice's starts or ends, a shape, a
 * Resize's sizes, a TopK's K, a Range's limit. */
static bool sizes_a_value(const nnfx_node *v, int depth) {
    for (int u = 0; u < v->nusers && depth > 0; u++) {
        const nnfx_node *r = v->users[u];
        if (r->opcode != NNFX_CALL_FUNCTION) continue;
        for (int a = 0; a < r->nargs; a++)
            if (r->args[a].kind == NNFX_ARG_NODE && r->args[a].u.node == v && sym_param(r, a)) return true;
        switch (r->op) {
        case NNFX_OP_IDENTITY:
        case NNFX_OP_RESHAPE:
        case NNFX_OP_SQUEEZE:
        case NNFX_OP_UNSQUEEZE:
        case NNFX_OP_CAST:
        case NNFX_OP_CONCAT:
        case NNFX_OP_GATHER:
        case NNFX_OP_ADD:
        case NNFX_OP_SUB:
        case NNFX_OP_MUL:
        case NNFX_OP_DIV:
        case NNFX_OP_MOD:
        case NNFX_OP_MIN:
        case NNFX_OP_MAX:
        case NNFX_OP_CLIP:
        case NNFX_OP_REDUCE_MIN:
        case NNFX_OP_REDUCE_MAX:
            if (nnfx_meta_is_static(&r->meta[0]) && nnfx_meta_numel(&r->meta[0]) <= CG_SYM_MAX &&
                sizes_a_value(r, depth - 1))
                return true;
            break;
        default: break;
        }
    }
    return false;
}

/* Whether n is a small integer value computed from data at run time (in a
 * Loop body: a box's coordinates read at the trip number; in the model's
 * graph: one that sizes a value, sizes_a_value): its elements become
 * CG_X_DATA extents its readers may size dims with. */
static bool data_root(cg_bounds *b, nnfx_node *n) {
    const nnfx_meta *m = &n->meta[0];
    if ((!b->loop && !sizes_a_value(n, 8)) || n->opcode != NNFX_CALL_FUNCTION || n->nout != 1 || ir_op_is_ctrl(n->op) ||
        n->op == NNFX_OP_GETITEM || !nnfx_meta_is_static(m) || nnfx_meta_numel(m) < 1 ||
        nnfx_meta_numel(m) > CG_SYM_MAX || (m->dtype != NNFX_I64 && m->dtype != NNFX_I32))
        return false;
    bool reads_data = false;
    for (int a = 0; a < n->nargs; a++)
        reads_data |= !cg_arg_is_const(n, a);
    return reads_data && !cg_static_value(b, n, 8);
}

/* Whether n computes a small integer value from values read from data
 * (runtime sizes, din none) by an op sizes.c does not follow (Div, Mod...):
 * its value read at run time is a data root. */
static bool data_root_over(cg_bounds *b, nnfx_node *n, const int *const *din, const cg_sym *const *sin) {
    for (int a = 0; a < n->nargs; a++)
        if (din[a] || (sin[a] && !sin[a]->runtime)) return false;
    switch (n->op) {
    case NNFX_OP_DIV:
    case NNFX_OP_MOD:
    case NNFX_OP_FLOOR:
    case NNFX_OP_CEIL:
    case NNFX_OP_ROUND:
    case NNFX_OP_ABS:
    case NNFX_OP_NEG:
    case NNFX_OP_CLIP:
    case NNFX_OP_CAST: return data_root(b, n); /* a Cast sizes.c does not follow: from float */
    default: return false;
    }
}

/* Enters data root n: its elements as CG_X_DATA extents within their
 * intervals (unknown when unbounded). */
static nnfx_status add_root(cg_bounds *b, nnfx_node *n, nnfx_error *err) {
    if (b->nroot == b->rootcap) {
        int cap = b->rootcap ? 2 * b->rootcap : 16;
        const nnfx_node **r = realloc(b->root, sizeof *r * (size_t)cap);
        if (!r) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->root = r, b->rootcap = cap;
    }
    b->root[b->nroot] = n;
    cg_sym sy = {n, (int)nnfx_meta_numel(&n->meta[0]), {0}, true};
    for (int k = 0; k < sy.n; k++) {
        double lo, hi;
        sy.el[k] = -1;
        if (!cg_interval(b, n, k, &lo, &hi) || lo < -4e18 || hi > 4e18) continue;
        const int e = cg_x_make(b, CG_X_DATA, -1, -1, -1, (int64_t)b->nroot * CG_SYM_MAX + k);
        if (e < 0) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->xp[e].lo = (int64_t)floor(lo), b->xp[e].hi = b->xp[e].at_bound = (int64_t)ceil(hi);
        b->xp[e].nonneg = lo >= 0;
        sy.el[k] = e;
    }
    b->nroot++;
    return cg_add_sym(b, n, &sy, err);
}

/* Node n reads values whose dims depend on the data (din) or small
 * integers computed from their sizes (sin): it is inferred again from the
 * bounds and entered in b, or refused (the error names it). */
static nnfx_status bound_node(nnfx_graph *g, cg_bounds *b, nnfx_node *n, const int *const *din,
                              const cg_sym *const *sin, nnfx_error *err) {
    char why[240] = "";
    nnfx_error ierr = {0};
    nnfx_tensor *known[1] = {NULL}; /* shape inference reads the values at the bound (pass_data) */
    cg_sym sy;
    int ext[NNFX_MAX_RANK];
    cg_rule_ctx r = {g, b, n, din, sin, ext, why, sizeof why, err};
    bool any_sin = false;
    for (int a = 0; a < n->nargs; a++)
        any_sin |= sin[a] != NULL;
    if (n->op == NNFX_OP_LOOP) return bound_loop(&r);
    if (ir_op_is_ctrl(n->op)) {
        int64_t v;
        const cg_sym *c0 = sin[0];
        if (n->op == NNFX_OP_IF && !din[0] && n->nout == 1 &&
            ((c0 && c0->n == 1 && c0->el[0] >= 0 && b->xp[c0->el[0]].kind == CG_X_CONST) ||
             (!c0 && const_ints(g, n, 0, &v, 1) == 1))) { /* a condition known now: the branch it takes */
            const int64_t cv = c0 ? b->xp[c0->el[0]].v : v;
            return cg_inline_branch(g, n, cv != 0 ? 0 : 1, err);
        }
        return refuse_node(b, n,
                           n->op == NNFX_OP_IF ? "an If whose condition is not known at generation (and whose branches "
                                                 "are not an empty constant and a computation)"
                                               : "a control-flow node",
                           err);
    }
    const bool source = n->op == NNFX_OP_NON_ZERO || nms_over_extent(n, din);
    if (source) {
        nnfx_meta m[4] = {{0}};
        int dd[4] = {-1, -1, -1, -1};
        bool padded;
        if (any_sin || ir_infer_node(n, known, false, NULL, &ierr) || !bound_of(g, n, m, dd, &padded))
            return refuse_node(b, n, "its input's bound is not static", err);
        nnfx_status st = add_source(b, n, m, dd, padded, err);
        if (!st) b->src_dyn_in[b->nsrc - 1] = true;
        return st;
    }
    for (int a = 0; a < n->nargs; a++) /* a size read from data the intervals do not bound */
        for (int i = 0; sin[a] && sin[a]->runtime && sym_param(n, a) && i < sin[a]->n; i++)
            if (sin[a]->el[i] < 0)
                return refuse_node(b, n,
                                   "a size it takes is read from data that has no range generated C can find (it "
                                   "follows values from constants through clamps such as Max, Min and Clip, "
                                   "arithmetic and moves of data; a model input's values have none: clamp them, as "
                                   "detection heads clip boxes to the image)",
                                   err);
    for (int a = 0; a < n->nargs; a++) /* static values its shape is read from (a Shape of a static value) */
        if (n->args[a].kind == NNFX_ARG_NODE && !din[a] && !sin[a]) cg_static_value(b, n->args[a].u.node, 8);
    if (ir_infer_node(n, known, false, NULL, &ierr) || !nnfx_meta_is_static(&n->meta[0])) {
        snprintf(why, sizeof why, "its shape does not follow from the bound%s%.160s", ierr.msg[0] ? ": " : "",
                 ierr.msg);
        return refuse_node(b, n, why, err);
    }
    for (int u = 0; u < n->nusers && n->nout > 1; u++) { /* a multi-output node's getitems */
        nnfx_node *gi = n->users[u];
        if (gi->opcode == NNFX_CALL_FUNCTION && gi->op == NNFX_OP_GETITEM && gi->args[1].kind == NNFX_ARG_INT &&
            gi->args[1].u.i >= 0 && gi->args[1].u.i < n->nout)
            gi->meta[0] = n->meta[gi->args[1].u.i];
    }
    if (cg_sym_rule(&r, &sy)) {
        if (b->loop && (n->op == NNFX_OP_SHAPE || n->op == NNFX_OP_SIZE) && din[0]) {
            /* a loop body's: written at run time from the extents (emit_bounded.c), so read as data too */
            nnfx_status st = keep_node(b, n, err);
            if (st) return st;
            sy.runtime = true;
        }
        return cg_add_sym(b, n, &sy, err);
    }
    if (data_root_over(b, n, din, sin)) return add_root(b, n, err); /* Div, Mod... of values read from data */
    bool dynamic = false; /* reading only constants known from sizes, n is static: nothing to follow */
    for (int a = 0; a < n->nargs; a++)
        dynamic |= din[a] || (sin[a] && cg_sym_depends(b, sin[a]));
    if (!dynamic) return NNFX_OK;
    if (!apply_rule(&r)) return err && err->status ? err->status : refuse_node(b, n, why, err);
    for (int d = 0; d < n->meta[0].rank && n->nout == 1; d++) { /* sized by data: the most its interval allows */
        if (ext[d] < 0 || !b->xp[ext[d]].data) continue;
        const int64_t room = b->xp[ext[d]].at_bound;
        if (room < 0 || room > ((int64_t)1 << 24))
            return refuse_node(b, n, "a dim it sizes from data has no bound generated C can find (or one past 2^24)",
                               err);
        n->meta[0].dims[d].value = room;
    }
    if (!extents_match(b, &n->meta[0], ext))
        return refuse_node(b, n, "generated C's count of a data-dependent dim differs from the bound's shape", err);
    if (n->nout == 1) return add_dyn(b, n, ext, n->meta[0].rank, err);
    for (int u = 0; u < n->nusers; u++) { /* TopK, Split: each output keeps the extents */
        nnfx_node *gi = n->users[u];
        nnfx_status st;
        if (gi->opcode == NNFX_CALL_FUNCTION && gi->op == NNFX_OP_GETITEM &&
            (st = add_dyn(b, gi, ext, gi->meta[0].rank, err)))
            return st;
    }
    return NNFX_OK;
}

nnfx_status cg_set_bounds(nnfx_graph *g, cg_bounds *b, nnfx_error *err) {
    memset(b, 0, sizeof *b);
    b->graph = g;
    nnfx_status st = walk(g, b, err);
    if (st) cg_bounds_free(b);
    return st;
}

const cg_bounds *cg_body_bounds(const cg_bounds *b, const nnfx_graph *body) {
    for (int i = 0; b && i < b->nbodies; i++) {
        if (b->bodies[i]->graph == body) return b->bodies[i];
        const cg_bounds *in = cg_body_bounds(b->bodies[i], body);
        if (in) return in;
    }
    return NULL;
}

/* The nodes of g (b's graph) in order: each reading a value whose size
 * depends on the data is entered in b (bound_node); the sources and, in a
 * Loop body, the data roots too. */
static nnfx_status walk(nnfx_graph *g, cg_bounds *b, nnfx_error *err) {
    for (nnfx_node *n = g->head; n; n = n->next)
        n->pass_data = NULL;
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = g->head, *next; n && !st; n = next) {
        next = n->next;
        if (n->opcode == NNFX_OUTPUT) {               /* a model output holding a size computed from the data */
            for (int a = 0; a < n->nargs && !st; a++) /* (one read from data is computed: a true value) */
                if (n->args[a].kind == NNFX_ARG_NODE && cg_sym_of(b, n->args[a].u.node) &&
                    !cg_sym_of(b, n->args[a].u.node)->runtime && cg_sym_depends(b, cg_sym_of(b, n->args[a].u.node)))
                    st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                        "codegen: model output %d (%s) is the size of a value whose size depends on "
                                        "the input data; generated C does not return such sizes as outputs (its "
                                        "NAME_run_dims reports the dims of the outputs)",
                                        a, n->args[a].u.node->name);
            continue;
        }
        if (n->opcode != NNFX_CALL_FUNCTION || n->op == NNFX_OP_GETITEM) continue;
        const int *din_stack[16], **din = din_stack;
        const cg_sym *sin_stack[16], **sin = sin_stack;
        if (n->nargs > 16 &&
            (!(din = calloc((size_t)n->nargs, sizeof *din)) || !(sin = calloc((size_t)n->nargs, sizeof *sin)))) {
            if (din != din_stack) free(din);
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
            break;
        }
        bool any = false;
        for (int a = 0; a < n->nargs; a++) {
            const nnfx_node *v = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
            din[a] = cg_dyn_of(b, v);
            sin[a] = cg_sym_of(b, v);
            any |= din[a] || sin[a];
        }
        if (any) {
            nnfx_node *before = n->prev;
            const bool inlined = n->op == NNFX_OP_IF;
            st = bound_node(g, b, n, din, sin, err);
            if (!st && inlined) next = before ? before->next : g->head; /* the branch copied in its place */
        } else {
            nnfx_meta m[4] = {{0}};
            int dd[4] = {-1, -1, -1, -1};
            bool padded;
            if (!nnfx_meta_is_static(&n->meta[0]) && !cg_bound_source(g, n)) {
                /* its shape may follow now that values before it have static bounds (a Range to a limit
                 * computed from a static size, then a Reshape of it) */
                nnfx_tensor *known[1] = {NULL};
                nnfx_error ierr = {0};
                for (int a = 0; a < n->nargs; a++)
                    if (n->args[a].kind == NNFX_ARG_NODE) cg_static_value(b, n->args[a].u.node, 8);
                (void)ir_infer_node(n, known, false, NULL, &ierr);
            }
            if (data_root(b, n)) {
                st = add_root(b, n, err);
            } else if (bound_of(g, n, m, dd, &padded)) {
                if (!padded && read_by_nodes(n))
                    st = refuse_node(b, n->users[0],
                                     "its input is compacted across an outer dim (a Compress or Unique along an axis "
                                     "past the first non-1 dim) and only a model output may read it",
                                     err);
                else
                    st = add_source(b, n, m, dd, padded, err);
            }
        }
        if (din != din_stack) free(din);
        if (sin != sin_stack) free(sin);
    }
    cg_release_sym_values(b);
    return st;
}
