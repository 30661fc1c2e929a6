/* plan_layout.c — phase 3b of the compiled plan (fast_plan.c): the
 * channels-last regions between oneDNN steps, and within them the values
 * held in channel blocks (nChw8c / nChw16c, fx_dnnl_block). */
#include <stdbool.h>
#include <stdint.h>

#include "exec/fast_int.h"
#include "exec/fast_plan_int.h"
#include "exec/kernels/kernels_int.h"
#include "ir/ir_int.h"

/* ---- channels-last regions (oneDNN steps) ------------------------------ */

/* Whether value v can be held channels-last: an arena value of rank 4,
 * float32, with more than one spatial position (with one, both layouts are
 * the same bytes). */
static bool nhwc_shaped(const fx_plan *p, int v) {
    const fx_val *x = &p->vals[v];
    return x->kind == V_ARENA && x->t && x->t->rank == 4 && x->t->dtype == NNFX_F32 && x->t->shape[2] >= 1 &&
           x->t->shape[3] >= 1 && (x->t->shape[2] > 1 || x->t->shape[3] > 1);
}

static bool same_tensor_shape(const nnfx_tensor *a, const nnfx_tensor *b) {
    if (!a || !b || a->rank != b->rank || a->dtype != b->dtype) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* How a kernel step reads channels-last values (plan_layouts):
 *  NHWC_SAME     each output element from the same element of its inputs
 *                (all the output's shape): the same bytes in either layout;
 *  NHWC_CHANNEL  Add/Sub/Mul/Div of a full tensor (argument `full`) and a
 *                per-channel one [N or 1, C, 1, 1] (squeeze-excitation):
 *                fx_nhwc_channel_op when channels-last;
 *  NHWC_CONCAT   Concat over channels: fx_nhwc_concat when channels-last;
 *  NHWC_MAXPOOL  the direct MaxPool: fx_maxpool_run_nhwc when channels-last;
 *  NHWC_SCALARS  each output element from the same element of argument
 *                `full` and scalar constants (the others; the GELU step, an
 *                Add/Sub/Mul/Div by a scalar): the same bytes in either
 *                layout. */
typedef enum nhwc_use { NHWC_NONE, NHWC_SAME, NHWC_CHANNEL, NHWC_CONCAT, NHWC_MAXPOOL, NHWC_SCALARS } nhwc_use;

/* Whether value v (-1: absent) is a scalar constant. */
static bool scalar_const(const fx_plan *p, int v) {
    return v < 0 || (p->vals[v].kind == V_CONST && nnfx_tensor_numel(p->vals[v].t) == 1);
}

static bool is_channel_vector(const nnfx_tensor *t, const nnfx_tensor *full) {
    return t && t->rank == 4 && t->dtype == NNFX_F32 && (t->shape[0] == 1 || t->shape[0] == full->shape[0]) &&
           t->shape[1] == full->shape[1] && t->shape[2] == 1 && t->shape[3] == 1;
}

/* The nhwc_use of step s, and for NHWC_CHANNEL the full argument. */
static nhwc_use nhwc_use_of(const fx_plan *p, const fx_step *s, int *full) {
    if (s->kind == S_MAXPOOL && s->nin == 1 && p->vals[s->in[0]].kind == V_ARENA && nhwc_shaped(p, s->out))
        return NHWC_MAXPOOL;
    if (s->kind != S_KERNEL || s->outs || !nhwc_shaped(p, s->out) || s->kern == kern_layernorm_chain_fast)
        return NHWC_NONE; /* rows of the last axis: the graph's layout */
    const nnfx_tensor *y = p->vals[s->out].t;
    bool eltwise = s->kern == kern_gelu_fast || s->n->op == NNFX_OP_ADD || s->n->op == NNFX_OP_SUB ||
                   s->n->op == NNFX_OP_MUL || s->n->op == NNFX_OP_DIV || s->n->op == NNFX_OP_ERF;
    for (int f = 0; eltwise && f < s->nin && f < 2; f++) {
        bool others = true;
        for (int a = 0; a < s->nin; a++)
            others = others && (a == f || scalar_const(p, s->in[a]));
        if (others && s->in[f] >= 0 && p->vals[s->in[f]].kind == V_ARENA && same_tensor_shape(p->vals[s->in[f]].t, y)) {
            *full = f;
            return NHWC_SCALARS;
        }
    }
    for (int a = 0; a < s->nin; a++)
        if (s->in[a] < 0 || p->vals[s->in[a]].kind == V_ALIAS || p->vals[s->in[a]].kind == V_TUPLE) return NHWC_NONE;
    switch (s->n->op) {
    case NNFX_OP_CONCAT: {
        int64_t ax = ir_attr_int(s->n, "axis");
        if (ax != 1 && ax != -3) return NHWC_NONE;
        for (int a = 0; a < s->nin; a++) {
            const nnfx_tensor *x = p->vals[s->in[a]].t;
            if (p->vals[s->in[a]].kind != V_ARENA || x->rank != 4 || x->dtype != NNFX_F32 ||
                x->shape[0] != y->shape[0] || x->shape[2] != y->shape[2] || x->shape[3] != y->shape[3])
                return NHWC_NONE;
        }
        return NHWC_CONCAT;
    }
    case NNFX_OP_ADD:
    case NNFX_OP_SUB:
    case NNFX_OP_MUL:
    case NNFX_OP_DIV:
        if (s->nin == 2) {
            for (int f = 0; f < 2; f++)
                if (p->vals[s->in[f]].kind == V_ARENA && same_tensor_shape(p->vals[s->in[f]].t, y) &&
                    (p->vals[s->in[1 - f]].kind == V_ARENA || p->vals[s->in[1 - f]].kind == V_CONST) &&
                    is_channel_vector(p->vals[s->in[1 - f]].t, y)) {
                    *full = f;
                    return NHWC_CHANNEL;
                }
        }
        break;
    case NNFX_OP_RELU:
    case NNFX_OP_SIGMOID:
    case NNFX_OP_TANH:
    case NNFX_OP_LEAKY_RELU:
    case NNFX_OP_HARD_SWISH:
    case NNFX_OP_HARD_SIGMOID: break;
    default: return NHWC_NONE;
    }
    for (int a = 0; a < s->nin; a++)
        if (p->vals[s->in[a]].kind != V_ARENA || !same_tensor_shape(p->vals[s->in[a]].t, y)) return NHWC_NONE;
    return NHWC_SAME;
}

/* Whether argument a of a step of use u (full: NHWC_CHANNEL's full
 * argument) shares the output's layout. */
static bool coupled(nhwc_use u, int a, int full) { return (u != NHWC_CHANNEL && u != NHWC_SCALARS) || a == full; }

/* Sets v's layout to NCHW; true when that changed it. */
static bool to_nchw(fx_plan *p, int v) {
    if (v < 0 || !p->vals[v].nhwc) return false;
    p->vals[v].nhwc = false;
    return true;
}

/* The plan's layout of value v (a oneDNN step's x, res or y). */
static fx_layout layout_of(const fx_plan *p, int v) {
    const fx_val *x = &p->vals[root_of(p, v)];
    if (x->blk) return fx_dnnl_block() == 16 ? FX_LAYOUT_NCHW16C : FX_LAYOUT_NCHW8C;
    return x->nhwc ? FX_LAYOUT_NHWC : FX_LAYOUT_NCHW;
}

/* Whether step s is a oneDNN conv that may read and write blocked values. */
static bool chaining_conv(const fx_step *s) { return s->dnnl && !s->dnnl_pool && fx_dnnl_chains(s->dnnl); }

/* Whether conv step s has a 1x1 window: too little work per element for
 * its blocked gain to pay for a reorder of a channels-last neighbour. */
static bool pointwise_conv(const fx_plan *p, const fx_step *s) {
    const nnfx_node *c = s->first;
    if (!c || c->nargs < 2 || c->args[1].kind != NNFX_ARG_NODE) return false;
    const nnfx_tensor *w = p->vals[idx_of(c->args[1].u.node)].t;
    return w && w->rank == 4 && w->shape[2] * w->shape[3] == 1;
}

/* Whether value v is held channels-last (not blocked) with more than one
 * spatial position: a blocked step reading or writing it reorders. */
static bool nhwc_apart(const fx_plan *p, int v) {
    const fx_val *x = &p->vals[root_of(p, v)];
    return x->nhwc && !x->blk && nhwc_shaped(p, root_of(p, v));
}

/* How step s may pass blocked values: 1, a chaining conv (its x, its
 * residual and y);
 * 2, a channels-last MaxPool or Concat over channels (its inputs and
 * output together: a MaxPool runs on the [N * C/B, H, W, B] view, a
 * Concat of batch 1 appends whole channel blocks); 0, not at all. */
static int blocked_use(const fx_plan *p, const fx_step *s) {
    if (chaining_conv(s)) return 1;
    int full = 0;
    nhwc_use u = s->out >= 0 && p->vals[s->out].nhwc ? nhwc_use_of(p, s, &full) : NHWC_NONE;
    return u == NHWC_MAXPOOL || u == NHWC_CONCAT ? 2 : 0;
}

/* How many of chaining conv s's inputs may be blocked: x, and with
 * nChw16c (AVX-512) its residual too, so a ResNet's blocks chain blocked
 * end to end (fcn_resnet50: 0.9x the time of channels-last); with nChw8c
 * (AVX2) the residual stays channels-last, as do resnet50's values then
 * (blocked through its residuals took 1.05x the time there). */
static int blocked_reads(const fx_step *s) { return s->nin > 1 && fx_dnnl_block() == 16 ? 2 : 1; }

/* Clears blk of v's storage; true if it was set. */
static bool unblock(fx_plan *p, int v) {
    fx_val *x = &p->vals[root_of(p, v)];
    bool was = x->blk;
    x->blk = false;
    return was;
}

/* One pass of plan_blocked's demotions; true if any. */
static bool demote_blocked(fx_plan *p) {
    bool changed = false;
    for (int s = 0; s < p->nsteps; s++) {
        const fx_step *sp = &p->steps[s];
        int use = blocked_use(p, sp);
        if (use == 2) { /* all or none */
            bool all = p->vals[sp->out].blk;
            for (int a = 0; a < sp->nin; a++)
                all = all && sp->in[a] >= 0 && p->vals[root_of(p, sp->in[a])].blk;
            if (all) continue;
            changed |= unblock(p, sp->out);
            for (int a = 0; a < sp->nin; a++)
                if (sp->in[a] >= 0) changed |= unblock(p, sp->in[a]);
        } else if (use == 1 && (pointwise_conv(p, sp) || fx_dnnl_block() == 16)) {
            for (int a = 0; a < blocked_reads(sp); a++) { /* x, and the residual where blocked */
                if (sp->in[a] < 0) continue;
                if (p->vals[sp->out].blk && nhwc_apart(p, sp->in[a])) changed |= unblock(p, sp->out);
                if (p->vals[root_of(p, sp->in[a])].blk && nhwc_apart(p, sp->out)) changed |= unblock(p, sp->in[a]);
            }
        }
    }
    return changed;
}

/* A MaxPool step of blocked values runs the channels-last pool over the
 * [N * C/B, H, W, B] view (B: fx_dnnl_block): its pool is built again for
 * that shape. */
static bool blocked_maxpool(fx_plan *p, fx_step *sp, nnfx_error *err) {
    const nnfx_tensor *x = p->vals[sp->in[0]].t, *y = p->vals[sp->out].t;
    int64_t b = fx_dnnl_block();
    int64_t xs[4] = {x->shape[0] * x->shape[1] / b, b, x->shape[2], x->shape[3]};
    int64_t ys[4] = {y->shape[0] * y->shape[1] / b, b, y->shape[2], y->shape[3]};
    fx_maxpool *m = fx_maxpool_new(sp->n, xs, ys, err);
    if (!m) return false;
    fx_maxpool_free(sp->mpool);
    sp->mpool = m;
    return true;
}

/* Part of phase 3b, where oneDNN's convs are faster blocked
 * (fx_dnnl_block: nChw8c for its AVX2 kernels, nChw16c for its AVX-512
 * ones): a channels-last value of a multiple of the block's channels
 * (with nChw16c, of two blocks or more: a conv writing one block of 16
 * took 1.2x the time of brgconv on channels-last, U-Net's 16-channel
 * level) written by a chaining conv, MaxPool or Concat step (blocked_use) and
 * read only by such steps is held blocked instead, so
 * a chain of convs reorders only at its ends. Then demotions only: a
 * MaxPool's or Concat's values all stay channels-last when one does; a
 * 1x1 conv whose other value is channels-last (a reorder each run) keeps
 * its blocked value channels-last too (MobileNet's project-expand pairs
 * between depthwise convs); a spatial conv gains more than the reorder
 * costs with nChw8c, not with nChw16c (brgconv on channels-last is close
 * behind there: inception_v3's branches took 1.05x the time), so there
 * every conv keeps both its values blocked or neither. */
static void plan_blocked(fx_plan *p) {
    int64_t b = fx_dnnl_block();
    if (!b) return;
    for (int s = 0; s < p->nsteps; s++) {
        const fx_step *sp = &p->steps[s];
        int use = blocked_use(p, sp);
        const nnfx_tensor *y = sp->out >= 0 ? p->vals[sp->out].t : NULL;
        if (use && p->vals[sp->out].nhwc && y->shape[1] % b == 0 && (b == 8 || y->shape[1] > b) &&
            (use == 1 || y->shape[0] == 1))
            p->vals[sp->out].blk = true;
    }
    for (int s = 0; s < p->nsteps; s++) {
        const fx_step *sp = &p->steps[s];
        int use = blocked_use(p, sp);
        for (int a = 0; a < sp->nin; a++)
            if (sp->in[a] >= 0 && !(use == 1 && a < blocked_reads(sp)) && use != 2) unblock(p, sp->in[a]);
    }
    while (demote_blocked(p)) {
    }
}

/* Phase 3b: which arena values are held channels-last. A value is, when it
 * is written by a oneDNN step or a layout-free kernel step, and every step
 * reading it is a oneDNN step (which reorders what it needs) or a
 * layout-free step whose other values are channels-last too; never when a
 * view (reshape...), the output or any other kernel reads it. Demotions
 * only, so the loop ends. A oneDNN pooling whose input stays NCHW runs as
 * its kernel step instead. Then each oneDNN step learns the layouts of its
 * values. */
nnfx_status plan_layouts(fx_plan *p, nnfx_error *err) {
    if (!p->dnnl) return NNFX_OK;
    bool any = false;
    for (int s = 0; s < p->nsteps; s++) {
        const fx_step *sp = &p->steps[s];
        int full = 0;
        if ((sp->dnnl || nhwc_use_of(p, sp, &full)) && sp->out >= 0 && nhwc_shaped(p, sp->out))
            any = p->vals[sp->out].nhwc = true;
    }
    for (bool changed = any; changed;) {
        changed = false;
        for (int s = 0; s < p->nsteps; s++) {
            const fx_step *sp = &p->steps[s];
            if (sp->dnnl && !sp->dnnl_pool) continue; /* a conv reads either layout */
            if (sp->dnnl_pool) {
                if (!p->vals[root_of(p, sp->in[0])].nhwc) changed |= to_nchw(p, sp->out);
                continue;
            }
            int full = 0;
            nhwc_use u = nhwc_use_of(p, sp, &full);
            if (u) {
                bool all = p->vals[sp->out].nhwc;
                for (int a = 0; a < sp->nin; a++)
                    all = all && (!coupled(u, a, full) || p->vals[sp->in[a]].nhwc);
                if (all) continue;
                changed |= to_nchw(p, sp->out);
                for (int a = 0; a < sp->nin; a++)
                    if (coupled(u, a, full)) changed |= to_nchw(p, sp->in[a]);
                continue;
            }
            for (int a = 0; a < sp->nin; a++)
                if (sp->in[a] >= 0) changed |= to_nchw(p, root_of(p, sp->in[a]));
            if (sp->kind == S_OUTPUT)
                for (int a = 0; a < sp->n->nargs; a++)
                    if (sp->n->args[a].kind == NNFX_ARG_NODE)
                        changed |= to_nchw(p, root_of(p, idx_of(sp->n->args[a].u.node)));
        }
        for (int v = 0; v < p->nvals; v++)
            if (p->vals[v].kind == V_ALIAS) changed |= to_nchw(p, root_of(p, v));
    }
    plan_blocked(p);
    for (int s = 0; s < p->nsteps; s++) {
        fx_step *sp = &p->steps[s];
        int full = 0;
        nhwc_use u = sp->out >= 0 && p->vals[sp->out].nhwc ? nhwc_use_of(p, sp, &full) : NHWC_NONE;
        if (u == NHWC_CHANNEL || u == NHWC_CONCAT || u == NHWC_MAXPOOL) {
            sp->kind = u == NHWC_CHANNEL ? S_NHWC_CHANNEL : u == NHWC_CONCAT ? S_NHWC_CONCAT : S_NHWC_MAXPOOL;
            sp->nhwc_full = full;
            if (sp->kind == S_NHWC_MAXPOOL && p->vals[sp->out].blk && !blocked_maxpool(p, sp, err)) return err->status;
        }
        if (!sp->dnnl) continue;
        bool x_nhwc = p->vals[root_of(p, sp->in[0])].nhwc;
        if (sp->dnnl_pool && !x_nhwc && !sp->pad_fused) { /* the kernel step runs it */
            fx_dnnl_free(sp->dnnl);
            sp->dnnl = NULL;
            sp->dnnl_pool = false;
            continue;
        }
        if (sp->dnnl_pool) {
            sp->kind = S_DNNL;
            fx_maxpool_free(sp->mpool);
            sp->mpool = NULL;
        }
        fx_layout rl = !sp->dnnl_pool && sp->in[1] >= 0 ? layout_of(p, sp->in[1]) : FX_LAYOUT_NCHW;
        nnfx_status st = fx_dnnl_set_layouts(sp->dnnl, layout_of(p, sp->in[0]), rl, layout_of(p, sp->out), err);
        if (st) return st;
    }
    return NNFX_OK;
}
