/* fuse_layernorm.c — the decomposed LayerNorm chain over the last axis
 * (PyTorch's opset-13 export of nn.LayerNorm: ReduceMean, Sub, Pow,
 * ReduceMean, Add eps, Sqrt, Div, Mul scale, Add bias) recognised at its
 * Div, so that the compiled plan runs it as one row step
 * (kern_layernorm_chain_fast). Graph shape tests only: no model names. */
#include <string.h>

#include "exec/fuse_layernorm.h"

#include "exec/plan_view.h"
#include "ir/infer_int.h"
#include "ir/ir_int.h"

/* Whether n is a one-output call of op with nargs arguments whose value is
 * float32 of static shape and free for a fusion. */
static bool call_of(const fx_ln_env *env, const nnfx_node *n, nnfx_op op, int nargs) {
    return n->opcode == NNFX_CALL_FUNCTION && n->op == op && n->nargs == nargs && n->nout == 1 &&
           n->meta[0].dtype == NNFX_F32 && nnfx_meta_is_static(&n->meta[0]) && env->free_node(env->ctx, n);
}

static bool same_meta_shape(const nnfx_meta *a, const nnfx_meta *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d].value != b->dims[d].value) return false;
    return true;
}

/* Number of arguments of u that are node n. */
static int refs_of(const nnfx_node *u, const nnfx_node *n) {
    int k = 0;
    for (int a = 0; a < u->nargs; a++)
        k += u->args[a].kind == NNFX_ARG_NODE && u->args[a].u.node == n;
    return k;
}

static const nnfx_node *arg_node(const nnfx_node *n, int a) {
    return a < n->nargs && n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
}

/* The float value of argument a of n when it is a scalar constant. */
static bool scalar_arg(const fx_ln_env *env, const nnfx_node *n, int a, float *v) {
    const nnfx_arg *g = &n->args[a];
    if (g->kind == NNFX_ARG_FLOAT) return (*v = (float)g->u.f), true;
    if (g->kind == NNFX_ARG_INT) return (*v = (float)g->u.i), true;
    const nnfx_tensor *t = g->kind == NNFX_ARG_NODE ? env->const_of(env->ctx, g->u.node) : NULL;
    if (!t || t->dtype != NNFX_F32 || nnfx_tensor_numel(t) != 1 || !t->data) return false;
    *v = *(const float *)t->data;
    return true;
}

/* Whether r is a ReduceMean of x over its last dim only, keeping it. */
static bool mean_of_last(const fx_ln_env *env, const nnfx_node *r, const nnfx_node *x) {
    if (r->opcode != NNFX_CALL_FUNCTION || r->op != NNFX_OP_REDUCE_MEAN || r->nargs < 1 || r->nargs > 2 ||
        arg_node(r, 0) != x || !call_of(env, r, NNFX_OP_REDUCE_MEAN, r->nargs))
        return false;
    int rank = x->meta[0].rank, na = 0;
    if (rank < 1 || r->meta[0].rank != rank || r->meta[0].dims[rank - 1].value != 1) return false;
    int64_t axes[NNFX_MAX_RANK];
    const nnfx_tensor *at = NULL;
    if (r->nargs == 2 && r->args[1].kind != NNFX_ARG_NONE) {
        const nnfx_node *an = arg_node(r, 1);
        if (!an || !(at = env->const_of(env->ctx, an)) || !at->data || !kern_ints(at, axes, NNFX_MAX_RANK, &na))
            return false;
    }
    bool red[NNFX_MAX_RANK];
    char why[160];
    if (!ir_reduce_plan(r, rank, na, at ? axes : NULL, red, why, sizeof why)) return false;
    for (int d = 0; d < rank; d++)
        if (red[d] != (d == rank - 1)) return false;
    return true;
}

/* Whether argument a of n is a float32 constant of one value or one per
 * element of the last axis (length len) of a value of rank `rank`, every
 * other dim of it 1. */
static bool row_const(const fx_ln_env *env, const nnfx_node *n, int a, int rank, int64_t len) {
    const nnfx_node *c = arg_node(n, a);
    const nnfx_tensor *t = c ? env->const_of(env->ctx, c) : NULL;
    if (!t || t->dtype != NNFX_F32 || t->rank > rank) return false;
    for (int d = 0; d + 1 < t->rank; d++)
        if (t->shape[d] != 1) return false;
    int64_t k = nnfx_tensor_numel(t);
    return k == 1 || (k == len && t->rank >= 1 && t->shape[t->rank - 1] == len);
}

/* The argument of binary node n other than node v, when n is a call of op
 * reading v once, of y's shape; -1 otherwise. */
static int other_arg(const fx_ln_env *env, const nnfx_node *n, nnfx_op op, const nnfx_node *v) {
    if (!call_of(env, n, op, 2)) return -1;
    int a = arg_node(n, 0) == v ? 1 : arg_node(n, 1) == v ? 0 : -1;
    if (a < 0 || arg_node(n, a) == v || n->meta[0].rank != v->meta[0].rank ||
        nnfx_meta_numel(&n->meta[0]) != nnfx_meta_numel(&v->meta[0]))
        return -1;
    return a;
}

/* The chain from Sub d = x - mean back to x, checked: fills m->x and the
 * first two nodes. */
static bool match_centre(const fx_ln_env *env, const nnfx_node *d, fx_ln_match *m) {
    const nnfx_node *x = arg_node(d, 0), *mean = arg_node(d, 1);
    if (!x || !mean || !call_of(env, d, NNFX_OP_SUB, 2) || x->meta[0].dtype != NNFX_F32 ||
        !nnfx_meta_is_static(&x->meta[0]) || !same_meta_shape(&x->meta[0], &d->meta[0]) || mean->nusers != 1 ||
        !mean_of_last(env, mean, x))
        return false;
    m->x = x;
    m->nodes[0] = mean, m->nodes[1] = d;
    return true;
}

bool fx_layernorm_match(const fx_ln_env *env, const nnfx_node *div, fx_ln_match *m) {
    memset(m, 0, sizeof *m);
    if (!call_of(env, div, NNFX_OP_DIV, 2)) return false;
    const nnfx_node *d = arg_node(div, 0), *sq = arg_node(div, 1);
    if (!d || !sq || !call_of(env, sq, NNFX_OP_SQRT, 1) || sq->nusers != 1 || !match_centre(env, d, m) ||
        !same_meta_shape(&div->meta[0], &d->meta[0]))
        return false;
    const nnfx_node *ae = arg_node(sq, 0);
    float eps, two;
    int ke = -1;
    for (int k = 0; ae && k < 2 && ke < 0; k++)
        if (arg_node(ae, 1 - k) && other_arg(env, ae, NNFX_OP_ADD, arg_node(ae, 1 - k)) == k &&
            scalar_arg(env, ae, k, &eps))
            ke = k;
    if (ke < 0 || ae->nusers != 1) return false;
    const nnfx_node *var = arg_node(ae, 1 - ke), *p2 = var ? arg_node(var, 0) : NULL;
    if (!var || var->nusers != 1 || !p2 || p2->nusers != 1 || !mean_of_last(env, var, p2)) return false;
    bool pow2 = call_of(env, p2, NNFX_OP_POW, 2) && arg_node(p2, 0) == d && scalar_arg(env, p2, 1, &two) && two == 2;
    bool mul2 = call_of(env, p2, NNFX_OP_MUL, 2) && arg_node(p2, 0) == d && arg_node(p2, 1) == d;
    if (!(pow2 || mul2)) return false;
    for (int u = 0; u < d->nusers; u++) /* d is read by the square and the Div alone */
        if (d->users[u] != p2 && d->users[u] != div) return false;
    if (refs_of(div, d) != 1) return false;
    const nnfx_node **c = m->nodes;
    c[2] = p2, c[3] = var, c[4] = ae, c[5] = sq, c[6] = div;
    m->nnodes = 7;
    m->eps = &ae->args[ke];
    int rank = d->meta[0].rank;
    int64_t len = d->meta[0].dims[rank - 1].value;
    const nnfx_node *last = div;
    for (int step = 0; step < 2 && last->nusers == 1; step++) { /* Mul by the scale, then Add of the bias */
        const nnfx_node *u = last->users[0];
        nnfx_op op = step == 0 ? NNFX_OP_MUL : NNFX_OP_ADD;
        int k = other_arg(env, u, op, last);
        if (k < 0 || !row_const(env, u, k, rank, len) || !same_meta_shape(&u->meta[0], &d->meta[0])) {
            if (step == 0) continue; /* no scale: a bias may still follow */
            break;
        }
        *(step == 0 ? &m->scale : &m->bias) = &u->args[k];
        c[m->nnodes++] = last = u;
    }
    return true;
}
