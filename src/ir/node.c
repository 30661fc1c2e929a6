/* node.c — node accessors, arguments, attributes and meta. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

char *ir_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* --- args and attrs constructors ----------------------------------------- */

nnfx_arg nnfx_arg_node(nnfx_node *n) {
    nnfx_arg a = {.kind = NNFX_ARG_NODE};
    a.u.node = n;
    return a;
}
nnfx_arg nnfx_arg_int(int64_t v) {
    nnfx_arg a = {.kind = NNFX_ARG_INT};
    a.u.i = v;
    return a;
}
nnfx_arg nnfx_arg_float(double v) {
    nnfx_arg a = {.kind = NNFX_ARG_FLOAT};
    a.u.f = v;
    return a;
}
nnfx_arg nnfx_arg_none(void) {
    nnfx_arg a = {.kind = NNFX_ARG_NONE};
    return a;
}

nnfx_attr nnfx_attr_int(const char *name, int64_t v) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_INT};
    a.u.i = v;
    return a;
}
nnfx_attr nnfx_attr_float(const char *name, double v) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_FLOAT};
    a.u.f = v;
    return a;
}
nnfx_attr nnfx_attr_string(const char *name, const char *s) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_STRING};
    a.u.s = s;
    return a;
}
nnfx_attr nnfx_attr_ints(const char *name, int n, const int64_t *v) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_INTS};
    a.u.ints.n = n;
    a.u.ints.v = v;
    return a;
}
nnfx_attr nnfx_attr_floats(const char *name, int n, const float *v) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_FLOATS};
    a.u.floats.n = n;
    a.u.floats.v = v;
    return a;
}
nnfx_attr nnfx_attr_tensor(const char *name, nnfx_tensor *t) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_TENSOR};
    a.u.t = t;
    return a;
}

nnfx_attr nnfx_attr_graph(const char *name, nnfx_graph *g) {
    nnfx_attr a = {.name = name, .kind = NNFX_ATTR_GRAPH};
    a.u.g = g;
    return a;
}

void ir_attr_free(nnfx_attr *a) {
    free((char *)a->name);
    switch (a->kind) {
    case NNFX_ATTR_STRING: free((char *)a->u.s); break;
    case NNFX_ATTR_INTS: free((int64_t *)a->u.ints.v); break;
    case NNFX_ATTR_FLOATS: free((float *)a->u.floats.v); break;
    case NNFX_ATTR_TENSOR: nnfx_tensor_release(a->u.t); break;
    case NNFX_ATTR_GRAPH: nnfx_graph_free(a->u.g); break;
    default: break;
    }
    a->name = NULL;
}

/* Node attributes keep their parts in the graph's arena. */
bool ir_node_attr_copy(nnfx_graph *g, nnfx_attr *dst, const nnfx_attr *a) {
    ir_arena *ar = &g->arena;
    *dst = *a;
    dst->name = ir_arena_strdup(ar, a->name ? a->name : "");
    if (!dst->name) return false;
    switch (a->kind) {
    case NNFX_ATTR_STRING:
        dst->u.s = ir_arena_strdup(ar, a->u.s ? a->u.s : "");
        if (!dst->u.s) goto fail;
        break;
    case NNFX_ATTR_INTS: {
        int n = a->u.ints.n > 0 ? a->u.ints.n : 0;
        int64_t *v = ir_arena_alloc(ar, sizeof *v * (size_t)n);
        if (!v) goto fail;
        if (n) memcpy(v, a->u.ints.v, sizeof *v * (size_t)n);
        dst->u.ints.v = v;
        dst->u.ints.n = n;
        break;
    }
    case NNFX_ATTR_FLOATS: {
        int n = a->u.floats.n > 0 ? a->u.floats.n : 0;
        float *v = ir_arena_alloc(ar, sizeof *v * (size_t)n);
        if (!v) goto fail;
        if (n) memcpy(v, a->u.floats.v, sizeof *v * (size_t)n);
        dst->u.floats.v = v;
        dst->u.floats.n = n;
        break;
    }
    case NNFX_ATTR_TENSOR: nnfx_tensor_retain(a->u.t); break;
    case NNFX_ATTR_GRAPH:
        /* a node owns its subgraphs: a deep copy (parameters shared until written) */
        if (a->u.g && !(dst->u.g = nnfx_graph_copy(a->u.g, NULL, NULL))) goto fail;
        break;
    default: break;
    }
    return true;
fail:
    ir_graph_free_str(g, (char *)dst->name);
    dst->name = NULL;
    return false;
}

void ir_node_attr_free(nnfx_graph *g, nnfx_attr *a) {
    ir_arena *ar = &g->arena;
    ir_graph_free_str(g, (char *)a->name);
    switch (a->kind) {
    case NNFX_ATTR_STRING: ir_graph_free_str(g, (char *)a->u.s); break;
    case NNFX_ATTR_INTS: ir_arena_free(ar, (int64_t *)a->u.ints.v, sizeof(int64_t) * (size_t)a->u.ints.n); break;
    case NNFX_ATTR_FLOATS: ir_arena_free(ar, (float *)a->u.floats.v, sizeof(float) * (size_t)a->u.floats.n); break;
    case NNFX_ATTR_TENSOR: nnfx_tensor_release(a->u.t); break;
    case NNFX_ATTR_GRAPH: nnfx_graph_free(a->u.g); break;
    default: break;
    }
    a->name = NULL;
}

void ir_graph_free_str(nnfx_graph *g, char *s) {
    if (s) ir_arena_free(&g->arena, s, strlen(s) + 1);
}

/* Header in front of a shared string's text. */
typedef struct sstr_hdr {
    uint32_t refs;
    uint32_t len;
} sstr_hdr;

static sstr_hdr *sstr_of(char *s) { return (sstr_hdr *)(void *)s - 1; }

/* A new shared string with one reference, or NULL on OOM. */
static char *sstr_new(nnfx_graph *g, const char *s, size_t len) {
    if (len > UINT32_MAX - sizeof(sstr_hdr) - 1) return NULL;
    sstr_hdr *h = ir_arena_alloc(&g->arena, sizeof *h + len + 1);
    if (!h) return NULL;
    h->refs = 1;
    h->len = (uint32_t)len;
    char *t = (char *)(h + 1);
    memcpy(t, s, len + 1);
    return t;
}

void ir_sstr_put(nnfx_graph *g, char *s) {
    if (!s) return;
    sstr_hdr *h = sstr_of(s);
    if (--h->refs == 0) ir_arena_free(&g->arena, h, sizeof *h + h->len + 1);
}

char *ir_sstr_ref(char *s) {
    sstr_of(s)->refs++;
    return s;
}

char *ir_sstr_get(nnfx_graph *g, char **recent, const char *s) {
    /* one strcmp per recent string (most calls match the first): no
     * strlen unless a new string is made */
    for (int k = 0; recent && k < 2; k++) {
        char *r = recent[k];
        if (r && r[0] == s[0] && strcmp(r, s) == 0) {
            sstr_of(r)->refs++;
            if (k) recent[1] = recent[0], recent[0] = r; /* most recent first */
            return r;
        }
    }
    char *t = sstr_new(g, s, strlen(s));
    if (t && recent) {
        ir_sstr_put(g, recent[1]);
        recent[1] = recent[0];
        recent[0] = t;
        sstr_of(t)->refs++; /* the recent list's reference */
    }
    return t;
}

bool ir_node_set_target(nnfx_node *n, const char *target) {
    char *t = target ? ir_sstr_get(n->graph, NULL, target) : NULL;
    if (target && !t) return false;
    ir_sstr_put(n->graph, n->target);
    n->target = t;
    n->param_idx = 0;
    return true;
}

/* --- meta ------------------------------------------------------------------ */

void nnfx_meta_set_shape(nnfx_meta *m, nnfx_dtype dt, int rank, const int64_t *dims) {
    memset(m, 0, sizeof *m);
    m->dtype = dt;
    m->rank = rank;
    for (int i = 0; i < rank && i < NNFX_MAX_RANK; i++)
        m->dims[i].value = dims[i];
}

bool nnfx_meta_is_static(const nnfx_meta *m) {
    if (!m || m->rank < 0) return false;
    for (int i = 0; i < m->rank; i++)
        if (m->dims[i].value < 0) return false;
    return true;
}

int64_t nnfx_meta_numel(const nnfx_meta *m) {
    if (!nnfx_meta_is_static(m) || m->rank > NNFX_MAX_RANK) return -1;
    int64_t dims[NNFX_MAX_RANK];
    for (int i = 0; i < m->rank; i++)
        dims[i] = m->dims[i].value;
    return nnfx_shape_numel(m->rank, dims);
}

int64_t nnfx_meta_nbytes(const nnfx_meta *m) {
    if (!nnfx_meta_is_static(m) || m->rank > NNFX_MAX_RANK) return -1;
    int64_t dims[NNFX_MAX_RANK];
    for (int i = 0; i < m->rank; i++)
        dims[i] = m->dims[i].value;
    size_t b;
    return nnfx_shape_nbytes(m->dtype, m->rank, dims, &b, NULL) ? -1 : (int64_t)b;
}

char *nnfx_meta_str(const nnfx_meta *m, char *buf, size_t len) {
    if (!len) return buf;
    if (!m || m->rank < 0) {
        snprintf(buf, len, "%s[?]", m ? nnfx_dtype_name(m->dtype) : "?");
        return buf;
    }
    size_t off = (size_t)snprintf(buf, len, "%s[", nnfx_dtype_name(m->dtype));
    for (int i = 0; i < m->rank && off < len; i++) {
        const char *sep = i ? ", " : "";
        if (m->dims[i].value >= 0)
            off += (size_t)snprintf(buf + off, len - off, "%s%lld", sep, (long long)m->dims[i].value);
        else
            off += (size_t)snprintf(buf + off, len - off, "%s%s", sep, *ir_sym(&m->dims[i]) ? m->dims[i].symbol : "?");
    }
    if (off < len) snprintf(buf + off, len - off, "]");
    return buf;
}

/* --- accessors --------------------------------------------------------------- */

nnfx_graph *nnfx_node_graph(const nnfx_node *n) { return n ? n->graph : NULL; }
const char *nnfx_node_name(const nnfx_node *n) { return n ? n->name : ""; }
uint64_t nnfx_node_serial(const nnfx_node *n) { return n ? n->serial : 0; }

int nnfx_graph_nodes(const nnfx_graph *g, const nnfx_node *from, bool reverse, nnfx_node_info *out, int cap) {
    if (!g) return 0;
    const nnfx_node *n = from ? from : reverse ? g->tail : g->head;
    int k = 0;
    for (; n && (!out || k < cap); n = reverse ? n->prev : n->next, k++)
        if (out)
            out[k] = (nnfx_node_info){(nnfx_node *)n, n->serial, (int)n->opcode,
                                      n->opcode == NNFX_CALL_FUNCTION ? (int)n->op : 0};
    return k;
}
int nnfx_graph_all_args(const nnfx_graph *g, uint64_t *out, int cap) {
    if (!g) return 0;
    if (!out) cap = 0;
    int k = 0;
    for (const nnfx_node *n = g->head; n; n = n->next) {
        if (k < cap) out[k] = (uint64_t)n->nargs;
        k++;
        for (int i = 0; i < n->nargs; i++, k += 2) {
            const nnfx_arg *a = &n->args[i];
            uint64_t v = 0;
            if (a->kind == NNFX_ARG_NODE)
                v = (uint64_t)(uintptr_t)a->u.node;
            else if (a->kind == NNFX_ARG_INT)
                v = (uint64_t)a->u.i;
            else if (a->kind == NNFX_ARG_FLOAT)
                memcpy(&v, &a->u.f, sizeof v);
            if (k + 1 < cap) {
                out[k] = (uint64_t)a->kind;
                out[k + 1] = v;
            }
        }
    }
    return k;
}
size_t nnfx_graph_targets(const nnfx_graph *g, char *out, size_t cap) {
    if (!g) return 0;
    if (!out) cap = 0;
    size_t k = 0;
    for (const nnfx_node *n = g->head; n; n = n->next) {
        const char *t = n->opcode == NNFX_CALL_FUNCTION ? "" : nnfx_node_target(n);
        size_t len = strlen(t) + 1; /* with its NUL */
        if (k + len <= cap) memcpy(out + k, t, len);
        k += len;
    }
    return k;
}

int nnfx_node_args(const nnfx_node *n, nnfx_arg *out, int cap) {
    if (!n) return 0;
    if (!out) cap = 0;
    for (int i = 0; i < n->nargs && i < cap; i++) {
        memset(&out[i], 0, sizeof out[i]); /* no stale padding: a binding may read the words */
        out[i].kind = n->args[i].kind;
        out[i].u = n->args[i].u;
    }
    return n->nargs;
}

int nnfx_node_users(const nnfx_node *n, nnfx_node **out, int cap) {
    if (!n) return 0;
    if (!out) cap = 0;
    for (int i = 0; i < n->nusers && i < cap; i++)
        out[i] = n->users[i];
    return n->nusers;
}
nnfx_opcode nnfx_node_opcode(const nnfx_node *n) { return n->opcode; }
nnfx_op nnfx_node_op(const nnfx_node *n) { return n && n->opcode == NNFX_CALL_FUNCTION ? n->op : NNFX_OP_NONE; }
bool nnfx_node_is_op(const nnfx_node *n, nnfx_op op) { return n && n->opcode == NNFX_CALL_FUNCTION && n->op == op; }

const char *nnfx_node_target(const nnfx_node *n) {
    if (!n) return "";
    if (n->opcode == NNFX_CALL_FUNCTION) return nnfx_op_name(n->op);
    if (n->opcode == NNFX_OUTPUT) return "output";
    return n->target ? n->target : "";
}

int nnfx_node_num_args(const nnfx_node *n) { return n ? n->nargs : 0; }

nnfx_arg nnfx_node_arg(const nnfx_node *n, int i) {
    if (!n || i < 0 || i >= n->nargs) return nnfx_arg_none();
    return n->args[i];
}

nnfx_node *nnfx_node_arg_node(const nnfx_node *n, int i) {
    if (!n || i < 0 || i >= n->nargs || n->args[i].kind != NNFX_ARG_NODE) return NULL;
    return n->args[i].u.node;
}

int nnfx_node_num_attrs(const nnfx_node *n) { return n ? n->nattrs : 0; }
const nnfx_attr *nnfx_node_attr_at(const nnfx_node *n, int i) {
    return n && i >= 0 && i < n->nattrs ? &n->attrs[i] : NULL;
}

const nnfx_attr *nnfx_node_attr(const nnfx_node *n, const char *name) {
    if (!n || !name) return NULL;
    for (int i = 0; i < n->nattrs; i++) /* the first byte first: most names differ there */
        if (n->attrs[i].name[0] == name[0] && strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

int64_t nnfx_node_attr_int(const nnfx_node *n, const char *name, int64_t dflt) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    if (a) return a->kind == NNFX_ATTR_FLOAT ? (int64_t)a->u.f : a->u.i;
    const char *d;
    if (n && n->opcode == NNFX_CALL_FUNCTION && ir_schema_lookup(n->op, name, NULL, &d) && d)
        return strtoll(d, NULL, 10);
    return dflt;
}

double nnfx_node_attr_float(const nnfx_node *n, const char *name, double dflt) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    if (a) return a->kind == NNFX_ATTR_INT ? (double)a->u.i : a->u.f;
    const char *d;
    if (n && n->opcode == NNFX_CALL_FUNCTION && ir_schema_lookup(n->op, name, NULL, &d) && d) return strtod(d, NULL);
    return dflt;
}

const char *nnfx_node_attr_string(const nnfx_node *n, const char *name, const char *dflt) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    if (a && a->kind == NNFX_ATTR_STRING) return a->u.s;
    return dflt;
}

nnfx_status nnfx_node_set_attr(nnfx_node *n, const nnfx_attr *a, nnfx_error *err) {
    if (!n || !a || !a->name) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_attr: NULL node or attribute");
    nnfx_graph *g = n->graph;
    nnfx_attr copy;
    if (!ir_node_attr_copy(g, &copy, a)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    n->had_subgraph |= copy.kind == NNFX_ATTR_GRAPH;
    for (int i = 0; i < n->nattrs; i++) {
        if (strcmp(n->attrs[i].name, a->name) == 0) {
            ir_node_attr_free(g, &n->attrs[i]);
            n->attrs[i] = copy;
            n->infer_dirty = true;
            n->attrs_linted = false;
            ir_graph_touch(g);
            return NNFX_OK;
        }
    }
    nnfx_attr *na = ir_arena_alloc(&g->arena, sizeof *na * (size_t)(n->nattrs + 1));
    if (!na) {
        ir_node_attr_free(g, &copy);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    if (n->nattrs) memcpy(na, n->attrs, sizeof *na * (size_t)n->nattrs);
    ir_arena_free(&g->arena, n->attrs, sizeof *na * (size_t)n->nattrs);
    n->attrs = na;
    n->attrs[n->nattrs++] = copy;
    n->infer_dirty = true;
    n->attrs_linted = false;
    ir_graph_touch(n->graph);
    return NNFX_OK;
}

int nnfx_node_num_users(const nnfx_node *n) { return n ? n->nusers : 0; }
nnfx_node *nnfx_node_user(const nnfx_node *n, int i) { return n && i >= 0 && i < n->nusers ? n->users[i] : NULL; }
int nnfx_node_num_outputs(const nnfx_node *n) { return n ? n->nout : 0; }

nnfx_meta *nnfx_node_meta(nnfx_node *n, int i) {
    if (!n || i < 0 || i >= n->nout) return NULL;
    n->infer_dirty = true; /* the caller may write it */
    return &n->meta[i];
}
const nnfx_meta *nnfx_node_meta_c(const nnfx_node *n, int i) {
    if (!n || i < 0 || i >= n->nout) return NULL;
    return &n->meta[i];
}

const char *nnfx_node_module_path(const nnfx_node *n) { return n && n->module_path ? n->module_path : ""; }

nnfx_status nnfx_node_set_module_path(nnfx_node *n, const char *path, nnfx_error *err) {
    if (!n) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_module_path: NULL node");
    if (n->module_path && path && strcmp(n->module_path, path) == 0) return NNFX_OK;
    char *p = NULL;
    if (path && *path && !(p = ir_sstr_get(n->graph, n->graph->recent_paths, path)))
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    ir_sstr_put(n->graph, n->module_path);
    n->module_path = p;
    return NNFX_OK;
}

const char *nnfx_node_src_file(const nnfx_node *n) { return n ? n->src_file : NULL; }
int nnfx_node_src_line(const nnfx_node *n) { return n ? n->src_line : 0; }
void nnfx_node_set_src(nnfx_node *n, const char *file, int line) {
    if (!n) return;
    if (n->src_file && file && strcmp(n->src_file, file) == 0) {
        n->src_line = line;
        return;
    }
    char *f = file ? ir_sstr_get(n->graph, n->graph->recent_files, file) : NULL;
    ir_sstr_put(n->graph, n->src_file);
    n->src_file = f;
    n->src_line = f ? line : 0;
}

bool nnfx_node_is_impure(const nnfx_node *n) {
    if (!n) return false;
    switch (n->opcode) {
    case NNFX_PLACEHOLDER:
    case NNFX_OUTPUT:
    case NNFX_CALL_MODULE: return true;
    case NNFX_GET_ATTR: return false;
    case NNFX_CALL_FUNCTION:
        if (nnfx_op_flags(n->op) & NNFX_F_IMPURE) return true;
        /* a control-flow node is impure when a node of its bodies is */
        for (int i = 0; n->had_subgraph && i < n->nattrs; i++) {
            const nnfx_graph *b = n->attrs[i].kind == NNFX_ATTR_GRAPH ? n->attrs[i].u.g : NULL;
            for (const nnfx_node *m = b ? b->head : NULL; m; m = m->next)
                if ((m->opcode == NNFX_CALL_FUNCTION || m->opcode == NNFX_CALL_MODULE) && nnfx_node_is_impure(m))
                    return true;
        }
        return false;
    }
    return true;
}

int nnfx_node_num_subgraphs(const nnfx_node *n) {
    int k = 0;
    if (!n || !n->had_subgraph) return 0;
    for (int i = 0; i < n->nattrs; i++)
        k += n->attrs[i].kind == NNFX_ATTR_GRAPH && n->attrs[i].u.g;
    return k;
}

nnfx_graph *nnfx_node_subgraph(const nnfx_node *n, int i) {
    for (int k = 0; n && n->had_subgraph && k < n->nattrs; k++)
        if (n->attrs[k].kind == NNFX_ATTR_GRAPH && n->attrs[k].u.g && i-- == 0) return n->attrs[k].u.g;
    return NULL;
}

nnfx_status ir_node_set_num_outputs(nnfx_node *n, int k, nnfx_error *err) {
    if (k < 1 || k > NNFX_MAX_RANK)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "node %s: %d outputs (1..%d supported)", n->name, k,
                              NNFX_MAX_RANK);
    if (k == n->nout) return NNFX_OK;
    n->infer_dirty = true;
    nnfx_meta *m = ir_arena_alloc(&n->graph->arena, sizeof *m * (size_t)k);
    if (!m) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    memcpy(m, n->meta, sizeof *m * (size_t)(k < n->nout ? k : n->nout));
    ir_arena_free(&n->graph->arena, n->meta, sizeof *m * (size_t)n->nout);
    for (int i = n->nout; i < k; i++) {
        memset(&m[i], 0, sizeof m[i]);
        m[i].rank = -1;
    }
    n->meta = m;
    n->nout = k;
    return NNFX_OK;
}
