/* ir_int.h — private layout of graphs and nodes (ir/ layer only, plus
 * layers above that need direct access for speed: exec/, io/). */
#ifndef NNFX_IR_INT_H
#define NNFX_IR_INT_H

#include "nnfx.h"

typedef struct ir_attr_store {
    nnfx_attr a; /* name/strings/arrays/tensor owned by the node */
} ir_attr_store;

struct nnfx_node {
    nnfx_graph *graph;
    nnfx_node *prev, *next;
    char *name;
    nnfx_opcode opcode;
    nnfx_op op;        /* call_function only */
    char *target;      /* placeholder name, get_attr path, call_module leaf */
    int nargs;
    nnfx_arg *args;
    int nattrs;
    nnfx_attr *attrs;  /* deep-owned */
    int nusers, cap_users;
    nnfx_node **users;
    int nout;          /* values produced (>= 1) */
    nnfx_meta *meta;   /* nout entries */
    char *module_path;
    char *src_file;
    int src_line;
    uint32_t order;    /* position key: increasing along the list (renumbered lazily) */
    void *pass_data;   /* scratch for passes (not copied, not owned) */
};

typedef struct ir_name_table {
    /* open addressing: name -> node */
    nnfx_node **slots;
    size_t cap, count;
} ir_name_table;

typedef struct ir_param {
    char *name;
    nnfx_tensor *t;
} ir_param;

typedef struct ir_leaf {
    char *name;
    nnfx_leaf_fn fn;
    nnfx_leaf_infer_fn infer;
    void *user;
} ir_leaf;

struct nnfx_graph {
    nnfx_node *head, *tail;
    int num_nodes;
    ir_name_table names;
    /* per-base-name counters for fresh names are derived by probing */
    nnfx_node *insert_ref; /* NULL: at end (before output) */
    bool insert_after;
    int nparams, cap_params;
    ir_param *params;
    int nleaves, cap_leaves;
    ir_leaf *leaves;
    /* Opaque model-level data kept for round trips (ONNX metadata); the
     * io/ layer owns its layout and supplies copy/free. */
    void *model_info;
    void *(*model_info_copy)(const void *info);
    void (*model_info_free)(void *info);
    bool orders_valid;
    uint64_t version; /* bumped on every structural edit */
};

/* Renumbers node->order along the list if edits invalidated it. */
void ir_graph_renumber(nnfx_graph *g);
/* Leaf registered under name, or NULL. */
const ir_leaf *ir_graph_leaf(const nnfx_graph *g, const char *name);
/* Deep-copies attribute a into *dst (malloc'd parts); false on OOM. */
bool ir_attr_copy(nnfx_attr *dst, const nnfx_attr *a);
/* Frees the owned parts of an attribute. */
void ir_attr_free(nnfx_attr *a);
/* Adds user u to n's users (deduplicated). */
bool ir_add_user(nnfx_node *n, nnfx_node *u);
/* Removes u from n's users if u no longer references n. */
void ir_drop_user_if_unused(nnfx_node *n, nnfx_node *u);
/* strdup that tolerates NULL. */
char *ir_strdup(const char *s);

#endif
