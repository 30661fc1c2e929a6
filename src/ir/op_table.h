/* op_table.h — internal view of the op table (include/nnfx/ops.def):
 * per-op shape inference, kernel and cost functions.
 *
 * Shape inference runs in two settings with one function:
 *  - statically (recompile, shape-prop): input metas may have unknown dims;
 *    in_value[i] is set only for inputs whose value is known (parameters,
 *    literals, folded constants);
 *  - at run time: every input is concrete and in_value[i] is always set, so
 *    ops whose output shape depends on input data (Reshape, Range, Expand,
 *    ConstantOfShape, Slice...) compute exact shapes.
 * The executor allocates outputs of the inferred shape, then calls the
 * kernel, which only fills them.
 */
#ifndef NNFX_OP_TABLE_H
#define NNFX_OP_TABLE_H

#include "nnfx.h"

typedef struct nnfx_infer_ctx {
    const nnfx_node *node;              /* for attributes and error messages       */
    int nin;                            /* number of positional inputs             */
    const nnfx_meta *const *in;         /* in[i]: meta of input i, NULL if absent  */
    const nnfx_tensor *const *in_value; /* known value of input i, or NULL   */
    int nout;                           /* outputs to fill                         */
    nnfx_meta *out;                     /* out[0..nout-1]                          */
    nnfx_error *err;
} nnfx_infer_ctx;

typedef nnfx_status (*nnfx_infer_fn)(nnfx_infer_ctx *c);
/* Fills out[0..nout-1] (already allocated with the inferred shapes and
 * dtypes) from in[0..nin-1] (NULL for absent optional inputs). */
typedef nnfx_status (*nnfx_kernel_fn)(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout,
                                      nnfx_tensor *const *out, nnfx_error *err);
/* Multiply-accumulates and floating-point operations of one call, from the
 * inferred metas (unknown dims count as 1). */
typedef void (*nnfx_cost_fn)(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops);

typedef struct nnfx_op_info {
    const char *name;
    const char *onnx_type;
    int min_inputs, max_inputs, outputs;
    unsigned flags;
    const char *attr_schema;
    nnfx_infer_fn infer;
    nnfx_kernel_fn kernel;
    nnfx_cost_fn cost;
} nnfx_op_info;

/* The table entry of op (op must be valid). */
const nnfx_op_info *ir_op_info(nnfx_op op);

/* Declarations of every infer/kernel/cost function named in ops.def. */
#define NNFX_OP(e, name, onnx, mi, ma, no, fl, at, inf, ker, cst, emt)                                                 \
    nnfx_status inf(nnfx_infer_ctx *c);                                                                                \
    nnfx_status ker(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,            \
                    nnfx_error *err);                                                                                  \
    void cst(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops);
#include "nnfx/ops.def"
#undef NNFX_OP

/* Number of outputs of node n (resolves -1 entries such as Split). */
int ir_node_num_outputs_for(nnfx_op op, const nnfx_node *n);

/* Looks up attribute `name` in op's schema: its kind and its default as a
 * NUL-terminated string (NULL when it has none); false when the op has no
 * such attribute. */
bool ir_schema_lookup(nnfx_op op, const char *name, nnfx_attr_kind *kind, const char **default_text);

/* The names of op's float attributes ("f" in its ops.def row), in the
 * order the row lists them, into names[0..max) (static strings); returns
 * how many it wrote. */
int ir_schema_floats(nnfx_op op, const char **names, int max);

/* Attribute `name` of op node n as an integer (a float one truncated) or a
 * float; when the node does not carry it, the default of n's row in ops.def.
 * A name with no default in that row reads 0: the attribute is required, or
 * its absence means something the caller checks with nnfx_node_attr. The
 * engines (exec, codegen) read attribute defaults only through these, never
 * as literals of their own; the layers test holds this. */
int64_t ir_attr_int(const nnfx_node *n, const char *name);
double ir_attr_float(const nnfx_node *n, const char *name);
/* The same for a string attribute: the node's own (borrowed from it), else
 * the row's default (static), else "" (never NULL). */
const char *ir_attr_string(const nnfx_node *n, const char *name);

/* True when op's attribute `name` is a list of strings ("strs" in the
 * schema): the IR holds it as one string, the items joined by commas, and
 * ONNX import/export convert from/to a STRINGS attribute. */
bool ir_schema_string_list(nnfx_op op, const char *name);

#endif
