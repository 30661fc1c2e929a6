/* const_eval.c — the inputs of constant evaluation, gathered one way for
 * the three places that compute a node's constant value with its op's one
 * kernel: shape inference (ir/shape_infer.c: small values, to resolve
 * shapes), the fold-constants pass (passes/fold_constants.c: rewrites the
 * graph) and the compiled plan (exec/fast_plan.c: once per plan). What
 * differs between them is which values each knows and keeps, not how a
 * value is computed; Shape and Size of a value whose shape is static are
 * computed by their kernels too, over a header that has the shape and no
 * data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

/* Ops whose kernel reads only its input's shape, never its data. */
static bool reads_shape_only(nnfx_op op) { return op == NNFX_OP_SHAPE || op == NNFX_OP_SIZE; }

/* A tensor of static meta m over no data (a single shared float that the
 * shape-only kernels never read). NULL on OOM. */
static nnfx_tensor *shape_header(const nnfx_meta *m, nnfx_error *err) {
    static float nodata;
    int64_t dims[NNFX_MAX_RANK];
    for (int d = 0; d < m->rank; d++)
        dims[d] = m->dims[d].value;
    return nnfx_tensor_borrow(m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype, m->rank, dims, &nodata, err);
}

nnfx_status ir_const_in_gather(ir_const_in *ci, const nnfx_node *n, ir_value_fn value_of, void *ctx, nnfx_error *err) {
    int k = n->nargs;
    ci->n = 0; /* entries are set one by one below: the stack arrays need no clearing */
    ci->known = false;
    ci->t = k <= 16 ? ci->t_stack : calloc((size_t)k, sizeof *ci->t);
    ci->owned = k <= 16 ? ci->owned_stack : calloc((size_t)k, sizeof *ci->owned);
    if (!ci->t || !ci->owned) {
        ir_const_in_release(ci);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    ci->known = true;
    for (int i = 0; i < k; i++) {
        const nnfx_arg *a = &n->args[i];
        ci->t[i] = NULL;
        ci->owned[i] = false;
        ci->n = i + 1; /* a failure below releases the entries set so far */
        if (a->kind == NNFX_ARG_NONE) continue;
        if (a->kind != NNFX_ARG_NODE) { /* a literal */
            ci->owned[i] = true;
            if (!(ci->t[i] = ir_literal_tensor(a, err))) return NNFX_ERR_NOMEM;
            continue;
        }
        const nnfx_meta *m = &a->u.node->meta[0];
        if ((ci->t[i] = (nnfx_tensor *)value_of(ctx, a->u.node))) continue;
        if (i == 0 && reads_shape_only(n->op) && nnfx_meta_is_static(m)) {
            ci->owned[i] = true;
            if (!(ci->t[i] = shape_header(m, err))) return NNFX_ERR_NOMEM;
            continue;
        }
        ci->known = false;
    }
    return NNFX_OK;
}

void ir_const_in_release(ir_const_in *ci) {
    for (int i = 0; i < ci->n; i++)
        if (ci->owned[i]) nnfx_tensor_release(ci->t[i]);
    if (ci->t != ci->t_stack) free(ci->t);
    if (ci->owned != ci->owned_stack) free(ci->owned);
    ci->n = 0;
    ci->t = NULL;
    ci->owned = NULL;
    ci->known = false;
}

/* ---- folding: the graph rewrite ---- */

/* Largest folded value kept (bytes): larger results stay computed. */
#define FOLD_MAX_BYTES ((size_t)64 << 20)

/* The constant value of n (borrowed), or NULL (an ir_value_fn over g). */
static const nnfx_tensor *fold_value_of(void *ctx, const nnfx_node *n) {
    nnfx_graph *g = ctx;
    if (n->opcode == NNFX_GET_ATTR) return n->graph == g ? ir_node_param(n) : nnfx_graph_param(g, n->target);
    return n->opcode == NNFX_CALL_FUNCTION ? (nnfx_tensor *)n->pass_data : NULL;
}

/* Evaluates n when every input is known (Shape and Size of a statically
 * shaped value too: ir_const_in_gather); returns a new reference or NULL. */
static nnfx_tensor *try_fold(nnfx_graph *g, nnfx_node *n, ir_eval_fn eval) {
    /* Quantization (int8): DequantizeLinear of an integer weight is how a QDQ
     * model stores it; folding it would turn the model back to float */
    if (n->op == NNFX_OP_DEQUANTIZE_LINEAR) return NULL;
    if (nnfx_op_flags(n->op) & NNFX_F_IMPURE || n->nout != 1 || n->op == NNFX_OP_GETITEM) return NULL;
    ir_const_in ci;
    nnfx_tensor *res = NULL;
    if (!ir_const_in_gather(&ci, n, fold_value_of, g, NULL) && ci.known) {
        nnfx_value_set vs;
        if (eval(n, ci.n, ci.t, &vs, NULL) == NNFX_OK) {
            res = vs.t[0];
            for (int i = 1; i < vs.num; i++)
                nnfx_tensor_release(vs.t[i]);
            if (res && res->nbytes > FOLD_MAX_BYTES) {
                nnfx_tensor_release(res);
                res = NULL;
            }
        }
    }
    ir_const_in_release(&ci);
    return res;
}

nnfx_status ir_fold_constants(nnfx_graph *g, ir_eval_fn eval, int *changed, nnfx_error *err) {
    nnfx_graph_infer_shapes(g, NULL); /* static shapes for Shape nodes; unknown is fine */
    for (nnfx_node *n = nnfx_graph_first(g); n; n = n->next)
        n->pass_data = NULL;
    for (nnfx_node *n = nnfx_graph_first(g); n; n = n->next)
        if (n->opcode == NNFX_CALL_FUNCTION) n->pass_data = try_fold(g, n, eval);
    /* Replace folded nodes that something unfolded uses. */
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = nnfx_graph_first(g); n && !st; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || !n->pass_data) continue;
        bool frontier = false;
        for (int u = 0; u < n->nusers && !frontier; u++)
            frontier = !(n->users[u]->opcode == NNFX_CALL_FUNCTION && n->users[u]->pass_data);
        if (!frontier) continue;
        nnfx_inserting_before(g, n);
        char base[200];
        snprintf(base, sizeof base, "const_%s", n->name);
        nnfx_node *c = ir_graph_new_param(g, base, "", (nnfx_tensor *)n->pass_data, err);
        if (!c) {
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
            break;
        }
        if (n->module_path) nnfx_node_set_module_path(c, n->module_path, NULL);
        if (nnfx_replace_all_uses_with(n, c, NULL, NULL) < 0) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            break;
        }
        if (changed) (*changed)++;
    }
    nnfx_inserting_at_end(g);
    /* Folded nodes are now unused: erase them (users first). */
    for (nnfx_node *n = nnfx_graph_last(g), *prev; n; n = prev) {
        prev = n->prev;
        if (n->opcode == NNFX_CALL_FUNCTION && n->pass_data) {
            nnfx_tensor_release((nnfx_tensor *)n->pass_data);
            n->pass_data = NULL;
            if (n->nusers == 0) nnfx_erase_node(g, n, NULL);
        }
    }
    ir_graph_drop_dead_params(g);
    nnfx_graph_infer_shapes(g, NULL);
    return st;
}

static bool dead_get_attr(const nnfx_node *n) { return n->opcode == NNFX_GET_ATTR && n->nusers == 0; }

/* Erases the unused get_attr nodes in list order. A scout runs ahead of
 * the walk and prefetches the name-table slot and name of the next few
 * such nodes: in a large graph each erase otherwise waits for a cache miss
 * at a random address. Erasing a get_attr node (it has no arguments)
 * changes no other node's users, and the scout is always past the node
 * being erased, so both walks stay valid. */
void ir_graph_drop_dead_params(nnfx_graph *g) {
    enum { AHEAD = 8 };
    /* no unused get_attr or call_function node: nothing to erase, no walk */
    nnfx_node *scout = g->unused_removable > 0 ? nnfx_graph_first(g) : NULL;
    int ahead = 0; /* dead get_attr nodes the scout passed that the walk has not erased yet */
    for (nnfx_node *n = scout, *next; n; n = next) {
        for (; scout && ahead < AHEAD; scout = scout->next) {
            ir_node_prefetch(scout, 16);
            if (dead_get_attr(scout)) {
                ir_names_prefetch(&g->names, scout->name_hash);
                __builtin_prefetch(scout->name);
                ahead++;
            }
        }
        next = n->next;
        if (!dead_get_attr(n)) continue;
        nnfx_erase_node(g, n, NULL);
        ahead--;
    }
    nnfx_graph_drop_unused_params(g);
}

nnfx_node *ir_graph_new_param(nnfx_graph *g, const char *base, const char *suffix, nnfx_tensor *t, nnfx_error *err) {
    char name[256];
    size_t bl = strlen(base), sl = strlen(suffix);
    if (bl + sl < sizeof name) { /* the common case, without snprintf's cost */
        memcpy(name, base, bl);
        memcpy(name + bl, suffix, sl + 1);
    } else {
        snprintf(name, sizeof name, "%s%s", base, suffix);
    }
    /* one lookup per candidate name, then the parameter and its node by
     * index (set_param and get_attr would look the name up twice more) */
    int idx = ir_graph_param_find(g, name);
    for (int k = 1; idx; k++) {
        snprintf(name, sizeof name, "%s%s_%d", base, suffix, k);
        idx = ir_graph_param_find(g, name);
    }
    if (!*name || !t) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_param: NULL argument");
        return NULL;
    }
    idx = ir_graph_param_add(g, name, t, err);
    return idx ? ir_graph_get_attr_at(g, idx - 1, err) : NULL;
}
