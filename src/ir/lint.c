/* lint.c — structural checks of a graph, with messages naming the node. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Checks n's attributes against its op's schema. */
static nnfx_status lint_attrs(const nnfx_node *n, nnfx_error *err) {
    for (int i = 0; i < n->nattrs; i++) {
        const nnfx_attr *a = &n->attrs[i];
        nnfx_attr_kind kind;
        if (!ir_schema_lookup(n->op, a->name, &kind, NULL))
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: %s has no attribute '%s' (schema: %s)", n->name,
                                  nnfx_op_name(n->op), a->name,
                                  *nnfx_op_attr_schema(n->op) ? nnfx_op_attr_schema(n->op) : "none");
        bool ok = kind == a->kind || (kind == NNFX_ATTR_FLOAT && a->kind == NNFX_ATTR_INT) ||
                  (kind == NNFX_ATTR_FLOATS && a->kind == NNFX_ATTR_INTS);
        if (!ok)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: attribute '%s' of %s has the wrong kind",
                                  n->name, a->name, nnfx_op_name(n->op));
    }
    return NNFX_OK;
}

nnfx_status nnfx_graph_lint(const nnfx_graph *cg, nnfx_error *err) {
    if (!cg) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "lint: NULL graph");
    nnfx_graph *g = (nnfx_graph *)cg; /* renumbering is not a semantic change */
    ir_graph_renumber(g);
    nnfx_status st = NNFX_OK;
    int count = 0, outputs = 0;
    /* first users-list entry that does not use its node; reported only when
     * nothing else is wrong (a wrong argument is the more useful message) */
    const nnfx_node *bad_of = NULL, *bad_user = NULL;
    /* the name-table slot of a node 8 ahead is fetched while this one is
     * checked: on large graphs each lookup would otherwise miss the cache */
    nnfx_node *ahead = g->head;
    for (int k = 0; k < 8 && ahead; k++)
        ahead = ahead->next;
    for (nnfx_node *n = g->head; n; n = n->next) {
        count++;
        if (ahead) {
            ir_strmap_prefetch(&g->names, ahead->name_hash);
            ahead = ahead->next;
        }
        for (int k = 0; k < n->nusers && !bad_of; k++) {
            const nnfx_node *u = n->users[k];
            bool uses = false;
            for (int i = 0; i < u->nargs && !uses; i++)
                uses = u->args[i].kind == NNFX_ARG_NODE && u->args[i].u.node == n;
            if (!uses) {
                bad_of = n;
                bad_user = u;
            }
        }
        if (n->graph != g) {
            st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s belongs to another graph", n->name);
            break;
        }
        /* names are unique exactly when each node owns its entry in the name table */
        if (ir_strmap_get_h(&g->names, n->name, n->name_hash) != n) {
            st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: duplicate node name %s", n->name);
            break;
        }
        if (n->opcode == NNFX_OUTPUT) {
            outputs++;
            if (n->next) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: output node %s is not the last node", n->name);
                break;
            }
        }
        for (int i = 0; i < n->nargs; i++) {
            if (n->args[i].kind != NNFX_ARG_NODE) continue;
            nnfx_node *a = n->args[i].u.node;
            if (!a || a->graph != g) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: argument %d is a node of another graph",
                                    n->name, i);
                goto done;
            }
            if (a == n) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s uses itself (a cycle)", n->name);
                goto done;
            }
            if (a->order >= n->order) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH,
                                    "lint: node %s uses %s before it is defined (argument %d; a cycle or bad order)",
                                    n->name, a->name, i);
                goto done;
            }
            bool listed = false;
            for (int k = 0; k < a->nusers; k++)
                listed |= a->users[k] == n;
            if (!listed) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s is missing from the users of %s", n->name,
                                    a->name);
                goto done;
            }
        }
        switch (n->opcode) {
        case NNFX_PLACEHOLDER:
            if (n->nargs) st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: placeholder %s has arguments", n->name);
            break;
        case NNFX_GET_ATTR:
            if (!ir_node_param_raw(n))
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: get_attr %s: the graph has no parameter '%s'", n->name,
                                    n->target);
            break;
        case NNFX_CALL_MODULE:
            if (!ir_graph_leaf(g, n->target))
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: call_module %s: no leaf function '%s' is registered",
                                    n->name, n->target);
            break;
        case NNFX_CALL_FUNCTION: {
            if ((int)n->op <= 0 || n->op >= NNFX_OP_COUNT) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: invalid op id %d", n->name, (int)n->op);
                break;
            }
            const nnfx_op_info *info = ir_op_info(n->op);
            if (n->nargs < info->min_inputs || n->nargs > info->max_inputs) {
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: %s takes %d to %d arguments, has %d", n->name,
                                    info->name, info->min_inputs, info->max_inputs, n->nargs);
                break;
            }
            for (int i = 0; i < info->min_inputs && !st; i++)
                if (n->args[i].kind == NNFX_ARG_NONE && n->op != NNFX_OP_CLIP && n->op != NNFX_OP_LOOP)
                    st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s: required argument %d of %s is absent",
                                        n->name, i, info->name);
            if (!st && n->op == NNFX_OP_GETITEM) {
                nnfx_node *src = nnfx_node_arg_node(n, 0);
                nnfx_arg idx = n->args[1];
                if (!src || idx.kind != NNFX_ARG_INT || idx.u.i < 0 || idx.u.i >= src->nout)
                    st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: getitem %s: index out of range or not a node",
                                        n->name);
            }
            if (!st && !n->attrs_linted) st = lint_attrs(n, err);
            if (!st) n->attrs_linted = true;
            if (!st && ir_op_is_ctrl(n->op)) st = ir_ctrl_lint(n, err); /* bodies: every time */
            break;
        }
        case NNFX_OUTPUT: break;
        }
        if (st) break;
    }
    if (!st && bad_of)
        st = nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node %s lists %s as a user, which does not use it",
                            bad_of->name, bad_user->name);
done:
    if (st) return st;
    if (count != g->num_nodes)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: node count %d differs from the list length %d", g->num_nodes,
                              count);
    if (outputs != 1)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "lint: the graph has %d output nodes (expected 1)", outputs);
    return NNFX_OK;
}
