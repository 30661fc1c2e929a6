/* fast_plan.c — the compiled executor. At recompile, a graph with static
 * shapes becomes a list of steps over preallocated tensors:
 *  - parameters, literals and nodes computable from them alone are values
 *    known at build time (computed once);
 *  - no-op and reshape-family nodes alias their input's storage;
 *  - a multi-output node (Split, TopK, MaxPool with indices, LSTM...) is one
 *    step calling its kernel with every output, each output a value of its
 *    own in the arena (own lifetime); each getitem aliases one of them;
 *  - every other value gets an offset in one activation arena, assigned
 *    from value lifetimes so buffers whose lifetimes do not overlap share
 *    memory (greedy, largest first: arena_plan.c);
 *  - Conv (2-d, float32, constant weights) runs through fx_conv with the
 *    following residual Add and activation (Relu, Clip, LeakyRelu,
 *    Sigmoid, HardSwish, x * Sigmoid(x)) fused into its epilogue when the
 *    intermediate values have no other reader.
 * The graph itself is not changed; fx_plan_text lists what runs. */
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "core/sbuf.h"
#include "exec/arena_plan.h"
#include "exec/exec_int.h"
#include "exec/fast_int.h"
#include "exec/fast_plan_int.h"
#include "exec/fuse_layernorm.h"
#include "exec/kernels/kernels_int.h"
#include "exec/outer_ranges.h"
#include "exec/qplan.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* A Gemm of at least this many multiply-adds splits its output columns into
 * up to FX_GEMM_TASKS ranges of at least FX_GEMM_MIN_COLS columns, run as
 * pool tasks (a batch-1 classifier is one long matrix-vector product). The
 * split depends on the shape alone, never on the thread count. */
#define FX_GEMM_MIN_MACS (1 << 20)
#define FX_GEMM_TASKS    8
#define FX_GEMM_MIN_COLS 64

/* ---- helpers --------------------------------------------------------- */

/* Ops whose generic kernel writes every output element (ops.def flags). */
static bool writes_all(nnfx_op op) {
    return ir_op_info(op)->flags & (NNFX_F_ELEMENTWISE | NNFX_F_BROADCAST | NNFX_F_ACTIVATION | NNFX_F_WRITES_ALL);
}

/* Ops returning their first input's data unchanged (possibly reshaped). */
static bool is_view(nnfx_op op) { return ir_op_info(op)->flags & NNFX_F_VIEW; }

/* The only user of n, or NULL. */
static const nnfx_node *sole_user(const nnfx_node *n) { return n->nusers == 1 ? n->users[0] : NULL; }

/* Number of arguments of u that are node n. */
static int refs(const nnfx_node *u, const nnfx_node *n) {
    int k = 0;
    for (int a = 0; a < u->nargs; a++)
        k += u->args[a].kind == NNFX_ARG_NODE && u->args[a].u.node == n;
    return k;
}

static bool same_static_shape(const nnfx_meta *a, const nnfx_meta *b) {
    if (a->rank != b->rank || a->dtype != b->dtype) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d].value != b->dims[d].value || a->dims[d].value < 0) return false;
    return true;
}

/* Scalar float value of a constant value, or false. */
static bool const_scalar(const fx_plan *p, const nnfx_node *n, int argi, float *v) {
    if (argi >= n->nargs) return false;
    const nnfx_arg *a = &n->args[argi];
    if (a->kind == NNFX_ARG_FLOAT) {
        *v = (float)a->u.f;
        return true;
    }
    if (a->kind == NNFX_ARG_INT) {
        *v = (float)a->u.i;
        return true;
    }
    if (a->kind != NNFX_ARG_NODE) return false;
    const fx_val *x = &p->vals[idx_of(a->u.node)];
    if (x->kind != V_CONST || nnfx_tensor_numel(x->t) != 1 || x->t->dtype != NNFX_F32) return false;
    *v = p->layout ? 0.0f : *(const float *)x->t->data; /* layout: that it is one, not its value */
    return true;
}

/* ---- build ------------------------------------------------------------- */

void fx_plan_free(fx_plan *p) {
    if (!p) return;
    for (int i = 0; i < p->nvals; i++)
        nnfx_tensor_release(p->vals[i].t);
    for (int s = 0; s < p->nsteps; s++) {
        free(p->steps[s].in);
        free(p->steps[s].inbuf);
        free(p->steps[s].outs);
        free(p->steps[s].outbuf);
        fx_conv_free(p->steps[s].conv);
        fx_maxpool_free(p->steps[s].mpool);
        fx_qop_free(p->steps[s].qop);
        fx_dnnl_free(p->steps[s].dnnl);
    }
    free(p->vals);
    free(p->steps);
    free(p->inputs);
    free(p->arena);
    free(p->scratch);
    free(p->prof_s);
    fx_pool_free(p->pool);
    free(p);
}

/* Value index for argument a of node n: the node's value, or a new constant
 * value for a literal; -1 for an absent input (None). -2 on OOM. */
static int arg_value(fx_plan *p, const nnfx_arg *a, nnfx_error *err) {
    if (a->kind == NNFX_ARG_NODE) return idx_of(a->u.node);
    if (a->kind == NNFX_ARG_NONE) return -1;
    nnfx_tensor *t = ir_literal_tensor(a, err);
    if (!t) return -2;
    fx_val *v = &p->vals[p->nvals++];
    memset(v, 0, sizeof *v);
    v->kind = V_CONST;
    v->t = t;
    v->def = v->last = -1;
    return p->nvals - 1;
}

static nnfx_status unsupported(nnfx_error *err, const nnfx_node *n, const char *why) {
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "compiled executor: node %s: %s", n->name, why);
}

/* Fusion decided for a conv node: the last node of its chain, residual
 * node (or NULL), activation. */
typedef struct fusion {
    const nnfx_node *last, *res, *sig; /* sig: the Sigmoid of x * sigmoid(x) */
    fx_act act;
    float p0, p1;
} fusion;

/* Follows conv node c through an optional residual Add and an optional
 * activation, each only when the value before it has no other reader. */
static fusion plan_fusion(const fx_plan *p, const nnfx_node *c, const bool *claimed) {
    fusion f = {c, NULL, NULL, FX_ACT_NONE, 0, 0};
    const nnfx_node *cur = c;
    const nnfx_node *u = sole_user(cur);
    if (u && !claimed[idx_of(u)] && u->opcode == NNFX_CALL_FUNCTION && u->op == NNFX_OP_ADD && u->nargs == 2 &&
        refs(u, cur) == 1 && u->args[0].kind == NNFX_ARG_NODE && u->args[1].kind == NNFX_ARG_NODE) {
        const nnfx_node *other = u->args[0].u.node == cur ? u->args[1].u.node : u->args[0].u.node;
        vkind ok = p->vals[idx_of(other)].kind;
        if ((ok == V_ARENA || ok == V_INPUT || ok == V_ALIAS) && same_static_shape(&other->meta[0], &cur->meta[0]) &&
            same_static_shape(&u->meta[0], &cur->meta[0])) {
            f.res = other;
            f.last = cur = u;
        }
    }
    /* x * sigmoid(x), x * hard_sigmoid(x) (hard-swish as exported before opset 14) */
    if (cur->nusers == 2) {
        const nnfx_node *s = NULL, *m = NULL;
        for (int i = 0; i < 2; i++) {
            const nnfx_node *x = cur->users[i];
            if (x->opcode != NNFX_CALL_FUNCTION) continue;
            if (x->op == NNFX_OP_SIGMOID || x->op == NNFX_OP_HARD_SIGMOID) s = x;
            if (x->op == NNFX_OP_MUL) m = x;
        }
        if (s && m && sole_user(s) == m && refs(m, cur) == 1 && refs(m, s) == 1 && refs(s, cur) == 1 &&
            same_static_shape(&m->meta[0], &cur->meta[0])) {
            f.act = FX_ACT_SILU;
            if (s->op == NNFX_OP_HARD_SIGMOID) {
                f.act = FX_ACT_XHARDSIGMOID;
                f.p0 = (float)ir_attr_float(s, "alpha");
                f.p1 = (float)ir_attr_float(s, "beta");
            }
            f.last = m;
            f.sig = s;
            return f;
        }
        return f;
    }
    u = sole_user(cur);
    if (!u || u->opcode != NNFX_CALL_FUNCTION || refs(u, cur) != 1 || u->args[0].kind != NNFX_ARG_NODE ||
        u->args[0].u.node != cur)
        return f;
    switch (u->op) {
    case NNFX_OP_RELU: f.act = FX_ACT_RELU; break;
    case NNFX_OP_SIGMOID: f.act = FX_ACT_SIGMOID; break;
    case NNFX_OP_HARD_SWISH: f.act = FX_ACT_HARDSWISH; break;
    case NNFX_OP_TANH: f.act = FX_ACT_TANH; break;
    case NNFX_OP_HARD_SIGMOID:
        f.act = FX_ACT_HARDSIGMOID;
        f.p0 = (float)ir_attr_float(u, "alpha");
        f.p1 = (float)ir_attr_float(u, "beta");
        break;
    case NNFX_OP_LEAKY_RELU:
        f.act = FX_ACT_LEAKY;
        f.p0 = (float)ir_attr_float(u, "alpha");
        break;
    case NNFX_OP_CLIP: {
        float lo = -INFINITY, hi = INFINITY;
        bool has_lo = u->nargs > 1 && u->args[1].kind != NNFX_ARG_NONE;
        bool has_hi = u->nargs > 2 && u->args[2].kind != NNFX_ARG_NONE;
        if ((has_lo && !const_scalar(p, u, 1, &lo)) || (has_hi && !const_scalar(p, u, 2, &hi))) return f;
        f.act = FX_ACT_CLIP;
        f.p0 = lo;
        f.p1 = hi;
        break;
    }
    default: return f;
    }
    f.last = u;
    return f;
}

/* Arena offsets from value sizes and lifetimes (arena_plan.c): each
 * arena value's fx_val.off, and p->arena_bytes. */
static nnfx_status assign_offsets(fx_plan *p, nnfx_error *err) {
    int k = 0;
    for (int i = 0; i < p->nvals; i++)
        k += p->vals[i].kind == V_ARENA;
    fx_block *blk = malloc(sizeof *blk * (size_t)(k ? k : 1));
    int *which = malloc(sizeof *which * (size_t)(k ? k : 1));
    if (!blk || !which) {
        free(blk), free(which);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory planning activations");
    }
    k = 0;
    for (int i = 0; i < p->nvals; i++)
        if (p->vals[i].kind == V_ARENA) {
            const fx_val *v = &p->vals[i];
            if (v->bytes < 0 || v->bytes > ((int64_t)1 << 48)) {
                free(blk), free(which);
                return nnfx_error_set(err, NNFX_ERR_NOMEM, "node %s: activation of %lld bytes is too large",
                                      v->node ? nnfx_node_name(v->node) : "?", (long long)v->bytes);
            }
            blk[k] = (fx_block){p->vals[i].bytes, p->vals[i].def, p->vals[i].last, 0};
            which[k++] = i;
        }
    int64_t top = fx_arena_assign(blk, k, err);
    for (int j = 0; j < k && top >= 0; j++)
        p->vals[which[j]].off = blk[j].off;
    free(blk);
    free(which);
    if (top < 0) return NNFX_ERR_NOMEM;
    p->arena_bytes = top;
    return NNFX_OK;
}

/* ---- int8 islands (qplan.c) ------------------------------------------ */

typedef struct qctx {
    const fx_plan *p;
    const bool *absorbed;
} qctx;

static const nnfx_tensor *q_const_of(void *ctx, const nnfx_node *n) {
    const fx_val *v = &((qctx *)ctx)->p->vals[idx_of(n)];
    return v->kind == V_CONST ? v->t : NULL;
}

static bool q_claimed(void *ctx, const nnfx_node *n) { return ((qctx *)ctx)->absorbed[idx_of(n)]; }

/* Matches every QuantizeLinear ending an int8 island: qops[i] / qm[i] for
 * the Q node i, its nodes marked absorbed; then marks dead[] the
 * DequantizeLinear nodes whose every reader was fused. */
static nnfx_status plan_qops(fx_plan *p, nnfx_graph *g, bool *absorbed, fx_qop **qops, fx_qmatch *qm, bool *dead,
                             nnfx_error *err) {
    qctx c = {p, absorbed};
    fx_qenv env = {q_const_of, q_claimed, &c, p->threads};
    /* last to first: a chain through an intermediate Q -> DQ takes that Q
     * before it could start an island of its own */
    int i = g->num_nodes - 1;
    for (nnfx_node *n = g->tail; n; n = n->prev, i--) {
        if (p->vals[i].kind != V_ARENA) continue;
        nnfx_error qerr = {0};
        qops[i] = fx_qop_match(n, &env, &qm[i], &qerr);
        if (!qops[i] && qerr.status == NNFX_ERR_NOMEM) return nnfx_error_set(err, NNFX_ERR_NOMEM, "%s", qerr.msg);
        for (int k = 0; qops[i] && k < qm[i].nnodes; k++)
            absorbed[idx_of(qm[i].nodes[k])] = true;
    }
    for (int k = 0; k < g->num_nodes; k++)
        for (int d = 0; qops[k] && d < 2; d++) {
            const nnfx_node *dq = qm[k].dq[d];
            bool all = dq != NULL;
            for (int u = 0; all && u < dq->nusers; u++)
                all = dq->users[u]->opcode == NNFX_CALL_FUNCTION && absorbed[idx_of(dq->users[u])];
            if (all) dead[idx_of(dq)] = true;
        }
    return NNFX_OK;
}

/* Layout mode computes a constant only when its inputs are shape-like
 * (ir_shape_value_like) and it has at most this many elements; other
 * constants are headers with their shape, their data never read. */
#define LAYOUT_CONST_LIMIT 4096

/* A tensor header of static meta m over no data yet (the run or the arena
 * points it at its storage). NULL on OOM. */
static nnfx_tensor *header(const nnfx_meta *m, nnfx_error *err) {
    static float dummy;
    int64_t dims[NNFX_MAX_RANK];
    for (int d = 0; d < m->rank; d++)
        dims[d] = m->dims[d].value;
    return nnfx_tensor_borrow(m->dtype, m->rank, dims, &dummy, err);
}

/* Whether argument a of n is absent, a literal or a constant value. */
static bool arg_const(const fx_plan *p, const nnfx_node *n, int a) {
    return a >= n->nargs || n->args[a].kind != NNFX_ARG_NODE || p->vals[idx_of(n->args[a].u.node)].kind == V_CONST;
}

/* Whether n is a Dropout whose ratio or training_mode is read at run time:
 * a step of its own (not a view), whose kernel refuses training mode with
 * a ratio other than 0 as inference does when they are constants. */
static bool dropout_checks(const fx_plan *p, const nnfx_node *n) {
    return n->opcode == NNFX_CALL_FUNCTION && n->op == NNFX_OP_DROPOUT && !(arg_const(p, n, 1) && arg_const(p, n, 2));
}

/* Whether every node argument of n is a constant value. */
static bool args_const(const fx_plan *p, const nnfx_node *n) {
    for (int a = 0; a < n->nargs; a++)
        if (!arg_const(p, n, a)) return false;
    return true;
}

/* Layout mode: whether folding n would read a constant that is not
 * shape-like, or make an output of more than LAYOUT_CONST_LIMIT elements
 * (then its outputs are headers with their shape, their data never read). */
static bool layout_skips_fold(const fx_plan *p, const nnfx_node *n) {
    if (!p->layout) return false;
    for (int a = 0; a < n->nargs; a++) {
        const nnfx_tensor *t = n->args[a].kind == NNFX_ARG_NODE ? p->vals[idx_of(n->args[a].u.node)].t : NULL;
        if (t && !ir_shape_value_like(t->dtype, nnfx_tensor_numel(t))) return true;
    }
    for (int k = 0; k < n->nout; k++)
        if ((uint64_t)nnfx_meta_numel(&n->meta[k]) > LAYOUT_CONST_LIMIT) return true; /* -1: too large */
    return false;
}

/* A constant value of the plan (ir_value_fn): NULL for any other. */
static const nnfx_tensor *plan_const_of(void *ctx, const nnfx_node *n) {
    const fx_val *v = &((const fx_plan *)ctx)->vals[idx_of(n)];
    return v->kind == V_CONST ? v->t : NULL;
}

/* Runs n's kernel on its constant arguments (the interpreter's own op_run;
 * inputs gathered by ir_const_in_gather, as shape inference and
 * fold-constants do): out holds new references. */
static nnfx_status fold(const fx_plan *p, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    ir_const_in ci;
    memset(out, 0, sizeof *out);
    nnfx_status st = ir_const_in_gather(&ci, n, plan_const_of, (void *)p, err);
    if (!st && !ci.known) st = unsupported(err, n, "folding a value whose inputs are not constants");
    if (!st) st = nnfx_op_run(n, ci.n, ci.t, out, err);
    ir_const_in_release(&ci);
    return st;
}

/* A multi-output node (Split, TopK, LSTM...): value v becomes a tuple whose
 * outputs are new values, one per output, each folded (constant
 * arguments), or an arena value the node's step writes. Its readers must be
 * getitem nodes (plan_getitem). */
static nnfx_status plan_tuple(fx_plan *p, const nnfx_node *n, fx_val *v, nnfx_error *err) {
    if (n->opcode != NNFX_CALL_FUNCTION) return unsupported(err, n, "multi-output node that is not an op");
    const nnfx_op_info *info = ir_op_info(n->op);
    if (!info->kernel || !info->infer) return unsupported(err, n, "no kernel");
    for (int u = 0; u < n->nusers; u++)
        if (n->users[u]->opcode != NNFX_CALL_FUNCTION || n->users[u]->op != NNFX_OP_GETITEM)
            return unsupported(err, n, "a multi-output value read other than through getitem");
    for (int k = 0; k < n->nout; k++)
        if (!nnfx_meta_is_static(&n->meta[k]) || n->meta[k].dtype == NNFX_DTYPE_UNDEFINED)
            return unsupported(err, n, "shape not static");
    v->kind = V_TUPLE;
    v->src = p->nvals;
    p->nvals += n->nout;
    bool folds = args_const(p, n) && !(info->flags & NNFX_F_IMPURE);
    nnfx_value_set out = {0};
    if (folds && !layout_skips_fold(p, n)) {
        nnfx_status st = fold(p, n, &out, err);
        if (st) return st;
    }
    for (int k = 0; k < n->nout; k++) {
        fx_val *o = &p->vals[v->src + k];
        o->def = o->last = -1;
        o->node = n;
        o->kind = folds ? V_CONST : V_ARENA;
        o->t = k < out.num ? out.t[k] : header(&n->meta[k], err);
        o->bytes = nnfx_meta_nbytes(&n->meta[k]);
        if (!o->t) {
            for (int j = k + 1; j < out.num; j++)
                nnfx_tensor_release(out.t[j]);
            return NNFX_ERR_NOMEM;
        }
    }
    return NNFX_OK;
}

/* getitem(tuple, k): the tuple's k-th output, as the constant itself or a
 * view of its storage. */
static nnfx_status plan_getitem(fx_plan *p, const nnfx_node *n, fx_val *v, nnfx_error *err) {
    const fx_val *tv = n->nargs == 2 && n->args[0].kind == NNFX_ARG_NODE && n->args[1].kind == NNFX_ARG_INT
                           ? &p->vals[idx_of(n->args[0].u.node)]
                           : NULL;
    if (!tv || tv->kind != V_TUPLE || n->args[1].u.i < 0 || n->args[1].u.i >= n->args[0].u.node->nout)
        return unsupported(err, n, "getitem of a value that is not a multi-output node's");
    int o = tv->src + (int)n->args[1].u.i;
    if (p->vals[o].kind == V_CONST) {
        v->kind = V_CONST;
        v->t = nnfx_tensor_retain(p->vals[o].t);
        return NNFX_OK;
    }
    v->kind = V_ALIAS;
    v->src = o;
    v->t = header(&n->meta[0], err);
    return v->t ? NNFX_OK : NNFX_ERR_NOMEM;
}

/* Whether node i becomes a step of its own: an arena value, or a tuple
 * with outputs in the arena (a folded one has none). */
static bool runs(const fx_plan *p, int i) {
    const fx_val *v = &p->vals[i];
    return v->kind == V_ARENA || (v->kind == V_TUPLE && p->vals[v->src].kind == V_ARENA);
}

/* ---- build phases ------------------------------------------------------ */

/* A new empty plan with room for every node's value, every literal and
 * tuple output, and a step per node; each node's pass_data set to its index
 * in graph order. NULL on OOM. */
static fx_plan *plan_alloc(nnfx_graph *g, bool layout, bool ctrl) {
    int nn = g->num_nodes, nlit = 0;
    for (nnfx_node *n = g->head; n; n = n->next)
        nlit += n->nargs + (n->nout > 1 ? n->nout : 0); /* literals, and the outputs of tuples */
    fx_plan *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->layout = layout;
    p->ctrl = ctrl;
    p->vals = calloc((size_t)(nn + nlit + 1), sizeof *p->vals);
    p->steps = calloc((size_t)(nn + 1), sizeof *p->steps);
    p->inputs = calloc((size_t)(nn + 1), sizeof *p->inputs);
    if (!p->vals || !p->steps || !p->inputs) {
        fx_plan_free(p);
        return NULL;
    }
    int i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++)
        n->pass_data = (void *)(intptr_t)i;
    p->nvals = nn;
    return p;
}

/* Phase 1 for node n (index i): the kind of its value (constant, input,
 * alias, arena, tuple), constants folded; an error for a node the plan
 * cannot run. */
static nnfx_status plan_value(fx_plan *p, nnfx_graph *g, const nnfx_node *n, int i, nnfx_error *err) {
    fx_val *v = &p->vals[i];
    v->def = v->last = -1;
    if (n->opcode == NNFX_OUTPUT) return NNFX_OK;
    if (n->opcode == NNFX_CALL_MODULE) return unsupported(err, n, "leaf modules run in the interpreter");
    if (n->opcode == NNFX_CALL_FUNCTION && ir_op_is_ctrl(n->op) && !p->ctrl)
        return unsupported(err, n, "control flow (if, loop, scan) runs its bodies in the interpreter");
    if (n->nout != 1) return plan_tuple(p, n, v, err);
    const nnfx_meta *m = &n->meta[0];
    if (n->opcode == NNFX_GET_ATTR) {
        /* layout: a weight as stored (its data unread); shape-like
         * parameters ready to be read, as inference reads them */
        nnfx_tensor *raw = ir_graph_param_raw(g, n->target);
        bool as_stored = p->layout && raw && !ir_shape_value_like(raw->dtype, nnfx_tensor_numel(raw));
        v->t = nnfx_tensor_retain(as_stored ? raw : nnfx_graph_param(g, n->target));
        v->kind = V_CONST;
        return v->t ? NNFX_OK : unsupported(err, n, "missing parameter");
    }
    if (!nnfx_meta_is_static(m) || m->dtype == NNFX_DTYPE_UNDEFINED) return unsupported(err, n, "shape not static");
    if (n->opcode == NNFX_PLACEHOLDER) {
        v->kind = V_INPUT;
        v->node = n;
        v->t = header(m, err);
        v->bytes = nnfx_meta_nbytes(m);
        p->input_bytes += v->bytes;
        p->inputs[p->ninputs++] = i;
        return v->t ? NNFX_OK : NNFX_ERR_NOMEM;
    }
    if (n->op == NNFX_OP_GETITEM) return plan_getitem(p, n, v, err);
    const nnfx_op_info *info = ir_op_info(n->op);
    if (!info->kernel || !info->infer) return unsupported(err, n, "no kernel");
    bool kept = false; /* a step of its own: never folded, never an alias */
    for (int k = 0; k < p->nkept && !kept; k++)
        kept = p->kept[k] == n;
    bool shape_of_static = (n->op == NNFX_OP_SHAPE || n->op == NNFX_OP_SIZE) && n->nargs == 1 &&
                           n->args[0].kind == NNFX_ARG_NODE && p->vals[idx_of(n->args[0].u.node)].t && !kept;
    bool pure_const = args_const(p, n) && !(info->flags & NNFX_F_IMPURE) && !kept;
    if (pure_const && !shape_of_static && layout_skips_fold(p, n)) {
        v->kind = V_CONST; /* its shape, not its value */
        v->t = header(m, err);
        return v->t ? NNFX_OK : NNFX_ERR_NOMEM;
    }
    /* computed once now; Shape of a static shape too (the kernel reads
     * the shape, not the data) */
    if (pure_const || shape_of_static) {
        nnfx_value_set out = {0};
        nnfx_status st = fold(p, n, &out, err);
        if (st) return st;
        v->kind = V_CONST;
        v->t = out.t[0];
        return NNFX_OK;
    }
    /* a Cast to its input's own type (PyTorch's QDQ exports put one between each QuantizeLinear and
     * DequantizeLinear) is a view too, in a plan that runs */
    bool same_cast = n->op == NNFX_OP_CAST && !p->ctrl && n->nargs == 1;
    if ((is_view(n->op) || same_cast) && !kept && n->args[0].kind == NNFX_ARG_NODE &&
        m->dtype == n->args[0].u.node->meta[0].dtype &&
        nnfx_meta_nbytes(m) == nnfx_meta_nbytes(&n->args[0].u.node->meta[0]) && !dropout_checks(p, n)) {
        v->kind = V_ALIAS;
        v->src = idx_of(n->args[0].u.node);
        v->t = header(m, err);
        return v->t ? NNFX_OK : NNFX_ERR_NOMEM;
    }
    v->kind = V_ARENA;
    v->bytes = nnfx_meta_nbytes(m);
    v->t = header(m, err);
    return v->t ? NNFX_OK : NNFX_ERR_NOMEM;
}

/* Per-node tables (graph order) that carry the fusion decisions of phase 2
 * into the steps of phase 3. */
/* A GELU chain (x * (Erf(x / c0) + c1)) * c2 matched at its last node: x,
 * and the arguments holding the scalar constants (c[2] NULL: no last
 * multiply). */
typedef struct gelu_match {
    const nnfx_node *x;
    const nnfx_arg *c[3];
} gelu_match;

typedef struct build_tables {
    const nnfx_node **chain_first; /* the conv of the chain ending at a node */
    fusion *fus;                   /* that chain's fusion */
    bool *absorbed;                /* folded into a conv or int8 step */
    fx_conv **convs;               /* the conv step ending at a node (NULL in layout mode) */
    bool *conv_at;                 /* a conv chain ends here */
    fx_qop **qops;                 /* the int8 island ending at a node */
    fx_qmatch *qm;                 /* and what it matched */
    bool *dead;                    /* a DequantizeLinear every reader of which was fused */
    fx_dnnl **dnnls;               /* the oneDNN conv step ending at a node (instead of convs) */
    signed char *silu; /* a float Mul x * Sigmoid(x): 1 + the argument that is x, + 2 when x is a DequantizeLinear
                          read by nothing else (0: none) */
    const nnfx_node **pool_pad; /* the Pad folded into the AveragePool at a node (its oneDNN step in dnnls) */
    gelu_match *gelu;           /* a GELU chain ending at a node (x NULL: none) */
    fx_ln_match *ln;            /* a decomposed LayerNorm chain ending at a node (x NULL: none) */
} build_tables;

/* Frees the tables, and the convs and int8 steps no step took. */
static void tables_free(build_tables *t, int nn) {
    for (int k = 0; k < nn; k++) {
        if (t->convs) fx_conv_free(t->convs[k]);
        if (t->qops) fx_qop_free(t->qops[k]);
        if (t->dnnls) fx_dnnl_free(t->dnnls[k]);
    }
    free(t->chain_first), free(t->fus), free(t->absorbed), free(t->convs), free(t->conv_at), free(t->qops), free(t->qm),
        free(t->dead), free(t->dnnls), free(t->silu), free(t->pool_pad), free(t->gelu), free(t->ln);
    memset(t, 0, sizeof *t);
}

/* Zeroed tables for nn nodes; false on OOM (t freed). */
static bool tables_new(build_tables *t, int nn) {
    size_t k = (size_t)(nn + 1);
    *t = (build_tables){
        calloc(k, sizeof *t->chain_first), calloc(k, sizeof *t->fus),      calloc(k, sizeof *t->absorbed),
        calloc(k, sizeof *t->convs),       calloc(k, sizeof *t->conv_at),  calloc(k, sizeof *t->qops),
        calloc(k, sizeof *t->qm),          calloc(k, sizeof *t->dead),     calloc(k, sizeof *t->dnnls),
        calloc(k, sizeof *t->silu),        calloc(k, sizeof *t->pool_pad), calloc(k, sizeof *t->gelu),
        calloc(k, sizeof *t->ln)};
    if (t->chain_first && t->fus && t->absorbed && t->convs && t->conv_at && t->qops && t->qm && t->dead && t->dnnls &&
        t->silu && t->pool_pad && t->gelu && t->ln)
        return true;
    tables_free(t, 0);
    return false;
}

/* Phase 2 for Conv node n (index i): whether the fast conv takes it (2-d
 * float32, constant weights and bias); then its fused chain is recorded at
 * the chain's last node and its nodes marked absorbed. False only on OOM. */
static bool plan_conv(const fx_plan *p, const nnfx_node *n, int i, build_tables *t) {
    bool tr = n->op == NNFX_OP_CONV_TRANSPOSE; /* on oneDNN only (2-d, group 1) */
    if (n->opcode != NNFX_CALL_FUNCTION || (n->op != NNFX_OP_CONV && !(tr && p->dnnl)) || p->vals[i].kind != V_ARENA ||
        t->absorbed[i])
        return true;
    if (n->nargs < 2 || n->args[0].kind != NNFX_ARG_NODE || n->args[1].kind != NNFX_ARG_NODE) return true;
    const nnfx_node *xn = n->args[0].u.node;
    const fx_val *wv = &p->vals[idx_of(n->args[1].u.node)];
    const fx_val *bv = NULL;
    if (n->nargs > 2 && n->args[2].kind == NNFX_ARG_NODE) {
        bv = &p->vals[idx_of(n->args[2].u.node)];
        if (bv->kind != V_CONST) return true;
    } else if (n->nargs > 2 && n->args[2].kind != NNFX_ARG_NONE)
        return true;
    int rank = xn->meta[0].rank; /* 5: a 3-d conv, on oneDNN only */
    if (wv->kind != V_CONST || (rank != 4 && !(rank == 5 && p->dnnl)) || xn->meta[0].dtype != NNFX_F32 ||
        n->meta[0].dtype != NNFX_F32 || n->meta[0].rank != rank)
        return true;
    int64_t xs[5];
    for (int d = 0; d < rank; d++)
        xs[d] = xn->meta[0].dims[d].value;
    nnfx_error cerr = {0};
    fx_conv *c = NULL;
    fx_dnnl *d = NULL;
    fusion f = plan_fusion(p, n, t->absorbed);
    if (p->dnnl) {
        int64_t ys[5];
        for (int k = 0; k < rank; k++)
            ys[k] = n->meta[0].dims[k].value;
        d = fx_dnnl_conv_new(n, xs, ys, wv->t, bv ? bv->t : NULL, f.act, f.p0, f.p1, f.res != NULL, p->threads, &cerr);
    }
    if (d) {
    } else if (rank == 5 || tr) { /* no oneDNN kernel: the generic step */
        return cerr.status != NNFX_ERR_NOMEM;
    } else if (p->layout) {
        if (!fx_conv_takes(n, xs, wv->t, bv ? bv->t : NULL)) return true;
    } else if (!(c = fx_conv_new(n, xs, wv->t, bv ? bv->t : NULL, &cerr)))
        return cerr.status != NNFX_ERR_NOMEM;
    if (c) fx_conv_set_epilogue(c, f.act, f.p0, f.p1, f.res != NULL);
    int li = idx_of(f.last);
    t->convs[li] = c;
    t->dnnls[li] = d;
    t->conv_at[li] = true;
    t->fus[li] = f;
    t->chain_first[li] = n;
    t->absorbed[idx_of(n)] = true;
    if (f.res) t->absorbed[idx_of(sole_user(n))] = true;
    if (f.sig) t->absorbed[idx_of(f.sig)] = true;
    t->absorbed[li] = true; /* claimed: no other chain may take it */
    return true;
}

/* Whether x is a DequantizeLinear of an int8 / uint8 run-time value with
 * a constant scalar float32 scale and a constant scalar zero point (or
 * none). */
static bool dq_scalar_of(const fx_plan *p, const nnfx_node *x) {
    if (x->opcode != NNFX_CALL_FUNCTION || x->op != NNFX_OP_DEQUANTIZE_LINEAR || x->nout != 1 || x->nargs < 2 ||
        x->nargs > 3 || x->args[0].kind != NNFX_ARG_NODE || x->args[1].kind != NNFX_ARG_NODE)
        return false;
    const nnfx_node *q = x->args[0].u.node;
    if (q->meta[0].dtype != NNFX_U8 && q->meta[0].dtype != NNFX_I8) return false;
    const fx_val *s = &p->vals[idx_of(x->args[1].u.node)];
    if (s->kind != V_CONST || s->t->dtype != NNFX_F32 || nnfx_tensor_numel(s->t) != 1) return false;
    if (x->nargs < 3 || x->args[2].kind == NNFX_ARG_NONE) return true;
    if (x->args[2].kind != NNFX_ARG_NODE) return false;
    const fx_val *z = &p->vals[idx_of(x->args[2].u.node)];
    return z->kind == V_CONST && z->t->dtype == q->meta[0].dtype && nnfx_tensor_numel(z->t) == 1;
}

/* Phase 2 for float32 Mul node n (index i) of a plan that runs (not the C
 * generator's): x * Sigmoid(x) whose Sigmoid has no other reader and no
 * conv chain took becomes one x * sigmoid(x) step reading x (the Sigmoid
 * absorbed), as a conv epilogue would run it (the float islands between
 * int8 layers of a QDQ model: DequantizeLinear -> SiLU -> ...). */
static void plan_silu(const fx_plan *p, const nnfx_node *n, int i, build_tables *t) {
    if (p->ctrl || n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_MUL || n->nargs != 2 || n->nout != 1 ||
        t->absorbed[i] || p->vals[i].kind != V_ARENA || n->meta[0].dtype != NNFX_F32 ||
        n->args[0].kind != NNFX_ARG_NODE || n->args[1].kind != NNFX_ARG_NODE)
        return;
    for (int a = 0; a < 2; a++) {
        const nnfx_node *sg = n->args[a].u.node, *x = n->args[1 - a].u.node;
        if (sg->opcode != NNFX_CALL_FUNCTION || sg->op != NNFX_OP_SIGMOID || sg->nusers != 1 || sg->nout != 1 ||
            sg->nargs != 1 || sg->args[0].kind != NNFX_ARG_NODE || sg->args[0].u.node != x || t->absorbed[idx_of(sg)] ||
            p->vals[idx_of(sg)].kind != V_ARENA || x->meta[0].dtype != NNFX_F32 || !nnfx_meta_is_static(&x->meta[0]) ||
            nnfx_meta_numel(&x->meta[0]) != nnfx_meta_numel(&n->meta[0])) /* no broadcast */
            continue;
        t->absorbed[idx_of(sg)] = true;
        t->silu[i] = (signed char)(2 - a);
        if (dq_scalar_of(p, x) && x->nusers == 2 && !t->absorbed[idx_of(x)] &&
            ((x->users[0] == sg && x->users[1] == n) || (x->users[0] == n && x->users[1] == sg))) {
            t->dead[idx_of(x)] = true; /* the step reads the int8 value */
            t->silu[i] += 2;
        }
        return;
    }
}

/* The zero pads {top, left, bottom, right} of float32 AveragePool n's
 * argument when it is a constant-mode Pad of zeros over H and W only, read
 * by n alone (PyTorch exports avg_pool2d with count_include_pad so). */
static bool pool_pad_of(const fx_plan *p, const nnfx_node *n, const bool *claimed, int64_t *pad4) {
    if (n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_AVERAGE_POOL || n->nargs != 1 ||
        n->args[0].kind != NNFX_ARG_NODE || n->meta[0].rank != 4 || n->meta[0].dtype != NNFX_F32)
        return false;
    const nnfx_node *pd = n->args[0].u.node;
    const char *mode = ir_attr_string(pd, "mode");
    if (pd->opcode != NNFX_CALL_FUNCTION || pd->op != NNFX_OP_PAD || sole_user(pd) != n || claimed[idx_of(pd)] ||
        p->vals[idx_of(pd)].kind != V_ARENA || (mode && strcmp(mode, "constant")) || pd->nargs < 2 ||
        pd->args[0].kind != NNFX_ARG_NODE || pd->args[1].kind != NNFX_ARG_NODE || pd->meta[0].rank != 4 ||
        pd->args[0].u.node->meta[0].rank != 4 || (pd->nargs > 3 && pd->args[3].kind != NNFX_ARG_NONE))
        return false;
    float v = 0;
    if (pd->nargs > 2 && pd->args[2].kind != NNFX_ARG_NONE && (!const_scalar(p, pd, 2, &v) || v != 0)) return false;
    const fx_val *pv = &p->vals[idx_of(pd->args[1].u.node)];
    if (pv->kind != V_CONST || pv->t->dtype != NNFX_I64 || nnfx_tensor_numel(pv->t) != 8) return false;
    const int64_t *q = pv->t->data; /* [N, C, H, W] begins, then ends */
    if (q[0] || q[1] || q[4] || q[5] || q[2] < 0 || q[3] < 0 || q[6] < 0 || q[7] < 0) return false;
    pad4[0] = q[2], pad4[1] = q[3], pad4[2] = q[6], pad4[3] = q[7];
    return true;
}

/* Phase 2: AveragePools with the Pad before them folded in, on oneDNN. */
static void plan_pool_pads(const fx_plan *p, nnfx_graph *g, build_tables *t) {
    int i = 0;
    int64_t pad4[4], xs[4], ys[4];
    for (nnfx_node *n = g->head; n; n = n->next, i++) {
        if (!pool_pad_of(p, n, t->absorbed, pad4)) continue;
        const nnfx_node *pd = n->args[0].u.node, *x = pd->args[0].u.node;
        for (int d = 0; d < 4; d++)
            xs[d] = x->meta[0].dims[d].value, ys[d] = n->meta[0].dims[d].value;
        nnfx_error perr = {0};
        fx_dnnl *d = fx_dnnl_pool_new(n, xs, ys, pad4, p->threads, &perr);
        if (!d) continue;
        t->dnnls[i] = d;
        t->pool_pad[i] = pd;
        t->absorbed[idx_of(pd)] = true;
    }
}

/* Whether node m is a float32 call of op with two arguments, read only by
 * one node, free for a fusion, held in the arena and of numel elements;
 * then *a is the index of its argument that is node v (-1: v NULL, either)
 * when the other is a constant scalar (const_scalar). */
static bool gelu_link(const fx_plan *p, const build_tables *t, const nnfx_node *m, nnfx_op op, const nnfx_node *v,
                      int64_t numel, int *a) {
    if (m->opcode != NNFX_CALL_FUNCTION || m->op != op || m->nargs != 2 || m->nout != 1 || t->absorbed[idx_of(m)] ||
        p->vals[idx_of(m)].kind != V_ARENA || m->meta[0].dtype != NNFX_F32 || !nnfx_meta_is_static(&m->meta[0]) ||
        nnfx_meta_numel(&m->meta[0]) != numel)
        return false;
    float c;
    for (int k = 0; k < 2; k++)
        if (m->args[k].kind == NNFX_ARG_NODE && (v ? m->args[k].u.node == v : true) && const_scalar(p, m, 1 - k, &c) &&
            (op != NNFX_OP_DIV || k == 0)) {
            *a = k;
            return true;
        }
    return false;
}

/* Phase 2 for float32 Mul node n (index i) of a plan that runs: x *
 * (Erf(x / c0) + c1), optionally followed by a multiply by scalar c2 (the
 * exported GELU), each intermediate read by nothing else and taken by no
 * other fusion, becomes one step (kern_gelu_fast) reading x at the chain's
 * last node; the other nodes are absorbed. */
static void plan_gelu(const fx_plan *p, const nnfx_node *n, int i, build_tables *t) {
    if (p->ctrl || n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_MUL || n->nargs != 2 || n->nout != 1 ||
        t->absorbed[i] || p->vals[i].kind != V_ARENA || n->meta[0].dtype != NNFX_F32 ||
        !nnfx_meta_is_static(&n->meta[0]) || n->args[0].kind != NNFX_ARG_NODE || n->args[1].kind != NNFX_ARG_NODE)
        return;
    int64_t numel = nnfx_meta_numel(&n->meta[0]);
    for (int a = 0; a < 2; a++) {
        const nnfx_node *ad = n->args[a].u.node, *x = n->args[1 - a].u.node;
        int ka, kd, km;
        if (ad->nusers != 1 || !gelu_link(p, t, ad, NNFX_OP_ADD, NULL, numel, &ka)) continue;
        const nnfx_node *e = ad->args[ka].u.node;
        if (e->opcode != NNFX_CALL_FUNCTION || e->op != NNFX_OP_ERF || e->nusers != 1 || e->nargs != 1 ||
            e->nout != 1 || t->absorbed[idx_of(e)] || p->vals[idx_of(e)].kind != V_ARENA ||
            e->meta[0].dtype != NNFX_F32 || e->args[0].kind != NNFX_ARG_NODE)
            continue;
        const nnfx_node *d = e->args[0].u.node;
        if (d->nusers != 1 || !gelu_link(p, t, d, NNFX_OP_DIV, x, numel, &kd) || x->meta[0].dtype != NNFX_F32 ||
            !nnfx_meta_is_static(&x->meta[0]) || nnfx_meta_numel(&x->meta[0]) != numel)
            continue;
        gelu_match g = {x, {&d->args[1], &ad->args[1 - ka], NULL}};
        int last = i;
        const nnfx_node *u = sole_user(n);
        if (u && gelu_link(p, t, u, NNFX_OP_MUL, n, numel, &km)) { /* the multiply by 1/2 */
            g.c[2] = &u->args[1 - km];
            t->absorbed[i] = true;
            last = idx_of(u);
        }
        t->absorbed[idx_of(d)] = t->absorbed[idx_of(e)] = t->absorbed[idx_of(ad)] = true;
        t->gelu[last] = g;
        return;
    }
}

typedef struct ln_ctx {
    const fx_plan *p;
    const build_tables *t;
} ln_ctx;

static const nnfx_tensor *ln_const_of(const void *ctx, const nnfx_node *n) {
    const fx_val *v = &((const ln_ctx *)ctx)->p->vals[idx_of(n)];
    return v->kind == V_CONST ? v->t : NULL;
}

static bool ln_free_node(const void *ctx, const nnfx_node *n) {
    const ln_ctx *c = ctx;
    return !c->t->absorbed[idx_of(n)] && c->p->vals[idx_of(n)].kind == V_ARENA;
}

/* Phase 2 for Div node n of a plan that runs (not in layout mode: the
 * match reads constants): a decomposed LayerNorm chain over the last axis
 * (fx_layernorm_match) becomes one step (kern_layernorm_chain_fast) reading
 * x at the chain's last node; its other nodes are absorbed. */
static void plan_layernorm(const fx_plan *p, const nnfx_node *n, build_tables *t) {
    if (p->ctrl || p->layout || n->opcode != NNFX_CALL_FUNCTION || n->op != NNFX_OP_DIV) return;
    ln_ctx c = {p, t};
    fx_ln_env env = {&c, ln_const_of, ln_free_node};
    fx_ln_match m;
    if (!fx_layernorm_match(&env, n, &m)) return;
    for (int k = 0; k + 1 < m.nnodes; k++)
        t->absorbed[idx_of(m.nodes[k])] = true;
    t->ln[idx_of(m.nodes[m.nnodes - 1])] = m;
}

/* Phase 2: int8 islands (they read weights: not in layout mode), then
 * conv chains, then the SiLUs, GELUs and LayerNorm chains no conv chain
 * took, then Pads folded into the AveragePools after them. */
static nnfx_status plan_fusions(fx_plan *p, nnfx_graph *g, build_tables *t, nnfx_error *err) {
    if (!p->layout && plan_qops(p, g, t->absorbed, t->qops, t->qm, t->dead, err)) return NNFX_ERR_NOMEM;
    int i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++)
        if (!plan_conv(p, n, i, t)) return NNFX_ERR_NOMEM;
    i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++)
        plan_silu(p, n, i, t);
    i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++)
        plan_gelu(p, n, i, t);
    for (nnfx_node *n = g->head; n; n = n->next)
        plan_layernorm(p, n, t);
    if (p->dnnl) plan_pool_pads(p, g, t);
    return NNFX_OK;
}

static nnfx_status step_oom(nnfx_error *err) { return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory"); }

static nnfx_status build_oom(nnfx_error *err) {
    return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory compiling the graph");
}

/* How many column ranges (pool tasks) a float32 Gemm, or a MatMul of one
 * 2-d B (a linear layer over all rows of A), splits into: by the shape
 * alone (FX_GEMM_*), 0 when it runs as one call. */
static int gemm_split(const nnfx_node *n) {
    const nnfx_meta *am = n->nargs > 1 && n->args[0].kind == NNFX_ARG_NODE ? &n->args[0].u.node->meta[0] : NULL;
    const nnfx_meta *bm = n->nargs > 1 && n->args[1].kind == NNFX_ARG_NODE ? &n->args[1].u.node->meta[0] : NULL;
    const nnfx_meta *y = &n->meta[0];
    int64_t rows = 0, k = 0, cols = y->rank >= 1 ? y->dims[y->rank - 1].value : 0;
    if (!am || !bm || !nnfx_meta_is_static(y) || !nnfx_meta_is_static(am) || y->dtype != NNFX_F32) return 0;
    if (n->op == NNFX_OP_GEMM && y->rank == 2 && am->rank == 2) {
        rows = y->dims[0].value;
        k = am->dims[ir_attr_int(n, "transA") ? 0 : 1].value;
    } else if (n->op == NNFX_OP_MATMUL && am->rank >= 2 && bm->rank == 2 && y->rank == am->rank) {
        k = am->dims[am->rank - 1].value;
        rows = k > 0 ? nnfx_meta_numel(am) / k : 0;
    }
    if (rows <= 0 || k <= 0 || cols < 2 * FX_GEMM_MIN_COLS || rows * cols * k < FX_GEMM_MIN_MACS) return 0;
    /* a MatMul's ranges each repack A: two halves (by the shape alone, so
     * 1 and 2 threads give the same bits) */
    const int64_t most = n->op == NNFX_OP_MATMUL ? 2 : FX_GEMM_TASKS, t = cols / FX_GEMM_MIN_COLS;
    return (int)(t < most ? t : most);
}

/* A generic kernel step for node n (index i): one kernel call writing every
 * output of a tuple; 2-d float32 MaxPool through the direct max pool. */
static nnfx_status step_kernel(fx_plan *p, fx_step *s, const nnfx_node *n, int i, nnfx_error *err) {
    s->kind = S_KERNEL;
    s->n = s->first = n;
    s->kern = ir_op_info(n->op)->kernel;
    if (n->op == NNFX_OP_LSTM) s->kern = kern_lstm_fast; /* vector gate rows (rnn.c) */
    if (n->op == NNFX_OP_GRU) s->kern = kern_gru_fast;
    if (n->op == NNFX_OP_SIGMOID && !p->ctrl && n->meta[0].dtype == NNFX_F32) s->kern = kern_sigmoid_fast;
    if (n->op == NNFX_OP_ERF && !p->ctrl && n->meta[0].dtype == NNFX_F32) s->kern = kern_erf_fast;
    if (n->op == NNFX_OP_REDUCE_MEAN && !p->ctrl && n->meta[0].dtype == NNFX_F32) s->kern = kern_reduce_mean_fast;
    if (n->op == NNFX_OP_SOFTMAX && !p->ctrl && n->meta[0].dtype == NNFX_F32) s->kern = kern_softmax_fast;
    if (n->op == NNFX_OP_GLOBAL_AVERAGE_POOL && !p->ctrl && n->meta[0].dtype == NNFX_F32)
        s->kern = kern_global_average_pool_fast;
    s->zero_out = !writes_all(n->op);
    s->out = i;
    s->gemm_tasks = gemm_split(n);
    if (p->vals[i].kind == V_TUPLE) { /* one kernel call writes every output */
        s->nout = n->nout;
        s->outs = malloc(sizeof *s->outs * (size_t)n->nout);
        s->outbuf = calloc((size_t)n->nout, sizeof *s->outbuf);
        if (!s->outs || !s->outbuf) return step_oom(err);
        for (int k = 0; k < n->nout; k++)
            s->outs[k] = p->vals[i].src + k;
        s->out = s->outs[0];
    }
    const nnfx_node *xn = n->nargs == 1 && n->args[0].kind == NNFX_ARG_NODE ? n->args[0].u.node : NULL;
    /* MaxPool runs ours (fx_maxpool_run_nhwc when channels-last: oneDNN's
     * drops NaN where ONNX gives NaN); the average poolings may run on oneDNN */
    bool maxpool = n->op == NNFX_OP_MAX_POOL,
         avgpool = p->dnnl && (n->op == NNFX_OP_AVERAGE_POOL || n->op == NNFX_OP_GLOBAL_AVERAGE_POOL);
    if ((maxpool || avgpool) && n->nout == 1 && xn && xn->meta[0].rank == 4 && xn->meta[0].dtype == NNFX_F32 &&
        n->meta[0].rank == 4 && n->meta[0].dtype == NNFX_F32) {
        int64_t xs[4], ys[4];
        for (int d = 0; d < 4; d++)
            xs[d] = xn->meta[0].dims[d].value, ys[d] = n->meta[0].dims[d].value;
        nnfx_error perr = {0};
        if (maxpool && (s->mpool = fx_maxpool_new(n, xs, ys, &perr))) s->kind = S_MAXPOOL;
        if (avgpool && !s->pad_fused && (s->dnnl = fx_dnnl_pool_new(n, xs, ys, NULL, p->threads, &perr)))
            s->dnnl_pool = true;
    }
    return NNFX_OK;
}

/* A fused step (conv chain or int8 island) reading x (value index) and an
 * optional residual (-1: none). */
static nnfx_status step_fused(fx_step *s, int x, int res, nnfx_error *err) {
    s->nin = 2;
    s->in = malloc(2 * sizeof *s->in);
    if (!s->in) return step_oom(err);
    s->in[0] = x;
    s->in[1] = res;
    return NNFX_OK;
}

/* Phase 3 for node n (index i): its step, if it runs one (a conv chain or
 * int8 island ending here, a kernel, the output). A step is counted before
 * it is filled, so fx_plan_free frees what a failed one holds. */
static nnfx_status plan_step(fx_plan *p, const nnfx_node *n, int i, build_tables *t, nnfx_error *err) {
    bool generic = n->opcode == NNFX_CALL_FUNCTION && !t->absorbed[i] && !t->dead[i] && runs(p, i);
    if (n->opcode != NNFX_OUTPUT && !t->conv_at[i] && !t->qops[i] && !generic) return NNFX_OK;
    fx_step *s = &p->steps[p->nsteps++];
    s->n = n;
    s->out = i;
    nnfx_status st;
    if (n->opcode == NNFX_OUTPUT) {
        s->kind = S_OUTPUT;
        s->out = -1;
    } else if (t->conv_at[i]) {
        s->kind = t->dnnls[i] ? S_DNNL : S_CONV;
        s->first = t->chain_first[i];
        s->conv = t->convs[i];
        s->dnnl = t->dnnls[i];
        t->convs[i] = NULL;
        t->dnnls[i] = NULL;
        if ((st = step_fused(s, idx_of(s->first->args[0].u.node), t->fus[i].res ? idx_of(t->fus[i].res) : -1, err)))
            return st;
    } else if (t->qops[i]) {
        s->kind = S_QOP;
        s->first = t->qm[i].nodes[0];
        s->qop = t->qops[i];
        t->qops[i] = NULL;
        if ((st = step_fused(s, idx_of(t->qm[i].x), t->qm[i].res ? idx_of(t->qm[i].res) : -1, err))) return st;
    } else {
        if (t->pool_pad[i]) { /* the Pad's pads folded in (plan_pool_pads) */
            s->dnnl = t->dnnls[i];
            t->dnnls[i] = NULL;
            s->dnnl_pool = s->pad_fused = true;
        }
        if ((st = step_kernel(p, s, n, i, err))) return st;
    }
    if (s->kind != S_CONV && s->kind != S_QOP && !(s->kind == S_DNNL && !s->dnnl_pool)) { /* the node's arguments */
        s->nin = n->nargs;
        s->in = malloc(sizeof *s->in * (size_t)(n->nargs ? n->nargs : 1));
        if (!s->in) return step_oom(err);
        for (int a = 0; a < n->nargs; a++)
            if ((s->in[a] = arg_value(p, &n->args[a], err)) == -2) return NNFX_ERR_NOMEM;
        if (s->pad_fused) s->in[0] = idx_of(t->pool_pad[i]->args[0].u.node);
        int code = t->silu[i] - 1, xa = code & 1;
        if (t->silu[i] && code >> 1) { /* x * sigmoid(x) of DequantizeLinear(q, scale, zp): its arguments */
            const nnfx_node *dq = n->args[xa].u.node;
            int *in3 = realloc(s->in, 3 * sizeof *s->in);
            if (!in3) return step_oom(err);
            s->in = in3;
            for (int a = 0; a < 3; a++)
                if ((s->in[a] = a < dq->nargs ? arg_value(p, &dq->args[a], err) : -1) == -2) return NNFX_ERR_NOMEM;
            s->nin = 3;
            s->kern = kern_dq_silu_fast;
        } else if (t->silu[i]) { /* x * sigmoid(x) of x alone */
            s->in[0] = s->in[xa];
            s->nin = 1;
            s->kern = kern_silu_fast;
        } else if (t->gelu[i].x) { /* x and the constants of a GELU chain */
            int *in4 = realloc(s->in, 4 * sizeof *s->in);
            if (!in4) return step_oom(err);
            s->in = in4;
            s->in[0] = idx_of(t->gelu[i].x);
            for (int a = 0; a < 3; a++)
                if ((s->in[a + 1] = t->gelu[i].c[a] ? arg_value(p, t->gelu[i].c[a], err) : -1) == -2)
                    return NNFX_ERR_NOMEM;
            s->nin = 4;
            s->kern = kern_gelu_fast;
        } else if (t->ln[i].x) { /* x, eps, scale and bias of a LayerNorm chain */
            const fx_ln_match *m = &t->ln[i];
            const nnfx_arg *args[3] = {m->eps, m->scale, m->bias};
            int *in4 = realloc(s->in, 4 * sizeof *s->in);
            if (!in4) return step_oom(err);
            s->in = in4;
            s->in[0] = idx_of(m->x);
            for (int a = 0; a < 3; a++)
                if ((s->in[a + 1] = args[a] ? arg_value(p, args[a], err) : -1) == -2) return NNFX_ERR_NOMEM;
            s->nin = 4;
            s->kern = kern_layernorm_chain_fast;
        }
    }
    s->inbuf = calloc((size_t)(s->nin ? s->nin : 1), sizeof *s->inbuf);
    return s->inbuf ? NNFX_OK : step_oom(err);
}

/* Phase 4: the first and last step touching each value (an alias keeps its
 * storage's value alive); arena values no step writes (absorbed into a
 * fused step) become V_NONE. The interpreter's lifetimes (exec/plan.c)
 * are per node; these are per fused step and follow aliases to their
 * storage, so the two are computed apart on purpose. */
static void plan_lifetimes(fx_plan *p) {
    for (int s = 0; s < p->nsteps; s++) {
        fx_step *sp = &p->steps[s];
        for (int k = 0; k < (sp->outs ? sp->nout : sp->out >= 0); k++) {
            int o = sp->outs ? sp->outs[k] : sp->out;
            p->vals[o].def = s;
            if (p->vals[o].last < s) p->vals[o].last = s;
        }
        for (int a = 0; a < sp->nin; a++) {
            if (sp->in[a] < 0) continue;
            int r = root_of(p, sp->in[a]);
            if (p->vals[r].last < s) p->vals[r].last = s;
            if (p->vals[r].def < 0 && p->vals[r].kind != V_ARENA) p->vals[r].def = 0;
        }
        if (sp->kind == S_OUTPUT)
            for (int a = 0; a < sp->n->nargs; a++)
                if (sp->n->args[a].kind == NNFX_ARG_NODE) {
                    int r = root_of(p, idx_of(sp->n->args[a].u.node));
                    if (p->vals[r].last < s) p->vals[r].last = s;
                }
    }
    for (int v = 0; v < p->nvals; v++)
        if (p->vals[v].kind == V_ARENA && p->vals[v].def < 0) p->vals[v].kind = V_NONE; /* absorbed */
}

/* Phase 4b: an int8 step whose output value i depends on input value i only
 * (a table, a move, TFLite's Mul / Add: fx_qop_inplace) writes over its
 * input x where this step is x's last reader and both take the same bytes:
 * the output becomes an alias of x's storage, which then lives until the
 * output's last reader. Saves the arena a copy of such values (the keyword
 * model's x * sigmoid(x) tables). */
static void plan_inplace(fx_plan *p) {
    for (int s = 0; s < p->nsteps; s++) {
        const fx_step *sp = &p->steps[s];
        if (sp->kind != S_QOP || !sp->qop || !fx_qop_inplace(sp->qop) || sp->out < 0 || sp->nin < 1 || sp->in[0] < 0)
            continue;
        int x = root_of(p, sp->in[0]), y = sp->out;
        fx_val *vx = &p->vals[x], *vy = &p->vals[y];
        if (x == y || vx->kind != V_ARENA || vy->kind != V_ARENA || vx->last != s || vx->bytes != vy->bytes) continue;
        vy->kind = V_ALIAS, vy->src = x;
        if (vx->last < vy->last) vx->last = vy->last;
    }
}

/* Phase 4c: kernel steps of enough work split into ranges of an outer
 * output dim (fx_ranges_plan), by the shapes alone. Not a step reading or
 * writing channels-last values (its headers' shapes are not its layout),
 * a multi-output step or one already in column ranges. */
static void plan_ranges(fx_plan *p) {
    for (int s = 0; s < p->nsteps; s++) {
        fx_step *sp = &p->steps[s];
        if (sp->kind != S_KERNEL || sp->outs || sp->gemm_tasks > 1 || sp->out < 0 || sp->nin > FX_RANGES_MAX_IN ||
            p->vals[root_of(p, sp->out)].nhwc)
            continue;
        nnfx_tensor *in[FX_RANGES_MAX_IN];
        unsigned consts = 0;
        bool ok = true;
        for (int a = 0; a < sp->nin && ok; a++) {
            in[a] = sp->in[a] >= 0 ? p->vals[sp->in[a]].t : NULL;
            ok = sp->in[a] < 0 || (in[a] && !p->vals[root_of(p, sp->in[a])].nhwc);
            if (ok && sp->in[a] >= 0 && p->vals[root_of(p, sp->in[a])].kind == V_CONST) consts |= 1u << a;
        }
        if (ok) fx_ranges_plan(sp->n, sp->nin, in, consts, p->vals[sp->out].t, &sp->ranges);
        const nnfx_tensor *y = p->vals[sp->out].t;
        if (sp->kern == kern_layernorm_chain_fast && sp->ranges.tasks && sp->ranges.dim >= y->rank - 1)
            sp->ranges.tasks = 0; /* split as element-wise: only over whole rows of the last axis */
    }
}

/* Phase 5: the arena (each arena value's header pointed into it), the
 * thread pool and the scratch the widest conv or int8 step needs. */
static nnfx_status plan_storage(fx_plan *p, int threads, nnfx_error *err) {
    nnfx_status st = core_budget_check((size_t)p->arena_bytes, "the activation arena", err);
    if (st) return st;
    p->arena = aligned_alloc(64, (size_t)(p->arena_bytes > 0 ? p->arena_bytes : 64));
    if (!p->arena) return build_oom(err);
    for (int v = 0; v < p->nvals; v++)
        if (p->vals[v].kind == V_ARENA) p->vals[v].t->data = (char *)p->arena + p->vals[v].off;
    int dnnl_steps = 0, own_loops = 0;
    for (int s = 0; s < p->nsteps; s++) {
        dnnl_steps += p->steps[s].kind == S_DNNL;
        own_loops += p->steps[s].gemm_tasks > 1 || p->steps[s].ranges.tasks > 1;
    }
    /* with oneDNN steps (at least as many as the steps in ranges), the plan's
     * own loops share its OpenMP threads; else its own workers, which a loop
     * waits for only once they have joined it (thread_pool.c) */
    if (threads > 1) {
        p->pool = p->dnnl && dnnl_steps >= own_loops ? fx_pool_new_omp(threads) : NULL;
        if (!p->pool) p->pool = fx_pool_new(threads);
        if (!p->pool) return build_oom(err);
    }
    int64_t scr = 16;
    for (int s = 0; s < p->nsteps; s++)
        if (p->steps[s].conv) {
            const fx_conv *c = p->steps[s].conv;
            int64_t need = fx_conv_shared_floats(c) + fx_conv_scratch_floats(c) * fx_pool_threads(p->pool);
            if (need > scr) scr = need;
        } else if (p->steps[s].qop) {
            int64_t need = (fx_qop_scratch_bytes(p->steps[s].qop) * fx_pool_threads(p->pool) + 3) / 4;
            if (need > scr) scr = need;
        } else if (p->steps[s].dnnl) {
            int64_t need = (fx_dnnl_scratch_bytes(p->steps[s].dnnl) + 3) / 4;
            if (need > scr) scr = need;
        }
    p->scratch = aligned_alloc(64, ((size_t)scr * sizeof(float) + 63) / 64 * 64);
    return p->scratch ? NNFX_OK : build_oom(err);
}

/* Builds the plan; in layout mode (fx_plan_layout_peak) only the values,
 * steps and arena offsets: parameters are not read, large constants not
 * folded, convs not packed, no arena or scratch allocated. The phases:
 * values (plan_value), fusions (plan_fusions), steps (plan_step),
 * lifetimes and offsets, storage. */
static fx_plan *plan_build(const nnfx_graph *gc, int threads, bool layout, bool ctrl, const nnfx_node *const *kept,
                           int nkept, nnfx_error *err) {
    nnfx_graph *g = (nnfx_graph *)gc; /* pass_data scratch only */
    build_tables t = {0};
    nnfx_status st = NNFX_OK;
    fx_plan *p = plan_alloc(g, layout, ctrl);
    if (!p) goto oom;
    p->kept = kept, p->nkept = nkept;
    p->threads = threads;
    p->dnnl = !layout && !ctrl && fx_dnnl_enabled();
    int i = 0;
    for (nnfx_node *n = g->head; n && !st; n = n->next, i++)
        st = plan_value(p, g, n, i, err);
    if (st) goto fail;
    if (!tables_new(&t, g->num_nodes) || plan_fusions(p, g, &t, err)) goto oom;
    i = 0;
    for (nnfx_node *n = g->head; n && !st; n = n->next, i++)
        st = plan_step(p, n, i, &t, err);
    if (st || (st = plan_layouts(p, err))) goto fail;
    tables_free(&t, g->num_nodes);
    plan_lifetimes(p);
    plan_inplace(p);
    if (!layout && !ctrl) plan_ranges(p);
    if ((st = assign_offsets(p, err))) goto fail;
    if (!layout && (st = plan_storage(p, threads, err))) goto fail;
    for (nnfx_node *n = g->head; n; n = n->next)
        n->pass_data = NULL;
    return p;
oom:
    build_oom(err);
fail:
    tables_free(&t, g->num_nodes);
    for (nnfx_node *n = g->head; n; n = n->next)
        n->pass_data = NULL;
    fx_plan_free(p);
    return NULL;
}

fx_plan *fx_plan_new(const nnfx_graph *g, int threads, nnfx_error *err) {
    return plan_build(g, threads, false, false, NULL, 0, err);
}

fx_plan *fx_plan_new_codegen(const nnfx_graph *g, nnfx_error *err) {
    return plan_build(g, 1, false, true, NULL, 0, err);
}

fx_plan *fx_plan_new_codegen_kept(const nnfx_graph *g, const nnfx_node *const *kept, int nkept, nnfx_error *err) {
    return plan_build(g, 1, false, true, kept, nkept, err);
}

int64_t fx_plan_layout_peak(const nnfx_graph *g, nnfx_error *err) {
    fx_plan *p = plan_build(g, 1, true, false, NULL, 0, err);
    int64_t peak = p ? p->arena_bytes + p->input_bytes : -1;
    fx_plan_free(p);
    return peak;
}

/* ---- run ----------------------------------------------------------------- */

/* Runs step s of p (fx_plan_run's loop body): kernels read and write the
 * arena; the output step fills outs and *nout. */
/* A kernel on output columns [j0, j1) only (kern_gemm_cols, kern_matmul_cols). */
typedef nnfx_status (*cols_kernel_fn)(const nnfx_node *, int, nnfx_tensor *const *, int, nnfx_tensor *const *, int64_t,
                                      int64_t, nnfx_error *);

/* One column range of a split Gemm or MatMul step (its checks passed already). */
typedef struct gemm_task_ctx {
    const fx_step *sp;
    cols_kernel_fn kern;
    nnfx_tensor **out;
    int64_t cols;
} gemm_task_ctx;

static void gemm_task(void *ctx, int64_t task, int tid) {
    (void)tid;
    const gemm_task_ctx *g = ctx;
    const int64_t nt = g->sp->gemm_tasks, per = (g->cols + nt - 1) / nt;
    (void)g->kern(g->sp->n, g->sp->nin, g->sp->inbuf, 1, g->out, task * per, (task + 1) * per, NULL);
}

static nnfx_status run_step(fx_plan *p, int s, int max_out, nnfx_tensor **outs, int *nout, nnfx_error *err) {
    fx_step *sp = &p->steps[s];
    if (sp->kind == S_CONV) {
        const float *res = sp->in[1] >= 0 ? p->vals[sp->in[1]].t->data : NULL;
        fx_conv_run(sp->conv, p->pool, p->vals[sp->in[0]].t->data, res, p->vals[sp->out].t->data, p->scratch);
        return NNFX_OK;
    }
    if (sp->kind == S_QOP) {
        const void *res = sp->in[1] >= 0 ? p->vals[sp->in[1]].t->data : NULL;
        fx_qop_run(sp->qop, p->pool, p->vals[sp->in[0]].t->data, res, p->vals[sp->out].t->data, p->scratch);
        return NNFX_OK;
    }
    if (sp->kind == S_DNNL) {
        const float *res = sp->nin > 1 && sp->in[1] >= 0 ? p->vals[sp->in[1]].t->data : NULL;
        nnfx_status st =
            fx_dnnl_run(sp->dnnl, p->vals[sp->in[0]].t->data, res, p->vals[sp->out].t->data, p->scratch, err);
        if (st) nnfx_error_prefix(err, "node %s (%s)", sp->n->name, nnfx_op_name(sp->n->op));
        return st;
    }
    if (sp->kind == S_NHWC_CHANNEL) {
        const nnfx_tensor *x = p->vals[sp->in[sp->nhwc_full]].t, *c = p->vals[sp->in[1 - sp->nhwc_full]].t;
        fx_nhwc_channel_op(sp->n->op, sp->nhwc_full == 0, x->data, c->data, c->shape[0] == 1, x->shape[0], x->shape[1],
                           x->shape[2] * x->shape[3], p->vals[sp->out].t->data);
        return NNFX_OK;
    }
    if (sp->kind == S_NHWC_CONCAT) {
        for (int a = 0; a < sp->nin; a++)
            sp->inbuf[a] = p->vals[sp->in[a]].t;
        if (p->vals[sp->out].blk) /* batch 1: whole channel blocks, one input after another */
            fx_blocked_concat(sp->nin, (const nnfx_tensor *const *)sp->inbuf, p->vals[sp->out].t);
        else
            fx_nhwc_concat(sp->nin, (const nnfx_tensor *const *)sp->inbuf, p->vals[sp->out].t);
        return NNFX_OK;
    }
    if (sp->kind == S_NHWC_MAXPOOL) {
        fx_maxpool_run_nhwc(sp->mpool, p->pool, p->vals[sp->in[0]].t->data, p->vals[sp->out].t->data);
        return NNFX_OK;
    }
    if (sp->kind == S_MAXPOOL) {
        fx_maxpool_run(sp->mpool, p->pool, p->vals[sp->in[0]].t->data, p->vals[sp->out].t->data);
        return NNFX_OK;
    }
    if (sp->kind == S_OUTPUT) {
        int k = sp->n->nargs;
        if (k > max_out)
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "the graph returns %d values, room for %d given", k,
                                  max_out);
        for (int a = 0; a < k; a++) {
            nnfx_tensor *src = sp->in[a] >= 0 ? p->vals[sp->in[a]].t : NULL;
            outs[a] = src ? nnfx_tensor_clone(src, err) : NULL;
            if (!outs[a]) {
                for (int b = 0; b < a; b++)
                    nnfx_tensor_release(outs[b]);
                return src ? NNFX_ERR_NOMEM : nnfx_error_set(err, NNFX_ERR_RUNTIME, "output %d has no value", a);
            }
        }
        if (nout) *nout = k;
        return NNFX_OK;
    }
    for (int a = 0; a < sp->nin; a++)
        sp->inbuf[a] = sp->in[a] >= 0 ? p->vals[sp->in[a]].t : NULL;
    nnfx_tensor *o = p->vals[sp->out].t, **ob = &o;
    int no = 1;
    if (sp->outs) {
        for (int k = 0; k < sp->nout; k++)
            sp->outbuf[k] = p->vals[sp->outs[k]].t;
        ob = sp->outbuf, no = sp->nout;
    }
    for (int k = 0; sp->zero_out && k < no; k++)
        memset(ob[k]->data, 0, ob[k]->nbytes);
    nnfx_status st;
    if (sp->gemm_tasks > 1) { /* checked here, then column ranges on the pool */
        const cols_kernel_fn kern = sp->n->op == NNFX_OP_MATMUL ? kern_matmul_cols : kern_gemm_cols;
        st = kern(sp->n, sp->nin, sp->inbuf, no, ob, 0, 0, err);
        if (!st) {
            gemm_task_ctx ctx = {sp, kern, ob, o->shape[o->rank - 1]};
            fx_pool_run(p->pool, sp->gemm_tasks, gemm_task, &ctx);
        }
    } else if (sp->ranges.tasks > 1) {
        st = fx_ranges_run(&sp->ranges, p->pool, sp->kern, sp->n, sp->nin, sp->inbuf, o, err);
    } else {
        st = sp->kern(sp->n, sp->nin, sp->inbuf, no, ob, err);
    }
    if (st) {
        if (err && !strstr(err->msg, sp->n->name))
            nnfx_error_prefix(err, "node %s (%s)", sp->n->name, nnfx_op_name(sp->n->op));
        return st;
    }
    return NNFX_OK;
}

nnfx_status fx_plan_run(fx_plan *p, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                        nnfx_error *err) {
    if (nout) *nout = 0;
    if (nin != p->ninputs)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "the graph takes %d input%s, %d given", p->ninputs,
                              p->ninputs == 1 ? "" : "s", nin);
    for (int k = 0; k < nin; k++) {
        nnfx_tensor *want = p->vals[p->inputs[k]].t;
        const nnfx_tensor *t = in[k];
        bool ok = t && t->dtype == want->dtype && t->rank == want->rank && (t->data || !t->nbytes);
        for (int d = 0; ok && d < t->rank; d++)
            ok = t->shape[d] == want->shape[d];
        if (!t)
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "no value given for input %s (input %d of %d given)",
                                  p->vals[p->inputs[k]].node->name, k, nin);
        if (!ok) {
            char ws[160], gs[160];
            nnfx_meta_str(&p->vals[p->inputs[k]].node->meta[0], ws, sizeof ws);
            nnfx_shape_str(t->rank, t->shape, gs, sizeof gs);
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "input %s expects %s, got %s%s",
                                  p->vals[p->inputs[k]].node->name, ws, nnfx_dtype_name(t->dtype), gs);
        }
        want->data = t->data;
    }
    /* our pool parallelises; BLAS calls inside tasks stay single-threaded */
    if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
    for (int v = 0; v < p->nvals; v++)
        if (p->vals[v].kind == V_ALIAS) p->vals[v].t->data = p->vals[root_of(p, v)].t->data;
    for (int s = 0; s < p->nsteps; s++) {
        int64_t t0 = p->prof_s ? core_now_ns() : 0;
        nnfx_status st = run_step(p, s, max_out, outs, nout, err);
        if (p->prof_s) p->prof_s[s] += (double)(core_now_ns() - t0) * 1e-9;
        if (st) return st;
    }
    if (p->prof_s) p->prof_runs++;
    return NNFX_OK;
}

int64_t fx_plan_peak_bytes(const fx_plan *p) { return p ? p->arena_bytes + p->input_bytes : -1; }

/* One line (no newline) saying what step s runs: the kernel and the nodes
 * it covers, or the op, and where its values live in the arena. */
static void step_desc(const fx_plan *p, int s, sbuf *b) {
    const fx_step *sp = &p->steps[s];
    if (sp->kind == S_OUTPUT) {
        sb_printf(b, "output");
        return;
    }
    const fx_val *v = &p->vals[sp->out];
    if (sp->kind == S_CONV || sp->kind == S_QOP || sp->kind == S_DNNL) {
        char d[160];
        if (sp->kind == S_DNNL)
            snprintf(d, sizeof d, "%s", fx_dnnl_describe(sp->dnnl));
        else if (sp->kind == S_CONV)
            fx_conv_describe(sp->conv, d, sizeof d);
        else
            fx_qop_describe(sp->qop, d, sizeof d);
        sb_printf(b, "%s = %s  [%s .. %s] @%lld", sp->n->name, d, sp->first->name, sp->n->name, (long long)v->off);
        return;
    }
    sb_printf(b, "%s = %s%s @%lld", sp->n->name,
              sp->kern == kern_silu_fast              ? "x * sigmoid(x)"
              : sp->kern == kern_dq_silu_fast         ? "x * sigmoid(x) of the dequantized int8 input (256-entry table)"
              : sp->kern == kern_gelu_fast            ? "gelu: (x * (erf(x / c0) + c1)) * c2"
              : sp->kern == kern_layernorm_chain_fast ? "layernorm chain: (x - mean) / sqrt(var + eps) * scale + bias"
                                                      : nnfx_op_name(sp->n->op),
              sp->kern == kern_silu_fast || sp->kern == kern_sigmoid_fast ||
                      sp->kern == kern_global_average_pool_fast || sp->kern == kern_gelu_fast ||
                      sp->kern == kern_erf_fast || sp->kern == kern_reduce_mean_fast || sp->kern == kern_softmax_fast ||
                      sp->kern == kern_layernorm_chain_fast
                  ? " (vector)"
              : sp->kind == S_MAXPOOL ? " (direct)"
              : (sp->kind == S_NHWC_CONCAT || sp->kind == S_NHWC_MAXPOOL) && v->blk
                  ? (fx_dnnl_block() == 16 ? " (nchw16c)" : " (nchw8c)")
              : sp->kind == S_NHWC_CHANNEL || sp->kind == S_NHWC_CONCAT || sp->kind == S_NHWC_MAXPOOL ? " (nhwc)"
              : sp->gemm_tasks > 1 ? " (column ranges)"
                                   : "",
              (long long)v->off);
    for (int k = 1; sp->outs && k < sp->nout; k++)
        sb_printf(b, ", @%lld", (long long)p->vals[sp->outs[k]].off);
    if (sp->kind == S_KERNEL && sp->ranges.tasks > 1)
        sb_printf(b, "  (%d ranges of dim %d)", sp->ranges.tasks, sp->ranges.dim);
}

char *fx_plan_text(const fx_plan *p) {
    sbuf b = {0};
    sb_printf(&b, "# compiled plan: %d steps, activation arena %lld bytes, %d thread%s\n", p->nsteps,
              (long long)p->arena_bytes, fx_pool_threads(p->pool), fx_pool_threads(p->pool) == 1 ? "" : "s");
    for (int s = 0; s < p->nsteps; s++) {
        sb_printf(&b, "%4d  ", s);
        step_desc(p, s, &b);
        sb_printf(&b, "\n");
    }
    return sb_finish(&b);
}

nnfx_status fx_plan_set_profile(fx_plan *p, bool on) {
    free(p->prof_s);
    p->prof_s = NULL;
    p->prof_runs = 0;
    if (on && !(p->prof_s = calloc((size_t)(p->nsteps > 0 ? p->nsteps : 1), sizeof *p->prof_s))) return NNFX_ERR_NOMEM;
    return NNFX_OK;
}

typedef struct step_time {
    double t;
    int s;
} step_time;

/* qsort order: more time first, then step order. */
static int by_time(const void *a, const void *b) {
    const step_time *x = a, *y = b;
    return x->t > y->t ? -1 : x->t < y->t ? 1 : x->s - y->s;
}

char *fx_plan_profile_text(const fx_plan *p) {
    if (!p->prof_s) return NULL;
    step_time *order = malloc(sizeof *order * (size_t)(p->nsteps > 0 ? p->nsteps : 1));
    if (!order) return NULL;
    double total = 0;
    for (int s = 0; s < p->nsteps; s++)
        order[s] = (step_time){p->prof_s[s], s}, total += p->prof_s[s];
    qsort(order, (size_t)p->nsteps, sizeof *order, by_time);
    double runs = p->prof_runs > 0 ? (double)p->prof_runs : 1.0;
    sbuf b = {0};
    sb_printf(&b, "# profile: %lld run%s, %.3f ms per run in %d steps, %d thread%s; slowest first\n",
              (long long)p->prof_runs, p->prof_runs == 1 ? "" : "s", 1e3 * total / runs, p->nsteps,
              fx_pool_threads(p->pool), fx_pool_threads(p->pool) == 1 ? "" : "s");
    sb_printf(&b, "#   ms/run  share  step\n");
    for (int i = 0; i < p->nsteps; i++) {
        int s = order[i].s;
        sb_printf(&b, "%10.4f %5.1f%%  %4d  ", 1e3 * p->prof_s[s] / runs,
                  total > 0 ? 100.0 * p->prof_s[s] / total : 0.0, s);
        step_desc(p, s, &b);
        sb_printf(&b, "\n");
    }
    free(order);
    return sb_finish(&b);
}

/* ---- read-only view for the C generator (src/codegen) ------------------- */

int64_t fx_plan_arena_bytes(const fx_plan *p) { return p->arena_bytes; }

int fx_plan_nsteps(const fx_plan *p) { return p->nsteps; }

int fx_plan_nvalues(const fx_plan *p) { return p->nvals; }

fx_step_view fx_plan_step_view(const fx_plan *p, int s) {
    const fx_step *sp = &p->steps[s];
    fx_step_view v = {sp->kind == S_CONV ? FX_STEP_CONV : (sp->kind == S_OUTPUT ? FX_STEP_OUTPUT : FX_STEP_KERNEL),
                      sp->first,
                      sp->n,
                      sp->nin,
                      sp->in,
                      sp->out,
                      sp->kind == S_OUTPUT ? 0 : (sp->outs ? sp->nout : 1),
                      sp->outs ? sp->outs : &sp->out,
                      sp->qop};
    if (sp->kind == S_QOP) v.kind = FX_STEP_QOP;
    return v;
}

int64_t fx_plan_step_live(const fx_plan *p, int s) {
    int64_t sum = 0;
    for (int v = 0; v < p->nvals; v++) {
        const fx_val *x = &p->vals[v];
        if (x->kind == V_ARENA && x->def >= 0 && x->def <= s && s <= x->last)
            sum += (x->bytes + FX_ARENA_ALIGN - 1) / FX_ARENA_ALIGN * FX_ARENA_ALIGN;
    }
    return sum;
}

int fx_plan_peak_step(const fx_plan *p, int64_t *live) {
    int best = -1;
    int64_t most = -1;
    for (int s = 0; s < p->nsteps; s++) {
        int64_t sum = fx_plan_step_live(p, s);
        if (sum > most) most = sum, best = s;
    }
    if (live) *live = most < 0 ? 0 : most;
    return best;
}

fx_value_view fx_plan_value_view(const fx_plan *p, int v) {
    fx_value_view r = {FX_VALUE_NONE, 0, NULL, -1};
    if (v < 0 || v >= p->nvals) return r;
    const fx_val *x = &p->vals[root_of(p, v)];
    switch (x->kind) {
    case V_CONST: r.kind = FX_VALUE_CONST, r.t = x->t; break;
    case V_ARENA: r.kind = FX_VALUE_ARENA, r.off = x->off; break;
    case V_INPUT:
        r.kind = FX_VALUE_INPUT;
        for (int k = 0; k < p->ninputs; k++)
            if (p->inputs[k] == root_of(p, v)) r.input = k;
        break;
    default: break;
    }
    return r;
}
