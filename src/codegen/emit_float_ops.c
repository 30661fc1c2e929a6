/* emit_float_ops.c — float32 ops the generator writes besides those of
 * codegen.c's own switch (cg_emit_float_op, src/codegen/codegen_int.h). */
#include "codegen/codegen_int.h"

nnfx_status cg_emit_float_op(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y) {
    (void)s, (void)in, (void)y;
    return cg_unsupported(c, n, "the C generator has no kernel for this op");
}
