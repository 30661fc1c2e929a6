/* ir_int.h — private layout of graphs and nodes (ir/ layer only, plus
 * layers above that need direct access for speed: exec/, io/). */
#ifndef NNFX_IR_INT_H
#define NNFX_IR_INT_H

#include "nnfx.h"
#include "ir/arena.h"
#include "ir/strmap.h"
#include "ir/symbol.h"

/* The fields every whole-graph walk reads come first (one cache line).
 * Node structs have an arena of their own, so nodes created in order lie
 * at a constant stride (a walk of a large graph is a pointer chase the
 * hardware prefetcher can follow); args and users live in the hot arena,
 * the rest in the cold arena, so walks touch few lines per node. */
struct nnfx_node {
    nnfx_node *next, *prev;
    nnfx_arg *args;
    nnfx_graph *graph;
    nnfx_opcode opcode;
    nnfx_op op; /* call_function only */
    int nargs;
    uint32_t order; /* position key: increasing along the list (renumbered lazily) */
    /* Incremental shape inference (see nnfx_graph_infer_shapes):
     * infer_dirty: args, attributes, outputs or meta edited since the last
     *   inference of this node;
     * infer_value: the last inference computed a constant value;
     * infer_changed: the current pass changed this node's meta. */
    bool infer_dirty, infer_value, infer_changed;
    bool attrs_linted; /* lint checked the attributes since the last set_attr */
    int nusers;
    nnfx_node **users;
    void *pass_data; /* scratch for passes (not copied, not owned) */
    /* --- */
    int cap_users;
    int nout;        /* values produced (>= 1) */
    nnfx_meta *meta; /* nout entries */
    char *name;
    uint64_t name_hash; /* ir_strmap_hash(name) */
    char *target;       /* placeholder name, get_attr path, call_module leaf (shared string) */
    int nattrs;
    /* A graph attribute was set on the node at some point (never cleared):
     * false lets walks skip its attributes when counting subgraphs. */
    bool had_subgraph;
    nnfx_attr *attrs;  /* deep-owned */
    char *module_path; /* shared string (ir_sstr_*) */
    char *src_file;    /* shared string */
    int src_line;
    /* get_attr only: index + 1 of target in graph->params, valid while
     * param_epoch equals the graph's (see ir_node_param). */
    int param_idx;
    uint32_t param_epoch;
    int step;        /* exec plan: position in the last plan built */
    uint64_t serial; /* unique among the nodes its graph ever had (nnfx_node_serial) */
};

typedef struct ir_param {
    char *name;
    nnfx_tensor *t;
    bool constant; /* came from a constant of the model, not a weight */
} ir_param;

typedef struct ir_leaf {
    char *name;
    nnfx_leaf_fn fn;
    nnfx_leaf_infer_fn infer;
    void *user;
} ir_leaf;

/* The parameter index: name -> index + 1 into graph->params, open
 * addressing over 8-byte slots, each the low 32 bits of the name's hash (a
 * tag, which also gives the slot a probe starts at) above the index + 1
 * (0: an empty slot). The name is read from params[] only when a tag
 * matches. A third of ir_strmap's 24-byte slots: building the index of a
 * large graph's parameters (the first lookup after each compaction, which
 * drops it) writes to a table the caches hold far better. No deletions. */
typedef struct ir_param_index {
    uint64_t *slots;
    size_t cap, count;
} ir_param_index;

/* The name table: node name -> node, open addressing with the name's hash
 * kept in the slot (16 bytes a slot: the key is the node's own name). */
typedef struct ir_name_slot {
    nnfx_node *node; /* NULL: empty; IR_NAME_TOMB: deleted */
    uint64_t hash;
} ir_name_slot;
typedef struct ir_names {
    ir_name_slot *slots;
    size_t cap, count, used;
} ir_names;
#define IR_NAME_TOMB ((nnfx_node *)1)

/* The node called name (hash: ir_strmap_hash(name)), or NULL. */
nnfx_node *ir_names_get(const ir_names *m, const char *name, uint64_t hash);
/* Removes node n's entry (found by pointer, from n->name_hash) if present. */
void ir_names_del(ir_names *m, const nnfx_node *n);
/* Hints the CPU to fetch the slot where a lookup of hash starts. */
static inline void ir_names_prefetch(const ir_names *m, uint64_t hash) {
    if (m->cap) __builtin_prefetch(&m->slots[(size_t)hash & (m->cap - 1)]);
}

struct nnfx_graph {
    ir_arena nodes; /* node structs                              */
    ir_arena hot;   /* args and users arrays                     */
    ir_arena arena; /* everything else nodes own                 */
    nnfx_node *head, *tail;
    int num_nodes;
    int unused_removable;    /* live get_attr / call_function nodes with no users: what dead-code
                              * elimination may erase (it returns at once while this is 0) */
    ir_names names;          /* node name -> node                          */
    ir_strmap name_counters; /* base name -> next suffix (intptr_t)      */
    char **counter_keys;     /* owned keys of name_counters               */
    int ncounter_keys, cap_counter_keys;
    ir_param_index param_index; /* param name -> index + 1, for         */
    int nparams_indexed;        /* params[0 .. nparams_indexed) (lazily)      */
    nnfx_node *insert_ref;      /* NULL: at end (before output) */
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
    /* The nodes in list order, recorded by ir_graph_order in a large graph;
     * valid until a node is linked or unlinked (order_valid). */
    nnfx_node **order;
    size_t order_bytes;
    bool order_valid;
    uint64_t version;     /* bumped on every structural edit */
    uint32_t param_epoch; /* bumped when parameter indices move */
    uint64_t last_serial; /* serial of the newest node (nnfx_node_serial) */
    /* Every node's meta is what a full inference pass gives, except nodes
     * marked infer_dirty; false forces the next pass to redo every node. */
    bool infer_valid;
    /* Shared strings last handed out for module paths and source files
     * (each holds a reference): consecutive nodes of a trace share them. */
    char *recent_paths[2], *recent_files[2];
};

/* Hints the CPU to fetch the node struct `ahead` nodes after n in memory.
 * Nodes created in order sit at a constant stride in the nodes arena, so
 * this usually is the node `ahead` steps along the list: whole-graph walks
 * call it so that their pointer chase does not wait on memory at every node
 * of a large graph (a wrong guess only costs a useless prefetch). */
static inline void ir_node_prefetch(const nnfx_node *n, int ahead) {
    __builtin_prefetch((const char *)n + (ptrdiff_t)ahead * (ptrdiff_t)sizeof *n);
}

/* Graphs of at least this many nodes keep their list order in an array
 * for whole-graph walks (ir_graph_order). */
#define IR_ORDER_MIN_NODES 32768
/* The graph's nodes in list order (num_nodes entries) for a walk that
 * neither links nor unlinks nodes: the array recorded by the last call
 * while the list has not changed since, else recorded now (one walk of the
 * list). NULL for a graph under IR_ORDER_MIN_NODES nodes (the caller walks
 * the list), or on OOM. After passes have erased and added nodes, the
 * nodes no longer sit in memory in list order, and a walk of the list
 * waits on memory at most nodes of a large graph; the array lets the
 * next walks prefetch the exact nodes ahead (ir_order_prefetch). */
nnfx_node *const *ir_graph_order(nnfx_graph *g);
/* Hints the CPU to fetch the node struct `ahead` entries after order[i]
 * (its first three cache lines); order has n entries. */
static inline void ir_order_prefetch(nnfx_node *const *order, int i, int n, int ahead) {
    if (i + ahead < n) {
        const char *p = (const char *)order[i + ahead];
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
        __builtin_prefetch(p + 128);
    }
}
/* A whole-graph walk in list order that neither links nor unlinks nodes:
 * through ir_graph_order's array where the graph keeps one, else along
 * the list.
 *   ir_walk wk;
 *   for (nnfx_node *n = ir_walk_first(g, &wk); n; n = ir_walk_next(&wk, n)) {
 *       ir_walk_prefetch(&wk, n); ... } */
typedef struct ir_walk {
    nnfx_node *const *ord; /* NULL: along the list */
    int n, i;
} ir_walk;
static inline nnfx_node *ir_walk_first(nnfx_graph *g, ir_walk *w) {
    w->ord = ir_graph_order(g);
    w->n = g->num_nodes, w->i = 0;
    return w->ord ? w->ord[0] : g->head;
}
static inline nnfx_node *ir_walk_next(ir_walk *w, const nnfx_node *n) {
    return w->ord ? (++w->i < w->n ? w->ord[w->i] : NULL) : n->next;
}
/* Hints the CPU to fetch the nodes the walk reaches next (n: the current one). */
static inline void ir_walk_prefetch(const ir_walk *w, const nnfx_node *n) {
    if (w->ord)
        ir_order_prefetch(w->ord, w->i, w->n, 12);
    else
        ir_node_prefetch(n, 16);
}

/* True when every attribute of call_function node n is in its op's schema
 * with the right kind (what lint checks; lint.c). */
bool ir_node_attrs_valid(const nnfx_node *n);
/* Renumbers node->order along the list if edits invalidated it. */
void ir_graph_renumber(nnfx_graph *g);
/* Leaf registered under name, or NULL. */
const ir_leaf *ir_graph_leaf(const nnfx_graph *g, const char *name);
/* Frees the owned parts of an attribute. */
void ir_attr_free(nnfx_attr *a);
/* Adds user u to n's users (deduplicated). */
bool ir_add_user(nnfx_node *n, nnfx_node *u);
/* Removes u from n's users if u no longer references n. */
void ir_drop_user_if_unused(nnfx_node *n, nnfx_node *u);
/* Sets the number of values n produces (multi-output ops). */
nnfx_status ir_node_set_num_outputs(nnfx_node *n, int k, nnfx_error *err);
/* Marks the graph changed (invalidates order and compiled plans). */
/* The parameter called name as stored (no first-access copy of an unaligned
 * mapped tensor): for code that needs only its existence, dtype or shape. */
nnfx_tensor *ir_graph_param_raw(const nnfx_graph *g, const char *name);
void ir_graph_touch(nnfx_graph *g);
/* Scalar tensor for a literal argument (int64 or float32). */
nnfx_tensor *ir_literal_tensor(const nnfx_arg *a, nnfx_error *err);

/* ---- constant evaluation (const_eval.c) ---- */
/* The known value (borrowed) of node argument arg, or NULL when it is not
 * known, for one caller of ir_const_in_gather. */
typedef const nnfx_tensor *(*ir_value_fn)(void *ctx, const nnfx_node *arg);
/* The inputs of one constant evaluation of a node, for its kernel. */
typedef struct ir_const_in {
    int n;           /* the node's argument count */
    nnfx_tensor **t; /* n inputs; NULL: absent, or not known */
    bool *owned;     /* t[i] is held here (a literal, or a shape header) */
    bool known;      /* every node argument has a value */
    nnfx_tensor *t_stack[16];
    bool owned_stack[16];
} ir_const_in;
/* Gathers the inputs of n (caller releases ci with ir_const_in_release,
 * on failure too): a node argument's value from value_of; for Shape and
 * Size, whose kernels read only the shape, a header with the argument's
 * static shape when its value is not known; a literal as a new scalar
 * tensor; an absent argument NULL. The one way the interpreter's kernels
 * are fed constant inputs: shape inference, fold-constants and the
 * compiled plan all call it. NNFX_ERR_NOMEM on OOM. */
nnfx_status ir_const_in_gather(ir_const_in *ci, const nnfx_node *n, ir_value_fn value_of, void *ctx, nnfx_error *err);
/* Releases what ir_const_in_gather holds (literals, headers, arrays). */
void ir_const_in_release(ir_const_in *ci);
/* Evaluates node n on concrete inputs into new output tensors (the
 * signature of nnfx_op_run, which callers above exec pass). */
typedef nnfx_status (*ir_eval_fn)(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out,
                                  nnfx_error *err);
/* Folds g's constants in place: every pure single-output node whose inputs
 * are parameters, literals or folded values (and Shape / Size of a
 * statically shaped value) is evaluated with eval (values over 64 MiB stay
 * computed), the frontier of the folded region becomes new parameters
 * ("const_<node>"), folded nodes and dead parameters are erased, shapes are
 * inferred again. DequantizeLinear is never folded. *changed (may be NULL)
 * grows by the parameters added. NNFX_ERR_NOMEM on OOM. */
nnfx_status ir_fold_constants(nnfx_graph *g, ir_eval_fn eval, int *changed, nnfx_error *err);
/* Adds t as a new parameter named base + suffix ("conv.weight" ->
 * "conv.weight_fused", then "_fused_1", ...); returns its get_attr node,
 * created at the current insert point, or NULL with err set. */
nnfx_node *ir_graph_new_param(nnfx_graph *g, const char *base, const char *suffix, nnfx_tensor *t, nnfx_error *err);
/* Prefetches the slots of the parameter index and the name table that
 * ir_graph_new_param(g, base, suffix, ...) probes first, for a caller with
 * other work to do before that call. A hint only (no effect on the graph);
 * it does nothing while the name table is small enough to stay cached. */
void ir_graph_prefetch_new_param(const nnfx_graph *g, const char *base, const char *suffix);
/* Erases get_attr nodes without users, then drops unused parameters. */
void ir_graph_drop_dead_params(nnfx_graph *g);
/* Infers n's output metas from its inputs' metas (and known values through
 * pass_data when values != NULL). With want_value, small constant results
 * are computed into *value_out (new reference) when every input is known. */
nnfx_status ir_infer_node(nnfx_node *n, nnfx_tensor **values, bool want_value, nnfx_tensor **value_out,
                          nnfx_error *err);
/* strdup that tolerates NULL. */
char *ir_strdup(const char *s);
/* Deep-copies attribute a into *dst with parts in g's arena; false on OOM. */
bool ir_node_attr_copy(nnfx_graph *g, nnfx_attr *dst, const nnfx_attr *a);
/* Frees the arena-owned parts of a node attribute. */
void ir_node_attr_free(nnfx_graph *g, nnfx_attr *a);
/* Frees a string owned by g's arena (NULL-safe). */
void ir_graph_free_str(nnfx_graph *g, char *s);
/* Shared strings: node fields that many nodes hold with the same text
 * (module path, source file, target) are reference-counted copies in the
 * graph's arena. ir_sstr_get returns a reference to a string equal to s,
 * reusing one of recent[0..1] (which it updates) when it matches; NULL on
 * OOM. ir_sstr_put drops a reference (NULL-safe). */
char *ir_sstr_get(nnfx_graph *g, char **recent, const char *s);
/* One more reference to shared string s (which must be one); returns s. */
char *ir_sstr_ref(char *s);
void ir_sstr_put(nnfx_graph *g, char *s);
/* Sets the target string of a node (placeholder, get_attr, call_module);
 * false on OOM (the old target stays). */
bool ir_node_set_target(nnfx_node *n, const char *target);
/* The parameter tensor a get_attr node reads (cached index, one hash
 * lookup after parameters moved), or NULL. Borrowed. ir_node_param is
 * ready for reading data (as nnfx_graph_param); ir_node_param_raw is the
 * tensor as stored, for its existence, dtype and shape. */
nnfx_tensor *ir_node_param(const nnfx_node *n);
nnfx_tensor *ir_node_param_raw(const nnfx_node *n);
/* A parameter tensor as stored (from ir_node_param_raw) made ready for
 * reading data, as ir_node_param returns it; NULL on OOM. */
nnfx_tensor *ir_tensor_ready(nnfx_tensor *raw);
/* True for a parameter that shape inference and cost functions read as a
 * value: an integer or bool tensor of at most 4096 elements (shapes, axes,
 * pads, repeats) or any tensor of at most 64 elements (scalars, scales,
 * clip bounds). Weights are not read: a mapped model's stay on disk. */
static inline bool ir_shape_value_like(nnfx_dtype dt, int64_t numel) {
    bool ints = dt == NNFX_I64 || dt == NNFX_I32 || dt == NNFX_BOOL;
    return numel <= 64 || (ints && numel <= 4096);
}
/* Index + 1 of parameter name in g->params, or 0. Indexes the parameters
 * added since the last lookup (writes g's index: not a semantic change). */
int ir_graph_param_find(const nnfx_graph *g, const char *name);
/* Adds parameter name (which must not exist yet; retains t); its index + 1,
 * or 0 on OOM (err set). */
int ir_graph_param_add(nnfx_graph *g, const char *name, nnfx_tensor *t, nnfx_error *err);
/* Makes room for n entries in m without growing; false on OOM. */
bool ir_value_map_reserve(nnfx_value_map *m, size_t n);
/* A get_attr node reading parameter index idx (0-based) of g. */
nnfx_node *ir_graph_get_attr_at(nnfx_graph *g, int idx, nnfx_error *err);

/* --- Control flow (ctrl.c) ------------------------------------------------ */

/* Deepest nesting of subgraphs accepted (import, lint, inference, runs). */
#define IR_MAX_GRAPH_DEPTH 16

/* How an If/Loop/Scan node's operands map onto its bodies (see ctrl.c). */
typedef struct ir_ctrl_shape {
    nnfx_graph *body[2]; /* If: then, else; Loop/Scan: body              */
    int nbodies;
    int nformal;       /* body inputs before the captured values         */
    int ncarried;      /* Loop/Scan: loop-carried values                 */
    int nscan_in;      /* Scan: scanned inputs                           */
    int nscan_out;     /* Loop/Scan: per-iteration outputs               */
    int ncaptures;     /* captured operands (the last ones)             */
    int first_capture; /* operand index of the first captured value      */
    int nresults;      /* outputs of the node                            */
} ir_ctrl_shape;

/* Element 0 of a non-empty tensor as int64: read as such when it is one
 * (a double holds INT64_MAX as 2^63, outside int64), else saturated. */
int64_t ir_tensor_int_at0(const nnfx_tensor *t);
/* True for If, Loop and Scan. */
bool ir_op_is_ctrl(nnfx_op op);
/* The graph attribute called name, or NULL. */
nnfx_graph *ir_ctrl_body(const nnfx_node *n, const char *name);
/* Number of values g returns (0 without an output node). */
int ir_graph_num_outputs(const nnfx_graph *g);
/* Checks the arity of a control-flow node against its bodies and fills s. */
nnfx_status ir_ctrl_layout(const nnfx_node *n, ir_ctrl_shape *s, nnfx_error *err);
/* Whether Loop body g returns its condition input unchanged (through
 * Identity nodes and Casts to bool) or a true constant as its condition: a loop that starts
 * runs all its trips. */
bool ir_loop_keeps_condition(const nnfx_graph *g);
/* Lints a control-flow node: layout, outputs, and its bodies (recursively). */
nnfx_status ir_ctrl_lint(const nnfx_node *n, nnfx_error *err);
/* Enters one more level of subgraph nesting for n (an error past
 * IR_MAX_GRAPH_DEPTH, per thread); ir_ctrl_leave undoes it. */
nnfx_status ir_ctrl_enter(const nnfx_node *n, nnfx_error *err);
void ir_ctrl_leave(void);
/* Entry i of the axis list attribute name of a Scan (default 0),
 * normalised to rank r; -1 when out of range. */
int ir_scan_axis(const nnfx_node *n, const char *name, int i, int r);

/* ---- lint and shape inference, node by node (lint.c, shape_infer.c) ---- */

/* What nnfx_graph_lint gathers over its walk. */
typedef struct ir_lint_walk {
    int count, outputs, unused;
    long long user_entries; /* users-list entries of the nodes walked       */
    long long user_pairs;   /* distinct (node, argument node) uses of them  */
} ir_lint_walk;
/* Lint's checks of node n (the walk in list order, renumbered first). */
nnfx_status ir_lint_node(nnfx_graph *g, nnfx_node *n, ir_lint_walk *w, nnfx_error *err);
/* Lint's checks of the whole graph once every node passed ir_lint_node. */
nnfx_status ir_lint_end(const nnfx_graph *g, const ir_lint_walk *w, nnfx_error *err);

/* What nnfx_graph_infer_shapes carries over its walk. */
typedef struct ir_infer_walk {
    bool full;      /* every node is inferred (no earlier valid pass) */
    bool any_value; /* some node holds a constant value in pass_data */
    nnfx_tensor *values;
} ir_infer_walk;
/* Starts an inference walk over g (the graph's results are invalid until ir_infer_end succeeds). */
void ir_infer_begin(nnfx_graph *g, ir_infer_walk *w);
/* Infers node n (its inputs walked before it) when it or they changed. */
nnfx_status ir_infer_walk_node(nnfx_node *n, ir_infer_walk *w, nnfx_error *err);
/* Ends the walk: releases the constants of the nodes before stop (NULL:
 * every node), and marks the graph's inference valid when st is NNFX_OK. */
void ir_infer_end(nnfx_graph *g, ir_infer_walk *w, const nnfx_node *stop, nnfx_status st);
/* nnfx_graph_lint then nnfx_graph_infer_shapes in one walk over the nodes
 * (a large graph's nodes are read from memory once, not twice): the same
 * checks, results and error (a lint error wins over an inference one). */
nnfx_status ir_graph_lint_and_infer(nnfx_graph *g, nnfx_error *err);

#endif
