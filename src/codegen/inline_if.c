/* inline_if.c — an If guarding a computation over a value whose size
 * depends on the data, for generated C. torchvision's batched_nms (in every
 * detector's post-processing) returns an empty constant when there are no
 * boxes and runs NonMaxSuppression otherwise; its branches would read a
 * bounded value, which generated C does not carry into a body. When one
 * branch of an If that reads such a value yields only a constant with no
 * elements, the If becomes its other branch, inlined, cut to no rows along
 * the constant's empty dim when the condition picks the empty one:
 * Slice(result, 0, Where(cond, 0, INT64_MAX)) (or the reverse). The other
 * branch then also runs when its input is empty, over zero valid rows. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"

/* The param behind value v of body g (through Identity nodes) with no
 * elements, or NULL. */
static const nnfx_tensor *empty_const(const nnfx_graph *g, const nnfx_node *v) {
    while (v && v->opcode == NNFX_CALL_FUNCTION && v->op == NNFX_OP_IDENTITY && v->nargs == 1 &&
           v->args[0].kind == NNFX_ARG_NODE)
        v = v->args[0].u.node;
    const nnfx_tensor *t = v && v->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, v->target) : NULL;
    return t && nnfx_tensor_numel(t) == 0 ? t : NULL;
}

/* The single result of body g, or NULL. */
static const nnfx_node *body_result(const nnfx_graph *g) {
    const nnfx_node *o = nnfx_graph_output_node(g);
    return o && o->nargs == 1 && o->args[0].kind == NNFX_ARG_NODE ? o->args[0].u.node : NULL;
}

nnfx_node *cg_param_node(nnfx_graph *g, const nnfx_node *n, const char *what, nnfx_tensor *t, nnfx_error *err) {
    char name[200];
    snprintf(name, sizeof name, "%.100s_%.80s", n->name, what);
    for (int u = 1; nnfx_graph_param(g, name); u++)
        snprintf(name, sizeof name, "%.100s_%.80s_%d", n->name, what, u);
    nnfx_status st = nnfx_graph_set_param(g, name, t, err);
    return st ? NULL : nnfx_graph_get_attr(g, name, err);
}

/* A new int64 [1] parameter of g holding v, as a get_attr node at the
 * insert point; NULL with err set. */
static nnfx_node *int_param(nnfx_graph *g, const nnfx_node *n, const char *what, int64_t v, nnfx_error *err) {
    const int64_t one = 1;
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, &one, err);
    if (!t) return NULL;
    ((int64_t *)t->data)[0] = v;
    nnfx_node *ga = cg_param_node(g, n, what, t, err);
    nnfx_tensor_release(t);
    return ga;
}

nnfx_status cg_copy_body(nnfx_graph *g, const nnfx_node *n, const nnfx_graph *body, nnfx_node *const *in, int nin,
                         nnfx_node **results, int nresults, nnfx_error *err) {
    nnfx_value_map *map = nnfx_value_map_new();
    if (!map) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    nnfx_status st = NNFX_OK;
    int ph = 0;
    for (const nnfx_node *b = body->head; b && !st; b = b->next) {
        nnfx_node *copy = NULL;
        if (b->opcode == NNFX_PLACEHOLDER) {
            if (ph >= nin || !in[ph]) {
                st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: body input %d is not a value",
                                    n->name, ph);
                break;
            }
            copy = in[ph++];
        } else if (b->opcode == NNFX_GET_ATTR) {
            nnfx_tensor *t = nnfx_graph_param(body, b->target);
            if (!t)
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "codegen: node %s: parameter %s missing", n->name, b->target);
            else if (!(copy = cg_param_node(g, n, b->target, t, err)))
                st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        } else if (b->opcode == NNFX_OUTPUT) {
            continue;
        } else if (!(copy = nnfx_graph_node_copy(g, b, map, err))) {
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        }
        if (!st && copy && b->opcode != NNFX_CALL_FUNCTION && !nnfx_value_map_put(map, b, copy))
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    }
    const nnfx_node *o = nnfx_graph_output_node(body);
    for (int i = 0; i < nresults && !st; i++) {
        const nnfx_node *r = o && i < o->nargs && o->args[i].kind == NNFX_ARG_NODE ? o->args[i].u.node : NULL;
        if (!r || !(results[i] = nnfx_value_map_get(map, r)))
            st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: its body's result %d is not a value",
                                n->name, i);
    }
    nnfx_value_map_free(map);
    return st;
}

/* Copies body (an If branch of n, captures read from n's operands) into g
 * before n; its result's copy into *result. */
static nnfx_status inline_body(nnfx_graph *g, const nnfx_node *n, const ir_ctrl_shape *cs, const nnfx_graph *body,
                               nnfx_node **result, nnfx_error *err) {
    nnfx_node *in[64] = {0};
    if (cs->nformal != 0 || cs->ncaptures > 64)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: more than 64 captured values", n->name);
    for (int k = 0; k < cs->ncaptures; k++) {
        const int a = cs->first_capture + k;
        in[k] = a < n->nargs && n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
    }
    return cg_copy_body(g, n, body, in, cs->ncaptures, result, 1, err);
}

/* Rewrites If node n (cs: its layout) when one branch yields only an
 * empty constant; *done tells whether it did. */
static nnfx_status inline_if(nnfx_graph *g, nnfx_node *n, const ir_ctrl_shape *cs, bool *done, nnfx_error *err) {
    *done = false;
    const nnfx_node *cond = n->args[0].kind == NNFX_ARG_NODE ? n->args[0].u.node : NULL;
    if (n->nout != 1 || cs->nbodies != 2 || !cond || cond->meta[0].dtype != NNFX_BOOL) return NNFX_OK;
    int empty = -1;
    const nnfx_tensor *t = NULL;
    for (int b = 0; b < 2 && empty < 0; b++)
        if ((t = empty_const(cs->body[b], body_result(cs->body[b]))) && body_result(cs->body[1 - b])) empty = b;
    if (empty < 0) return NNFX_OK;
    int axis = 0;
    while (axis < t->rank && t->shape[axis] != 0)
        axis++;
    /* the other branch's result must be the constant with rows along that dim (as far as its shape is known) */
    const nnfx_meta *rm = &body_result(cs->body[1 - empty])->meta[0];
    if (axis >= t->rank || (rm->rank >= 0 && rm->rank != t->rank)) return NNFX_OK;
    for (int d = 0; d < t->rank && rm->rank >= 0; d++)
        if (d != axis && rm->dims[d].value >= 0 && rm->dims[d].value != t->shape[d]) return NNFX_OK;
    nnfx_inserting_before(g, n);
    nnfx_node *result = NULL, *zero, *all, *ax, *end, *cut;
    nnfx_status st = inline_body(g, n, cs, cs->body[1 - empty], &result, err);
    if (st) return st;
    if (!(zero = int_param(g, n, "cut_none", 0, err)) || !(all = int_param(g, n, "cut_all", INT64_MAX, err)) ||
        !(ax = int_param(g, n, "cut_axis", axis, err)))
        return err && err->status ? err->status : NNFX_ERR_NOMEM;
    /* the end: 0 rows when the condition picks the empty branch (then: true) */
    nnfx_arg wargs[3] = {nnfx_arg_node((nnfx_node *)cond), nnfx_arg_node(empty == 0 ? zero : all),
                         nnfx_arg_node(empty == 0 ? all : zero)};
    if (!(end = nnfx_graph_call_op(g, NNFX_OP_WHERE, 3, wargs, 0, NULL, err)))
        return err && err->status ? err->status : NNFX_ERR_NOMEM;
    nnfx_arg sargs[4] = {nnfx_arg_node(result), nnfx_arg_node(zero), nnfx_arg_node(end), nnfx_arg_node(ax)};
    if (!(cut = nnfx_graph_call_op(g, NNFX_OP_SLICE, 4, sargs, 0, NULL, err)))
        return err && err->status ? err->status : NNFX_ERR_NOMEM;
    nnfx_inserting_at_end(g);
    if (nnfx_replace_all_uses_with(n, cut, NULL, NULL) < 0)
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    if ((st = nnfx_erase_node(g, n, err))) return st;
    *done = true;
    return NNFX_OK;
}

nnfx_status cg_inline_branch(nnfx_graph *g, nnfx_node *n, int branch, nnfx_error *err) {
    ir_ctrl_shape cs;
    nnfx_node *result = NULL;
    nnfx_status st = ir_ctrl_layout(n, &cs, err);
    if (st) return st;
    if (n->op != NNFX_OP_IF || n->nout != 1 || cs.nbodies != 2 || !body_result(cs.body[branch]))
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "codegen: node %s: not an If of one result", n->name);
    nnfx_inserting_before(g, n);
    st = inline_body(g, n, &cs, cs.body[branch], &result, err);
    nnfx_inserting_at_end(g);
    if (st) return st;
    if (nnfx_replace_all_uses_with(n, result, NULL, NULL) < 0)
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    return nnfx_erase_node(g, n, err);
}

nnfx_status cg_inline_empty_ifs(nnfx_graph *g, nnfx_error *err) {
    /* the values after a bounded node (pass_data marks them) */
    for (nnfx_node *n = g->head; n; n = n->next) {
        bool after = cg_bound_source(g, n);
        for (int a = 0; a < n->nargs && !after; a++)
            after = n->args[a].kind == NNFX_ARG_NODE && n->args[a].u.node->pass_data;
        n->pass_data = after ? (void *)n : NULL;
    }
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = g->head, *next; n && !st; n = next) {
        next = n->next;
        if (n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_IF || !n->pass_data) continue;
        ir_ctrl_shape cs;
        bool done;
        if (!(st = ir_ctrl_layout(n, &cs, err))) st = inline_if(g, n, &cs, &done, err);
    }
    for (nnfx_node *n = g->head; n; n = n->next)
        n->pass_data = NULL;
    return st;
}
