/* emit_table.c — the generator's dispatch table, built from the `emit`
 * column of include/nnfx/ops.def: one emitter per op, which
 * emit_kernel_step (emit_ctrl.c) calls instead of switching on op codes. */
#include "codegen/codegen_int.h"

static const cg_emit_fn emit_table[NNFX_OP_COUNT] = {
    [NNFX_OP_NONE] = gen_none,
#define NNFX_OP(e, name, onnx, mi, ma, no, fl, at, inf, ker, cst, emt) [NNFX_OP_##e] = emt,
#include "nnfx/ops.def"
#undef NNFX_OP
};

cg_emit_fn cg_op_emitter(nnfx_op op) {
    if ((int)op <= 0 || op >= NNFX_OP_COUNT) return gen_none;
    return emit_table[op];
}

/* The emitter of an op the generator has no kernel of its own for (its
 * integer and int8 forms, if any, were emitted ahead of the table). */
nnfx_status gen_none(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return cg_unsupported(c, n, "the C generator has no kernel for this op");
}
