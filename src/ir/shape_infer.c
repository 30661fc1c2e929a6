/* shape_infer.c — static shape and dtype inference over a whole graph
 * (FX's ShapeProp without running the model). Small constant values
 * (parameters, literals, Shape of a static input and anything computed only
 * from those) are propagated so that PyTorch-style shape chains such as
 * Shape -> Gather -> Concat -> Reshape give exact shapes. */
#include <stdlib.h>
#include <string.h>

#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Largest constant (elements) evaluated during inference. */
#define INFER_CONST_LIMIT 4096

/* Meta of a literal argument (scalar int64 or float32). */
static void literal_meta(const nnfx_arg *a, nnfx_meta *m) {
    memset(m, 0, sizeof *m);
    m->dtype = a->kind == NNFX_ARG_INT ? NNFX_I64 : NNFX_F32;
    m->rank = 0;
}

nnfx_tensor *ir_literal_tensor(const nnfx_arg *a, nnfx_error *err) {
    if (a->kind == NNFX_ARG_INT) return nnfx_tensor_scalar_i64(a->u.i, err);
    return nnfx_tensor_scalar_f32((float)a->u.f, err);
}

/* ir_shape_value_like of parameter t's element count. The product of
 * small dims is formed here without nnfx_shape_numel's overflow division
 * per dim (a trace asks this of every parameter); a dim or product past
 * 4096 (never value-like) or a dim <= 0 takes nnfx_tensor_numel's exact
 * count. */
static bool param_value_like(const nnfx_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        int64_t d = t->shape[i];
        if (d <= 0 || d > 4096 || (n *= d) > 4096) return ir_shape_value_like(t->dtype, nnfx_tensor_numel(t));
    }
    return ir_shape_value_like(t->dtype, n);
}

/* A node argument's value known to shape inference (an ir_value_fn): a
 * constant computed earlier in this pass (pass_data, when ctx is not
 * NULL), or a parameter that can be a shape, axes or a scalar; a weight is
 * not read for its shape alone, so a mapped model's weights stay on disk. */
static const nnfx_tensor *infer_value_of(void *ctx, const nnfx_node *src) {
    if (ctx && src->pass_data) return (const nnfx_tensor *)src->pass_data;
    if (src->opcode != NNFX_GET_ATTR) return NULL;
    nnfx_tensor *raw = ir_node_param_raw(src);
    return raw && param_value_like(raw) ? ir_tensor_ready(raw) : NULL;
}

/* The constant value of output k of n from its known inputs (ci) by its
 * kernel, when its outputs are static and small (INFER_CONST_LIMIT
 * elements in all); NULL otherwise. */
static nnfx_tensor *infer_const_value(const nnfx_node *n, const ir_const_in *ci, int k) {
    const nnfx_op_info *info = ir_op_info(n->op);
    if (!ci->known || k < 0 || k >= n->nout || n->nout > 8 || !info->kernel || (info->flags & NNFX_F_IMPURE))
        return NULL;
    nnfx_tensor *outs[8] = {0};
    int64_t total = 0;
    for (int o = 0; o < n->nout; o++) {
        if (!nnfx_meta_is_static(&n->meta[o])) return NULL;
        total += nnfx_meta_numel(&n->meta[o]);
    }
    if (total > INFER_CONST_LIMIT) return NULL;
    bool ok = true;
    for (int o = 0; o < n->nout && ok; o++) {
        int64_t dims[NNFX_MAX_RANK];
        for (int i = 0; i < n->meta[o].rank; i++)
            dims[i] = n->meta[o].dims[i].value;
        ok = (outs[o] = nnfx_tensor_new(n->meta[o].dtype, n->meta[o].rank, dims, NULL)) != NULL;
    }
    nnfx_error kerr = {0};
    ok = ok && info->kernel(n, ci->n, ci->t, n->nout, outs, &kerr) == NNFX_OK;
    for (int o = 0; o < n->nout; o++)
        if (o != k || !ok) nnfx_tensor_release(outs[o]);
    return ok ? outs[k] : NULL;
}

nnfx_status ir_infer_node(nnfx_node *n, nnfx_tensor **values, bool want_value, nnfx_tensor **value_out,
                          nnfx_error *err) {
    /* values: per-node known values indexed through pass_data (may be NULL) */
    if (value_out) *value_out = NULL;
    const nnfx_op_info *info = ir_op_info(n->op);
    if (n->op == NNFX_OP_GETITEM) {
        nnfx_node *src = nnfx_node_arg_node(n, 0);
        int64_t k = n->args[1].kind == NNFX_ARG_INT ? n->args[1].u.i : -1;
        if (!src || k < 0 || k >= src->nout)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: getitem index out of range", n->name);
        n->meta[0] = src->meta[k];
        if (want_value && value_out && src->nout > 1) { /* an output of a multi-output node of constants (Split) */
            ir_const_in ci;
            if (ir_const_in_gather(&ci, src, infer_value_of, values, NULL) == NNFX_OK)
                *value_out = infer_const_value(src, &ci, (int)k);
            ir_const_in_release(&ci);
        }
        return NNFX_OK;
    }
    int nin = n->nargs;
    const nnfx_meta *in_stack[16];
    nnfx_meta lit_stack[16];
    const nnfx_meta **in = nin <= 16 ? in_stack : calloc((size_t)nin, sizeof *in);
    nnfx_meta *lit = nin <= 16 ? lit_stack : calloc((size_t)nin, sizeof *lit);
    ir_const_in ci;
    nnfx_status st = ir_const_in_gather(&ci, n, infer_value_of, values, err);
    if (!st && (!in || !lit)) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    if (st) goto out;
    for (int i = 0; i < nin; i++) {
        const nnfx_arg *a = &n->args[i];
        in[i] = NULL;
        if (a->kind == NNFX_ARG_NODE) {
            in[i] = &a->u.node->meta[0];
        } else if (a->kind == NNFX_ARG_INT || a->kind == NNFX_ARG_FLOAT) {
            literal_meta(a, &lit[i]);
            in[i] = &lit[i];
        }
    }
    nnfx_infer_ctx c = {n, nin, in, (const nnfx_tensor *const *)ci.t, n->nout, n->meta, err};
    for (int i = 0; i < n->nout; i++) {
        nnfx_dtype keep = n->meta[i].dtype;
        memset(&n->meta[i], 0, sizeof n->meta[i]);
        n->meta[i].rank = -1;
        n->meta[i].dtype = keep;
    }
    if (!info->infer) {
        st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: op %s has no shape inference", n->name, info->name);
        goto out;
    }
    st = info->infer(&c);
    if (!st && want_value && value_out && n->nout == 1) *value_out = infer_const_value(n, &ci, 0);
out:
    ir_const_in_release(&ci);
    if (in != in_stack) free(in);
    if (lit != lit_stack) free(lit);
    return st;
}

/* Same dtype, rank and dims (symbols compared where the value is unknown). */
static bool meta_equal(const nnfx_meta *a, const nnfx_meta *b) {
    if (a->dtype != b->dtype || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank && i < NNFX_MAX_RANK; i++) {
        if (a->dims[i].value != b->dims[i].value) return false;
        if (a->dims[i].value < 0 && !ir_sym_eq(a->dims[i].symbol, b->dims[i].symbol)) return false;
    }
    return true;
}

/* Whether n must be inferred again in an incremental pass: it was edited,
 * it computes a constant, or an input changed or carries a constant.
 * -1 when an input comes after n (its meta is not known yet). */
static int needs_infer(const nnfx_node *n) {
    /* a node owning subgraphs: its bodies may have been edited */
    int need = n->infer_dirty || n->infer_value || nnfx_node_num_subgraphs(n) > 0;
    for (int i = 0; i < n->nargs; i++) {
        if (n->args[i].kind != NNFX_ARG_NODE) continue;
        const nnfx_node *a = n->args[i].u.node;
        if (a->order >= n->order) return -1;
        need |= a->infer_changed || a->infer_value;
    }
    return need;
}

/* Runs infer on n's metas and records in n->infer_changed whether they
 * differ from before. */
static nnfx_status infer_tracked(nnfx_node *n, nnfx_tensor **values, nnfx_error *err) {
    nnfx_meta old[NNFX_MAX_RANK];
    int k = n->nout <= NNFX_MAX_RANK ? n->nout : 0; /* more outputs: counted as changed */
    memcpy(old, n->meta, sizeof *old * (size_t)k);
    nnfx_status st;
    if (n->opcode == NNFX_CALL_FUNCTION) {
        nnfx_tensor *v = NULL;
        st = ir_infer_node(n, values, true, &v, err);
        n->pass_data = v;
        n->infer_value = v != NULL;
    } else {
        const ir_leaf *l = ir_graph_leaf(n->graph, n->target);
        if (!l) return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: no leaf function '%s'", n->name, n->target);
        if (!l->infer) { /* opaque: meta stays as it is (or as the caller set it) */
            n->infer_changed = true;
            return NNFX_OK;
        }
        const nnfx_meta *ins[16];
        int nin = n->nargs < 16 ? n->nargs : 16;
        for (int i = 0; i < nin; i++) {
            nnfx_node *a = nnfx_node_arg_node(n, i);
            ins[i] = a ? &a->meta[0] : NULL;
        }
        st = l->infer(l->user, nin, ins, &n->meta[0], err);
        if (st) nnfx_error_prefix(err, "node %s (leaf %s)", n->name, n->target);
    }
    bool same = k == n->nout;
    for (int i = 0; same && i < k; i++)
        same = meta_equal(&old[i], &n->meta[i]);
    n->infer_changed = !same;
    return st;
}

void ir_infer_begin(nnfx_graph *g, ir_infer_walk *w) {
    w->full = !g->infer_valid;
    w->any_value = false;
    w->values = NULL;
    g->infer_valid = false; /* until this pass succeeds */
}

nnfx_status ir_infer_walk_node(nnfx_node *n, ir_infer_walk *w, nnfx_error *err) {
    nnfx_status st = NNFX_OK;
    n->pass_data = NULL;
    n->infer_changed = false;
    switch (n->opcode) {
    case NNFX_PLACEHOLDER: n->infer_changed = w->full || n->infer_dirty; break;
    case NNFX_GET_ATTR: {
        /* parameters only change through set_param, which forces a full
         * pass; an unedited get_attr keeps its meta */
        if (!w->full && !n->infer_dirty) break;
        nnfx_tensor *t = ir_node_param_raw(n);
        if (!t) {
            st = nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: the graph has no parameter '%s'", n->name, n->target);
            break;
        }
        nnfx_meta m;
        nnfx_meta_set_shape(&m, t->dtype, t->rank, t->shape);
        n->infer_changed = w->full || n->infer_dirty || !meta_equal(&m, &n->meta[0]);
        n->meta[0] = m;
        break;
    }
    case NNFX_CALL_FUNCTION:
    case NNFX_CALL_MODULE: {
        int need = needs_infer(n);
        if (need < 0) {
            st = nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s uses a node defined after it", n->name);
            break;
        }
        if (w->full || need) st = infer_tracked(n, &w->values, err);
        w->any_value |= n->pass_data != NULL;
        break;
    }
    case NNFX_OUTPUT: break;
    }
    if (!st) n->infer_dirty = false;
    return st;
}

void ir_infer_end(nnfx_graph *g, ir_infer_walk *w, const nnfx_node *stop, nnfx_status st) {
    /* release the constants of the visited nodes (up to the failing one) */
    for (nnfx_node *v = g->head; v != stop && w->any_value; v = v->next) {
        if (v->opcode == NNFX_CALL_FUNCTION && v->infer_value) nnfx_tensor_release((nnfx_tensor *)v->pass_data);
        v->pass_data = NULL;
    }
    if (!st) g->infer_valid = true;
}

/* Incremental: nodes whose inputs, arguments and attributes did not change
 * since the last successful pass keep their meta (a graph edit marks the
 * edited nodes; a changed meta re-infers its users). The result equals a
 * full pass. */
nnfx_status nnfx_graph_infer_shapes(nnfx_graph *g, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "infer_shapes: NULL graph");
    nnfx_status st = NNFX_OK;
    ir_infer_walk w;
    ir_infer_begin(g, &w);
    ir_graph_renumber(g);
    /* one walk: inputs come before their users, so their flags and values
     * are this pass's when a node reads them */
    ir_walk wk;
    nnfx_node *n = ir_walk_first(g, &wk);
    for (; n && !st; n = ir_walk_next(&wk, n)) {
        ir_walk_prefetch(&wk, n);
        st = ir_infer_walk_node(n, &w, err);
    }
    ir_infer_end(g, &w, n, st);
    return st;
}

nnfx_status ir_graph_lint_and_infer(nnfx_graph *g, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "recompile: NULL graph");
    ir_graph_renumber(g);
    ir_lint_walk lw = {0};
    ir_infer_walk iw;
    ir_infer_begin(g, &iw);
    nnfx_error ierr = {0};
    nnfx_status lst = NNFX_OK, ist = NNFX_OK;
    const nnfx_node *istop = NULL; /* where inference stopped (exclusive); NULL: it visited every node */
    ir_walk wk;
    for (nnfx_node *n = ir_walk_first(g, &wk); n; n = ir_walk_next(&wk, n)) {
        ir_walk_prefetch(&wk, n);
        if ((lst = ir_lint_node(g, n, &lw, err))) {
            if (!ist) istop = n;
            break;
        }
        if (!ist && (ist = ir_infer_walk_node(n, &iw, &ierr))) istop = n->next;
    }
    if (!lst) lst = ir_lint_end(g, &lw, err);
    ir_infer_end(g, &iw, istop, lst ? lst : ist);
    if (lst) return lst;
    if (ist && err) *err = ierr;
    return ist;
}
