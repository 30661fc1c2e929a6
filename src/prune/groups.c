/* groups.c — dependency groups for structured pruning: channel labels
 * propagated through the graph by op properties (see prune_int.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "ir/ir_int.h"
#include "prune/prune_int.h"

/* Labels one value may carry (channels, or the positions of a flattened
 * [C, H, W]): beyond it a value is not followed and its channels stay. */
#define PR_MAX_LABELS ((int64_t)1 << 22)

/* --- elements, blocks, reasons ------------------------------------------------ */

static bool grow(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap) return true;
    int nc = *cap ? *cap * 2 : 256;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, elem * (size_t)nc);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

static int blk_find(nnfx_prune_analysis *pg, int b) {
    while (pg->bparent[b] != b) {
        pg->bparent[b] = pg->bparent[pg->bparent[b]];
        b = pg->bparent[b];
    }
    return b;
}

int pr_find(nnfx_prune_analysis *pg, int e) {
    while (pg->parent[e] != e) {
        pg->parent[e] = pg->parent[pg->parent[e]];
        e = pg->parent[e];
    }
    return e;
}

static int blk_new(nnfx_prune_analysis *pg, const nnfx_node *n) {
    int cap = pg->capblk;
    if (!grow((void **)&pg->bparent, &cap, pg->nblk + 1, sizeof(int)) ||
        !grow((void **)&pg->bnode, &pg->capblk, pg->nblk + 1, sizeof(nnfx_node *))) {
        pg->oom = true;
        return -1;
    }
    pg->bparent[pg->nblk] = pg->nblk;
    pg->bnode[pg->nblk] = n;
    return pg->nblk++;
}

static int el_new(nnfx_prune_analysis *pg, int blk) {
    int c1 = pg->capel, c2 = pg->capel;
    if (!grow((void **)&pg->parent, &c1, pg->nel + 1, sizeof(int)) ||
        !grow((void **)&pg->eblock, &c2, pg->nel + 1, sizeof(int)) ||
        !grow((void **)&pg->ereason, &pg->capel, pg->nel + 1, sizeof(int))) {
        pg->oom = true;
        return -1;
    }
    pg->parent[pg->nel] = pg->nel;
    pg->eblock[pg->nel] = blk;
    pg->ereason[pg->nel] = -1;
    return pg->nel++;
}

static void el_union(nnfx_prune_analysis *pg, int a, int b) {
    if (a < 0 || b < 0) return;
    a = pr_find(pg, a);
    b = pr_find(pg, b);
    if (a == b) return;
    if (pg->ereason[a] == -1) pg->ereason[a] = pg->ereason[b]; /* blocked wins */
    pg->parent[b] = a;
    int ba = blk_find(pg, pg->eblock[a]), bb = blk_find(pg, pg->eblock[b]);
    if (ba != bb) pg->bparent[bb] = ba;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
reason(nnfx_prune_analysis *pg, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = pg->nreason - 1; i >= 0 && i >= pg->nreason - 4; i--)
        if (strcmp(pg->reasons[i], buf) == 0) return i;
    char *s = strdup(buf);
    if (!s || !grow((void **)&pg->reasons, &pg->capreason, pg->nreason + 1, sizeof(char *))) {
        free(s);
        pg->oom = true;
        return -1;
    }
    pg->reasons[pg->nreason] = s;
    return pg->nreason++;
}

static void el_block(nnfx_prune_analysis *pg, int e, int why) {
    if (e < 0) return;
    e = pr_find(pg, e);
    if (pg->ereason[e] == -1) pg->ereason[e] = why < 0 ? -2 : why;
}

/* --- labelled values ------------------------------------------------------------ */

pr_val *pr_val_of(const nnfx_prune_analysis *pg, const nnfx_node *n, int i) {
    (void)pg;
    if (!n || !n->pass_data || i < 0 || i >= n->nout) return NULL;
    return &((pr_val *)n->pass_data)[i];
}

static bool tracked(const pr_val *v) { return v && v->lab && v->hi > v->lo; }

static void val_clear(pr_val *v) {
    free(v->lab);
    v->lab = NULL;
    v->lo = v->hi = v->paxis = 0;
    v->n = 0;
}

static void val_block(nnfx_prune_analysis *pg, pr_val *v, int why) {
    if (!tracked(v)) return;
    for (int64_t i = 0; i < v->n; i++)
        el_block(pg, v->lab[i], why);
}

static int64_t prod(const int64_t *d, int a, int b) {
    int64_t p = 1;
    for (int i = a; i < b; i++)
        p *= d[i];
    return p;
}

/* Gives v's labels to range [lo, hi) with lab (taken). */
static void val_set(pr_val *v, int lo, int hi, int paxis, int *lab) {
    free(v->lab);
    v->lo = lo;
    v->hi = hi;
    v->paxis = paxis;
    v->n = prod(v->dims, lo, hi);
    v->lab = lab;
}

/* Fresh channels along `axis` of v, in a new block created by n. */
static bool val_fresh(nnfx_prune_analysis *pg, pr_val *v, int axis, const nnfx_node *n, int why) {
    /* more channels than any real layer has: not followed (the labels
     * would cost memory and time per channel) */
    if (v->rank <= axis || v->dims[axis] <= 0 || v->dims[axis] > PR_MAX_LABELS) return false;
    int b = blk_new(pg, n);
    int *lab = malloc(sizeof *lab * (size_t)v->dims[axis]);
    if (b < 0 || !lab) {
        free(lab);
        pg->oom = true;
        return false;
    }
    for (int64_t i = 0; i < v->dims[axis]; i++) {
        lab[i] = el_new(pg, b);
        if (why >= 0) el_block(pg, lab[i], why);
    }
    val_set(v, axis, axis + 1, axis, lab);
    return true;
}

static int *lab_dup(nnfx_prune_analysis *pg, const pr_val *v) {
    int *lab = malloc(sizeof *lab * (size_t)(v->n ? v->n : 1));
    if (!lab) {
        pg->oom = true;
        return NULL;
    }
    memcpy(lab, v->lab, sizeof *lab * (size_t)v->n);
    return lab;
}

int pr_label_at(const pr_val *v, int64_t pos) {
    if (!tracked(v) || pos < 0 || pos >= v->dims[v->paxis]) return -1;
    return v->lab[pos * prod(v->dims, v->paxis + 1, v->hi)];
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Joins, for every index along paxis, the labels of all positions that
 * share it: channels of a multi-dim range are removed along paxis only. */
static void val_fold(nnfx_prune_analysis *pg, pr_val *v) {
    if (v->hi - v->lo <= 1) return;
    /* paxis: the dim along which the labels vary most (channel shuffle's
     * [g, C/g]: C/g; an unflattened [C, H, W]: C) */
    int best = v->lo;
    int64_t best_n = -1;
    for (int d = v->lo; d < v->hi; d++) {
        /* distinct label classes along d: sorted roots (n log n, not n^2) */
        int64_t stride = prod(v->dims, d + 1, v->hi), distinct = 0, D = v->dims[d];
        int *roots = malloc(sizeof *roots * (size_t)(D > 0 ? D : 1));
        if (!roots) {
            pg->oom = true;
            return;
        }
        for (int64_t i = 0; i < D; i++)
            roots[i] = pr_find(pg, v->lab[i * stride]);
        qsort(roots, (size_t)D, sizeof *roots, cmp_int);
        for (int64_t i = 0; i < D; i++)
            distinct += i == 0 || roots[i] != roots[i - 1];
        free(roots);
        if (distinct >= best_n) {
            best = d;
            best_n = distinct;
        }
    }
    v->paxis = best;
    int64_t inner = prod(v->dims, best + 1, v->hi), pd = v->dims[best];
    for (int64_t i = 0; i < v->n; i++) {
        int64_t p = (i / inner) % pd;
        el_union(pg, v->lab[p * inner], v->lab[i]);
    }
}

/* True when v's labels do not depend on the coordinate along dim d. */
static bool lab_constant_along(const pr_val *v, int d) {
    int64_t stride = prod(v->dims, d + 1, v->hi), D = v->dims[d];
    for (int64_t i = 0; i < v->n; i++)
        if (v->lab[i] != v->lab[i - ((i / stride) % D) * stride]) return false;
    return true;
}

/* Drops leading and trailing tracked dims the labels do not depend on
 * (an unflattened [C, H, W] is tracked on C alone). */
static void val_narrow(nnfx_prune_analysis *pg, pr_val *v) {
    int lo = v->lo, hi = v->hi;
    while (hi - lo > 1 && lab_constant_along(v, hi - 1)) {
        int64_t D = v->dims[hi - 1], m = 0;
        for (int64_t i = 0; i < v->n; i += D)
            v->lab[m++] = v->lab[i];
        v->n = m;
        v->hi = --hi;
    }
    while (hi - lo > 1 && lab_constant_along(v, lo)) {
        v->n /= v->dims[lo]; /* the first block is coordinate 0 along lo */
        v->lo = ++lo;
    }
    if (v->paxis < lo) v->paxis = lo;
    if (v->paxis >= hi) v->paxis = hi - 1;
    (void)pg;
}

/* Reinterprets src's labels for dst (same element count, row-major). */
static bool map_reshape(nnfx_prune_analysis *pg, const pr_val *src, pr_val *dst) {
    int64_t suffix = prod(src->dims, src->hi, src->rank), block = src->n;
    int b = dst->rank;
    while (b > 0 && suffix % prod(dst->dims, b - 1, dst->rank) == 0)
        b--;
    int a = b;
    while (a >= 0 && prod(dst->dims, a, dst->rank) % (block * suffix) != 0)
        a--;
    if (a < 0 || a >= b) return false;
    int64_t sout = prod(dst->dims, b, dst->rank), n = prod(dst->dims, a, b);
    if (n > PR_MAX_LABELS) return false; /* not followed: the caller blocks the channels */
    int *lab = malloc(sizeof *lab * (size_t)n);
    if (!lab) {
        pg->oom = true;
        return false;
    }
    for (int64_t m = 0; m < n; m++)
        lab[m] = src->lab[((m * sout) / suffix) % block];
    val_set(dst, a, b, a, lab);
    val_narrow(pg, dst);
    val_fold(pg, dst);
    return true;
}

/* dst's dims [lo, hi) equal src's: dst gets src's labels. */
static bool val_pass(nnfx_prune_analysis *pg, const pr_val *src, pr_val *dst) {
    if (!tracked(src)) return true;
    if (dst->rank != src->rank) return false;
    for (int d = src->lo; d < src->hi; d++)
        if (dst->dims[d] != src->dims[d]) return false;
    int *lab = lab_dup(pg, src);
    if (!lab) return false;
    val_set(dst, src->lo, src->hi, src->paxis, lab);
    return true;
}

/* --- parameters -------------------------------------------------------------------- */

static const nnfx_node *param_arg(const nnfx_node *n, int i) {
    const nnfx_node *a = i < n->nargs && n->args[i].kind == NNFX_ARG_NODE ? n->args[i].u.node : NULL;
    return a && a->opcode == NNFX_GET_ATTR ? a : NULL;
}

static nnfx_tensor *param_tensor(const nnfx_node *a) { return a ? nnfx_graph_param(a->graph, a->target) : NULL; }

/* Records that input `arg` of n, a parameter, shrinks along `axis` with
 * the channels of value (vn, vout) from `offset` on. */
static void add_member(nnfx_prune_analysis *pg, const nnfx_node *n, int arg, int axis, const nnfx_node *vn, int vout,
                       int64_t offset, int kind) {
    const nnfx_node *pa = param_arg(n, arg);
    nnfx_tensor *t = param_tensor(pa);
    if (!t || axis >= t->rank) return;
    if (!grow((void **)&pg->mem, &pg->capmem, pg->nmem + 1, sizeof *pg->mem)) {
        pg->oom = true;
        return;
    }
    pr_member *m = &pg->mem[pg->nmem++];
    m->node = n;
    m->arg = arg;
    m->shared = m->dup = false;
    m->param = pa->target;
    m->axis = axis;
    m->size = t->shape[axis];
    m->vnode = vn;
    m->vout = vout;
    m->offset = offset;
    m->kind = kind;
}

/* Reads an int64 parameter input into v (up to max); -1 when it is not one. */
static int param_ints(const nnfx_node *n, int i, int64_t *v, int max) {
    nnfx_tensor *t = param_tensor(param_arg(n, i));
    if (!t || (t->dtype != NNFX_I64 && t->dtype != NNFX_I32)) return -1;
    int64_t k = nnfx_tensor_numel(t);
    if (k > max) return -1;
    for (int64_t j = 0; j < k; j++)
        v[j] = core_tensor_get_i64(t, j);
    return (int)k;
}

/* --- the rules, one per kind of op ------------------------------------------------------ */

static int norm_axis(int64_t a, int rank) { return (int)(a < 0 ? a + rank : a); }

/* Blocks the labels of every node input of n. */
static void block_inputs(nnfx_prune_analysis *pg, const nnfx_node *n, int why) {
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].kind == NNFX_ARG_NODE) {
            const nnfx_node *a = n->args[i].u.node;
            for (int k = 0; k < a->nout; k++)
                val_block(pg, pr_val_of(pg, a, k), why);
        }
}

static pr_val *in_val(const nnfx_prune_analysis *pg, const nnfx_node *n, int i) {
    if (i >= n->nargs || n->args[i].kind != NNFX_ARG_NODE) return NULL;
    return pr_val_of(pg, n->args[i].u.node, 0);
}

static int not_followed(nnfx_prune_analysis *pg, const nnfx_node *n, const char *what) {
    return reason(pg, "%%%s (%s) %s", n->name, nnfx_op_onnx_type(n->op)[0] ? nnfx_op_onnx_type(n->op) : n->target,
                  what);
}

static void rule_conv(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    const nnfx_node *w = param_arg(n, 1), *b = param_arg(n, 2);
    nnfx_tensor *wt = param_tensor(w);
    bool has_b = n->nargs > 2 && n->args[2].kind == NNFX_ARG_NODE;
    if (!wt || (has_b && !b) || !x || x->rank < 3) {
        block_inputs(pg, n, not_followed(pg, n, "has a weight or bias that is not a parameter"));
        val_fresh(pg, out, 1, n, not_followed(pg, n, "has a weight or bias that is not a parameter"));
        return;
    }
    int64_t cin = x->dims[1], groups = nnfx_node_attr_int(n, "group", 1), cout = out->dims[1];
    if (tracked(x) && (x->lo != 1 || x->hi != 2)) {
        val_block(pg, x, not_followed(pg, n, "reads channels that are not on axis 1"));
        val_clear(x);
    }
    if (groups == cin && groups > 1) { /* depthwise: output o reads input o / mult */
        int64_t mult = cout / cin;
        if (!tracked(x)) val_fresh(pg, x, 1, n, reason(pg, "%%%s: depthwise input without channels", n->name));
        int *lab = malloc(sizeof *lab * (size_t)cout);
        if (!lab) {
            pg->oom = true;
            return;
        }
        for (int64_t o = 0; o < cout; o++)
            lab[o] = x->lab[o / mult];
        val_set(out, 1, 2, 1, lab);
    } else {
        /* grouped: the same local index goes in every group, in and out */
        val_fresh(pg, out, 1, n, -1);
        int64_t cg = cin / groups, og = cout / groups;
        for (int64_t k = 1; k < groups; k++) {
            for (int64_t j = 0; j < cg && tracked(x); j++)
                el_union(pg, x->lab[j], x->lab[k * cg + j]);
            for (int64_t j = 0; j < og && tracked(out); j++)
                el_union(pg, out->lab[j], out->lab[k * og + j]);
        }
        if (tracked(x)) add_member(pg, n, 1, 1, n->args[0].u.node, 0, 0, PR_CONSUMER);
    }
    add_member(pg, n, 1, 0, n, 0, 0, PR_PRODUCER);
    if (b) add_member(pg, n, 2, 0, n, 0, 0, PR_PRODUCER);
}

static void rule_gemm(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *a = in_val(pg, n, 0);
    const nnfx_node *w = param_arg(n, 1), *c = param_arg(n, 2);
    bool matmul = n->op == NNFX_OP_MATMUL;
    nnfx_tensor *wt = param_tensor(w);
    bool ta = !matmul && nnfx_node_attr_int(n, "transA", 0), tb = !matmul && nnfx_node_attr_int(n, "transB", 0);
    bool has_c = n->nargs > 2 && n->args[2].kind == NNFX_ARG_NODE;
    if (!a || !wt || wt->rank != 2 || ta || (has_c && !c) || a->rank < 2) {
        int why = not_followed(pg, n, "has a computed weight, bias or transposed input");
        block_inputs(pg, n, why);
        if (out->rank >= 2) val_fresh(pg, out, out->rank - 1, n, why);
        return;
    }
    int last = a->rank - 1;
    if (tracked(a)) {
        if (a->lo == last && a->hi == last + 1)
            add_member(pg, n, 1, tb ? 1 : 0, n->args[0].u.node, 0, 0, PR_CONSUMER);
        else
            val_block(pg, a, not_followed(pg, n, "reads channels that are not on its last axis"));
    }
    val_fresh(pg, out, out->rank - 1, n, -1);
    add_member(pg, n, 1, tb ? 0 : 1, n, 0, 0, PR_PRODUCER);
    nnfx_tensor *ct = param_tensor(c);
    if (ct && ct->rank >= 1 && ct->shape[ct->rank - 1] > 1) add_member(pg, n, 2, ct->rank - 1, n, 0, 0, PR_PRODUCER);
}

static void rule_batch_norm(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    for (int i = 1; i < 5; i++)
        if (!param_arg(n, i)) {
            block_inputs(pg, n, not_followed(pg, n, "has statistics that are not parameters"));
            return;
        }
    if (!tracked(x)) return;
    if (x->lo != 1 || x->hi != 2 || !val_pass(pg, x, out)) {
        val_block(pg, x, not_followed(pg, n, "normalises channels that are not on axis 1"));
        val_clear(out);
        return;
    }
    for (int i = 1; i < 5; i++)
        add_member(pg, n, i, 0, n, 0, 0, i == 1 ? PR_BN_SCALE : PR_OTHER);
}

/* Broadcasting element-wise ops: labels of the inputs land on the same
 * output positions and are joined; parameters are sliced along them. */
static void rule_broadcast(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    int R = out->rank;
    const pr_val *first = NULL;
    int shift_first = 0;
    for (int i = 0; i < n->nargs; i++) {
        pr_val *v = param_arg(n, i) ? NULL : in_val(pg, n, i);
        if (!tracked(v)) continue;
        if (!first) {
            first = v;
            shift_first = R - v->rank;
        }
    }
    if (!first) return;
    int lo = first->lo + shift_first, hi = first->hi + shift_first;
    int *lab = NULL;
    for (int d = lo; d < hi; d++)
        if (out->dims[d] != first->dims[d - shift_first]) goto block;
    lab = lab_dup(pg, first);
    if (!lab) return;
    val_set(out, lo, hi, first->paxis + shift_first, lab);
    for (int i = 0; i < n->nargs; i++) {
        if (n->args[i].kind != NNFX_ARG_NODE) continue;
        const nnfx_node *pa = param_arg(n, i);
        pr_val *v = in_val(pg, n, i);
        if (!v || v->rank < 0) goto block;
        int sh = R - v->rank;
        bool broadcast = true; /* size 1 (or absent) on every tracked dim */
        for (int d = lo; d < hi; d++)
            if (d - sh >= 0 && v->dims[d - sh] != 1) broadcast = false;
        if (broadcast) continue;
        if (pa) {
            if (hi - lo != 1 || lo - sh < 0) goto block;
            add_member(pg, n, i, lo - sh, n, 0, 0, PR_OTHER);
            continue;
        }
        if (v == first) continue;
        if (!tracked(v) || v->lo + sh != lo || v->hi + sh != hi) goto block;
        for (int64_t k = 0; k < out->n; k++)
            el_union(pg, out->lab[k], v->lab[k]);
    }
    return;
block:;
    int why = not_followed(pg, n, "combines channels with values whose channels are not followed");
    block_inputs(pg, n, why);
    val_block(pg, out, why);
    val_clear(out);
}

static void rule_concat(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    int ax = norm_axis(nnfx_node_attr_int(n, "axis", 0), out->rank);
    bool any = false;
    for (int i = 0; i < n->nargs; i++)
        if (tracked(in_val(pg, n, i))) any = true;
    if (!any) return;
    int why = not_followed(pg, n, "concatenates values whose channels are not followed");
    int *lab = malloc(sizeof *lab * (size_t)(out->dims[ax] > 0 ? out->dims[ax] : 1));
    if (!lab) {
        pg->oom = true;
        return;
    }
    int64_t at = 0;
    for (int i = 0; i < n->nargs; i++) {
        pr_val *v = in_val(pg, n, i);
        if (!v || v->rank != out->rank) goto block;
        if (!tracked(v) && !val_fresh(pg, v, ax, n, why)) goto block;
        if (v->lo != ax || v->hi != ax + 1) goto block;
        memcpy(lab + at, v->lab, sizeof *lab * (size_t)v->n);
        at += v->n;
    }
    if (at != out->dims[ax]) goto block;
    val_set(out, ax, ax + 1, ax, lab);
    return;
block:
    free(lab);
    block_inputs(pg, n, why);
}

/* Split and Slice along the tracked axis: each output keeps its part. */
static void rule_split(nnfx_prune_analysis *pg, const nnfx_node *n) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    int ax = norm_axis(nnfx_node_attr_int(n, "axis", 0), x->rank);
    if (ax < x->lo || ax >= x->hi) {
        for (int k = 0; k < n->nout; k++)
            if (!val_pass(pg, x, pr_val_of(pg, n, k))) goto block;
        return;
    }
    if (x->hi - x->lo != 1) goto block;
    int64_t at = 0;
    for (int k = 0; k < n->nout; k++) {
        pr_val *o = pr_val_of(pg, n, k);
        int *lab = malloc(sizeof *lab * (size_t)(o->dims[ax] > 0 ? o->dims[ax] : 1));
        if (!lab) {
            pg->oom = true;
            return;
        }
        memcpy(lab, x->lab + at, sizeof *lab * (size_t)o->dims[ax]);
        val_set(o, ax, ax + 1, ax, lab);
        at += o->dims[ax];
    }
    if (n->nargs > 1 && n->args[1].kind == NNFX_ARG_NODE && !param_arg(n, 1)) goto block;
    return;
block:
    val_block(pg, x, not_followed(pg, n, "splits channels in a way pruning does not follow"));
    for (int k = 0; k < n->nout; k++)
        val_clear(pr_val_of(pg, n, k));
}

static void rule_slice(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], axes[NNFX_MAX_RANK], steps[NNFX_MAX_RANK];
    int k = param_ints(n, 1, st, NNFX_MAX_RANK);
    int why = not_followed(pg, n, "slices channels with bounds that are not constant, or with a step");
    if (k < 0 || param_ints(n, 2, en, NNFX_MAX_RANK) != k) goto block;
    for (int i = 0; i < k; i++)
        axes[i] = i, steps[i] = 1;
    if (n->nargs > 3 && n->args[3].kind == NNFX_ARG_NODE && param_ints(n, 3, axes, NNFX_MAX_RANK) != k) goto block;
    if (n->nargs > 4 && n->args[4].kind == NNFX_ARG_NODE && param_ints(n, 4, steps, NNFX_MAX_RANK) != k) goto block;
    int64_t lo = 0;
    bool on = false;
    for (int i = 0; i < k; i++) {
        int a = norm_axis(axes[i], x->rank);
        if (a < x->lo || a >= x->hi) continue;
        if (x->hi - x->lo != 1 || steps[i] != 1) goto block;
        int64_t d = x->dims[a], s = st[i] < 0 ? st[i] + d : st[i];
        lo = s < 0 ? 0 : (s > d ? d : s);
        on = true;
    }
    if (!on) {
        if (!val_pass(pg, x, out)) goto block;
        return;
    }
    int *lab = malloc(sizeof *lab * (size_t)(out->dims[x->lo] > 0 ? out->dims[x->lo] : 1));
    if (!lab) {
        pg->oom = true;
        return;
    }
    memcpy(lab, x->lab + lo, sizeof *lab * (size_t)out->dims[x->lo]);
    val_set(out, x->lo, x->hi, x->lo, lab);
    return;
block:
    val_block(pg, x, why);
}

static void rule_transpose(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    const nnfx_attr *pa = nnfx_node_attr(n, "perm");
    int r = x->rank, perm[NNFX_MAX_RANK], inv[NNFX_MAX_RANK];
    for (int i = 0; i < r; i++)
        perm[i] = pa && pa->u.ints.n == r ? (int)pa->u.ints.v[i] : r - 1 - i;
    for (int i = 0; i < r; i++)
        inv[perm[i]] = i;
    int olo = r, ohi = 0;
    for (int d = x->lo; d < x->hi; d++) {
        if (inv[d] < olo) olo = inv[d];
        if (inv[d] + 1 > ohi) ohi = inv[d] + 1;
    }
    int64_t n_out = prod(out->dims, olo, ohi);
    int *lab = malloc(sizeof *lab * (size_t)n_out);
    if (!lab) {
        pg->oom = true;
        return;
    }
    for (int64_t m = 0; m < n_out; m++) {
        int64_t rem = m, coord[NNFX_MAX_RANK] = {0};
        for (int d = ohi - 1; d >= olo; d--) {
            coord[d] = rem % out->dims[d];
            rem /= out->dims[d];
        }
        int64_t idx = 0;
        for (int d = x->lo; d < x->hi; d++)
            idx = idx * x->dims[d] + coord[inv[d]];
        lab[m] = x->lab[idx];
    }
    val_set(out, olo, ohi, inv[x->paxis], lab);
}

static void rule_reduce(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    int64_t axes[NNFX_MAX_RANK];
    int k = n->nargs > 1 && n->args[1].kind == NNFX_ARG_NODE ? param_ints(n, 1, axes, NNFX_MAX_RANK) : -1;
    const nnfx_attr *aa = nnfx_node_attr(n, "axes");
    if (k < 0 && aa && aa->kind == NNFX_ATTR_INTS && aa->u.ints.n <= NNFX_MAX_RANK) {
        k = aa->u.ints.n;
        for (int i = 0; i < k; i++)
            axes[i] = aa->u.ints.v[i];
    }
    bool keep = nnfx_node_attr_int(n, "keepdims", 1) != 0;
    bool ok = k > 0;
    for (int i = 0; i < k; i++) {
        int a = norm_axis(axes[i], x->rank);
        if ((a >= x->lo && a < x->hi) || (!keep && a < x->hi)) ok = false;
    }
    if (!ok || !val_pass(pg, x, out)) val_block(pg, x, not_followed(pg, n, "reduces over the channel axis"));
}

static void rule_reshape(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    if (n->op == NNFX_OP_RESHAPE && !param_arg(n, 1)) {
        val_block(pg, x, not_followed(pg, n, "has a computed target shape"));
        return;
    }
    if (!map_reshape(pg, x, out)) val_block(pg, x, not_followed(pg, n, "reshapes channels in a way not followed"));
}

/* Softmax-like ops over one axis (LayerNormalization: from that axis on). */
static void rule_axis_op(nnfx_prune_analysis *pg, const nnfx_node *n, pr_val *out) {
    pr_val *x = in_val(pg, n, 0);
    if (!tracked(x)) return;
    int a = norm_axis(nnfx_node_attr_int(n, "axis", -1), x->rank);
    int end = n->op == NNFX_OP_LAYER_NORM ? x->rank : a + 1;
    bool ok = end <= x->lo || a >= x->hi;
    for (int i = 2; i < n->nargs && ok; i++) /* LayerNorm's scale, bias cover [a, rank) */
        if (n->op == NNFX_OP_LAYER_NORM && n->args[i].kind == NNFX_ARG_NODE) ok = a >= x->hi;
    if (!ok || !val_pass(pg, x, out)) val_block(pg, x, not_followed(pg, n, "normalises over the channel axis"));
}

static void visit(nnfx_prune_analysis *pg, nnfx_node *n) {
    pr_val *out = pr_val_of(pg, n, 0);
    if (n->opcode == NNFX_PLACEHOLDER) {
        if (out->rank >= 2) val_fresh(pg, out, 1, n, reason(pg, "channels of the graph input %%%s", n->name));
        return;
    }
    if (n->opcode == NNFX_GET_ATTR) return;
    if (n->opcode == NNFX_OUTPUT) {
        block_inputs(pg, n, -2);
        return;
    }
    if (n->opcode == NNFX_CALL_MODULE) {
        block_inputs(pg, n, reason(pg, "%%%s is a user leaf function", n->name));
        return;
    }
    for (int k = 0; k < n->nout; k++)
        if (!nnfx_meta_is_static(&n->meta[k])) {
            block_inputs(pg, n, reason(pg, "%%%s has a shape that is not static", n->name));
            return;
        }
    unsigned f = nnfx_op_flags(n->op);
    pr_val *x = in_val(pg, n, 0);
    switch (n->op) {
    case NNFX_OP_CONV: rule_conv(pg, n, out); return;
    case NNFX_OP_GEMM:
    case NNFX_OP_MATMUL: rule_gemm(pg, n, out); return;
    case NNFX_OP_BATCH_NORM: rule_batch_norm(pg, n, out); return;
    case NNFX_OP_CONCAT: rule_concat(pg, n, out); return;
    case NNFX_OP_SPLIT: rule_split(pg, n); return;
    case NNFX_OP_SLICE: rule_slice(pg, n, out); return;
    case NNFX_OP_TRANSPOSE: rule_transpose(pg, n, out); return;
    case NNFX_OP_FLATTEN:
    case NNFX_OP_RESHAPE:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE: rule_reshape(pg, n, out); return;
    case NNFX_OP_SOFTMAX:
    case NNFX_OP_LOG_SOFTMAX:
    case NNFX_OP_HARDMAX:
    case NNFX_OP_LAYER_NORM: rule_axis_op(pg, n, out); return;
    case NNFX_OP_REDUCE_MEAN:
    case NNFX_OP_REDUCE_SUM:
    case NNFX_OP_REDUCE_MAX:
    case NNFX_OP_REDUCE_MIN: rule_reduce(pg, n, out); return;
    case NNFX_OP_GETITEM: {
        const nnfx_node *t = nnfx_node_arg_node(n, 0);
        nnfx_arg ia = nnfx_node_arg(n, 1);
        pr_val *src = t && ia.kind == NNFX_ARG_INT ? pr_val_of(pg, t, (int)ia.u.i) : NULL;
        if (src && !val_pass(pg, src, out)) val_block(pg, src, reason(pg, "%%%s: shape mismatch", n->name));
        return;
    }
    default: break;
    }
    if (f & NNFX_F_BROADCAST || n->op == NNFX_OP_PRELU) {
        rule_broadcast(pg, n, out);
        return;
    }
    if (f & (NNFX_F_ELEMENTWISE | NNFX_F_NOOP | NNFX_F_CHANNEL_WISE | NNFX_F_ACTIVATION) || n->op == NNFX_OP_CAST) {
        for (int i = 1; i < n->nargs; i++) /* Clip bounds, Pad/Resize parameters: no channels */
            if (n->args[i].kind == NNFX_ARG_NODE && tracked(in_val(pg, n, i)))
                val_block(pg, in_val(pg, n, i), not_followed(pg, n, "takes channels as a second input"));
        if (!val_pass(pg, x, out)) val_block(pg, x, not_followed(pg, n, "changes the size of the channel axis"));
        return;
    }
    block_inputs(pg, n, not_followed(pg, n, "is not followed by pruning"));
}

/* --- shared parameters ---------------------------------------------------------------- */

/* One read of a parameter: input `arg` of `node`. */
typedef struct pr_use {
    const char *param;
    const nnfx_node *node;
    int arg, seq; /* seq: graph order of the reads */
} pr_use;

static int cmp_use(const void *a, const void *b) {
    const pr_use *x = a, *y = b;
    int c = strcmp(x->param, y->param);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_mem(const void *a, const void *b) {
    const pr_member *x = *(const pr_member *const *)a, *y = *(const pr_member *const *)b;
    int c = strcmp(x->param, y->param);
    if (c) return c;
    if (x->axis != y->axis) return x->axis < y->axis ? -1 : 1;
    return (x > y) - (x < y);
}

/* Orders members by the read they come from (node, input). */
static int cmp_read(const void *a, const void *b) {
    const pr_member *x = *(const pr_member *const *)a, *y = *(const pr_member *const *)b;
    uintptr_t p = (uintptr_t)x->node, q = (uintptr_t)y->node;
    if (p != q) return p < q ? -1 : 1;
    return (x->arg > y->arg) - (x->arg < y->arg);
}

/* Blocks every channel position that members mem[0..k) slice. */
static void block_members(nnfx_prune_analysis *pg, pr_member *const *mem, int k, int why) {
    for (int j = 0; j < k; j++) {
        const pr_val *v = pr_val_of(pg, mem[j]->vnode, mem[j]->vout);
        for (int64_t i = 0; i < mem[j]->size; i++)
            el_block(pg, pr_label_at(v, mem[j]->offset + i), why);
    }
}

/* A parameter is one tensor however many ops read it: index i along an
 * axis is removed for every reader or for none. So the members slicing the
 * same parameter along the same axis have their channels at each index
 * joined (their groups become one), and a parameter some read of which is
 * not a member along that axis (a graph output, an op that is not followed,
 * a MatMul reading it as data...) keeps that axis whole: its channels are
 * blocked, with the reader named. */
static void share_params(nnfx_prune_analysis *pg) {
    if (pg->nmem == 0) return;
    int nuse = 0, capuse = 0;
    pr_use *use = NULL;
    pr_member **ord = malloc(sizeof *ord * (size_t)pg->nmem), **rd = malloc(sizeof *rd * (size_t)pg->nmem);
    if (!ord || !rd) goto oom;
    for (int i = 0; i < pg->nnodes; i++) {
        const nnfx_node *n = pg->nodes[i];
        for (int a = 0; a < n->nargs; a++) {
            const nnfx_node *p = n->args[a].kind == NNFX_ARG_NODE ? n->args[a].u.node : NULL;
            if (!p || p->opcode != NNFX_GET_ATTR || !p->target) continue;
            if (!grow((void **)&use, &capuse, nuse + 1, sizeof *use)) goto oom;
            use[nuse] = (pr_use){p->target, n, a, nuse};
            nuse++;
        }
    }
    if (nuse > 1) qsort(use, (size_t)nuse, sizeof *use, cmp_use);
    for (int m = 0; m < pg->nmem; m++)
        ord[m] = &pg->mem[m];
    qsort(ord, (size_t)pg->nmem, sizeof *ord, cmp_mem);
    int u0 = 0;
    for (int s = 0, e; s < pg->nmem; s = e) {
        for (e = s + 1; e < pg->nmem && strcmp(ord[e]->param, ord[s]->param) == 0 && ord[e]->axis == ord[s]->axis; e++)
            ;
        const char *name = ord[s]->param;
        while (u0 < nuse && strcmp(use[u0].param, name) < 0)
            u0++;
        int why = -1;
        /* every read of the parameter must slice it along this axis */
        memcpy(rd, ord + s, sizeof *rd * (size_t)(e - s));
        qsort(rd, (size_t)(e - s), sizeof *rd, cmp_read);
        for (int u = u0; u < nuse && strcmp(use[u].param, name) == 0 && why < 0; u++) {
            pr_member key = {.node = use[u].node, .arg = use[u].arg};
            const pr_member *kp = &key;
            if (bsearch(&kp, rd, (size_t)(e - s), sizeof *rd, cmp_read)) continue;
            const nnfx_node *r = use[u].node;
            if (r->opcode == NNFX_OUTPUT)
                why = reason(pg, "parameter %s is shared with a graph output, so its axis %d keeps its size", name,
                             ord[s]->axis);
            else
                why = reason(pg, "parameter %s is shared with %%%s (%s, input %d), which does not slice its axis %d",
                             name, r->name, nnfx_op_onnx_type(r->op)[0] ? nnfx_op_onnx_type(r->op) : r->target,
                             use[u].arg, ord[s]->axis);
        }
        /* every reader's channels along the axis must be followed */
        for (int j = s; j < e && why < 0 && e - s > 1; j++) {
            const pr_val *v = pr_val_of(pg, ord[j]->vnode, ord[j]->vout);
            for (int64_t i = 0; i < ord[j]->size && why < 0; i++)
                if (pr_label_at(v, ord[j]->offset + i) < 0)
                    why = reason(pg,
                                 "parameter %s is shared with %%%s, whose channels along its axis %d are not followed",
                                 name, ord[j]->node->name, ord[j]->axis);
        }
        if (why >= 0) {
            block_members(pg, ord + s, e - s, why);
            continue;
        }
        const pr_val *v0 = pr_val_of(pg, ord[s]->vnode, ord[s]->vout);
        ord[s]->shared = e - s > 1;
        for (int j = s + 1; j < e; j++) {
            ord[j]->shared = ord[j]->dup = true; /* sliced with ord[s] */
            const pr_val *v = pr_val_of(pg, ord[j]->vnode, ord[j]->vout);
            for (int64_t i = 0; i < ord[s]->size; i++)
                el_union(pg, pr_label_at(v0, ord[s]->offset + i), pr_label_at(v, ord[j]->offset + i));
        }
    }
    free(use);
    free(ord);
    free(rd);
    return;
oom:
    free(use);
    free(ord);
    free(rd);
    pg->oom = true;
}

/* --- the analysis ------------------------------------------------------------------------ */

void nnfx_prune_analysis_free(nnfx_prune_analysis *pg) {
    if (!pg) return;
    for (int i = 0; pg->nodes && pg->vals && i < pg->nnodes; i++) {
        nnfx_node *n = pg->nodes[i];
        if (!n) continue; /* an allocation failed before the list was filled */
        for (int k = 0; pg->vals[i] && k < n->nout; k++)
            free(pg->vals[i][k].lab);
        free(pg->vals[i]);
        if (n->pass_data == pg->vals[i]) n->pass_data = NULL;
    }
    for (int i = 0; pg->groups && i < pg->ngroups; i++) {
        free(pg->groups[i].chan);
        free(pg->groups[i].chan_free);
        free(pg->groups[i].mem);
    }
    for (int i = 0; i < pg->nreason; i++)
        free(pg->reasons[i]);
    free(pg->groups);
    free(pg->el_group);
    free(pg->el_chan);
    free(pg->reasons);
    free(pg->nodes);
    free(pg->vals);
    free(pg->parent);
    free(pg->eblock);
    free(pg->ereason);
    free(pg->bparent);
    free(pg->bnode);
    free(pg->mem);
    free(pg);
}

/* Groups from blocks: channels (element roots) and members per group. */
static bool collect(nnfx_prune_analysis *pg) {
    int *gid = malloc(sizeof *gid * (size_t)(pg->nblk + 1));
    pg->el_group = malloc(sizeof(int) * (size_t)(pg->nel + 1));
    pg->el_chan = malloc(sizeof(int) * (size_t)(pg->nel + 1));
    if (!gid || !pg->el_group || !pg->el_chan) {
        free(gid);
        return false;
    }
    for (int b = 0; b < pg->nblk; b++)
        gid[b] = -1;
    for (int b = 0; b < pg->nblk; b++) {
        int r = blk_find(pg, b);
        if (gid[r] < 0) gid[r] = pg->ngroups++;
    }
    pg->groups = calloc((size_t)(pg->ngroups + 1), sizeof *pg->groups);
    if (!pg->groups) {
        free(gid);
        return false;
    }
    for (int b = 0; b < pg->nblk; b++) {
        pr_group *gr = &pg->groups[gid[blk_find(pg, b)]];
        if (!gr->node) gr->node = pg->bnode[b];
    }
    for (int e = 0; e < pg->nel; e++) {
        pg->el_group[e] = -1;
        if (pr_find(pg, e) == e) pg->el_group[e] = gid[blk_find(pg, pg->eblock[e])];
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < pg->nel; e++) {
            if (pg->el_group[e] < 0) continue;
            pr_group *gr = &pg->groups[pg->el_group[e]];
            if (pass == 1) {
                pg->el_chan[e] = gr->nchan;
                gr->chan[gr->nchan] = e;
                gr->chan_free[gr->nchan] = pg->ereason[e] == -1;
                if (gr->chan_free[gr->nchan]) gr->nfree++;
                if (pg->ereason[e] != -1 && !gr->reason)
                    gr->reason =
                        pg->ereason[e] < 0 ? "its channels reach the graph output" : pg->reasons[pg->ereason[e]];
            }
            gr->nchan++;
        }
        if (pass == 0)
            for (int i = 0; i < pg->ngroups; i++) {
                pr_group *gr = &pg->groups[i];
                gr->chan = malloc(sizeof(int) * (size_t)(gr->nchan + 1));
                gr->chan_free = malloc(sizeof(bool) * (size_t)(gr->nchan + 1));
                gr->mem = malloc(sizeof(int) * (size_t)(pg->nmem + 1));
                if (!gr->chan || !gr->chan_free || !gr->mem) {
                    free(gid);
                    return false;
                }
                gr->nchan = 0;
            }
    }
    /* members: a member belongs to every group one of its positions is in */
    int *seen = calloc((size_t)(pg->ngroups + 1), sizeof *seen);
    if (!seen) {
        free(gid);
        return false;
    }
    for (int m = 0; m < pg->nmem; m++) {
        const pr_member *mb = &pg->mem[m];
        const pr_val *v = pr_val_of(pg, mb->vnode, mb->vout);
        for (int64_t i = 0; i < mb->size; i++) {
            int l = pr_label_at(v, mb->offset + i);
            if (l < 0) continue;
            int gi = pg->el_group[pr_find(pg, l)];
            if (seen[gi] == m + 1) continue;
            seen[gi] = m + 1;
            pg->groups[gi].mem[pg->groups[gi].nmem++] = m;
        }
    }
    free(seen);
    free(gid);
    return true;
}

nnfx_prune_analysis *nnfx_prune_groups(nnfx_graph *g, int nexclude, const char *const *exclude, nnfx_error *err) {
    if (!g) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune_groups: NULL graph");
        return NULL;
    }
    for (int i = 0; i < nexclude; i++)
        if (!exclude || !exclude[i] || !nnfx_graph_find(g, exclude[i])) {
            nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "prune: --exclude names node '%s', which the graph does not have",
                           exclude && exclude[i] ? exclude[i] : "(null)");
            return NULL;
        }
    /* with static inputs, shape computations (Shape -> Gather -> Slice, as
     * exporters write torch.chunk) become constants the analysis follows */
    bool static_inputs = true;
    for (int i = 0; i < nnfx_graph_num_inputs(g); i++)
        static_inputs &= nnfx_meta_is_static(nnfx_node_meta_c(nnfx_graph_input(g, i), 0));
    if (static_inputs && nnfx_pass_fold_constants(g, NULL, err)) return NULL;
    /* symbolic input dims (a dynamic batch) count as 1 for the analysis:
     * channel counts do not depend on them; the metas are restored after */
    int nin = nnfx_graph_num_inputs(g);
    nnfx_meta *saved = calloc((size_t)nin + 1, sizeof *saved);
    if (!saved) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    bool pinned = false;
    for (int i = 0; i < nin; i++) {
        nnfx_node *p = nnfx_graph_input(g, i);
        saved[i] = *nnfx_node_meta_c(p, 0);
        if (saved[i].rank < 0 || nnfx_meta_is_static(&saved[i])) continue;
        nnfx_meta *m = nnfx_node_meta(p, 0);
        for (int d = 0; d < m->rank; d++)
            if (m->dims[d].value < 0) {
                m->dims[d].value = 1;
                m->dims[d].symbol = NULL;
            }
        pinned = true;
    }
    nnfx_prune_analysis *pg = NULL;
    if (nnfx_graph_infer_shapes(g, err)) {
        nnfx_error_prefix(err, "prune: shapes");
        goto restore;
    }
    pg = calloc(1, sizeof *pg);
    if (!pg) goto oom;
    pg->g = g;
    pg->nnodes = g->num_nodes;
    pg->nodes = calloc((size_t)pg->nnodes + 1, sizeof *pg->nodes);
    pg->vals = calloc((size_t)pg->nnodes + 1, sizeof *pg->vals);
    if (!pg->nodes || !pg->vals) goto oom;
    int i = 0;
    for (nnfx_node *n = g->head; n && i < pg->nnodes; n = n->next, i++) {
        pg->nodes[i] = n;
        pg->vals[i] = calloc((size_t)n->nout, sizeof(pr_val));
        if (!pg->vals[i]) goto oom;
        for (int k = 0; k < n->nout; k++) {
            pr_val *v = &pg->vals[i][k];
            v->rank = n->meta[k].rank;
            if (!nnfx_meta_is_static(&n->meta[k])) v->rank = -1;
            for (int d = 0; d < v->rank; d++)
                v->dims[d] = n->meta[k].dims[d].value;
        }
        n->pass_data = pg->vals[i];
    }
    pg->nnodes = i;
    for (i = 0; i < pg->nnodes && !pg->oom; i++)
        visit(pg, pg->nodes[i]);
    if (!pg->oom) share_params(pg);
    for (int x = 0; x < nexclude && !pg->oom; x++) {
        nnfx_node *n = nnfx_graph_find(g, exclude[x]);
        int why = reason(pg, "%%%s is excluded", n->name);
        for (int k = 0; k < n->nout; k++)
            val_block(pg, pr_val_of(pg, n, k), why);
        for (int m = 0; m < pg->nmem; m++) /* its input channels too */
            if (pg->mem[m].node == n) {
                const pr_val *v = pr_val_of(pg, pg->mem[m].vnode, pg->mem[m].vout);
                for (int64_t p = 0; p < pg->mem[m].size; p++)
                    el_block(pg, pr_label_at(v, pg->mem[m].offset + p), why);
            }
    }
    if (pg->oom || !collect(pg)) goto oom;
    goto restore;
oom:
    nnfx_prune_analysis_free(pg);
    pg = NULL;
    nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory analysing channel dependencies");
restore:
    if (pinned) {
        for (int k = 0; k < nin; k++)
            *nnfx_node_meta(nnfx_graph_input(g, k), 0) = saved[k];
        nnfx_graph_infer_shapes(g, NULL); /* uses pass_data as scratch */
        for (int k = 0; pg && k < pg->nnodes; k++)
            pg->nodes[k]->pass_data = pg->vals[k];
    }
    free(saved);
    return pg;
}

int nnfx_prune_num_groups(const nnfx_prune_analysis *a) { return a ? a->ngroups : 0; }

bool nnfx_prune_group_get(const nnfx_prune_analysis *a, int i, nnfx_prune_group_info *info) {
    if (!a || !info || i < 0 || i >= a->ngroups) return false;
    const pr_group *gr = &a->groups[i];
    info->name = gr->node ? gr->node->name : "";
    info->channels = gr->nchan;
    info->prunable = gr->nfree;
    info->reason = gr->reason ? gr->reason : "";
    info->nmembers = gr->nmem;
    return true;
}

bool nnfx_prune_group_member(const nnfx_prune_analysis *a, int i, int k, nnfx_prune_member_info *m) {
    if (!a || !m || i < 0 || i >= a->ngroups || k < 0 || k >= a->groups[i].nmem) return false;
    const pr_member *mb = &a->mem[a->groups[i].mem[k]];
    m->node = mb->node->name;
    m->param = mb->param;
    m->axis = mb->axis;
    m->size = mb->size;
    m->value = mb->vnode->name;
    m->offset = mb->offset;
    m->role = mb->kind;
    m->shared = mb->shared;
    return true;
}
