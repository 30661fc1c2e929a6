/* intervals.c — the range of values a computed value may hold, for the
 * sizes a Loop body reads from data (bounds.c gives the values they size
 * the most room this range allows; generated C checks the actual size).
 * Interval arithmetic over one element or the whole tensor: constants and
 * static values exactly, sizes computed from extents by their extents'
 * intervals, clamps (Max, Min, Clip, Relu), + - * /, monotone maps, casts
 * and data moves (views, Gather, Concat, Slice...) of their inputs; in a
 * Loop body, a captured value through its Loop's operand. Anything else
 * (a model input, a sum) is unbounded (infinite ends). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/bounds_int.h"
#include "codegen/codegen_int.h"
#include "core/core_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

#define IV_DEPTH 256 /* recursion left for one query: long chains of ops end unbounded */

typedef struct iv {
    double lo, hi;
} iv;

static const iv iv_all = {-INFINITY, INFINITY};

static iv iv_join(iv a, iv b) { return (iv){fmin(a.lo, b.lo), fmax(a.hi, b.hi)}; }

/* The extremes of a op b over the corners of two intervals (NaN corners,
 * inf * 0, count as unbounded). */
static iv corners(iv a, iv b, nnfx_op op) {
    const double x[2] = {a.lo, a.hi}, y[2] = {b.lo, b.hi};
    iv r = {INFINITY, -INFINITY};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double v = op == NNFX_OP_MUL ? x[i] * y[j] : x[i] / y[j];
            if (v != v) return iv_all;
            r.lo = fmin(r.lo, v), r.hi = fmax(r.hi, v);
        }
    return r;
}

/* One query's memo: (node, element) -> interval, open addressing. */
#define IV_SLOTS 4096
typedef struct ivctx {
    const nnfx_node *node[IV_SLOTS];
    int64_t k[IV_SLOTS];
    iv val[IV_SLOTS];
    int used;
} ivctx;

static iv iv_of(ivctx *x, cg_bounds *b, const nnfx_node *v, int64_t k, int depth);

/* The element of input a of n that output element k reads under ONNX
 * broadcasting when it is one element (the input has one element, or the
 * output's count), else -1 (the whole input). */
static int64_t bcast_elem(const nnfx_node *n, int a, int64_t k) {
    const nnfx_meta *m = cg_arg_meta(n, a);
    if (k < 0 || !m || !nnfx_meta_is_static(m)) return -1;
    const int64_t c = nnfx_meta_numel(m);
    return c == 1 ? 0 : c == nnfx_meta_numel(&n->meta[0]) ? k : -1;
}

static iv arg_iv(ivctx *x, cg_bounds *b, const nnfx_node *n, int a, int64_t k, int depth) {
    if (a >= n->nargs || n->args[a].kind == NNFX_ARG_NONE) return iv_all;
    if (n->args[a].kind == NNFX_ARG_INT) return (iv){(double)n->args[a].u.i, (double)n->args[a].u.i};
    if (n->args[a].kind == NNFX_ARG_FLOAT) return (iv){n->args[a].u.f, n->args[a].u.f};
    if (n->args[a].kind != NNFX_ARG_NODE) return iv_all;
    return iv_of(x, b, n->args[a].u.node, k, depth);
}

/* The interval of the elements of t (element k, or all when k < 0). */
static iv tensor_iv(const nnfx_tensor *t, int64_t k) {
    const int64_t n = nnfx_tensor_numel(t);
    if (n == 0) return iv_all;
    iv r = {INFINITY, -INFINITY};
    for (int64_t i = k >= 0 && k < n ? k : 0; i < n; i++) {
        const double v = t->dtype == NNFX_I64 ? (double)((const int64_t *)t->data)[i] : nnfx_tensor_get(t, i);
        if (v != v) return iv_all;
        r.lo = fmin(r.lo, v), r.hi = fmax(r.hi, v);
        if (k >= 0 && k < n) break;
    }
    return r;
}

/* A Loop body's input: its trip number, or the Loop's operand it captures. */
static iv body_input_iv(ivctx *x, cg_bounds *b, const nnfx_node *v, int64_t k, int depth) {
    if (!b->loop || !b->parent) return iv_all;
    ir_ctrl_shape cs;
    nnfx_error e = {0};
    if (ir_ctrl_layout((nnfx_node *)b->loop, &cs, &e)) return iv_all;
    for (int j = 0; j < cs.nformal + cs.ncaptures; j++) {
        if (nnfx_graph_input(cs.body[0], j) != v) continue;
        if (j == 0) return (iv){0, INFINITY}; /* the trip number */
        if (j < cs.nformal) return iv_all;    /* the condition, a carried value */
        return arg_iv(x, b->parent, b->loop, cs.first_capture + j - cs.nformal, k, depth);
    }
    return iv_all;
}

/* The interval of an op's output from its inputs'. */
static iv op_iv(ivctx *x, cg_bounds *b, const nnfx_node *n, int64_t k, int depth) {
    const nnfx_meta *xm = cg_arg_meta(n, 0);
    switch (n->op) {
    case NNFX_OP_IDENTITY:
    case NNFX_OP_RESHAPE:
    case NNFX_OP_FLATTEN:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE: return arg_iv(x, b, n, 0, k, depth); /* row-major order kept */
    case NNFX_OP_TRANSPOSE:
    case NNFX_OP_EXPAND:
    case NNFX_OP_SLICE:
    case NNFX_OP_TILE:
    case NNFX_OP_GATHER_ND:
    case NNFX_OP_GATHER_ELEMENTS:
    case NNFX_OP_SPLIT:
    case NNFX_OP_TOPK:
    case NNFX_OP_REDUCE_MAX:
    case NNFX_OP_REDUCE_MIN:
    case NNFX_OP_REDUCE_MEAN:
    case NNFX_OP_MAX_POOL:
    case NNFX_OP_COMPRESS: return arg_iv(x, b, n, 0, -1, depth);
    case NNFX_OP_GATHER: { /* element k of a vector at a constant index */
        const nnfx_tensor *t = NULL;
        const nnfx_node *ix = n->nargs > 1 && n->args[1].kind == NNFX_ARG_NODE ? n->args[1].u.node : NULL;
        if (ix && ix->opcode == NNFX_GET_ATTR) t = nnfx_graph_param(b->graph, ix->target);
        if (k >= 0 && xm && xm->rank == 1 && t && k < nnfx_tensor_numel(t) && ir_attr_int(n, "axis") == 0) {
            int64_t i = core_tensor_get_i64(t, k);
            if (i < 0) i += xm->dims[0].value;
            if (i >= 0 && i < xm->dims[0].value) return arg_iv(x, b, n, 0, i, depth);
        }
        return arg_iv(x, b, n, 0, -1, depth);
    }
    case NNFX_OP_CONCAT: {
        const nnfx_meta *ym = &n->meta[0];
        int64_t at = 0;
        iv r = {INFINITY, -INFINITY};
        for (int a = 0; a < n->nargs; a++) {
            const nnfx_meta *am = cg_arg_meta(n, a);
            if (k >= 0 && ym->rank == 1 && am && nnfx_meta_is_static(am)) {
                if (k < at + nnfx_meta_numel(am)) return arg_iv(x, b, n, a, k - at, depth);
                at += nnfx_meta_numel(am);
                continue;
            }
            r = iv_join(r, arg_iv(x, b, n, a, -1, depth));
        }
        return r.lo <= r.hi ? r : iv_all;
    }
    case NNFX_OP_WHERE:
        return iv_join(arg_iv(x, b, n, 1, bcast_elem(n, 1, k), depth), arg_iv(x, b, n, 2, bcast_elem(n, 2, k), depth));
    case NNFX_OP_CAST: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        const nnfx_dtype to = n->meta[0].dtype;
        if (to == NNFX_BOOL) return (iv){0, 1};
        if (to == NNFX_F32 || to == NNFX_F64 || to == NNFX_F16) return xv;
        return (iv){trunc(xv.lo), trunc(xv.hi)}; /* to an integer: toward zero */
    }
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_DIV: {
        const iv xv = arg_iv(x, b, n, 0, bcast_elem(n, 0, k), depth),
                 y = arg_iv(x, b, n, 1, bcast_elem(n, 1, k), depth);
        iv r;
        if (n->op == NNFX_OP_ADD)
            r = (iv){xv.lo + y.lo, xv.hi + y.hi};
        else if (n->op == NNFX_OP_SUB)
            r = (iv){xv.lo - y.hi, xv.hi - y.lo};
        else if (n->op == NNFX_OP_MUL)
            r = corners(xv, y, NNFX_OP_MUL);
        else if (y.lo > 0 || y.hi < 0)
            r = corners(xv, y, NNFX_OP_DIV);
        else
            return iv_all; /* a divisor that may be 0 */
        if (r.lo != r.lo || r.hi != r.hi) return iv_all;
        if (n->op == NNFX_OP_DIV && n->meta[0].dtype != NNFX_F32 && n->meta[0].dtype != NNFX_F64)
            r = (iv){floor(r.lo), ceil(r.hi)};
        return r;
    }
    case NNFX_OP_MOD: { /* below the divisor's magnitude; of its sign (fmod 0) or the dividend's (fmod 1) */
        const iv xv = arg_iv(x, b, n, 0, bcast_elem(n, 0, k), depth),
                 y = arg_iv(x, b, n, 1, bcast_elem(n, 1, k), depth);
        if (!(y.lo > 0 || y.hi < 0)) return iv_all;
        const double m = fmax(fabs(y.lo), fabs(y.hi));
        if (ir_attr_int(n, "fmod")) return (iv){xv.lo < 0 ? -m : 0, xv.hi > 0 ? m : 0};
        return y.lo > 0 ? (iv){0, m} : (iv){-m, 0};
    }
    case NNFX_OP_ABS: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        return xv.lo >= 0 ? xv : xv.hi <= 0 ? (iv){-xv.hi, -xv.lo} : (iv){0, fmax(-xv.lo, xv.hi)};
    }
    case NNFX_OP_MAX:
    case NNFX_OP_MIN: {
        iv r = arg_iv(x, b, n, 0, bcast_elem(n, 0, k), depth);
        for (int a = 1; a < n->nargs; a++) {
            const iv y = arg_iv(x, b, n, a, bcast_elem(n, a, k), depth);
            r = n->op == NNFX_OP_MAX ? (iv){fmax(r.lo, y.lo), fmax(r.hi, y.hi)}
                                     : (iv){fmin(r.lo, y.lo), fmin(r.hi, y.hi)};
        }
        return r;
    }
    case NNFX_OP_CLIP: {
        iv r = arg_iv(x, b, n, 0, k, depth);
        if (n->nargs > 1 && n->args[1].kind != NNFX_ARG_NONE) {
            const iv m = arg_iv(x, b, n, 1, 0, depth);
            r = (iv){fmax(r.lo, m.lo), fmax(r.hi, m.lo)};
        }
        if (n->nargs > 2 && n->args[2].kind != NNFX_ARG_NONE) {
            const iv m = arg_iv(x, b, n, 2, 0, depth);
            r = (iv){fmin(r.lo, m.hi), fmin(r.hi, m.hi)};
        }
        return r;
    }
    case NNFX_OP_RELU: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        return (iv){fmax(xv.lo, 0), fmax(xv.hi, 0)};
    }
    case NNFX_OP_NEG: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        return (iv){-xv.hi, -xv.lo};
    }
    case NNFX_OP_FLOOR:
    case NNFX_OP_CEIL:
    case NNFX_OP_ROUND: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        return (iv){floor(xv.lo), ceil(xv.hi)};
    }
    case NNFX_OP_EXP: {
        const iv xv = arg_iv(x, b, n, 0, k, depth);
        return (iv){exp(xv.lo), exp(xv.hi)};
    }
    case NNFX_OP_SIGMOID: return (iv){0, 1};
    default: return iv_all;
    }
}

static iv iv_compute(ivctx *x, cg_bounds *b, const nnfx_node *v, int64_t k, int depth) {
    if (v->opcode == NNFX_GET_ATTR) {
        const nnfx_tensor *t = nnfx_graph_param(b->graph, v->target);
        return t ? tensor_iv(t, k) : iv_all;
    }
    if (v->opcode == NNFX_PLACEHOLDER) return body_input_iv(x, b, v, k, depth - 1);
    if (v->opcode != NNFX_CALL_FUNCTION) return iv_all;
    const cg_sym *sy = cg_sym_of(b, v);
    if (sy) { /* a size computed from extents: its extents' intervals */
        iv r = {INFINITY, -INFINITY};
        for (int i = k >= 0 ? (int)k : 0; i < sy->n && (k < 0 || i == k); i++) {
            if (sy->el[i] < 0) return iv_all;
            const cg_xp *e = &b->xp[sy->el[i]];
            r = iv_join(
                r, (iv){e->lo == INT64_MIN ? -INFINITY : (double)e->lo, e->hi == INT64_MAX ? INFINITY : (double)e->hi});
        }
        return r.lo <= r.hi ? r : iv_all;
    }
    if (!cg_dyn_of(b, v)) {
        const nnfx_tensor *t = cg_static_value(b, (nnfx_node *)v, 8);
        if (t) return tensor_iv(t, k);
    }
    if (v->op == NNFX_OP_GETITEM) { /* a Split's piece, a TopK's values */
        const nnfx_node *src = v->args[0].kind == NNFX_ARG_NODE ? v->args[0].u.node : NULL;
        if (!src || src->opcode != NNFX_CALL_FUNCTION) return iv_all;
        if (src->op == NNFX_OP_SPLIT || (src->op == NNFX_OP_TOPK && v->args[1].u.i == 0))
            return arg_iv(x, b, src, 0, -1, depth - 1);
        return iv_all;
    }
    return op_iv(x, b, v, k, depth - 1);
}

/* iv_compute, each (node, element) once per query (a value read twice,
 * x - x, would otherwise double the walk per level). */
static iv iv_of(ivctx *x, cg_bounds *b, const nnfx_node *v, int64_t k, int depth) {
    if (depth <= 0) return iv_all;
    size_t h = ((size_t)(uintptr_t)v / sizeof(void *) * 31u + (size_t)(k + 1)) % IV_SLOTS;
    for (int probe = 0; probe < IV_SLOTS; probe++, h = (h + 1) % IV_SLOTS) {
        if (!x->node[h]) break;
        if (x->node[h] == v && x->k[h] == k) return x->val[h];
    }
    const iv r = iv_compute(x, b, v, k, depth);
    if (x->used < IV_SLOTS / 2) { /* past half full: computed again, never wrong */
        for (int probe = 0; x->node[h] && probe < IV_SLOTS; probe++)
            h = (h + 1) % IV_SLOTS;
        x->node[h] = v, x->k[h] = k, x->val[h] = r, x->used++;
    }
    return r;
}

bool cg_interval(const cg_bounds *b, const nnfx_node *v, int64_t k, double *lo, double *hi) {
    ivctx *x = calloc(1, sizeof *x);
    if (!x) return false;
    const iv r = iv_of(x, (cg_bounds *)b, v, k, IV_DEPTH);
    free(x);
    *lo = r.lo, *hi = r.hi;
    return isfinite(r.lo) && isfinite(r.hi);
}
