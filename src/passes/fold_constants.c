/* fold_constants.c — evaluates every pure node whose inputs are all
 * parameters, literals or already folded values (and Shape of a value whose
 * shape is static) with the CPU kernels, then replaces the frontier of the
 * folded region by new parameters. Shape -> Gather -> Unsqueeze -> Concat
 * chains feeding a Reshape thus become one constant shape parameter.
 * Constant values are computed in three places, all through the op's one
 * kernel (nnfx_op_run / the op table) on inputs gathered one way
 * (ir_const_in_gather, ir/const_eval.c): here, to rewrite the graph (values
 * up to 64 MiB); in shape inference (ir/shape_infer.c, values of at most
 * 4096 elements, to resolve shapes; nothing is rewritten); and in the
 * compiled plan (exec/fast_plan.c, once per plan, kept in the plan). What
 * differs is which values each keeps, not what they compute. */
#include <stdlib.h>
#include <string.h>

#include "ir/infer_int.h"
#include "ir/ir_int.h"
#include "passes/passes_int.h"

/* Largest folded value kept (bytes): larger results stay computed. */
#define FOLD_MAX_BYTES ((size_t)64 << 20)

/* The constant value of n (borrowed), or NULL (an ir_value_fn over g). */
static const nnfx_tensor *value_of(void *ctx, const nnfx_node *n) {
    nnfx_graph *g = ctx;
    if (n->opcode == NNFX_GET_ATTR) return n->graph == g ? ir_node_param(n) : nnfx_graph_param(g, n->target);
    return n->opcode == NNFX_CALL_FUNCTION ? (nnfx_tensor *)n->pass_data : NULL;
}

/* Evaluates n when every input is known (Shape and Size of a statically
 * shaped value too: ir_const_in_gather); returns a new reference or NULL. */
static nnfx_tensor *try_fold(nnfx_graph *g, nnfx_node *n) {
    /* Quantization (int8): DequantizeLinear of an integer weight is how a QDQ
     * model stores it; folding it would turn the model back to float */
    if (n->op == NNFX_OP_DEQUANTIZE_LINEAR) return NULL;
    if (nnfx_op_flags(n->op) & NNFX_F_IMPURE || n->nout != 1 || n->op == NNFX_OP_GETITEM) return NULL;
    ir_const_in ci;
    nnfx_tensor *res = NULL;
    if (!ir_const_in_gather(&ci, n, value_of, g, NULL) && ci.known) {
        nnfx_value_set vs;
        if (nnfx_op_run(n, ci.n, ci.t, &vs, NULL) == NNFX_OK) {
            res = vs.t[0];
            for (int i = 1; i < vs.num; i++)
                nnfx_tensor_release(vs.t[i]);
            if (res && res->nbytes > FOLD_MAX_BYTES) {
                nnfx_tensor_release(res);
                res = NULL;
            }
        }
    }
    ir_const_in_release(&ci);
    return res;
}

nnfx_status nnfx_pass_fold_constants(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "fold-constants: NULL graph");
    ps_begin(report, "fold-constants", g);
    nnfx_graph_infer_shapes(g, NULL); /* static shapes for Shape nodes; unknown is fine */
    for (nnfx_node *n = nnfx_graph_first(g); n; n = n->next)
        n->pass_data = NULL;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = n->next)
        if (n->opcode == NNFX_CALL_FUNCTION) n->pass_data = try_fold(g, n);
    /* Replace folded nodes that something unfolded uses. */
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = nnfx_graph_first(g); n && !st; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || !n->pass_data) continue;
        bool frontier = false;
        for (int u = 0; u < n->nusers && !frontier; u++)
            frontier = !(n->users[u]->opcode == NNFX_CALL_FUNCTION && n->users[u]->pass_data);
        if (!frontier) continue;
        nnfx_inserting_before(g, n);
        char base[200];
        snprintf(base, sizeof base, "const_%s", n->name);
        nnfx_node *c = ps_new_param(g, base, "", (nnfx_tensor *)n->pass_data, err);
        if (!c) {
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
            break;
        }
        if (n->module_path) nnfx_node_set_module_path(c, n->module_path, NULL);
        if (nnfx_replace_all_uses_with(n, c, NULL, NULL) < 0) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            break;
        }
        if (report) report->changed++;
    }
    nnfx_inserting_at_end(g);
    /* Folded nodes are now unused: erase them (users first). */
    for (nnfx_node *n = nnfx_graph_last(g), *prev; n; n = prev) {
        prev = n->prev;
        if (n->opcode == NNFX_CALL_FUNCTION && n->pass_data) {
            nnfx_tensor_release((nnfx_tensor *)n->pass_data);
            n->pass_data = NULL;
            if (n->nusers == 0) nnfx_erase_node(g, n, NULL);
        }
    }
    ps_drop_dead_params(g);
    nnfx_graph_infer_shapes(g, NULL);
    ps_end(report, g);
    return st;
}
