/* plan.c — execution order and value lifetimes of a graph, for the
 * interpreter (one step per node, a value freed after its last user). The
 * compiled plan (fast_plan.c) computes lifetimes of its own on purpose: its
 * steps are fused groups of nodes and a view aliases its input's storage,
 * so a value lives until the last step of anything that aliases it. */
#include <stdint.h>
#include <stdlib.h>

#include "exec/exec_int.h"
#include "ir/ir_int.h"

nnfx_status exec_plan_build(nnfx_graph *g, exec_plan *p, nnfx_error *err) {
    exec_plan_free(p);
    int n = g->num_nodes;
    p->steps = malloc(sizeof *p->steps * (size_t)(n ? n : 1));
    p->last_use = malloc(sizeof *p->last_use * (size_t)(n ? n : 1));
    if (!p->steps || !p->last_use) {
        exec_plan_free(p);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory building the execution plan");
    }
    /* one walk: a linted graph defines every argument before its use, so
     * the argument's step is already this plan's */
    int i = 0;
    for (nnfx_node *nd = g->head; nd && i < n; nd = nd->next, i++) {
        p->steps[i] = nd;
        p->last_use[i] = -1;
        nd->step = i;
        for (int a = 0; a < nd->nargs; a++)
            if (nd->args[a].kind == NNFX_ARG_NODE) {
                const nnfx_node *src = nd->args[a].u.node;
                int s = src->step;
                if (s < 0 || s >= i || p->steps[s] != src) {
                    exec_plan_free(p);
                    return nnfx_error_set(err, NNFX_ERR_GRAPH, "plan: node %s uses %s before it is defined", nd->name,
                                          src->name);
                }
                p->last_use[s] = i;
            }
    }
    p->nsteps = i;
    return NNFX_OK;
}

void exec_plan_free(exec_plan *p) {
    free(p->steps);
    free(p->last_use);
    p->steps = NULL;
    p->last_use = NULL;
    p->nsteps = 0;
}
