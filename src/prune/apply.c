/* apply.c — structured pruning: scores channels, chooses the ones to
 * remove (per group or across groups), slices every parameter member,
 * rewrites the ops whose attributes or constant inputs count channels
 * (Reshape, Split, Slice, depthwise Conv), and reports MACs and
 * parameters per group. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "ir/ir_int.h"
#include "passes/passes_int.h"
#include "prune/prune_int.h"

typedef struct pr_plan {
    nnfx_prune_analysis *pg;
    int *off, *cnt; /* per element root: its slices in sl[off..off+cnt) */
    nnfx_prune_slice *sl;
    double *score; /* per element root */
    bool *removed; /* per element root */
} pr_plan;

static void plan_free(pr_plan *p) {
    free(p->off);
    free(p->cnt);
    free(p->sl);
    free(p->score);
    free(p->removed);
}

/* Builds every channel's list of parameter slices. */
static bool plan_slices(pr_plan *p) {
    nnfx_prune_analysis *pg = p->pg;
    p->off = calloc((size_t)pg->nel + 1, sizeof *p->off);
    p->cnt = calloc((size_t)pg->nel + 1, sizeof *p->cnt);
    if (!p->off || !p->cnt) return false;
    int64_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int m = 0; m < pg->nmem; m++) {
            const pr_member *mb = &pg->mem[m];
            const pr_val *v = pr_val_of(pg, mb->vnode, mb->vout);
            nnfx_tensor *t = nnfx_graph_param(pg->g, mb->param);
            for (int64_t i = 0; i < mb->size; i++) {
                int l = pr_label_at(v, mb->offset + i);
                if (l < 0) continue;
                int r = pr_find(pg, l);
                if (pass == 0) {
                    p->cnt[r]++;
                    total++;
                    continue;
                }
                nnfx_prune_slice *s = &p->sl[p->off[r] + p->cnt[r]++];
                s->t = t;
                s->param = mb->param;
                s->axis = mb->axis;
                s->index = i;
                s->role = mb->kind;
            }
        }
        if (pass == 0) {
            int64_t at = 0;
            for (int e = 0; e < pg->nel; e++) {
                p->off[e] = (int)at;
                at += p->cnt[e];
                p->cnt[e] = 0;
            }
            p->sl = malloc(sizeof *p->sl * (size_t)(total + 1));
            if (!p->sl || total > INT32_MAX) return false;
        }
    }
    return true;
}

/* Sum of |x|^pw over the elements of t whose index along axis is idx. */
static double slice_norm(const nnfx_tensor *t, int axis, int64_t idx, int pw, int64_t *count) {
    if (!t || t->dtype != NNFX_F32) return 0;
    int64_t outer = 1, inner = 1, d = t->shape[axis];
    for (int i = 0; i < axis; i++)
        outer *= t->shape[i];
    for (int i = axis + 1; i < t->rank; i++)
        inner *= t->shape[i];
    const float *x = t->data;
    double s = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            double v = fabs((double)x[(o * d + idx) * inner + j]);
            s += pw == 2 ? v * v : v;
        }
    *count += outer * inner;
    return s;
}

typedef struct builtin_ctx {
    nnfx_prune_criterion crit;
    uint64_t seed;
} builtin_ctx;

static double builtin_score(const nnfx_prune_channel *ch, void *user) {
    const builtin_ctx *c = user;
    if (c->crit == NNFX_PRUNE_RANDOM) {
        uint64_t st = c->seed ^ ((uint64_t)ch->group << 32) ^ (uint64_t)ch->channel;
        return (double)(core_rng_next(&st) >> 11);
    }
    double s = 0;
    int64_t n = 0;
    int want = c->crit == NNFX_PRUNE_BN_SCALE ? NNFX_PRUNE_ROLE_BN_SCALE : NNFX_PRUNE_ROLE_PRODUCER;
    for (int i = 0; i < ch->nslices; i++)
        if (ch->slices[i].role == want)
            s += slice_norm(ch->slices[i].t, ch->slices[i].axis, ch->slices[i].index, c->crit == NNFX_PRUNE_L2 ? 2 : 1,
                            &n);
    if (n == 0) return INFINITY; /* nothing to measure: keep it */
    return c->crit == NNFX_PRUNE_L2 ? sqrt(s / (double)n) : s / (double)n;
}

typedef struct cand {
    double score;
    int e, group;
} cand;

static int cand_cmp(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* Channels to keep in a group of n after removing k, rounded up to round_to. */
static int keep_count(int n, int k, int round_to) {
    int keep = n - k;
    if (keep < 1) keep = 1;
    if (round_to > 1) keep = (keep + round_to - 1) / round_to * round_to;
    return keep > n ? n : keep;
}

/* Scores every channel and marks those to remove; *scored gets how many
 * removable channels got a finite score. false on out of memory. */
static bool choose(pr_plan *p, const nnfx_prune_options *o, int *scored) {
    nnfx_prune_analysis *pg = p->pg;
    p->score = calloc((size_t)pg->nel + 1, sizeof *p->score);
    p->removed = calloc((size_t)pg->nel + 1, sizeof *p->removed);
    cand *c = malloc(sizeof *c * (size_t)(pg->nel + 1));
    int *nrem = calloc((size_t)pg->ngroups + 1, sizeof *nrem);
    if (!p->score || !p->removed || !c || !nrem) {
        free(c);
        free(nrem);
        return false;
    }
    builtin_ctx bc = {o->criterion, o->seed};
    int nc = 0, total = 0;
    for (int gi = 0; gi < pg->ngroups; gi++) {
        const pr_group *gr = &pg->groups[gi];
        if (gr->nfree == 0) continue;
        total += gr->nchan;
        for (int k = 0; k < gr->nchan; k++) {
            int e = gr->chan[k];
            nnfx_prune_channel ch = {gi, k, p->cnt[e], p->sl + p->off[e]};
            p->score[e] = o->score ? o->score(&ch, o->score_user) : builtin_score(&ch, &bc);
            if (gr->chan_free[k] && !isinf(p->score[e])) c[nc++] = (cand){p->score[e], e, gi};
        }
    }
    qsort(c, (size_t)nc, sizeof *c, cand_cmp);
    *scored = nc;
    if (o->global) {
        int want = (int)floor(o->ratio * total), done = 0;
        for (int i = 0; i < nc && done < want; i++) {
            const pr_group *gr = &pg->groups[c[i].group];
            if (gr->nchan - nrem[c[i].group] <= 1) continue;
            p->removed[c[i].e] = true;
            nrem[c[i].group]++;
            done++;
        }
        /* round up what each group keeps: give back its best removed ones */
        for (int i = nc - 1; i >= 0; i--) {
            int gi = c[i].group;
            const pr_group *gr = &pg->groups[gi];
            if (!p->removed[c[i].e]) continue;
            if (keep_count(gr->nchan, nrem[gi], o->round_to) > gr->nchan - nrem[gi]) {
                p->removed[c[i].e] = false;
                nrem[gi]--;
            }
        }
    } else {
        for (int i = 0; i < nc; i++) {
            int gi = c[i].group;
            const pr_group *gr = &pg->groups[gi];
            int k = (int)floor(o->ratio * gr->nchan);
            int target = gr->nchan - keep_count(gr->nchan, k, o->round_to);
            if (nrem[gi] < target) {
                p->removed[c[i].e] = true;
                nrem[gi]++;
            }
        }
    }
    free(c);
    free(nrem);
    /* no parameter may lose every index along its axis (a Conv reading only
     * a slice of a group, after a Split): give it back its best channel */
    for (int m = 0; m < pg->nmem; m++) {
        const pr_member *mb = &pg->mem[m];
        const pr_val *v = pr_val_of(pg, mb->vnode, mb->vout);
        int best = -1;
        bool any = false;
        for (int64_t i = 0; i < mb->size && !any; i++) {
            int l = pr_label_at(v, mb->offset + i);
            if (l < 0 || !p->removed[pr_find(pg, l)]) {
                any = true;
                break;
            }
            l = pr_find(pg, l);
            if (best < 0 || p->score[l] > p->score[best]) best = l;
        }
        if (!any && best >= 0) p->removed[best] = false;
    }
    return true;
}

static bool keep_label(const pr_plan *p, int l) { return l < 0 || !p->removed[pr_find(p->pg, l)]; }

/* Positions along v's paxis that stay. */
static int64_t kept_along(const pr_plan *p, const pr_val *v) {
    int64_t k = 0;
    for (int64_t i = 0; i < v->dims[v->paxis]; i++)
        k += keep_label(p, pr_label_at(v, i));
    return k;
}

/* A copy of t keeping, along axis, the indices i with keep[i]. */
static nnfx_tensor *slice_tensor(const nnfx_tensor *t, int axis, const bool *keep, nnfx_error *err) {
    int64_t shape[NNFX_MAX_RANK], outer = 1, inner = 1, d = t->shape[axis], kept = 0;
    for (int i = 0; i < t->rank; i++)
        shape[i] = t->shape[i];
    for (int64_t i = 0; i < d; i++)
        kept += keep[i];
    shape[axis] = kept;
    for (int i = 0; i < axis; i++)
        outer *= t->shape[i];
    for (int i = axis + 1; i < t->rank; i++)
        inner *= t->shape[i];
    nnfx_tensor *o = nnfx_tensor_new(t->dtype, t->rank, shape, err);
    if (!o) return NULL;
    size_t es = nnfx_dtype_size(t->dtype), row = (size_t)inner * es;
    const char *src = t->data;
    char *dst = o->data;
    for (int64_t a = 0; a < outer; a++)
        for (int64_t i = 0; i < d; i++)
            if (keep[i]) {
                memcpy(dst, src + ((size_t)(a * d + i)) * row, row);
                dst += row;
            }
    return o;
}

/* Replaces input i of n by a new parameter holding t (the old one may be
 * shared with other nodes). */
static nnfx_status set_const_input(nnfx_graph *g, nnfx_node *n, int i, nnfx_tensor *t, nnfx_error *err) {
    nnfx_inserting_before(g, n);
    nnfx_node *a = ir_graph_new_param(g, n->name, "_pruned", t, err);
    nnfx_tensor_release(t);
    nnfx_inserting_at_end(g);
    if (!a) return err ? err->status : NNFX_ERR_NOMEM;
    if (i < n->nargs) return nnfx_node_set_arg(n, i, nnfx_arg_node(a), err);
    nnfx_arg args[8];
    for (int k = 0; k < n->nargs && k < 8; k++)
        args[k] = n->args[k];
    for (int k = n->nargs; k < i; k++)
        args[k] = nnfx_arg_none();
    args[i] = nnfx_arg_node(a);
    return nnfx_node_set_args(n, i + 1, args, err);
}

/* True when inputs from..to-1 of n that are present are parameters. */
static bool const_inputs(const nnfx_node *n, int from, int to) {
    for (int i = from; i < to && i < n->nargs; i++) {
        const nnfx_node *a = nnfx_node_arg_node(n, i);
        if (n->args[i].kind == NNFX_ARG_NODE && (!a || a->opcode != NNFX_GET_ATTR)) return false;
    }
    return true;
}

static nnfx_tensor *ints_tensor(const int64_t *v, int n, nnfx_error *err) {
    int64_t shape[1] = {n};
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, shape, err);
    if (t) memcpy(t->data, v, sizeof *v * (size_t)n);
    return t;
}

/* Rewrites the ops that count channels in attributes or constant inputs. */
static nnfx_status fix_node(pr_plan *p, nnfx_node *n, nnfx_error *err) {
    nnfx_prune_analysis *pg = p->pg;
    pr_val *x = n->nargs > 0 && n->args[0].kind == NNFX_ARG_NODE ? pr_val_of(pg, n->args[0].u.node, 0) : NULL;
    pr_val *out = pr_val_of(pg, n, 0);
    bool tx = x && x->lab && x->hi > x->lo, tout = out && out->lab && out->hi > out->lo;
    switch (n->op) {
    case NNFX_OP_CONV: {
        int64_t grp = nnfx_node_attr_int(n, "group", 1);
        if (!tx || grp <= 1 || grp != x->dims[1]) return NNFX_OK;
        nnfx_attr a = nnfx_attr_int("group", kept_along(p, x));
        return nnfx_node_set_attr(n, &a, err);
    }
    case NNFX_OP_RESHAPE: {
        if (!tout || !const_inputs(n, 1, 2)) return NNFX_OK;
        int64_t shp[NNFX_MAX_RANK];
        nnfx_tensor *st = nnfx_graph_param(pg->g, nnfx_node_arg_node(n, 1)->target);
        int r = (int)nnfx_tensor_numel(st);
        if (r != out->rank || r > NNFX_MAX_RANK) return nnfx_error_set(err, NNFX_ERR_GRAPH, "%s: shape", n->name);
        for (int d = 0; d < r; d++) {
            shp[d] = core_tensor_get_i64(st, d);
            if (d == out->paxis && shp[d] > 0) shp[d] = kept_along(p, out);
        }
        nnfx_tensor *t = ints_tensor(shp, r, err);
        return t ? set_const_input(pg->g, n, 1, t, err) : err->status;
    }
    case NNFX_OP_SPLIT: {
        int ax = (int)nnfx_node_attr_int(n, "axis", 0);
        if (!tx || (ax < 0 ? ax + x->rank : ax) != x->lo || x->hi - x->lo != 1 || !const_inputs(n, 1, 2))
            return NNFX_OK;
        int64_t sizes[64];
        if (n->nout > 64) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: too many outputs", n->name);
        for (int k = 0; k < n->nout; k++)
            sizes[k] = kept_along(p, pr_val_of(pg, n, k));
        nnfx_tensor *t = ints_tensor(sizes, n->nout, err);
        if (!t) return err->status;
        nnfx_status s = set_const_input(pg->g, n, 1, t, err);
        if (!s && nnfx_node_attr(n, "num_outputs")) {
            /* sizes are explicit now; an ONNX Split takes one or the other */
            for (int i = 0; i < n->nattrs; i++)
                if (strcmp(n->attrs[i].name, "num_outputs") == 0) {
                    ir_attr_free(&n->attrs[i]);
                    n->attrs[i] = n->attrs[--n->nattrs];
                    ir_graph_touch(pg->g);
                    break;
                }
        }
        return s;
    }
    case NNFX_OP_SLICE: {
        if (!tx || !tout || out->lo != x->lo || x->hi - x->lo != 1 || !const_inputs(n, 1, 5) || n->nargs < 3)
            return NNFX_OK;
        int64_t st[NNFX_MAX_RANK], en[NNFX_MAX_RANK], axes[NNFX_MAX_RANK];
        nnfx_tensor *ts = nnfx_graph_param(pg->g, nnfx_node_arg_node(n, 1)->target);
        nnfx_tensor *te = nnfx_graph_param(pg->g, nnfx_node_arg_node(n, 2)->target);
        nnfx_node *an = nnfx_node_arg_node(n, 3);
        nnfx_tensor *ta = an ? nnfx_graph_param(pg->g, an->target) : NULL;
        int k = (int)nnfx_tensor_numel(ts);
        for (int i = 0; i < k; i++) {
            st[i] = core_tensor_get_i64(ts, i);
            en[i] = core_tensor_get_i64(te, i);
            axes[i] = ta ? core_tensor_get_i64(ta, i) : i;
            if ((axes[i] < 0 ? axes[i] + x->rank : axes[i]) != x->lo) continue;
            int64_t d = x->dims[x->lo], s = st[i] < 0 ? st[i] + d : st[i];
            s = s < 0 ? 0 : (s > d ? d : s);
            int64_t before = 0;
            for (int64_t q = 0; q < s; q++)
                before += keep_label(p, x->lab[q]);
            st[i] = before;
            en[i] = before + kept_along(p, out);
        }
        nnfx_tensor *t1 = ints_tensor(st, k, err), *t2 = t1 ? ints_tensor(en, k, err) : NULL;
        if (!t2) {
            nnfx_tensor_release(t1);
            return err ? err->status : NNFX_ERR_NOMEM;
        }
        nnfx_status s = set_const_input(pg->g, n, 1, t1, err);
        if (s) {
            nnfx_tensor_release(t2);
            return s;
        }
        return set_const_input(pg->g, n, 2, t2, err);
    }
    default: return NNFX_OK;
    }
}

/* --- the entry points ---------------------------------------------------------------- */

void nnfx_prune_result_free(nnfx_prune_result *r) {
    if (!r) return;
    free(r->groups);
    memset(r, 0, sizeof *r);
}

static int64_t param_numel(const nnfx_graph *g, const char *name) {
    return nnfx_tensor_numel(nnfx_graph_param(g, name));
}

static void graph_totals(const nnfx_graph *g, int64_t *macs, int64_t *params) {
    *macs = *params = 0;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        int64_t m, f;
        nnfx_node_cost(n, &m, &f);
        *macs += m;
    }
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        nnfx_tensor *t = nnfx_graph_param_at(g, i);
        if (t && t->dtype == NNFX_F32 && !nnfx_graph_param_is_constant(g, i)) *params += nnfx_tensor_numel(t);
    }
}

static int cmp_mem_node(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)(*(const pr_member *const *)a)->node, y = (uintptr_t)(*(const pr_member *const *)b)->node;
    return (x > y) - (x < y);
}

static int cmp_mem_param(const void *a, const void *b) {
    return strcmp((*(const pr_member *const *)a)->param, (*(const pr_member *const *)b)->param);
}

/* Per group: MACs of the ops holding its members, elements of its members
 * (each op and each parameter once: a shared parameter has a member per
 * reader). false on out of memory. */
static bool group_cost(const nnfx_prune_analysis *pg, const pr_group *gr, int64_t *macs, int64_t *params) {
    *macs = *params = 0;
    const pr_member **by = malloc(sizeof *by * (size_t)(gr->nmem + 1));
    if (!by) return false;
    for (int k = 0; k < gr->nmem; k++)
        by[k] = &pg->mem[gr->mem[k]];
    qsort(by, (size_t)gr->nmem, sizeof *by, cmp_mem_node);
    for (int k = 0; k < gr->nmem; k++)
        if (k == 0 || by[k]->node != by[k - 1]->node) {
            int64_t m, f;
            nnfx_node_cost(by[k]->node, &m, &f);
            *macs += m;
        }
    qsort(by, (size_t)gr->nmem, sizeof *by, cmp_mem_param);
    for (int k = 0; k < gr->nmem; k++)
        if (k == 0 || strcmp(by[k]->param, by[k - 1]->param) != 0) *params += param_numel(pg->g, by[k]->param);
    free(by);
    return true;
}

static nnfx_status report_init(const nnfx_prune_analysis *pg, nnfx_prune_result *res, nnfx_error *err) {
    memset(res, 0, sizeof *res);
    res->groups = calloc((size_t)pg->ngroups + 1, sizeof *res->groups);
    if (!res->groups) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    res->ngroups = pg->ngroups;
    graph_totals(pg->g, &res->macs_before, &res->params_before);
    for (int i = 0; i < pg->ngroups; i++) {
        const pr_group *gr = &pg->groups[i];
        nnfx_prune_group_result *r = &res->groups[i];
        snprintf(r->name, sizeof r->name, "%s", gr->node ? gr->node->name : "");
        snprintf(r->reason, sizeof r->reason, "%s", gr->reason ? gr->reason : "");
        r->channels = r->kept = gr->nchan;
        r->prunable = gr->nfree;
        if (!group_cost(pg, gr, &r->macs_before, &r->params_before))
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    return NNFX_OK;
}

nnfx_status nnfx_prune(nnfx_graph *g, const nnfx_prune_options *o, nnfx_prune_result *res, nnfx_error *err) {
    if (res) memset(res, 0, sizeof *res);
    if (!g || !o) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune: NULL graph or options");
    if (!(o->ratio >= 0 && o->ratio < 1))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune: ratio %g is outside [0, 1)", o->ratio);
    if (o->round_to < 0) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "prune: round_to %d < 0", o->round_to);
    nnfx_prune_analysis *pg = nnfx_prune_groups(g, o->nexclude, o->exclude, err);
    if (!pg) return err ? err->status : NNFX_ERR_NOMEM;
    pr_plan p = {pg, NULL, NULL, NULL, NULL, NULL};
    nnfx_prune_result local = {0};
    nnfx_prune_result *r = res ? res : &local;
    nnfx_status s = NNFX_OK;
    int nfree = 0;
    const char *why = NULL;
    for (int i = 0; i < pg->ngroups; i++) {
        nfree += pg->groups[i].nfree;
        if (!why && pg->groups[i].reason) why = pg->groups[i].reason;
    }
    if (nfree == 0) {
        s = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                           "prune: nothing can be pruned in this model: no channel of its %d group(s) may go (%s)",
                           pg->ngroups, why ? why : "no Conv, Gemm or MatMul with parameter weights");
        goto out;
    }
    int scored = 0;
    if (!plan_slices(&p) || !choose(&p, o, &scored)) {
        s = nnfx_error_set(err, NNFX_ERR_NOMEM, "prune: out of memory");
        goto out;
    }
    if (scored == 0 && o->ratio > 0) {
        s = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "prune: the criterion scores no channel%s",
                           o->criterion == NNFX_PRUNE_BN_SCALE && !o->score
                               ? " (bn-scale reads BatchNormalization scales; this model has none that follow a "
                                 "prunable channel: export it with BatchNormalization kept)"
                               : "");
        goto out;
    }
    if ((s = report_init(pg, r, err))) goto out;
    /* new parameters first (nothing in g changes until they all exist);
     * a parameter read by several ops is sliced once per axis: the
     * analysis joined its readers' channels index by index */
    int nnew = 0;
    nnfx_tensor **newt = calloc((size_t)pg->nmem + 1, sizeof *newt);
    const char **newn = calloc((size_t)pg->nmem + 1, sizeof *newn);
    bool *keep = NULL;
    if (!newt || !newn) goto oom;
    for (int m = 0; m < pg->nmem; m++) {
        const pr_member *mb = &pg->mem[m];
        if (mb->dup) continue; /* this axis of this parameter is sliced with another member */
        const pr_val *v = pr_val_of(pg, mb->vnode, mb->vout);
        nnfx_tensor *t = nnfx_graph_param(g, mb->param);
        int j = 0;
        while (j < nnew && strcmp(newn[j], mb->param) != 0)
            j++;
        if (j < nnew) t = newt[j]; /* a second axis of the same parameter */
        free(keep);
        keep = malloc(sizeof *keep * (size_t)(t->shape[mb->axis] + 1));
        if (!keep) goto oom;
        bool all = true;
        for (int64_t i = 0; i < t->shape[mb->axis]; i++) {
            keep[i] = i < mb->size ? keep_label(&p, pr_label_at(v, mb->offset + i)) : true;
            all &= keep[i];
        }
        if (all) continue;
        nnfx_tensor *c = slice_tensor(t, mb->axis, keep, err);
        if (!c) goto fail;
        if (j < nnew) {
            nnfx_tensor_release(newt[j]);
            newt[j] = c;
        } else {
            newn[nnew] = mb->param;
            newt[nnew++] = c;
        }
    }
    for (int j = 0; j < nnew; j++)
        if ((s = nnfx_graph_set_param(g, newn[j], newt[j], err))) goto fail;
    for (int i = 0; i < pg->nnodes; i++)
        if (pg->nodes[i]->opcode == NNFX_CALL_FUNCTION && (s = fix_node(&p, pg->nodes[i], err))) goto fail;
    for (int i = 0; i < pg->nnodes; i++) /* shape inference uses pass_data too */
        pg->nodes[i]->pass_data = NULL;
    if ((s = nnfx_graph_infer_shapes(g, err))) {
        nnfx_error_prefix(err, "prune: the pruned graph does not fit together (a bug; please report)");
        goto fail;
    }
    nnfx_graph_drop_unused_params(g);
    graph_totals(g, &r->macs_after, &r->params_after);
    for (int i = 0; i < pg->ngroups; i++) {
        const pr_group *gr = &pg->groups[i];
        nnfx_prune_group_result *gres = &r->groups[i];
        for (int k = 0; k < gr->nchan; k++)
            if (p.removed[gr->chan[k]]) {
                gres->kept--;
                r->channels_removed++;
            }
        if (!group_cost(pg, gr, &gres->macs_after, &gres->params_after)) goto oom;
    }
    goto done;
oom:
    s = nnfx_error_set(err, NNFX_ERR_NOMEM, "prune: out of memory");
fail:
    if (!s) s = err ? err->status : NNFX_ERR_NOMEM;
done:
    for (int j = 0; newt && j < nnew; j++)
        nnfx_tensor_release(newt[j]);
    free(newt);
    free(newn);
    free(keep);
out:
    plan_free(&p);
    nnfx_prune_analysis_free(pg);
    if (r == &local || s) nnfx_prune_result_free(r);
    return s;
}
