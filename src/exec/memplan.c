/* memplan.c — peak activation memory of a compiled GraphModule, from the
 * execution plan's value lifetimes and the inferred node metas. */
#include <stdint.h>
#include <stdlib.h>

#include "exec/exec_int.h"
#include "ir/ir_int.h"

/* Bytes of one meta: unknown dims count as 1, an unknown rank as 0, an
 * unknown dtype as float32; a size past the checked range saturates. */
static int64_t meta_bytes(const nnfx_meta *m) {
    if (!m || m->rank < 0) return 0;
    nnfx_meta e = *m;
    if (e.dtype == NNFX_DTYPE_UNDEFINED) e.dtype = NNFX_F32;
    for (int d = 0; d < e.rank && d < NNFX_MAX_RANK; d++)
        if (e.dims[d].value < 0) e.dims[d].value = 1;
    int64_t b = nnfx_meta_nbytes(&e);
    return b >= 0 ? b : INT64_MAX / 4;
}

/* Bytes a node's value occupies while live. Parameters are not
 * activations; getitem aliases an element of its tuple. */
static int64_t value_bytes(const nnfx_node *n) {
    if (n->opcode == NNFX_GET_ATTR || n->opcode == NNFX_OUTPUT) return 0;
    if (n->opcode == NNFX_CALL_FUNCTION && n->op == NNFX_OP_GETITEM) return 0;
    int64_t sum = 0;
    for (int i = 0; i < n->nout; i++) {
        int64_t b = meta_bytes(&n->meta[i]);
        sum = sum > INT64_MAX / 2 - b ? INT64_MAX / 2 : sum + b;
    }
    return sum;
}

int64_t nnfx_gm_peak_activation_bytes(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "peak_activation_bytes: NULL module");
        return -1;
    }
    if (nnfx_gm_recompile(gm, err)) return -1;
    /* the compiled executor's memory plan is what actually runs */
    int64_t planned = exec_gm_compiled_peak(gm, err);
    if (planned >= 0) return planned;
    if (planned == -2) return -1;
    nnfx_graph *g = nnfx_gm_graph(gm);
    exec_plan p = {0};
    if (exec_plan_build(g, &p, err)) return -1;
    int64_t *bytes = calloc((size_t)(p.nsteps ? p.nsteps : 1), sizeof *bytes);
    if (!bytes) {
        exec_plan_free(&p);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory computing peak activation bytes");
        return -1;
    }
    for (int s = 0; s < p.nsteps; s++)
        bytes[s] = value_bytes(p.steps[s]);
    /* Walk the plan: a value is allocated at its step and freed after the
     * step that reads it last (right away when nothing reads it). Graph
     * outputs are read by the output node, so they stay live to the end. */
    int64_t live = 0, peak = 0;
    for (int s = 0; s < p.nsteps; s++) {
        live += bytes[s];
        if (live > peak) peak = live;
        const nnfx_node *n = p.steps[s];
        if (n->opcode == NNFX_OUTPUT) continue;
        for (int a = 0; a < n->nargs; a++) {
            if (n->args[a].kind != NNFX_ARG_NODE) continue;
            int src = n->args[a].u.node->step; /* its index in the plan just built */
            if (p.last_use[src] == s) {
                live -= bytes[src];
                bytes[src] = 0; /* a node reading a value twice frees it once */
            }
        }
        if (p.last_use[s] < 0) {
            live -= bytes[s];
            bytes[s] = 0;
        }
    }
    free(bytes);
    exec_plan_free(&p);
    return peak;
}
