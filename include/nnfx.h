/* nnfx.h — the one public header of nnfx, an FX-style graph toolkit for
 * neural-network models in C.
 *
 * A worked example: trace a C model, replace every relu by leaky_relu, run it.
 * It compiles and runs as it stands (the test `header_example` extracts the
 * lines between the markers and builds them against the installed header).
 *
 * BEGIN EXAMPLE
 *     #include <nnfx.h>
 *     #include <stdio.h>
 *     #include <stdlib.h>
 *
 *     // The model's forward, written once: runs eagerly or records a graph.
 *     static nnfx_value *net_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
 *         nnfx_value *x = nnfx_call(ctx, nnfx_module_child(self, "conv"), in[0]);
 *         x = nnfx_v_relu(ctx, x);
 *         x = nnfx_call(ctx, nnfx_module_child(self, "flatten"), x);
 *         return nnfx_call(ctx, nnfx_module_child(self, "fc"), x);
 *     }
 *
 *     int main(void) {
 *         nnfx_error err = {0};
 *         nnfx_module *net = nnfx_module_new("Net", net_forward, NULL);  // a module tree
 *         nnfx_module_add(net, "conv", nnfx_conv2d(3, 8, 3, 1, 1, 1, 1, true, 1));
 *         nnfx_module_add(net, "flatten", nnfx_flatten_layer(1));
 *         nnfx_module_add(net, "fc", nnfx_linear(8 * 8 * 8, 10, true, 2));
 *         nnfx_shape in = nnfx_shape_of(4, 1, 3, 8, 8);
 *         nnfx_gm *gm = nnfx_symbolic_trace(net, 1, &in, &err);
 *         if (!gm) return fprintf(stderr, "%s\n", err.msg), 1;
 *         nnfx_graph *g = nnfx_gm_graph(gm);
 *         for (nnfx_node *n = nnfx_graph_first(g), *next; n; n = next) {
 *             next = nnfx_node_next(n);                        // n may be erased
 *             if (!nnfx_node_is_op(n, NNFX_OP_RELU)) continue;
 *             nnfx_inserting_after(g, n);
 *             nnfx_attr alpha = nnfx_attr_float("alpha", 0.1);
 *             nnfx_arg x = nnfx_node_arg(n, 0);                // relu's input
 *             nnfx_node *leaky = nnfx_graph_call_op(g, NNFX_OP_LEAKY_RELU, 1, &x, 1, &alpha, &err);
 *             nnfx_replace_all_uses_with(n, leaky, NULL, NULL);
 *             if (nnfx_erase_node(g, n, &err) != NNFX_OK) return fprintf(stderr, "%s\n", err.msg), 1;
 *         }
 *         // lint + shapes; the compiled plan is built on the first run
 *         if (nnfx_gm_recompile(gm, &err) != NNFX_OK) return fprintf(stderr, "%s\n", err.msg), 1;
 *         char *code = nnfx_gm_code(gm, &err);                // FX's gm.code
 *         if (code) puts(code);
 *         free(code);
 *         int64_t shape[4] = {1, 3, 8, 8};
 *         nnfx_tensor *input = nnfx_tensor_new(NNFX_F32, 4, shape, &err), *out = NULL;
 *         nnfx_tensor_fill_uniform(input, 7, -1.0f, 1.0f);
 *         int nout = 0;
 *         if (nnfx_gm_run(gm, 1, &input, 1, &out, &nout, &err) != NNFX_OK) return fprintf(stderr, "%s\n", err.msg), 1;
 *         printf("logit 0: %f\n", nnfx_tensor_get(out, 0));
 *         nnfx_tensor_release(out);
 *         nnfx_tensor_release(input);
 *         nnfx_gm_free(gm);
 *         nnfx_module_free(net);
 *         return 0;
 *     }
 * END EXAMPLE
 *
 * Conventions
 *  - Every fallible call takes an `nnfx_error *err` (may be NULL) and returns
 *    an nnfx_status, or NULL / -1 on failure. err->msg says what failed and
 *    where (node name, file offset, op). The library never exits or aborts
 *    on bad input.
 *  - Objects returned by *_new / *_copy / *_load are owned by the caller and
 *    freed with the matching *_free. Nodes are owned by their graph.
 *  - Tensors are reference counted: nnfx_tensor_retain / nnfx_tensor_release.
 *  - Op semantics are ONNX's (include/nnfx/ops.def lists the ops).
 *  - Threads: a graph, with the nodes, GraphModules and interpreters built
 *    on it, is used by one thread at a time. Calls that take a
 *    `const nnfx_graph *` may still write scratch on its nodes (planning
 *    numbers them, shape inference caches small values, position keys are
 *    renumbered lazily), so a graph shared between threads needs the
 *    caller's lock, or one copy per thread (nnfx_graph_copy). Parallelism
 *    inside one run is nnfx_gm_set_threads.
 */
#ifndef NNFX_H
#define NNFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNFX_VERSION "0.1.0"

/* ===================================================================== */
/* Status and errors                                                     */
/* ===================================================================== */

typedef enum nnfx_status {
    NNFX_OK = 0,
    NNFX_ERR_INVALID_ARG, /* a caller passed something malformed            */
    NNFX_ERR_NOMEM,       /* an allocation failed                           */
    NNFX_ERR_IO,          /* a file could not be read or written            */
    NNFX_ERR_PARSE,       /* text or binary input is malformed              */
    NNFX_ERR_UNSUPPORTED, /* an op, dtype or feature nnfx does not handle   */
    NNFX_ERR_SHAPE,       /* shapes or dtypes do not fit together           */
    NNFX_ERR_GRAPH,       /* graph structure is invalid (lint, users left)  */
    NNFX_ERR_TRACE,       /* tracing a C forward function failed            */
    NNFX_ERR_RUNTIME,     /* a kernel or callback failed while running      */
    NNFX_ERR_NOT_FOUND    /* a name lookup found nothing                    */
} nnfx_status;

typedef struct nnfx_error {
    nnfx_status status;
    char msg[1024];
} nnfx_error;

/* Short name of a status code ("ok", "shape error", ...). Never NULL. */
const char *nnfx_status_name(nnfx_status s);

/* Sets err (if not NULL) to status s with a printf-style message; returns s. */
nnfx_status nnfx_error_set(nnfx_error *err, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefixes err->msg with "<prefix>: " (context for a lower-level error). */
void nnfx_error_prefix(nnfx_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ===================================================================== */
/* Tensors                                                               */
/* ===================================================================== */

#define NNFX_MAX_RANK 8

/* Element types; values are ONNX's TensorProto.DataType codes. */
typedef enum nnfx_dtype {
    NNFX_DTYPE_UNDEFINED = 0,
    NNFX_F32 = 1,
    NNFX_U8 = 2,
    NNFX_I8 = 3,
    NNFX_U16 = 4,
    NNFX_I16 = 5,
    NNFX_I32 = 6,
    NNFX_I64 = 7,
    NNFX_BOOL = 9,
    NNFX_F16 = 10,
    NNFX_F64 = 11,
    NNFX_U32 = 12,
    NNFX_U64 = 13
} nnfx_dtype;

/* Bytes per element of dt (0 for an unknown type). */
size_t nnfx_dtype_size(nnfx_dtype dt);
/* Lower-case name: "float32", "int64", ... ("undefined" if unknown). */
const char *nnfx_dtype_name(nnfx_dtype dt);
/* Inverse of nnfx_dtype_name; NNFX_DTYPE_UNDEFINED when unknown. */
nnfx_dtype nnfx_dtype_from_name(const char *name);

typedef enum nnfx_storage {
    NNFX_STORAGE_OWNED,    /* allocated by nnfx, freed with the tensor        */
    NNFX_STORAGE_BORROWED, /* caller's memory; must outlive the tensor        */
    NNFX_STORAGE_MAPPED    /* points into a memory-mapped file (zero-copy)    */
} nnfx_storage;

/* A concrete shape (used for example inputs and tensors). */
typedef struct nnfx_shape {
    int rank;
    int64_t dims[NNFX_MAX_RANK];
} nnfx_shape;

/* nnfx_shape_of(rank, d0, d1, ...): a shape literal; the dims are ints. */
nnfx_shape nnfx_shape_of(int rank, ...);

typedef struct nnfx_mapping nnfx_mapping; /* a refcounted mmap region */

/* A dense row-major tensor. Fields are read-only for users; create with
 * nnfx_tensor_new / nnfx_tensor_borrow.
 * Writing `data` contents: allowed for a tensor you created (OWNED,
 * BORROWED) and no one else shares. MAPPED data points into a read-only
 * file mapping (weights of a loaded ONNX model): writing it faults. Get
 * writable data through nnfx_tensor_data_mut (refuses MAPPED tensors with
 * a message) and, for a graph's parameters, through nnfx_graph_param_mut,
 * which copies a mapped or shared parameter first (copy on write). */
typedef struct nnfx_tensor {
    nnfx_dtype dtype;
    int rank;
    int64_t shape[NNFX_MAX_RANK];
    void *data;
    size_t nbytes;
    nnfx_storage storage;
    int refcount;
    nnfx_mapping *mapping; /* keeps a mapped file alive (MAPPED only) */
} nnfx_tensor;

/* New zero-filled tensor of the given type and shape (refcount 1). */
nnfx_tensor *nnfx_tensor_new(nnfx_dtype dt, int rank, const int64_t *shape, nnfx_error *err);
/* Tensor over caller memory (not copied, not freed). */
nnfx_tensor *nnfx_tensor_borrow(nnfx_dtype dt, int rank, const int64_t *shape, void *data, nnfx_error *err);
/* Tensor over a mapped region; retains the mapping. data must lie inside it. */
nnfx_tensor *nnfx_tensor_mapped(nnfx_dtype dt, int rank, const int64_t *shape, void *data, nnfx_mapping *m,
                                nnfx_error *err);
/* Deep copy into owned storage. */
nnfx_tensor *nnfx_tensor_clone(const nnfx_tensor *t, nnfx_error *err);
/* New float32 tensor copying `values` (numel of shape elements). */
nnfx_tensor *nnfx_tensor_from_floats(int rank, const int64_t *shape, const float *values, nnfx_error *err);
/* Scalar (rank 0) tensors. */
nnfx_tensor *nnfx_tensor_scalar_f32(float v, nnfx_error *err);
nnfx_tensor *nnfx_tensor_scalar_i64(int64_t v, nnfx_error *err);
/* Adds a reference; returns t. NULL-safe. */
nnfx_tensor *nnfx_tensor_retain(nnfx_tensor *t);
/* Drops a reference; frees at zero. NULL-safe. */
void nnfx_tensor_release(nnfx_tensor *t);
/* Number of elements (1 for a scalar). */
int64_t nnfx_tensor_numel(const nnfx_tensor *t);
/* Number of elements of a shape; -1 on overflow or negative dims. */
int64_t nnfx_shape_numel(int rank, const int64_t *shape);
/* Writes "[1, 3, 32, 32]" into buf; returns buf. */
char *nnfx_shape_str(int rank, const int64_t *shape, char *buf, size_t len);
/* Element i converted to double (any dtype). */
double nnfx_tensor_get(const nnfx_tensor *t, int64_t i);
/* t->data when t may be written; NULL with an error when its data is mapped
 * read-only from a file (NNFX_STORAGE_MAPPED). */
void *nnfx_tensor_data_mut(nnfx_tensor *t, nnfx_error *err);
/* Fills a float32 tensor with deterministic uniform values in [lo, hi)
 * (does nothing to a mapped, read-only tensor). */
void nnfx_tensor_fill_uniform(nnfx_tensor *t, uint64_t seed, float lo, float hi);

/* Checked size arithmetic, the one place a shape becomes a byte count:
 * *nbytes = numel(shape) * dtype size. NNFX_ERR_SHAPE for a negative dim or
 * a product past SIZE_MAX / 2, NNFX_ERR_UNSUPPORTED for an unknown dtype. */
nnfx_status nnfx_shape_nbytes(nnfx_dtype dt, int rank, const int64_t *shape, size_t *nbytes, nnfx_error *err);

/* Memory budget: the most bytes of tensor storage nnfx owns at once
 * (0, the default: no limit). A tensor that would pass it is refused before
 * anything is allocated, with NNFX_ERR_NOMEM naming the size and the limit.
 * Process-wide; mapped and borrowed tensors do not count. */
void nnfx_set_memory_limit(size_t bytes);
size_t nnfx_memory_limit(void);
/* Bytes of owned tensor storage allocated now. */
size_t nnfx_memory_in_use(void);
/* Physical memory of the machine in bytes (0 when unknown). */
size_t nnfx_physical_memory(void);

/* Maps a whole file read-only. The mapping starts with refcount 1. */
nnfx_mapping *nnfx_mapping_open(const char *path, nnfx_error *err);
const void *nnfx_mapping_data(const nnfx_mapping *m);
size_t nnfx_mapping_size(const nnfx_mapping *m);
nnfx_mapping *nnfx_mapping_retain(nnfx_mapping *m);
void nnfx_mapping_release(nnfx_mapping *m);

/* ===================================================================== */
/* The op table                                                          */
/* ===================================================================== */

/* Op property flags (ops.def). */
#define NNFX_F_ELEMENTWISE      0x01u /* one input, same shape out, per element   */
#define NNFX_F_COMMUTATIVE      0x02u /* f(a, b) == f(b, a)                       */
#define NNFX_F_SHAPE_PRESERVING 0x04u /* output shape == first input's shape      */
#define NNFX_F_IMPURE           0x08u /* side effects: never removed by DCE       */
#define NNFX_F_NOOP             0x10u /* returns its first input (at inference)   */
#define NNFX_F_ACTIVATION       0x20u /* an activation function                   */
#define NNFX_F_BROADCAST        0x40u /* numpy-style broadcasting of inputs       */
/* Pruning (dependency groups): how an op treats the channel axis (axis 1). */
#define NNFX_F_CHANNEL_WISE   0x80u  /* output channel c depends on input channel c only */
#define NNFX_F_CHANNEL_MIXING 0x100u /* a weight mixes all input channels into new ones  */
/* Executor properties (the compiled plan reads them instead of op lists). */
#define NNFX_F_WRITES_ALL                                                                                              \
    0x200u                 /* the kernel writes every output element (with ELEMENTWISE,                                \
                              BROADCAST, ACTIVATION implied) */
#define NNFX_F_VIEW 0x400u /* output 0 is input 0's data unchanged, at most reshaped */
/* ONNX forms: reduces input 0 over `axes` (an attribute in older opsets). */
#define NNFX_F_REDUCE 0x800u

typedef enum nnfx_op {
    NNFX_OP_NONE = 0,
#define NNFX_OP(e, ...) NNFX_OP_##e,
#include "nnfx/ops.def"
#undef NNFX_OP
    NNFX_OP_COUNT
} nnfx_op;

/* snake_case name ("leaky_relu"); "none" for NNFX_OP_NONE or out of range. */
const char *nnfx_op_name(nnfx_op op);
/* ONNX op type ("LeakyRelu"); "" for nnfx-internal ops. */
const char *nnfx_op_onnx_type(nnfx_op op);
/* Finds an op by snake_case name or ONNX type ("relu", "Relu",
 * "batch_normalization", "BatchNormalization"); NNFX_OP_NONE if unknown. */
nnfx_op nnfx_op_find(const char *name);
/* NNFX_F_* flags of op. */
unsigned nnfx_op_flags(nnfx_op op);
/* Accepted input count range and output count (-1: node-dependent). */
void nnfx_op_arity(nnfx_op op, int *min_inputs, int *max_inputs, int *outputs);
/* Attribute schema string of op (see ops.def). */
const char *nnfx_op_attr_schema(nnfx_op op);

/* ===================================================================== */
/* The graph IR                                                          */
/* ===================================================================== */

typedef struct nnfx_graph nnfx_graph;
typedef struct nnfx_node nnfx_node;

typedef enum nnfx_opcode {
    NNFX_PLACEHOLDER,   /* a graph input; target = its name                  */
    NNFX_GET_ATTR,      /* a parameter of the graph; target = its path       */
    NNFX_CALL_FUNCTION, /* an op from the op table                           */
    NNFX_CALL_MODULE,   /* a user leaf function (C callback); target = name  */
    NNFX_OUTPUT         /* the graph's results; args = the returned values   */
} nnfx_opcode;

/* "placeholder", "get_attr", "call_function", "call_module", "output". */
const char *nnfx_opcode_name(nnfx_opcode oc);

/* A positional argument: a node (its value), absent, or a literal. */
typedef enum nnfx_arg_kind {
    NNFX_ARG_NONE, /* an absent optional input   */
    NNFX_ARG_NODE, /* the value of a node        */
    NNFX_ARG_INT,  /* integer literal            */
    NNFX_ARG_FLOAT /* floating-point literal     */
} nnfx_arg_kind;

typedef struct nnfx_arg {
    nnfx_arg_kind kind;
    union {
        nnfx_node *node;
        int64_t i;
        double f;
    } u;
} nnfx_arg;

nnfx_arg nnfx_arg_node(nnfx_node *n);
nnfx_arg nnfx_arg_int(int64_t v);
nnfx_arg nnfx_arg_float(double v);
nnfx_arg nnfx_arg_none(void);

/* A named attribute (kwarg). Constructors borrow their arrays/strings; nodes
 * deep-copy attributes when created. */
typedef enum nnfx_attr_kind {
    NNFX_ATTR_INT,
    NNFX_ATTR_FLOAT,
    NNFX_ATTR_STRING,
    NNFX_ATTR_INTS,
    NNFX_ATTR_FLOATS,
    NNFX_ATTR_TENSOR,
    NNFX_ATTR_GRAPH /* a subgraph owned by the node (If branches, Loop/Scan body) */
} nnfx_attr_kind;

typedef struct nnfx_attr {
    const char *name;
    nnfx_attr_kind kind;
    union {
        int64_t i;
        double f;
        const char *s;
        struct {
            const int64_t *v;
            int n;
        } ints;
        struct {
            const float *v;
            int n;
        } floats;
        nnfx_tensor *t;
        nnfx_graph *g;
    } u;
} nnfx_attr;

nnfx_attr nnfx_attr_int(const char *name, int64_t v);
nnfx_attr nnfx_attr_float(const char *name, double v);
nnfx_attr nnfx_attr_string(const char *name, const char *s);
nnfx_attr nnfx_attr_ints(const char *name, int n, const int64_t *v);
nnfx_attr nnfx_attr_floats(const char *name, int n, const float *v);
nnfx_attr nnfx_attr_tensor(const char *name, nnfx_tensor *t);
/* A graph attribute (a control-flow body). Borrowed like the others: the
 * node stores a deep copy (nnfx_graph_copy), so the caller keeps and frees g. */
nnfx_attr nnfx_attr_graph(const char *name, nnfx_graph *g);

/* One dimension of a static shape: a number, or symbolic/unknown (value -1;
 * symbol NULL or "" when unknown, e.g. "batch" when named). A symbol is an
 * interned string (nnfx_symbol): it lives as long as the process, so
 * metas copy by assignment, and equal names share one pointer. */
typedef struct nnfx_dim {
    int64_t value;
    const char *symbol;
} nnfx_dim;

/* Longest symbolic dim name kept (longer ONNX dim_param names are cut). */
#define NNFX_SYMBOL_MAX 23

/* The interned copy of symbolic dim name `name` (the same pointer for
 * equal names, valid for the life of the process), for nnfx_dim.symbol;
 * NULL for NULL or on out of memory. Thread-safe. */
const char *nnfx_symbol(const char *name);

/* What is known about a node's value: dtype and shape (rank -1: unknown),
 * plus where the node came from. */
typedef struct nnfx_meta {
    nnfx_dtype dtype;
    int rank;
    nnfx_dim dims[NNFX_MAX_RANK];
} nnfx_meta;

/* Sets meta to a static shape. */
void nnfx_meta_set_shape(nnfx_meta *m, nnfx_dtype dt, int rank, const int64_t *dims);
/* True when every dim is a known number. */
bool nnfx_meta_is_static(const nnfx_meta *m);
/* Elements of a static meta (checked like nnfx_shape_numel); -1 when the
 * rank or a dim is unknown or the product overflows. */
int64_t nnfx_meta_numel(const nnfx_meta *m);
/* Bytes of a static meta (elements * dtype size, checked by
 * nnfx_shape_nbytes); -1 when not static, of an unknown dtype or too large. */
int64_t nnfx_meta_nbytes(const nnfx_meta *m);
/* Writes "float32[1, 3, batch, 7]" (or "?" when unknown) into buf. */
char *nnfx_meta_str(const nnfx_meta *m, char *buf, size_t len);

/* --- Graph lifetime ------------------------------------------------------ */

/* An empty graph. */
nnfx_graph *nnfx_graph_new(void);
/* Frees the graph, its nodes and its references to parameters. NULL-safe.
 * Its large blocks (arena chunks and hash tables of 64 KB and up) may be kept, up to 256 MB
 * per process, for the next graph: see nnfx_release_cached_memory. */
void nnfx_graph_free(nnfx_graph *g);
/* Returns the memory that freed graphs left cached for reuse to the system;
 * returns the bytes released. Thread-safe; graphs alive are not affected. */
size_t nnfx_release_cached_memory(void);

/* --- Parameters (get_attr targets) -------------------------------------- */

/* Adds or replaces parameter `name` (retains t). */
nnfx_status nnfx_graph_set_param(nnfx_graph *g, const char *name, nnfx_tensor *t, nnfx_error *err);
/* The parameter called name, or NULL. Borrowed, and for reading only: it
 * may be mapped from the model file or shared with a copy of the graph. */
nnfx_tensor *nnfx_graph_param(const nnfx_graph *g, const char *name);
/* Parameter `name` made writable (copy on write): when it is mapped from a
 * file, borrowed, or shared with another graph or a compiled plan, it is
 * first replaced in g by an owned copy, so no other holder sees the edit.
 * Returns the tensor to write (borrowed, owned by g; its data is writable)
 * and marks g changed (a GraphModule recompiles before its next run).
 * NULL with NNFX_ERR_NOT_FOUND for an unknown name, NNFX_ERR_NOMEM. */
nnfx_tensor *nnfx_graph_param_mut(nnfx_graph *g, const char *name, nnfx_error *err);
/* Number of parameters, and the i-th name/tensor (insertion order). */
int nnfx_graph_num_params(const nnfx_graph *g);
const char *nnfx_graph_param_name(const nnfx_graph *g, int i);
nnfx_tensor *nnfx_graph_param_at(const nnfx_graph *g, int i);
/* Dtype and shape of parameter `name` (or of the i-th) into *m, without
 * reading its data: a weight of a model loaded from a file stays in the
 * file (nnfx_graph_param and _at may copy it into aligned memory). False
 * when there is no such parameter. */
bool nnfx_graph_param_meta(const nnfx_graph *g, const char *name, nnfx_meta *m);
bool nnfx_graph_param_meta_at(const nnfx_graph *g, int i, nnfx_meta *m);
/* Marks parameter `name` as a constant of the model (an ONNX Constant node)
 * rather than a weight; analyses count weights only. */
nnfx_status nnfx_graph_set_param_constant(nnfx_graph *g, const char *name, bool constant, nnfx_error *err);
/* True when parameter i was marked a constant. */
bool nnfx_graph_param_is_constant(const nnfx_graph *g, int i);
/* Removes parameters no get_attr node refers to; returns how many. */
int nnfx_graph_drop_unused_params(nnfx_graph *g);

/* --- User leaf functions (call_module targets, FX's wrap) ---------------- */

/* Runs a leaf: reads nin inputs, sets *out to a new tensor (refcount 1). */
typedef nnfx_status (*nnfx_leaf_fn)(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err);
/* Optional: infers the output meta from input metas. */
typedef nnfx_status (*nnfx_leaf_infer_fn)(void *user, int nin, const nnfx_meta *const *in, nnfx_meta *out,
                                          nnfx_error *err);
/* Registers leaf `name` on the graph (copied by nnfx_graph_copy). */
nnfx_status nnfx_graph_register_leaf(nnfx_graph *g, const char *name, nnfx_leaf_fn fn, nnfx_leaf_infer_fn infer,
                                     void *user, nnfx_error *err);

/* --- Creating nodes ----------------------------------------------------- */
/* New nodes go at the insert point (default: before the output node, or the
 * end). Their names are made unique: "relu", "relu_1", ... */

/* Following creations go right before n, in creation order. */
void nnfx_inserting_before(nnfx_graph *g, nnfx_node *n);
/* Following creations go right after n, in creation order (a, b after n
 * gives n, a, b — unlike FX, which reverses them). */
void nnfx_inserting_after(nnfx_graph *g, nnfx_node *n);
/* Following creations go before the output node (or at the end). */
void nnfx_inserting_at_end(nnfx_graph *g);

/* A graph input called name (unique) with known meta (may be NULL). */
nnfx_node *nnfx_graph_placeholder(nnfx_graph *g, const char *name, const nnfx_meta *meta, nnfx_error *err);
/* A parameter read; target must name a parameter of g. */
nnfx_node *nnfx_graph_get_attr(nnfx_graph *g, const char *target, nnfx_error *err);
/* A call of op with args and attributes (checked against the op's arity). */
nnfx_node *nnfx_graph_call_op(nnfx_graph *g, nnfx_op op, int nargs, const nnfx_arg *args, int nattrs,
                              const nnfx_attr *attrs, nnfx_error *err);
/* A call of a registered leaf function. */
nnfx_node *nnfx_graph_call_module(nnfx_graph *g, const char *target, int nargs, const nnfx_arg *args, nnfx_error *err);
/* getitem(tuple_node, index): output `index` of a multi-output node. */
nnfx_node *nnfx_graph_getitem(nnfx_graph *g, nnfx_node *tuple_node, int index, nnfx_error *err);
/* The output node returning n values (at most one output node per graph). */
nnfx_node *nnfx_graph_output(nnfx_graph *g, int n, nnfx_node *const *values, nnfx_error *err);

/* --- Walking ------------------------------------------------------------ */

nnfx_node *nnfx_graph_first(const nnfx_graph *g);
nnfx_node *nnfx_graph_last(const nnfx_graph *g);
nnfx_node *nnfx_node_next(const nnfx_node *n);
nnfx_node *nnfx_node_prev(const nnfx_node *n);
int nnfx_graph_num_nodes(const nnfx_graph *g);
/* One node as a binding's snapshot of the list sees it (nnfx_graph_nodes). */
typedef struct nnfx_node_info {
    nnfx_node *node;
    uint64_t serial; /* nnfx_node_serial(node) */
    int opcode;      /* nnfx_opcode */
    int op;          /* nnfx_op (NNFX_OP_NONE unless call_function) */
} nnfx_node_info;
/* Fills out[0 .. cap) with the nodes from `from` (included; NULL: the
 * first node, or the last when reverse) onward in list order (backward when
 * reverse); returns how many it wrote. With out NULL, returns how many it
 * would write at most (cap ignored). One call instead of one per node, for
 * language bindings whose calls are costly; entries are valid until the
 * graph is next edited. from must be a live node of g (or NULL). */
int nnfx_graph_nodes(const nnfx_graph *g, const nnfx_node *from, bool reverse, nnfx_node_info *out, int cap);
/* Every node's args in one call, for bindings that mirror them: for each
 * node in list order, its number of args k then k (kind, value) pairs of
 * 64-bit words (value: the node's address, the int64, or the double's bits;
 * 0 for none), written into out[0 .. cap) while they fit. Returns the number
 * of words the whole list takes (0 for g NULL; out NULL: nothing written). */
int nnfx_graph_all_args(const nnfx_graph *g, uint64_t *out, int cap);
/* Every node's target in one call, for bindings whose calls are costly: in
 * list order, nnfx_node_target(n) for each node but a call_function's (the
 * empty string for those: the op names its target), each followed by its NUL,
 * from out[0]. Returns the number of bytes they take (0 for NULL); when that
 * is more than cap, only the targets that fit whole are written (out NULL:
 * none). */
size_t nnfx_graph_targets(const nnfx_graph *g, char *out, size_t cap);
/* n's args in one call, for bindings whose calls are costly: fills
 * out[0 .. cap) with nnfx_node_arg(n, 0 ..) (padding bytes zeroed) and
 * returns n's number of args (0 for NULL; more than cap: the rest are not
 * written; out NULL: nothing is). */
int nnfx_node_args(const nnfx_node *n, nnfx_arg *out, int cap);
/* n's users in one call: fills out[0 .. cap) with nnfx_node_user(n, 0 ..)
 * and returns n's number of users (0 for NULL; more than cap: the rest are
 * not written; out NULL: nothing is). */
int nnfx_node_users(const nnfx_node *n, nnfx_node **out, int cap);
/* nnfx_eliminate_dead_code that also says which nodes went: their addresses,
 * in removal order, in out[0 .. cap) (the nodes are freed: the addresses are
 * only to be compared, e.g. to drop a binding's handles, before the graph is
 * next edited). Returns the number removed (more than cap: the rest are not
 * written). */
int nnfx_eliminate_dead_code_list(nnfx_graph *g, nnfx_node **out, int cap);
/* nnfx_eliminate_dead_code_list that also says how the removed nodes lay in
 * the list, for a binding keeping its own copy of it: the removed nodes, in
 * removal order, from out[0]; each maximal run of consecutive removed nodes
 * as the pair (the live node before it, the live node after it; NULL: the
 * list's start or end) from the top, run i (0-based) at out[cap - 2 - 2 * i]
 * and out[cap - 1 - 2 * i]. Returns the number removed and sets *nruns (when
 * not NULL) to the number of runs; when removed + 2 * runs exceeds cap, out
 * is incomplete (the graph is changed all the same). */
int nnfx_eliminate_dead_code_runs(nnfx_graph *g, nnfx_node **out, int cap, int *nruns);
/* nnfx_replace_all_uses_with(old, new_node, NULL, NULL) that also lists the
 * users it rewired, in old's user order, in out[0 .. cap), and returns how
 * many (new_node itself is never rewired). -1 on error (NULL nodes, nodes of
 * different graphs, out NULL with cap > 0); -2 when old has more than cap users: nothing is changed
 * then (nnfx_node_num_users says how many to make room for). */
int nnfx_replace_all_uses_with_list(nnfx_node *old, nnfx_node *new_node, nnfx_node **out, int cap);
/* The calls of a binding's edit loop with a single argument, w: 64-bit words
 * holding the arguments (pointers and ints) and receiving the results. For
 * bindings that pay per argument converted (Python's ctypes: about as much
 * per argument as for the call itself); each is the function named, nothing
 * more.
 * nnfx_binding_call_op: nnfx_graph_call_op(g = w[0], op = w[1], nargs = w[2],
 *   args = w[3], nattrs = w[4], attrs = w[5], err = w[6]); on success w[8..10]
 *   and w[11..13] receive the nnfx_node_info (node, serial, opcode | op << 32)
 *   of the new node and of the node now before it (all 0 when none).
 * nnfx_binding_node_args: nnfx_node_args(n = w[0], w + 2 as nnfx_arg[cap = w[1]]).
 * nnfx_binding_replace_all_uses_with: nnfx_replace_all_uses_with_list(old =
 *   w[0], new = w[1], w + 3 as nnfx_node *[cap = w[2]]).
 * nnfx_binding_erase_node: nnfx_erase_node(g = w[0], n = w[1], err = w[2]).
 * w NULL: NULL, 0, -1 and NNFX_ERR_INVALID_ARG. w must hold 14 words for
 * call_op, 2 + 2 * cap for node_args, 3 + cap for replace_all_uses_with. */
nnfx_node *nnfx_binding_call_op(uint64_t *w);
int nnfx_binding_node_args(uint64_t *w);
int nnfx_binding_replace_all_uses_with(uint64_t *w);
nnfx_status nnfx_binding_erase_node(uint64_t *w);
/* The same calls with no argument at all (cheaper still for such bindings),
 * on the calling thread's own words, nnfx_binding_words() (NNFX_BINDING_WORDS
 * of them, kept for the thread's life), and its own error,
 * nnfx_binding_error(), in place of the err words: w[0..5] for call_op
 * (w[6] is set to the thread's error); w[0] for node_args, with cap
 * (NNFX_BINDING_WORDS - 2) / 2; w[0..1] for replace_all_uses_with, with cap
 * NNFX_BINDING_WORDS - 3; w[0..1] for erase_node. Results as above. */
#define NNFX_BINDING_WORDS 66
uint64_t *nnfx_binding_words(void);
nnfx_error *nnfx_binding_error(void);
nnfx_node *nnfx_binding_call_op_tls(void);
int nnfx_binding_node_args_tls(void);
int nnfx_binding_replace_all_uses_with_tls(void);
nnfx_status nnfx_binding_erase_node_tls(void);
/* The node called name, or NULL. */
nnfx_node *nnfx_graph_find(const nnfx_graph *g, const char *name);
/* The output node, or NULL. */
nnfx_node *nnfx_graph_output_node(const nnfx_graph *g);
/* Placeholders in order: count and i-th. */
int nnfx_graph_num_inputs(const nnfx_graph *g);
nnfx_node *nnfx_graph_input(const nnfx_graph *g, int i);

/* --- Node accessors ----------------------------------------------------- */

nnfx_graph *nnfx_node_graph(const nnfx_node *n);
const char *nnfx_node_name(const nnfx_node *n);
/* A number no other node of n's graph has or had (1, 2, ... in creation
 * order; 0 for NULL). A node's memory may be reused for a later node, so a
 * binding that keeps node handles across edits checks that a handle is
 * still live without reading freed memory: nnfx_graph_find(g, name) == n
 * (n is then a live node) and nnfx_node_serial(n) equals the serial it
 * kept (n is still the same node, not a new one at the same address). */
uint64_t nnfx_node_serial(const nnfx_node *n);
/* Renames n; the name is made unique if taken. */
nnfx_status nnfx_node_set_name(nnfx_node *n, const char *name, nnfx_error *err);
nnfx_opcode nnfx_node_opcode(const nnfx_node *n);
/* The op of a call_function node; NNFX_OP_NONE otherwise. */
nnfx_op nnfx_node_op(const nnfx_node *n);
/* True when n is a call_function of op. */
bool nnfx_node_is_op(const nnfx_node *n, nnfx_op op);
/* Target as text: op name, placeholder name, parameter path or leaf name. */
const char *nnfx_node_target(const nnfx_node *n);
int nnfx_node_num_args(const nnfx_node *n);
nnfx_arg nnfx_node_arg(const nnfx_node *n, int i);
/* The node of argument i, or NULL when it is not a node. */
nnfx_node *nnfx_node_arg_node(const nnfx_node *n, int i);
/* Replaces argument i (updates users). */
nnfx_status nnfx_node_set_arg(nnfx_node *n, int i, nnfx_arg a, nnfx_error *err);
/* Replaces all arguments (updates users). */
nnfx_status nnfx_node_set_args(nnfx_node *n, int nargs, const nnfx_arg *args, nnfx_error *err);
int nnfx_node_num_attrs(const nnfx_node *n);
const nnfx_attr *nnfx_node_attr_at(const nnfx_node *n, int i);
/* The attribute called name, or NULL. */
const nnfx_attr *nnfx_node_attr(const nnfx_node *n, const char *name);
/* Typed reads with the op schema's default (or dflt) when absent. */
int64_t nnfx_node_attr_int(const nnfx_node *n, const char *name, int64_t dflt);
double nnfx_node_attr_float(const nnfx_node *n, const char *name, double dflt);
const char *nnfx_node_attr_string(const nnfx_node *n, const char *name, const char *dflt);
/* Sets (adds or replaces) an attribute, deep-copied. */
nnfx_status nnfx_node_set_attr(nnfx_node *n, const nnfx_attr *a, nnfx_error *err);
/* Subgraphs a node owns (the graph attributes of If, Loop, Scan), in
 * attribute order: count (0 for other nodes) and the i-th (NULL when out of
 * range). Borrowed: owned by the node and freed with it. A subgraph is
 * self-contained: a value it reads from an enclosing graph is an extra
 * operand of the node and a placeholder of the subgraph (ONNX's implicit
 * captures made explicit). Edit it like any graph, keeping its
 * placeholders and outputs matching the node's operands and outputs
 * (nnfx_graph_lint checks). */
int nnfx_node_num_subgraphs(const nnfx_node *n);
nnfx_graph *nnfx_node_subgraph(const nnfx_node *n, int i);
/* Users in first-use order, deduplicated. */
int nnfx_node_num_users(const nnfx_node *n);
nnfx_node *nnfx_node_user(const nnfx_node *n, int i);
/* Number of values n produces (1, or k for a multi-output op). */
int nnfx_node_num_outputs(const nnfx_node *n);
/* Meta of output i (0 for single-output nodes); mutable: the call marks n
 * for re-inference, so write through the pointer before the next
 * nnfx_graph_infer_shapes / recompile (use nnfx_node_meta_c to read). */
nnfx_meta *nnfx_node_meta(nnfx_node *n, int i);
const nnfx_meta *nnfx_node_meta_c(const nnfx_node *n, int i);
/* Module path this node came from ("layer1.0.conv1"), or "". */
const char *nnfx_node_module_path(const nnfx_node *n);
nnfx_status nnfx_node_set_module_path(nnfx_node *n, const char *path, nnfx_error *err);
/* C source location recorded when tracing (file NULL when unknown). */
const char *nnfx_node_src_file(const nnfx_node *n);
int nnfx_node_src_line(const nnfx_node *n);
void nnfx_node_set_src(nnfx_node *n, const char *file, int line);
/* True when DCE must keep n (placeholder, output, call_module, impure op). */
bool nnfx_node_is_impure(const nnfx_node *n);

/* --- Editing ------------------------------------------------------------ */

/* Filter for replace_all_uses_with: return true to rewire user. */
typedef bool (*nnfx_user_filter)(const nnfx_node *user, void *ctx);
/* Makes every user of old use new instead (users for which filter returns
 * false are kept). new itself is never rewired, so new may take old as its
 * input. Returns the number of users rewired, -1 on error. */
int nnfx_replace_all_uses_with(nnfx_node *old, nnfx_node *new_node, nnfx_user_filter filter, void *ctx);
/* In n's args, replaces every reference to old by new. */
nnfx_status nnfx_replace_input_with(nnfx_node *n, nnfx_node *old, nnfx_node *new_node, nnfx_error *err);
/* Removes n; an error naming the users when any remain. */
nnfx_status nnfx_erase_node(nnfx_graph *g, nnfx_node *n, nnfx_error *err);
/* Removes nodes without users that are not impure, repeatedly; returns the
 * number removed. The one dead-code elimination: the pass named "dce"
 * (nnfx_pass_run_by_name) runs it and then drops unused parameters. */
int nnfx_eliminate_dead_code(nnfx_graph *g);
/* Moves n right before ref (both in g). */
nnfx_status nnfx_node_move_before(nnfx_node *n, nnfx_node *ref, nnfx_error *err);
/* Checks the graph: nodes belong to g, uses after definitions, unique names,
 * one output node at the end, arity and attributes per the op table, users
 * consistent, parameters present, no cycles. */
nnfx_status nnfx_graph_lint(const nnfx_graph *g, nnfx_error *err);
/* Lint plus dtype rules on the inferred metas (unknown dtypes pass): ops
 * such as Conv, Gemm, Sigmoid take floating-point inputs only; Add, MatMul,
 * Concat... take inputs of one dtype; getitem selects a valid output of a
 * multi-output node. Errors name the node and the input. */
nnfx_status nnfx_graph_check_types(const nnfx_graph *g, nnfx_error *err);

/* A node-to-node map (old graph's node -> new graph's node). */
typedef struct nnfx_value_map nnfx_value_map;
nnfx_value_map *nnfx_value_map_new(void);
void nnfx_value_map_free(nnfx_value_map *m);
/* Records k -> v; returns false on allocation failure. */
bool nnfx_value_map_put(nnfx_value_map *m, const nnfx_node *k, nnfx_node *v);
/* The mapped node, or NULL. */
nnfx_node *nnfx_value_map_get(const nnfx_value_map *m, const nnfx_node *k);

/* Deep copy of g (nodes, meta, leaves). Parameters are shared by reference
 * until written: edit them through nnfx_graph_param_mut (copy on write), so
 * editing the copy never changes g and vice versa. When map is not NULL it
 * receives src node -> copy for every node. */
nnfx_graph *nnfx_graph_copy(const nnfx_graph *g, nnfx_value_map *map, nnfx_error *err);
/* Copies node n (from any graph) into g at the insert point, its node args
 * translated through map (each must be mapped); records n -> copy in map. */
nnfx_node *nnfx_graph_node_copy(nnfx_graph *g, const nnfx_node *n, nnfx_value_map *map, nnfx_error *err);

/* MACs and FLOPs of one call of n from its inferred metas (both 0 for
 * nodes that are not op calls; unknown dims count as 1). */
void nnfx_node_cost(const nnfx_node *n, int64_t *macs, int64_t *flops);

/* Infers dtype and shape of every node from the placeholders' meta and the
 * parameters (FX's ShapeProp, statically). Errors name the node with the
 * expected and actual shapes. Incremental: after a successful pass, only
 * nodes edited since (or whose inputs' metas change) are inferred again;
 * the result is always that of a full pass. */
nnfx_status nnfx_graph_infer_shapes(nnfx_graph *g, nnfx_error *err);

/* --- Text forms --------------------------------------------------------- */

/* FX's printed form, one node a line:
 *   %relu : [num_users=1] = call_function[target=relu](args = (%conv,), kwargs = {})
 * preceded by "graph():" and parameter declarations so it parses back.
 * Returns a malloc'd string. */
char *nnfx_graph_to_text(const nnfx_graph *g);
/* Parses the text form (as printed) into a new graph. Parameters declared
 * without data become zero tensors of the declared shape. Errors give line
 * and column. */
nnfx_graph *nnfx_graph_parse(const char *text, nnfx_error *err);
/* FX's print_tabular table (opcode, name, target, args, kwargs); malloc'd. */
char *nnfx_graph_tabular(const nnfx_graph *g);
/* Graphviz DOT of the graph; malloc'd. */
char *nnfx_graph_to_dot(const nnfx_graph *g);

/* ===================================================================== */
/* GraphModule, interpreter, transformer                                 */
/* ===================================================================== */

typedef struct nnfx_gm nnfx_gm;

/* A GraphModule owning g (g is freed with it). Not yet compiled. */
nnfx_gm *nnfx_gm_new(nnfx_graph *g, nnfx_error *err);
void nnfx_gm_free(nnfx_gm *gm);
nnfx_graph *nnfx_gm_graph(nnfx_gm *gm);
/* Lint + shape inference. Call after every edit. The execution plan is
 * built later, on first use (nnfx_gm_run, nnfx_gm_plan,
 * nnfx_gm_peak_activation_bytes, nnfx_gm_compile), so edit loops pay only
 * for what they use. */
nnfx_status nnfx_gm_recompile(nnfx_gm *gm, nnfx_error *err);
/* Builds the execution plan now (recompiling first if the graph changed):
 * the compiled executor for graphs with static shapes (a node whose output
 * size is known only at run time, such as NonZero, splits it: the rest is
 * compiled per shape), the interpreter for graphs it declines (dynamic
 * input shapes, leaf modules).
 * *interpreted (may be NULL) says which one will run; nnfx_gm_plan names
 * the reason. Errors building the plan (out of memory, a constant subgraph
 * that fails) are returned here and by nnfx_gm_run, never hidden by a
 * fallback. */
nnfx_status nnfx_gm_compile(nnfx_gm *gm, bool *interpreted, nnfx_error *err);
/* A readable C-like listing of the forward (FX's gm.code); malloc'd.
 * Recompiles first if needed; NULL on error. */
char *nnfx_gm_code(nnfx_gm *gm, nnfx_error *err);
/* Runs the compiled graph: nin inputs in placeholder order; fills outs[0..]
 * with new references (caller releases), *nout = number of outputs. outs
 * must have room for max_out. Recompiles first if the graph changed, and
 * builds the plan on the first run after a recompile (nnfx_gm_compile). */
nnfx_status nnfx_gm_run(nnfx_gm *gm, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                        nnfx_error *err);
/* Sets the number of threads kernels may use (default 1); takes effect at
 * the next run (which rebuilds the plan). Results do not depend on it beyond
 * float rounding: work is split into tasks by shape, not by thread count.
 * The compiled executor keeps OpenBLAS itself at one thread and runs its
 * own pool. */
void nnfx_gm_set_threads(nnfx_gm *gm, int threads);
/* CPU features the kernels use on this machine (NNFX_CPU_* bits), after the
 * environment's NNFX_ISA narrows them (portable: none; avx2: no AVX-512 or
 * VNNI). NNFX_CPU_INT8_DOT is a fused int8 dot product (AVX512-VNNI or
 * AVX-VNNI): without it int8 convolutions use 16-bit multiply-adds. */
#define NNFX_CPU_AVX2_FMA    1u
#define NNFX_CPU_AVX512      2u
#define NNFX_CPU_INT8_DOT    4u
#define NNFX_CPU_AVX512_VBMI 8u
unsigned nnfx_cpu_features(void);
/* Times each step of the compiled plan on later runs (on: counts start
 * from zero; off: no timing, the default). Survives recompiles and thread
 * changes. NNFX_ERR_NOMEM when the counters cannot be allocated. */
nnfx_status nnfx_gm_set_profile(nnfx_gm *gm, bool on, nnfx_error *err);
/* The profile since it was turned on (or since the plan was last rebuilt):
 * a header with the runs and the time per run, then one line per step,
 * slowest first: ms per run, share of the total, the step's line of
 * nnfx_gm_plan. A graph split at data-dependent nodes (NonZero, NMS...)
 * gives the time of its parts (compiled prefix, data-dependent nodes, rest)
 * and then the prefix's and the latest rest's steps. malloc'd; NULL with
 * err set when profiling is off, the graph runs in the interpreter, or it
 * has not run since the last compile. */
char *nnfx_gm_profile(nnfx_gm *gm, nnfx_error *err);
/* The compiled execution plan as text, one step per line: which kernel
 * runs for which nodes (fused chains such as conv + add + relu show as one
 * step naming their first and last node) and each value's arena offset;
 * or a line "# interpreted: <why>" when the graph runs in the interpreter.
 * Recompiles and builds the plan if needed; malloc'd; NULL on error. */
char *nnfx_gm_plan(nnfx_gm *gm, nnfx_error *err);
/* Peak bytes of activations (placeholders and computed values, not
 * parameters) live at once when the plan runs. For graphs with static
 * shapes this is the compiled executor's activation arena (buffers reused
 * by lifetime) plus the inputs; otherwise an estimate from the inferred
 * metas (unknown dims count as 1). Recompiles gm first; -1 on error. */
int64_t nnfx_gm_peak_activation_bytes(nnfx_gm *gm, nnfx_error *err);

/* An Interpreter runs a graph node by node through handlers that callers
 * may override (FX's Interpreter). A node's value is `num` tensors. */
typedef struct nnfx_interp nnfx_interp;

typedef struct nnfx_value_set {
    int num;
    nnfx_tensor *t[NNFX_MAX_RANK]; /* num <= 8 outputs per node */
} nnfx_value_set;

typedef struct nnfx_interp_handlers {
    /* Each handler fills *out with new tensor references. in[] holds the
     * node's arguments as tensors (literals become scalar tensors, absent
     * inputs NULL). NULL handlers use the defaults below. */
    nnfx_status (*placeholder)(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err);
    nnfx_status (*get_attr)(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err);
    nnfx_status (*call_function)(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                 nnfx_value_set *out, nnfx_error *err);
    nnfx_status (*call_module)(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                               nnfx_value_set *out, nnfx_error *err);
    nnfx_status (*output)(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out,
                          nnfx_error *err);
    /* Wraps the dispatch for every node (observe or change each step). */
    nnfx_status (*run_node)(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err);
} nnfx_interp_handlers;

/* An interpreter over g (borrowed) with handlers (copied; may be NULL) and
 * a user pointer for the handlers. */
nnfx_interp *nnfx_interp_new(const nnfx_graph *g, const nnfx_interp_handlers *h, void *user, nnfx_error *err);
void nnfx_interp_free(nnfx_interp *ip);
void *nnfx_interp_user(nnfx_interp *ip);
/* Runs the graph; outs like nnfx_gm_run. */
nnfx_status nnfx_interp_run(nnfx_interp *ip, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs,
                            int *nout, nnfx_error *err);
/* The value already computed for n during this run (borrowed), or NULL. */
const nnfx_value_set *nnfx_interp_value(nnfx_interp *ip, const nnfx_node *n);
/* The default handlers, callable from overrides. */
nnfx_status nnfx_interp_default_run_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err);
nnfx_status nnfx_interp_default_call_function(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                              nnfx_value_set *out, nnfx_error *err);
/* Runs one op on tensors (shape inference + kernel); out gets new refs. */
nnfx_status nnfx_op_run(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out, nnfx_error *err);

/* A Transformer builds a new graph by running handlers over g; each handler
 * returns the node in the new graph standing for n (FX's Transformer). */
typedef struct nnfx_transformer nnfx_transformer;
typedef struct nnfx_transformer_handlers {
    /* args are n's arguments already translated into the new graph. */
    nnfx_node *(*placeholder)(nnfx_transformer *t, const nnfx_node *n, nnfx_error *err);
    nnfx_node *(*get_attr)(nnfx_transformer *t, const nnfx_node *n, nnfx_error *err);
    nnfx_node *(*call_function)(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args,
                                nnfx_error *err);
    nnfx_node *(*call_module)(nnfx_transformer *t, const nnfx_node *n, int nargs, const nnfx_arg *args,
                              nnfx_error *err);
} nnfx_transformer_handlers;

/* Runs the transformer over src (borrowed); returns the new graph. */
nnfx_graph *nnfx_transform(const nnfx_graph *src, const nnfx_transformer_handlers *h, void *user, nnfx_error *err);
/* The graph being built (create nodes in it from handlers). */
nnfx_graph *nnfx_transformer_graph(nnfx_transformer *t);
void *nnfx_transformer_user(nnfx_transformer *t);
/* Default handler: copies n with the given args, keeping attrs and meta. */
nnfx_node *nnfx_transformer_default_call_function(nnfx_transformer *t, const nnfx_node *n, int nargs,
                                                  const nnfx_arg *args, nnfx_error *err);

/* ===================================================================== */
/* Quantization (int8)                                                   */
/* ===================================================================== */

/* Post-training static quantization into ONNX's QDQ form (src/quant/):
 * BatchNormalization is folded first (fuse-conv-bn), the float model runs on
 * calibration data through an Interpreter whose handlers observe every
 * float value, and a rewrite inserts QuantizeLinear/DequantizeLinear pairs
 * around each quantized Conv, Gemm and MatMul: the activation input and the
 * output (after a following Relu) per tensor, uint8 or int8 by range; the
 * weight as an int8 initializer (symmetric, per output channel unless
 * per_tensor) read through a DequantizeLinear; a 1-D bias as int32 with
 * scale x_scale * w_scale. The result is a float graph with Q/DQ pairs that
 * nnfx and ONNX Runtime run; the semantics stay "dequantize, float op,
 * quantize". */

/* How a value's range is chosen from what calibration saw. */
typedef enum nnfx_quant_method {
    NNFX_QUANT_MINMAX = 0, /* [min, max] seen                                 */
    NNFX_QUANT_PERCENTILE, /* clip at the percentile (options.percentile)    */
    NNFX_QUANT_ENTROPY,    /* threshold minimising KL divergence (TensorRT)  */
    NNFX_QUANT_MSE         /* range minimising the expected squared error    */
} nnfx_quant_method;

typedef struct nnfx_quant_options {
    nnfx_quant_method method;
    double percentile;          /* PERCENTILE: e.g. 99.99 (0: 99.99)              */
    nnfx_dtype activations;     /* NNFX_U8 (default when 0) or NNFX_I8            */
    bool per_tensor;            /* weights per tensor instead of per channel      */
    bool keep_first_last_float; /* leave the first and last quantizable op float  */
    bool no_fold_bn;            /* skip fuse-conv-bn before calibrating           */
    int nexclude;               /* ops ("Conv", "gemm") or node names kept float  */
    const char *const *exclude;
    int batch;         /* samples per calibration run for a dynamic batch dim (0: 8)      */
    bool reduce_range; /* 7-bit weights in [-63, 63]: no int16 saturation in the u8 x s8
                        * pair sums of x86 AVX2 kernels (vpmaddubsw), as ORT's option */
} nnfx_quant_options;

/* One quantizable layer of the model and what became of it. */
typedef struct nnfx_quant_layer {
    char node[96];      /* the Conv/Gemm/MatMul node                               */
    char op[24];        /* its ONNX op type                                        */
    bool quantized;     /* false: kept float (excluded, or not quantizable)        */
    char why[96];       /* why it stayed float ("" when quantized)                 */
    double sqnr_db;     /* signal-to-quantization-noise ratio of this layer alone:
                         * float output vs output from quantized input, weight and
                         * bias, on the float model's activations (higher is
                         * better; INFINITY when exact; NAN when not measured)      */
    int bias_saturated; /* bias channels whose int32 value (bias / (input scale x
                         * weight scale)) left the int32 range and was clamped:
                         * the quantized layer adds another bias (0: none)     */
} nnfx_quant_layer;

typedef struct nnfx_quant_report {
    int nlayers;
    nnfx_quant_layer *layers; /* in graph order                                  */
    int bn_folded;            /* BatchNormalizations folded                      */
    int quantized;            /* layers quantized                                */
    int qdq_pairs;            /* activation Q/DQ pairs inserted                  */
    int ops;                  /* int8 activations: other ops given Q/DQ (Add, Mul,
                               * pooling, Sigmoid... regions); 0 with uint8       */
    long samples;             /* calibration samples seen                        */
} nnfx_quant_report;

/* Frees the layer list and zeroes the report. NULL-safe. */
void nnfx_quant_report_free(nnfx_quant_report *r);

/* Calibration statistics of a model (opaque). */
typedef struct nnfx_quant_calib nnfx_quant_calib;

/* Folds BN (unless o->no_fold_bn) into a copy of g (borrowed) and runs the
 * copy on the calibration data: calib[i] feeds placeholder i, with samples
 * along dim 0 (run in chunks of the model's static batch, or o->batch for a
 * dynamic one). The other dims must equal the model's known dims and dim 0
 * must be a multiple of a static batch: otherwise NNFX_ERR_SHAPE naming the
 * input. The method's statistics (histograms for all but MinMax) are kept
 * for every float value, and up to 16 samples for the SQNR figures. o may
 * be NULL (MinMax, uint8). Returns NULL on error. */
nnfx_quant_calib *nnfx_quant_calibrate(const nnfx_graph *g, int ncalib, nnfx_tensor *const *calib,
                                       const nnfx_quant_options *o, nnfx_error *err);
/* Frees c. NULL-safe. */
void nnfx_quant_calib_free(nnfx_quant_calib *c);

/* A new QDQ graph from the calibrated (BN-folded) model with options o (may
 * be NULL; may differ from the calibration's: a calibration made with any
 * method but MinMax kept histograms and serves every method, one made with
 * MinMax serves MinMax only, else NNFX_ERR_INVALID_ARG). report (may be
 * NULL; what it held is freed first) gets one entry per quantizable layer
 * with its SQNR and its clamped bias channels (bias_saturated). A layer to
 * quantize whose weight or bias holds NaN or an infinity is an error
 * (NNFX_ERR_PARSE naming the parameter). Returns NULL on error. */
nnfx_graph *nnfx_quant_apply(const nnfx_quant_calib *c, const nnfx_quant_options *o, nnfx_quant_report *report,
                             nnfx_error *err);

/* Calibrate + apply in one call: returns the QDQ version of g (g is not
 * changed). Arguments as above. */
nnfx_graph *nnfx_quantize(const nnfx_graph *g, int ncalib, nnfx_tensor *const *calib, const nnfx_quant_options *o,
                          nnfx_quant_report *report, nnfx_error *err);

/* ===================================================================== */
/* Tracing C forward functions                                           */
/* ===================================================================== */

/* A value seen by a forward function: a tensor when running eagerly, a
 * proxy (a node being recorded) when tracing. Values are owned by the trace
 * context and freed with it. */
typedef struct nnfx_value nnfx_value;
/* The context a forward function runs in (eager or tracing). The first
 * error is kept; later ops on a failed context return NULL and do nothing,
 * so forward functions need not check each call. */
typedef struct nnfx_ctx nnfx_ctx;
typedef struct nnfx_module nnfx_module;

/* A user module's forward: reads inputs, returns the output value. */
typedef nnfx_value *(*nnfx_forward_fn)(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in);

/* A user-defined module with a forward function; children and parameters
 * are added below. type_name is for printing ("SimpleNet"). */
nnfx_module *nnfx_module_new(const char *type_name, nnfx_forward_fn forward, void *user);
/* Frees the module tree. NULL-safe. */
void nnfx_module_free(nnfx_module *m);
void *nnfx_module_user(nnfx_module *m);
/* Adds child under name (takes ownership); returns child. */
nnfx_module *nnfx_module_add(nnfx_module *parent, const char *name, nnfx_module *child);
/* The direct child called name, or NULL. */
nnfx_module *nnfx_module_child(nnfx_module *m, const char *name);
/* Number of direct children of m (0 for NULL). */
int nnfx_module_num_children(const nnfx_module *m);
/* The i-th direct child of m in the order added, or NULL when out of range. */
nnfx_module *nnfx_module_child_at(nnfx_module *m, int i);
/* Declares how many inputs m's forward takes (checked by nnfx_symbolic_trace
 * and nnfx_module_run; default: any number) and optionally their names
 * (placeholder names when tracing; names may be NULL: "x", "x_1", ...).
 * Names are copied. */
nnfx_status nnfx_module_set_inputs(nnfx_module *m, int nin, const char *const *names, nnfx_error *err);
/* The type name given at creation ("SimpleNet", "Conv2d"...); "" for NULL. */
const char *nnfx_module_type(const nnfx_module *m);
/* Adds a parameter to the module (retains t). */
nnfx_status nnfx_module_add_param(nnfx_module *m, const char *name, nnfx_tensor *t, nnfx_error *err);
/* The parameter at dotted path ("conv.weight") below m, or NULL. */
nnfx_tensor *nnfx_module_param(nnfx_module *m, const char *path);

/* Built-in layers; parameters are initialised deterministically from seed
 * (as PyTorch's default initialisers do, in distribution). */
nnfx_module *nnfx_conv2d(int in_ch, int out_ch, int kernel, int stride, int padding, int dilation, int groups,
                         bool bias, uint64_t seed);
nnfx_module *nnfx_batchnorm2d(int channels, double eps, uint64_t seed);
nnfx_module *nnfx_linear(int in_features, int out_features, bool bias, uint64_t seed);
nnfx_module *nnfx_relu_layer(void);
nnfx_module *nnfx_leaky_relu_layer(double alpha);
nnfx_module *nnfx_sigmoid_layer(void);
nnfx_module *nnfx_maxpool2d(int kernel, int stride, int padding);
nnfx_module *nnfx_adaptive_avgpool2d_1(void);
nnfx_module *nnfx_flatten_layer(int start_dim);
nnfx_module *nnfx_dropout_layer(double p);

/* Calls module m (built-in or user) on x; its nodes get m's path in meta. */
#define nnfx_call(ctx, m, x) nnfx_call_at((ctx), (m), (x), __FILE__, __LINE__)
nnfx_value *nnfx_call_at(nnfx_ctx *ctx, nnfx_module *m, nnfx_value *x, const char *file, int line);
/* Calls a user module with several inputs. */
nnfx_value *nnfx_call_n_at(nnfx_ctx *ctx, nnfx_module *m, int nin, nnfx_value *const *in, const char *file, int line);

/* Generic op on values (the other helpers wrap it). */
#define nnfx_v_op(ctx, op, nin, in, nattrs, attrs)                                                                     \
    nnfx_v_op_at((ctx), (op), (nin), (in), (nattrs), (attrs), __FILE__, __LINE__)
nnfx_value *nnfx_v_op_at(nnfx_ctx *ctx, nnfx_op op, int nin, nnfx_value *const *in, int nattrs, const nnfx_attr *attrs,
                         const char *file, int line);
#define nnfx_v_relu(ctx, x)    nnfx_v_unary_at((ctx), NNFX_OP_RELU, (x), __FILE__, __LINE__)
#define nnfx_v_sigmoid(ctx, x) nnfx_v_unary_at((ctx), NNFX_OP_SIGMOID, (x), __FILE__, __LINE__)
#define nnfx_v_tanh(ctx, x)    nnfx_v_unary_at((ctx), NNFX_OP_TANH, (x), __FILE__, __LINE__)
#define nnfx_v_add(ctx, a, b)  nnfx_v_binary_at((ctx), NNFX_OP_ADD, (a), (b), __FILE__, __LINE__)
#define nnfx_v_sub(ctx, a, b)  nnfx_v_binary_at((ctx), NNFX_OP_SUB, (a), (b), __FILE__, __LINE__)
#define nnfx_v_mul(ctx, a, b)  nnfx_v_binary_at((ctx), NNFX_OP_MUL, (a), (b), __FILE__, __LINE__)
#define nnfx_v_div(ctx, a, b)  nnfx_v_binary_at((ctx), NNFX_OP_DIV, (a), (b), __FILE__, __LINE__)
nnfx_value *nnfx_v_unary_at(nnfx_ctx *ctx, nnfx_op op, nnfx_value *x, const char *file, int line);
nnfx_value *nnfx_v_binary_at(nnfx_ctx *ctx, nnfx_op op, nnfx_value *a, nnfx_value *b, const char *file, int line);
/* Calls a user leaf function (FX's wrap): runs fn eagerly, or records one
 * call_module node with target name when tracing. */
#define nnfx_v_leaf(ctx, name, fn, infer, user, nin, in)                                                               \
    nnfx_v_leaf_at((ctx), (name), (fn), (infer), (user), (nin), (in), __FILE__, __LINE__)
nnfx_value *nnfx_v_leaf_at(nnfx_ctx *ctx, const char *name, nnfx_leaf_fn fn, nnfx_leaf_infer_fn infer, void *user,
                           int nin, nnfx_value *const *in, const char *file, int line);

/* A scalar constant (float32 when running eagerly; a literal argument of the
 * nodes that use it when tracing, not a node of its own). */
nnfx_value *nnfx_v_scalar(nnfx_ctx *ctx, double v);
/* Reads parameter `name` of module m (e.g. a user module's own weight):
 * the tensor when running eagerly, a get_attr node when tracing. */
#define nnfx_v_param(ctx, m, name) nnfx_v_param_at((ctx), (m), (name), __FILE__, __LINE__)
nnfx_value *nnfx_v_param_at(nnfx_ctx *ctx, nnfx_module *m, const char *name, const char *file, int line);

/* Reads a scalar from a value for control flow. Eager: *out = element 0.
 * Tracing: a trace error "symbolically traced variables cannot be used as
 * inputs to control flow" naming the node and this call's source line. */
#define nnfx_v_item(ctx, v, out) nnfx_v_item_at((ctx), (v), (out), __FILE__, __LINE__)
nnfx_status nnfx_v_item_at(nnfx_ctx *ctx, nnfx_value *v, double *out, const char *file, int line);
/* The tensor of an eager value (NULL when tracing). Borrowed. */
nnfx_tensor *nnfx_value_tensor(nnfx_value *v);
/* The node recorded for a traced value (NULL when eager or a constant). */
nnfx_node *nnfx_value_node(nnfx_value *v);
/* True when ctx is recording a graph (FX's is_fx_tracing). */
bool nnfx_ctx_is_tracing(const nnfx_ctx *ctx);
/* Shape of a value (known when tracing with example shapes). */
const nnfx_meta *nnfx_value_meta(nnfx_value *v);
/* The first error recorded in ctx (status NNFX_OK if none). */
const nnfx_error *nnfx_ctx_error(const nnfx_ctx *ctx);

/* Traces root's forward on inputs of the given shapes (float32) into a
 * GraphModule; parameters become get_attr nodes named by module path. */
nnfx_gm *nnfx_symbolic_trace(nnfx_module *root, int nin, const nnfx_shape *example_shapes, nnfx_error *err);
/* Runs root's forward eagerly; outs get a new reference (caller releases). */
nnfx_status nnfx_module_run(nnfx_module *root, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err);

/* ===================================================================== */
/* Rewriting                                                             */
/* ===================================================================== */

/* Subgraph rewriting with torch.fx's replace_pattern semantics, plus the
 * pass library. A pattern is an ordinary graph: its placeholders are
 * wildcards, its output node lists the values the pattern returns (one or
 * several), every other node must be found in the target graph.
 *
 * Matching rules (docs/patterns.md has the long form):
 *  - call_function nodes match nodes of the same op with the same number of
 *    arguments; call_module nodes match by leaf name, get_attr nodes by
 *    parameter path.
 *  - A wildcard binds one argument (a node or a literal); every occurrence
 *    of the same wildcard must bind the same thing, so mul(x, x) does not
 *    match mul(a, b). A wildcard never binds a node of the match itself.
 *  - Literal arguments are compared by value (int 1 equals float 1.0).
 *  - Attributes set on a pattern node must be equal on the graph node
 *    (an absent graph attribute counts as its schema default); attributes
 *    the pattern leaves unset match anything.
 *  - Ops flagged NNFX_F_COMMUTATIVE match either argument order.
 *  - Distinct pattern nodes match distinct graph nodes.
 *  - A match whose inner nodes (matched nodes the pattern does not return)
 *    have users outside the match is rejected.
 *  - Matches do not overlap: candidates are tried in graph order of the
 *    anchor (the graph node matching the pattern's first returned value)
 *    and each accepted match claims its nodes.
 * Matching is iterative (no recursion); anchor candidates come from an
 * index by op, so cost grows with the number of candidates, not the graph.
 */

/* Why a candidate anchor was not matched (explain mode). */
typedef enum nnfx_reject_kind {
    NNFX_REJECT_NONE = 0,   /* matched                                         */
    NNFX_REJECT_OP,         /* op, opcode, target or argument count differs    */
    NNFX_REJECT_LITERAL,    /* a literal argument differs                      */
    NNFX_REJECT_ATTR,       /* an attribute set in the pattern differs         */
    NNFX_REJECT_WILDCARD,   /* a wildcard would bind two different things      */
    NNFX_REJECT_SHARED,     /* two pattern nodes would match one graph node    */
    NNFX_REJECT_OUTER_USER, /* an inner node has a user outside the match      */
    NNFX_REJECT_OVERLAP,    /* a node is already part of an earlier match      */
    NNFX_REJECT_FILTER,     /* the caller's match filter said no               */
    NNFX_REJECT_PLACEMENT   /* no place to insert the replacement (multi-output) */
} nnfx_reject_kind;

/* Short name of a reject kind ("op differs", "outer user", ...). */
const char *nnfx_reject_kind_name(nnfx_reject_kind k);

/* One match. pattern_nodes[i] (a node of the pattern graph) matched
 * graph_nodes[i]; the pairs cover the pattern's non-placeholder nodes.
 * bindings[k] is what pattern placeholder k (in placeholder order) bound.
 * After nnfx_replace_pattern the matched graph nodes are erased: their
 * entries in graph_nodes and anchor are NULL, anchor_name keeps the name,
 * and replacements[] are the nodes the replacement created. */
typedef struct nnfx_match {
    nnfx_node *anchor;
    const char *anchor_name;
    int n;
    const nnfx_node **pattern_nodes;
    nnfx_node **graph_nodes;
    int nbindings;
    nnfx_arg *bindings;
    int nreplacements;
    nnfx_node **replacements;
} nnfx_match;

/* A candidate anchor and what became of it (explain mode). */
typedef struct nnfx_candidate {
    const char *node;        /* candidate anchor's name                       */
    nnfx_reject_kind reason; /* NNFX_REJECT_NONE when it matched             */
    const char *detail;      /* "inner node %sig is used by %add outside ..." */
} nnfx_candidate;

/* The result of finding or replacing: matches in graph order, and (explain
 * mode) every candidate anchor with the reason it was rejected. */
typedef struct nnfx_match_list nnfx_match_list;

/* Return false to reject match m (it then claims no nodes). */
typedef bool (*nnfx_match_filter)(const nnfx_match *m, void *ctx);

typedef struct nnfx_rewrite_options {
    nnfx_match_filter filter; /* may be NULL                                  */
    void *filter_ctx;
    bool explain;            /* record every candidate and its reject reason */
    bool no_shape_inference; /* replace: skip re-inferring meta afterwards   */
} nnfx_rewrite_options;

/* Finds the non-overlapping matches of pattern in g without changing g.
 * opts may be NULL. Returns a list (possibly empty) or NULL on error (bad
 * pattern: no output node, a returned wildcard, a pattern that returns
 * nothing; out of memory). */
nnfx_match_list *nnfx_find_matches(const nnfx_graph *g, const nnfx_graph *pattern, const nnfx_rewrite_options *opts,
                                   nnfx_error *err);
/* Replaces every match of pattern in g by a copy of replacement (FX's
 * replace_pattern_with_filters). Replacement placeholders bind by position
 * to the pattern's; its output must return as many values as the pattern's.
 * Replacement nodes are inserted before the first returned node of the
 * match, take the anchor's module path and source location; matched nodes
 * are erased; meta is re-inferred with nnfx_graph_infer_shapes (a failure
 * there does not undo the rewrite: it is kept in nnfx_match_list_warning).
 * Replacement parameters are added to g (renamed when the name is taken by
 * another tensor). filter may be NULL. Returns the applied matches, or NULL
 * on error (g is unchanged when the error is found before applying). */
nnfx_match_list *nnfx_replace_pattern(nnfx_graph *g, const nnfx_graph *pattern, const nnfx_graph *replacement,
                                      nnfx_match_filter filter, void *ctx, nnfx_error *err);
/* nnfx_replace_pattern with options (filter, explain mode, ...); opts may be NULL. */
nnfx_match_list *nnfx_replace_pattern_ex(nnfx_graph *g, const nnfx_graph *pattern, const nnfx_graph *replacement,
                                         const nnfx_rewrite_options *opts, nnfx_error *err);
/* Frees the list. NULL-safe. */
void nnfx_match_list_free(nnfx_match_list *l);
/* Number of matches (0 for NULL), and the i-th (NULL when out of range). */
int nnfx_match_list_count(const nnfx_match_list *l);
const nnfx_match *nnfx_match_list_at(const nnfx_match_list *l, int i);
/* Candidates recorded in explain mode (0 otherwise), and the i-th. */
int nnfx_match_list_num_candidates(const nnfx_match_list *l);
const nnfx_candidate *nnfx_match_list_candidate(const nnfx_match_list *l, int i);
/* Shape inference message after a replacement ("" when none). Never NULL. */
const char *nnfx_match_list_warning(const nnfx_match_list *l);
/* A readable report, one line per candidate: "%relu_3: rejected (outer
 * user): inner node ..." or "%relu_4: matched". malloc'd; NULL on OOM. */
char *nnfx_rewrite_explain(const nnfx_match_list *l);

/* --- The pattern language (docs/patterns.md) ------------------------------
 *   rule    := exprs [ "->" exprs ]          exprs := expr { "," expr }
 *   expr    := op "(" [ arg { "," arg } ] ")" | wildcard | number | None
 *   arg     := expr | name "=" value         value := number | string | [list]
 * Ops by snake_case or ONNX name (relu, Relu, leaky_relu, LeakyRelu); an
 * identifier not followed by "(" is a wildcard. Example:
 *   "mul(x, sigmoid(x)) -> hard_swish(x)"                                   */

/* Parses rule into a pattern graph and (when the rule has "->") a
 * replacement graph, both new (caller frees). replacement may be NULL when
 * only the pattern is wanted; a rule without "->" sets *replacement NULL.
 * Errors are NNFX_ERR_PARSE with "column N: ..." (1-based). */
nnfx_status nnfx_pattern_parse(const char *rule, nnfx_graph **pattern, nnfx_graph **replacement, nnfx_error *err);
/* Parses rule ("relu(x) -> leaky_relu(x, alpha=0.1)") and applies it to g.
 * Returns the number of matches replaced, or -1 on error. The result must
 * pass shape inference and nnfx_graph_check_types: when it does not, -1
 * with the rule and the node in err (g is then rewritten but invalid:
 * discard it). */
int nnfx_rewrite_text(nnfx_graph *g, const char *rule, nnfx_error *err);

/* --- Passes --------------------------------------------------------------- */

/* A thing a pass chose not to change, and why. */
typedef struct nnfx_pass_skip {
    char node[64];    /* the node concerned                                 */
    char reason[192]; /* "conv output has 2 users", ...                     */
} nnfx_pass_skip;

/* What a pass did. Zero-initialise; a pass appends to it (skips accumulate
 * across passes; `changed` adds up). Free with nnfx_pass_report_free. */
typedef struct nnfx_pass_report {
    char pass[32]; /* name of the last pass run                      */
    int changed;   /* rewrites applied (fusions, nodes removed...)   */
    int nodes_before, nodes_after;
    int nskipped;
    nnfx_pass_skip *skipped;
} nnfx_pass_report;

/* Frees the skip list and zeroes the report. NULL-safe. */
void nnfx_pass_report_free(nnfx_pass_report *r);

/* Each pass edits g in place and fills report (may be NULL). They return
 * an error only for bad input or out of memory; the graph then may be
 * partly rewritten but stays lint-clean. */

/* Folds BatchNormalization into a preceding Conv (any groups, with or
 * without bias), Gemm or rank-2 MatMul whose only user it is, when every
 * weight is a get_attr parameter; folding runs in double precision into new
 * parameters (fresh names). Skips are reported with the reason. */
nnfx_status nnfx_pass_fuse_conv_bn(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Replaces every BatchNormalization by its input (changes results unless
 * the BN is an identity). */
nnfx_status nnfx_pass_remove_bn(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Replaces every Dropout by its input (inference mode). */
nnfx_status nnfx_pass_remove_dropout(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Replaces every no-op node (NNFX_F_NOOP: Identity, Dropout) by its input. */
nnfx_status nnfx_pass_remove_identity(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Common-subexpression elimination over pure call_function and get_attr
 * nodes with identical op, arguments and attributes (hash-based). */
nnfx_status nnfx_pass_cse(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Evaluates nodes computed only from parameters and literals (and Shape of
 * statically shaped values) with the CPU kernels, and replaces them by new
 * parameters. */
nnfx_status nnfx_pass_fold_constants(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);
/* Re-infers every node's meta (nnfx_graph_infer_shapes). */
nnfx_status nnfx_pass_shape_prop(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);

/* Runs the pass called name: "fuse-conv-bn", "remove-bn", "remove-dropout",
 * "remove-identity", "dce", "cse", "fold-constants", "shape-prop".
 * NNFX_ERR_NOT_FOUND (listing the names) for an unknown name. */
nnfx_status nnfx_pass_run_by_name(nnfx_graph *g, const char *name, nnfx_pass_report *report, nnfx_error *err);
/* Names of the registered passes: count and i-th (NULL out of range), and
 * a one-line description of each. */
int nnfx_pass_count(void);
const char *nnfx_pass_name(int i);
const char *nnfx_pass_description(int i);

/* ===================================================================== */
/* Structured pruning                                                    */
/* ===================================================================== */

/* Dependency groups (DepGraph-style, from op properties, not model
 * patterns): removing channel c of a Conv must also remove it from the BN
 * after it, from the next Conv's input, from every branch of a residual Add
 * or Mul, from its slice of a Concat, from the H*W features it becomes
 * after a Flatten, and so on. The analysis labels every position of every
 * channel axis; a channel is a set of positions that must go together, a
 * group a set of channels that share parameters. Followed: Conv (any
 * groups, depthwise), BatchNormalization, Gemm, MatMul with a weight,
 * element-wise and broadcasting ops, Concat, Split, Slice, Flatten,
 * Reshape, Squeeze/Unsqueeze, Transpose (hence channel shuffle), pooling,
 * Resize, Pad, reductions over other axes. Channels that reach a graph
 * input or output, or an op that is not followed, are kept; the group says
 * why. A parameter read by several ops has a member per reader, and their
 * channels go together (one group; the parameter is sliced once); when one
 * of its reads does not slice it along an axis, that axis keeps its size
 * and the group names the reader. Shapes must be static. */
typedef struct nnfx_prune_analysis nnfx_prune_analysis;

/* Analyses g: shapes are inferred first (symbolic input dims count as 1)
 * and, when the inputs have static shapes, constant subgraphs are folded
 * (nnfx_pass_fold_constants: Shape -> Gather -> Slice chains become
 * constants the analysis can follow). Nodes named in exclude keep all
 * their channels (NNFX_ERR_NOT_FOUND for a name g does not have). Free with
 * nnfx_prune_analysis_free. */
nnfx_prune_analysis *nnfx_prune_groups(nnfx_graph *g, int nexclude, const char *const *exclude, nnfx_error *err);
void nnfx_prune_analysis_free(nnfx_prune_analysis *a);
/* Number of groups. */
int nnfx_prune_num_groups(const nnfx_prune_analysis *a);

typedef struct nnfx_prune_group_info {
    const char *name;   /* a node that creates channels of the group       */
    int channels;       /* channels (index sets that go together)          */
    int prunable;       /* how many of them may be removed                 */
    const char *reason; /* why the others may not ("" when all may)        */
    int nmembers;       /* parameter slices that shrink with the group     */
} nnfx_prune_group_info;

/* Roles of a parameter slice. */
enum {
    NNFX_PRUNE_ROLE_PRODUCER = 1,
    NNFX_PRUNE_ROLE_CONSUMER = 2,
    NNFX_PRUNE_ROLE_BN_SCALE = 3,
    NNFX_PRUNE_ROLE_OTHER = 4
};

typedef struct nnfx_prune_member_info {
    const char *node;  /* the op reading the parameter                         */
    const char *param; /* the parameter                                        */
    int axis;          /* its axis that shrinks                                */
    int64_t size;      /* its length along axis                                */
    const char *value; /* the value whose channel axis indexes it: parameter   */
    int64_t offset;    /* index i is that value's channel position offset + i  */
    int role;          /* NNFX_PRUNE_ROLE_PRODUCER (Conv/Gemm output),         */
                       /* _CONSUMER (next layer's input), _BN_SCALE (gamma),   */
                       /* _OTHER (BN statistics, biases of Add/Mul...)         */
    bool shared;       /* other ops read the parameter too: each has a member  */
                       /* for this axis, all sliced at once                    */
} nnfx_prune_member_info;

/* Group i (0 <= i < count) and its member k; false when out of range. */
bool nnfx_prune_group_get(const nnfx_prune_analysis *a, int i, nnfx_prune_group_info *info);
bool nnfx_prune_group_member(const nnfx_prune_analysis *a, int i, int k, nnfx_prune_member_info *m);

/* One channel as a user criterion sees it: every parameter element slice
 * (index `index` along `axis` of tensor t) that belongs to it. */
typedef struct nnfx_prune_slice {
    const nnfx_tensor *t;
    const char *param;
    int axis;
    int64_t index;
    int role; /* NNFX_PRUNE_ROLE_PRODUCER ... */
} nnfx_prune_slice;
typedef struct nnfx_prune_channel {
    int group, channel;
    int nslices;
    const nnfx_prune_slice *slices;
} nnfx_prune_channel;
/* A user criterion: the channel's importance (lower is removed first). */
typedef double (*nnfx_prune_score_fn)(const nnfx_prune_channel *ch, void *user);

typedef enum nnfx_prune_criterion {
    NNFX_PRUNE_L1,       /* mean |w| over the producers' slices            */
    NNFX_PRUNE_L2,       /* root mean square over the producers' slices    */
    NNFX_PRUNE_BN_SCALE, /* |gamma| of the group's BatchNormalizations     */
    NNFX_PRUNE_RANDOM    /* seeded random scores                           */
} nnfx_prune_criterion;

typedef struct nnfx_prune_options {
    double ratio; /* share of channels to remove, in [0, 1)              */
    nnfx_prune_criterion criterion;
    bool global;  /* rank channels across groups (else within each)   */
    int round_to; /* keep a multiple of this many channels (0, 1: any) */
    int nexclude; /* nodes whose channels are all kept                 */
    const char *const *exclude;
    uint64_t seed;             /* NNFX_PRUNE_RANDOM                     */
    nnfx_prune_score_fn score; /* when set, replaces the criterion      */
    void *score_user;
} nnfx_prune_options;

typedef struct nnfx_prune_group_result {
    char name[128];
    int channels, kept, prunable;
    char reason[192];
    int64_t macs_before, macs_after;     /* of the ops the group touches */
    int64_t params_before, params_after; /* of its parameter members     */
} nnfx_prune_group_result;

typedef struct nnfx_prune_result {
    int ngroups;
    nnfx_prune_group_result *groups;
    int64_t macs_before, macs_after; /* whole graph */
    int64_t params_before, params_after;
    int channels_removed;
} nnfx_prune_result;

/* Structured pruning: removes opts->ratio of the channels (per group, or
 * across groups when global) with the lowest scores, slicing every
 * parameter member and rewriting Reshape shapes, Split sizes, Slice bounds
 * and depthwise Conv groups; the graph becomes physically smaller and its
 * shapes are re-inferred. res (may be NULL) receives a per-group report
 * (free with nnfx_prune_result_free). Errors: ratio outside [0, 1), an
 * unknown excluded node (NNFX_ERR_INVALID_ARG, NNFX_ERR_NOT_FOUND: g is
 * unchanged), nothing prunable or a criterion that scores no channel
 * (NNFX_ERR_UNSUPPORTED: g may have had constants folded, nothing else).
 * Callers that want the original kept prune a copy (nnfx_graph_copy). */
nnfx_status nnfx_prune(nnfx_graph *g, const nnfx_prune_options *opts, nnfx_prune_result *res, nnfx_error *err);
/* Unstructured magnitude pruning: in every Conv, Gemm and MatMul weight
 * (not one an excluded node reads, shared or not) the `sparsity` share of elements with the
 * smallest |w| become zero (written copy-on-write). res: one entry per
 * weight, params_after = non-zero elements. */
nnfx_status nnfx_prune_sparsity(nnfx_graph *g, double sparsity, int nexclude, const char *const *exclude,
                                nnfx_prune_result *res, nnfx_error *err);
void nnfx_prune_result_free(nnfx_prune_result *r);

/* ===================================================================== */
/* Files: NumPy, ONNX                                                    */
/* ===================================================================== */

/* Reads a NumPy .npy file (little-endian f4/f8/i8/i4/u1/i1/b1, C order). */
nnfx_tensor *nnfx_npy_load(const char *path, nnfx_error *err);
/* Writes t as .npy (to a temporary name, then renamed). */
nnfx_status nnfx_npy_save(const char *path, const nnfx_tensor *t, nnfx_error *err);
/* Reads an ONNX TensorProto (.pb) file. */
nnfx_tensor *nnfx_tensor_pb_load(const char *path, nnfx_error *err);

/* Loads an ONNX model into a graph. Initializer data is mapped from the file
 * (zero-copy where alignment allows); external data is mapped too. Errors
 * name the byte offset or the node. */
nnfx_graph *nnfx_onnx_load(const char *path, nnfx_error *err);
/* Parses an ONNX model from memory (data copied where needed). */
nnfx_graph *nnfx_onnx_load_buffer(const void *data, size_t size, nnfx_error *err);

/* How an ONNX model is read; all zero (or a NULL pointer) is the default,
 * which nnfx_onnx_load and nnfx_onnx_load_buffer use. */
typedef struct nnfx_onnx_load_options {
    /* An op nnfx lacks becomes a call_module node whose target is
     * NNFX_ONNX_OPAQUE_PREFIX "OpType" (or "onnx:domain:OpType") instead of
     * refusing the model: a leaf with no kernel (running it is
     * NNFX_ERR_UNSUPPORTED) and unknown output meta; extra outputs alias the
     * first. For analysis, which reports such nodes rather than failing. */
    bool keep_unknown_ops;
} nnfx_onnx_load_options;
/* The prefix of the targets of ops kept by keep_unknown_ops. */
#define NNFX_ONNX_OPAQUE_PREFIX "onnx:"
/* nnfx_onnx_load with options (NULL: the defaults). */
nnfx_graph *nnfx_onnx_load_opts(const char *path, const nnfx_onnx_load_options *opts, nnfx_error *err);
/* nnfx_onnx_load_buffer with options (NULL: the defaults). */
nnfx_graph *nnfx_onnx_load_buffer_opts(const void *data, size_t size, const nnfx_onnx_load_options *opts,
                                       nnfx_error *err);

typedef struct nnfx_onnx_save_options {
    bool external_data;        /* force weights into a side file            */
    size_t external_threshold; /* min bytes for a tensor to go external     */
    const char *external_name; /* side-file name (default: <model>.data)    */
    /* Provenance (additive; zero means "not given") */
    int64_t opset;                      /* default-domain opset to write; 0: see nnfx_onnx_export_opset */
    int nmetadata;                      /* extra metadata_props entries           */
    const char *const *metadata_keys;   /* nmetadata keys (replace imported ones) */
    const char *const *metadata_values; /* nmetadata values                       */
} nnfx_onnx_save_options;

/* Removes the temporary files of writes still in progress (async-signal-
 * safe: for a SIGINT/SIGTERM handler). Every file nnfx writes goes to a
 * unique temporary name beside its target (created with O_EXCL) and is
 * renamed over the target only when complete and synced. */
void nnfx_remove_temporaries(void);

/* Writes g as an ONNX model (temporary name, then renamed). opts may be
 * NULL: weights go external only when the model would pass 2 GB. The model
 * and its side file are committed as one unit: both are written in full
 * first, then the side file is renamed, then the model. Refused
 * (NNFX_ERR_INVALID_ARG) when the side file is one the graph's weights are
 * mapped from. Every model written says producer_name "nnfx" and
 * producer_version NNFX_VERSION; the imported metadata_props are kept, with opts' entries replacing those of the same
 * key. Node and value names are the imported model's where the node still
 * exists under its name. An opset that cannot hold the graph's forms is an
 * NNFX_ERR_UNSUPPORTED error naming the node (see nnfx_onnx_export_opset). */
nnfx_status nnfx_onnx_save(const nnfx_graph *g, const char *path, const nnfx_onnx_save_options *opts, nnfx_error *err);

/* The default-domain opset nnfx_onnx_save writes for g: `requested` when
 * > 0 and the graph's forms fit in it; for 0, the imported model's opset
 * (at least 13, the oldest form nnfx writes: axes as inputs, per-axis
 * Softmax) or 17 for a graph with no imported opset, raised only as far as
 * a node's form needs (the node is named in *why, which may be NULL; 256
 * bytes). Returns -1 with NNFX_ERR_UNSUPPORTED when `requested` is below 13
 * or below what a node needs (the message names the node and the opset). */
int64_t nnfx_onnx_export_opset(const nnfx_graph *g, int64_t requested, char *why, nnfx_error *err);

/* ---- Standalone C for embedded targets (src/codegen) --------------------- */

/* The three files of a generated model (malloc'd, NUL-terminated) and
 * figures about it. */
typedef struct nnfx_codegen_files {
    char *header;  /* NAME.h: NAME_run, NAME_run_arena, size/shape/type macros */
    char *source;  /* NAME.c: the kernels used and one call per plan step */
    char *weights; /* NAME_weights.c: const float arrays (exact, hex floats) */
    char *report;  /* JSON: arena and weight bytes, libm use, per-op figures */
    int64_t arena_bytes, weight_bytes;
    bool libm; /* the generated C calls libm (expf, sqrtf, ...) */
    /* int8 kernels emitted: the int8 islands of a QDQ model (DequantizeLinear
     * -> Conv / Gemm / MatMul / pooling -> QuantizeLinear) run as int8 x int8
     * with int32 accumulation, as nnfx's compiled plan runs them */
    int int8_steps;
    /* the plan step at which the live activations take the most bytes:
     * its last node's name, op and those bytes (the arena's lower bound) */
    char peak_node[128], peak_op[32];
    int64_t peak_live_bytes;
} nnfx_codegen_files;

/* Generates C99 for g (linted and shape-inferred here; every placeholder
 * needs a static shape, set it first, e.g. with nnfx_meta_set_shape, and a
 * float32, int64, int32, int8, uint8 or bool type: with any input or output
 * that is not float32, NAME_run takes void pointers, each input's and
 * output's C type in NAME_INPUTk_TYPE / NAME_OUTPUTk_TYPE). name must be a
 * C identifier (NULL: "model").
 * forbid (NULL or "") is a comma-separated list of op types (ONNX or nnfx
 * names, any case): a node using one fails with NNFX_ERR_RUNTIME listing
 * the nodes and a suggested rewrite. An op the generator has no kernel for
 * fails with NNFX_ERR_UNSUPPORTED naming the node and op; a placeholder
 * without a static shape with NNFX_ERR_INVALID_ARG. The code follows the
 * compiled plan (fused conv epilogues, views, one arena of
 * out->arena_bytes) and is byte-for-byte deterministic. A QDQ model's int8
 * islands become int8 kernels with int32 accumulation (out->int8_steps
 * counts them; the outputs equal the runtime's bit for bit); an integer
 * value the generator cannot express fails with NNFX_ERR_UNSUPPORTED
 * naming the node and op. A NonZero, Compress, Unique or NonMaxSuppression
 * whose output size depends on the data and whose outputs only the model's
 * outputs read generates with bounded outputs (NAME_OUTPUTk_BOUNDED; the
 * size macros give the bound, NAME_run_dims the actual dims); one that
 * other nodes read fails with NNFX_ERR_UNSUPPORTED. On success fills *out
 * (free with nnfx_codegen_files_free); on failure *out is empty.
 * Everything else it is told is in nnfx_codegen_options (below; NULL:
 * the defaults). */
/* What the generated kernels are tuned for (nnfx_codegen_options.optimize).
 * SPEED (the default): conv weights are re-laid out at generation in
 * the order a register-tiled kernel reads them (output channels in blocks
 * of 16, zero-padded), with bias, residual add and ReLU fused. SIZE: the
 * weights as in the model and the smallest kernels (direct loops), for
 * flash-constrained microcontrollers. Both are portable C99. */
typedef enum nnfx_codegen_optimize { NNFX_CODEGEN_SPEED = 0, NNFX_CODEGEN_SIZE = 1 } nnfx_codegen_optimize;
/* Everything nnfx_codegen is told; zero-initialised fields are the
 * defaults. */
typedef struct nnfx_codegen_options {
    const char *name;               /* C identifier prefix (NULL: "model") */
    const char *forbid;             /* op types refused, as above (NULL: none) */
    nnfx_codegen_optimize optimize; /* SPEED (0) or SIZE; another value: NNFX_ERR_INVALID_ARG */
    /* Model inputs whose values are fixed at generation (nfixed of them):
     * fixed_inputs[i] names a placeholder, fixed_values[i] holds its values
     * (its type and element count; the shape may differ, e.g. a list).
     * The generated code is specialised for them, so an output size that
     * depends on such an input (a Reshape's shape, Resize's scales, TopK's
     * K, a Range's limits, ...) becomes static. The input stays in the API;
     * NAME_run returns 1 without writing the outputs when it holds other
     * values (NAME_INPUTk_FIXED says which inputs are fixed). */
    int nfixed;
    const char *const *fixed_inputs;
    const nnfx_tensor *const *fixed_values;
    /* When noutputs > 0: generate only the part of the model that computes
     * these values (node names, as nnfx inspect prints them; a multi-output
     * node's outputs by their getitem nodes), in this order, as the model's
     * outputs; what they do not need is left out, model inputs too. E.g.
     * the static part before a NonMaxSuppression, whose rest the caller
     * runs itself. */
    int noutputs;
    const char *const *outputs;
    /* Integer-only C (a QDQ model quantized with int8 activations): every
     * float input must be read only by per-tensor int8 QuantizeLinear nodes
     * and every output be a per-tensor DequantizeLinear of an int8 value;
     * those are left to the caller, so the C takes and gives the int8
     * values: only int NAME_run_int8(const int8_t *const inputs[], int8_t
     * *const outputs[]) (and _arena), the scales and zero points as header
     * macros NAME_INPUTi_SCALE / _ZERO_POINT, NAME_OUTPUTi_SCALE /
     * _ZERO_POINT, and no float, double or libm anywhere in the code. A step
     * that is not integer fails with NNFX_ERR_UNSUPPORTED naming the node
     * and why. */
    bool int8_io;
} nnfx_codegen_options;
/* The C generator's one entry point (contract above; opts NULL: the
 * defaults). A fixed input that names no placeholder, is given twice, or
 * whose value has another type or element count than the input fails with
 * NNFX_ERR_INVALID_ARG, as does an output that names no value. g itself is
 * not changed. */
nnfx_status nnfx_codegen(nnfx_graph *g, const nnfx_codegen_options *opts, nnfx_codegen_files *out, nnfx_error *err);
/* Frees the strings of f and zeroes it (NULL is fine). */
void nnfx_codegen_files_free(nnfx_codegen_files *f);

#ifdef __cplusplus
}
#endif
#endif /* NNFX_H */
