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
 * path, write several float32 outputs or read only some of their inputs as
 * data, with their CG_EMIT_* bits (the others have none). An op's row
 * naming one of these gets its properties. */
static const struct {
    cg_emit_fn fn;
    unsigned props;
} emit_props[] = {
    {gen_ctrl, CG_EMIT_FIRST},
    {gen_reduce, CG_EMIT_WIDE_REDUCE | CG_EMIT_DATA_FIRST}, /* the axes: read at generation */
    {gen_einsum, CG_EMIT_ANY_STEP},
    {gen_concat, CG_EMIT_HELD_TYPE | CG_EMIT_DATA_NONE},
    {gen_transpose, CG_EMIT_HELD_TYPE},
    {gen_expand, CG_EMIT_HELD_TYPE | CG_EMIT_DATA_FIRST}, /* the shape: the output's */
    {gen_slice, CG_EMIT_HELD_TYPE | CG_EMIT_DATA_FIRST},
    {gen_split, CG_EMIT_HELD_TYPE | CG_EMIT_MULTI_OUT | CG_EMIT_DATA_FIRST}, /* the sizes: the outputs' shapes */
    {gen_compare, CG_EMIT_NUMERIC},
    {gen_argmax, CG_EMIT_NUMERIC},
    {gen_topk, CG_EMIT_NUMERIC},
    {gen_cast, CG_EMIT_FROM_F32 | CG_EMIT_OWN_VALUES},
    {gen_pad, CG_EMIT_BYTES | CG_EMIT_DATA_FIRST},
    {gen_rnn, CG_EMIT_OWN_VALUES},
    {gen_layer_norm, CG_EMIT_MULTI_OUT}, /* with Mean / InvStdDev */
    {gen_max_pool, CG_EMIT_MULTI_OUT},   /* with Indices */
    {gen_clip, CG_EMIT_DATA_FIRST},      /* the bounds: cg_unary_params */
    {gen_gather, CG_EMIT_DATA_FIRST},
    {gen_dft, CG_EMIT_DATA_FIRST},  /* dft_length: a constant */
    {gen_stft, CG_EMIT_DATA_FIRST}, /* frame_step, frame_length: constants; the window read by the emitter */
    {gen_reverse_sequence, CG_EMIT_DATA_FIRST}, /* the lengths: read by the emitter as int64 / int32 */
    {gen_tile, CG_EMIT_DATA_FIRST},             /* the repeats: the output's shape */
    {gen_resize, CG_EMIT_DATA_FIRST},
    {gen_view, CG_EMIT_DATA_FIRST}, /* Reshape's shape, Squeeze's axes, Dropout's ratio: not read */
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
