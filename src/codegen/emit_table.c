/* emit_table.c — the generator's dispatch table, built from the `emit`
 * column of include/nnfx/ops.def: one emitter per op, which
 * emit_kernel_step (emit_ctrl.c) calls instead of switching on op codes,
 * and each family emitter's properties (where it takes its step). */
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

/* The family table: the emitters that take a step ahead of the float32
 * path, or several float32 outputs, with their CG_EMIT_* bits (the others
 * have none). An op's row naming one of these gets its properties. */
static const struct {
    cg_emit_fn fn;
    unsigned props;
} emit_props[] = {
    {gen_ctrl, CG_EMIT_FIRST},
    {gen_reduce, CG_EMIT_WIDE_REDUCE},
    {gen_einsum, CG_EMIT_ANY_STEP},
    {gen_concat, CG_EMIT_HELD_TYPE},
    {gen_transpose, CG_EMIT_HELD_TYPE},
    {gen_expand, CG_EMIT_HELD_TYPE},
    {gen_slice, CG_EMIT_HELD_TYPE},
    {gen_split, CG_EMIT_HELD_TYPE | CG_EMIT_MULTI_OUT},
    {gen_compare, CG_EMIT_NUMERIC},
    {gen_argmax, CG_EMIT_NUMERIC},
    {gen_topk, CG_EMIT_NUMERIC},
    {gen_cast, CG_EMIT_FROM_F32 | CG_EMIT_OWN_VALUES},
    {gen_pad, CG_EMIT_BYTES},
    {gen_rnn, CG_EMIT_OWN_VALUES},
    {gen_layer_norm, CG_EMIT_MULTI_OUT}, /* with Mean / InvStdDev */
    {gen_max_pool, CG_EMIT_MULTI_OUT},   /* with Indices */
};

unsigned cg_op_emit_props(nnfx_op op) {
    const cg_emit_fn e = cg_op_emitter(op);
    for (size_t i = 0; i < sizeof emit_props / sizeof emit_props[0]; i++)
        if (emit_props[i].fn == e) return emit_props[i].props;
    return 0;
}

/* The emitter of an op the generator has no kernel of its own for (its
 * integer and int8 forms, if any, were emitted ahead of the table). */
nnfx_status gen_none(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    return cg_unsupported(c, n, "the C generator has no kernel for this op");
}
