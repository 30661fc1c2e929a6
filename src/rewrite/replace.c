/* replace.c — replace_pattern: finds the matches of a pattern and swaps
 * each for a copy of the replacement graph, then re-infers meta. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"
#include "rewrite/rewrite_int.h"

/* The live node standing for n after earlier replacements. */
/* For a replacement node with **NODE (RW_COPY_ATTRS): the attributes of the
 * graph node matched by pattern node NODE that n's op has in its schema,
 * then n's own attributes (they win; later ones replace earlier ones in
 * call_op). *out is NULL when n has no **NODE. The attribute structs are
 * shallow copies (the nodes keep owning their values). */
static nnfx_status copy_matched_attrs(const nnfx_match *m, const nnfx_node *n, nnfx_attr **out, int *nout,
                                      nnfx_error *err) {
    *out = NULL;
    *nout = 0;
    const nnfx_attr *from = NULL;
    for (int i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].name, RW_COPY_ATTRS) == 0) from = &n->attrs[i];
    if (!from) return NNFX_OK;
    const nnfx_node *src = NULL;
    for (int i = 0; i < m->n && !src; i++)
        if (m->pattern_nodes[i] && strcmp(m->pattern_nodes[i]->name, from->u.s) == 0) src = m->graph_nodes[i];
    if (!src)
        return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "replace: **%s: no matched node of that pattern name",
                              from->u.s);
    nnfx_attr *a = malloc(sizeof *a * (size_t)(src->nattrs + n->nattrs + 1));
    if (!a) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    int k = 0;
    for (int i = 0; i < src->nattrs; i++)
        if (ir_schema_lookup(n->op, src->attrs[i].name, NULL, NULL)) a[k++] = src->attrs[i];
    for (int i = 0; i < n->nattrs; i++)
        if (&n->attrs[i] != from) a[k++] = n->attrs[i];
    *out = a;
    *nout = k;
    return NNFX_OK;
}

static nnfx_node *current(const nnfx_value_map *replaced, nnfx_node *n) {
    for (int guard = 0; n && guard < 1 << 20; guard++) {
        nnfx_node *r = nnfx_value_map_get(replaced, n);
        if (!r) return n;
        n = r;
    }
    return n;
}

/* Name under which replacement parameter `name` (tensor t) lives in g. */
static const char *param_in(nnfx_graph *g, const char *name, nnfx_tensor *t, char *buf, size_t len, nnfx_error *err) {
    nnfx_tensor *have = nnfx_graph_param(g, name);
    if (have == t) return name;
    if (!have) return nnfx_graph_set_param(g, name, t, err) ? NULL : name;
    for (int k = 1;; k++) {
        snprintf(buf, len, "%s_%d", name, k);
        have = nnfx_graph_param(g, buf);
        if (have == t) return buf;
        if (!have) return nnfx_graph_set_param(g, buf, t, err) ? NULL : buf;
    }
}

/* Where the replacement of m goes: before its first returned node, or
 * right after its last input when that comes later (multi-output). NULL
 * when there is no valid place. */
static nnfx_node *insertion_point(nnfx_graph *g, const rw_pattern *cp, const nnfx_match *m, nnfx_node *const *ret_nodes,
                                  const nnfx_arg *binds, bool *after) {
    ir_graph_renumber(g);
    nnfx_node *first = NULL;
    for (int r = 0; r < cp->nret; r++)
        if (!first || ret_nodes[r]->order < first->order) first = ret_nodes[r];
    *after = false;
    if (cp->nret == 1) return first;
    nnfx_node *last_in = NULL;
    for (int k = 0; k < m->nbindings; k++)
        if (binds[k].kind == NNFX_ARG_NODE && (!last_in || binds[k].u.node->order > last_in->order))
            last_in = binds[k].u.node;
    if (!last_in || last_in->order < first->order) return first;
    for (int r = 0; r < cp->nret; r++) {
        nnfx_node *gn = ret_nodes[r];
        for (int u = 0; u < gn->nusers; u++) {
            nnfx_node *us = gn->users[u];
            bool inside = false;
            for (int i = 0; i < m->n && !inside; i++)
                inside = m->graph_nodes[i] == us;
            if (!inside && us->order <= last_in->order) return NULL;
        }
    }
    *after = true;
    return last_in;
}

/* Applies one match. Returns NNFX_OK, or NNFX_ERR_NOT_FOUND when the match
 * cannot be applied (skipped), or another error. */
/* The replacement's placeholders, in order, and what each stands for: the
 * pattern wildcard bound at the same position. */
typedef struct rw_binds {
    int n;
    const nnfx_node **node;
    nnfx_arg *arg;
} rw_binds;

/* What placeholder ph stands for (none when it is not one of b's). */
static nnfx_arg rw_bound(const rw_binds *b, const nnfx_node *ph) {
    for (int q = 0; q < b->n; q++)
        if (b->node[q] == ph) return b->arg[q];
    return nnfx_arg_none();
}

/* n's arguments in g: placeholders through the bindings, other nodes
 * through rmap (replacement node -> its copy). */
static nnfx_status map_rep_args(const nnfx_node *n, const rw_binds *b, nnfx_value_map *rmap, nnfx_arg *args,
                                nnfx_error *err) {
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < n->nargs; i++) {
        args[i] = n->args[i];
        if (args[i].kind != NNFX_ARG_NODE) continue;
        const nnfx_node *src = n->args[i].u.node;
        if (src->opcode == NNFX_PLACEHOLDER) {
            args[i] = rw_bound(b, src);
            if (args[i].kind == NNFX_ARG_NONE)
                st = nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                    "replace: replacement wildcard %s has no pattern wildcard at its position",
                                    src->name);
        } else {
            args[i].u.node = nnfx_value_map_get(rmap, src);
            if (!args[i].u.node)
                st = nnfx_error_set(err, NNFX_ERR_GRAPH, "replace: replacement node %s uses an unknown node", n->name);
        }
    }
    return st;
}

/* Adds to g the copy *c of replacement node n (a parameter, an op with the
 * matched node's attributes where it asks for them, or a leaf module). */
static nnfx_status add_rep_node(nnfx_graph *g, const nnfx_graph *rep, const nnfx_node *n, const nnfx_match *m,
                                const rw_binds *b, nnfx_value_map *rmap, nnfx_node **c, nnfx_error *err) {
    nnfx_status st = NNFX_OK;
    *c = NULL;
    if (n->opcode == NNFX_GET_ATTR) {
        char pbuf[300];
        const char *nm = param_in(g, n->target, nnfx_graph_param(rep, n->target), pbuf, sizeof pbuf, err);
        if (!nm) return err ? err->status : NNFX_ERR_NOMEM;
        *c = nnfx_graph_get_attr(g, nm, err);
        return NNFX_OK;
    }
    nnfx_arg sargs[16];
    nnfx_arg *args = n->nargs <= 16 ? sargs : malloc(sizeof *args * (size_t)n->nargs);
    if (!args) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    st = map_rep_args(n, b, rmap, args, err);
    if (!st) {
        if (n->opcode == NNFX_CALL_FUNCTION) {
            nnfx_attr *merged = NULL;
            int nmerged = 0;
            st = copy_matched_attrs(m, n, &merged, &nmerged, err);
            if (!st)
                *c = merged ? nnfx_graph_call_op(g, n->op, n->nargs, args, nmerged, merged, err)
                            : nnfx_graph_call_op(g, n->op, n->nargs, args, n->nattrs, n->attrs, err);
            free(merged);
        } else {
            const ir_leaf *l = ir_graph_leaf(rep, n->target);
            if (!ir_graph_leaf(g, n->target) && l) nnfx_graph_register_leaf(g, l->name, l->fn, l->infer, l->user, err);
            *c = nnfx_graph_call_module(g, n->target, n->nargs, args, err);
        }
    }
    if (args != sargs) free(args);
    return st;
}

static nnfx_status apply_one(nnfx_graph *g, const rw_pattern *cp, const nnfx_graph *rep, nnfx_match *m,
                             nnfx_value_map *replaced, nnfx_error *err) {
    nnfx_status st = NNFX_OK;
    int nrep = rep->num_nodes;
    nnfx_arg *binds = calloc((size_t)(m->nbindings ? m->nbindings : 1), sizeof *binds);
    nnfx_node **ret_nodes = calloc((size_t)cp->nret, sizeof *ret_nodes);
    nnfx_value_map *rmap = nnfx_value_map_new();
    m->replacements = malloc(sizeof *m->replacements * (size_t)(nrep ? nrep : 1));
    if (!binds || !ret_nodes || !rmap || !m->replacements) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < m->nbindings; k++) {
        binds[k] = m->bindings[k];
        if (binds[k].kind == NNFX_ARG_NODE) binds[k].u.node = current(replaced, binds[k].u.node);
    }
    for (int r = 0; r < cp->nret; r++) {
        for (int i = 0; i < m->n; i++)
            if (m->pattern_nodes[i] == cp->p[cp->ret[r]].n) ret_nodes[r] = m->graph_nodes[i];
        if (!ret_nodes[r]) {
            st = nnfx_error_set(err, NNFX_ERR_GRAPH, "replace: match at %%%s lacks a returned node", m->anchor_name);
            goto out;
        }
    }
    /* Replacement placeholders bind by position; values returned must be nodes. */
    const nnfx_node *rout = nnfx_graph_output_node(rep);
    int kph = 0;
    nnfx_arg *rph = calloc((size_t)(nrep ? nrep : 1), sizeof *rph); /* per placeholder */
    const nnfx_node **rph_node = calloc((size_t)(nrep ? nrep : 1), sizeof *rph_node);
    if (!rph || !rph_node) {
        free(rph);
        free(rph_node);
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (const nnfx_node *n = rep->head; n; n = n->next)
        if (n->opcode == NNFX_PLACEHOLDER) {
            rph_node[kph] = n;
            rph[kph] = kph < m->nbindings ? binds[kph] : nnfx_arg_none();
            kph++;
        }
    rw_binds rb = {kph, rph_node, rph};
    for (int r = 0; r < rout->nargs; r++) {
        const nnfx_node *v = rout->args[r].u.node;
        if (v->opcode == NNFX_PLACEHOLDER) {
            if (rw_bound(&rb, v).kind != NNFX_ARG_NODE) {
                st = NNFX_ERR_NOT_FOUND; /* the wildcard bound a literal: cannot stand for a node */
                goto out_ph;
            }
        }
    }
    bool after = false;
    nnfx_node *ref = insertion_point(g, cp, m, ret_nodes, binds, &after);
    if (!ref) {
        st = NNFX_ERR_NOT_FOUND;
        goto out_ph;
    }
    if (after)
        nnfx_inserting_after(g, ref);
    else
        nnfx_inserting_before(g, ref);
    nnfx_node *anchor = m->anchor;
    for (const nnfx_node *n = rep->head; n; n = n->next) {
        if (n->opcode == NNFX_PLACEHOLDER || n->opcode == NNFX_OUTPUT) continue;
        nnfx_node *c;
        if ((st = add_rep_node(g, rep, n, m, &rb, rmap, &c, err))) goto out_ph;
        if (!c) {
            st = err && err->status ? err->status : NNFX_ERR_GRAPH;
            goto out_ph;
        }
        if (anchor && anchor->module_path) nnfx_node_set_module_path(c, anchor->module_path, NULL);
        if (anchor && anchor->src_file) nnfx_node_set_src(c, anchor->src_file, anchor->src_line);
        m->replacements[m->nreplacements++] = c;
        if (!nnfx_value_map_put(rmap, n, c)) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto out_ph;
        }
    }
    /* Rewire the users of each returned node, then erase the match. */
    for (int r = 0; r < cp->nret; r++) {
        const nnfx_node *v = rout->args[r].u.node;
        nnfx_node *nv;
        if (v->opcode == NNFX_PLACEHOLDER) {
            nv = rw_bound(&rb, v).u.node;
        } else {
            nv = nnfx_value_map_get(rmap, v);
        }
        if (!nv || nnfx_replace_all_uses_with(ret_nodes[r], nv, NULL, NULL) < 0) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "replace: rewiring the users of %%%s failed", ret_nodes[r]->name);
            goto out_ph;
        }
        if (!nnfx_value_map_put(replaced, ret_nodes[r], nv)) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto out_ph;
        }
    }
    for (int i = m->n - 1; i >= 0; i--) {
        if (nnfx_erase_node(g, m->graph_nodes[i], err)) {
            st = err ? err->status : NNFX_ERR_GRAPH;
            goto out_ph;
        }
        m->graph_nodes[i] = NULL;
    }
    m->anchor = NULL;
out_ph:
    free(rph);
    free(rph_node);
out:
    nnfx_inserting_at_end(g);
    free(binds);
    free(ret_nodes);
    nnfx_value_map_free(rmap);
    return st;
}

/* Checks that replacement fits pattern cp. */
static nnfx_status check_replacement(const rw_pattern *cp, const nnfx_graph *rep, nnfx_error *err) {
    const nnfx_node *out = nnfx_graph_output_node(rep);
    if (!out) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace: the replacement graph has no output node");
    if (out->nargs != cp->nret)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace: the pattern returns %d value%s, the replacement %d",
                              cp->nret, cp->nret == 1 ? "" : "s", out->nargs);
    for (int r = 0; r < out->nargs; r++)
        if (out->args[r].kind != NNFX_ARG_NODE)
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace: replacement value %d is not a node", r);
    int nph = nnfx_graph_num_inputs(rep);
    if (nph > cp->nph)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                              "replace: the replacement has %d wildcards, the pattern only %d (they bind by position)",
                              nph, cp->nph);
    return NNFX_OK;
}

nnfx_match_list *nnfx_replace_pattern_ex(nnfx_graph *g, const nnfx_graph *pattern, const nnfx_graph *replacement,
                                         const nnfx_rewrite_options *opts, nnfx_error *err) {
    if (!g || !pattern || !replacement) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace_pattern: NULL graph, pattern or replacement");
        return NULL;
    }
    if (g == pattern || g == replacement) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace_pattern: the pattern or replacement is the graph itself");
        return NULL;
    }
    rw_pattern cp;
    if (rw_pattern_compile(pattern, &cp, err)) return NULL;
    nnfx_match_list *l = NULL;
    nnfx_value_map *replaced = NULL;
    if (check_replacement(&cp, replacement, err)) goto fail;
    l = rw_list_new();
    replaced = nnfx_value_map_new();
    if (!l || !replaced) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (rw_find(g, &cp, opts, l, err)) goto fail;
    int kept = 0;
    for (int i = 0; i < l->n; i++) {
        nnfx_status st = apply_one(g, &cp, replacement, &l->m[i], replaced, err);
        if (st == NNFX_ERR_NOT_FOUND) { /* nothing was created: the match is skipped */
            rw_match_clear(&l->m[i]);
            continue;
        }
        if (st) {
            for (int j = i; j < l->n; j++)
                rw_match_clear(&l->m[j]);
            l->n = kept;
            nnfx_error_prefix(err, "replace_pattern (after %d replacements)", kept);
            goto fail;
        }
        l->m[kept++] = l->m[i];
    }
    l->n = kept;
    if (!(opts && opts->no_shape_inference) && kept > 0) {
        nnfx_error serr = {0};
        if (nnfx_graph_infer_shapes(g, &serr))
            snprintf(l->warning, sizeof l->warning, "shape inference after the rewrite: %s", serr.msg);
    }
    nnfx_value_map_free(replaced);
    rw_pattern_free(&cp);
    return l;
fail:
    nnfx_value_map_free(replaced);
    nnfx_match_list_free(l);
    rw_pattern_free(&cp);
    return NULL;
}

nnfx_match_list *nnfx_replace_pattern(nnfx_graph *g, const nnfx_graph *pattern, const nnfx_graph *replacement,
                                      nnfx_match_filter filter, void *ctx, nnfx_error *err) {
    nnfx_rewrite_options o = {0};
    o.filter = filter;
    o.filter_ctx = ctx;
    return nnfx_replace_pattern_ex(g, pattern, replacement, &o, err);
}
