/* matcher.c — the subgraph matcher: pattern compilation, an iterative
 * backtracking search per candidate anchor (no recursion: an explicit work
 * list, trail and choice stack), candidates from an index by op, greedy
 * non-overlapping selection and, in explain mode, why each candidate failed. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"
#include "rewrite/rewrite_int.h"

bool rw_reserve(void **arr, int *cap, int need, size_t sz) {
    if (need <= *cap) return true;
    int nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*arr, sz * (size_t)nc);
    if (!p) return false;
    *arr = p;
    *cap = nc;
    return true;
}

const char *nnfx_reject_kind_name(nnfx_reject_kind k) {
    switch (k) {
    case NNFX_REJECT_NONE: return "matched";
    case NNFX_REJECT_OP: return "op differs";
    case NNFX_REJECT_LITERAL: return "literal differs";
    case NNFX_REJECT_ATTR: return "attribute differs";
    case NNFX_REJECT_WILDCARD: return "wildcard bound inconsistently";
    case NNFX_REJECT_SHARED: return "pattern nodes share a graph node";
    case NNFX_REJECT_OUTER_USER: return "outer user of an inner node";
    case NNFX_REJECT_OVERLAP: return "overlaps an earlier match";
    case NNFX_REJECT_FILTER: return "rejected by the filter";
    case NNFX_REJECT_PLACEMENT: return "no insertion point";
    }
    return "?";
}

/* --- pattern compilation --------------------------------------------------- */

void rw_pattern_free(rw_pattern *cp) {
    if (!cp) return;
    for (int i = 0; cp->p && i < cp->np; i++) /* p is NULL when its allocation failed */
        free(cp->p[i].arg);
    free(cp->p);
    free(cp->ph_node);
    free(cp->ret);
    memset(cp, 0, sizeof *cp);
}

static int pattern_index(const rw_pattern *cp, const nnfx_node *n) {
    for (int i = 0; i < cp->np; i++)
        if (cp->p[i].n == n) return i;
    return -1;
}

nnfx_status rw_pattern_compile(const nnfx_graph *pg, rw_pattern *cp, nnfx_error *err) {
    memset(cp, 0, sizeof *cp);
    if (!pg) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "pattern: NULL graph");
    cp->g = pg;
    const nnfx_node *out = nnfx_graph_output_node(pg);
    if (!out) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "pattern: the pattern graph has no output node");
    if (out->nargs < 1) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "pattern: the pattern returns nothing");
    cp->np = pg->num_nodes - 1;
    cp->p = calloc((size_t)(cp->np ? cp->np : 1), sizeof *cp->p);
    cp->ph_node = calloc((size_t)(cp->np ? cp->np : 1), sizeof *cp->ph_node);
    cp->ret = calloc((size_t)out->nargs, sizeof *cp->ret);
    if (!cp->p || !cp->ph_node || !cp->ret) goto oom;
    int i = 0;
    for (const nnfx_node *n = pg->head; n && i < cp->np; n = n->next) {
        if (n->opcode == NNFX_OUTPUT) continue;
        rw_pnode *p = &cp->p[i];
        p->n = n;
        p->ph = -1;
        if (n->opcode == NNFX_PLACEHOLDER) {
            p->ph = cp->nph;
            cp->ph_node[cp->nph++] = i;
        }
        p->arg = malloc(sizeof *p->arg * (size_t)(n->nargs ? n->nargs : 1));
        if (!p->arg) goto oom;
        for (int a = 0; a < n->nargs; a++)
            p->arg[a] = n->args[a].kind == NNFX_ARG_NODE ? pattern_index(cp, n->args[a].u.node) : -1;
        i++;
    }
    cp->np = i;
    for (int r = 0; r < out->nargs; r++) {
        int k = out->args[r].kind == NNFX_ARG_NODE ? pattern_index(cp, out->args[r].u.node) : -1;
        if (k < 0) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "pattern: returned value %d is not a node", r);
        if (cp->p[k].ph >= 0)
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                  "pattern: returned value %d is the wildcard %s (a pattern must return op nodes)", r,
                                  cp->p[k].n->name);
        cp->p[k].returned = true;
        cp->ret[cp->nret++] = k;
    }
    /* liveness: walk backwards (args precede users) */
    for (int r = 0; r < cp->nret; r++)
        cp->p[cp->ret[r]].live = true;
    for (int k = cp->np - 1; k >= 0; k--) {
        if (!cp->p[k].live) continue;
        for (int a = 0; a < cp->p[k].n->nargs; a++)
            if (cp->p[k].arg[a] >= 0) cp->p[cp->p[k].arg[a]].live = true;
    }
    for (int k = 0; k < cp->np; k++)
        cp->nlive += cp->p[k].live && cp->p[k].ph < 0;
    return NNFX_OK;
oom:
    rw_pattern_free(cp);
    return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory compiling a pattern");
}

/* --- search state ------------------------------------------------------------ */

typedef struct rw_pair {
    int p;
    nnfx_node *g;
} rw_pair;

typedef struct rw_trail {
    bool is_bind;
    int idx;
} rw_trail;

typedef struct rw_choice {
    bool commutative; /* else: candidates for an unmatched returned node */
    int trail_len;
    int work_off, work_len;
    int p;
    nnfx_node *g;
    int alt;
    nnfx_node **cands;
    int ncands;
} rw_choice;

typedef struct rw_index {
    int *count;         /* per op */
    nnfx_node ***nodes; /* per op, graph order */
    int nother;
    nnfx_node **other; /* get_attr and call_module nodes */
} rw_index;

typedef struct rw_state {
    const rw_pattern *cp;
    const nnfx_graph *g;
    const rw_index *ix;
    const nnfx_value_map *claimed;
    nnfx_node **map;
    nnfx_arg *bind;
    bool *bound;
    int depth;
    rw_trail *trail;
    int ntrail, cap_trail;
    rw_pair *work;
    int nwork, cap_work;
    rw_pair *pool;
    int npool, cap_pool;
    rw_choice *ch;
    int nch, cap_ch;
    bool oom;
    int best_depth;
    nnfx_reject_kind best_kind;
    char best_detail[320];
} rw_state;

static void rw_fail(rw_state *s, nnfx_reject_kind k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void rw_fail(rw_state *s, nnfx_reject_kind k, const char *fmt, ...) {
    if (s->depth <= s->best_depth) return; /* keep the first failure at the deepest point */
    s->best_depth = s->depth;
    s->best_kind = k;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->best_detail, sizeof s->best_detail, fmt, ap);
    va_end(ap);
}

static bool push_work(rw_state *s, int p, nnfx_node *g) {
    if (!rw_reserve((void **)&s->work, &s->cap_work, s->nwork + 1, sizeof *s->work)) return s->oom = true, false;
    s->work[s->nwork++] = (rw_pair){p, g};
    return true;
}

static bool push_trail(rw_state *s, bool is_bind, int idx) {
    if (!rw_reserve((void **)&s->trail, &s->cap_trail, s->ntrail + 1, sizeof *s->trail)) return s->oom = true, false;
    s->trail[s->ntrail++] = (rw_trail){is_bind, idx};
    return true;
}

static void undo_to(rw_state *s, int len) {
    while (s->ntrail > len) {
        rw_trail t = s->trail[--s->ntrail];
        if (t.is_bind) {
            s->bound[t.idx] = false;
        } else {
            s->map[t.idx] = NULL;
            s->depth--;
        }
    }
}

static bool push_choice(rw_state *s, rw_choice c) {
    if (!rw_reserve((void **)&s->ch, &s->cap_ch, s->nch + 1, sizeof *s->ch) ||
        !rw_reserve((void **)&s->pool, &s->cap_pool, s->npool + s->nwork, sizeof *s->pool)) {
        free(c.cands);
        return s->oom = true, false;
    }
    c.trail_len = s->ntrail;
    c.work_off = s->npool;
    c.work_len = s->nwork;
    if (s->nwork) memcpy(s->pool + s->npool, s->work, sizeof *s->work * (size_t)s->nwork);
    s->npool += s->nwork;
    s->ch[s->nch++] = c;
    return true;
}

static void restore_choice(rw_state *s, const rw_choice *c) {
    undo_to(s, c->trail_len);
    s->nwork = c->work_len;
    if (c->work_len) memcpy(s->work, s->pool + c->work_off, sizeof *s->work * (size_t)c->work_len);
}

static void pop_choice(rw_state *s) {
    rw_choice *c = &s->ch[--s->nch];
    free(c->cands);
    s->npool = c->work_off;
}

/* --- comparisons ---------------------------------------------------------------- */

static double literal_value(const nnfx_arg *a) { return a->kind == NNFX_ARG_INT ? (double)a->u.i : a->u.f; }

static bool is_literal(const nnfx_arg *a) { return a->kind == NNFX_ARG_INT || a->kind == NNFX_ARG_FLOAT; }

static bool args_equal(const nnfx_arg *a, const nnfx_arg *b) {
    if (a->kind == NNFX_ARG_NODE || b->kind == NNFX_ARG_NODE) return a->kind == b->kind && a->u.node == b->u.node;
    if (a->kind == NNFX_ARG_NONE || b->kind == NNFX_ARG_NONE) return a->kind == b->kind;
    return literal_value(a) == literal_value(b);
}

static void arg_str(const nnfx_arg *a, char *buf, size_t len) {
    switch (a->kind) {
    case NNFX_ARG_NODE: snprintf(buf, len, "%%%s", a->u.node->name); break;
    case NNFX_ARG_INT: snprintf(buf, len, "%lld", (long long)a->u.i); break;
    case NNFX_ARG_FLOAT: snprintf(buf, len, "%g", a->u.f); break;
    default: snprintf(buf, len, "None"); break;
    }
}

/* True when graph node g's attribute equals pattern attribute pa (an
 * absent graph attribute counts as the op schema's default). */
static bool attr_matches(const nnfx_node *g, const nnfx_attr *pa) {
    const nnfx_attr *ga = nnfx_node_attr(g, pa->name);
    switch (pa->kind) {
    case NNFX_ATTR_INT:
        if (ga && ga->kind != NNFX_ATTR_INT && ga->kind != NNFX_ATTR_FLOAT) return false;
        if (!ga && g->opcode == NNFX_CALL_FUNCTION) {
            const char *d = NULL;
            if (!ir_schema_lookup(g->op, pa->name, NULL, &d) || !d) return false;
        } else if (!ga)
            return false;
        return nnfx_node_attr_float(g, pa->name, NAN) == (double)pa->u.i;
    case NNFX_ATTR_FLOAT: {
        if (ga && ga->kind != NNFX_ATTR_INT && ga->kind != NNFX_ATTR_FLOAT) return false;
        double v = nnfx_node_attr_float(g, pa->name, NAN);
        if (isnan(v)) return false;
        return v == pa->u.f || (float)v == (float)pa->u.f;
    }
    case NNFX_ATTR_STRING: {
        const char *d = NULL;
        const char *gv = ga && ga->kind == NNFX_ATTR_STRING ? ga->u.s : NULL;
        if (!ga && g->opcode == NNFX_CALL_FUNCTION && ir_schema_lookup(g->op, pa->name, NULL, &d)) gv = d;
        return gv && strcmp(gv, pa->u.s) == 0;
    }
    case NNFX_ATTR_INTS:
        return ga && ga->kind == NNFX_ATTR_INTS && ga->u.ints.n == pa->u.ints.n &&
               (pa->u.ints.n == 0 || memcmp(ga->u.ints.v, pa->u.ints.v, sizeof(int64_t) * (size_t)pa->u.ints.n) == 0);
    case NNFX_ATTR_FLOATS:
        return ga && ga->kind == NNFX_ATTR_FLOATS && ga->u.floats.n == pa->u.floats.n &&
               (pa->u.floats.n == 0 ||
                memcmp(ga->u.floats.v, pa->u.floats.v, sizeof(float) * (size_t)pa->u.floats.n) == 0);
    case NNFX_ATTR_TENSOR: {
        if (!ga || ga->kind != NNFX_ATTR_TENSOR) return false;
        const nnfx_tensor *x = ga->u.t, *y = pa->u.t;
        if (x == y) return true;
        if (!x || !y || x->dtype != y->dtype || x->rank != y->rank || x->nbytes != y->nbytes) return false;
        if (memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)x->rank) != 0) return false;
        return x->nbytes == 0 || memcmp(x->data, y->data, x->nbytes) == 0;
    }
    case NNFX_ATTR_GRAPH: return false; /* patterns cannot hold subgraphs */
    }
    return false;
}

static const char *node_kind_str(const nnfx_node *n) {
    return n->opcode == NNFX_CALL_FUNCTION ? nnfx_op_name(n->op) : nnfx_opcode_name(n->opcode);
}

/* Checks that graph node g can stand for pattern node p (not its args). */
static bool node_compatible(rw_state *s, const nnfx_node *p, const nnfx_node *g) {
    if (p->opcode != g->opcode || (p->opcode == NNFX_CALL_FUNCTION && p->op != g->op)) {
        rw_fail(s, NNFX_REJECT_OP, "%%%s is %s, the pattern expects %s (%%%s)", g->name, node_kind_str(g),
                node_kind_str(p), p->name);
        return false;
    }
    if ((p->opcode == NNFX_CALL_MODULE || p->opcode == NNFX_GET_ATTR) && strcmp(p->target, g->target) != 0) {
        rw_fail(s, NNFX_REJECT_OP, "%%%s has target '%s', the pattern expects '%s'", g->name, g->target, p->target);
        return false;
    }
    if (p->nargs != g->nargs) {
        rw_fail(s, NNFX_REJECT_OP, "%%%s has %d arguments, the pattern's %s has %d", g->name, g->nargs,
                node_kind_str(p), p->nargs);
        return false;
    }
    for (int i = 0; i < p->nattrs; i++) {
        if (!attr_matches(g, &p->attrs[i])) {
            rw_fail(s, NNFX_REJECT_ATTR, "attribute %s of %%%s differs from the pattern's", p->attrs[i].name, g->name);
            return false;
        }
    }
    return true;
}

static int mapped_index(const rw_state *s, const nnfx_node *g) {
    for (int i = 0; i < s->cp->np; i++)
        if (s->map[i] == g) return i;
    return -1;
}

/* Binds or checks wildcard k against graph argument ga. */
static bool bind_wildcard(rw_state *s, int k, const nnfx_arg *ga) {
    const char *wname = s->cp->p[s->cp->ph_node[k]].n->name;
    if (ga->kind == NNFX_ARG_NONE) {
        rw_fail(s, NNFX_REJECT_OP, "wildcard %s would bind an absent argument", wname);
        return false;
    }
    if (ga->kind == NNFX_ARG_NODE && mapped_index(s, ga->u.node) >= 0) {
        rw_fail(s, NNFX_REJECT_WILDCARD, "wildcard %s would bind %%%s, which the match itself contains", wname,
                ga->u.node->name);
        return false;
    }
    if (s->bound[k]) {
        if (args_equal(&s->bind[k], ga)) return true;
        char a[96], b[96];
        arg_str(&s->bind[k], a, sizeof a);
        arg_str(ga, b, sizeof b);
        rw_fail(s, NNFX_REJECT_WILDCARD, "wildcard %s is bound to %s and to %s", wname, a, b);
        return false;
    }
    s->bound[k] = true;
    s->bind[k] = *ga;
    return push_trail(s, true, k);
}

/* Checks the arguments of the pair (p, g), queueing node arguments. */
static bool expand_args(rw_state *s, int pi, nnfx_node *g, bool swap) {
    const rw_pnode *pn = &s->cp->p[pi];
    const nnfx_node *p = pn->n;
    for (int i = 0; i < p->nargs; i++) {
        int gi = swap ? 1 - i : i;
        const nnfx_arg *pa = &p->args[i];
        const nnfx_arg *ga = &g->args[gi];
        if (pa->kind == NNFX_ARG_NONE) {
            if (ga->kind != NNFX_ARG_NONE) {
                rw_fail(s, NNFX_REJECT_OP, "argument %d of %%%s is present, the pattern has None", gi, g->name);
                return false;
            }
        } else if (is_literal(pa)) {
            if (!is_literal(ga) || literal_value(pa) != literal_value(ga)) {
                char a[96], b[96];
                arg_str(pa, a, sizeof a);
                arg_str(ga, b, sizeof b);
                rw_fail(s, NNFX_REJECT_LITERAL, "argument %d of %%%s is %s, the pattern has %s", gi, g->name, b, a);
                return false;
            }
        } else {
            int q = pn->arg[i];
            if (q < 0) {
                rw_fail(s, NNFX_REJECT_OP, "pattern node %%%s has an argument outside the pattern", p->name);
                return false;
            }
            if (s->cp->p[q].ph >= 0) {
                if (!bind_wildcard(s, s->cp->p[q].ph, ga)) return false;
            } else if (ga->kind != NNFX_ARG_NODE) {
                char b[96];
                arg_str(ga, b, sizeof b);
                rw_fail(s, NNFX_REJECT_OP, "argument %d of %%%s is %s, the pattern expects %s", gi, g->name, b,
                        node_kind_str(s->cp->p[q].n));
                return false;
            } else if (!push_work(s, q, ga->u.node)) {
                return false;
            }
        }
    }
    return true;
}

/* Maps pattern node pi to graph node g and queues its arguments. */
static bool assign(rw_state *s, int pi, nnfx_node *g) {
    const rw_pnode *pn = &s->cp->p[pi];
    if (s->map[pi]) {
        if (s->map[pi] == g) return true;
        rw_fail(s, NNFX_REJECT_SHARED, "pattern node %%%s would match both %%%s and %%%s", pn->n->name,
                s->map[pi]->name, g->name);
        return false;
    }
    int other = mapped_index(s, g);
    if (other >= 0) {
        rw_fail(s, NNFX_REJECT_SHARED, "%%%s would match both pattern nodes %%%s and %%%s", g->name,
                s->cp->p[other].n->name, pn->n->name);
        return false;
    }
    for (int k = 0; k < s->cp->nph; k++)
        if (s->bound[k] && s->bind[k].kind == NNFX_ARG_NODE && s->bind[k].u.node == g) {
            rw_fail(s, NNFX_REJECT_WILDCARD, "wildcard %s is bound to %%%s, which the pattern also matches as %%%s",
                    s->cp->p[s->cp->ph_node[k]].n->name, g->name, pn->n->name);
            return false;
        }
    if (!node_compatible(s, pn->n, g)) return false;
    if (s->claimed && nnfx_value_map_get(s->claimed, g)) {
        rw_fail(s, NNFX_REJECT_OVERLAP, "%%%s is already part of the match at %%%s", g->name,
                nnfx_value_map_get(s->claimed, g)->name);
        return false;
    }
    s->map[pi] = g;
    s->depth++;
    if (!push_trail(s, false, pi)) return false;
    const nnfx_node *p = pn->n;
    bool comm = p->opcode == NNFX_CALL_FUNCTION && p->nargs == 2 && (nnfx_op_flags(p->op) & NNFX_F_COMMUTATIVE) &&
                !args_equal(&g->args[0], &g->args[1]);
    if (comm) {
        rw_choice c = {0};
        c.commutative = true;
        c.p = pi;
        c.g = g;
        if (!push_choice(s, c)) return false;
    }
    return expand_args(s, pi, g, false);
}

static bool propagate(rw_state *s) {
    while (s->nwork > 0) {
        rw_pair w = s->work[--s->nwork];
        if (!assign(s, w.p, w.g)) return false;
    }
    return true;
}

/* Candidates for an unmatched returned pattern node q: users of a graph
 * node its arguments already matched or bound, else every node of its op. */
static nnfx_node **candidates_for(rw_state *s, int q, int *count) {
    const rw_pnode *pn = &s->cp->p[q];
    nnfx_node *src = NULL;
    for (int a = 0; a < pn->n->nargs && !src; a++) {
        int r = pn->arg[a];
        if (r < 0) continue;
        if (s->cp->p[r].ph >= 0) {
            int k = s->cp->p[r].ph;
            if (s->bound[k] && s->bind[k].kind == NNFX_ARG_NODE) src = s->bind[k].u.node;
        } else if (s->map[r]) {
            src = s->map[r];
        }
    }
    int n = 0;
    nnfx_node *const *from;
    if (src) {
        n = src->nusers;
        from = src->users;
    } else if (pn->n->opcode == NNFX_CALL_FUNCTION) {
        n = s->ix->count[pn->n->op];
        from = s->ix->nodes[pn->n->op];
    } else {
        n = s->ix->nother;
        from = s->ix->other;
    }
    nnfx_node **out = malloc(sizeof *out * (size_t)(n ? n : 1));
    if (!out) {
        s->oom = true;
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        nnfx_node *c = from[i];
        if (c->opcode != pn->n->opcode || (c->opcode == NNFX_CALL_FUNCTION && c->op != pn->n->op)) continue;
        if (mapped_index(s, c) >= 0) continue;
        out[k++] = c;
    }
    *count = k;
    return out;
}

static bool is_mapped(const rw_state *s, const nnfx_node *g) { return mapped_index(s, g) >= 0; }

/* Checks on a complete assignment: outer users of inner nodes and, for
 * multi-output patterns, that the replacement has a place to go. */
static bool final_checks(rw_state *s) {
    const rw_pattern *cp = s->cp;
    for (int i = 0; i < cp->np; i++) {
        const rw_pnode *pn = &cp->p[i];
        if (!pn->live || pn->ph >= 0 || pn->returned) continue;
        nnfx_node *g = s->map[i];
        for (int u = 0; u < g->nusers; u++) {
            if (!is_mapped(s, g->users[u])) {
                rw_fail(s, NNFX_REJECT_OUTER_USER, "inner node %%%s (pattern %%%s) is used by %%%s outside the match",
                        g->name, pn->n->name, g->users[u]->name);
                return false;
            }
        }
    }
    if (cp->nret > 1) {
        uint32_t last_input = 0, first_ret = UINT32_MAX, first_user = UINT32_MAX;
        for (int k = 0; k < cp->nph; k++)
            if (s->bound[k] && s->bind[k].kind == NNFX_ARG_NODE && s->bind[k].u.node->order > last_input)
                last_input = s->bind[k].u.node->order;
        for (int r = 0; r < cp->nret; r++) {
            nnfx_node *g = s->map[cp->ret[r]];
            if (g->order < first_ret) first_ret = g->order;
            for (int u = 0; u < g->nusers; u++)
                if (!is_mapped(s, g->users[u]) && g->users[u]->order < first_user) first_user = g->users[u]->order;
        }
        if (!(last_input < first_ret || last_input < first_user)) {
            rw_fail(s, NNFX_REJECT_PLACEMENT, "an input of the match is defined after a user of its results");
            return false;
        }
    }
    return true;
}

/* Backtracks to the latest choice with an alternative left; false when
 * the search is exhausted. */
static bool backtrack(rw_state *s) {
    while (s->nch > 0 && !s->oom) {
        rw_choice *c = &s->ch[s->nch - 1];
        restore_choice(s, c);
        if (c->commutative) {
            if (c->alt == 0) {
                c->alt = 1;
                if (expand_args(s, c->p, c->g, true)) return true;
                continue; /* the swapped order fails too: this choice is done */
            }
        } else if (++c->alt < c->ncands) {
            if (push_work(s, c->p, c->cands[c->alt])) return true;
            return false;
        }
        pop_choice(s);
    }
    return false;
}

/* Full search for a match anchored at graph node anchor. */
static bool search(rw_state *s, nnfx_node *anchor) {
    const rw_pattern *cp = s->cp;
    for (int i = 0; i < cp->np; i++)
        s->map[i] = NULL;
    for (int k = 0; k < cp->nph; k++)
        s->bound[k] = false;
    s->depth = 0;
    s->ntrail = s->nwork = s->npool = 0;
    while (s->nch > 0)
        pop_choice(s);
    s->best_depth = -1;
    s->best_kind = NNFX_REJECT_OP;
    s->best_detail[0] = 0;
    if (!push_work(s, cp->ret[0], anchor)) return false;
    for (;;) {
        bool ok = propagate(s);
        if (s->oom) return false;
        if (ok) {
            int q = -1;
            for (int r = 0; r < cp->nret && q < 0; r++)
                if (!s->map[cp->ret[r]]) q = cp->ret[r];
            if (q < 0) {
                if (final_checks(s)) return true;
            } else {
                int n = 0;
                nnfx_node **cands = candidates_for(s, q, &n);
                if (s->oom) return false;
                if (n == 0) {
                    free(cands);
                    rw_fail(s, NNFX_REJECT_OP, "no node matches the returned pattern node %%%s", cp->p[q].n->name);
                } else {
                    rw_choice c = {0};
                    c.p = q;
                    c.cands = cands;
                    c.ncands = n;
                    if (!push_choice(s, c)) return false;
                    if (!push_work(s, q, cands[0])) return false;
                    continue;
                }
            }
        }
        if (!backtrack(s)) return false;
    }
}

/* --- the index and the driver ---------------------------------------------------- */

static void index_free(rw_index *ix) {
    if (ix->nodes)
        for (int op = 0; op < NNFX_OP_COUNT; op++)
            free(ix->nodes[op]);
    free(ix->nodes);
    free(ix->count);
    free(ix->other);
}

static bool index_build(const nnfx_graph *g, rw_index *ix) {
    memset(ix, 0, sizeof *ix);
    ix->count = calloc(NNFX_OP_COUNT, sizeof *ix->count);
    ix->nodes = calloc(NNFX_OP_COUNT, sizeof *ix->nodes);
    int *cap = calloc(NNFX_OP_COUNT, sizeof *cap);
    int cap_other = 0;
    bool ok = ix->count && ix->nodes && cap;
    for (nnfx_node *n = g->head; n && ok; n = n->next) {
        if (n->opcode == NNFX_CALL_FUNCTION) {
            int op = (int)n->op;
            ok = rw_reserve((void **)&ix->nodes[op], &cap[op], ix->count[op] + 1, sizeof(nnfx_node *));
            if (ok) ix->nodes[op][ix->count[op]++] = n;
        } else if (n->opcode == NNFX_GET_ATTR || n->opcode == NNFX_CALL_MODULE) {
            ok = rw_reserve((void **)&ix->other, &cap_other, ix->nother + 1, sizeof(nnfx_node *));
            if (ok) ix->other[ix->nother++] = n;
        }
    }
    free(cap);
    return ok;
}

nnfx_match_list *rw_list_new(void) { return calloc(1, sizeof(nnfx_match_list)); }

void rw_match_clear(nnfx_match *m) {
    free((char *)m->anchor_name);
    free(m->pattern_nodes);
    free(m->graph_nodes);
    free(m->bindings);
    free(m->replacements);
    memset(m, 0, sizeof *m);
}

void nnfx_match_list_free(nnfx_match_list *l) {
    if (!l) return;
    for (int i = 0; i < l->n; i++)
        rw_match_clear(&l->m[i]);
    free(l->m);
    for (int i = 0; i < l->nc; i++) {
        free((char *)l->c[i].node);
        free((char *)l->c[i].detail);
    }
    free(l->c);
    free(l);
}

int nnfx_match_list_count(const nnfx_match_list *l) { return l ? l->n : 0; }
const nnfx_match *nnfx_match_list_at(const nnfx_match_list *l, int i) {
    return l && i >= 0 && i < l->n ? &l->m[i] : NULL;
}
int nnfx_match_list_num_candidates(const nnfx_match_list *l) { return l ? l->nc : 0; }
const nnfx_candidate *nnfx_match_list_candidate(const nnfx_match_list *l, int i) {
    return l && i >= 0 && i < l->nc ? &l->c[i] : NULL;
}
const char *nnfx_match_list_warning(const nnfx_match_list *l) { return l ? l->warning : ""; }

static bool add_candidate(nnfx_match_list *l, const nnfx_node *n, nnfx_reject_kind k, const char *detail) {
    if (!rw_reserve((void **)&l->c, &l->capc, l->nc + 1, sizeof *l->c)) return false;
    nnfx_candidate *c = &l->c[l->nc];
    c->node = ir_strdup(n->name);
    c->detail = ir_strdup(detail ? detail : "");
    c->reason = k;
    if (!c->node || !c->detail) {
        free((char *)c->node);
        free((char *)c->detail);
        return false;
    }
    l->nc++;
    return true;
}

/* Fills m from the current assignment. */
static bool build_match(const rw_state *s, nnfx_node *anchor, nnfx_match *m) {
    const rw_pattern *cp = s->cp;
    memset(m, 0, sizeof *m);
    m->anchor = anchor;
    m->anchor_name = ir_strdup(anchor->name);
    m->pattern_nodes = malloc(sizeof *m->pattern_nodes * (size_t)(cp->nlive ? cp->nlive : 1));
    m->graph_nodes = malloc(sizeof *m->graph_nodes * (size_t)(cp->nlive ? cp->nlive : 1));
    m->bindings = calloc((size_t)(cp->nph ? cp->nph : 1), sizeof *m->bindings);
    if (!m->anchor_name || !m->pattern_nodes || !m->graph_nodes || !m->bindings) {
        rw_match_clear(m);
        return false;
    }
    for (int i = 0; i < cp->np; i++) {
        if (!cp->p[i].live || cp->p[i].ph >= 0) continue;
        m->pattern_nodes[m->n] = cp->p[i].n;
        m->graph_nodes[m->n] = s->map[i];
        m->n++;
    }
    m->nbindings = cp->nph;
    for (int k = 0; k < cp->nph; k++)
        m->bindings[k] = s->bound[k] ? s->bind[k] : nnfx_arg_none();
    return true;
}

nnfx_status rw_find(const nnfx_graph *g, const rw_pattern *cp, const nnfx_rewrite_options *opts, nnfx_match_list *list,
                    nnfx_error *err) {
    nnfx_rewrite_options o = {0};
    if (opts) o = *opts;
    ir_graph_renumber((nnfx_graph *)g); /* order keys are a cache */
    rw_index ix;
    rw_state s = {0};
    nnfx_value_map *claimed = nnfx_value_map_new();
    nnfx_status st = NNFX_OK;
    bool ok = index_build(g, &ix) && claimed;
    s.cp = cp;
    s.g = g;
    s.ix = &ix;
    s.claimed = claimed;
    s.map = calloc((size_t)(cp->np ? cp->np : 1), sizeof *s.map);
    s.bind = calloc((size_t)(cp->nph ? cp->nph : 1), sizeof *s.bind);
    s.bound = calloc((size_t)(cp->nph ? cp->nph : 1), sizeof *s.bound);
    if (!ok || !s.map || !s.bind || !s.bound) goto oom;

    const nnfx_node *a0 = cp->p[cp->ret[0]].n;
    int ncand;
    nnfx_node **cand;
    if (a0->opcode == NNFX_CALL_FUNCTION) {
        ncand = ix.count[a0->op];
        cand = ix.nodes[a0->op];
    } else {
        ncand = ix.nother;
        cand = ix.other;
    }
    for (int ci = 0; ci < ncand; ci++) {
        nnfx_node *anchor = cand[ci];
        if (anchor->opcode != a0->opcode) continue;
        if (a0->opcode != NNFX_CALL_FUNCTION && strcmp(anchor->target, a0->target) != 0) continue;
        nnfx_node *owner = nnfx_value_map_get(claimed, anchor);
        if (owner) {
            if (o.explain) {
                char d[320];
                snprintf(d, sizeof d, "%%%s is already part of the match at %%%s", anchor->name, owner->name);
                if (!add_candidate(list, anchor, NNFX_REJECT_OVERLAP, d)) goto oom;
            }
            continue;
        }
        bool found = search(&s, anchor);
        if (s.oom) goto oom;
        if (!found) {
            if (o.explain && !add_candidate(list, anchor, s.best_kind, s.best_detail)) goto oom;
            continue;
        }
        nnfx_match m;
        if (!build_match(&s, anchor, &m)) goto oom;
        if (o.filter && !o.filter(&m, o.filter_ctx)) {
            rw_match_clear(&m);
            if (o.explain && !add_candidate(list, anchor, NNFX_REJECT_FILTER, "the match filter returned false"))
                goto oom;
            continue;
        }
        if (!rw_reserve((void **)&list->m, &list->cap, list->n + 1, sizeof *list->m)) {
            rw_match_clear(&m);
            goto oom;
        }
        list->m[list->n++] = m;
        for (int i = 0; i < m.n; i++)
            if (!nnfx_value_map_put(claimed, m.graph_nodes[i], anchor)) goto oom;
        if (o.explain && !add_candidate(list, anchor, NNFX_REJECT_NONE, "")) goto oom;
    }
    goto out;
oom:
    st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory while matching");
out:
    while (s.nch > 0)
        pop_choice(&s);
    free(s.map);
    free(s.bind);
    free(s.bound);
    free(s.trail);
    free(s.work);
    free(s.pool);
    free(s.ch);
    nnfx_value_map_free(claimed);
    index_free(&ix);
    return st;
}

nnfx_match_list *nnfx_find_matches(const nnfx_graph *g, const nnfx_graph *pattern, const nnfx_rewrite_options *opts,
                                   nnfx_error *err) {
    if (!g || !pattern) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "find_matches: NULL graph or pattern");
        return NULL;
    }
    rw_pattern cp;
    if (rw_pattern_compile(pattern, &cp, err)) return NULL;
    nnfx_match_list *l = rw_list_new();
    if (!l) {
        rw_pattern_free(&cp);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (rw_find(g, &cp, opts, l, err)) {
        nnfx_match_list_free(l);
        l = NULL;
    }
    rw_pattern_free(&cp);
    return l;
}

char *nnfx_rewrite_explain(const nnfx_match_list *l) {
    size_t cap = 256, len = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    out[0] = 0;
    int nc = l ? l->nc : 0;
    if (nc == 0) snprintf(out, cap, "no candidates recorded (%d matches)\n", l ? l->n : 0);
    for (int i = 0; i < nc; i++) {
        const nnfx_candidate *c = &l->c[i];
        char line[700];
        int k = c->reason == NNFX_REJECT_NONE ? snprintf(line, sizeof line, "%%%s: matched\n", c->node)
                                              : snprintf(line, sizeof line, "%%%s: rejected (%s): %s\n", c->node,
                                                         nnfx_reject_kind_name(c->reason), c->detail);
        if (k < 0) continue;
        size_t kl = strlen(line);
        if (len + kl + 1 > cap) {
            while (len + kl + 1 > cap)
                cap *= 2;
            char *n = realloc(out, cap);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
        }
        memcpy(out + len, line, kl + 1);
        len += kl;
    }
    return out;
}
