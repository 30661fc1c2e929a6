/* split_plan.c — the compiled executor of a graph with data-dependent nodes
 * (NonZero, NonMaxSuppression, Unique, Compress, TopK with a computed k,
 * Range of computed bounds...): a node whose output size is known only at
 * run time splits the plan into
 *  - the prefix: every node that depends on no such node, compiled once
 *    (fast_plan.c), returning the values the rest reads;
 *  - the frontier: the data-dependent nodes whose inputs are all known
 *    before the run, run with their kernels (nnfx_op_run: the interpreter's
 *    own path, exact output shapes);
 *  - the rest: a copy of the graph where the frontier's outputs and the
 *    prefix values it reads are placeholders of the now-known shapes, its
 *    shapes inferred again and compiled, or split again at its own
 *    data-dependent nodes. One rest is built per set of frontier output
 *    shapes and kept (the FX_SPLIT_CACHE most recently used). When the
 *    shapes change on most runs (new shapes after 2 x FX_SPLIT_CACHE rests
 *    built, fewer cache hits than rests), compiling each (packing its conv
 *    weights) costs more than it saves: new rests run in the interpreter.
 * Constants the rest reads (weights, folded subgraphs) stay constants in
 * its copy, so its convolutions are packed and fused as in any plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/sbuf.h"
#include "exec/exec_int.h"
#include "exec/fast_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Rest plans kept, one per set of frontier output shapes. */
#define FX_SPLIT_CACHE 4

/* Where a value fed to a frontier node or to the rest comes from. */
typedef enum src_kind { SRC_NONE, SRC_INPUT, SRC_BOUND, SRC_FRONT, SRC_CONST } src_kind;
typedef struct fx_src {
    src_kind kind;
    int i, k;       /* INPUT: graph input i; BOUND: prefix output i; FRONT: output k of frontier node i */
    nnfx_tensor *t; /* CONST: owned reference (a parameter or a literal) */
} fx_src;

/* What runs the rest: a compiled plan, a further split, or (when neither
 * takes it) the interpreter. */
typedef struct runner {
    nnfx_graph *g; /* the rest's graph, owned */
    fx_plan *plan;
    fx_split *split;
    nnfx_interp *interp;
    char why[1024]; /* interp: why */
} runner;

typedef struct rest_entry {
    int64_t *sig; /* dtype, rank, dims of every frontier output */
    int nsig;
    runner r;
    int nfeed;
    fx_src *feed; /* per placeholder of the rest */
    uint64_t used;
} rest_entry;

struct fx_split {
    const nnfx_graph *g; /* not owned */
    int threads, ninputs;
    nnfx_graph *pg;  /* the prefix's graph (its plan runs its nodes' kernels), owned */
    fx_plan *prefix; /* NULL when the rest reads no computed value */
    int nbound;
    const nnfx_node **bound; /* prefix outputs, nodes of g */
    bool *bound_const;       /* computed from constants alone: stays a node in the rest */
    int nfront;
    const nnfx_node **front;
    fx_src **fargs; /* per frontier node, one per argument */
    rest_entry cache[FX_SPLIT_CACHE];
    int ncache, last; /* last: the entry of the latest run (-1: none) */
    uint64_t tick;
    int64_t built, hits; /* rests built so far; runs that found theirs */
    bool profile;        /* fx_split_set_profile: time the parts (prefix, frontier, rest) */
    int64_t prof_runs;
    double prof_s[3]; /* seconds in the prefix, the frontier nodes, the rest */
};

static void runner_free(runner *r) {
    fx_plan_free(r->plan);
    fx_split_free(r->split);
    nnfx_interp_free(r->interp);
    nnfx_graph_free(r->g);
    memset(r, 0, sizeof *r);
}

static void entry_free(rest_entry *e) {
    free(e->sig);
    free(e->feed);
    runner_free(&e->r);
    memset(e, 0, sizeof *e);
}

void fx_split_free(fx_split *sp) {
    if (!sp) return;
    fx_plan_free(sp->prefix);
    nnfx_graph_free(sp->pg);
    for (int f = 0; f < sp->nfront; f++) {
        for (int a = 0; sp->fargs && sp->fargs[f] && a < sp->front[f]->nargs; a++)
            nnfx_tensor_release(sp->fargs[f][a].t);
        if (sp->fargs) free(sp->fargs[f]);
    }
    for (int c = 0; c < sp->ncache; c++)
        entry_free(&sp->cache[c]);
    free(sp->fargs);
    free(sp->front);
    free(sp->bound);
    free(sp->bound_const);
    free(sp);
}

static bool metas_static(const nnfx_node *n) {
    for (int k = 0; k < n->nout; k++)
        if (!nnfx_meta_is_static(&n->meta[k]) || n->meta[k].dtype == NNFX_DTYPE_UNDEFINED) return false;
    return true;
}

static nnfx_status declined(nnfx_error *err, const nnfx_node *n, const char *why) {
    if (n) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "split plan: node %s: %s", n->name, why);
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "split plan: %s", why);
}

/* Prefix graph: a copy of g returning the boundary values. */
static nnfx_graph *prefix_graph(const fx_split *sp, nnfx_error *err) {
    nnfx_value_map *map = nnfx_value_map_new();
    nnfx_graph *p = map ? nnfx_graph_copy(sp->g, map, err) : NULL;
    nnfx_node **outs = malloc(sizeof *outs * (size_t)sp->nbound);
    nnfx_status st = p && outs ? NNFX_OK : NNFX_ERR_NOMEM;
    if (!st) st = nnfx_erase_node(p, nnfx_graph_output_node(p), err);
    for (int j = 0; !st && j < sp->nbound; j++)
        outs[j] = nnfx_value_map_get(map, sp->bound[j]);
    if (!st) {
        nnfx_inserting_at_end(p);
        if (!nnfx_graph_output(p, sp->nbound, outs, err)) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
    }
    if (!st) nnfx_eliminate_dead_code(p);
    if (!st) st = nnfx_graph_lint(p, err);
    if (!st) st = nnfx_graph_infer_shapes(p, err);
    free(outs);
    nnfx_value_map_free(map);
    if (st) {
        if (st == NNFX_ERR_NOMEM && (!err || !err->status)) nnfx_error_set(err, st, "out of memory");
        nnfx_graph_free(p);
        return NULL;
    }
    return p;
}

/* Phase 1: dep[i] marks a node whose value depends on a data-dependent
 * node's (or is one), cnst[i] one computable from parameters alone; the
 * frontier (sp->front) is the data-dependent nodes whose inputs are known
 * before them. Declines graphs the split plan cannot run. */
static nnfx_status split_frontier(fx_split *sp, nnfx_graph *g, bool *dep, bool *cnst, nnfx_error *err) {
    nnfx_status st = NNFX_OK;
    int i = 0;
    for (nnfx_node *n = g->head; n && !st; n = n->next, i++) {
        switch (n->opcode) {
        case NNFX_PLACEHOLDER:
            if (!metas_static(n)) st = declined(err, n, "a graph input whose shape is not static");
            sp->ninputs++;
            continue;
        case NNFX_GET_ATTR: cnst[i] = true; continue;
        case NNFX_CALL_MODULE: st = declined(err, n, "leaf modules run in the interpreter"); continue;
        case NNFX_OUTPUT: continue;
        case NNFX_CALL_FUNCTION: break;
        }
        bool anydep = false, allc = true;
        for (int a = 0; a < n->nargs; a++)
            if (n->args[a].kind == NNFX_ARG_NODE) {
                int j = (int)(intptr_t)n->args[a].u.node->pass_data;
                anydep |= dep[j];
                allc &= cnst[j];
            }
        bool impure = (ir_op_info(n->op)->flags & NNFX_F_IMPURE) != 0;
        dep[i] = anydep || !metas_static(n);
        cnst[i] = !dep[i] && allc && !impure;
        if (dep[i] && impure) st = declined(err, n, "an impure node whose inputs are known only at run time");
        if (!dep[i] || anydep) continue;
        const nnfx_op_info *info = ir_op_info(n->op);
        if (!info->kernel || !info->infer || n->op == NNFX_OP_GETITEM) {
            st = declined(err, n, "output size known only at run time, and no kernel to run it");
            continue;
        }
        sp->front[sp->nfront++] = n; /* data-dependent, its inputs known before */
    }
    if (!st && !sp->nfront) st = declined(err, NULL, "no data-dependent node");
    return st;
}

/* Phase 2: the boundary (sp->bound): computed values read by data-dependent
 * nodes or returned; constants only when a frontier node reads them (the
 * rest computes its own, folded once when it is built). */
static void split_boundary(fx_split *sp, nnfx_graph *g, const bool *dep, const bool *cnst) {
    int i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++) {
        if (dep[i] || n->opcode != NNFX_CALL_FUNCTION || n->nout != 1) continue;
        bool read = false;
        for (int u = 0; u < n->nusers && !read; u++) {
            const nnfx_node *us = n->users[u];
            bool front = false;
            for (int f = 0; f < sp->nfront && !front; f++)
                front = sp->front[f] == us;
            read = front || (!cnst[i] && (us->opcode == NNFX_OUTPUT ||
                                          (us->opcode != NNFX_PLACEHOLDER && dep[(intptr_t)us->pass_data])));
        }
        if (!read) continue;
        sp->bound_const[sp->nbound] = cnst[i];
        sp->bound[sp->nbound++] = n;
    }
}

/* Where argument ar of frontier node n comes from at run time (s): a graph
 * input, a boundary value, or a constant (a literal or parameter, held). */
static nnfx_status front_arg(const fx_split *sp, nnfx_graph *g, const nnfx_node *n, const nnfx_arg *ar, fx_src *s,
                             nnfx_error *err) {
    if (ar->kind == NNFX_ARG_NONE) return NNFX_OK;
    if (ar->kind != NNFX_ARG_NODE) {
        s->kind = SRC_CONST;
        return (s->t = ir_literal_tensor(ar, err)) ? NNFX_OK : NNFX_ERR_NOMEM;
    }
    const nnfx_node *u = ar->u.node;
    s->i = -1;
    if (u->opcode == NNFX_PLACEHOLDER) {
        s->kind = SRC_INPUT;
        int k = 0; /* u's input index: one walk (graph inputs can be many: a rest's) */
        for (const nnfx_node *p = g->head; p && s->i < 0; p = p->next)
            if (p == u)
                s->i = k;
            else
                k += p->opcode == NNFX_PLACEHOLDER;
    } else if (u->opcode == NNFX_GET_ATTR) {
        s->kind = SRC_CONST;
        s->i = 0;
        if (!(s->t = nnfx_tensor_retain(nnfx_graph_param(g, u->target)))) return declined(err, u, "missing parameter");
    } else {
        s->kind = SRC_BOUND;
        for (int j = 0; j < sp->nbound; j++)
            if (sp->bound[j] == u) s->i = j;
    }
    return s->i < 0 ? declined(err, n, "an input with no value before the run") : NNFX_OK;
}

/* Phase 3: the sources of every frontier node's arguments (sp->fargs). */
static nnfx_status split_front_args(fx_split *sp, nnfx_graph *g, nnfx_error *err) {
    if (!(sp->fargs = calloc((size_t)sp->nfront, sizeof *sp->fargs)))
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    for (int f = 0; f < sp->nfront; f++) {
        const nnfx_node *n = sp->front[f];
        if (!(sp->fargs[f] = calloc((size_t)n->nargs + 1, sizeof **sp->fargs)))
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        for (int a = 0; a < n->nargs; a++) {
            nnfx_status st = front_arg(sp, g, n, &n->args[a], &sp->fargs[f][a], err);
            if (st) return st;
        }
    }
    return NNFX_OK;
}

fx_split *fx_split_new(const nnfx_graph *gc, int threads, nnfx_error *err) {
    nnfx_graph *g = (nnfx_graph *)gc; /* pass_data scratch only */
    int nn = g->num_nodes;
    fx_split *sp = calloc(1, sizeof *sp);
    bool *dep = calloc((size_t)nn + 1, sizeof *dep), *cnst = calloc((size_t)nn + 1, sizeof *cnst);
    if (sp) {
        sp->bound = calloc((size_t)nn + 1, sizeof *sp->bound);
        sp->bound_const = calloc((size_t)nn + 1, sizeof *sp->bound_const);
        sp->front = calloc((size_t)nn + 1, sizeof *sp->front);
    }
    nnfx_status st = NNFX_OK;
    if (!sp || !dep || !cnst || !sp->bound || !sp->bound_const || !sp->front) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    sp->g = g;
    sp->threads = threads;
    sp->last = -1;
    int i = 0;
    for (nnfx_node *n = g->head; n; n = n->next, i++)
        n->pass_data = (void *)(intptr_t)i;
    st = split_frontier(sp, g, dep, cnst, err);
    if (!st) split_boundary(sp, g, dep, cnst);
    if (!st) st = split_front_args(sp, g, err);
out:
    for (nnfx_node *n = g->head; n; n = n->next)
        n->pass_data = NULL;
    free(dep);
    free(cnst);
    if (!st && sp->nbound) {
        sp->pg = prefix_graph(sp, err);
        sp->prefix = sp->pg ? fx_plan_new(sp->pg, threads, err) : NULL;
        if (!sp->prefix) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        if (st == NNFX_ERR_UNSUPPORTED) nnfx_error_prefix(err, "split plan: the prefix");
    }
    if (st) {
        fx_split_free(sp);
        return NULL;
    }
    return sp;
}

/* The rest for the frontier outputs fo: a copy of g with placeholders for
 * them and for the prefix values it reads, compiled. */
static bool thrashing(const fx_split *sp) { return sp->built >= 2 * FX_SPLIT_CACHE && sp->hits < sp->built; }

static nnfx_status build_rest(fx_split *sp, nnfx_value_set *fo, rest_entry *e, nnfx_error *err) {
    const nnfx_graph *g = sp->g;
    nnfx_value_map *map = nnfx_value_map_new();
    nnfx_graph *r = map ? nnfx_graph_copy(g, map, err) : NULL;
    int cap = sp->ninputs + sp->nbound;
    for (int f = 0; f < sp->nfront; f++)
        cap += fo[f].num;
    nnfx_node **ph = calloc((size_t)cap + 1, sizeof *ph);
    fx_src *src = calloc((size_t)cap + 1, sizeof *src);
    nnfx_status st = r && ph && src ? NNFX_OK : NNFX_ERR_NOMEM;
    int nph = 0;
    if (!st) nnfx_inserting_before(r, nnfx_graph_first(r));
    for (int j = 0; !st && j < sp->nbound; j++) {
        if (sp->bound_const[j]) continue; /* a constant of the rest too */
        nnfx_node *old = nnfx_value_map_get(map, sp->bound[j]);
        nnfx_node *p = nnfx_graph_placeholder(r, sp->bound[j]->name, &sp->bound[j]->meta[0], err);
        if (!p) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        if (!st) nnfx_replace_all_uses_with(old, p, NULL, NULL);
        ph[nph] = p, src[nph++] = (fx_src){SRC_BOUND, j, 0, NULL};
    }
    for (int f = 0; !st && f < sp->nfront; f++) {
        const nnfx_node *n = sp->front[f];
        for (int k = 0; !st && k < fo[f].num; k++) {
            nnfx_meta m;
            const nnfx_tensor *t = fo[f].t[k];
            nnfx_meta_set_shape(&m, t->dtype, t->rank, t->shape);
            nnfx_node *p = nnfx_graph_placeholder(r, n->name, &m, err);
            if (!p) {
                st = err && err->status ? err->status : NNFX_ERR_NOMEM;
                break;
            }
            ph[nph] = p, src[nph++] = (fx_src){SRC_FRONT, f, k, NULL};
            if (n->nout == 1) nnfx_replace_all_uses_with(nnfx_value_map_get(map, n), p, NULL, NULL);
            for (int u = 0; n->nout > 1 && u < n->nusers; u++) {
                const nnfx_node *gi = n->users[u];
                if (gi->opcode == NNFX_CALL_FUNCTION && gi->op == NNFX_OP_GETITEM && gi->nargs == 2 &&
                    gi->args[1].kind == NNFX_ARG_INT && gi->args[1].u.i == k)
                    nnfx_replace_all_uses_with(nnfx_value_map_get(map, gi), p, NULL, NULL);
            }
        }
    }
    if (!st) {
        nnfx_eliminate_dead_code(r);
        e->nfeed = nnfx_graph_num_inputs(r);
        e->feed = calloc((size_t)e->nfeed + 1, sizeof *e->feed);
        if (!e->feed) st = NNFX_ERR_NOMEM;
    }
    /* g's inputs as copied into r, found in one walk each (not by index:
     * nnfx_graph_input walks the graph) */
    const nnfx_node **gin = st ? NULL : calloc((size_t)sp->ninputs + 1, sizeof *gin);
    if (!st && !gin) st = NNFX_ERR_NOMEM;
    int ng = 0;
    for (const nnfx_node *p = st ? NULL : g->head; p && ng < sp->ninputs; p = p->next)
        if (p->opcode == NNFX_PLACEHOLDER) gin[ng++] = nnfx_value_map_get(map, p);
    const nnfx_node *in = st ? NULL : r->head;
    for (int i = 0; !st && i < e->nfeed; i++, in = in->next) {
        while (in && in->opcode != NNFX_PLACEHOLDER)
            in = in->next;
        if (!in) {
            st = declined(err, NULL, "fewer inputs of the rest than counted");
            break;
        }
        e->feed[i].kind = SRC_NONE;
        for (int j = 0; j < nph; j++)
            if (ph[j] == in) e->feed[i] = src[j];
        for (int k = 0; e->feed[i].kind == SRC_NONE && k < ng; k++)
            if (gin[k] == in) e->feed[i] = (fx_src){SRC_INPUT, k, 0, NULL};
        if (e->feed[i].kind == SRC_NONE) st = declined(err, in, "an input of the rest with no source");
    }
    free(gin);
    free(ph);
    free(src);
    nnfx_value_map_free(map);
    if (st == NNFX_ERR_NOMEM && (!err || !err->status)) nnfx_error_set(err, st, "out of memory");
    if (!st) st = nnfx_graph_lint(r, err);
    if (!st) st = nnfx_graph_infer_shapes(r, err);
    e->r.g = r;
    if (st) return st;
    nnfx_error perr = {0}, serr = {0};
    if (thrashing(sp)) {
        snprintf(e->r.why, sizeof e->r.why, "the data-dependent shapes change on most runs");
        e->r.interp = exec_interp_new_linted(r, NULL, NULL, err);
        return e->r.interp ? NNFX_OK : (err && err->status ? err->status : NNFX_ERR_NOMEM);
    }
    if ((e->r.plan = fx_plan_new(r, sp->threads, &perr)))
        return sp->profile && fx_plan_set_profile(e->r.plan, true)
                   ? nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory")
                   : NNFX_OK;
    if (perr.status != NNFX_ERR_UNSUPPORTED) {
        if (err) *err = perr;
        return perr.status;
    }
    if ((e->r.split = fx_split_new(r, sp->threads, &serr)))
        return sp->profile && fx_split_set_profile(e->r.split, true)
                   ? nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory")
                   : NNFX_OK;
    if (serr.status != NNFX_ERR_UNSUPPORTED) {
        if (err) *err = serr;
        return serr.status;
    }
    snprintf(e->r.why, sizeof e->r.why, "%s", perr.msg);
    e->r.interp = exec_interp_new_linted(r, NULL, NULL, err);
    return e->r.interp ? NNFX_OK : (err && err->status ? err->status : NNFX_ERR_NOMEM);
}

/* The cached rest for the frontier outputs fo, built when new. */
static rest_entry *rest_for(fx_split *sp, nnfx_value_set *fo, nnfx_error *err) {
    /* the signature: dtype, rank and dims of every frontier output */
    size_t cap = 1;
    for (int f = 0; f < sp->nfront; f++)
        for (int k = 0; k < fo[f].num; k++)
            cap += 2 + (size_t)fo[f].t[k]->rank;
    int64_t stack[512];
    int64_t *sig = cap <= sizeof stack / sizeof stack[0] ? stack : malloc(sizeof *sig * cap);
    if (!sig) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int ns = 0;
    for (int f = 0; f < sp->nfront; f++)
        for (int k = 0; k < fo[f].num; k++) {
            const nnfx_tensor *t = fo[f].t[k];
            sig[ns++] = t->dtype;
            sig[ns++] = t->rank;
            for (int d = 0; d < t->rank; d++)
                sig[ns++] = t->shape[d];
        }
    sp->tick++;
    for (int c = 0; c < sp->ncache; c++)
        if (sp->cache[c].nsig == ns && !memcmp(sp->cache[c].sig, sig, sizeof *sig * (size_t)ns)) {
            sp->cache[c].used = sp->tick;
            sp->last = c;
            sp->hits++;
            if (sig != stack) free(sig);
            return &sp->cache[c];
        }
    int c = sp->ncache;
    if (c == FX_SPLIT_CACHE) { /* the least recently used goes */
        c = 0;
        for (int k = 1; k < sp->ncache; k++)
            if (sp->cache[k].used < sp->cache[c].used) c = k;
        entry_free(&sp->cache[c]);
    } else {
        sp->ncache++;
    }
    rest_entry *e = &sp->cache[c];
    memset(e, 0, sizeof *e);
    e->sig = malloc(sizeof *sig * (size_t)(ns ? ns : 1));
    nnfx_status st = e->sig ? NNFX_OK : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    if (!st) {
        memcpy(e->sig, sig, sizeof *sig * (size_t)ns);
        e->nsig = ns;
        e->used = sp->tick;
        st = build_rest(sp, fo, e, err);
    }
    if (sig != stack) free(sig);
    if (st) {
        entry_free(e);
        /* keep the cache dense */
        if (c != sp->ncache - 1) {
            sp->cache[c] = sp->cache[sp->ncache - 1];
            memset(&sp->cache[sp->ncache - 1], 0, sizeof *e);
        }
        sp->ncache--;
        sp->last = -1;
        return NULL;
    }
    sp->built++;
    sp->last = c;
    return e;
}

nnfx_status fx_split_run(fx_split *sp, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                         nnfx_error *err) {
    if (nout) *nout = 0;
    if (nin != sp->ninputs)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "the graph takes %d input%s, %d given", sp->ninputs,
                              sp->ninputs == 1 ? "" : "s", nin);
    for (int k = 0; k < nin; k++)
        if (!in[k])
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "no value given for input %s (input %d of %d given)",
                                  nnfx_graph_input(sp->g, k)->name, k, nin);
    nnfx_tensor **bt = calloc((size_t)sp->nbound + 1, sizeof *bt);
    nnfx_value_set *fo = calloc((size_t)sp->nfront, sizeof *fo);
    nnfx_status st = bt && fo ? NNFX_OK : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    int nb = 0;
    int64_t t0 = sp->profile ? core_now_ns() : 0, t1 = t0, t2 = t0;
    if (!st && sp->prefix) st = fx_plan_run(sp->prefix, nin, in, sp->nbound, bt, &nb, err);
    if (sp->profile) t1 = core_now_ns();
    for (int f = 0; !st && f < sp->nfront; f++) {
        const nnfx_node *n = sp->front[f];
        nnfx_tensor *args[64] = {0};
        if (n->nargs > 64) {
            st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: too many inputs", n->name);
            break;
        }
        for (int a = 0; a < n->nargs; a++) {
            const fx_src *s = &sp->fargs[f][a];
            args[a] = s->kind == SRC_INPUT ? in[s->i] : s->kind == SRC_BOUND ? bt[s->i] : s->t;
        }
        st = nnfx_op_run(n, n->nargs, args, &fo[f], err);
        if (st && err && !strstr(err->msg, n->name))
            nnfx_error_prefix(err, "node %s (%s)", n->name, nnfx_op_name(n->op));
    }
    if (sp->profile) t2 = core_now_ns();
    rest_entry *e = st ? NULL : rest_for(sp, fo, err);
    if (!st && !e) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
    nnfx_tensor **feed = e ? calloc((size_t)e->nfeed + 1, sizeof *feed) : NULL;
    if (!st && !feed) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < e->nfeed; i++) {
        const fx_src *s = &e->feed[i];
        feed[i] = s->kind == SRC_INPUT ? in[s->i] : s->kind == SRC_BOUND ? bt[s->i] : fo[s->i].t[s->k];
    }
    if (!st && e->r.plan)
        st = fx_plan_run(e->r.plan, e->nfeed, feed, max_out, outs, nout, err);
    else if (!st && e->r.split)
        st = fx_split_run(e->r.split, e->nfeed, feed, max_out, outs, nout, err);
    else if (!st)
        st = nnfx_interp_run(e->r.interp, e->nfeed, feed, max_out, outs, nout, err);
    if (sp->profile && !st) {
        sp->prof_s[0] += (double)(t1 - t0) * 1e-9;
        sp->prof_s[1] += (double)(t2 - t1) * 1e-9;
        sp->prof_s[2] += (double)(core_now_ns() - t2) * 1e-9;
        sp->prof_runs++;
    }
    free(feed);
    for (int j = 0; j < nb; j++)
        nnfx_tensor_release(bt[j]);
    for (int f = 0; fo && f < sp->nfront; f++)
        for (int k = 0; k < fo[f].num; k++)
            nnfx_tensor_release(fo[f].t[k]);
    free(bt);
    free(fo);
    return st;
}

static void runner_text(sbuf *b, const runner *r) {
    char *s = r->plan ? fx_plan_text(r->plan) : r->split ? fx_split_text(r->split) : NULL;
    if (s)
        sb_printf(b, "%s", s);
    else if (r->interp)
        sb_printf(b, "# interpreted: %s\n", r->why);
    free(s);
}

char *fx_split_text(const fx_split *sp) {
    sbuf b = {0};
    sb_printf(&b, "# split plan: %d node%s whose output size is known only at run time split%s it\n", sp->nfront,
              sp->nfront == 1 ? "" : "s", sp->nfront == 1 ? "s" : "");
    if (sp->prefix) {
        sb_printf(&b, "# 1. the prefix, compiled once:\n");
        char *s = fx_plan_text(sp->prefix);
        if (s) sb_printf(&b, "%s", s);
        free(s);
    } else {
        sb_printf(&b, "# 1. no prefix (the data-dependent nodes read graph inputs and constants only)\n");
    }
    sb_printf(&b, "# 2. run with their kernels:");
    for (int f = 0; f < sp->nfront; f++)
        sb_printf(&b, " %s (%s)", sp->front[f]->name, nnfx_op_name(sp->front[f]->op));
    sb_printf(&b, "\n# 3. the rest, compiled for the shapes of their outputs (%lld built, %d kept%s)",
              (long long)sp->built, sp->ncache,
              thrashing(sp) ? "; the shapes change on most runs: new ones run in the interpreter" : "");
    if (sp->last < 0) {
        sb_printf(&b, ": not run yet\n");
    } else {
        sb_printf(&b, "; for the latest shapes:\n");
        runner_text(&b, &sp->cache[sp->last].r);
    }
    return sb_finish(&b);
}

nnfx_status fx_split_set_profile(fx_split *sp, bool on) {
    sp->profile = on;
    sp->prof_runs = 0;
    memset(sp->prof_s, 0, sizeof sp->prof_s);
    nnfx_status st = sp->prefix ? fx_plan_set_profile(sp->prefix, on) : NNFX_OK;
    for (int c = 0; !st && c < sp->ncache; c++) {
        runner *r = &sp->cache[c].r;
        st = r->plan ? fx_plan_set_profile(r->plan, on) : r->split ? fx_split_set_profile(r->split, on) : NNFX_OK;
    }
    return st;
}

char *fx_split_profile_text(const fx_split *sp) {
    if (!sp->profile) return NULL;
    double runs = sp->prof_runs > 0 ? (double)sp->prof_runs : 1.0;
    sbuf b = {0};
    sb_printf(&b,
              "# profile: split plan, %lld run%s, %.3f ms per run: the prefix %.3f ms, the data-dependent nodes "
              "%.3f ms, the rest %.3f ms (its plan for the latest shapes below; a rest built in a run counts there)\n",
              (long long)sp->prof_runs, sp->prof_runs == 1 ? "" : "s",
              1e3 * (sp->prof_s[0] + sp->prof_s[1] + sp->prof_s[2]) / runs, 1e3 * sp->prof_s[0] / runs,
              1e3 * sp->prof_s[1] / runs, 1e3 * sp->prof_s[2] / runs);
    char *s = sp->prefix ? fx_plan_profile_text(sp->prefix) : NULL;
    if (s) sb_printf(&b, "# 1. the prefix:\n%s", s);
    free(s);
    s = NULL;
    if (sp->last >= 0) {
        const runner *r = &sp->cache[sp->last].r;
        s = r->plan ? fx_plan_profile_text(r->plan) : r->split ? fx_split_profile_text(r->split) : NULL;
        if (s)
            sb_printf(&b, "# 3. the rest:\n%s", s);
        else if (r->interp)
            sb_printf(&b, "# 3. the rest: interpreted (%s), no profile\n", r->why);
    }
    free(s);
    return sb_finish(&b);
}
