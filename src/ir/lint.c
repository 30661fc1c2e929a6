/* lint.c — structural checks of a graph, with messages naming the node. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Index of the first attribute of n that its op's schema does not have
 * (*known = false) or has with another kind (*known = true); -1 when
 * every attribute is in the schema with its kind. */
static int first_bad_attr(const nnfx_node *n, bool *known) {
    for (int i = 0; i < n->nattrs; i++) {
        const nnfx_attr *a = &n->attrs[i];
        nnfx_attr_kind kind;
        *known = ir_schema_lookup(n->op, a->name, &kind, NULL);
        if (!*known) return i;
        bool ok = kind == a->kind || (kind == NNFX_ATTR_FLOAT && a->kind == NNFX_ATTR_INT) ||
                  (kind == NNFX_ATTR_FLOATS && a->kind == NNFX_ATTR_INTS);
        if (!ok) return i;
    }
    return -1;
}

bool ir_node_attrs_valid(const nnfx_node *n) {
    bool known;
    return first_bad_attr(n, &known) < 0;
}

/* Checks n's attributes against its op's schema. */
static nnfx_status lint_attrs(const nnfx_node *n, nnfx_error *err) {
    bool known;
    int i = first_bad_attr(n, &known);
    if (i < 0) return NNFX_OK;
    const nnfx_attr *a = &n->attrs[i];
    if (!known)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: %s has no attribute '%s' (schema: %s)", n->name,
                              nnfx_op_name(n->op), a->name,
                              *nnfx_op_attr_schema(n->op) ? nnfx_op_attr_schema(n->op) : "none");
    return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: attribute '%s' of %s has the wrong kind", n->name,
                          a->name, nnfx_op_name(n->op));
}

/* The first entry of n's users list that does not use n, or NULL. */
static const nnfx_node *user_not_using(const nnfx_node *n) {
    for (int k = 0; k < n->nusers; k++) {
        const nnfx_node *u = n->users[k];
        bool uses = false;
        for (int i = 0; i < u->nargs && !uses; i++)
            uses = u->args[i].kind == NNFX_ARG_NODE && u->args[i].u.node == n;
        if (!uses) return u;
    }
    return NULL;
}

/* Node arguments of n: of this graph, defined before n, and n listed among
 * their users. *pairs grows by the number of distinct nodes n uses (each
 * must have one users entry naming n). */
static nnfx_status lint_args(const nnfx_graph *g, const nnfx_node *n, long long *pairs, nnfx_error *err) {
    for (int i = 0; i < n->nargs; i++) {
        if (n->args[i].kind != NNFX_ARG_NODE) continue;
        const nnfx_node *a = n->args[i].u.node;
        bool seen = false; /* an earlier argument of n is the same node */
        for (int j = 0; j < i && !seen; j++)
            seen = n->args[j].kind == NNFX_ARG_NODE && n->args[j].u.node == a;
        *pairs += !seen;
        if (!a || a->graph != g)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: argument %d is a node of another graph", n->name,
                                  i);
        if (a == n) return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s uses itself (a cycle)", n->name);
        if (a->order >= n->order)
            return nnfx_error_set(err, NNFX_ERR_GRAPH,
                                  "lint: node %s uses %s before it is defined (argument %d; a cycle or bad order)",
                                  n->name, a->name, i);
        bool listed = false;
        for (int k = 0; k < a->nusers; k++)
            listed |= a->users[k] == n;
        if (!listed)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s is missing from the users of %s", n->name,
                                  a->name);
    }
    return NNFX_OK;
}

/* A call_function node: a valid op, its argument count and required
 * arguments, getitem's index, attributes (once per edit) and control-flow
 * bodies (every time). */
static nnfx_status lint_call_function(nnfx_node *n, nnfx_error *err) {
    if ((int)n->op <= 0 || n->op >= NNFX_OP_COUNT)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: invalid op id %d", n->name, (int)n->op);
    const nnfx_op_info *info = ir_op_info(n->op);
    if (n->nargs < info->min_inputs || n->nargs > info->max_inputs)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: %s takes %d to %d arguments, has %d", n->name,
                              info->name, info->min_inputs, info->max_inputs, n->nargs);
    for (int i = 0; i < info->min_inputs; i++)
        if (n->args[i].kind == NNFX_ARG_NONE && n->op != NNFX_OP_CLIP && n->op != NNFX_OP_LOOP)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: required argument %d of %s is absent", n->name,
                                  i, info->name);
    if (n->op == NNFX_OP_GETITEM) {
        nnfx_node *src = nnfx_node_arg_node(n, 0);
        nnfx_arg idx = n->args[1];
        if (!src || idx.kind != NNFX_ARG_INT || idx.u.i < 0 || idx.u.i >= src->nout)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: getitem %s: index out of range or not a node", n->name);
    }
    nnfx_status st = n->attrs_linted ? NNFX_OK : lint_attrs(n, err);
    if (st) return st;
    n->attrs_linted = true;
    return ir_op_is_ctrl(n->op) ? ir_ctrl_lint(n, err) : NNFX_OK; /* bodies: every time */
}

/* What n's opcode requires: no arguments for a placeholder, an existing
 * parameter for get_attr, a registered leaf for call_module. */
static nnfx_status lint_opcode(const nnfx_graph *g, nnfx_node *n, nnfx_error *err) {
    switch (n->opcode) {
    case NNFX_PLACEHOLDER:
        return n->nargs ? nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: placeholder %s has arguments", n->name) : NNFX_OK;
    case NNFX_GET_ATTR:
        return ir_node_param_raw(n)
                   ? NNFX_OK
                   : nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: get_attr %s: the graph has no parameter '%s'", n->name,
                                    n->target);
    case NNFX_CALL_MODULE:
        return ir_graph_leaf(g, n->target)
                   ? NNFX_OK
                   : nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: call_module %s: no leaf function '%s' is registered",
                                    n->name, n->target);
    case NNFX_CALL_FUNCTION: return lint_call_function(n, err);
    case NNFX_OUTPUT: break;
    }
    return NNFX_OK;
}

nnfx_status ir_lint_node(nnfx_graph *g, nnfx_node *n, ir_lint_walk *w, nnfx_error *err) {
    w->count++;
    /* users entries are counted here and checked against the uses at the
     * end: reading every user's arguments cost cache misses on large graphs */
    w->user_entries += n->nusers;
    if (n->graph != g) return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s belongs to another graph", n->name);
    w->outputs += n->opcode == NNFX_OUTPUT;
    w->unused += n->nusers == 0 && (n->opcode == NNFX_GET_ATTR || n->opcode == NNFX_CALL_FUNCTION);
    if (n->opcode == NNFX_OUTPUT && n->next)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: output node %s is not the last node", n->name);
    nnfx_status st = lint_args(g, n, &w->user_pairs, err);
    return st ? st : lint_opcode(g, n, err);
}

nnfx_status ir_lint_end(const nnfx_graph *g, const ir_lint_walk *w, nnfx_error *err) {
    /* a users list that names a node not using it is reported only when
     * nothing else is wrong (a wrong argument is the more useful message).
     * Every use has its users entry (lint_args), so there is no other entry
     * exactly when the entries are as many as the distinct uses; else the
     * lists are searched for the first entry in list order that does not
     * use its node (none: a repeated entry, which is not an error). */
    if (w->user_entries != w->user_pairs)
        for (const nnfx_node *n = g->head; n; n = n->next) {
            const nnfx_node *u = user_not_using(n);
            if (u)
                return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s lists %s as a user, which does not use it",
                                      n->name, u->name);
        }
    if (w->count != g->num_nodes)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node count %d differs from the list length %d", g->num_nodes,
                              w->count);
    /* names are unique: every node enters the name table (one entry per
     * name) when created or renamed and leaves it when erased, so the table
     * holds one name per node exactly when none is shared (a per-node lookup
     * cost a cache miss per node on large graphs) */
    if (g->names.count != (size_t)g->num_nodes) { /* name the node that does not own its entry */
        for (const nnfx_node *n = g->head; n; n = n->next)
            if (ir_names_get(&g->names, n->name, n->name_hash) != n)
                return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: duplicate node name %s", n->name);
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: the name table holds %zu names for %d nodes", g->names.count,
                              g->num_nodes);
    }
    if (w->unused != g->unused_removable)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: %d unused nodes, but the graph counts %d", w->unused,
                              g->unused_removable);
    if (w->outputs != 1)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: the graph has %d output nodes (expected 1)", w->outputs);
    return NNFX_OK;
}

nnfx_status nnfx_graph_lint(const nnfx_graph *cg, nnfx_error *err) {
    if (!cg) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "lint: NULL graph");
    nnfx_graph *g = (nnfx_graph *)cg; /* renumbering is not a semantic change */
    ir_graph_renumber(g);
    ir_lint_walk w = {0};
    for (nnfx_node *n = g->head; n; n = n->next) {
        ir_node_prefetch(n, 16);
        nnfx_status st = ir_lint_node(g, n, &w, err);
        if (st) return st;
    }
    return ir_lint_end(g, &w, err);
}
