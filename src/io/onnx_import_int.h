/* onnx_import_int.h — state shared by the ONNX importer (onnx_import.c)
 * and its older-opset conversions (onnx_upgrade.c). */
#ifndef NNFX_ONNX_IMPORT_INT_H
#define NNFX_ONNX_IMPORT_INT_H

#include "io/onnx_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* One parsed AttributeProto. */
typedef struct imp_attr {
    char *name;
    int type; /* PB_AT_*, inferred from the fields when absent */
    int64_t i;
    double f;
    char *s;
    int64_t *ints;
    int nints;
    float *floats;
    int nfloats;
    nnfx_tensor *t;
    ow_reader g; /* GRAPH: a reader over the GraphProto (has_g)     */
    bool has_g;
    bool used;  /* consumed by a conversion                      */
    size_t off; /* byte offset of the attribute                  */
} imp_attr;

/* One parsed NodeProto. */
typedef struct imp_node {
    char *name, *op_type, *domain;
    int nin, nout;
    char **in, **out;
    int nattrs;
    imp_attr *attrs;
    size_t off; /* byte offset of the NodeProto                  */
} imp_node;

/* A value known by ONNX name: the node producing it, or a parameter whose
 * get_attr node is created at first use. */
typedef struct imp_value {
    char *name;
    nnfx_node *node;
    char *param;
    nnfx_tensor *pending; /* data not yet added as a parameter (added at first
                             use, so parameter order is first-use order)   */
    bool constant;        /* from a Constant node, not an initializer       */
} imp_value;

typedef struct imp {
    onnx_load_ctx lc;
    nnfx_graph *g;
    onnx_model_info *info;
    int64_t opset;    /* default-domain opset of the model             */
    ir_strmap values; /* ONNX value name -> imp_value *                */
    imp_value **vals;
    int nvals, cap_vals;
    ir_strmap used; /* names consumed by some node or graph output   */
    char **used_keys;
    int nused, cap_used;
    nnfx_error *err;
    bool opaque; /* unknown ops become opaque call_module nodes        */
    /* A subgraph's importer: the enclosing one, the nesting depth, and the
     * outer values the subgraph reads (captures: ONNX names and the
     * placeholders standing for them, in first-use order). */
    struct imp *parent;
    int depth;
    char **caps;
    nnfx_node **cap_nodes;
    int ncaps, cap_caps;
} imp;

/* Sets err to "<file>: node NAME (Op) at byte OFF: <message>"; returns s. */
nnfx_status imp_node_fail(imp *im, const imp_node *n, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The attribute called name, or NULL. */
imp_attr *imp_find_attr(imp_node *n, const char *name);
/* A new parameter (named from base, made unique) holding t, and its get_attr
 * node as an argument. Takes over the caller's reference to t. */
nnfx_status imp_const_arg(imp *im, const imp_node *n, const char *role, nnfx_tensor *t, nnfx_arg *out);
/* Same for int64[n] and float32 scalar values. */
nnfx_status imp_const_i64(imp *im, const imp_node *n, const char *role, const int64_t *v, int count, nnfx_arg *out);
nnfx_status imp_const_f32(imp *im, const imp_node *n, const char *role, float v, nnfx_arg *out);

/* Rewrites a node of an older opset into the IR's canonical (latest) form:
 * attributes that later opsets take as inputs become parameters feeding
 * those inputs (args grows as needed; *nargs updated; args has room for 8
 * more than n->nin), the op type may change (Upsample -> Resize), and
 * attributes consumed are marked used. *expand_softmax is set when a
 * Softmax/LogSoftmax before opset 13 must be expanded (flatten, op,
 * reshape) by the caller. */
nnfx_status onnx_upgrade_node(imp *im, imp_node *n, nnfx_op *op, nnfx_arg *args, int *nargs, bool *expand_softmax);

#endif
