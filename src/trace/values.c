/* values.c — trace contexts and values: one forward function runs eagerly
 * (values wrap tensors, each op runs through nnfx_op_run on a throwaway node
 * of a per-context scratch graph) or under the tracer (values are proxies:
 * nodes of the graph being recorded, shapes inferred as they are recorded). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "trace/trace_int.h"

/* --- context --------------------------------------------------------------- */

/* Bytes of a value chunk holding cap values. */
static size_t value_chunk_bytes(int cap) { return sizeof(trace_value_chunk) + sizeof(nnfx_value) * (size_t)cap; }

nnfx_ctx *trace_ctx_new(nnfx_module *root, bool tracing, nnfx_graph *g) {
    nnfx_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    ctx->tracing = tracing;
    ctx->root = root;
    ctx->path = "";
    ctx->cur = root;
    if (tracing) {
        ctx->g = g;
    } else {
        ctx->scratch = nnfx_graph_new();
        if (!ctx->scratch) {
            free(ctx);
            return NULL;
        }
    }
    return ctx;
}

void trace_ctx_free(nnfx_ctx *ctx) {
    if (!ctx) return;
    for (trace_value_chunk *c = ctx->chunks, *next; c; c = next) {
        next = c->next;
        for (int i = 0; i < c->used; i++) {
            nnfx_tensor_release(c->v[i].t);
            free(c->v[i].meta);
        }
        ir_big_free(c, value_chunk_bytes(c->cap));
    }
    nnfx_graph_free(ctx->scratch);
    ir_big_free(ctx->read, sizeof *ctx->read * ctx->cap_read);
    free(ctx);
}

/* The read-parameters entry of module m (created empty), or NULL when out
 * of memory. */
static trace_read_params *read_params_of(nnfx_ctx *ctx, const nnfx_module *m) {
    if ((ctx->nread + 1) * 2 > ctx->cap_read) {
        size_t ncap = ctx->cap_read ? ctx->cap_read * 2 : 64;
        trace_read_params *t = ir_big_alloc(ncap * sizeof *t, true); /* large ones: cached pages */
        if (!t) return NULL;
        for (size_t i = 0; i < ctx->cap_read; i++) {
            if (!ctx->read[i].m) continue;
            size_t j = ((uintptr_t)ctx->read[i].m * 0x9E3779B97F4A7C15ull >> 17) & (ncap - 1);
            while (t[j].m)
                j = (j + 1) & (ncap - 1);
            t[j] = ctx->read[i];
        }
        ir_big_free(ctx->read, sizeof *ctx->read * ctx->cap_read);
        ctx->read = t;
        ctx->cap_read = ncap;
    }
    size_t mask = ctx->cap_read - 1, j = ((uintptr_t)m * 0x9E3779B97F4A7C15ull >> 17) & mask;
    while (ctx->read[j].m && ctx->read[j].m != m)
        j = (j + 1) & mask;
    if (!ctx->read[j].m) {
        ctx->read[j].m = m;
        ctx->nread++;
    }
    return &ctx->read[j];
}

nnfx_status trace_fail(nnfx_ctx *ctx, nnfx_status s, const char *fmt, ...) {
    if (!ctx || ctx->err.status) return s;
    ctx->err.status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err.msg, sizeof ctx->err.msg, fmt, ap);
    va_end(ap);
    return s;
}

nnfx_value *trace_value_new(nnfx_ctx *ctx, trace_value_kind kind) {
    trace_value_chunk *c = ctx->chunks;
    if (!c || c->used == c->cap) {
        int cap = !c ? TRACE_VALUE_CHUNK : c->cap < TRACE_VALUE_CHUNK_MAX ? c->cap * 2 : c->cap;
        c = ir_big_alloc(value_chunk_bytes(cap), false);
        if (!c) {
            trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory allocating a value");
            return NULL;
        }
        c->used = 0;
        c->cap = cap;
        c->next = ctx->chunks;
        ctx->chunks = c;
    }
    nnfx_value *v = &c->v[c->used++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->ctx = ctx;
    return v;
}

const char *trace_basename(const char *file) {
    if (!file) return "?";
    const char *s = strrchr(file, '/');
    const char *b = strrchr(s ? s + 1 : file, '\\'); /* only a backslash after the last '/' counts */
    if (b) s = b;
    return s ? s + 1 : file;
}

const nnfx_error *nnfx_ctx_error(const nnfx_ctx *ctx) {
    static const nnfx_error none = {NNFX_ERR_INVALID_ARG, "NULL context"};
    return ctx ? &ctx->err : &none;
}

bool nnfx_ctx_is_tracing(const nnfx_ctx *ctx) { return ctx && ctx->tracing; }

/* --- value accessors --------------------------------------------------------- */

nnfx_tensor *nnfx_value_tensor(nnfx_value *v) { return v && !v->ctx->tracing ? v->t : NULL; }

nnfx_node *nnfx_value_node(nnfx_value *v) { return v && v->kind == TV_NODE ? v->node : NULL; }

const nnfx_meta *nnfx_value_meta(nnfx_value *v) {
    if (!v) return NULL;
    if (v->kind == TV_NODE) return nnfx_node_meta_c(v->node, 0);
    if (!v->meta) {
        v->meta = calloc(1, sizeof *v->meta);
        if (!v->meta) return NULL;
        if (v->t) {
            nnfx_meta_set_shape(v->meta, v->t->dtype, v->t->rank, v->t->shape);
        } else {
            v->meta->dtype = NNFX_F32;
            v->meta->rank = 0;
        }
    }
    return v->meta;
}

nnfx_value *nnfx_v_scalar(nnfx_ctx *ctx, double x) {
    if (!ctx || ctx->err.status) return NULL;
    nnfx_value *v = trace_value_new(ctx, TV_SCALAR);
    if (!v) return NULL;
    v->scalar = x;
    if (!ctx->tracing) {
        v->t = nnfx_tensor_scalar_f32((float)x, &ctx->err);
        if (!v->t) return NULL;
    }
    return v;
}

/* Name and place of the code that called an op, for error messages:
 * "module fc, simplenet.c:42" or "root module SimpleNet, simplenet.c:42". */
static void where(const nnfx_ctx *ctx, const char *path, const char *file, int line, char *buf, size_t len) {
    if (path && *path)
        snprintf(buf, len, "module %s, %s:%d", path, trace_basename(file), line);
    else
        snprintf(buf, len, "root module %s, %s:%d", ctx->root ? ctx->root->type_name : "?", trace_basename(file), line);
}

/* Rewrites ctx->err "node NAME: msg" (as shape inference words it) into
 * "node NAME (WHERE): msg"; other messages get "node NAME (WHERE): " in front. */
static void add_context(nnfx_ctx *ctx, const char *node_name, const char *wh) {
    char head[300];
    int hl = snprintf(head, sizeof head, "node %s: ", node_name);
    const char *rest = ctx->err.msg;
    if (hl > 0 && (size_t)hl < sizeof head && strncmp(rest, head, (size_t)hl) == 0) rest += hl;
    char buf[sizeof ctx->err.msg];
    int k = snprintf(buf, sizeof buf, "node %s (%s): ", node_name, wh);
    if (k < 0) return;
    size_t used = (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1;
    size_t room = sizeof buf - used - 1, rl = strlen(rest);
    if (rl > room) rl = room;
    memcpy(buf + used, rest, rl);
    buf[used + rl] = 0;
    memcpy(ctx->err.msg, buf, sizeof buf);
}

/* Checks that every input is a live value of ctx. */
static bool check_inputs(nnfx_ctx *ctx, const char *what, int nin, nnfx_value *const *in, const char *file, int line) {
    if (nin < 0 || (nin > 0 && !in)) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s (%s:%d): bad input list (%d inputs)", what, trace_basename(file),
                   line, nin);
        return false;
    }
    for (int i = 0; i < nin; i++) {
        if (!in[i]) {
            trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s (%s:%d): input %d is NULL", what, trace_basename(file), line, i);
            return false;
        }
        if (in[i]->ctx != ctx) {
            trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s (%s:%d): input %d belongs to another forward run", what,
                       trace_basename(file), line, i);
            return false;
        }
    }
    return true;
}

/* --- ops ----------------------------------------------------------------------- */

/* Records op as a node of ctx->g and infers its shape. */
static nnfx_value *record_op(nnfx_ctx *ctx, nnfx_op op, const char *name, int nin, nnfx_value *const *in, int nattrs,
                             const nnfx_attr *attrs, const char *path, const char *file, int line) {
    nnfx_arg stack[8] = {{0}};
    nnfx_arg *args = nin <= 8 ? stack : malloc(sizeof *args * (size_t)nin);
    if (!args) {
        trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < nin; i++)
        args[i] = in[i]->kind == TV_NODE ? nnfx_arg_node(in[i]->node) : nnfx_arg_float(in[i]->scalar);
    nnfx_error e; /* not = {0}: zeroing its 1 KB message costs more than recording a node */
    e.status = NNFX_OK;
    e.msg[0] = 0;
    nnfx_node *n = nnfx_graph_call_op(ctx->g, op, nin, args, nattrs, attrs, &e);
    if (args != stack) free(args);
    char wh[400];
    if (!n) {
        where(ctx, path, file, line, wh, sizeof wh);
        trace_fail(ctx, e.status, "%s (%s): %s", nnfx_op_name(op), wh, e.msg);
        return NULL;
    }
    if (name && strcmp(name, n->name) != 0 && nnfx_node_set_name(n, name, &e)) {
        trace_fail(ctx, e.status, "%s", e.msg);
        return NULL;
    }
    if (nnfx_node_set_module_path(n, path, &e)) {
        trace_fail(ctx, e.status, "%s", e.msg);
        return NULL;
    }
    nnfx_node_set_src(n, trace_basename(file), line);
    if (n->nout != 1) {
        where(ctx, path, file, line, wh, sizeof wh);
        trace_fail(ctx, NNFX_ERR_UNSUPPORTED, "node %s (%s): %s has %d outputs; values hold one", n->name, wh,
                   nnfx_op_name(op), n->nout);
        return NULL;
    }
    nnfx_tensor *cv = NULL;
    if (ir_infer_node(n, NULL, true, &cv, &ctx->err)) {
        if (!ctx->err.status) ctx->err.status = NNFX_ERR_SHAPE;
        where(ctx, path, file, line, wh, sizeof wh);
        add_context(ctx, n->name, wh);
        return NULL;
    }
    /* The meta is final (recompile need not infer it again) unless a
     * constant is involved: full inference propagates constant values,
     * which this per-node inference does not keep. */
    if (cv) {
        nnfx_tensor_release(cv);
        n->infer_value = true;
    } else {
        bool clean = true;
        for (int i = 0; i < n->nargs && clean; i++)
            if (n->args[i].kind == NNFX_ARG_NODE)
                clean = !n->args[i].u.node->infer_dirty && !n->args[i].u.node->infer_value;
        n->infer_dirty = !clean;
    }
    nnfx_value *v = trace_value_new(ctx, TV_NODE);
    if (v) v->node = n;
    return v;
}

/* Runs op on the inputs' tensors through a throwaway scratch node. */
static nnfx_value *run_op(nnfx_ctx *ctx, nnfx_op op, int nin, nnfx_value *const *in, int nattrs, const nnfx_attr *attrs,
                          const char *path, const char *file, int line) {
    nnfx_arg stack_a[8] = {{0}};
    nnfx_tensor *stack_t[8] = {0};
    nnfx_arg *args = nin <= 8 ? stack_a : malloc(sizeof *args * (size_t)nin);
    nnfx_tensor **ts = nin <= 8 ? stack_t : malloc(sizeof *ts * (size_t)nin);
    nnfx_value *v = NULL;
    nnfx_node *n = NULL;
    char wh[400];
    nnfx_error e = {0};
    if (!args || !ts) {
        trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < nin; i++) {
        args[i] = nnfx_arg_none();
        ts[i] = in[i]->t;
    }
    n = nnfx_graph_call_op(ctx->scratch, op, nin, args, nattrs, attrs, &e);
    if (!n) {
        where(ctx, path, file, line, wh, sizeof wh);
        trace_fail(ctx, e.status, "%s (%s): %s", nnfx_op_name(op), wh, e.msg);
        goto out;
    }
    if (n->nout != 1) {
        where(ctx, path, file, line, wh, sizeof wh);
        trace_fail(ctx, NNFX_ERR_UNSUPPORTED, "%s (%s): %d outputs; values hold one", nnfx_op_name(op), wh, n->nout);
        goto out;
    }
    nnfx_value_set out = {0};
    if (nnfx_op_run(n, nin, ts, &out, &ctx->err)) {
        if (!ctx->err.status) ctx->err.status = NNFX_ERR_RUNTIME;
        where(ctx, path, file, line, wh, sizeof wh);
        add_context(ctx, n->name, wh);
        goto out;
    }
    v = trace_value_new(ctx, TV_TENSOR);
    if (v)
        v->t = out.t[0];
    else
        nnfx_tensor_release(out.t[0]);
out:
    if (n) nnfx_erase_node(ctx->scratch, n, NULL);
    if (args != stack_a) free(args);
    if (ts != stack_t) free(ts);
    return v;
}

nnfx_value *trace_op(nnfx_ctx *ctx, nnfx_op op, const char *name, int nin, nnfx_value *const *in, int nattrs,
                     const nnfx_attr *attrs, const char *path, const char *file, int line) {
    if (!ctx || ctx->err.status) return NULL;
    if ((int)op <= 0 || op >= NNFX_OP_COUNT) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "op id %d (%s:%d) is not an op", (int)op, trace_basename(file), line);
        return NULL;
    }
    if (nattrs < 0 || (nattrs > 0 && !attrs)) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s (%s:%d): bad attribute list", nnfx_op_name(op), trace_basename(file),
                   line);
        return NULL;
    }
    if (!check_inputs(ctx, nnfx_op_name(op), nin, in, file, line)) return NULL;
    if (ctx->tracing) return record_op(ctx, op, name, nin, in, nattrs, attrs, path, file, line);
    return run_op(ctx, op, nin, in, nattrs, attrs, path, file, line);
}

nnfx_value *nnfx_v_op_at(nnfx_ctx *ctx, nnfx_op op, int nin, nnfx_value *const *in, int nattrs, const nnfx_attr *attrs,
                         const char *file, int line) {
    if (!ctx) return NULL;
    return trace_op(ctx, op, NULL, nin, in, nattrs, attrs, ctx->path, file, line);
}

nnfx_value *nnfx_v_unary_at(nnfx_ctx *ctx, nnfx_op op, nnfx_value *x, const char *file, int line) {
    if (!ctx) return NULL;
    return trace_op(ctx, op, NULL, 1, &x, 0, NULL, ctx->path, file, line);
}

nnfx_value *nnfx_v_binary_at(nnfx_ctx *ctx, nnfx_op op, nnfx_value *a, nnfx_value *b, const char *file, int line) {
    if (!ctx) return NULL;
    nnfx_value *in[2] = {a, b};
    return trace_op(ctx, op, NULL, 2, in, 0, NULL, ctx->path, file, line);
}

/* --- parameters -------------------------------------------------------------- */

nnfx_value *trace_param(nnfx_ctx *ctx, nnfx_module *m, const char *mpath, const char *pname, const char *file,
                        int line) {
    if (!ctx || ctx->err.status) return NULL;
    int slot = trace_module_param_slot(m, pname);
    nnfx_tensor *t = slot >= 0 ? m->params[slot] : NULL;
    if (!t) {
        trace_fail(ctx, NNFX_ERR_NOT_FOUND, "%s:%d: module %s (%s) has no parameter '%s'", trace_basename(file), line,
                   *mpath ? mpath : "<root>", m->type_name, pname);
        return NULL;
    }
    if (!ctx->tracing) {
        nnfx_value *v = trace_value_new(ctx, TV_TENSOR);
        if (v) v->t = nnfx_tensor_retain(t);
        return v;
    }
    /* "conv.weight": module path + parameter name */
    size_t pl = strlen(mpath), nl = strlen(pname);
    char stack[256];
    char *full = pl + nl + 2 <= sizeof stack ? stack : malloc(pl + nl + 2);
    if (!full) {
        trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pl) {
        memcpy(full, mpath, pl);
        full[pl] = '.';
        memcpy(full + pl + 1, pname, nl + 1);
    } else {
        memcpy(full, pname, nl + 1);
    }
    nnfx_value *v = NULL;
    nnfx_error e; /* not = {0}: see record_op */
    e.status = NNFX_OK;
    e.msg[0] = 0;
    /* one lookup: a parameter seen before is reused by index */
    /* a slot this trace has not read yet is a new parameter: its name
     * (module path + slot name) is unique, so it is added without a lookup;
     * one read before is found by name (and must be the same tensor) */
    trace_read_params *rp = slot < 64 ? read_params_of(ctx, m) : NULL;
    bool first = rp && !(rp->mask & (uint64_t)1 << slot);
    if (rp) rp->mask |= (uint64_t)1 << slot;
    int idx = first ? 0 : ir_graph_param_find(ctx->g, full);
    if (idx && ctx->g->params[idx - 1].t != t) {
        trace_fail(ctx, NNFX_ERR_TRACE, "%s:%d: two tensors claim parameter name '%s'", trace_basename(file), line,
                   full);
        goto out;
    }
    if (!idx && !(idx = ir_graph_param_add(ctx->g, full, t, &e))) {
        trace_fail(ctx, e.status, "%s", e.msg);
        goto out;
    }
    nnfx_node *n = ir_graph_get_attr_at(ctx->g, idx - 1, &e);
    if (!n || nnfx_node_set_module_path(n, mpath, &e)) {
        trace_fail(ctx, e.status, "%s", e.msg);
        goto out;
    }
    nnfx_node_set_src(n, trace_basename(file), line);
    v = trace_value_new(ctx, TV_NODE);
    if (v) v->node = n;
out:
    if (full != stack) free(full);
    return v;
}

nnfx_value *nnfx_v_param_at(nnfx_ctx *ctx, nnfx_module *m, const char *name, const char *file, int line) {
    if (!ctx || ctx->err.status) return NULL;
    if (!m || !name) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s:%d: v_param: NULL module or name", trace_basename(file), line);
        return NULL;
    }
    char *path = trace_module_path(ctx->root, m);
    if (!path) {
        trace_fail(ctx, NNFX_ERR_TRACE, "%s:%d: module %s is not part of the module tree being run",
                   trace_basename(file), line, m->type_name);
        return NULL;
    }
    nnfx_value *v = trace_param(ctx, m, path, name, file, line);
    free(path);
    return v;
}

/* --- control flow ------------------------------------------------------------ */

nnfx_status nnfx_v_item_at(nnfx_ctx *ctx, nnfx_value *v, double *out, const char *file, int line) {
    if (out) *out = 0;
    if (!ctx) return NNFX_ERR_INVALID_ARG;
    if (ctx->err.status) return ctx->err.status;
    if (!v || !out) {
        return trace_fail(ctx, NNFX_ERR_INVALID_ARG, "item (%s:%d): NULL value or output", trace_basename(file), line);
    }
    if (v->ctx != ctx)
        return trace_fail(ctx, NNFX_ERR_INVALID_ARG, "item (%s:%d): the value belongs to another forward run",
                          trace_basename(file), line);
    if (v->kind == TV_SCALAR) {
        *out = v->scalar;
        return NNFX_OK;
    }
    if (ctx->tracing)
        return trace_fail(ctx, NNFX_ERR_TRACE,
                          "symbolically traced variables cannot be used as inputs to control flow (node %s, %s:%d)",
                          v->node->name, trace_basename(file), line);
    if (nnfx_tensor_numel(v->t) < 1)
        return trace_fail(ctx, NNFX_ERR_INVALID_ARG, "item (%s:%d): the value has no elements", trace_basename(file),
                          line);
    *out = nnfx_tensor_get(v->t, 0);
    return NNFX_OK;
}

/* --- leaf functions ------------------------------------------------------------ */

nnfx_value *nnfx_v_leaf_at(nnfx_ctx *ctx, const char *name, nnfx_leaf_fn fn, nnfx_leaf_infer_fn infer, void *user,
                           int nin, nnfx_value *const *in, const char *file, int line) {
    if (!ctx || ctx->err.status) return NULL;
    if (!name || !*name || !fn) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "leaf (%s:%d): NULL name or function", trace_basename(file), line);
        return NULL;
    }
    if (!check_inputs(ctx, name, nin, in, file, line)) return NULL;
    char wh[400];
    where(ctx, ctx->path, file, line, wh, sizeof wh);
    nnfx_error e = {0};
    if (!ctx->tracing) {
        nnfx_tensor *stack[8];
        nnfx_tensor **ts = nin <= 8 ? stack : malloc(sizeof *ts * (size_t)nin);
        if (!ts) {
            trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (int i = 0; i < nin; i++)
            ts[i] = in[i]->t;
        nnfx_tensor *out = NULL;
        nnfx_status st = fn(user, nin, ts, &out, &e);
        if (ts != stack) free(ts);
        if (st || !out) {
            nnfx_tensor_release(out);
            trace_fail(ctx, st ? st : NNFX_ERR_RUNTIME, "leaf %s (%s): %s", name, wh,
                       st ? e.msg : "returned no tensor");
            return NULL;
        }
        nnfx_value *v = trace_value_new(ctx, TV_TENSOR);
        if (v)
            v->t = out;
        else
            nnfx_tensor_release(out);
        return v;
    }
    const ir_leaf *have = ir_graph_leaf(ctx->g, name);
    if (have && (have->fn != fn || have->infer != infer || have->user != user)) {
        trace_fail(ctx, NNFX_ERR_TRACE, "leaf %s (%s): the name is already used by another leaf function", name, wh);
        return NULL;
    }
    if (!have && nnfx_graph_register_leaf(ctx->g, name, fn, infer, user, &e)) {
        trace_fail(ctx, e.status, "%s", e.msg);
        return NULL;
    }
    nnfx_arg stack[8] = {{0}};
    nnfx_arg *args = nin <= 8 ? stack : malloc(sizeof *args * (size_t)nin);
    if (!args) {
        trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < nin; i++)
        args[i] = in[i]->kind == TV_NODE ? nnfx_arg_node(in[i]->node) : nnfx_arg_float(in[i]->scalar);
    nnfx_node *n = nnfx_graph_call_module(ctx->g, name, nin, args, &e);
    if (args != stack) free(args);
    if (!n || nnfx_node_set_module_path(n, ctx->path, &e)) {
        trace_fail(ctx, e.status, "%s", e.msg);
        return NULL;
    }
    nnfx_node_set_src(n, trace_basename(file), line);
    if (infer) {
        const nnfx_meta *mstack[8];
        const nnfx_meta **ms = nin <= 8 ? mstack : malloc(sizeof *ms * (size_t)nin);
        if (!ms) {
            trace_fail(ctx, NNFX_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (int i = 0; i < nin; i++)
            ms[i] = nnfx_value_meta(in[i]);
        nnfx_status st = infer(user, nin, ms, &n->meta[0], &e);
        if (ms != mstack) free(ms);
        if (st) {
            trace_fail(ctx, st, "node %s (leaf %s, %s): %s", n->name, name, wh, e.msg);
            return NULL;
        }
    }
    nnfx_value *v = trace_value_new(ctx, TV_NODE);
    if (v) v->node = n;
    return v;
}
