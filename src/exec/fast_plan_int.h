/* fast_plan_int.h — the compiled plan's values, steps and plan, shared by
 * the files that build it: fast_plan.c (the plan) and plan_layout.c (the
 * channels-last and blocked layouts of its values). Private to src/exec. */
#ifndef NNFX_FAST_PLAN_INT_H
#define NNFX_FAST_PLAN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/fast_int.h"
#include "exec/outer_ranges.h"
#include "exec/qplan.h"
#include "ir/ir_int.h"

/* V_TUPLE: a multi-output node; its outputs are the values src ..
 * src + nout - 1 (arena or constant), and each getitem of it aliases one. */
typedef enum vkind { V_NONE, V_CONST, V_INPUT, V_ARENA, V_ALIAS, V_TUPLE } vkind;

typedef struct fx_val {
    vkind kind;
    nnfx_tensor *t; /* CONST: owned reference; INPUT/ARENA/ALIAS: header over borrowed data */
    int src;        /* ALIAS: the value whose storage this one views; TUPLE: its first output */
    int def, last;  /* first and last step that touch it (-1: none)  */
    int64_t bytes, off;
    const nnfx_node *node; /* INPUT: its placeholder */
    bool nhwc;             /* ARENA: stored channels-last (between oneDNN steps: plan_layouts) */
    bool blk;              /* ARENA, nhwc: stored in channel blocks instead (fx_dnnl_block; plan_blocked) */
} fx_val;

/* S_NHWC_CHANNEL, S_NHWC_CONCAT, S_NHWC_MAXPOOL: a kernel step over
 * channels-last values (plan_layouts), run by fx_nhwc_channel_op,
 * fx_nhwc_concat, fx_maxpool_run_nhwc. */
typedef enum skind {
    S_KERNEL,
    S_CONV,
    S_MAXPOOL,
    S_OUTPUT,
    S_QOP,
    S_DNNL,
    S_NHWC_CHANNEL,
    S_NHWC_CONCAT,
    S_NHWC_MAXPOOL
} skind;

typedef struct fx_step {
    skind kind;
    const nnfx_node *n;     /* the node whose value the step writes (last of a fused chain) */
    const nnfx_node *first; /* first node of a fused chain (the conv) */
    nnfx_kernel_fn kern;
    bool zero_out; /* clear the output before a generic kernel that may not write all of it */
    int nin;
    int *in;              /* value indices (-1: absent optional input) */
    nnfx_tensor **inbuf;  /* nin tensors, filled per run */
    int out;              /* value index (-1 for S_OUTPUT); a multi-output step: outs[0] */
    int nout;             /* values written: 1, or a multi-output node's outputs */
    int *outs;            /* nout value indices (a multi-output step; NULL otherwise) */
    nnfx_tensor **outbuf; /* nout tensors, filled per run (a multi-output step) */
    fx_conv *conv;        /* S_CONV: in[0] = x, in[1] = residual or -1 */
    fx_maxpool *mpool;    /* S_MAXPOOL: in[0] = x */
    fx_qop *qop;          /* S_QOP: an int8 island (qplan.h); in[0] = x, in[1] = residual or -1 */
    fx_dnnl *dnnl;        /* S_DNNL: a oneDNN conv chain (in[0] = x, in[1] = residual or -1) or pooling
                             (in[0] = x); a pooling step is a kernel step until plan_layouts keeps it */
    bool dnnl_pool;       /* dnnl is a pooling that may yet fall back to the kernel step */
    bool pad_fused;       /* dnnl is an AveragePool with the Pad before it folded in (in[0]: the Pad's input):
                             it runs on oneDNN in either layout */
    int nhwc_full;        /* S_NHWC_CHANNEL: the argument that is the full tensor */
    int gemm_tasks; /* S_KERNEL of a large Gemm or MatMul of a 2-d B: column ranges run as this many pool tasks (0: one
                       call) */
    fx_ranges ranges; /* S_KERNEL (not column ranges): ranges of an outer output dim as pool tasks (plan_ranges) */
} fx_step;

struct fx_plan {
    int nvals, nsteps, ninputs;
    fx_val *vals;
    fx_step *steps;
    int *inputs; /* value index of each placeholder, in order */
    float *arena;
    int64_t arena_bytes, input_bytes;
    float *scratch;
    fx_pool *pool;
    bool layout;                  /* fx_plan_layout_peak: values and offsets only, no kernels */
    bool ctrl;                    /* fx_plan_new_codegen: If / Loop / Scan are steps of their own (never run) */
    const nnfx_node *const *kept; /* fx_plan_new_codegen_kept: computed in steps even from constants */
    int nkept;
    bool dnnl; /* convs and poolings may run on oneDNN (fx_dnnl_enabled, not layout or ctrl) */
    int threads;
    double *prof_s;    /* fx_plan_set_profile: seconds spent in each step, or NULL */
    int64_t prof_runs; /* runs since profiling started */
};

/* The value index of node n (plan_alloc sets it in n->pass_data). */
static inline int idx_of(const nnfx_node *n) { return (int)(intptr_t)n->pass_data; }

/* The value whose storage value v views (v itself when not an alias). */
static inline int root_of(const fx_plan *p, int v) {
    while (p->vals[v].kind == V_ALIAS)
        v = p->vals[v].src;
    return v;
}

/* Phase 3b (plan_layout.c): which arena values are held channels-last or
 * blocked, and the layouts each oneDNN step reads and writes. */
nnfx_status plan_layouts(fx_plan *p, nnfx_error *err);

#endif
