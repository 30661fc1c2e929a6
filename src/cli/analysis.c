/* analysis.c — sizes, costs (from the op table's cost functions), peak
 * activation memory and findings of a graph. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analysis.h"

const char *cli_node_op_label(const nnfx_node *n) {
    if (nnfx_node_opcode(n) == NNFX_CALL_MODULE) return nnfx_node_target(n);
    nnfx_op op = nnfx_node_op(n);
    const char *t = nnfx_op_onnx_type(op);
    return t && *t ? t : nnfx_op_name(op);
}

char *cli_human_count(int64_t v, char *buf, size_t len) {
    double d = (double)v;
    if (v >= 1000000000LL)
        snprintf(buf, len, "%.3g G", d / 1e9);
    else if (v >= 1000000LL)
        snprintf(buf, len, "%.3g M", d / 1e6);
    else if (v >= 1000LL)
        snprintf(buf, len, "%.3g K", d / 1e3);
    else
        snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

char *cli_human_bytes(int64_t v, char *buf, size_t len) {
    double d = (double)v;
    if (v < 0)
        snprintf(buf, len, "?");
    else if (v >= (1LL << 30))
        snprintf(buf, len, "%.3g GiB", d / (double)(1LL << 30));
    else if (v >= (1LL << 20))
        snprintf(buf, len, "%.3g MiB", d / (double)(1LL << 20));
    else if (v >= 1024)
        snprintf(buf, len, "%.3g KiB", d / 1024.0);
    else
        snprintf(buf, len, "%lld B", (long long)v);
    return buf;
}

/* Elements and bytes of a parameter's static shape (from its meta: the
 * data is not read); 0 for a shape that is not static or too large. */
static int64_t meta_numel(const nnfx_meta *m) {
    int64_t n = nnfx_meta_numel(m);
    return n > 0 ? n : 0;
}
static int64_t meta_bytes(const nnfx_meta *m) {
    int64_t n = nnfx_meta_nbytes(m);
    return n > 0 ? n : 0;
}
/* *acc += v, stopping at INT64_MAX (costs of absurd shapes saturate). */
static void sat_add(int64_t *acc, int64_t v) {
    if (__builtin_add_overflow(*acc, v, acc)) *acc = INT64_MAX;
}

static char *xstrdup(const char *s) {
    char *d = malloc(strlen(s) + 1);
    if (d) strcpy(d, s);
    return d;
}

static char *xprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *xprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* --- findings ------------------------------------------------------------------ */

/* Adds a finding; names are copied. Returns false on out of memory. */
static bool add_finding(cli_analysis *an, const char *kind, int nnames, const char *const *names, char *message,
                        char *suggestion) {
    cli_finding *f = realloc(an->findings, sizeof *f * (size_t)(an->nfindings + 1));
    if (!f || !message || !suggestion) {
        if (f) an->findings = f;
        free(message);
        free(suggestion);
        return false;
    }
    an->findings = f;
    cli_finding *x = &f[an->nfindings];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->message = message;
    x->suggestion = suggestion;
    x->nodes = calloc((size_t)(nnames ? nnames : 1), sizeof *x->nodes);
    if (!x->nodes) {
        free(message);
        free(suggestion);
        return false;
    }
    an->nfindings++;
    for (int i = 0; i < nnames; i++) {
        x->nodes[i] = xstrdup(names[i]);
        if (!x->nodes[i]) return false;
        x->nnodes++;
    }
    return true;
}

bool cli_analysis_add_finding(cli_analysis *an, const char *kind, int nnames, const char *const *names, char *message,
                              char *suggestion) {
    return add_finding(an, kind, nnames, names, message, suggestion);
}

/* Per-node scratch: index in graph order and flags. */
typedef struct node_info {
    const nnfx_node *n;
    bool live;     /* contributes to an output (or is impure)    */
    bool constant; /* value depends on parameters only          */
    bool seen;     /* visited while collecting a subgraph       */
} node_info;

typedef struct graph_index {
    int n;
    node_info *info;
    nnfx_value_map *pos; /* node -> index + 1 */
} graph_index;

static int index_of(const graph_index *gi, const nnfx_node *n) {
    return (int)(intptr_t)nnfx_value_map_get(gi->pos, n) - 1;
}

/* Builds the index and marks live nodes (reverse walk from the output and
 * from impure nodes). */
static bool index_build(const nnfx_graph *g, graph_index *gi) {
    gi->n = nnfx_graph_num_nodes(g);
    gi->info = calloc((size_t)(gi->n ? gi->n : 1), sizeof *gi->info);
    if (!gi->info) return false;
    int i = 0;
    for (const nnfx_node *n = nnfx_graph_first(g); n && i < gi->n; n = nnfx_node_next(n))
        gi->info[i++].n = n;
    gi->n = i;
    gi->pos = nnfx_value_map_new();
    if (!gi->pos) return false;
    for (i = 0; i < gi->n; i++)
        if (!nnfx_value_map_put(gi->pos, gi->info[i].n, (nnfx_node *)(intptr_t)(i + 1))) return false;
    return true;
}

/* Marks liveness: a reverse walk; a node is live when it is the output,
 * impure, or read by a live node. */
static void mark_live(graph_index *gi, const nnfx_graph *g) {
    (void)g;
    for (int i = gi->n - 1; i >= 0; i--) {
        const nnfx_node *n = gi->info[i].n;
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (oc == NNFX_OUTPUT || (oc != NNFX_PLACEHOLDER && oc != NNFX_GET_ATTR && nnfx_node_is_impure(n)))
            gi->info[i].live = true;
        if (!gi->info[i].live) {
            /* live when any user is live */
            for (int u = 0; u < nnfx_node_num_users(n); u++) {
                int k = index_of(gi, nnfx_node_user(n, u));
                if (k >= 0 && gi->info[k].live) {
                    gi->info[i].live = true;
                    break;
                }
            }
        }
    }
}

static void mark_constant(graph_index *gi) {
    for (int i = 0; i < gi->n; i++) {
        const nnfx_node *n = gi->info[i].n;
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (oc == NNFX_GET_ATTR) {
            gi->info[i].constant = true;
            continue;
        }
        if (oc != NNFX_CALL_FUNCTION || nnfx_node_is_impure(n)) continue;
        if (nnfx_node_is_op(n, NNFX_OP_DEQUANTIZE_LINEAR)) continue; /* int8 weights stay int8 (QDQ form) */
        bool all = true;
        for (int a = 0; a < nnfx_node_num_args(n) && all; a++) {
            const nnfx_node *src = nnfx_node_arg_node(n, a);
            if (!src) continue;
            int k = index_of(gi, src);
            if (k < 0 || !gi->info[k].constant) all = false;
        }
        gi->info[i].constant = all;
    }
}

static bool same_meta(const nnfx_meta *a, const nnfx_meta *b) {
    if (!a || !b || a->rank < 0 || a->rank != b->rank || a->dtype != b->dtype) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d].value < 0 || a->dims[d].value != b->dims[d].value) return false;
    return true;
}

/* Why n does nothing at inference, or NULL. */
static const char *noop_reason(const nnfx_node *n) {
    if (nnfx_node_opcode(n) != NNFX_CALL_FUNCTION) return NULL;
    nnfx_op op = nnfx_node_op(n);
    if (op == NNFX_OP_IDENTITY) return "Identity returns its input unchanged";
    if (op == NNFX_OP_DROPOUT) return "Dropout does nothing at inference";
    if (nnfx_op_flags(op) & NNFX_F_NOOP) return "the op returns its input at inference";
    const nnfx_node *src = nnfx_node_arg_node(n, 0);
    if (!src) return NULL;
    const nnfx_meta *in = nnfx_node_meta_c(src, 0), *out = nnfx_node_meta_c(n, 0);
    switch (op) {
    case NNFX_OP_RESHAPE:
    case NNFX_OP_FLATTEN:
    case NNFX_OP_SQUEEZE:
    case NNFX_OP_UNSQUEEZE:
    case NNFX_OP_EXPAND:
        if (nnfx_node_num_outputs(src) == 1 && same_meta(in, out))
            return "the output has the same shape as the input (a reshape to the same shape)";
        return NULL;
    case NNFX_OP_CAST:
        if (in && out && in->dtype != NNFX_DTYPE_UNDEFINED && in->dtype == out->dtype)
            return "a Cast to the type the value already has";
        return NULL;
    case NNFX_OP_TRANSPOSE: {
        const nnfx_attr *perm = nnfx_node_attr(n, "perm");
        if (!perm || perm->kind != NNFX_ATTR_INTS || perm->u.ints.n == 0) return NULL;
        for (int i = 0; i < perm->u.ints.n; i++)
            if (perm->u.ints.v[i] != i) return NULL;
        return "a Transpose with the identity permutation";
    }
    default: return NULL;
    }
}

/* The get_attr node p stands for, looking through no-op nodes (torch's
 * exporter routes shared weights through Identity); NULL when p is not a
 * parameter. *through is set when a no-op was crossed. */
static const nnfx_node *param_source(const nnfx_node *p, bool *through) {
    while (p && nnfx_node_opcode(p) == NNFX_CALL_FUNCTION && (nnfx_op_flags(nnfx_node_op(p)) & NNFX_F_NOOP) &&
           nnfx_node_num_outputs(p) == 1) {
        p = nnfx_node_arg_node(p, 0);
        *through = true;
    }
    return p && nnfx_node_opcode(p) == NNFX_GET_ATTR ? p : NULL;
}

static bool find_foldable_bn(cli_analysis *an, const char *model) {
    for (const nnfx_node *n = nnfx_graph_first(an->g); n; n = nnfx_node_next(n)) {
        if (!nnfx_node_is_op(n, NNFX_OP_BATCH_NORM)) continue;
        const nnfx_node *src = nnfx_node_arg_node(n, 0);
        if (!src || !(nnfx_node_is_op(src, NNFX_OP_CONV) || nnfx_node_is_op(src, NNFX_OP_GEMM))) continue;
        int users = nnfx_node_num_users(src);
        bool params = true, through = false;
        for (int a = 1; a < 5; a++)
            if (!param_source(nnfx_node_arg_node(n, a), &through)) params = false;
        for (int a = 1; a < nnfx_node_num_args(src); a++)
            if (nnfx_node_arg_node(src, a) && !param_source(nnfx_node_arg_node(src, a), &through)) params = false;
        if (!params) continue;
        const char *names[2] = {nnfx_node_name(src), nnfx_node_name(n)};
        if (users != 1) {
            /* fuse-conv-bn leaves it (folding would change the producer's
             * other users): a finding of its own, so a pipeline can gate on it */
            if (!add_finding(an, "unfoldable_batch_norm", 2, names,
                             xprintf("BatchNormalization '%s' follows %s '%s', whose output has %d users: "
                                     "fuse-conv-bn cannot fold it without changing the others",
                                     names[1], cli_node_op_label(src), names[0], users),
                             xprintf("give the BatchNormalization its own copy of %s '%s' in %s (fuse-conv-bn "
                                     "then folds it), or keep it where the target runs BatchNormalization",
                                     cli_node_op_label(src), names[0], model)))
                return false;
            continue;
        }
        if (!add_finding(an, "foldable_batch_norm", 2, names,
                         xprintf("BatchNormalization '%s' follows %s '%s' and can be folded into its weights", names[1],
                                 cli_node_op_label(src), names[0]),
                         xprintf("nnfx optimize %s -o OUT %s--pass fuse-conv-bn --validate --random 4", model,
                                 through ? "--pass remove-identity " : "")))
            return false;
    }
    return true;
}

static bool find_liveness(cli_analysis *an, graph_index *gi, const char *model) {
    /* dead nodes: op nodes (and parameter reads) that reach no output */
    int ndead = 0;
    const char **dead = calloc((size_t)(gi->n ? gi->n : 1), sizeof *dead);
    if (!dead) return false;
    for (int i = 0; i < gi->n; i++) {
        const nnfx_node *n = gi->info[i].n;
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (gi->info[i].live || oc == NNFX_PLACEHOLDER || oc == NNFX_OUTPUT || oc == NNFX_GET_ATTR) continue;
        dead[ndead++] = nnfx_node_name(n);
    }
    bool ok = true;
    if (ndead)
        ok = add_finding(an, "dead_node", ndead, dead,
                         xprintf("%d node%s compute%s values that reach no output (first: '%s')", ndead,
                                 ndead == 1 ? "" : "s", ndead == 1 ? "s" : "", dead[0]),
                         xprintf("nnfx optimize %s -o OUT --pass dce", model));
    free(dead);
    for (int i = 0; ok && i < gi->n; i++) {
        const nnfx_node *n = gi->info[i].n;
        if (nnfx_node_opcode(n) != NNFX_PLACEHOLDER || gi->info[i].live) continue;
        const char *nm = nnfx_node_name(n);
        ok = add_finding(an, "unused_input", 1, &nm, xprintf("graph input '%s' is not used by any output", nm),
                         xprintf("remove the input from the model (callers must still feed it until then)"));
    }
    /* parameters no live get_attr node reads */
    int np = nnfx_graph_num_params(an->g);
    for (int p = 0; ok && p < np; p++) {
        const char *pname = nnfx_graph_param_name(an->g, p);
        bool used = false, read = false;
        for (int i = 0; i < gi->n && !used; i++) {
            const nnfx_node *n = gi->info[i].n;
            if (nnfx_node_opcode(n) == NNFX_GET_ATTR && strcmp(nnfx_node_target(n), pname) == 0) {
                read = true;
                if (gi->info[i].live) used = true;
            }
        }
        if (used) continue;
        nnfx_meta pm;
        char bytes[32];
        cli_human_bytes(nnfx_graph_param_meta_at(an->g, p, &pm) ? meta_bytes(&pm) : 0, bytes, sizeof bytes);
        ok = add_finding(
            an, "unused_initializer", 1, &pname,
            xprintf("parameter '%s' (%s) is %s", pname, bytes, read ? "read only by dead nodes" : "never read"),
            xprintf("nnfx optimize %s -o OUT --pass dce", model));
    }
    return ok;
}

static bool find_noops(cli_analysis *an, graph_index *gi, const char *model) {
    for (int i = 0; i < gi->n; i++) {
        if (!gi->info[i].live) continue;
        const char *why = noop_reason(gi->info[i].n);
        if (!why) continue;
        const char *nm = nnfx_node_name(gi->info[i].n);
        if (!add_finding(an, "noop", 1, &nm, xprintf("'%s' (%s): %s", nm, cli_node_op_label(gi->info[i].n), why),
                         xprintf("nnfx optimize %s -o OUT --pass remove-identity", model)))
            return false;
    }
    return true;
}

/* Collects the constant call nodes feeding root (root included). */
static int collect_constant(graph_index *gi, int root, const char **names, int cap) {
    int count = 0;
    int *stack = malloc(sizeof *stack * (size_t)(gi->n ? gi->n : 1));
    if (!stack) return 0;
    int sp = 0;
    stack[sp++] = root;
    gi->info[root].seen = true;
    while (sp) {
        int k = stack[--sp];
        if (count < cap) names[count++] = nnfx_node_name(gi->info[k].n);
        const nnfx_node *n = gi->info[k].n;
        for (int a = 0; a < nnfx_node_num_args(n); a++) {
            const nnfx_node *src = nnfx_node_arg_node(n, a);
            int j = src ? index_of(gi, src) : -1;
            if (j < 0 || gi->info[j].seen || !gi->info[j].constant) continue;
            if (nnfx_node_opcode(gi->info[j].n) != NNFX_CALL_FUNCTION) continue;
            gi->info[j].seen = true;
            stack[sp++] = j;
        }
    }
    free(stack);
    return count;
}

static bool find_constant_subgraphs(cli_analysis *an, graph_index *gi, const char *model) {
    const char **names = calloc((size_t)(gi->n ? gi->n : 1), sizeof *names);
    if (!names) return false;
    bool ok = true;
    for (int i = 0; ok && i < gi->n; i++) {
        const nnfx_node *n = gi->info[i].n;
        if (!gi->info[i].constant || !gi->info[i].live || nnfx_node_opcode(n) != NNFX_CALL_FUNCTION) continue;
        if (nnfx_node_is_op(n, NNFX_OP_CONSTANT) || nnfx_node_is_op(n, NNFX_OP_GETITEM)) continue;
        /* a root: some user is not constant */
        bool root = false;
        for (int u = 0; u < nnfx_node_num_users(n) && !root; u++) {
            int k = index_of(gi, nnfx_node_user(n, u));
            if (k < 0 || !gi->info[k].constant) root = true;
        }
        if (!root) continue;
        int cnt = collect_constant(gi, i, names, gi->n);
        /* a lone no-op over a parameter (an Identity torch's exporter adds for a
         * shared tensor) is already reported as a noop */
        if (cnt == 1 && (nnfx_op_flags(nnfx_node_op(n)) & NNFX_F_NOOP)) continue;
        ok = add_finding(an, "constant_subgraph", cnt, names,
                         cnt > 1 ? xprintf("'%s' and %d node%s before it depend only on parameters: compute "
                                           "them once, ahead of time",
                                           nnfx_node_name(n), cnt - 1, cnt - 1 == 1 ? "" : "s")
                                 : xprintf("'%s' (%s) depends only on parameters: compute it once, ahead of time",
                                           nnfx_node_name(n), cli_node_op_label(n)),
                         xprintf("nnfx optimize %s -o OUT --pass fold-constants", model));
    }
    free(names);
    return ok;
}

static bool find_unsupported(cli_analysis *an, graph_index *gi) {
    for (int i = 0; i < gi->n; i++) {
        const nnfx_node *n = gi->info[i].n;
        if (nnfx_node_opcode(n) != NNFX_CALL_MODULE) continue;
        const char *nm = nnfx_node_name(n);
        const char *t = nnfx_node_target(n);
        if (strncmp(t, NNFX_ONNX_OPAQUE_PREFIX, strlen(NNFX_ONNX_OPAQUE_PREFIX)) ==
            0) { /* an ONNX op nnfx lacks (analyze's opaque import) */
            if (!add_finding(an, "unsupported_op", 1, &nm,
                             xprintf("'%s' is ONNX op %s, which nnfx does not implement: the model cannot be run, "
                                     "validated or exported by nnfx, and costs after it are unknown",
                                     nm, t + 5),
                             xprintf("replace %s with ops nnfx has (nnfx optimize --rewrite), or check the model's "
                                     "opset and domain",
                                     t + 5)))
                return false;
            continue;
        }
        if (!add_finding(an, "unsupported_op", 1, &nm,
                         xprintf("'%s' calls the opaque leaf function '%s': it has no ONNX form and runs only "
                                 "where its C function is registered",
                                 nm, nnfx_node_target(n)),
                         xprintf("express '%s' with table ops, or keep the model in C", nnfx_node_target(n))))
            return false;
    }
    return true;
}

/* --- costs ---------------------------------------------------------------------- */

static bool add_op_count(cli_analysis *an, const char *label, int64_t macs, int64_t flops) {
    for (int i = 0; i < an->nops; i++)
        if (strcmp(an->ops[i].op, label) == 0) {
            an->ops[i].count++;
            sat_add(&an->ops[i].macs, macs);
            sat_add(&an->ops[i].flops, flops);
            return true;
        }
    cli_op_count *o = realloc(an->ops, sizeof *o * (size_t)(an->nops + 1));
    if (!o) return false;
    an->ops = o;
    o[an->nops].op = xstrdup(label);
    if (!o[an->nops].op) return false;
    o[an->nops].count = 1;
    o[an->nops].macs = macs;
    o[an->nops].flops = flops;
    an->nops++;
    return true;
}

static bool is_matrix_op(const nnfx_node *n) {
    static const nnfx_op ops[] = {NNFX_OP_CONV,   NNFX_OP_GEMM, NNFX_OP_MATMUL, NNFX_OP_CONV_TRANSPOSE,
                                  NNFX_OP_EINSUM, NNFX_OP_RNN,  NNFX_OP_GRU,    NNFX_OP_LSTM};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (nnfx_node_is_op(n, ops[i])) return true;
    return false;
}

nnfx_status cli_analyze_graph(const nnfx_graph *g, const char *model, cli_analysis *an, nnfx_error *err) {
    memset(an, 0, sizeof *an);
    an->g = g;
    an->peak_activation_bytes = -1;
    an->graph_nodes = nnfx_graph_num_nodes(g);
    for (int p = 0; p < nnfx_graph_num_params(g); p++) {
        nnfx_meta t;
        if (!nnfx_graph_param_meta_at(g, p, &t)) continue;
        an->all_param_bytes += meta_bytes(&t);
        /* weights only: constants of the model (ONNX Constant nodes) are not parameters */
        if (!nnfx_graph_param_is_constant(g, p) &&
            (t.dtype == NNFX_F32 || t.dtype == NNFX_F16 || t.dtype == NNFX_F64)) {
            an->params += meta_numel(&t);
            an->param_bytes += meta_bytes(&t);
        }
    }
    an->cost = calloc((size_t)(an->graph_nodes ? an->graph_nodes : 1), sizeof *an->cost);
    if (!an->cost) goto oom;
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n)) {
        nnfx_opcode oc = nnfx_node_opcode(n);
        if (oc != NNFX_CALL_FUNCTION && oc != NNFX_CALL_MODULE) continue;
        if (nnfx_node_is_op(n, NNFX_OP_GETITEM)) continue;
        cli_node_cost *c = &an->cost[an->ncost++];
        c->node = n;
        for (int a = 0; a < nnfx_node_num_args(n); a++) {
            const nnfx_node *src = nnfx_node_arg_node(n, a);
            if (!src || nnfx_node_opcode(src) != NNFX_GET_ATTR) continue;
            nnfx_meta t;
            if (nnfx_graph_param_meta(g, nnfx_node_target(src), &t) &&
                (t.dtype == NNFX_F32 || t.dtype == NNFX_F16 || t.dtype == NNFX_F64))
                c->params += meta_numel(&t);
        }
        if (oc == NNFX_CALL_FUNCTION) nnfx_node_cost(n, &c->macs, &c->flops);
        /* MACs are those of the matrix ops (convolutions, Gemm, MatMul,
         * Einsum, recurrent layers), as model zoos publish them; other ops'
         * work counts in FLOPs only. */
        if (!is_matrix_op(n)) c->macs = 0;
        sat_add(&an->macs, c->macs);
        sat_add(&an->flops, c->flops);
        if (!add_op_count(an, cli_node_op_label(n), c->macs, c->flops)) goto oom;
    }
    an->nodes = an->ncost;

    /* peak activation memory through a compiled copy */
    {
        nnfx_error perr = {0};
        nnfx_graph *copy = nnfx_graph_copy(g, NULL, &perr);
        nnfx_gm *gm = copy ? nnfx_gm_new(copy, &perr) : NULL;
        if (!gm) nnfx_graph_free(copy);
        if (gm) an->peak_activation_bytes = nnfx_gm_peak_activation_bytes(gm, &perr);
        nnfx_gm_free(gm);
        /* -1 means "cannot be computed for this graph", never "ran out of
         * memory": that would publish a wrong figure with exit 0 */
        if (an->peak_activation_bytes < 0 && perr.status == NNFX_ERR_NOMEM) goto oom;
    }

    graph_index gi = {0};
    if (!index_build(g, &gi)) {
        free(gi.info);
        nnfx_value_map_free(gi.pos);
        goto oom;
    }
    mark_live(&gi, g);
    mark_constant(&gi);
    bool ok = find_foldable_bn(an, model) && find_liveness(an, &gi, model) && find_noops(an, &gi, model) &&
              find_constant_subgraphs(an, &gi, model) && find_unsupported(an, &gi) && cli_analysis_quant(an);
    free(gi.info);
    nnfx_value_map_free(gi.pos);
    if (!ok) goto oom;
    return NNFX_OK;
oom:
    cli_analysis_free(an);
    return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory analysing the graph");
}

void cli_analysis_free(cli_analysis *an) {
    if (!an) return;
    for (int i = 0; i < an->nfindings; i++) {
        for (int k = 0; k < an->findings[i].nnodes; k++)
            free(an->findings[i].nodes[k]);
        free(an->findings[i].nodes);
        free(an->findings[i].message);
        free(an->findings[i].suggestion);
    }
    free(an->findings);
    for (int i = 0; i < an->nops; i++)
        free(an->ops[i].op);
    free(an->ops);
    free(an->cost);
    memset(an, 0, sizeof *an);
}
