/* interp.c — the Interpreter: runs a graph node by node through handlers
 * that callers may override (FX's Interpreter). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

struct nnfx_interp {
    const nnfx_graph *g;
    nnfx_interp_handlers h;
    void *user;
    exec_plan plan;
    nnfx_value_map *index; /* node -> step index + 1 */
    nnfx_value_set *values;
    int nin;
    nnfx_tensor *const *in;
    int next_input;
};

nnfx_interp *nnfx_interp_new(const nnfx_graph *g, const nnfx_interp_handlers *h, void *user, nnfx_error *err) {
    if (!g) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "interp_new: NULL graph");
        return NULL;
    }
    if (nnfx_graph_lint(g, err)) return NULL;
    return exec_interp_new_linted(g, h, user, err);
}

nnfx_interp *exec_interp_new_linted(const nnfx_graph *g, const nnfx_interp_handlers *h, void *user, nnfx_error *err) {
    nnfx_interp *ip = calloc(1, sizeof *ip);
    if (!ip) goto oom;
    ip->g = g;
    if (h) ip->h = *h;
    ip->user = user;
    if (exec_plan_build((nnfx_graph *)g, &ip->plan, err)) {
        free(ip);
        return NULL;
    }
    ip->index = nnfx_value_map_new();
    ip->values = calloc((size_t)(ip->plan.nsteps ? ip->plan.nsteps : 1), sizeof *ip->values);
    if (!ip->index || !ip->values || !ir_value_map_reserve(ip->index, (size_t)ip->plan.nsteps)) goto oom;
    for (int i = 0; i < ip->plan.nsteps; i++)
        if (!nnfx_value_map_put(ip->index, ip->plan.steps[i], (nnfx_node *)(intptr_t)(i + 1))) goto oom;
    return ip;
oom:
    nnfx_interp_free(ip);
    nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory creating an interpreter");
    return NULL;
}

static void release_set(nnfx_value_set *v) {
    for (int i = 0; i < v->num; i++)
        nnfx_tensor_release(v->t[i]);
    memset(v, 0, sizeof *v);
}

void nnfx_interp_free(nnfx_interp *ip) {
    if (!ip) return;
    if (ip->values)
        for (int i = 0; i < ip->plan.nsteps; i++)
            release_set(&ip->values[i]);
    free(ip->values);
    nnfx_value_map_free(ip->index);
    exec_plan_free(&ip->plan);
    free(ip);
}

void *nnfx_interp_user(nnfx_interp *ip) { return ip ? ip->user : NULL; }

static int step_of(const nnfx_interp *ip, const nnfx_node *n) {
    return (int)(intptr_t)nnfx_value_map_get(ip->index, n) - 1;
}

const nnfx_value_set *nnfx_interp_value(nnfx_interp *ip, const nnfx_node *n) {
    if (!ip || !n) return NULL;
    int s = step_of(ip, n);
    return s >= 0 && ip->values[s].num ? &ip->values[s] : NULL;
}

/* --- default handlers ---------------------------------------------------------- */

static nnfx_status default_placeholder(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    int k = ip->next_input++;
    if (k >= ip->nin || !ip->in[k])
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "no value given for input %s (input %d of %d given)", n->name,
                              k, ip->nin);
    const nnfx_tensor *t = ip->in[k];
    const nnfx_meta *m = &n->meta[0];
    if (m->rank >= 0) {
        bool ok = m->rank == t->rank && (m->dtype == NNFX_DTYPE_UNDEFINED || m->dtype == t->dtype);
        for (int d = 0; ok && d < t->rank; d++)
            ok = m->dims[d].value < 0 || m->dims[d].value == t->shape[d];
        if (!ok) {
            char want[160], got[160];
            nnfx_meta_str(m, want, sizeof want);
            nnfx_shape_str(t->rank, t->shape, got, sizeof got);
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "input %s expects %s, got %s%s", n->name, want,
                                  nnfx_dtype_name(t->dtype), got);
        }
    }
    out->num = 1;
    out->t[0] = nnfx_tensor_retain(ip->in[k]);
    return NNFX_OK;
}

static nnfx_status default_get_attr(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    nnfx_tensor *t = nnfx_graph_param(ip->g, n->target);
    if (!t) return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: the graph has no parameter '%s'", n->name, n->target);
    out->num = 1;
    out->t[0] = nnfx_tensor_retain(t);
    return NNFX_OK;
}

nnfx_status nnfx_interp_default_call_function(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                              nnfx_value_set *out, nnfx_error *err) {
    nnfx_status st = nnfx_op_run(n, nin, in, out, err);
    if (st && err && !strstr(err->msg, n->name)) nnfx_error_prefix(err, "node %s (%s)", n->name, nnfx_op_name(n->op));
    return st;
}

static nnfx_status default_call_module(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                       nnfx_value_set *out, nnfx_error *err) {
    const ir_leaf *l = ir_graph_leaf(ip->g, n->target);
    if (!l) return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: no leaf function '%s'", n->name, n->target);
    nnfx_tensor *t = NULL;
    nnfx_status st = l->fn(l->user, nin, in, &t, err);
    if (st) {
        nnfx_error_prefix(err, "node %s (leaf %s)", n->name, n->target);
        nnfx_tensor_release(t);
        return st;
    }
    if (!t) return nnfx_error_set(err, NNFX_ERR_RUNTIME, "node %s: leaf %s returned no tensor", n->name, n->target);
    out->num = 1;
    out->t[0] = t;
    return NNFX_OK;
}

static nnfx_status default_output(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                  nnfx_value_set *out, nnfx_error *err) {
    if (nin > NNFX_MAX_RANK)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "the graph returns %d values (at most %d supported)", nin,
                              NNFX_MAX_RANK);
    for (int i = 0; i < nin; i++)
        out->t[i] = nnfx_tensor_retain(in[i]);
    out->num = nin;
    return NNFX_OK;
}

nnfx_status nnfx_interp_default_run_node(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    if (!ip || !n || !out) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "run_node: NULL argument");
    memset(out, 0, sizeof *out);
    switch (n->opcode) {
    case NNFX_PLACEHOLDER:
        return ip->h.placeholder ? ip->h.placeholder(ip, n, out, err) : default_placeholder(ip, n, out, err);
    case NNFX_GET_ATTR: return ip->h.get_attr ? ip->h.get_attr(ip, n, out, err) : default_get_attr(ip, n, out, err);
    default: break;
    }
    if (n->opcode == NNFX_CALL_FUNCTION && n->op == NNFX_OP_GETITEM) {
        const nnfx_value_set *src = nnfx_interp_value(ip, nnfx_node_arg_node(n, 0));
        int64_t k = n->args[1].u.i;
        if (!src || k < 0 || k >= src->num)
            return nnfx_error_set(err, NNFX_ERR_RUNTIME, "node %s: getitem of a missing value", n->name);
        out->num = 1;
        out->t[0] = nnfx_tensor_retain(src->t[k]);
        return NNFX_OK;
    }
    int nin = n->nargs;
    nnfx_tensor *stack_in[16];
    bool stack_lit[16];
    nnfx_tensor **in = nin <= 16 ? stack_in : calloc((size_t)nin, sizeof *in);
    bool *lit = nin <= 16 ? stack_lit : calloc((size_t)nin, sizeof *lit);
    nnfx_status st = NNFX_OK;
    if (!in || !lit) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < nin; i++) {
        const nnfx_arg *a = &n->args[i];
        in[i] = NULL;
        lit[i] = false;
        if (a->kind == NNFX_ARG_NODE) {
            const nnfx_value_set *v = nnfx_interp_value(ip, a->u.node);
            if (!v) {
                st = nnfx_error_set(err, NNFX_ERR_RUNTIME, "node %s: argument %s has no value", n->name,
                                    a->u.node->name);
                goto out;
            }
            in[i] = v->t[0];
        } else if (a->kind != NNFX_ARG_NONE) {
            in[i] = ir_literal_tensor(a, err);
            lit[i] = true;
            if (!in[i]) {
                st = NNFX_ERR_NOMEM;
                goto out;
            }
        }
    }
    switch (n->opcode) {
    case NNFX_CALL_FUNCTION:
        st = ip->h.call_function ? ip->h.call_function(ip, n, nin, in, out, err)
                                 : nnfx_interp_default_call_function(ip, n, nin, in, out, err);
        break;
    case NNFX_CALL_MODULE:
        st = ip->h.call_module ? ip->h.call_module(ip, n, nin, in, out, err)
                               : default_call_module(ip, n, nin, in, out, err);
        break;
    case NNFX_OUTPUT:
        st = ip->h.output ? ip->h.output(ip, n, nin, in, out, err) : default_output(ip, n, nin, in, out, err);
        break;
    default: break;
    }
out:
    for (int i = 0; lit && in && i < nin; i++)
        if (lit[i]) nnfx_tensor_release(in[i]);
    if (in != stack_in) free(in);
    if (lit != stack_lit) free(lit);
    return st;
}

nnfx_status nnfx_interp_run(nnfx_interp *ip, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs,
                            int *nout, nnfx_error *err) {
    if (!ip || (nin > 0 && !in) || (max_out > 0 && !outs))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "interp_run: NULL argument");
    if (nout) *nout = 0;
    int want = 0;
    for (int i = 0; i < ip->plan.nsteps; i++)
        want += ip->plan.steps[i]->opcode == NNFX_PLACEHOLDER;
    if (nin != want)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "the graph takes %d input%s, %d given", want,
                              want == 1 ? "" : "s", nin);
    ip->nin = nin;
    ip->in = in;
    ip->next_input = 0;
    nnfx_status st = NNFX_OK;
    int s;
    for (s = 0; s < ip->plan.nsteps && !st; s++) {
        const nnfx_node *n = ip->plan.steps[s];
        st = ip->h.run_node ? ip->h.run_node(ip, n, &ip->values[s], err)
                            : nnfx_interp_default_run_node(ip, n, &ip->values[s], err);
        if (st) break;
        if (n->opcode == NNFX_OUTPUT) {
            if (ip->values[s].num > max_out) {
                st = nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "the graph returns %d values, room for %d given",
                                    ip->values[s].num, max_out);
                break;
            }
            for (int i = 0; i < ip->values[s].num; i++)
                outs[i] = nnfx_tensor_retain(ip->values[s].t[i]);
            if (nout) *nout = ip->values[s].num;
        }
        /* release values whose last reader has run */
        for (int a = 0; a < n->nargs; a++) {
            if (n->args[a].kind != NNFX_ARG_NODE) continue;
            int src = step_of(ip, n->args[a].u.node);
            if (src >= 0 && ip->plan.last_use[src] == s) release_set(&ip->values[src]);
        }
        if (ip->plan.last_use[s] < 0) release_set(&ip->values[s]);
    }
    for (int i = 0; i < ip->plan.nsteps; i++)
        release_set(&ip->values[i]);
    return st;
}
