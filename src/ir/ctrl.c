/* ctrl.c — control flow in the IR: If, Loop and Scan nodes own their bodies
 * as graph attributes (NNFX_ATTR_GRAPH). A body is self-contained: values
 * it reads from an enclosing graph are extra operands of the node and
 * placeholders of the body, so users lists, DCE and lint of the outer graph
 * see those uses.
 *
 * Operand / body-placeholder / body-output layout (K = captured values):
 *   If:   (cond, c1..cK)              branches: (c1..cK)        -> (y1..yR)
 *   Loop: (M, cond, v1..vN, c1..cK)   body: (iter, cond, v1..vN, c1..cK)
 *                                           -> (cond, v1..vN, s1..sS)
 *   Scan: (v1..vN, x1..xM, c1..cK)    body: (v1..vN, x1_t..xM_t, c1..cK)
 *                                           -> (v1..vN, s1..sS)
 * Loop and Scan record K in the attribute `captures`, Scan records M in
 * `num_scan_inputs` (ONNX's). This file has their lint, shape inference
 * and cost; src/exec/ctrl_run.c runs them. */
#include <stdlib.h>
#include <string.h>

#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

int64_t ir_tensor_int_at0(const nnfx_tensor *t) {
    if (t->dtype == NNFX_I64) return ((const int64_t *)t->data)[0];
    double v = nnfx_tensor_get(t, 0);
    return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v;
}

bool ir_op_is_ctrl(nnfx_op op) { return op == NNFX_OP_IF || op == NNFX_OP_LOOP || op == NNFX_OP_SCAN; }

nnfx_graph *ir_ctrl_body(const nnfx_node *n, const char *name) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    return a && a->kind == NNFX_ATTR_GRAPH ? a->u.g : NULL;
}

int ir_graph_num_outputs(const nnfx_graph *g) {
    const nnfx_node *o = g ? nnfx_graph_output_node(g) : NULL;
    return o ? o->nargs : 0;
}

/* The node returned as output i of g, or NULL. */
static nnfx_node *body_output(const nnfx_graph *g, int i) {
    const nnfx_node *o = nnfx_graph_output_node(g);
    return o && i >= 0 && i < o->nargs && o->args[i].kind == NNFX_ARG_NODE ? o->args[i].u.node : NULL;
}

nnfx_status ir_ctrl_layout(const nnfx_node *n, ir_ctrl_shape *s, nnfx_error *err) {
    memset(s, 0, sizeof *s);
    const char *what = nnfx_op_name(n->op);
    if (n->op == NNFX_OP_IF) {
        s->body[0] = ir_ctrl_body(n, "then_branch");
        s->body[1] = ir_ctrl_body(n, "else_branch");
        if (!s->body[0] || !s->body[1])
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: if needs then_branch and else_branch graphs", n->name);
        s->ncaptures = n->nargs - 1;
        s->first_capture = 1;
        s->nformal = 0;
        s->nresults = ir_graph_num_outputs(s->body[0]);
        if (ir_graph_num_outputs(s->body[1]) != s->nresults)
            return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                  "node %s: then_branch returns %d values, else_branch %d (they must match)", n->name,
                                  s->nresults, ir_graph_num_outputs(s->body[1]));
        s->nbodies = 2;
    } else {
        s->body[0] = ir_ctrl_body(n, "body");
        if (!s->body[0]) return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: %s needs a body graph", n->name, what);
        s->nbodies = 1;
        int64_t k = nnfx_node_attr_int(n, "captures", 0);
        int fixed = n->op == NNFX_OP_LOOP ? 2 : 0;
        if (k < 0 || k > n->nargs - fixed)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: captures=%lld does not fit its %d operands", n->name,
                                  (long long)k, n->nargs);
        s->ncaptures = (int)k;
        s->first_capture = n->nargs - (int)k;
        int nb = ir_graph_num_outputs(s->body[0]);
        if (n->op == NNFX_OP_LOOP) {
            s->ncarried = n->nargs - 2 - (int)k;
            s->nformal = 2 + s->ncarried;
            s->nresults = nb - 1;
            s->nscan_out = nb - 1 - s->ncarried;
            if (n->nargs >= 2 && n->args[0].kind == NNFX_ARG_NONE && n->args[1].kind == NNFX_ARG_NONE)
                return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                      "node %s: loop has neither a trip count nor a condition (it would never end)",
                                      n->name);
        } else {
            int64_t m = nnfx_node_attr_int(n, "num_scan_inputs", 0);
            if (m < 1 || m > n->nargs - k)
                return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: num_scan_inputs=%lld does not fit its %d operands",
                                      n->name, (long long)m, n->nargs);
            s->nscan_in = (int)m;
            s->ncarried = n->nargs - (int)k - (int)m;
            s->nformal = s->ncarried + s->nscan_in;
            s->nresults = nb;
            s->nscan_out = nb - s->ncarried;
        }
        if (s->nscan_out < 0)
            return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                  "node %s: the %s body returns %d values, fewer than its %d loop-carried ones%s",
                                  n->name, what, nb, s->ncarried, n->op == NNFX_OP_LOOP ? " plus the condition" : "");
    }
    for (int b = 0; b < s->nbodies; b++) {
        int want = s->nformal + s->ncaptures, have = nnfx_graph_num_inputs(s->body[b]);
        if (have != want)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: its %s body has %d inputs, the node gives it %d",
                                  n->name, what, have, want);
    }
    if (s->nresults < 1 || s->nresults > NNFX_MAX_RANK)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: %s with %d results (1..%d supported)", n->name, what,
                              s->nresults, NNFX_MAX_RANK);
    return NNFX_OK;
}

/* --- lint ---------------------------------------------------------------------- */

static _Thread_local int nest_depth;

nnfx_status ir_ctrl_enter(const nnfx_node *n, nnfx_error *err) {
    if (nest_depth >= IR_MAX_GRAPH_DEPTH)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: control flow nested deeper than %d levels",
                              n ? n->name : "?", IR_MAX_GRAPH_DEPTH);
    nest_depth++;
    return NNFX_OK;
}

void ir_ctrl_leave(void) { nest_depth--; }

nnfx_status ir_ctrl_lint(const nnfx_node *n, nnfx_error *err) {
    ir_ctrl_shape s;
    nnfx_status st = ir_ctrl_layout(n, &s, err);
    if (st) return nnfx_error_prefix(err, "lint"), st;
    if (n->nout != s.nresults)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s has %d outputs, its body returns %d results", n->name,
                              n->nout, s.nresults);
    if ((st = ir_ctrl_enter(n, err))) return st;
    for (int b = 0; b < s.nbodies && !st; b++) {
        st = nnfx_graph_lint(s.body[b], err);
        if (st) nnfx_error_prefix(err, "in the body of %s", n->name);
    }
    ir_ctrl_leave();
    return st;
}

/* --- shape inference ------------------------------------------------------------- */

/* The meta both a and b fit: equal parts kept, differing dims unknown. */
static void meta_merge(nnfx_meta *a, const nnfx_meta *b) {
    if (a->dtype != b->dtype) a->dtype = a->dtype == NNFX_DTYPE_UNDEFINED ? b->dtype : a->dtype;
    if (a->rank != b->rank) {
        a->rank = -1;
        return;
    }
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i].value == b->dims[i].value &&
            (a->dims[i].value >= 0 || ir_sym_eq(a->dims[i].symbol, b->dims[i].symbol)))
            continue;
        a->dims[i].value = -1;
        a->dims[i].symbol = NULL;
    }
}

static bool meta_same(const nnfx_meta *a, const nnfx_meta *b) {
    if (a->dtype != b->dtype || a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i].value != b->dims[i].value || !ir_sym_eq(a->dims[i].symbol, b->dims[i].symbol)) return false;
    return true;
}

static void meta_unknown(nnfx_meta *m) {
    memset(m, 0, sizeof *m);
    m->rank = -1;
}

/* Sets placeholder i of g to m (marking it for re-inference only when it
 * changes); m NULL leaves it as it is. */
static void set_input_meta(nnfx_graph *g, int i, const nnfx_meta *m) {
    nnfx_node *p = nnfx_graph_input(g, i);
    if (!p || !m || meta_same(&p->meta[0], m)) return;
    *nnfx_node_meta(p, 0) = *m;
}

static nnfx_status infer_body(const nnfx_node *n, nnfx_graph *g, nnfx_error *err) {
    nnfx_status st = ir_ctrl_enter(n, err);
    if (st) return st;
    st = nnfx_graph_infer_shapes(g, err);
    ir_ctrl_leave();
    if (st) nnfx_error_prefix(err, "in the body of %s", n->name);
    return st;
}

static void result_meta(const nnfx_graph *g, int i, nnfx_meta *m) {
    nnfx_node *o = body_output(g, i);
    if (o)
        *m = o->meta[0];
    else
        meta_unknown(m);
}

static void scalar_meta(nnfx_meta *m, nnfx_dtype dt) {
    meta_unknown(m);
    m->dtype = dt;
    m->rank = 0;
}

nnfx_status infer_if(nnfx_infer_ctx *c) {
    ir_ctrl_shape s;
    nnfx_status st = ir_ctrl_layout(c->node, &s, c->err);
    if (st) return st;
    /* a known condition decides the branch */
    int only = -1;
    if (c->in_value && c->in_value[0] && nnfx_tensor_numel(c->in_value[0]) == 1)
        only = nnfx_tensor_get(c->in_value[0], 0) != 0 ? 0 : 1;
    for (int b = 0; b < 2; b++) {
        for (int k = 0; k < s.ncaptures; k++)
            set_input_meta(s.body[b], k, c->in[1 + k]);
        if ((st = infer_body(c->node, s.body[b], c->err))) return st;
    }
    for (int i = 0; i < c->nout && i < s.nresults; i++) {
        if (only >= 0) {
            result_meta(s.body[only], i, &c->out[i]);
            continue;
        }
        nnfx_meta e;
        result_meta(s.body[0], i, &c->out[i]);
        result_meta(s.body[1], i, &e);
        meta_merge(&c->out[i], &e);
    }
    return NNFX_OK;
}

/* Infers a body whose loop-carried inputs [first, first + n) come back as
 * results [rfirst, rfirst + n): carried dims that change become unknown
 * and the body is inferred once more. At most two passes per level, so
 * nested loops cost 2^depth body passes, not more. */
static nnfx_status infer_carried(nnfx_infer_ctx *c, nnfx_graph *g, int first, int rfirst, int n) {
    for (int round = 0; round < 2; round++) {
        nnfx_status st = infer_body(c->node, g, c->err);
        if (st) return st;
        bool stable = true;
        for (int i = 0; i < n; i++) {
            nnfx_meta in = nnfx_graph_input(g, first + i)->meta[0], out;
            result_meta(g, rfirst + i, &out);
            nnfx_meta merged = in;
            meta_merge(&merged, &out);
            if (round > 0) { /* still changing: only the dtype is known */
                nnfx_dtype dt = merged.dtype;
                meta_unknown(&merged);
                merged.dtype = dt;
            }
            if (!meta_same(&merged, &in)) {
                stable = false;
                set_input_meta(g, first + i, &merged);
            }
        }
        if (stable) return NNFX_OK;
    }
    return NNFX_OK;
}

bool ir_loop_keeps_condition(const nnfx_graph *g) {
    const nnfx_node *v = body_output(g, 0);
    /* through Identity, and Cast to bool (torch casts a constant true) */
    while (v && v->opcode == NNFX_CALL_FUNCTION && v->nargs >= 1 && v->args[0].kind == NNFX_ARG_NODE &&
           (v->op == NNFX_OP_IDENTITY || (v->op == NNFX_OP_CAST && v->meta[0].dtype == NNFX_BOOL)))
        v = v->args[0].u.node;
    if (!v) return false;
    if (v == nnfx_graph_input(g, 1)) return true;
    const nnfx_tensor *t = v->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, v->target) : NULL;
    return t && nnfx_tensor_numel(t) == 1 && nnfx_tensor_get(t, 0) != 0;
}

nnfx_status infer_loop(nnfx_infer_ctx *c) {
    ir_ctrl_shape s;
    nnfx_status st = ir_ctrl_layout(c->node, &s, c->err);
    if (st) return st;
    nnfx_graph *g = s.body[0];
    nnfx_meta m;
    scalar_meta(&m, NNFX_I64);
    set_input_meta(g, 0, &m);
    scalar_meta(&m, NNFX_BOOL);
    set_input_meta(g, 1, &m);
    for (int i = 2; i < c->nin; i++)
        set_input_meta(g, i, c->in[i]);
    if ((st = infer_carried(c, g, 2, 1, s.ncarried))) return st;
    /* trip count: M when it is known and no condition can stop the loop early (none, or a known true one
     * the body returns unchanged); none when the initial condition is a known false */
    int64_t trips = -1;
    const nnfx_tensor *cv = c->in_value && c->nin > 1 && c->in[1] ? c->in_value[1] : NULL;
    const bool cond_known = cv && nnfx_tensor_numel(cv) == 1;
    if (c->in_value && c->in_value[0] && nnfx_tensor_numel(c->in_value[0]) == 1 &&
        (!c->in[1] || (cond_known && nnfx_tensor_get(cv, 0) != 0 && ir_loop_keeps_condition(g))))
        trips = ir_tensor_int_at0(c->in_value[0]) > 0 ? ir_tensor_int_at0(c->in_value[0]) : 0;
    if (cond_known && nnfx_tensor_get(cv, 0) == 0) trips = 0;
    for (int i = 0; i < c->nout && i < s.nresults; i++) {
        if (i < s.ncarried) {
            c->out[i] = nnfx_graph_input(g, 2 + i)->meta[0];
            continue;
        }
        nnfx_meta e;
        result_meta(g, 1 + i, &e);
        meta_unknown(&c->out[i]);
        c->out[i].dtype = e.dtype;
        if (e.rank >= 0 && e.rank < NNFX_MAX_RANK) {
            c->out[i].rank = e.rank + 1;
            c->out[i].dims[0].value = trips >= 0 ? trips : -1;
            memcpy(&c->out[i].dims[1], e.dims, sizeof e.dims[0] * (size_t)e.rank);
        }
    }
    return NNFX_OK;
}

/* Axis attribute entry i of name (default 0), normalised to rank r; -1 if
 * out of range. */
static int scan_axis(const nnfx_node *n, const char *name, int i, int r) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    int64_t ax = a && a->kind == NNFX_ATTR_INTS && i < a->u.ints.n ? a->u.ints.v[i] : 0;
    if (ax < 0) ax += r;
    return ax >= 0 && ax < r ? (int)ax : -1;
}

int ir_scan_axis(const nnfx_node *n, const char *name, int i, int r) { return scan_axis(n, name, i, r); }

nnfx_status infer_scan(nnfx_infer_ctx *c) {
    ir_ctrl_shape s;
    nnfx_status st = ir_ctrl_layout(c->node, &s, c->err);
    if (st) return st;
    nnfx_graph *g = s.body[0];
    nnfx_dim len = {.value = -1};
    for (int i = 0; i < c->nin; i++) {
        if (i < s.ncarried || i >= s.nformal) {
            set_input_meta(g, i, c->in[i]);
            continue;
        }
        const nnfx_meta *x = c->in[i];
        nnfx_meta e;
        meta_unknown(&e);
        if (x) {
            e.dtype = x->dtype;
            int ax = x->rank >= 1 ? scan_axis(c->node, "scan_input_axes", i - s.ncarried, x->rank) : -1;
            if (x->rank >= 1 && ax < 0)
                return infer_fail(c, "scan_input_axes[%d] is out of range for input rank %d", i - s.ncarried, x->rank);
            if (ax >= 0) {
                e.rank = x->rank - 1;
                for (int d = 0, k = 0; d < x->rank; d++)
                    if (d != ax) e.dims[k++] = x->dims[d];
                if (i == s.ncarried) len = x->dims[ax];
            }
        }
        set_input_meta(g, i, &e);
    }
    if ((st = infer_carried(c, g, 0, 0, s.ncarried))) return st;
    for (int i = 0; i < c->nout && i < s.nresults; i++) {
        if (i < s.ncarried) {
            c->out[i] = nnfx_graph_input(g, i)->meta[0];
            continue;
        }
        nnfx_meta e;
        result_meta(g, i, &e);
        meta_unknown(&c->out[i]);
        c->out[i].dtype = e.dtype;
        if (e.rank >= 0 && e.rank < NNFX_MAX_RANK) {
            int ax = scan_axis(c->node, "scan_output_axes", i - s.ncarried, e.rank + 1);
            if (ax < 0) return infer_fail(c, "scan_output_axes[%d] is out of range", i - s.ncarried);
            c->out[i].rank = e.rank + 1;
            for (int d = 0, k = 0; d <= e.rank; d++)
                c->out[i].dims[d] = d == ax ? len : e.dims[k++];
        }
    }
    return NNFX_OK;
}

nnfx_status kern_ctrl(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    (void)nin, (void)in, (void)nout, (void)out;
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: %s runs through the interpreter only", n->name,
                          nnfx_op_name(n->op));
}

/* --- cost ------------------------------------------------------------------------- */

static void body_cost(const nnfx_node *n, const nnfx_graph *g, int64_t *macs, int64_t *flops) {
    *macs = *flops = 0;
    if (!g || ir_ctrl_enter(n, NULL)) return;
    for (const nnfx_node *m = g->head; m; m = m->next) {
        int64_t a, f;
        nnfx_node_cost(m, &a, &f);
        *macs += a;
        *flops += f;
    }
    ir_ctrl_leave();
}

static int64_t times(int64_t a, int64_t k) { return k > 0 && a > INT64_MAX / k ? INT64_MAX : a * k; }

/* If: the dearer branch. */
void cost_if(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    int64_t m1, f1, m2, f2;
    body_cost(c->node, ir_ctrl_body(c->node, "then_branch"), &m1, &f1);
    body_cost(c->node, ir_ctrl_body(c->node, "else_branch"), &m2, &f2);
    *macs = m1 > m2 ? m1 : m2;
    *flops = f1 > f2 ? f1 : f2;
}

/* Loop: the body times the trip count when it is known (else once). */
void cost_loop(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    body_cost(c->node, ir_ctrl_body(c->node, "body"), macs, flops);
    int64_t trips = 1;
    if (c->in_value && c->nin > 0 && c->in_value[0] && nnfx_tensor_numel(c->in_value[0]) == 1)
        trips = ir_tensor_int_at0(c->in_value[0]);
    if (trips < 0) trips = 0;
    *macs = times(*macs, trips);
    *flops = times(*flops, trips);
}

/* Scan: the body times the sequence length (unknown counts as 1). */
void cost_scan(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    body_cost(c->node, ir_ctrl_body(c->node, "body"), macs, flops);
    ir_ctrl_shape s;
    if (ir_ctrl_layout(c->node, &s, NULL)) return;
    const nnfx_meta *x = s.ncarried < c->nin ? c->in[s.ncarried] : NULL;
    int64_t len = 1;
    if (x && x->rank >= 1) {
        int ax = scan_axis(c->node, "scan_input_axes", 0, x->rank);
        if (ax >= 0 && x->dims[ax].value >= 0) len = x->dims[ax].value;
    }
    *macs = times(*macs, len);
    *flops = times(*flops, len);
}
