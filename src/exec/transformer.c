/* transformer.c — FX's Transformer: builds a new graph by running handlers
 * over the nodes of a source graph. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

struct nnfx_transformer {
    const nnfx_graph *src;
    nnfx_graph *dst;
    nnfx_value_map *map;
    void *user;
};

nnfx_graph *nnfx_transformer_graph(nnfx_transformer *t) { return t ? t->dst : NULL; }
void *nnfx_transformer_user(nnfx_transformer *t) { return t ? t->user : NULL; }

/* Copies meta and provenance of n onto c (when c is a new node). */
static void carry_info(nnfx_node *c, const nnfx_node *n) {
    if (!c || c->graph == NULL) return;
    if (!c->module_path && n->module_path) nnfx_node_set_module_path(c, n->module_path, NULL);
    if (!c->src_file && n->src_file) nnfx_node_set_src(c, n->src_file, n->src_line);
}

nnfx_node *nnfx_transformer_default_call_function(nnfx_transformer *t, const nnfx_node *n, int nargs,
                                                  const nnfx_arg *args, nnfx_error *err) {
    nnfx_node *c = nnfx_graph_call_op(t->dst, n->op, nargs, args, n->nattrs, n->attrs, err);
    if (!c) return NULL;
    if (n->nout != c->nout) ir_node_set_num_outputs(c, n->nout, NULL);
    memcpy(c->meta, n->meta, sizeof *c->meta * (size_t)(n->nout < c->nout ? n->nout : c->nout));
    if (strcmp(c->name, n->name) != 0) nnfx_node_set_name(c, n->name, NULL);
    return c;
}

nnfx_graph *nnfx_transform(const nnfx_graph *src, const nnfx_transformer_handlers *h, void *user, nnfx_error *err) {
    if (!src) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "transform: NULL graph");
        return NULL;
    }
    nnfx_transformer_handlers hh = {0};
    if (h) hh = *h;
    nnfx_transformer t = {src, nnfx_graph_new(), nnfx_value_map_new(), user};
    if (!t.dst || !t.map) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < src->nparams; i++) {
        if (nnfx_graph_set_param(t.dst, src->params[i].name, src->params[i].t, err)) goto fail;
        t.dst->params[i].constant = src->params[i].constant;
    }
    for (int i = 0; i < src->nleaves; i++) {
        const ir_leaf *l = &src->leaves[i];
        if (nnfx_graph_register_leaf(t.dst, l->name, l->fn, l->infer, l->user, err)) goto fail;
    }
    if (src->model_info && src->model_info_copy) {
        t.dst->model_info = src->model_info_copy(src->model_info);
        t.dst->model_info_copy = src->model_info_copy;
        t.dst->model_info_free = src->model_info_free;
    }
    for (const nnfx_node *n = src->head; n; n = n->next) {
        nnfx_node *c = NULL;
        if (n->opcode == NNFX_OUTPUT) {
            c = nnfx_graph_node_copy(t.dst, n, t.map, err);
            if (!c) goto fail;
            continue;
        }
        nnfx_arg stack_args[16];
        nnfx_arg *args = n->nargs <= 16 ? stack_args : malloc(sizeof *args * (size_t)n->nargs);
        if (!args) {
            nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto fail;
        }
        bool ok = true;
        for (int i = 0; i < n->nargs; i++) {
            args[i] = n->args[i];
            if (args[i].kind == NNFX_ARG_NODE) {
                args[i].u.node = nnfx_value_map_get(t.map, n->args[i].u.node);
                if (!args[i].u.node) ok = false;
            }
        }
        if (!ok) {
            if (args != stack_args) free(args);
            nnfx_error_set(err, NNFX_ERR_GRAPH, "transform: an argument of %s was not produced by a handler", n->name);
            goto fail;
        }
        switch (n->opcode) {
        case NNFX_PLACEHOLDER:
            c = hh.placeholder ? hh.placeholder(&t, n, err) : nnfx_graph_node_copy(t.dst, n, t.map, err);
            break;
        case NNFX_GET_ATTR:
            c = hh.get_attr ? hh.get_attr(&t, n, err) : nnfx_graph_node_copy(t.dst, n, t.map, err);
            break;
        case NNFX_CALL_FUNCTION:
            c = hh.call_function ? hh.call_function(&t, n, n->nargs, args, err)
                                 : nnfx_transformer_default_call_function(&t, n, n->nargs, args, err);
            break;
        case NNFX_CALL_MODULE:
            c = hh.call_module ? hh.call_module(&t, n, n->nargs, args, err)
                               : nnfx_graph_call_module(t.dst, n->target, n->nargs, args, err);
            break;
        default: break;
        }
        if (args != stack_args) free(args);
        if (!c) {
            if (err && err->status == NNFX_OK)
                nnfx_error_set(err, NNFX_ERR_GRAPH, "transform: the handler for %s returned no node", n->name);
            goto fail;
        }
        carry_info(c, n);
        if (!nnfx_value_map_put(t.map, n, c)) {
            nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto fail;
        }
    }
    nnfx_value_map_free(t.map);
    return t.dst;
fail:
    nnfx_value_map_free(t.map);
    nnfx_graph_free(t.dst);
    return NULL;
}
