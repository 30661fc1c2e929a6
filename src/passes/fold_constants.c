/* fold_constants.c — evaluates every pure node whose inputs are all
 * parameters, literals or already folded values (and Shape of a value whose
 * shape is static) with the CPU kernels, then replaces the frontier of the
 * folded region by new parameters. Shape -> Gather -> Unsqueeze -> Concat
 * chains feeding a Reshape thus become one constant shape parameter.
 * The rewrite itself is ir_fold_constants (ir/const_eval.c), which the C
 * generator's loop unrolling calls too; this file is the pass around it
 * (its report), with the op's one kernel (nnfx_op_run) as the evaluator. */
#include "ir/ir_int.h"
#include "nnfx.h"
#include "passes/passes_int.h"

nnfx_status nnfx_pass_fold_constants(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "fold-constants: NULL graph");
    ps_begin(report, "fold-constants", g);
    nnfx_status st = ir_fold_constants(g, nnfx_op_run, report ? &report->changed : NULL, err);
    ps_end(report, g);
    return st;
}
