/* copy.c — node-to-node maps, node copy and whole-graph copy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"

struct nnfx_value_map {
    const nnfx_node **keys;
    nnfx_node **vals;
    size_t cap, count;
};

static size_t hash_ptr(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

nnfx_value_map *nnfx_value_map_new(void) { return calloc(1, sizeof(nnfx_value_map)); }

void nnfx_value_map_free(nnfx_value_map *m) {
    if (!m) return;
    free(m->keys);
    free(m->vals);
    free(m);
}

/* Moves the entries into nc slots (a power of two above twice the count). */
static bool rehash(nnfx_value_map *m, size_t nc) {
    const nnfx_node **nk = calloc(nc, sizeof *nk);
    nnfx_node **nv = calloc(nc, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = hash_ptr(m->keys[i]) & (nc - 1);
        while (nk[j])
            j = (j + 1) & (nc - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = nc;
    return true;
}

bool ir_value_map_reserve(nnfx_value_map *m, size_t n) {
    size_t nc = m->cap ? m->cap : 64;
    while (nc < 2 * (n + 1))
        nc *= 2;
    return nc == m->cap || rehash(m, nc);
}

bool nnfx_value_map_put(nnfx_value_map *m, const nnfx_node *k, nnfx_node *v) {
    if (!m || !k) return false;
    if ((m->count + 1) * 2 > m->cap && !rehash(m, m->cap ? m->cap * 2 : 64)) return false;
    size_t j = hash_ptr(k) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != k)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j]) m->count++;
    m->keys[j] = k;
    m->vals[j] = v;
    return true;
}

nnfx_node *nnfx_value_map_get(const nnfx_value_map *m, const nnfx_node *k) {
    if (!m || !m->cap || !k) return NULL;
    size_t j = hash_ptr(k) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == k) return m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

/* Copies meta, module path and source location from src to dst. */
static nnfx_status copy_node_info(nnfx_node *dst, const nnfx_node *src, nnfx_error *err) {
    if (src->nout != dst->nout && ir_node_set_num_outputs(dst, src->nout, err))
        return err ? err->status : NNFX_ERR_NOMEM;
    memcpy(dst->meta, src->meta, sizeof *dst->meta * (size_t)src->nout);
    if (nnfx_node_set_module_path(dst, src->module_path, err)) return NNFX_ERR_NOMEM;
    nnfx_node_set_src(dst, src->src_file, src->src_line);
    return NNFX_OK;
}

nnfx_node *nnfx_graph_node_copy(nnfx_graph *g, const nnfx_node *n, nnfx_value_map *map, nnfx_error *err) {
    if (!g || !n || !map) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "node_copy: NULL graph, node or map");
        return NULL;
    }
    nnfx_arg stack_args[8];
    nnfx_arg *args = n->nargs <= 8 ? stack_args : malloc(sizeof *args * (size_t)n->nargs);
    if (!args) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    nnfx_node *c = NULL;
    for (int i = 0; i < n->nargs; i++) {
        args[i] = n->args[i];
        if (args[i].kind == NNFX_ARG_NODE) {
            nnfx_node *m = nnfx_value_map_get(map, args[i].u.node);
            if (!m) {
                nnfx_error_set(err, NNFX_ERR_GRAPH, "node_copy: argument %%%s of %%%s has not been copied yet",
                               args[i].u.node->name, n->name);
                goto out;
            }
            args[i].u.node = m;
        }
    }
    switch (n->opcode) {
    case NNFX_PLACEHOLDER: c = nnfx_graph_placeholder(g, n->name, &n->meta[0], err); break;
    case NNFX_GET_ATTR:
        if (!ir_graph_param_raw(g, n->target)) {
            nnfx_tensor *t = ir_node_param_raw(n);
            if (t && nnfx_graph_set_param(g, n->target, t, err)) goto out;
            int si = ir_graph_param_find(n->graph, n->target);
            if (t && si) nnfx_graph_set_param_constant(g, n->target, n->graph->params[si - 1].constant, NULL);
        }
        c = nnfx_graph_get_attr(g, n->target, err);
        break;
    case NNFX_CALL_FUNCTION: c = nnfx_graph_call_op(g, n->op, n->nargs, args, n->nattrs, n->attrs, err); break;
    case NNFX_CALL_MODULE: {
        if (!ir_graph_leaf(g, n->target)) {
            const ir_leaf *l = ir_graph_leaf(n->graph, n->target);
            if (l && nnfx_graph_register_leaf(g, l->name, l->fn, l->infer, l->user, err)) goto out;
        }
        c = nnfx_graph_call_module(g, n->target, n->nargs, args, err);
        break;
    }
    case NNFX_OUTPUT: {
        nnfx_node *vals[64];
        nnfx_node **v = n->nargs <= 64 ? vals : malloc(sizeof *v * (size_t)n->nargs);
        if (!v) {
            nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto out;
        }
        for (int i = 0; i < n->nargs; i++)
            v[i] = args[i].kind == NNFX_ARG_NODE ? args[i].u.node : NULL; /* NULL: refused by nnfx_graph_output */
        c = nnfx_graph_output(g, n->nargs, v, err);
        if (v != vals) free(v);
        break;
    }
    }
    if (!c) goto out;
    if (n->opcode != NNFX_PLACEHOLDER && n->opcode != NNFX_OUTPUT && strcmp(c->name, n->name) != 0)
        nnfx_node_set_name(c, n->name, NULL); /* keep the name where free */
    if (copy_node_info(c, n, err) || !nnfx_value_map_put(map, n, c)) {
        if (err && !err->status) nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        c = NULL;
    }
out:
    if (args != stack_args) free(args);
    return c;
}

nnfx_graph *nnfx_graph_copy(const nnfx_graph *src, nnfx_value_map *map, nnfx_error *err) {
    if (!src) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "graph_copy: NULL graph");
        return NULL;
    }
    nnfx_graph *g = nnfx_graph_new();
    nnfx_value_map *m = map ? map : nnfx_value_map_new();
    if (!g || !m || !ir_value_map_reserve(m, m->count + (size_t)src->num_nodes)) goto oom;
    for (int i = 0; i < src->nparams; i++) {
        if (nnfx_graph_set_param(g, src->params[i].name, src->params[i].t, err)) goto fail;
        g->params[i].constant = src->params[i].constant;
    }
    for (int i = 0; i < src->nleaves; i++) {
        const ir_leaf *l = &src->leaves[i];
        if (nnfx_graph_register_leaf(g, l->name, l->fn, l->infer, l->user, err)) goto fail;
    }
    if (src->model_info && src->model_info_copy) {
        g->model_info = src->model_info_copy(src->model_info);
        if (!g->model_info) goto oom;
        g->model_info_copy = src->model_info_copy;
        g->model_info_free = src->model_info_free;
    }
    for (const nnfx_node *n = src->head; n; n = n->next)
        if (!nnfx_graph_node_copy(g, n, m, err)) goto fail;
    if (m != map) nnfx_value_map_free(m);
    return g;
oom:
    nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory copying a graph");
fail:
    if (m != map) nnfx_value_map_free(m);
    nnfx_graph_free(g);
    return NULL;
}
