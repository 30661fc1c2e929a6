/* sizes.c — small integer values computed from data-dependent extents,
 * for generated C (bounds.c drives it): a Shape or Size of a value whose
 * dims depend on the data, and what Gather, Unsqueeze, Concat, Cast,
 * ReduceMin/Max/Sum/Prod, arithmetic, comparisons, Not and Where make of
 * it, is followed per element as extents (cg_sym, extents.c's
 * expressions). The plan folds these nodes at the bound; only a reader
 * that sizes a dim with them may take them (bounds.c's sym_param). Small
 * static values (a Shape of a static value...) are computed here too, for
 * shape inference of the nodes after a data-dependent one. */
#include <stdlib.h>
#include <string.h>

#include "codegen/bounds_int.h"
#include "codegen/codegen_int.h"
#include "core/core_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* The extents of small integer value v computed from extents (*n of them),
 * NULL when v is not one. */
const cg_sym *cg_sym_of(const cg_bounds *b, const nnfx_node *v) {
    for (int i = 0; b && v && i < b->nsym; i++)
        if (b->sym[i].node == v) return &b->sym[i];
    return NULL;
}

/* Whether sym value sy depends on an extent (an element not a constant or
 * not known); one of constants (a static dim of such a value's shape) is
 * folded at its true value and may be read as data. */
bool cg_sym_depends(const cg_bounds *b, const cg_sym *sy) {
    for (int i = 0; i < sy->n; i++)
        if (sy->el[i] < 0 || b->xp[sy->el[i]].kind != CG_X_CONST) return true;
    return false;
}

/* Element i of argument a of r->n (with `count` elements) as an extent: of a
 * value computed from extents, a constant or a literal; -1 when unknown,
 * -2 on OOM. */
static int arg_el(cg_rule_ctx *r, int a, int64_t i) {
    const nnfx_node *n = r->n;
    if (r->sin[a]) return i < r->sin[a]->n ? r->sin[a]->el[i] : -1;
    if (n->args[a].kind == NNFX_ARG_INT) return cg_x_const(r->b, n->args[a].u.i);
    nnfx_node *s = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
    const nnfx_tensor *t = s && s->opcode == NNFX_GET_ATTR ? nnfx_graph_param(r->g, s->target) : NULL;
    if (!t && s && r->b->loop) t = cg_static_value(r->b, s, 8); /* a loop body's Shape of a static value */
    if (!t || i >= nnfx_tensor_numel(t)) return -1;
    const int e = cg_x_const(r->b, core_tensor_get_i64(t, i));
    return e < 0 ? -2 : e;
}

/* The flat index in an input of meta m (NULL: a literal) that output
 * element i (of meta ym) reads under ONNX broadcasting. */
static int64_t broadcast_index(const nnfx_meta *ym, const nnfx_meta *m, int64_t i) {
    int64_t idx = 0, stride = 1;
    if (!m) return 0; /* a literal: one value */
    for (int d = ym->rank - 1, j = m->rank - 1; d >= 0; d--, j--) {
        const int64_t yd = ym->dims[d].value, k = i % yd;
        i /= yd;
        if (j < 0) continue;
        if (m->dims[j].value != 1) idx += k * stride;
        stride *= m->dims[j].value;
    }
    return idx;
}

static cg_xkind binary_kind(nnfx_op op, bool *swap, bool *negate) {
    *swap = op == NNFX_OP_GREATER || op == NNFX_OP_LESS_OR_EQUAL;
    *negate = op == NNFX_OP_GREATER_OR_EQUAL || op == NNFX_OP_LESS_OR_EQUAL;
    switch (op) {
    case NNFX_OP_ADD: return CG_X_ADD;
    case NNFX_OP_SUB: return CG_X_SUB;
    case NNFX_OP_MUL: return CG_X_MUL;
    case NNFX_OP_MIN: return CG_X_MIN;
    case NNFX_OP_MAX: return CG_X_MAX;
    case NNFX_OP_EQUAL: return CG_X_EQ;
    default: return CG_X_LT; /* Less, Greater, LessOrEqual, GreaterOrEqual */
    }
}

/* Whether r->n computes a small integer value from values computed from
 * extents and constants; its elements' extents (or -1) into *out. */
bool cg_sym_rule(cg_rule_ctx *r, cg_sym *out) {
    const nnfx_node *n = r->n;
    const nnfx_meta *ym = &n->meta[0];
    cg_bounds *b = r->b;
    out->node = n;
    out->runtime = false;
    if (n->nout != 1 || !nnfx_meta_is_static(ym) || nnfx_meta_numel(ym) > CG_SYM_MAX ||
        (ym->dtype != NNFX_I64 && ym->dtype != NNFX_I32 && ym->dtype != NNFX_BOOL))
        return false;
    out->n = (int)nnfx_meta_numel(ym);
    for (int i = 0; i < out->n; i++)
        out->el[i] = -1;
    if (n->op == NNFX_OP_SHAPE || n->op == NNFX_OP_SIZE) { /* of a value whose dims depend on the data */
        const nnfx_meta *xm = cg_arg_meta(n, 0);
        if (!xm || !nnfx_meta_is_static(xm)) return false;
        static const int none[NNFX_MAX_RANK] = {-1, -1, -1, -1, -1, -1, -1, -1};
        const int *ext = r->din[0] ? r->din[0] : none; /* a size computed from sizes has static dims */
        int64_t lo = 0, hi = xm->rank;
        if (n->op == NNFX_OP_SHAPE) ir_shape_op_range(n, xm->rank, &lo, &hi);
        int prod = cg_x_const(b, 1);
        for (int64_t d = lo; d < hi; d++) {
            const int e = ext[d] >= 0 ? ext[d] : cg_x_const(b, xm->dims[d].value);
            if (n->op == NNFX_OP_SHAPE && d - lo < out->n) out->el[d - lo] = e;
            prod = cg_x_make(b, CG_X_MUL, prod, e, -1, 0);
        }
        if (n->op == NNFX_OP_SIZE) out->el[0] = prod;
        return true;
    }
    out->runtime = true;                 /* unless a size the plan folds at the bound reaches it */
    for (int a = 0; a < n->nargs; a++) { /* every other input a constant */
        if (r->din[a] ||
            (!r->sin[a] && !cg_arg_is_const(n, a) && !(r->b->loop && cg_static_value(r->b, n->args[a].u.node, 8))))
            return false;
        if (r->sin[a] && !r->sin[a]->runtime) out->runtime = false;
    }
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    switch (n->op) {
    case NNFX_OP_IDENTITY:
    case NNFX_OP_RESHAPE:
    case NNFX_OP_FLATTEN:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE:
        for (int i = 0; i < out->n; i++)
            out->el[i] = arg_el(r, 0, i);
        break;
    case NNFX_OP_CAST:
        for (int i = 0; i < out->n; i++) {
            const int e = arg_el(r, 0, i);
            out->el[i] =
                e >= 0 && ym->dtype == NNFX_BOOL ? cg_x_make(b, CG_X_SEL, cg_x_const(b, 1), cg_x_const(b, 0), e, 0) : e;
        }
        break;
    case NNFX_OP_GATHER: {
        int axis;
        if (!xm || xm->rank != 1 || !infer_axis(ir_attr_int(n, "axis"), 1, false, &axis)) return true;
        for (int i = 0; i < out->n; i++) {
            int64_t k;
            const int ie = arg_el(r, 1, i);
            if (ie < 0 || b->xp[ie].kind != CG_X_CONST) continue;
            k = b->xp[ie].v;
            if (k < 0) k += xm->dims[0].value;
            if (k >= 0 && k < xm->dims[0].value) out->el[i] = arg_el(r, 0, k);
        }
        break;
    }
    case NNFX_OP_CONCAT: {
        int k = 0;
        if (ym->rank != 1) return true;
        for (int a = 0; a < n->nargs; a++) {
            const nnfx_meta *am = cg_arg_meta(n, a);
            for (int64_t i = 0; am && i < nnfx_meta_numel(am) && k < out->n; i++)
                out->el[k++] = arg_el(r, a, i);
        }
        break;
    }
    case NNFX_OP_REDUCE_MIN:
    case NNFX_OP_REDUCE_MAX:
    case NNFX_OP_REDUCE_SUM:
    case NNFX_OP_REDUCE_PROD: { /* every element into one */
        const cg_xkind k = n->op == NNFX_OP_REDUCE_MIN   ? CG_X_MIN
                           : n->op == NNFX_OP_REDUCE_MAX ? CG_X_MAX
                           : n->op == NNFX_OP_REDUCE_SUM ? CG_X_ADD
                                                         : CG_X_MUL;
        if (out->n != 1 || !xm || nnfx_meta_numel(xm) < 1) return true;
        int acc = arg_el(r, 0, 0);
        for (int64_t i = 1; i < nnfx_meta_numel(xm) && acc >= 0; i++)
            acc = cg_x_make(b, k, acc, arg_el(r, 0, i), -1, 0);
        out->el[0] = acc;
        break;
    }
    case NNFX_OP_CONSTANT_OF_SHAPE: { /* of a shape whose elements are constants: its value everywhere */
        const nnfx_attr *a = nnfx_node_attr(n, "value");
        for (int64_t k = 0; xm && k < nnfx_meta_numel(xm); k++) {
            const int e = arg_el(r, 0, k);
            if (e < 0 || b->xp[e].kind != CG_X_CONST) return false; /* a data-dependent size: rule_constant_of_shape */
        }
        const int64_t v = a && a->kind == NNFX_ATTR_TENSOR && a->u.t && nnfx_tensor_numel(a->u.t) > 0
                              ? core_tensor_get_i64(a->u.t, 0)
                              : 0;
        for (int i = 0; i < out->n; i++)
            out->el[i] = cg_x_const(b, v);
        break;
    }
    case NNFX_OP_NOT:
        for (int i = 0; i < out->n; i++) {
            const int e = arg_el(r, 0, i);
            out->el[i] = e < 0 ? -1 : cg_x_make(b, CG_X_EQ, e, cg_x_const(b, 0), -1, 0);
        }
        break;
    case NNFX_OP_WHERE:
        for (int i = 0; i < out->n; i++) {
            const int c = arg_el(r, 0, broadcast_index(ym, cg_arg_meta(n, 0), i));
            const int x = arg_el(r, 1, broadcast_index(ym, cg_arg_meta(n, 1), i));
            const int y = arg_el(r, 2, broadcast_index(ym, cg_arg_meta(n, 2), i));
            out->el[i] = c < 0 || x < 0 || y < 0 ? -1 : cg_x_make(b, CG_X_SEL, x, y, c, 0);
        }
        break;
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_MIN:
    case NNFX_OP_MAX:
    case NNFX_OP_EQUAL:
    case NNFX_OP_LESS:
    case NNFX_OP_GREATER:
    case NNFX_OP_LESS_OR_EQUAL:
    case NNFX_OP_GREATER_OR_EQUAL: {
        bool swap, negate;
        const cg_xkind k = binary_kind(n->op, &swap, &negate);
        if (n->nargs != 2 && n->op != NNFX_OP_MIN && n->op != NNFX_OP_MAX) return true;
        for (int i = 0; i < out->n; i++) {
            int acc = arg_el(r, 0, broadcast_index(ym, cg_arg_meta(n, 0), i));
            for (int a = 1; a < n->nargs && acc >= 0; a++) {
                const int e = arg_el(r, a, broadcast_index(ym, cg_arg_meta(n, a), i));
                acc = e < 0 ? -1 : swap ? cg_x_make(b, k, e, acc, -1, 0) : cg_x_make(b, k, acc, e, -1, 0);
            }
            if (acc >= 0 && negate) acc = cg_x_make(b, CG_X_EQ, acc, cg_x_const(b, 0), -1, 0);
            out->el[i] = acc < 0 ? -1 : acc;
        }
        break;
    }
    default: return false;
    }
    for (int i = 0; i < out->n; i++)
        if (out->el[i] < -1) out->el[i] = -1;
    return true;
}

/* Adds sym (a copy) to b, and its value at the bound as n's pass_data (what
 * shape inference of its readers sees). */
nnfx_status cg_add_sym(cg_bounds *b, nnfx_node *n, const cg_sym *sy, nnfx_error *err) {
    if (b->nsym == b->symcap) {
        int cap = b->symcap ? 2 * b->symcap : 32;
        cg_sym *v = realloc(b->sym, sizeof *v * (size_t)cap);
        if (!v) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        b->sym = v, b->symcap = cap;
    }
    b->sym[b->nsym++] = *sy;
    const nnfx_meta *m = &n->meta[0];
    for (int i = 0; i < sy->n; i++)
        if (sy->el[i] < 0) return NNFX_OK; /* not known at the bound: readers that need it are refused */
    int64_t dims[NNFX_MAX_RANK];
    for (int d = 0; d < m->rank; d++)
        dims[d] = m->dims[d].value;
    nnfx_tensor *t = nnfx_tensor_new(m->dtype, m->rank, dims, err);
    if (!t) return err && err->status ? err->status : NNFX_ERR_NOMEM;
    for (int i = 0; i < sy->n; i++) {
        const int64_t v = b->xp[sy->el[i]].at_bound;
        if (m->dtype == NNFX_I64)
            ((int64_t *)t->data)[i] = v;
        else if (m->dtype == NNFX_I32)
            ((int32_t *)t->data)[i] = (int32_t)v;
        else
            ((unsigned char *)t->data)[i] = v != 0;
    }
    for (int i = 0; i < b->nfolded; i++) /* folded before it became a sym (an interval query): replaced */
        if (b->folded[i] == n) {
            nnfx_tensor_release((nnfx_tensor *)n->pass_data);
            b->folded[i] = b->folded[--b->nfolded];
            break;
        }
    n->pass_data = t;
    return NNFX_OK;
}

/* Drops the values at the bound that shape inference read (pass_data). */
void cg_release_sym_values(cg_bounds *b) {
    for (int i = 0; i < b->nsym; i++) {
        nnfx_node *n = (nnfx_node *)b->sym[i].node;
        nnfx_tensor_release((nnfx_tensor *)n->pass_data);
        n->pass_data = NULL;
    }
    for (int i = 0; i < b->nfolded; i++) {
        nnfx_tensor_release((nnfx_tensor *)b->folded[i]->pass_data);
        b->folded[i]->pass_data = NULL;
    }
    free(b->folded);
    b->folded = NULL, b->nfolded = b->foldcap = 0;
}

/* The value of v when it is a small static value shape inference can
 * compute (a Shape of a static value, and what Gather, Concat... make of
 * it), kept as v's pass_data for the inference of its readers; NULL when
 * not (depth: recursion left). */
const nnfx_tensor *cg_static_value(cg_bounds *b, nnfx_node *v, int depth) {
    const cg_sym *sy = cg_sym_of(b, v);
    if (sy && sy->runtime && cg_sym_depends(b, sy)) return NULL; /* read from data: its pass_data is its most */
    if (v->pass_data) return v->pass_data;
    if (depth <= 0 || v->opcode != NNFX_CALL_FUNCTION || v->nout != 1 || ir_op_is_ctrl(v->op) || cg_dyn_of(b, v) ||
        !nnfx_meta_is_static(&v->meta[0]) || nnfx_meta_numel(&v->meta[0]) > 64)
        return NULL;
    for (int a = 0; a < v->nargs; a++)
        if (v->args[a].kind == NNFX_ARG_NODE && v->args[a].u.node->opcode == NNFX_CALL_FUNCTION &&
            !(v->op == NNFX_OP_SHAPE || v->op == NNFX_OP_SIZE) && !cg_static_value(b, v->args[a].u.node, depth - 1))
            return NULL;
    if (b->nfolded == b->foldcap) {
        int cap = b->foldcap ? 2 * b->foldcap : 32;
        nnfx_node **f = realloc(b->folded, sizeof *f * (size_t)cap);
        if (!f) return NULL;
        b->folded = f, b->foldcap = cap;
    }
    nnfx_tensor *known[1] = {NULL}, *val = NULL;
    nnfx_error e = {0};
    const nnfx_meta keep = v->meta[0], *xm = cg_arg_meta(v, 0);
    if ((v->op == NNFX_OP_SHAPE || v->op == NNFX_OP_SIZE) && xm && nnfx_meta_is_static(xm)) { /* from the dims */
        int64_t lo = 0, hi = xm->rank, k = hi - lo, prod = 1;
        if (v->op == NNFX_OP_SHAPE) ir_shape_op_range(v, xm->rank, &lo, &hi), k = hi - lo;
        if (!(val = nnfx_tensor_new(NNFX_I64, v->op == NNFX_OP_SHAPE ? 1 : 0, &k, &e))) return NULL;
        for (int64_t d = 0; d < xm->rank; d++)
            prod *= xm->dims[d].value;
        for (int64_t d = lo; d < hi && v->op == NNFX_OP_SHAPE; d++)
            ((int64_t *)val->data)[d - lo] = xm->dims[d].value;
        if (v->op == NNFX_OP_SIZE) ((int64_t *)val->data)[0] = prod;
    } else if (ir_infer_node(v, known, true, &val, &e) || !val) {
        v->meta[0] = keep;
        return NULL;
    }
    v->pass_data = val;
    b->folded[b->nfolded++] = v;
    return val;
}
