/* exec_int.h — private interfaces of the execution layer. */
#ifndef NNFX_EXEC_INT_H
#define NNFX_EXEC_INT_H

#include "nnfx.h"

/* A compiled execution order: nodes in topological order, and for each
 * node the index of the last step that reads its value (so the value can be
 * released right after). */
typedef struct exec_plan {
    int nsteps;
    nnfx_node **steps;
    int *last_use; /* per step: last step index reading it (-1: never) */
    int threads;
} exec_plan;

/* Builds a plan for g (linted already). */
nnfx_status exec_plan_build(nnfx_graph *g, exec_plan *p, nnfx_error *err);
void exec_plan_free(exec_plan *p);

/* Peak activation bytes of gm's compiled executor (arena + inputs): from
 * its plan when built, else from the plan's layout alone (no kernels, no
 * weight read); -1 when gm runs in the interpreter; -2 with err set when
 * compiling failed. */
int64_t exec_gm_compiled_peak(nnfx_gm *gm, nnfx_error *err);
/* nnfx_interp_new for a graph the caller has just linted. */
/* Runs an If, Loop or Scan node on concrete inputs (ctrl_run.c): each body
 * in a nested interpreter; out gets new references. */
nnfx_status exec_ctrl_run(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out, nnfx_error *err);
nnfx_interp *exec_interp_new_linted(const nnfx_graph *g, const nnfx_interp_handlers *h, void *user, nnfx_error *err);

/* A readable C-like listing of g's forward (malloc'd; NULL on OOM). */
char *exec_graph_code(const nnfx_graph *g);

#endif
