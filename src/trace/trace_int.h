/* trace_int.h — private layout of modules, trace contexts and values
 * (trace/ layer only). */
#ifndef NNFX_TRACE_INT_H
#define NNFX_TRACE_INT_H

#include "nnfx.h"
#include "ir/strmap.h"

/* What a module is: a user module (forward function) or a built-in layer
 * that lowers to one op. */
typedef enum trace_layer {
    TL_USER = 0,
    TL_CONV,    /* conv(x, weight[, bias])                       */
    TL_BN,      /* batch_normalization(x, weight, bias, mean, var) */
    TL_LINEAR,  /* gemm(x, weight, bias, transB=1)               */
    TL_RELU,    /* relu(x)                                       */
    TL_LEAKY,   /* leaky_relu(x, alpha)                          */
    TL_SIGMOID, /* sigmoid(x)                                    */
    TL_MAXPOOL, /* max_pool(x)                                   */
    TL_GAP,     /* global_average_pool(x)                        */
    TL_FLATTEN, /* flatten(x, axis)                              */
    TL_DROPOUT  /* dropout(x, ratio) (identity at inference)     */
} trace_layer;

/* Configuration of a built-in layer. */
typedef struct trace_layer_cfg {
    int kernel, stride, padding, dilation, groups; /* conv, max_pool */
    double f;                                      /* eps, alpha, p  */
    int axis;                                      /* flatten        */
} trace_layer_cfg;

struct nnfx_module {
    /* What a call reads first, in one cache line with a short name: the
     * parent's lookup of the child by name (nnfx_module_child) compares
     * name and so brings in the line the call needs next. */
    nnfx_module *parent;     /* set by nnfx_module_add */
    char *name;              /* name under parent: name_inline, or malloc'd when longer */
    char *bad;               /* why the module cannot run (bad config), or NULL */
    nnfx_forward_fn forward; /* user modules only */
    trace_layer layer;
    int num_inputs; /* -1: any */
    char name_inline[16];
    char *type_name;
    void *user; /* borrowed, never freed by nnfx */
    trace_layer_cfg cfg;
    int nchildren, cap_children;
    nnfx_module **children;
    ir_strmap child_index; /* child name -> child, once more than a few (module.c) */
    int nparams, cap_params;
    char **param_names;
    nnfx_tensor **params;
    char **input_names; /* num_inputs entries (may be NULL each) or NULL */
};

/* A value: eager tensor, traced node, or scalar literal. */
typedef enum trace_value_kind { TV_TENSOR, TV_NODE, TV_SCALAR } trace_value_kind;

struct nnfx_value {
    trace_value_kind kind;
    nnfx_tensor *t;  /* TV_TENSOR (owned reference); also TV_SCALAR when eager */
    nnfx_node *node; /* TV_NODE */
    double scalar;   /* TV_SCALAR */
    nnfx_meta *meta; /* lazily computed for nnfx_value_meta (eager / scalar) */
    nnfx_ctx *ctx;
};

/* Values are allocated in chunks and freed with the context. Chunks grow
 * from TRACE_VALUE_CHUNK values to TRACE_VALUE_CHUNK_MAX; the large ones
 * come from the big-block cache (ir_big_alloc), so a trace after a trace
 * reuses their pages instead of faulting fresh ones in. */
#define TRACE_VALUE_CHUNK     256
#define TRACE_VALUE_CHUNK_MAX 8192
typedef struct trace_value_chunk {
    struct trace_value_chunk *next;
    int used, cap;
    nnfx_value v[];
} trace_value_chunk;

struct nnfx_ctx {
    bool tracing;
    nnfx_module *root;
    nnfx_graph *g;       /* tracing: the graph being recorded */
    nnfx_graph *scratch; /* eager: holds the throwaway node of each op */
    nnfx_error err;      /* first error */
    const char *path;    /* module path of the forward running now ("" root) */
    nnfx_module *cur;    /* module whose forward is running now */
    int depth;           /* nested module calls (recursion guard) */
    trace_value_chunk *chunks;
    /* Parameters this trace has read, per module: bit i of a module's mask
     * is its parameter slot i (open addressing on the module pointer). A
     * slot read for the first time is a new graph parameter, added without
     * a lookup by name. */
    struct trace_read_params *read;
    size_t nread, cap_read;
};

typedef struct trace_read_params {
    const nnfx_module *m; /* NULL: empty */
    uint64_t mask;
} trace_read_params;

/* Largest nesting of module calls before a trace error (runaway recursion). */
#define TRACE_MAX_DEPTH 256

/* --- context (values.c) --- */

/* A context for running root eagerly (tracing = false) or recording into g. */
nnfx_ctx *trace_ctx_new(nnfx_module *root, bool tracing, nnfx_graph *g);
/* Frees the context and every value (and their tensor references). */
void trace_ctx_free(nnfx_ctx *ctx);
/* A new value owned by ctx; NULL (and ctx error) when out of memory. */
nnfx_value *trace_value_new(nnfx_ctx *ctx, trace_value_kind kind);
/* Records the first error of ctx (later errors are ignored); returns the
 * status. printf-style. */
nnfx_status trace_fail(nnfx_ctx *ctx, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Basename of a source path ("a/b/simplenet.c" -> "simplenet.c"). */
const char *trace_basename(const char *file);
/* Runs or records op on values: the core of every nnfx_v_* helper and of
 * the built-in layers. name: base name of the recorded node (NULL: op
 * name); path: module path for node meta. */
nnfx_value *trace_op(nnfx_ctx *ctx, nnfx_op op, const char *name, int nin, nnfx_value *const *in, int nattrs,
                     const nnfx_attr *attrs, const char *path, const char *file, int line);
/* Reads parameter pname of module m whose path is mpath. */
nnfx_value *trace_param(nnfx_ctx *ctx, nnfx_module *m, const char *mpath, const char *pname, const char *file,
                        int line);

/* --- modules (module.c) --- */

/* Allocates a module of the given kind (no forward, no children). */
nnfx_module *trace_module_alloc(const char *type_name, trace_layer layer);
/* Marks m unusable with a reason reported when it is called. */
void trace_module_set_bad(nnfx_module *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* m's dotted path below root into a malloc'd string ("" for root), or NULL
 * when m is not in root's tree (or out of memory). */
char *trace_module_path(const nnfx_module *root, const nnfx_module *m);
/* The parameter called name directly on m, or NULL. */
nnfx_tensor *trace_module_own_param(const nnfx_module *m, const char *name);
/* The slot of parameter name directly on m, or -1. */
int trace_module_param_slot(const nnfx_module *m, const char *name);

/* --- built-in layers (layers.c) --- */

/* Runs or records a built-in layer on x; path is m's module path. */
nnfx_value *trace_layer_call(nnfx_ctx *ctx, nnfx_module *m, const char *path, nnfx_value *x, const char *file,
                             int line);

#endif
