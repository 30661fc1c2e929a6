/* report_graph.c — the graph drawn in the HTML report: the model's op nodes
 * as data (JSON in the page) that the embedded script (report/graph.js) lays
 * out in layers, grouped into collapsible boxes by module path, coloured by op
 * family and shaded by cost. Before/after: one drawing of both graphs, nodes
 * matched by name and then by position, each removed, added or changed node
 * marked. Parameters (get_attr) are not drawn: they are listed in the
 * details of the ops that read them; getitem nodes are drawn as their
 * producer. */
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"
#include "cli/report_graph.h"
#include "io/onnx_info.h"
#include "ir/strmap.h"

/* A table of distinct strings, written once in the page and referred to by
 * index (shapes, attributes, groups, op labels repeat over many nodes). */
typedef struct rg_table {
    ir_strmap idx; /* string -> index + 1 */
    char **s;
    int n, cap;
} rg_table;

/* Index of s in t (added when new); 0 (the empty string's slot) on OOM. */
static int rg_intern(rg_table *t, const char *s) {
    if (!t->n) { /* slot 0: "" */
        t->cap = 64;
        t->s = malloc((size_t)t->cap * sizeof t->s[0]);
        if (!t->s) return 0;
        t->s[t->n++] = strdup("");
        if (!t->s[0] || !ir_strmap_put(&t->idx, t->s[0], (void *)(intptr_t)1)) return 0;
    }
    void *v = ir_strmap_get(&t->idx, s ? s : "");
    if (v) return (int)(intptr_t)v - 1;
    if (t->n == t->cap) {
        char **ns = realloc(t->s, (size_t)t->cap * 2 * sizeof ns[0]);
        if (!ns) return 0;
        t->s = ns;
        t->cap *= 2;
    }
    char *c = strdup(s);
    if (!c) return 0;
    if (!ir_strmap_put(&t->idx, c, (void *)(intptr_t)(t->n + 1))) {
        free(c);
        return 0;
    }
    t->s[t->n] = c;
    return t->n++;
}

static void rg_table_free(rg_table *t) {
    for (int i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    ir_strmap_free(&t->idx);
}

/* Appends s as a JSON string that is also safe inside a <script> element
 * ('<', '>' and '&' as \u escapes). */
static void js_str(sbuf *b, const char *s) {
    sb_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            sb_printf(b, "\\u%04x", *p);
        else
            sb_append(b, (const char *)p, 1);
    }
    sb_append(b, "\"", 1);
}

static void rg_table_json(sbuf *b, const char *key, const rg_table *t) {
    sb_printf(b, ",\"%s\":[", key);
    for (int i = 0; i < t->n; i++) {
        if (i) sb_append(b, ",", 1);
        js_str(b, t->s[i]);
    }
    sb_append(b, "]", 1);
}

/* The per-graph lookups: node name -> cost row, findings' kinds, the ONNX
 * node name (for module paths) and the source value name. */
typedef struct rg_side {
    const cli_analysis *an;
    ir_strmap cost;     /* name -> index + 1 into an->cost */
    ir_strmap kinds;    /* name -> malloc'd "kind, kind" */
    ir_strmap onnx;     /* nnfx name -> NodeProto name */
    ir_strmap src;      /* nnfx name -> source value name */
    ir_strmap entry;    /* name -> index + 1 of its drawn entry */
    ir_strmap matched;  /* before side: name -> the after node it became */
    char **kind_values; /* owned strings of kinds */
    int nkind_values;
} rg_side;

static bool rg_side_init(rg_side *s, const cli_analysis *an) {
    memset(s, 0, sizeof *s);
    s->an = an;
    for (int i = 0; i < an->ncost; i++)
        if (!ir_strmap_put(&s->cost, nnfx_node_name(an->cost[i].node), (void *)(intptr_t)(i + 1))) return false;
    const onnx_model_info *info = onnx_info_of(an->g);
    for (int i = 0; info && i < info->nnode_names; i++)
        if (!ir_strmap_put(&s->onnx, info->node_names[i].key, info->node_names[i].value)) return false;
    for (int i = 0; info && i < info->nnames; i++)
        if (!ir_strmap_put(&s->src, info->names[i].key, info->names[i].value)) return false;
    int total = 0;
    for (int i = 0; i < an->nfindings; i++)
        total += an->findings[i].nnodes;
    s->kind_values = calloc((size_t)total + 1, sizeof s->kind_values[0]);
    if (!s->kind_values) return false;
    for (int i = 0; i < an->nfindings; i++)
        for (int j = 0; j < an->findings[i].nnodes; j++) {
            const char *name = an->findings[i].nodes[j], *old = ir_strmap_get(&s->kinds, name);
            if (old && strstr(old, an->findings[i].kind)) continue;
            sbuf k = {0};
            sb_printf(&k, "%s%s%s", old ? old : "", old ? ", " : "", an->findings[i].kind);
            char *v = sb_finish(&k);
            if (!v) return false;
            s->kind_values[s->nkind_values++] = v;
            if (!ir_strmap_put(&s->kinds, name, v)) return false;
        }
    return true;
}

static void rg_side_free(rg_side *s) {
    ir_strmap_free(&s->cost);
    ir_strmap_free(&s->kinds);
    ir_strmap_free(&s->onnx);
    ir_strmap_free(&s->src);
    ir_strmap_free(&s->entry);
    ir_strmap_free(&s->matched);
    for (int i = 0; i < s->nkind_values; i++)
        free(s->kind_values[i]);
    free(s->kind_values);
}

/* Whether n is a parameter as the drawing sees it: a get_attr, or an op
 * that reads parameters only (a weight's DequantizeLinear, a Constant). */
static bool param_like(const nnfx_node *n) {
    nnfx_opcode oc = nnfx_node_opcode(n);
    if (oc == NNFX_GET_ATTR) return true;
    if (oc != NNFX_CALL_FUNCTION || nnfx_node_num_users(n) == 0) return false;
    for (int i = 0; i < nnfx_node_num_args(n); i++) {
        const nnfx_node *a = nnfx_node_arg_node(n, i);
        if (a && nnfx_node_opcode(a) != NNFX_GET_ATTR) return false;
    }
    for (int i = 0; i < nnfx_node_num_users(n); i++) /* a graph output stays drawn */
        if (nnfx_node_opcode(nnfx_node_user(n, i)) == NNFX_OUTPUT) return false;
    return true;
}

/* Whether n is drawn: inputs, op nodes and the output (not parameters,
 * not getitem, which is drawn as its producer). */
static bool drawn(const nnfx_node *n) {
    if (param_like(n)) return false;
    if (nnfx_node_opcode(n) == NNFX_CALL_FUNCTION && nnfx_node_is_op(n, NNFX_OP_GETITEM)) return false;
    return true;
}

/* The drawn node standing for n (a getitem's producer), NULL for a
 * parameter. */
static const nnfx_node *drawn_of(const nnfx_node *n) {
    while (n && nnfx_node_opcode(n) == NNFX_CALL_FUNCTION && nnfx_node_is_op(n, NNFX_OP_GETITEM))
        n = nnfx_node_arg_node(n, 0);
    return n && drawn(n) ? n : NULL;
}

static const char *op_label(const nnfx_node *n) {
    switch (nnfx_node_opcode(n)) {
    case NNFX_PLACEHOLDER: return "input";
    case NNFX_OUTPUT: return "output";
    default: return cli_node_op_label(n);
    }
}

/* The attributes of n as text: "kernel_shape=[3, 3], pads=[1, 1, 1, 1]". */
static void attrs_text(sbuf *b, const nnfx_node *n) {
    for (int i = 0; i < nnfx_node_num_attrs(n); i++) {
        const nnfx_attr *a = nnfx_node_attr_at(n, i);
        sb_printf(b, "%s%s=", i ? ", " : "", a->name);
        switch (a->kind) {
        case NNFX_ATTR_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
        case NNFX_ATTR_FLOAT: sb_printf(b, "%g", a->u.f); break;
        case NNFX_ATTR_STRING: sb_printf(b, "'%s'", a->u.s ? a->u.s : ""); break;
        case NNFX_ATTR_INTS:
            sb_printf(b, "[");
            for (int k = 0; k < a->u.ints.n && k < 16; k++)
                sb_printf(b, "%s%lld", k ? ", " : "", (long long)a->u.ints.v[k]);
            sb_printf(b, "%s]", a->u.ints.n > 16 ? ", ..." : "");
            break;
        case NNFX_ATTR_FLOATS:
            sb_printf(b, "[");
            for (int k = 0; k < a->u.floats.n && k < 16; k++)
                sb_printf(b, "%s%g", k ? ", " : "", a->u.floats.v[k]);
            sb_printf(b, "%s]", a->u.floats.n > 16 ? ", ..." : "");
            break;
        case NNFX_ATTR_TENSOR: sb_printf(b, "tensor"); break;
        case NNFX_ATTR_GRAPH: sb_printf(b, "graph"); break;
        }
    }
}

/* The parameters n reads: "conv1.weight float32[8, 1, 3, 3]; ...", a
 * parameter through an op as "DequantizeLinear(w int8[8, 1, 3, 3], ...)". */
static void params_text(sbuf *b, const nnfx_node *n) {
    char meta[256];
    int k = 0;
    for (int i = 0; i < nnfx_node_num_args(n); i++) {
        const nnfx_node *a = nnfx_node_arg_node(n, i);
        if (!a || !param_like(a)) continue;
        if (nnfx_node_opcode(a) == NNFX_GET_ATTR) {
            sb_printf(b, "%s%s %s", k++ ? "; " : "", nnfx_node_target(a),
                      nnfx_meta_str(nnfx_node_meta_c(a, 0), meta, sizeof meta));
            continue;
        }
        sb_printf(b, "%s%s(", k++ ? "; " : "", cli_node_op_label(a));
        for (int j = 0; j < nnfx_node_num_args(a); j++) {
            const nnfx_node *p = nnfx_node_arg_node(a, j);
            if (p)
                sb_printf(b, "%s%s %s", j ? ", " : "", nnfx_node_target(p),
                          nnfx_meta_str(nnfx_node_meta_c(p, 0), meta, sizeof meta));
        }
        sb_printf(b, ") %s", nnfx_meta_str(nnfx_node_meta_c(a, 0), meta, sizeof meta));
    }
}

/* Whether n computes in int8: a Conv/Gemm/MatMul whose data input comes
 * from a DequantizeLinear (the QDQ form). */
static bool is_int8(const nnfx_node *n) {
    if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION || nnfx_node_num_args(n) < 1) return false;
    if (!nnfx_node_is_op(n, NNFX_OP_CONV) && !nnfx_node_is_op(n, NNFX_OP_GEMM) && !nnfx_node_is_op(n, NNFX_OP_MATMUL))
        return false;
    const nnfx_node *x = nnfx_node_arg_node(n, 0);
    return x && nnfx_node_is_op(x, NNFX_OP_DEQUANTIZE_LINEAR);
}

/* The module path of n as groups "a/a.b/...": the node's own module path
 * (dotted: each prefix a group), else the directories of its ONNX node name
 * ("/layer1/layer1.0/conv1/Conv" -> "layer1/layer1.0/conv1"). */
static void group_path(sbuf *b, const rg_side *s, const nnfx_node *n) {
    const char *mp = nnfx_node_module_path(n);
    if (mp && *mp) {
        for (const char *p = mp; *p; p++) {
            if (*p == '.') {
                sb_append(b, mp, (size_t)(p - mp));
                sb_append(b, "/", 1);
            }
        }
        sb_printf(b, "%s", mp);
        return;
    }
    const char *on = ir_strmap_get(&s->onnx, nnfx_node_name(n));
    if (!on || *on != '/') return;
    const char *last = strrchr(on, '/');
    const char *p = on + 1;
    bool first = true;
    while (p < last) {
        const char *e = strchr(p, '/');
        if (e > p) {
            if (!first) sb_append(b, "/", 1);
            sb_append(b, p, (size_t)(e - p));
            first = false;
        }
        p = e + 1;
    }
}

/* The signature that decides "changed": attributes, output type,
 * parameters, int8 or float. */
static char *signature(const nnfx_node *n, char **parts) {
    char meta[256];
    sbuf a = {0}, p = {0};
    attrs_text(&a, n);
    params_text(&p, n);
    parts[0] = sb_finish(&a);
    parts[1] = strdup(nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta));
    parts[2] = sb_finish(&p);
    parts[3] = strdup(is_int8(n) ? "int8" : "float");
    return parts[0];
}

/* Why matched nodes a (before) and b (after) differ; NULL when they do
 * not (malloc'd). */
static char *change_of(const nnfx_node *a, const nnfx_node *b) {
    char *pa[4], *pb[4];
    signature(a, pa);
    signature(b, pb);
    static const char *const what[4] = {"attributes", "output", "parameters", "arithmetic"};
    sbuf w = {0};
    int k = 0;
    for (int i = 0; i < 4; i++) {
        if (pa[i] && pb[i] && strcmp(pa[i], pb[i]) != 0)
            sb_printf(&w, "%s%s: %s -> %s", k++ ? "\n" : "", what[i], *pa[i] ? pa[i] : "(none)",
                      *pb[i] ? pb[i] : "(none)");
        free(pa[i]);
        free(pb[i]);
    }
    char *s = sb_finish(&w);
    if (s && !*s) {
        free(s);
        s = NULL;
    }
    return s;
}

/* One drawn node: from the after graph (or the only graph), or a removed
 * node of the before graph. */
typedef struct rg_entry {
    const nnfx_node *n;
    rg_side *side;
    const nnfx_node *old; /* the before node it matches (compare) */
    const char *change;   /* NULL, "removed", "added", "changed" */
    char *why;            /* malloc'd */
} rg_entry;

typedef struct rg_view {
    rg_entry *e;
    int n, cap;
} rg_view;

static bool push(rg_view *v, rg_entry e) {
    if (v->n == v->cap) {
        int nc = v->cap ? v->cap * 2 : 256;
        rg_entry *ne = realloc(v->e, (size_t)nc * sizeof ne[0]);
        if (!ne) return false;
        v->e = ne;
        v->cap = nc;
    }
    v->e[v->n++] = e;
    return true;
}

/* The drawn data inputs of n, as drawn nodes of its own graph. */
static int inputs_of(const nnfx_node *n, const nnfx_node **out, int cap) {
    int k = 0;
    for (int i = 0; i < nnfx_node_num_args(n) && k < cap; i++) {
        const nnfx_node *a = drawn_of(nnfx_node_arg_node(n, i));
        if (!a) continue;
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= out[j] == a;
        if (!dup) out[k++] = a;
    }
    return k;
}

#define RG_MAX_IN 64

/* Matches the before graph's drawn nodes to the after graph's: by name and
 * op, then by position (same op and the same matched inputs), then the k-th
 * remaining node of an op to the k-th when both graphs have as many left.
 * Fills bs->matched (before name -> after node). */
static bool match_graphs(rg_side *bs, const nnfx_graph *gb, const nnfx_graph *ga) {
    ir_strmap after_by_name = {0}, taken = {0};
    bool ok = true;
    for (const nnfx_node *n = nnfx_graph_first(ga); n && ok; n = nnfx_node_next(n))
        if (drawn(n)) ok = ir_strmap_put(&after_by_name, nnfx_node_name(n), (void *)n);
    for (const nnfx_node *n = nnfx_graph_first(gb); n && ok; n = nnfx_node_next(n)) {
        if (!drawn(n)) continue;
        const nnfx_node *a = ir_strmap_get(&after_by_name, nnfx_node_name(n));
        if (a && strcmp(op_label(a), op_label(n)) == 0) {
            ok = ir_strmap_put(&bs->matched, nnfx_node_name(n), (void *)a) &&
                 ir_strmap_put(&taken, nnfx_node_name(a), (void *)1);
        }
    }
    /* by position: an unmatched after node whose inputs are the matches of an
     * unmatched before node's inputs, with the same op */
    for (const nnfx_node *a = nnfx_graph_first(ga); a && ok; a = nnfx_node_next(a)) {
        if (!drawn(a) || ir_strmap_get(&taken, nnfx_node_name(a))) continue;
        const nnfx_node *ia[RG_MAX_IN], *ib[RG_MAX_IN];
        int na = inputs_of(a, ia, RG_MAX_IN);
        for (const nnfx_node *b = nnfx_graph_first(gb); b && ok; b = nnfx_node_next(b)) {
            if (!drawn(b) || ir_strmap_get(&bs->matched, nnfx_node_name(b))) continue;
            if (strcmp(op_label(a), op_label(b)) != 0) continue;
            int nb = inputs_of(b, ib, RG_MAX_IN);
            if (nb != na) continue;
            bool same = true;
            for (int k = 0; k < na && same; k++)
                same = ir_strmap_get(&bs->matched, nnfx_node_name(ib[k])) == (void *)ia[k];
            if (!same) continue;
            ok = ir_strmap_put(&bs->matched, nnfx_node_name(b), (void *)a) &&
                 ir_strmap_put(&taken, nnfx_node_name(a), (void *)1);
            break;
        }
    }
    /* by order, per op, when both sides have the same number left */
    rg_table ops = {0};
    for (const nnfx_node *b = nnfx_graph_first(gb); b && ok; b = nnfx_node_next(b))
        if (drawn(b) && !ir_strmap_get(&bs->matched, nnfx_node_name(b))) rg_intern(&ops, op_label(b));
    for (int o = 1; o < ops.n && ok; o++) {
        int nb = 0, na = 0;
        for (const nnfx_node *b = nnfx_graph_first(gb); b; b = nnfx_node_next(b))
            nb += drawn(b) && !ir_strmap_get(&bs->matched, nnfx_node_name(b)) && strcmp(op_label(b), ops.s[o]) == 0;
        for (const nnfx_node *a = nnfx_graph_first(ga); a; a = nnfx_node_next(a))
            na += drawn(a) && !ir_strmap_get(&taken, nnfx_node_name(a)) && strcmp(op_label(a), ops.s[o]) == 0;
        if (na != nb) continue;
        const nnfx_node *a = nnfx_graph_first(ga);
        for (const nnfx_node *b = nnfx_graph_first(gb); b && ok; b = nnfx_node_next(b)) {
            if (!drawn(b) || ir_strmap_get(&bs->matched, nnfx_node_name(b)) || strcmp(op_label(b), ops.s[o]) != 0)
                continue;
            while (a && (!drawn(a) || ir_strmap_get(&taken, nnfx_node_name(a)) || strcmp(op_label(a), ops.s[o]) != 0))
                a = nnfx_node_next(a);
            if (!a) break;
            ok = ir_strmap_put(&bs->matched, nnfx_node_name(b), (void *)a) &&
                 ir_strmap_put(&taken, nnfx_node_name(a), (void *)1);
        }
    }
    rg_table_free(&ops);
    ir_strmap_free(&after_by_name);
    ir_strmap_free(&taken);
    return ok;
}

/* A removed node and the after position it is drawn after. */
typedef struct rg_anchored {
    int anchor, order;
    const nnfx_node *n;
} rg_anchored;

static int by_anchor(const void *x, const void *y) {
    const rg_anchored *a = x, *b = y;
    return a->anchor != b->anchor ? (a->anchor < b->anchor ? -1 : 1) : (a->order < b->order ? -1 : a->order > b->order);
}

/* The entries to draw: the after graph's drawn nodes in order, each removed
 * before node placed right after the last of its inputs. */
static bool build_view(rg_view *v, rg_side *as, rg_side *bs) {
    const nnfx_graph *ga = as->an->g;
    if (!bs) {
        for (const nnfx_node *n = nnfx_graph_first(ga); n; n = nnfx_node_next(n))
            if (drawn(n) && !push(v, (rg_entry){n, as, NULL, NULL, NULL})) return false;
        return true;
    }
    const nnfx_graph *gb = bs->an->g;
    if (!match_graphs(bs, gb, ga)) return false;
    /* anchor of each before node: the after node after which it goes (its
     * match, or the latest anchor of its inputs); position = order in ga */
    ir_strmap pos = {0}, anchor = {0}, old_of = {0};
    int np = 0;
    bool ok = true;
    for (const nnfx_node *n = nnfx_graph_first(ga); n && ok; n = nnfx_node_next(n))
        if (drawn(n)) ok = ir_strmap_put(&pos, nnfx_node_name(n), (void *)(intptr_t)(++np));
    int nb = 0;
    for (const nnfx_node *n = nnfx_graph_first(gb); n; n = nnfx_node_next(n))
        nb += drawn(n);
    const nnfx_node **removed = calloc((size_t)nb + 1, sizeof removed[0]);
    int *ranchor = calloc((size_t)nb + 1, sizeof ranchor[0]);
    int nr = 0;
    ok = ok && removed && ranchor;
    for (const nnfx_node *b = nnfx_graph_first(gb); b && ok; b = nnfx_node_next(b)) {
        if (!drawn(b)) continue;
        const nnfx_node *a = ir_strmap_get(&bs->matched, nnfx_node_name(b));
        if (a) {
            ok = ir_strmap_put(&anchor, nnfx_node_name(b), ir_strmap_get(&pos, nnfx_node_name(a))) &&
                 ir_strmap_put(&old_of, nnfx_node_name(a), (void *)b);
            continue;
        }
        const nnfx_node *in[RG_MAX_IN];
        int k = inputs_of(b, in, RG_MAX_IN);
        intptr_t at = 0;
        for (int i = 0; i < k; i++) {
            intptr_t p = (intptr_t)ir_strmap_get(&anchor, nnfx_node_name(in[i]));
            if (p > at) at = p;
        }
        ok = ir_strmap_put(&anchor, nnfx_node_name(b), (void *)at);
        removed[nr] = b;
        ranchor[nr++] = (int)at;
    }
    /* removed nodes in anchor order, before order within an anchor */
    rg_anchored *ra = calloc((size_t)nr + 1, sizeof ra[0]);
    ok = ok && ra;
    for (int i = 0; ok && i < nr; i++)
        ra[i] = (rg_anchored){ranchor[i], i, removed[i]};
    if (ok) qsort(ra, (size_t)nr, sizeof ra[0], by_anchor);
    int p = 0, r = 0;
    for (; ok && r < nr && ra[r].anchor == 0; r++) /* before the first after node */
        ok = push(v, (rg_entry){ra[r].n, bs, NULL, "removed", NULL});
    for (const nnfx_node *a = nnfx_graph_first(ga); a && ok; a = nnfx_node_next(a)) {
        if (!drawn(a)) continue;
        p++;
        const nnfx_node *old = ir_strmap_get(&old_of, nnfx_node_name(a));
        char *why = old ? change_of(old, a) : NULL;
        ok = push(v, (rg_entry){a, as, old, old ? (why ? "changed" : NULL) : "added", why});
        if (!ok) free(why);
        for (; ok && r < nr && ra[r].anchor == p; r++)
            ok = push(v, (rg_entry){ra[r].n, bs, NULL, "removed", NULL});
    }
    free(ra);
    free(removed);
    free(ranchor);
    ir_strmap_free(&pos);
    ir_strmap_free(&anchor);
    ir_strmap_free(&old_of);
    return ok;
}

/* Index of the entry drawing node n of side s (-1 if none). */
static int entry_of(const rg_side *as, const rg_side *bs, const rg_side *s, const nnfx_node *n) {
    if (s == bs) {
        const nnfx_node *a = ir_strmap_get(&bs->matched, nnfx_node_name(n));
        if (a) return (int)(intptr_t)ir_strmap_get(&as->entry, nnfx_node_name(a)) - 1;
    }
    return (int)(intptr_t)ir_strmap_get(&s->entry, nnfx_node_name(n)) - 1;
}

/* Writes the JSON of view v. */
static void view_json(sbuf *b, rg_view *v, rg_side *as, rg_side *bs, const ir_strmap *ms_of) {
    rg_table ops = {0}, groups = {0}, shapes = {0}, attrs = {0};
    char meta[256];
    sbuf nodes = {0};
    for (int i = 0; i < v->n; i++)
        ir_strmap_put(&v->e[i].side->entry, nnfx_node_name(v->e[i].n), (void *)(intptr_t)(i + 1));
    for (int i = 0; i < v->n; i++) {
        rg_entry *e = &v->e[i];
        const nnfx_node *n = e->n;
        const char *name = nnfx_node_name(n);
        sbuf t = {0};
        group_path(&t, e->side, n);
        char *gp = sb_finish(&t);
        attrs_text(&t, n);
        char *at = sb_finish(&t);
        params_text(&t, n);
        char *pt = sb_finish(&t);
        intptr_t ci = (intptr_t)ir_strmap_get(&e->side->cost, name);
        const cli_node_cost *c = ci ? &e->side->an->cost[ci - 1] : NULL;
        const char *src = ir_strmap_get(&e->side->src, name);
        const char *kinds = ir_strmap_get(&e->side->kinds, name);
        /* [name, source name, group, op, inputs (as distances back: i - j),
         *  macs, params, shape, attrs, parameters, findings, change, why,
         *  old inputs (distances), int8, ms per run], trailing defaults left out */
        sbuf f = {0};
        js_str(&f, name);
        sb_append(&f, ",", 1);
        js_str(&f, src && strcmp(src, name) ? src : "");
        sb_printf(&f, ",%d,%d,[", rg_intern(&groups, gp ? gp : ""), rg_intern(&ops, op_label(n)));
        const nnfx_node *in[RG_MAX_IN];
        int k = inputs_of(n, in, RG_MAX_IN), w = 0;
        for (int j = 0; j < k; j++) {
            int x = entry_of(as, bs, e->side, in[j]);
            if (x >= 0) sb_printf(&f, "%s%d", w++ ? "," : "", i - x);
        }
        const char *shape =
            nnfx_node_opcode(n) == NNFX_OUTPUT ? "" : nnfx_meta_str(nnfx_node_meta_c(n, 0), meta, sizeof meta);
        sb_printf(&f, "]");
        size_t ins_end = f.len, keep = 0; /* f's length through the inputs, and through the last
                                              field that is not a default */
        sb_printf(&f, ",%lld", c ? (long long)c->macs : 0LL);
        if (c && c->macs) keep = f.len;
        sb_printf(&f, ",%lld", c ? (long long)c->params : 0LL);
        if (c && c->params) keep = f.len;
        int si = rg_intern(&shapes, shape), ai = rg_intern(&attrs, at ? at : "");
        sb_printf(&f, ",%d", si);
        if (si) keep = f.len;
        sb_printf(&f, ",%d,", ai);
        if (ai) keep = f.len - 1;
        js_str(&f, pt);
        if (pt && *pt) keep = f.len;
        sb_append(&f, ",", 1);
        js_str(&f, kinds);
        if (kinds) keep = f.len;
        sb_append(&f, ",", 1);
        js_str(&f, e->change);
        if (e->change) keep = f.len;
        sb_append(&f, ",", 1);
        js_str(&f, e->why);
        if (e->why) keep = f.len;
        sb_append(&f, ",[", 2);
        /* edges the before graph had into this node from removed nodes */
        const nnfx_node *old = e->change && strcmp(e->change, "removed") == 0 ? NULL : e->old;
        w = 0;
        if (old) {
            k = inputs_of(old, in, RG_MAX_IN);
            for (int j = 0; j < k; j++)
                if (!ir_strmap_get(&bs->matched, nnfx_node_name(in[j]))) {
                    int x = entry_of(as, bs, bs, in[j]);
                    if (x >= 0) sb_printf(&f, "%s%d", w++ ? "," : "", i - x);
                }
        }
        sb_printf(&f, "]");
        if (w) keep = f.len;
        sb_printf(&f, ",%d", is_int8(n) ? 1 : 0);
        if (is_int8(n)) keep = f.len;
        const double *ms = ms_of ? ir_strmap_get(ms_of, name) : NULL;
        sb_printf(&f, ",%.4g", ms ? *ms : 0.0);
        if (ms) keep = f.len;
        char *fs = sb_finish(&f);
        if (fs) sb_printf(&nodes, "%s[%.*s]", i ? ",\n" : "", (int)(keep > ins_end ? keep : ins_end), fs);
        free(fs);
        free(gp);
        free(at);
        free(pt);
    }
    char *ns = sb_finish(&nodes);
    sb_printf(b, "{\"compare\":%s,\"timed\":%s", bs ? "true" : "false", ms_of ? "true" : "false");
    rg_table_json(b, "ops", &ops);
    rg_table_json(b, "groups", &groups);
    rg_table_json(b, "shapes", &shapes);
    rg_table_json(b, "attrs", &attrs);
    sb_printf(b, ",\"nodes\":[\n%s]}", ns ? ns : "");
    free(ns);
    rg_table_free(&ops);
    rg_table_free(&groups);
    rg_table_free(&shapes);
    rg_table_free(&attrs);
}

extern const char cli_report_graph_js[], cli_report_graph_css[];

const char *cli_report_graph_style(void) { return cli_report_graph_css; }

static void report_graph(sbuf *b, const cli_analysis *after, const cli_analysis *before, const ir_strmap *ms_of);

void cli_report_graph(sbuf *b, const cli_analysis *after, const cli_analysis *before) {
    report_graph(b, after, before, NULL);
}

void cli_report_graph_timed(sbuf *b, const cli_analysis *an, const ir_strmap *ms_of) {
    report_graph(b, an, NULL, ms_of);
}

static void report_graph(sbuf *b, const cli_analysis *after, const cli_analysis *before, const ir_strmap *ms_of) {
    rg_side as, bs;
    rg_view v = {0};
    bool ok = rg_side_init(&as, after);
    bool have_b = before != NULL;
    if (have_b) ok = rg_side_init(&bs, before) && ok;
    ok = ok && build_view(&v, &as, have_b ? &bs : NULL);
    sb_printf(b, "<div class=\"nnfx-graph\" id=\"nnfx-graph\"><div class=\"gbar\">"
                 "<button data-act=\"expand\">expand all</button><button data-act=\"collapse\">collapse all</button>"
                 "<button data-act=\"fit\">fit</button><input type=\"search\" placeholder=\"find a node\" "
                 "data-act=\"find\"><span class=\"glegend\"></span></div>"
                 "<div class=\"gwrap\"><svg class=\"gsvg\" xmlns=\"http://www.w3.org/2000/svg\"></svg>"
                 "<div class=\"gdetails\" hidden></div></div><div class=\"gnote\"></div></div>\n");
    if (ok) {
        sb_printf(b, "<script type=\"application/json\" id=\"nnfx-graph-data\">");
        view_json(b, &v, &as, have_b ? &bs : NULL, ms_of);
        sb_printf(b, "</script>\n<script>%s</script>\n", cli_report_graph_js);
    } else {
        sb_printf(b, "<p>No drawing: out of memory.</p>");
    }
    for (int i = 0; i < v.n; i++)
        free(v.e[i].why);
    free(v.e);
    rg_side_free(&as);
    if (have_b) rg_side_free(&bs);
}
