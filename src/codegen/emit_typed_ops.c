/* emit_typed_ops.c — steps whose values are integers or bools outside the
 * int8 (QDQ) islands (cg_emit_typed_op, src/codegen/codegen_int.h). */
#include "codegen/codegen_int.h"

nnfx_status cg_emit_typed_op(cg *c, const fx_step_view *s, bool *handled) {
    (void)c, (void)s;
    *handled = false;
    return NNFX_OK;
}
