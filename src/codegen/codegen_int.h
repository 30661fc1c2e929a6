/* codegen_int.h — internals of the C generator (src/codegen/): the
 * generator's state and the helpers its emitters share (codegen.c writes
 * the files and the plan's steps; emit_*.c add the kernels of further ops). */
#ifndef NNFX_CODEGEN_INT_H
#define NNFX_CODEGEN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sbuf.h"
#include "exec/plan_view.h"
#include "ir/infer_int.h"
#include "nnfx.h"

#define CG_SECTION_NAME 48  /* room for a runtime section's name (with its NUL) */
#define CG_MAX_BOUNDED  256 /* data-dependent nodes (NonZero...) a model may have */
#define CG_MAX_FILLS    256 /* padding fills before the nodes that read along a data-dependent dim */

/* An extent (extents.c): an integer known at run time that sizes a dim
 * depending on the data. A data-dependent node's actual dim (SRC: the
 * dims array its kernel writes), a constant, or an integer function of
 * extents (a TopK's K = min(count, 300), the rows of a Concat along such a
 * dim, a Slice's count...). Equal expressions are one extent (hash-consed),
 * so values that agree at run time share it. */
typedef enum cg_xkind {
    CG_X_CONST, /* v */
    CG_X_SRC,   /* element v % NNFX_MAX_RANK of the dims array of output v / NNFX_MAX_RANK % 4 of bounded
                 * node v / (4 * NNFX_MAX_RANK) */
    CG_X_MIN,
    CG_X_MAX,
    CG_X_ADD,
    CG_X_SUB,
    CG_X_MUL,
    CG_X_EQ,   /* a == b: 0 or 1 */
    CG_X_LT,   /* a < b: 0 or 1 */
    CG_X_SEL,  /* c != 0 ? a : b */
    CG_X_DATA, /* element v % CG_SYM_MAX of small integer value root[v / CG_SYM_MAX] of its cg_bounds, read at
                * run time after the step computing it (a size a loop body reads from data: a box's width) */
} cg_xkind;
typedef struct cg_xp {
    cg_xkind kind;
    int a, b, c; /* operands (extent ids) */
    int64_t v;
    int64_t at_bound; /* its value when every source extent is at its bound (what the static shapes hold) */
    bool nonneg;      /* provably >= 0 at run time */
    bool safe;        /* provably <= at_bound and >= 0 at run time (else a dim it sizes is checked) */
    bool dim;         /* it sizes a dim of some value */
    bool data;        /* it reads a CG_X_DATA extent: at_bound is hi, the most its interval allows */
    int64_t lo, hi;   /* the interval its run-time value lies in (for CG_X_DATA: from intervals.c) */
} cg_xp;

/* A value whose dims may depend on the data: per dim, the extent id it
 * holds, or -1 for a static dim. */
typedef struct cg_dyn {
    const nnfx_node *node;
    int ext[NNFX_MAX_RANK];
} cg_dyn;

/* A small integer value computed from extents (a Shape of a value whose
 * size depends on the data, and arithmetic on it): per element its extent
 * id, or -1 when not known. Generated C never computes it; the plan folds
 * it at the bound, and only readers that size a dim with it are taken. */
#define CG_SYM_MAX 8
typedef struct cg_sym {
    const nnfx_node *node;
    int n;
    int el[CG_SYM_MAX];
    bool runtime; /* the plan computes its true value at run time (a loop body's, from data alone) */
} cg_sym;

/* What a node that reads along a data-dependent dim needs in its input's
 * padding first (bounds.c): the value that leaves its result unchanged. */
typedef enum cg_fill_kind { CG_FILL_ZERO, CG_FILL_ONE, CG_FILL_LOWEST, CG_FILL_HIGHEST } cg_fill_kind;
typedef struct cg_fill {
    const nnfx_node *node; /* before this node runs */
    int arg;               /* the input whose padding is filled */
    cg_fill_kind fill;
    unsigned mean_dims; /* a ReduceMean: the input's data-dependent dims it averages over (bits) */
} cg_fill;

/* The data-dependent nodes of a graph and the values after them (bounds.c). */
typedef struct cg_bounds {
    const nnfx_node *src[CG_MAX_BOUNDED]; /* NonZero, Compress, Unique, NonMaxSuppression */
    bool src_dyn_in[CG_MAX_BOUNDED];      /* its input has data-dependent dims itself (a NonZero) */
    int nsrc;
    cg_dyn *dyn; /* values with data-dependent dims (malloc'd) */
    int ndyn, cap;
    cg_xp *xp; /* the extents (malloc'd) */
    int nxp, xcap;
    cg_sym *sym; /* values computed from extents (malloc'd) */
    int nsym, symcap;
    const nnfx_node **kept; /* nodes the plan must not fold (a fill before them, a Concat along an extent) */
    int nkept, keptcap;
    nnfx_node **folded; /* static small values computed for shape inference (their pass_data, released) */
    int nfolded, foldcap;
    cg_fill fill[CG_MAX_FILLS];
    int nfill;
    /* a Loop body's sizes read from data (bound_loop): the body's bounds are a cg_bounds of their own */
    int depth;              /* 0: the model's graph; a body: one more than its Loop's graph */
    const nnfx_node **root; /* small integer values read as CG_X_DATA extents (malloc'd) */
    int nroot, rootcap;
    const nnfx_graph *graph;   /* the graph these bounds are of */
    const nnfx_node *loop;     /* a body's: its Loop node, in parent's graph */
    struct cg_bounds *parent;  /* a body's: the bounds of its Loop's graph */
    struct cg_bounds **bodies; /* the bodies' own bounds (malloc'd, each freed with these) */
    cg_dyn *starts;            /* Slices from starts read from data: per input dim its first index's extent
                                * (-1: 0) (malloc'd) */
    int nstarts, startcap;
    int nbodies, bodycap;
} cg_bounds;

typedef struct cg_op_stat {
    nnfx_op op;
    int nodes;
    int64_t weight_bytes, macs;
} cg_op_stat;

/* What --int8-io left to the caller: the QuantizeLinear of each model input
 * and the DequantizeLinear of each output (per tensor, int8). */
typedef struct cg_int8io {
    int nin, nout;
    float in_scale[256], out_scale[256];
    int32_t in_zp[256], out_zp[256];
} cg_int8io;

typedef struct cg {
    const nnfx_graph *g;
    const fx_plan *p;
    const char *name;
    const nnfx_node **nodes; /* graph position -> node */
    int nnodes;
    int *weight_id; /* value -> weight array number + 1 (0: none yet) */
    int *packed_id; /* value -> its conv-packed weight array number + 1 */
    int nvalues, nweights;
    bool size; /* --optimize size: no weight packing, the smallest kernels */
    int64_t weight_bytes;
    char (*sections)[CG_SECTION_NAME]; /* grown as needed (cg_use_section); copies: a dependency's name lives on
                                          cg_use_section's stack */
    int nsections, sections_cap;
    bool sections_oom; /* a section could not be recorded (out of memory, or a name too long) */
    bool libm;
    sbuf body, weights, decls;
    cg_op_stat stats[NNFX_OP_COUNT];
    nnfx_error *err;
    int int8_steps;        /* int8 islands emitted */
    int64_t scratch_bytes; /* working memory past the plan's arena (recurrent layers, resizes), multiple of 64 */
    bool weights_stdint;   /* the weights file includes <stdint.h> */
    /* control flow: the plan being written is the model's or a body's
     * (emit_body); bodies' arenas and loop buffers lie past the model's
     * arena and the steps' working memory */
    int64_t base;        /* byte offset of this plan's arena in A (0: the model's) */
    char (*in_expr)[64]; /* a body: the C expression of each body input ("": none) */
    int nin_expr;        /* entries of in_expr */
    char (*out_dst)[64]; /* a body: where each result is copied ("": nowhere) */
    int depth;           /* nesting of bodies (names the loop counters) */
    int64_t scratch_off; /* byte offset in A of the steps' working memory */
    int64_t ctrl_base;   /* byte offset in A of the first body region */
    int64_t ctrl_bytes;  /* bytes of body regions in use (multiples of 64): a stack, a control-flow
                          * step's regions are free again once it is written, an If's branches share */
    int64_t ctrl_peak;   /* the most ctrl_bytes were */
    /* the model's inputs and outputs: NAME_run takes `const void *` / `void *` pointers when one is not
     * float32 (void_io), and each input's type */
    bool void_io;
    bool int_only;              /* --int8-io: int8 inputs and outputs, no float anywhere (section q8fix for q8) */
    const struct cg_int8io *io; /* int_only: the inputs' and outputs' quantization */
    const nnfx_dtype *in_dtype;
    int nin_model;
    bool may_fail; /* NAME_run may return 2: a DynamicQuantizeLinear of NaN or infinity, a MelWeightMatrix
                    * of a sample rate <= 0 */
    /* model input k's values fixed at generation (nnfx_codegen_options), else NULL: NAME_run checks them */
    const nnfx_tensor **fixed_in;
    /* the model input, or value computed from model inputs, an emitter of this step wanted constant
     * (const_input): cg_unsupported names the inputs and the --value that fix them */
    const nnfx_node *want_value;
    /* nodes whose output size depends on the data, bounded (emit_bounded.c); NAME_run_dims reports their dims */
    const nnfx_node *const *bounded;
    int nbounded;
    const cg_bounds *bnd; /* those nodes and the values after them, NULL when none */
    bool dims_api;        /* outputs may be sized by the data: NAME_run_dims reports their dims */
    unsigned char *xdef;  /* per extent of bnd: its local is declared (cg_define_extent) */
} cg;

/* The portable kernels of src/rt/, embedded at build time
 * (CMake turns each file into a string: runtime_text.c in the build tree).
 * Terminated by an entry with name NULL. */
typedef struct cg_runtime_file {
    const char *name; /* file name, e.g. "nnfx_rt_kernels.h" */
    const char *text; /* its whole text */
} cg_runtime_file;

extern const cg_runtime_file cg_runtime_files[];

/* ---- the generator's helpers (codegen.c, emit_ops.c, emit_moves.c, emit_ctrl.c, emit_int8.c) */

/* Marks runtime section `name` (and the sections its "needs:" names) to be
 * copied into the generated file; a section flagged libm makes it need libm.
 * The list grows as needed; when a section cannot be recorded (out of
 * memory) c->sections_oom is set and nnfx_codegen fails. */
void cg_use_section(cg *c, const char *name);

/* Frees c's list of used sections. */
void cg_sections_free(cg *c);
/* Appends v to b as an exact C float literal (hex), NAN or +-INFINITY. */
void cg_float_lit(sbuf *b, float v);
/* Declares and defines the next float weight array NAME_wID holding d[0..n)
 * (value v's data, for node user, described by `what`); returns ID. */
int cg_emit_weight_array(cg *c, const nnfx_node *user, int v, const char *what, const float *d, int64_t n);
/* The next constant array (int8_t when i8, else float) of n values from
 * data, commented with src and what, counted against op; returns its ID. */
int cg_emit_const_array(cg *c, bool i8, const void *data, int64_t n, const char *src, const char *what, nnfx_op op);
/* The same for n int32 values (fixed-point requantization parameters). */
int cg_emit_i32_array(cg *c, const int32_t *data, int64_t n, const char *src, const char *what, nnfx_op op);
/* C expression for float32 value v (an arena slice, a model input, a weight
 * array) as `float *` into buf; NNFX_ERR_UNSUPPORTED naming user when v is
 * no float32 data generated C holds. */
nnfx_status cg_value_expr(cg *c, int v, const nnfx_node *user, char *buf, size_t len);
/* C expression for value v of type dt: float32 as cg_value_expr, other
 * types as `unsigned char *` bytes (arena or model input). */
nnfx_status cg_value_typed(cg *c, int v, nnfx_dtype dt, const nnfx_node *user, char *buf, size_t len);
/* The meta of node n's argument a when it is a node, else NULL (also for
 * an a past n's arguments). */
const nnfx_meta *cg_arg_meta(const nnfx_node *n, int a);
/* Elements of static meta m. */
int64_t cg_meta_numel(const nnfx_meta *m);
/* The float value of step s's constant scalar input a into *out (dflt when
 * absent); false when present but not a constant scalar. */
bool cg_const_float(cg *c, const fx_step_view *s, int a, float dflt, float *out);
/* Appends `static const long NAME[k] = {v...};` (a block's local) to b. */
void cg_emit_longs(sbuf *b, const char *name, int k, const int64_t *v);
/* emit_qlinear.c: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger
 * or DynamicQuantizeLinear step s (nnfx_rt_qlinear.h's loops, the
 * interpreter's). */
nnfx_status cg_emit_qlinear(cg *c, const fx_step_view *s);
/* The plan value of node n (its position in the graph), -1 when none. */
int cg_node_value(const cg *c, const nnfx_node *n);
/* Sets NNFX_ERR_UNSUPPORTED "codegen: node N (op): why" and returns it. */
nnfx_status cg_unsupported(cg *c, const nnfx_node *n, const char *why);
/* The runtime's scalar function name of a map op ("relu"...: the name of
 * its row, whose emit is gen_map or gen_clip), or NULL. */
const char *cg_unary_fn(nnfx_op op);
/* alpha/beta (or Clip's min/max) of unary node n in step s: its row's
 * float attributes in their order (Clip: its inputs); false when Clip's
 * are not constants. */
bool cg_unary_params(cg *c, const fx_step_view *s, const nnfx_node *n, float *a, float *b);
/* Emits y[i] = nnfx_rt_<fn>(x[i], a, b) for i < n. */
void cg_emit_map(cg *c, const char *fn, const char *x, const char *y, int64_t n, float a, float b);
/* The runtime's scalar function name of a binary float op ("add"...: the
 * name of its row, whose emit is gen_binary), or NULL. */
const char *cg_binary_fn(nnfx_op op);
/* Whether the runtime (src/rt/) has an @rt section called name. */
bool cg_has_section(const char *name);
/* The broadcast of binary node n's operands to its output, merged (rank <= 6). */
nnfx_status cg_plan_bcast(cg *c, const nnfx_node *n, kern_bcast *bp);
/* Emits binary node n: y = fn(a, b) with ONNX broadcasting. */
nnfx_status cg_emit_binary(cg *c, const nnfx_node *n, const char *fn, const char *a, const char *b, const char *y);
/* The window geometry of a 1-d or 2-d conv or pool into g[0..12): H W OH OW
 * KH KW stride h/w, pad top/left, dilation h/w. */
void cg_window_geo(const nnfx_meta *xm, const nnfx_meta *ym, const int64_t *in_sp, const ir_window *win, int64_t *g);
/* How many of a step's first inputs are data read at run time (the rest are
 * constant parameters read at generation): from the CG_EMIT_DATA_* bits of
 * op's emitter (all nin where it has none). */
int cg_data_inputs(nnfx_op op, int nin);
/* The op code of a comparison for nnfx_rt_compare / nnfx_rt_tcompare
 * (Greater 0, Less 1, GreaterOrEqual 2, LessOrEqual 3, Equal 4), found by
 * its row's name, or -1. */
int cg_compare_code(nnfx_op op);
/* uint8 / int8 / int32: the int8 steps' arena types. */
bool cg_int_dtype(nnfx_dtype dt);
/* The non-float types generated C keeps as bytes (int8 steps', int64, bool). */
bool cg_bytes_dtype(nnfx_dtype dt);

/* ---- further emitters --------------------------------------------------------- */

/* The generated-C emitter of an op, the `emit` column of include/nnfx/ops.def:
 * writes kernel step s of node n (its last node). For a float32 step that
 * reaches the table lookup of emit_kernel_step, in: the step's data inputs as
 * C expressions (cg_data_inputs of them; "" for an absent one) and y: its
 * output; both NULL where emit_kernel_step calls it ahead of the float32 path
 * (control flow, Einsum, the moves, comparisons, casts and reductions of
 * other types), where the emitter reads its values itself. */
typedef nnfx_status (*cg_emit_fn)(cg *c, const fx_step_view *s, const nnfx_node *n, char (*in)[64], const char *y);
/* Every emitter named in ops.def's emit column (emit_*.c, emit_table.c). */
#define NNFX_OP(e, name, onnx, mi, ma, no, fl, at, inf, ker, cst, emt)                                                 \
    nnfx_status emt(cg *c, const fx_step_view *s, const nnfx_node *n, char(*in)[64], const char *y);
#include "nnfx/ops.def"
#undef NNFX_OP
/* emit_table.c: op's emitter from ops.def's emit column (gen_none for an
 * invalid op). */
cg_emit_fn cg_op_emitter(nnfx_op op);
/* Where an emitter of the emit column takes a step ahead of
 * emit_kernel_step's float32 path (called with in and y NULL: it reads its
 * values itself), which float32 steps of several outputs it writes and
 * which of its inputs are data (cg_data_inputs): a
 * property of the emitter, set in emit_table.c's family table, so an op
 * whose row names such an emitter needs no edit in emit_kernel_step. The
 * bits are tried in this order, each where its condition holds. */
enum {
    CG_EMIT_FIRST = 1 << 0,       /* every step, before bounded and data-sized values (control flow) */
    CG_EMIT_WIDE_REDUCE = 1 << 1, /* an int64 or float64 input giving the same type (reductions) */
    CG_EMIT_ANY_STEP = 1 << 2,    /* every step, ahead of the ops over other types (Einsum) */
    CG_EMIT_HELD_TYPE = 1 << 3,   /* an output of a type generated C holds, ahead of those ops (the moves) */
    CG_EMIT_NUMERIC = 1 << 4,     /* every step those ops leave, float32 or another numeric type */
    CG_EMIT_FROM_F32 = 1 << 5,    /* a float32 first input, an int64 or bool output (casts) */
    CG_EMIT_BYTES = 1 << 6,       /* an output of another type than float32 with a type code (moved bytes) */
    CG_EMIT_OWN_VALUES = 1 << 7,  /* a float32 step, its values read by the emitter (recurrent layers, Cast) */
    CG_EMIT_MULTI_OUT = 1 << 8,   /* float32 steps of several outputs are written (Split, MaxPool, ...) */
    CG_EMIT_DATA_FIRST = 1 << 9,  /* only input 0 is data read at run time (the rest: constants of the op) */
    CG_EMIT_DATA_NONE = 1 << 10   /* no input is passed as a C expression (the emitter reads them: Concat) */
};
/* emit_table.c: the CG_EMIT_* bits of op's emitter (0 for one that takes
 * only single-output float32 steps, through the table lookup). */
unsigned cg_op_emit_props(nnfx_op op);
/* emit_float_ops.c: MaxPool of 1 to 3 spatial dims with its Indices output
 * when it has one, of any type generated C holds (nnfx_rt_maxpool_idx). */
nnfx_status cg_emit_maxpool_idx(cg *c, const fx_step_view *s);
/* emit_float_ops.c: a reduction (emit_reduce's kind: 0 mean, 1 sum, 2 max,
 * 3 min, 4..9 product, L1, L2, log-sum, log-sum-exp, sum of squares) of node
 * n's input x over the dims with axis[d] set when they are not adjacent. */
nnfx_status cg_emit_reduce_axes(cg *c, const nnfx_node *n, const char *x, const char *y, const bool *axis, int kind);
/* emit_typed_ops.c: a kernel step over values that are not all float32
 * (integer and bool arithmetic, logic, comparisons, Where, Cast, Trilu) or a
 * float op reading integer indices (GatherElements, computed Gather,
 * Scatter*, OneHot, EyeLike, the losses); emit_kernel_step (emit_ctrl.c)
 * offers it every kernel step first. Sets *handled false (returning
 * NNFX_OK) when it leaves the step to emit_kernel_step. */
nnfx_status cg_emit_typed_op(cg *c, const fx_step_view *s, bool *handled);
/* emit_typed_ops.c: C expression of value v of type dt as `const unsigned
 * char *` (a constant of another type than float32 as an array of its C
 * type in the weights file). */
nnfx_status cg_value_bytes(cg *c, int v, nnfx_dtype dt, const nnfx_node *user, char *buf, size_t len);
/* The runtime's type code of dt (nnfx_rt_typed.h), -1 when generated C
 * holds no such values. */
int cg_tcode(nnfx_dtype dt);
/* C expression of step s's input a as `const unsigned char *` bytes of
 * type dt (a constant of another type than float32: an array of its C type
 * in the weights file). */
nnfx_status cg_typed_in(cg *c, const fx_step_view *s, int a, nnfx_dtype dt, char *buf, size_t len);
/* C expression of value v (a step's output of type dt) as `unsigned char *`. */
nnfx_status cg_typed_out(cg *c, int v, nnfx_dtype dt, const nnfx_node *n, char *buf, size_t len);

/* Working memory for one step past the plan's arena (*used: bytes the step
 * took already, from 0): its C expression `(A + k)` (64-byte aligned) into
 * buf. */
void cg_step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len);

/* ---- outputs whose size depends on the data (emit_bounded.c) ---------------- */

/* bounds.c: whether g has a node whose output size depends on the data
 * that generated C can bound (cg_set_bounds would find one). */
bool cg_has_bounds(const nnfx_graph *g);
/* bounds.c: whether n is a node of g whose output size depends on the data
 * that generated C can bound. */
bool cg_bound_source(const nnfx_graph *g, const nnfx_node *n);
/* inline_if.c: in g (a codegen copy), each If reading a value after such a
 * node whose one branch yields only an empty constant becomes its other
 * branch, inlined and cut to no rows when the condition picks the empty
 * one (torchvision's batched_nms). Shapes must be inferred again. */
nnfx_status cg_inline_empty_ifs(nnfx_graph *g, nnfx_error *err);
/* inline_if.c: t (not taken over) as a new parameter of g named after node n
 * and what ("N_what", made unique), read by a get_attr node at the insert
 * point; NULL with err set. */
nnfx_node *cg_param_node(nnfx_graph *g, const nnfx_node *n, const char *what, nnfx_tensor *t, nnfx_error *err);
/* inline_if.c: copies body (of control-flow node n) into g at its insert
 * point: its placeholders read in[0..nin) in order, its parameters become
 * g's (named after n), and the copies of its first nresults results go to
 * results. */
nnfx_status cg_copy_body(nnfx_graph *g, const nnfx_node *n, const nnfx_graph *body, nnfx_node *const *in, int nin,
                         nnfx_node **results, int nresults, nnfx_error *err);
/* loop_append.c: in g (a codegen copy, shapes inferred) and its bodies,
 * each Loop carried value grown by a Concat of a static piece along axis 0
 * each trip (read by nothing else in the body; a loop nothing stops early)
 * becomes a scan output of the pieces, merged to rows after the initial
 * value. Shapes must be inferred again. */
nnfx_status cg_loop_appends_to_scans(nnfx_graph *g, nnfx_error *err);
/* loop_append.c: whether Loop n of g (body its body) runs every trip once
 * it starts: no condition operand, or a true constant one its body returns
 * unchanged. */
bool cg_loop_runs_all_trips(const nnfx_graph *g, const nnfx_node *n, const nnfx_graph *body);
/* codegen.c: captured value k of control-flow node n (a constant, t)
 * made a parameter of its bodies, the operand dropped. */
nnfx_status cg_inline_capture(nnfx_node *n, int k, nnfx_tensor *t, nnfx_error *err);
/* loop_append.c: one carried value Loop n of g grows by appending (as
 * cg_loop_appends_to_scans takes them) made a scan output (*changed then),
 * when one is; n's shapes are to be inferred again after. */
nnfx_status cg_loop_append_in(nnfx_graph *g, nnfx_node *n, bool *changed, nnfx_error *err);
/* unroll_loop.c: the first node of g (or of a body inside it, looked at
 * before the node holding it) whose output shape is not static, or NULL. */
const nnfx_node *cg_first_unsized(const nnfx_graph *g);
/* unroll_loop.c: in g (a codegen copy, shapes inferred), each Loop whose
 * shapes are not static but whose trip count is known at generation (with
 * no condition that can stop it early) becomes its trips: one copy of its
 * body per trip, the trip number a constant. Constants are folded first
 * where a trip count is computed. Shapes are inferred again. */
nnfx_status cg_unroll_loops(nnfx_graph *g, nnfx_error *err);
/* inline_if.c: If node n of g (one result) replaced by its branch `branch`
 * (0: then, 1: else) copied before it, its captures read from n's
 * operands; n is erased. */
nnfx_status cg_inline_branch(nnfx_graph *g, nnfx_node *n, int branch, nnfx_error *err);
/* bounds.c: gives each node of g (a copy, shapes inferred) whose output
 * size depends on the data (NonZero, Compress, Unique, NonMaxSuppression) its
 * bound as a static shape, infers the nodes after it again from that bound,
 * and lists in *b the values whose dims depend on the data (their extents),
 * the small integers computed from those sizes, the padding fills their
 * readers need and the nodes the plan must not fold. An If whose condition
 * is known at generation is replaced in g by its branch. Uses the nodes'
 * pass_data while it runs. NNFX_ERR_UNSUPPORTED naming the first node that
 * reads such a value and cannot be generated over its bound (and the
 * --outputs for the part before it). Free *b with cg_bounds_free. */
nnfx_status cg_set_bounds(nnfx_graph *g, cg_bounds *b, nnfx_error *err);
void cg_bounds_free(cg_bounds *b);
/* bounds.c: the bounds of Loop body `body` within b (or its bodies'),
 * NULL when the body has none. */
const cg_bounds *cg_body_bounds(const cg_bounds *b, const nnfx_graph *body);
/* intervals.c: the interval [*lo, *hi] holding element k (-1: every
 * element) of value v of b's graph at run time, following arithmetic,
 * clamps and data moves back to constants (into a Loop body's enclosing
 * graphs through its captures); false when it finds none (an input's
 * value, a value it does not follow). */
bool cg_interval(const cg_bounds *b, const nnfx_node *v, int64_t k, double *lo, double *hi);
/* bounds.c: the data-dependent extents of value v (one per dim, -1 for a
 * static dim), NULL when every dim of v is static. */
const int *cg_dyn_of(const cg_bounds *b, const nnfx_node *v);

/* ---- extents (extents.c) ----------------------------------------------------- */

/* The id of extent expression (kind, a, b, c, v) in b (an existing equal
 * one, simplified where it can be: constants folded, min(e, k) with k >= e's
 * bound is e...); -1 on OOM. */
int cg_x_make(cg_bounds *b, cg_xkind kind, int a, int bb, int cc, int64_t v);
/* A constant extent. */
int cg_x_const(cg_bounds *b, int64_t v);
/* The C expression of extent e: a literal, a bounded node's dims array
 * element, or the local extN that cg_define_extent declares. */
void cg_extent_expr(const cg_bounds *b, int e, char *buf, size_t len);
/* Declares the local of extent e (and its operands') in c->body when not
 * yet declared; a dim-sizing extent that is not provably within its bound
 * is checked (NAME_run returns 2 past it). */
void cg_define_extent(cg *c, int e);
/* Declares every extent node n's step reads or writes. */
void cg_define_node_extents(cg *c, const nnfx_node *n);
/* Before the step of node n: declares the CG_X_DATA extents read from the
 * values before n in the graph (while their buffers hold them). */
void cg_define_data_extents(cg *c, const nnfx_node *n);
/* emit_bounded.c: a step whose sizes a loop body reads from data (a
 * Resize to sizes, a Slice from starts, a ConstantOfShape of a shape
 * computed at run time); *taken false when n is not one. */
nnfx_status cg_emit_data_sized(cg *c, const fx_step_view *s, const nnfx_node *n, bool *taken);
/* emit_bounded.c: the working memory (bytes) a Resize from xm to ym (at
 * its bound) takes when its last two dims' sizes are read at run time. */
int64_t cg_resize_runtime_scratch(const nnfx_meta *xm, const nnfx_meta *ym);
/* emit_bounded.c: a Loop body's result o (of data-dependent dims, at its
 * bound) must be exactly its static shape: NAME_run returns 2 otherwise. */
void cg_emit_result_check(cg *c, const nnfx_node *o);
/* emit_bounded.c: dim d of value v as a C expression: its extent when it
 * depends on the data, else its static size. */
void cg_dim_expr(const cg *c, const nnfx_node *v, int d, char *buf, size_t len);
/* emit_bounded.c: the padding fills node n needs before it runs. */
nnfx_status cg_emit_fills(cg *c, const nnfx_node *n);
/* emit_bounded.c: after node n (a ReduceMean over a data-dependent dim):
 * its output scaled from the bound's count to the actual one. */
nnfx_status cg_emit_after(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_bounded.c: model output a (value o, of data-dependent dims)
 * compacted into outputs[a], zeros after its values. */
nnfx_status cg_emit_dyn_output(cg *c, int a, const nnfx_node *o);
/* The C type generated C holds values of type dt in ("float", "int64_t",
 * ...; bool: "uint8_t"), NULL when it has none. */
const char *cg_ctype(nnfx_dtype dt);
/* Appends element i of data (type dt) to b as a C literal of cg_ctype(dt)
 * (a float16 as its bits). */
void cg_typed_lit(sbuf *b, nnfx_dtype dt, const void *data, int64_t i);
/* Whether model output value o (a node, or a getitem of one) is a bounded
 * node's. */
bool cg_output_bounded(const cg *c, const nnfx_node *o);
/* The position of n in c->bounded, or -1. */
int cg_bounded_index(const cg *c, const nnfx_node *n);
/* The step of bounded node c->bounded[b]: its kernel, and its actual dims
 * in a local array. */
nnfx_status cg_emit_bounded(cg *c, const fx_step_view *s, int b);
/* Model output a (value of node o): its dims into dims[a] when the caller
 * of NAME_run_dims asks (the actual dims of a bounded output). */
void cg_emit_output_dims(cg *c, int a, const nnfx_node *o);

/* ---- shared by codegen.c and the emit_*.c split from it --------------- */

/* codegen.c: the position of node n in c->nodes (its value), -1 when it is
 * not one of them. */
int node_index(const cg *c, const nnfx_node *n);
/* emit_ops.c: `static const int geo[k] = {v...};`, the geometry array the conv and
 * pooling kernels of the runtime take. */
void emit_geo(sbuf *b, int k, const int64_t *v);
/* emit_ops.c: Conv node n (1-d to 3-d; x, weights w of value wv, bias b,
 * residual r or NULL, a fused Relu) into y; *fused (may be NULL) true when
 * the residual and activation were taken into the call. */
nnfx_status emit_conv(cg *c, const nnfx_node *n, const char *x, int wv, const char *w, const char *b, const char *r,
                      bool relu, const char *y, bool *fused);
/* emit_ops.c: Fused conv chain: conv, optional residual add, optional activation. */
nnfx_status emit_conv_step(cg *c, const fx_step_view *s);
/* emit_ops.c: Contiguous [outer, n, inner] view of reducing dims [lo, hi) of m. */
void split3(const nnfx_meta *m, int lo, int hi, int64_t *outer, int64_t *n, int64_t *inner);
/* emit_ops.c: The kind of a reduction op (a global pooling too) as the runtime's
 * reductions number them (0 mean, 1 sum, 2 max, 3 min, 4 prod, 5 L1, 6 L2, 7 log-sum, 8 log-sum-exp,
 * 9 sum of squares), from its row's name (reduce_KIND, global_KIND_pool),
 * -1 for an op whose emitter is not gen_reduce. */
int reduce_kind(nnfx_op op);
/* emit_ops.c: A reduction of x into y, kind as reduce_kind; x and y NULL for a
 * float64 or int64 one (the typed reduction reads and writes its bytes). */
nnfx_status emit_reduce(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y, int kind);
/* emit_ops.c: MaxPool / AveragePool node n (1-d to 3-d) from x into y. */
nnfx_status emit_pool(cg *c, const nnfx_node *n, const char *x, const char *y);
/* emit_ops.c: MatMul with numpy's broadcasting; a vector A is one row [1, K], a vector
 * B one column [K, 1] (the output's layout is the same without that dim). */
nnfx_status emit_matmul(cg *c, const nnfx_node *n, char (*in)[64], const char *y);
/* emit_ops.c: The constant tensor of step input a (NULL when absent); *bad is set when
 * the input is present but not a constant. */
const nnfx_tensor *const_input(cg *c, const fx_step_view *s, int a, bool *bad);
/* emit_moves.c: Concat of values of any type: each piece's rows after the previous
 * pieces' valid rows (nnfx_rt_concat_rows; all of them unless the axis is
 * a data-dependent dim). */
nnfx_status emit_concat_rows(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Transpose (rank 1..8) of any type. */
nnfx_status emit_transpose(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Expand to the output's (static) shape, of any type: stride 0 along the
 * broadcast dims (the interpreter's kern_expand). */
nnfx_status emit_expand(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Slice with constant starts / ends / axes / steps, of any type. */
nnfx_status emit_slice(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Split, of any type: output k takes `outer` rows of its size x inner
 * values from offset start_k x inner of the input's rows (the
 * interpreter's kern_split copy, sizes from the outputs' inferred shapes). */
nnfx_status emit_split(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Gather node n along its axis with constant indices, from x
 * into y. */
nnfx_status cg_emit_gather(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y);
/* emit_moves.c: Pad: constant mode with pads >= 0 as a fill and a strided copy
 * (nnfx_rt_pad); reflect, edge, wrap and negative pads (cropping) through
 * per-dim source tables from the interpreter's own mapping (kern_pad_src). */
nnfx_status emit_pad(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y);
/* emit_moves.c: The largest intermediate of a Resize from x to y done one dim at a time
 * in dim order (the interpreter's ping-pong buffers), in floats. */
int64_t resize_big(const nnfx_meta *xm, const nnfx_meta *ym);
/* emit_moves.c: Whether Resize node n is generated as passes of taps (linear, cubic or
 * tf_crop_and_resize) rather than index tables. */
bool resize_by_taps(const nnfx_node *n);
/* emit_moves.c: Resize. Nearest: one source index table per dim, from the interpreter's
 * own mapping (kern_resize_nearest_index); a resize of the last two dims
 * only as nnfx_rt_resize_nearest, of other dims too as nnfx_rt_index_map.
 * Linear, cubic, tf_crop_and_resize: emit_resize_taps. */
nnfx_status emit_resize(cg *c, const fx_step_view *s, const nnfx_node *n, const char *x, const char *y);
/* emit_moves.c: `bytes` of a step's working memory past the plan's arena (recurrent
 * layers, resize passes)
 * (a multiple of 64, *used of them taken already): its C expression as
 * float pointer in buf; the working memory grows to hold it. */
void step_scratch(cg *c, int64_t bytes, int64_t *used, char *buf, size_t len);
/* emit_moves.c: RNN, GRU or LSTM node n: one call of nnfx_rt_rnn (rt/nnfx_rt_rnn.h)
 * with every attribute the interpreter's kernel reads; sequence_lens must
 * be a constant. W, R and B computed at run time are laid out as the
 * generator lays out constant ones (nnfx_rt_rnn_pack) in the steps' working
 * memory past the plan's arena, where a GRU without linear_before_reset
 * also keeps its H floats of r * h. */
nnfx_status emit_rnn(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: TopK node n: the values, and the int64 indices when the node has that
 * output (stored bytewise in the arena; only a Cast to float32 reads them
 * in generated C: a model output must be float32). */
nnfx_status emit_topk(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Cast to float32 of a float32 value (a copy) or of an int64 one in the
 * arena (TopK's indices: nnfx_rt_cast_i64). */
nnfx_status emit_cast_to_float(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Cast of a float32 value to int64 (truncated, saturated) or bool, stored
 * bytewise in the arena: what a computed trip count or condition of a
 * Loop is made of. */
nnfx_status emit_cast_from_float(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: ArgMax / ArgMin of a numeric value along one axis (compared as doubles,
 * as the interpreter's): int64 indices stored bytewise in the arena. */
nnfx_status emit_argmax(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: Einsum by the generic loop: float32 values through nnfx_rt_einsum, any
 * other type generated C holds through nnfx_rt_teinsum (in double), as
 * the interpreter's kern_einsum. */
nnfx_status emit_einsum(cg *c, const fx_step_view *s, const nnfx_node *n);
/* emit_moves.c: BatchNormalization (inference) over [N, C, inner]. */
nnfx_status emit_batch_norm(cg *c, const nnfx_node *n, char (*in)[64], const char *y);
/* emit_moves.c: Softmax / LogSoftmax along the node's axis. */
nnfx_status emit_softmax(cg *c, const nnfx_node *n, const char *x, const char *y);
/* emit_ctrl.c: Control flow that generated C cannot run: refused (with the reason)
 * before anything is written, ahead of the other steps' errors. */
nnfx_status check_ctrl_steps(cg *c);
/* emit_ctrl.c: One kernel step, through its op's emitter in ops.def's emit
 * column (cg_op_emitter): the steps taken ahead of the type checks (control
 * flow, Einsum, moves of any type, comparisons...), then the ops over other
 * types than float32 (emit_typed_ops.c) and the int8 steps, then float32. */
nnfx_status emit_kernel_step(cg *c, const fx_step_view *s);
/* emit_int8.c: whether node n is one of the int8 steps (QuantizeLinear,
 * DequantizeLinear, or an output that is not float32). */
bool is_int8_step(const nnfx_node *n);
/* emit_int8.c: an int8 island of the plan (FX_STEP_QOP) as a call into
 * rt/nnfx_rt_int8.h with its own weights and epilogue arrays. */
nnfx_status emit_qop_step(cg *c, const fx_step_view *s);
/* emit_int8.c: a kernel step on integer values (Q/DQ, casts, moves) as the
 * interpreter's reference kernel computes it. */
nnfx_status emit_int8_kernel_step(cg *c, const fx_step_view *s);
/* codegen.c: every step of c->p into c->body (model outputs copied out
 * last); the first error stops it. */
nnfx_status walk_plan(cg *c);

#endif
