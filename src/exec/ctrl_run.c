/* ctrl_run.c — runs If, Loop and Scan nodes (src/ir/ctrl.c has their
 * layout): each body runs in a nested interpreter, so bodies may hold any
 * op, data-dependent shapes and further control flow. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

/* Most body runs of Loop and Scan iterations, all nesting levels together,
 * for one outermost control-flow node (a guard against runaway and
 * nested loops of hostile models). */
#define CTRL_MAX_ITERATIONS (1LL << 18)

static _Thread_local int run_depth;
static _Thread_local int64_t iterations;

/* Counts one iteration; an error past the budget. */
static nnfx_status count_iteration(const nnfx_node *n, nnfx_error *err) {
    if (++iterations <= CTRL_MAX_ITERATIONS) return NNFX_OK;
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                          "node %s: more than %lld loop iterations (all nesting levels together)", n->name,
                          (long long)CTRL_MAX_ITERATIONS);
}

typedef struct body_run {
    const nnfx_graph *g;
    nnfx_interp *ip;
    int nin;
    nnfx_tensor **in; /* borrowed */
    int next;
    int nres;
    nnfx_tensor **res; /* nres new references after a run */
} body_run;

/* Body inputs come from the caller's array; no meta check (loop-carried
 * shapes may change from one iteration to the next). */
static nnfx_status body_placeholder(nnfx_interp *ip, const nnfx_node *n, nnfx_value_set *out, nnfx_error *err) {
    body_run *r = nnfx_interp_user(ip);
    int k = r->next++;
    if (k >= r->nin || !r->in[k])
        return nnfx_error_set(err, NNFX_ERR_RUNTIME, "body input %s (%d) has no value", nnfx_node_name(n), k);
    out->num = 1;
    out->t[0] = nnfx_tensor_retain(r->in[k]);
    return NNFX_OK;
}

/* Results go to r->res (any number); the interpreter sees none. */
static nnfx_status body_output_h(nnfx_interp *ip, const nnfx_node *n, int nin, nnfx_tensor *const *in,
                                 nnfx_value_set *out, nnfx_error *err) {
    body_run *r = nnfx_interp_user(ip);
    (void)n;
    if (nin != r->nres)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "the body returns %d values, %d expected", nin, r->nres);
    for (int i = 0; i < nin; i++) {
        if (!in[i]) return nnfx_error_set(err, NNFX_ERR_RUNTIME, "body result %d has no value", i);
        r->res[i] = nnfx_tensor_retain(in[i]);
    }
    out->num = 0;
    return NNFX_OK;
}

static void body_clear(body_run *r) {
    for (int i = 0; r->res && i < r->nres; i++) {
        nnfx_tensor_release(r->res[i]);
        r->res[i] = NULL;
    }
}

static void body_done(body_run *r) {
    body_clear(r);
    free(r->res);
    free(r->in);
    nnfx_interp_free(r->ip);
}

static nnfx_status body_init(body_run *r, const nnfx_graph *g, int nin, nnfx_error *err) {
    memset(r, 0, sizeof *r);
    r->g = g;
    r->nin = nin;
    r->nres = ir_graph_num_outputs(g);
    r->in = calloc((size_t)nin + 1, sizeof *r->in);
    r->res = calloc((size_t)r->nres + 1, sizeof *r->res);
    if (!r->in || !r->res) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    nnfx_interp_handlers h = {0};
    h.placeholder = body_placeholder;
    h.output = body_output_h;
    r->ip = exec_interp_new_linted(g, &h, r, err);
    return r->ip ? NNFX_OK : (err && err->status ? err->status : NNFX_ERR_NOMEM);
}

/* Runs the body once on r->in; results in r->res. */
static nnfx_status body_call(body_run *r, const nnfx_node *n, nnfx_error *err) {
    body_clear(r);
    r->next = 0;
    nnfx_status st = nnfx_interp_run(r->ip, r->nin, r->in, 0, NULL, NULL, err);
    if (st && err && !strstr(err->msg, "in the body of")) nnfx_error_prefix(err, "in the body of %s", n->name);
    return st;
}

static bool truthy(const nnfx_tensor *t) { return t && nnfx_tensor_numel(t) >= 1 && nnfx_tensor_get(t, 0) != 0; }

/* --- stacking per-iteration values -------------------------------------------------- */

typedef struct stack_list {
    nnfx_tensor **t;
    int64_t n, cap;
} stack_list;

static bool stack_push(stack_list *l, nnfx_tensor *t) {
    if (l->n == l->cap) {
        int64_t nc = l->cap ? l->cap * 2 : 16;
        nnfx_tensor **nt = realloc(l->t, sizeof *nt * (size_t)nc);
        if (!nt) return false;
        l->t = nt;
        l->cap = nc;
    }
    l->t[l->n++] = nnfx_tensor_retain(t);
    return true;
}

static void stack_free(stack_list *l) {
    for (int64_t i = 0; i < l->n; i++)
        nnfx_tensor_release(l->t[i]);
    free(l->t);
    memset(l, 0, sizeof *l);
}

/* Stacks the items along a new axis (item k at position pos[k] or k);
 * every item must have the same dtype and shape. With no items, the shape
 * comes from meta (unknown dims 0). */
static nnfx_tensor *stack_items(const nnfx_node *n, stack_list *l, int axis, bool reverse, const nnfx_meta *meta,
                                nnfx_error *err) {
    int64_t shape[NNFX_MAX_RANK];
    nnfx_dtype dt;
    int rank;
    if (l->n == 0) {
        dt = meta->dtype != NNFX_DTYPE_UNDEFINED ? meta->dtype : NNFX_F32;
        rank = meta->rank >= 1 ? meta->rank : 1;
        for (int d = 0; d < rank; d++)
            shape[d] = meta->rank >= 1 && meta->dims[d].value > 0 ? meta->dims[d].value : 0;
        shape[axis < rank ? axis : 0] = 0;
        return nnfx_tensor_new(dt, rank, shape, err);
    }
    const nnfx_tensor *f = l->t[0];
    if (f->rank + 1 > NNFX_MAX_RANK || axis < 0 || axis > f->rank) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: cannot stack rank-%d values along axis %d", n->name,
                       f->rank, axis);
        return NULL;
    }
    for (int64_t k = 1; k < l->n; k++) {
        const nnfx_tensor *t = l->t[k];
        bool same = t->dtype == f->dtype && t->rank == f->rank;
        for (int d = 0; same && d < f->rank; d++)
            same = t->shape[d] == f->shape[d];
        if (!same) {
            char a[160], b[160];
            nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: iteration %lld gives %s%s, iteration 0 gave %s%s", n->name,
                           (long long)k, nnfx_dtype_name(t->dtype), nnfx_shape_str(t->rank, t->shape, a, sizeof a),
                           nnfx_dtype_name(f->dtype), nnfx_shape_str(f->rank, f->shape, b, sizeof b));
            return NULL;
        }
    }
    rank = f->rank + 1;
    for (int d = 0, k = 0; d < rank; d++)
        shape[d] = d == axis ? l->n : f->shape[k++];
    nnfx_tensor *out = nnfx_tensor_new(f->dtype, rank, shape, err);
    if (!out) return NULL;
    size_t es = nnfx_dtype_size(f->dtype);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= f->shape[d];
    for (int d = axis; d < f->rank; d++)
        inner *= f->shape[d];
    size_t chunk = (size_t)inner * es;
    for (int64_t k = 0; k < l->n; k++) {
        int64_t pos = reverse ? l->n - 1 - k : k;
        const char *src = l->t[k]->data;
        char *dst = out->data;
        for (int64_t o = 0; o < outer; o++)
            memcpy(dst + ((size_t)o * (size_t)l->n + (size_t)pos) * chunk, src + (size_t)o * chunk, chunk);
    }
    return out;
}

/* Slice index `pos` of x along axis, the axis removed. */
static nnfx_tensor *slice_at(const nnfx_tensor *x, int axis, int64_t pos, nnfx_error *err) {
    int64_t shape[NNFX_MAX_RANK];
    for (int d = 0, k = 0; d < x->rank; d++)
        if (d != axis) shape[k++] = x->shape[d];
    nnfx_tensor *t = nnfx_tensor_new(x->dtype, x->rank - 1, shape, err);
    if (!t) return NULL;
    size_t es = nnfx_dtype_size(x->dtype);
    int64_t outer = 1, inner = 1, len = x->shape[axis];
    for (int d = 0; d < axis; d++)
        outer *= x->shape[d];
    for (int d = axis + 1; d < x->rank; d++)
        inner *= x->shape[d];
    size_t chunk = (size_t)inner * es;
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)t->data + (size_t)o * chunk,
               (const char *)x->data + ((size_t)o * (size_t)len + (size_t)pos) * chunk, chunk);
    return t;
}

/* --- the three ops ---------------------------------------------------------------- */

static nnfx_status run_if(const nnfx_node *n, const ir_ctrl_shape *s, int nin, nnfx_tensor *const *in,
                          nnfx_value_set *out, nnfx_error *err) {
    if (!in[0] || nnfx_tensor_numel(in[0]) != 1)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: the condition of if must be one element", n->name);
    const nnfx_graph *g = truthy(in[0]) ? s->body[0] : s->body[1];
    body_run r;
    nnfx_status st = body_init(&r, g, nin - 1, err);
    for (int i = 1; !st && i < nin; i++)
        r.in[i - 1] = in[i];
    if (!st) st = body_call(&r, n, err);
    if (!st && r.nres != n->nout)
        st = nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: the branch returns %d values, the node has %d outputs",
                            n->name, r.nres, n->nout);
    for (int i = 0; !st && i < r.nres; i++) {
        out->t[i] = r.res[i];
        r.res[i] = NULL;
        out->num = i + 1;
    }
    body_done(&r);
    return st;
}

static nnfx_status run_loop(const nnfx_node *n, const ir_ctrl_shape *s, int nin, nnfx_tensor *const *in,
                            nnfx_value_set *out, nnfx_error *err) {
    int64_t max_trips = INT64_MAX;
    if (in[0]) {
        if (nnfx_tensor_numel(in[0]) != 1)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: the trip count must be one element", n->name);
        max_trips = ir_tensor_int_at0(in[0]);
    }
    bool use_cond = in[1] != NULL, cond = !use_cond || truthy(in[1]);
    int N = s->ncarried, S = s->nscan_out;
    body_run r;
    stack_list *scans = calloc((size_t)S + 1, sizeof *scans);
    nnfx_tensor **carried = calloc((size_t)N + 1, sizeof *carried);
    nnfx_tensor *iter = NULL, *cond_t = NULL;
    nnfx_status st = body_init(&r, s->body[0], nin, err);
    if (!st && (!scans || !carried)) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < N; i++)
        carried[i] = nnfx_tensor_retain(in[2 + i]);
    int64_t it = 0;
    for (; !st && it < max_trips && cond; it++) {
        if ((st = count_iteration(n, err))) break;
        nnfx_tensor_release(iter);
        nnfx_tensor_release(cond_t);
        iter = nnfx_tensor_scalar_i64(it, err);
        cond_t = nnfx_tensor_new(NNFX_BOOL, 0, NULL, err);
        if (!iter || !cond_t) {
            st = err && err->status ? err->status : NNFX_ERR_NOMEM;
            break;
        }
        *(uint8_t *)cond_t->data = cond;
        r.in[0] = iter;
        r.in[1] = cond_t;
        for (int i = 0; i < N; i++)
            r.in[2 + i] = carried[i];
        for (int i = 2 + N; i < nin; i++)
            r.in[i] = in[i];
        if ((st = body_call(&r, n, err))) break;
        if (use_cond) cond = truthy(r.res[0]);
        for (int i = 0; i < N; i++) {
            nnfx_tensor_release(carried[i]);
            carried[i] = nnfx_tensor_retain(r.res[1 + i]);
        }
        for (int j = 0; j < S && !st; j++)
            if (!stack_push(&scans[j], r.res[1 + N + j])) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; !st && i < n->nout; i++) {
        if (i < N) {
            out->t[i] = carried[i];
            carried[i] = NULL;
        } else {
            out->t[i] = stack_items(n, &scans[i - N], 0, false, &n->meta[i], err);
            if (!out->t[i]) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        }
        if (!st) out->num = i + 1;
    }
    nnfx_tensor_release(iter);
    nnfx_tensor_release(cond_t);
    for (int i = 0; carried && i < N; i++)
        nnfx_tensor_release(carried[i]);
    free(carried);
    for (int j = 0; scans && j < S; j++)
        stack_free(&scans[j]);
    free(scans);
    body_done(&r);
    return st;
}

static nnfx_status run_scan(const nnfx_node *n, const ir_ctrl_shape *s, int nin, nnfx_tensor *const *in,
                            nnfx_value_set *out, nnfx_error *err) {
    int N = s->ncarried, M = s->nscan_in, S = s->nscan_out;
    int64_t len = -1;
    int axes[NNFX_MAX_RANK * 8];
    if (M > (int)(sizeof axes / sizeof axes[0]))
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: too many scan inputs", n->name);
    for (int j = 0; j < M; j++) {
        const nnfx_tensor *x = in[N + j];
        if (!x || x->rank < 1)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: scan input %d must have rank >= 1", n->name, j);
        axes[j] = ir_scan_axis(n, "scan_input_axes", j, x->rank);
        if (axes[j] < 0)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: scan_input_axes[%d] is out of range", n->name, j);
        if (len >= 0 && x->shape[axes[j]] != len)
            return nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: scan inputs have lengths %lld and %lld", n->name,
                                  (long long)len, (long long)x->shape[axes[j]]);
        len = x->shape[axes[j]];
    }
    const nnfx_attr *dirs = nnfx_node_attr(n, "scan_input_directions");
    const nnfx_attr *odirs = nnfx_node_attr(n, "scan_output_directions");
    body_run r;
    stack_list *scans = calloc((size_t)S + 1, sizeof *scans);
    nnfx_tensor **carried = calloc((size_t)N + 1, sizeof *carried);
    nnfx_tensor **slices = calloc((size_t)M + 1, sizeof *slices);
    nnfx_status st = body_init(&r, s->body[0], nin, err);
    if (!st && (!scans || !carried || !slices)) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < N; i++)
        carried[i] = nnfx_tensor_retain(in[i]);
    for (int64_t t = 0; !st && t < len; t++) {
        if ((st = count_iteration(n, err))) break;
        for (int j = 0; j < M && !st; j++) {
            bool rev = dirs && dirs->kind == NNFX_ATTR_INTS && j < dirs->u.ints.n && dirs->u.ints.v[j];
            nnfx_tensor_release(slices[j]);
            slices[j] = slice_at(in[N + j], axes[j], rev ? len - 1 - t : t, err);
            if (!slices[j]) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        }
        if (st) break;
        for (int i = 0; i < N; i++)
            r.in[i] = carried[i];
        for (int j = 0; j < M; j++)
            r.in[N + j] = slices[j];
        for (int i = N + M; i < nin; i++)
            r.in[i] = in[i];
        if ((st = body_call(&r, n, err))) break;
        for (int i = 0; i < N; i++) {
            nnfx_tensor_release(carried[i]);
            carried[i] = nnfx_tensor_retain(r.res[i]);
        }
        for (int j = 0; j < S && !st; j++)
            if (!stack_push(&scans[j], r.res[N + j])) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; !st && i < n->nout; i++) {
        if (i < N) {
            out->t[i] = carried[i];
            carried[i] = NULL;
        } else {
            int j = i - N;
            int r1 = scans[j].n ? scans[j].t[0]->rank + 1 : (n->meta[i].rank >= 1 ? n->meta[i].rank : 1);
            int ax = ir_scan_axis(n, "scan_output_axes", j, r1);
            bool rev = odirs && odirs->kind == NNFX_ATTR_INTS && j < odirs->u.ints.n && odirs->u.ints.v[j];
            if (ax < 0) {
                st = nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: scan_output_axes[%d] is out of range", n->name, j);
                break;
            }
            out->t[i] = stack_items(n, &scans[j], ax, rev, &n->meta[i], err);
            if (!out->t[i]) st = err && err->status ? err->status : NNFX_ERR_NOMEM;
        }
        if (!st) out->num = i + 1;
    }
    for (int i = 0; carried && i < N; i++)
        nnfx_tensor_release(carried[i]);
    free(carried);
    for (int j = 0; slices && j < M; j++)
        nnfx_tensor_release(slices[j]);
    free(slices);
    for (int j = 0; scans && j < S; j++)
        stack_free(&scans[j]);
    free(scans);
    body_done(&r);
    return st;
}

nnfx_status exec_ctrl_run(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out, nnfx_error *err) {
    ir_ctrl_shape s;
    nnfx_status st = ir_ctrl_layout(n, &s, err);
    if (st) return st;
    if (nin != n->nargs) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "node %s: %d inputs given", n->name, nin);
    if ((st = ir_ctrl_enter(n, err))) return st;
    if (run_depth++ == 0) iterations = 0;
    switch (n->op) {
    case NNFX_OP_IF: st = run_if(n, &s, nin, in, out, err); break;
    case NNFX_OP_LOOP: st = run_loop(n, &s, nin, in, out, err); break;
    default: st = run_scan(n, &s, nin, in, out, err); break;
    }
    run_depth--;
    ir_ctrl_leave();
    if (st) {
        for (int i = 0; i < out->num; i++)
            nnfx_tensor_release(out->t[i]);
        memset(out, 0, sizeof *out);
    }
    return st;
}
