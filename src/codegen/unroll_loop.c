/* unroll_loop.c — a Loop whose body's shapes change from trip to trip, for
 * generated C (which has static shapes). ONNX's node tests slice a constant
 * at the trip number (x[i:i+1]); models iterate over a constant range the
 * same way. When the trip count is known at generation and nothing can stop
 * the loop early (no condition operand, or a true one the body returns
 * unchanged), the loop becomes its trips: one copy of the body per trip
 * with the trip number a constant, whose shapes then follow; the carried
 * values chain from one copy to the next, and each scan output is the
 * Concat of its items, each unsqueezed to one row. A Loop whose shapes are
 * static stays one C loop (codegen.c emit_loop). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"

/* Most trips unrolled, and most nodes an unrolled loop may add. */
#define UNROLL_MAX_TRIPS 1024
#define UNROLL_MAX_NODES 65536

const nnfx_node *cg_first_unsized(const nnfx_graph *g) {
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION) continue;
        ir_ctrl_shape cs;
        nnfx_error e = {0};
        if (ir_op_is_ctrl(n->op) && !ir_ctrl_layout(n, &cs, &e))
            for (int b = 0; b < cs.nbodies; b++) {
                const nnfx_node *inner = cg_first_unsized(cs.body[b]);
                if (inner) return inner;
            }
        for (int k = 0; k < n->nout; k++)
            if (!nnfx_meta_is_static(&n->meta[k])) return n;
    }
    return NULL;
}

/* The one-element parameter of g that argument a of n is, or NULL (absent
 * too). */
static const nnfx_tensor *param_arg(const nnfx_graph *g, const nnfx_node *n, int a) {
    const nnfx_node *v = a < n->nargs && n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
    const nnfx_tensor *t = v && v->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, v->target) : NULL;
    return t && nnfx_tensor_numel(t) == 1 ? t : NULL;
}

/* Whether argument a of n is absent. */
static bool absent_arg(const nnfx_node *n, int a) { return a >= n->nargs || n->args[a].kind == NNFX_ARG_NONE; }

/* Whether Loop n of g needs unrolling (its shapes, or its body's, are not
 * static while its operands' are); *trips_known: its trip count is a
 * parameter and nothing stops it early, *trips the count then. */
static bool wants_unroll(const nnfx_graph *g, const nnfx_node *n, bool *trips_known, int64_t *trips) {
    *trips_known = false;
    if (n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_LOOP) return false;
    for (int a = 0; a < n->nargs; a++)
        if (n->args[a].kind == NNFX_ARG_NODE && !nnfx_meta_is_static(&n->args[a].u.node->meta[0])) return false;
    ir_ctrl_shape cs;
    nnfx_error e = {0};
    if (ir_ctrl_layout(n, &cs, &e)) return false;
    bool fixed = true;
    for (int k = 0; k < n->nout; k++)
        fixed &= nnfx_meta_is_static(&n->meta[k]);
    if (fixed && !cg_first_unsized(cs.body[0])) return false;
    const nnfx_tensor *m = param_arg(g, n, 0), *c = param_arg(g, n, 1);
    if (!absent_arg(n, 1) && c && nnfx_tensor_get(c, 0) == 0) { /* a false initial condition: no trip */
        *trips = 0;
        *trips_known = true;
        return true;
    }
    if (!m || absent_arg(n, 0) || !cg_loop_runs_all_trips(g, n, cs.body[0])) return true;
    *trips = ir_tensor_int_at0(m) > 0 ? ir_tensor_int_at0(m) : 0;
    *trips_known = true;
    return true;
}

/* A new scalar (or [1] when one) parameter of g of type dt holding v, as a
 * get_attr node at the insert point; NULL with err set. */
static nnfx_node *scalar_param(nnfx_graph *g, const nnfx_node *n, const char *what, nnfx_dtype dt, int rank, double v,
                               nnfx_error *err) {
    const int64_t one = 1;
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, &one, err);
    if (!t) return NULL;
    if (dt == NNFX_I64)
        ((int64_t *)t->data)[0] = (int64_t)v;
    else
        ((unsigned char *)t->data)[0] = v != 0;
    nnfx_node *ga = cg_param_node(g, n, what, t, err);
    nnfx_tensor_release(t);
    return ga;
}

/* Replaces output k of n (its getitem, or n itself when it has one output)
 * by v everywhere. */
static nnfx_status replace_output(nnfx_graph *g, nnfx_node *n, int k, nnfx_node *v, nnfx_error *err) {
    if (n->nout == 1)
        return nnfx_replace_all_uses_with(n, v, NULL, NULL) < 0
                   ? nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory")
                   : NNFX_OK;
    for (int u = n->nusers - 1; u >= 0; u--) {
        nnfx_node *gi = n->users[u];
        if (gi->opcode != NNFX_CALL_FUNCTION || gi->op != NNFX_OP_GETITEM || gi->args[1].kind != NNFX_ARG_INT ||
            gi->args[1].u.i != k)
            continue;
        if (nnfx_replace_all_uses_with(gi, v, NULL, NULL) < 0)
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
        nnfx_status st = nnfx_erase_node(g, gi, err);
        if (st) return st;
    }
    return NNFX_OK;
}

/* Loop n that runs no trip, in place: its carried outputs are the initial
 * values; a scan output (its items' shape static) an empty parameter. */
static nnfx_status no_trips(nnfx_graph *g, nnfx_node *n, const ir_ctrl_shape *cs, nnfx_error *err) {
    const int N = cs->ncarried, S = cs->nscan_out;
    const nnfx_node *o = nnfx_graph_output_node(cs->body[0]);
    if (n->nargs != 2 + N + cs->ncaptures || n->nout != N + S || !o || o->nargs != 1 + N + S)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s (loop): its operands do not match its body",
                              n->name);
    nnfx_status st = NNFX_OK;
    nnfx_inserting_before(g, n);
    for (int k = 0; k < N && !st; k++)
        st = n->args[2 + k].kind == NNFX_ARG_NODE ? replace_output(g, n, k, n->args[2 + k].u.node, err)
                                                  : nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                                                   "codegen: node %s (loop): an initial value is not a "
                                                                   "value",
                                                                   n->name);
    for (int j = 0; j < S && !st; j++) {
        const nnfx_node *r = o->args[1 + N + j].kind == NNFX_ARG_NODE ? o->args[1 + N + j].u.node : NULL;
        int64_t dims[NNFX_MAX_RANK] = {0};
        if (!r || !nnfx_meta_is_static(&r->meta[0]) || r->meta[0].rank + 1 > NNFX_MAX_RANK) {
            st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                "codegen: node %s (loop): it runs no trip and its scan output %d's items have no "
                                "static shape",
                                n->name, j);
            break;
        }
        for (int d = 0; d < r->meta[0].rank; d++)
            dims[1 + d] = r->meta[0].dims[d].value;
        char what[32];
        snprintf(what, sizeof what, "scan_output_%d", j);
        nnfx_tensor *t = nnfx_tensor_new(r->meta[0].dtype, r->meta[0].rank + 1, dims, err);
        nnfx_node *ga = t ? cg_param_node(g, n, what, t, err) : NULL;
        if (!ga) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        nnfx_tensor_release(t);
        if (!st) st = replace_output(g, n, N + j, ga, err);
    }
    nnfx_inserting_at_end(g);
    return st ? st : nnfx_erase_node(g, n, err);
}

/* Unrolls Loop n (trips of it, trips >= 1) in place. */
static nnfx_status unroll(nnfx_graph *g, nnfx_node *n, int64_t trips, nnfx_error *err) {
    ir_ctrl_shape cs;
    nnfx_status st = ir_ctrl_layout(n, &cs, err);
    if (st) return st;
    const int N = cs.ncarried, S = cs.nscan_out, K = cs.ncaptures, nin = 2 + N + K;
    if (n->nargs != nin || n->nout != N + S)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s (loop): its operands do not match its body",
                              n->name);
    nnfx_node **in = calloc((size_t)nin, sizeof *in), **res = calloc((size_t)(1 + N + S), sizeof *res);
    nnfx_node **items = calloc((size_t)(S * trips + 1), sizeof *items);
    nnfx_arg *cargs = calloc((size_t)trips, sizeof *cargs);
    if (!in || !res || !items || !cargs) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    nnfx_inserting_before(g, n);
    nnfx_node *cond = NULL, *axis = NULL;
    if (!st && (!(cond = scalar_param(g, n, "cond", NNFX_BOOL, 0, 1, err)) ||
                (S && !(axis = scalar_param(g, n, "scan_axis", NNFX_I64, 1, 0, err)))))
        st = err && err->status ? err->status : NNFX_ERR_NOMEM;
    for (int k = 0; k < N + K && !st; k++) /* carried values (initially the operands), captures */
        in[2 + k] = n->args[2 + k].kind == NNFX_ARG_NODE ? n->args[2 + k].u.node : NULL;
    for (int64_t t = 0; t < trips && !st; t++) {
        char what[32];
        snprintf(what, sizeof what, "trip%lld", (long long)t);
        if (!(in[0] = scalar_param(g, n, what, NNFX_I64, 0, (double)t, err))) {
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
            break;
        }
        in[1] = cond;
        if ((st = cg_copy_body(g, n, cs.body[0], in, nin, res, 1 + N + S, err))) break;
        for (int k = 0; k < N; k++)
            in[2 + k] = res[1 + k];
        for (int j = 0; j < S && !st; j++) { /* the item as one row */
            nnfx_arg ua[2] = {nnfx_arg_node(res[1 + N + j]), nnfx_arg_node(axis)};
            if (!(items[j * trips + t] = nnfx_graph_call_op(g, NNFX_OP_UNSQUEEZE, 2, ua, 0, NULL, err)))
                st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        }
    }
    for (int k = 0; k < N && !st; k++)
        st = replace_output(g, n, k, in[2 + k], err);
    for (int j = 0; j < S && !st; j++) {
        for (int64_t t = 0; t < trips; t++)
            cargs[t] = nnfx_arg_node(items[j * trips + t]);
        nnfx_attr ax = nnfx_attr_int("axis", 0);
        nnfx_node *cat = nnfx_graph_call_op(g, NNFX_OP_CONCAT, (int)trips, cargs, 1, &ax, err);
        char cname[160];
        snprintf(cname, sizeof cname, "%.100s_scan_output_%d", n->name, j);
        for (int u = 1; nnfx_graph_find(g, cname); u++)
            snprintf(cname, sizeof cname, "%.100s_scan_output_%d_%d", n->name, j, u);
        if (!cat)
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        else if (!(st = nnfx_node_set_name(cat, cname, err)))
            st = replace_output(g, n, N + j, cat, err);
    }
    nnfx_inserting_at_end(g);
    if (!st) st = nnfx_erase_node(g, n, err);
    free(in), free(res), free(items), free(cargs);
    return st;
}

nnfx_status cg_unroll_loops(nnfx_graph *g, nnfx_error *err) {
    bool folded = false;
    for (;;) {
        nnfx_node *n = g->head;
        bool known = false;
        int64_t trips = 0;
        bool need_fold = false;
        for (; n; n = n->next) {
            if (!wants_unroll(g, n, &known, &trips)) continue;
            if (known) break;
            need_fold = true;
        }
        if (!n && need_fold && !folded) { /* a trip count or condition computed from constants */
            nnfx_status st = ir_fold_constants(g, nnfx_op_run, NULL, err);
            if (st || (st = nnfx_graph_lint(g, err)) || (st = nnfx_graph_infer_shapes(g, err))) return st;
            folded = true;
            continue;
        }
        if (!n) return NNFX_OK;
        ir_ctrl_shape cs;
        nnfx_status st = ir_ctrl_layout(n, &cs, err);
        if (st) return st;
        if (trips > UNROLL_MAX_TRIPS || trips * cs.body[0]->num_nodes > UNROLL_MAX_NODES ||
            g->num_nodes + trips * cs.body[0]->num_nodes > 4 * UNROLL_MAX_NODES)
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                                  "codegen: node %s (loop): its body's shapes change from trip to trip, so generated C "
                                  "(static shapes) unrolls it, and %lld trips of %d nodes is past the %d trips or %d "
                                  "nodes unrolled",
                                  n->name, (long long)trips, cs.body[0]->num_nodes, UNROLL_MAX_TRIPS, UNROLL_MAX_NODES);
        char name[128];
        snprintf(name, sizeof name, "%s", n->name);
        if ((st = trips ? unroll(g, n, trips, err) : no_trips(g, n, &cs, err))) return st;
        if ((st = nnfx_graph_lint(g, err)) || (st = nnfx_graph_infer_shapes(g, err))) {
            nnfx_error_prefix(err, "codegen: node %s (loop), unrolled as its shapes change from trip to trip", name);
            return st;
        }
    }
}
