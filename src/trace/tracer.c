/* tracer.c — module calls, symbolic tracing into a GraphModule (FX's
 * symbolic_trace) and eager runs of the same forward functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "trace/trace_int.h"

/* --- module calls -------------------------------------------------------------- */

nnfx_value *nnfx_call_n_at(nnfx_ctx *ctx, nnfx_module *m, int nin, nnfx_value *const *in, const char *file, int line) {
    if (!ctx || ctx->err.status) return NULL;
    if (!m) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s:%d: call of a NULL module (did its constructor fail?)",
                   trace_basename(file), line);
        return NULL;
    }
    if (m->bad) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s:%d: %s", trace_basename(file), line, m->bad);
        return NULL;
    }
    if (m->num_inputs >= 0 && nin != m->num_inputs) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s:%d: module %s takes %d input%s, %d given", trace_basename(file), line,
                   m->type_name, m->num_inputs, m->num_inputs == 1 ? "" : "s", nin);
        return NULL;
    }
    if (nin < 0 || (nin > 0 && !in)) {
        trace_fail(ctx, NNFX_ERR_INVALID_ARG, "%s:%d: module %s called with a bad input list", trace_basename(file),
                   line, m->type_name);
        return NULL;
    }
    if (ctx->depth >= TRACE_MAX_DEPTH) {
        trace_fail(ctx, NNFX_ERR_TRACE, "%s:%d: module calls nest deeper than %d (runaway recursion?)",
                   trace_basename(file), line, TRACE_MAX_DEPTH);
        return NULL;
    }
    /* m's module path. A child of the module running now (the common call)
     * has the running module's path plus ".name": built in this frame's
     * buffer, which lives exactly as long as the call. Any other module's
     * path comes from a walk up the tree (malloc'd). */
    _Alignas(64) char local[128]; /* most paths are short; a longer one is malloc'd */
    char *path = NULL;
    if (m->parent && m->parent == ctx->cur) {
        size_t pl = strlen(ctx->path), nl = strlen(m->name);
        if (pl + nl + 2 <= sizeof local) {
            path = local;
            if (pl) {
                memcpy(local, ctx->path, pl);
                local[pl++] = '.';
            }
            memcpy(local + pl, m->name, nl + 1);
        }
    }
    if (!path) path = trace_module_path(ctx->root, m);
    if (!path) {
        trace_fail(ctx, NNFX_ERR_TRACE,
                   "%s:%d: module %s is not part of the module tree being run (add it with nnfx_module_add)",
                   trace_basename(file), line, m->type_name);
        return NULL;
    }
    nnfx_value *out;
    if (m->layer != TL_USER) {
        out = trace_layer_call(ctx, m, path, in[0], file, line);
    } else {
        const char *saved_path = ctx->path;
        nnfx_module *saved_cur = ctx->cur;
        ctx->path = path;
        ctx->cur = m;
        ctx->depth++;
        out = m->forward(m, ctx, nin, in);
        ctx->depth--;
        ctx->path = saved_path;
        ctx->cur = saved_cur;
        if (!out && !ctx->err.status)
            trace_fail(ctx, NNFX_ERR_TRACE, "%s:%d: the forward of module %s%s%s returned NULL without an error",
                       trace_basename(file), line, m->type_name, *path ? " at " : "", path);
        if (out && out->ctx != ctx) {
            trace_fail(ctx, NNFX_ERR_TRACE, "%s:%d: the forward of module %s returned a value of another run",
                       trace_basename(file), line, m->type_name);
            out = NULL;
        }
    }
    if (path != local) free(path);
    return ctx->err.status ? NULL : out;
}

nnfx_value *nnfx_call_at(nnfx_ctx *ctx, nnfx_module *m, nnfx_value *x, const char *file, int line) {
    return nnfx_call_n_at(ctx, m, 1, &x, file, line);
}

/* Checks the root and the input count shared by trace and run. */
static nnfx_status check_root(nnfx_module *root, int nin, const void *in, const char *what, nnfx_error *err) {
    if (!root) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "%s: NULL module", what);
    if (root->bad) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "%s: %s", what, root->bad);
    if (nin < 0 || (nin > 0 && !in))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "%s: %d inputs given with a NULL list", what, nin);
    if (root->num_inputs >= 0 && nin != root->num_inputs)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "%s: module %s takes %d input%s, %d given", what,
                              root->type_name, root->num_inputs, root->num_inputs == 1 ? "" : "s", nin);
    return NNFX_OK;
}

/* --- tracing -------------------------------------------------------------------- */

nnfx_gm *nnfx_symbolic_trace(nnfx_module *root, int nin, const nnfx_shape *example_shapes, nnfx_error *err) {
    if (check_root(root, nin, example_shapes, "symbolic_trace", err)) return NULL;
    for (int i = 0; i < nin; i++) {
        const nnfx_shape *s = &example_shapes[i];
        bool ok = s->rank >= 0 && s->rank <= NNFX_MAX_RANK;
        for (int d = 0; ok && d < s->rank; d++)
            ok = s->dims[d] > 0;
        if (!ok) {
            nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                           "symbolic_trace: example shape %d is not a valid shape (rank %d, dims must be positive)", i,
                           s->rank);
            return NULL;
        }
    }
    nnfx_graph *g = nnfx_graph_new();
    nnfx_ctx *ctx = g ? trace_ctx_new(root, true, g) : NULL;
    nnfx_value **in = calloc((size_t)(nin ? nin : 1), sizeof *in);
    nnfx_gm *gm = NULL;
    if (!g || !ctx || !in) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "symbolic_trace: out of memory");
        goto fail;
    }
    for (int i = 0; i < nin; i++) {
        nnfx_meta meta;
        nnfx_meta_set_shape(&meta, NNFX_F32, example_shapes[i].rank, example_shapes[i].dims);
        const char *name = root->input_names && root->input_names[i] ? root->input_names[i] : "x";
        nnfx_node *p = nnfx_graph_placeholder(g, name, &meta, err);
        if (!p) goto fail;
        in[i] = trace_value_new(ctx, TV_NODE);
        if (!in[i]) break;
        in[i]->node = p;
    }
    nnfx_value *out = ctx->err.status ? NULL : nnfx_call_n_at(ctx, root, nin, in, "<trace>", 0);
    if (ctx->err.status) {
        nnfx_error_set(err, ctx->err.status, "%s", ctx->err.msg);
        goto fail;
    }
    if (out->kind != TV_NODE) {
        nnfx_error_set(err, NNFX_ERR_TRACE, "symbolic_trace: the forward of %s returned a constant, not a tensor",
                       root->type_name);
        goto fail;
    }
    nnfx_node *res = out->node;
    if (!nnfx_graph_output(g, 1, &res, err)) goto fail;
    g->infer_valid = true; /* nodes inferred while recording are clean (values.c) */
    gm = nnfx_gm_new(g, err);
    if (!gm) goto fail;
    g = NULL; /* owned by gm */
    if (nnfx_gm_recompile(gm, err)) goto fail;
    trace_ctx_free(ctx);
    free(in);
    return gm;
fail:
    nnfx_gm_free(gm);
    nnfx_graph_free(g);
    trace_ctx_free(ctx);
    free(in);
    return NULL;
}

/* --- eager runs ----------------------------------------------------------------- */

nnfx_status nnfx_module_run(nnfx_module *root, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    if (out) *out = NULL;
    nnfx_status st = check_root(root, nin, in, "module_run", err);
    if (st) return st;
    if (!out) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_run: NULL output pointer");
    for (int i = 0; i < nin; i++)
        if (!in[i]) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "module_run: input %d is NULL", i);
    nnfx_ctx *ctx = trace_ctx_new(root, false, NULL);
    nnfx_value **vin = calloc((size_t)(nin ? nin : 1), sizeof *vin);
    if (!ctx || !vin) {
        trace_ctx_free(ctx);
        free(vin);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "module_run: out of memory");
    }
    for (int i = 0; i < nin && !ctx->err.status; i++) {
        vin[i] = trace_value_new(ctx, TV_TENSOR);
        if (vin[i]) vin[i]->t = nnfx_tensor_retain(in[i]);
    }
    nnfx_value *v = ctx->err.status ? NULL : nnfx_call_n_at(ctx, root, nin, vin, "<run>", 0);
    if (ctx->err.status) {
        st = nnfx_error_set(err, ctx->err.status, "%s", ctx->err.msg);
    } else {
        *out = nnfx_tensor_retain(v->t);
    }
    trace_ctx_free(ctx);
    free(vin);
    return st;
}
