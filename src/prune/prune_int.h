/* prune_int.h — private state of structured pruning (src/prune/).
 *
 * The analysis (groups.c) gives every position of every tracked axis of
 * every value a label: a channel element. Ops that keep a channel where it
 * is (activations, BN, pooling, residual Add) pass labels through or join
 * them (union-find); ops that create channels (Conv, Gemm, MatMul, graph
 * inputs) make fresh ones; Concat, Split, Slice, Reshape and Transpose move
 * them. Each fresh set of labels is a block; joining two labels joins their
 * blocks, and a dependency group is a set of joined blocks. Removing a
 * channel (a union-find root) removes every position labelled with it, in
 * every value and every parameter member, at once. */
#ifndef NNFX_PRUNE_INT_H
#define NNFX_PRUNE_INT_H

#include "nnfx.h"

/* Labels of one value (one output of a node). */
typedef struct pr_val {
    int rank; /* -1: unknown (nothing tracked) */
    int64_t dims[NNFX_MAX_RANK];
    int lo, hi; /* tracked dims [lo, hi); lo == hi: none */
    int paxis;  /* the dim channels are removed along, lo <= paxis < hi */
    int64_t n;  /* elements of lab: product of dims[lo..hi) */
    int *lab;   /* n labels (element ids), row-major over dims[lo..hi) */
} pr_val;

enum { PR_PRODUCER = 1, PR_CONSUMER = 2, PR_BN_SCALE = 3, PR_OTHER = 4 };

/* A parameter slice tied to a value: index i along `axis` of parameter
 * `param` belongs to the channel at position offset + i along the value's
 * paxis. */
typedef struct pr_member {
    const nnfx_node *node; /* the op that reads the parameter */
    int arg;               /* as its input arg */
    const char *param;     /* parameter name (the graph's) */
    int axis;
    int64_t size; /* the parameter's dim along axis */
    const nnfx_node *vnode;
    int vout;
    int64_t offset;
    int kind;    /* PR_PRODUCER ... */
    bool shared; /* another member slices the same parameter along the
                  * same axis, at the same channels (a shared parameter) */
    bool dup;    /* shared, and not the first such member: sliced with it */
} pr_member;

struct nnfx_prune_analysis {
    nnfx_graph *g;
    int nnodes;
    nnfx_node **nodes; /* graph order; node->pass_data = its pr_val array */
    pr_val **vals;     /* per node, nout entries */
    /* channel elements */
    int nel, capel;
    int *parent, *eblock, *ereason;
    /* blocks */
    int nblk, capblk;
    int *bparent;
    const nnfx_node **bnode;
    /* reasons a channel cannot be removed */
    int nreason, capreason;
    char **reasons;
    int nmem, capmem;
    pr_member *mem;
    bool oom;
    /* groups (filled by pr_collect) */
    int ngroups;
    struct pr_group *groups;
    int *el_group; /* per element root: group index, -1 */
    int *el_chan;  /* per element root: channel index in its group */
};

typedef struct pr_group {
    const nnfx_node *node; /* a node that created one of its blocks */
    int nchan;
    int *chan;       /* element roots */
    bool *chan_free; /* channel not blocked */
    int nfree;
    const char *reason; /* why a channel is blocked (first seen) */
    int nmem;
    int *mem; /* member indices touching the group */
} pr_group;

/* Union-find over channel elements. */
int pr_find(nnfx_prune_analysis *pg, int e);
/* The label at position pos along v's paxis (other tracked dims at 0). */
int pr_label_at(const pr_val *v, int64_t pos);
/* v's value (node n, output i), or NULL. */
pr_val *pr_val_of(const nnfx_prune_analysis *pg, const nnfx_node *n, int i);

#endif
