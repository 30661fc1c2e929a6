/* outer_ranges.c — a kernel step of the compiled plan split into ranges of
 * one outer dimension of its output, run as pool tasks: element-wise and
 * broadcasting ops, Softmax / LogSoftmax / Hardmax, LayerNormalization and
 * the reductions over rows, MatMul over its batch (or row) dimension, and
 * Transpose. The split dimension is the output's first one of more than one
 * element (every dimension before it is 1), so each range of it is one
 * contiguous run of the output and of every input that has that dimension;
 * each task calls the step's own kernel on tensor headers narrowed to its
 * range (Transpose: kern_transpose_range, the input being strided).
 *
 * The split depends on the shapes alone, never on the thread count, so 1
 * and 2 threads run the same calls and give the same bits. Each output
 * element is computed as the one call computes it: element-wise ops per
 * element, the row ops per row (a row never spans two ranges, so no
 * reduction changes order), MatMul per batch; a MatMul whose batches are
 * one sgemm over all rows becomes one sgemm per range. Steps under
 * FX_RANGE_MIN_WORK per task stay one call. */
#include <stdatomic.h>
#include <string.h>

#include "exec/outer_ranges.h"

#include "exec/kernels/kernels_int.h"
#include "ir/ir_int.h"

/* Work per task (elements written, or multiply-adds of a MatMul) below
 * which a step is not split: a pool loop costs a few microseconds. */
#define FX_RANGE_MIN_WORK  (1 << 14)
#define FX_RANGE_MIN_MACS  (1 << 18)
#define FX_RANGE_MAX_TASKS 8

typedef enum range_kind { R_NONE, R_ELEMENTWISE, R_ROWS, R_MATMUL, R_TRANSPOSE } range_kind;

/* How node n's step splits, by its op (and for the row ops, whether the
 * rows lie after output dim d: *axis0 is the first dim a row spans). */
static range_kind kind_of(const nnfx_node *n, int nin, nnfx_tensor *const *in, unsigned const_mask, int *axis0) {
    const nnfx_op_info *oi = ir_op_info(n->op);
    int rank = in[0] ? in[0]->rank : 0;
    *axis0 = rank;
    if (oi->flags & (NNFX_F_ELEMENTWISE | NNFX_F_BROADCAST | NNFX_F_ACTIVATION)) return R_ELEMENTWISE;
    if (n->op == NNFX_OP_MATMUL) return R_MATMUL;
    if (n->op == NNFX_OP_TRANSPOSE) return R_TRANSPOSE;
    if (n->op == NNFX_OP_SOFTMAX || n->op == NNFX_OP_LOG_SOFTMAX || n->op == NNFX_OP_HARDMAX ||
        n->op == NNFX_OP_LAYER_NORM) {
        int64_t a = ir_attr_int(n, "axis");
        if (a < 0) a += rank;
        if (a < 0 || a >= rank) return R_NONE;
        *axis0 = (int)a;
        return R_ROWS;
    }
    if (oi->flags & NNFX_F_REDUCE) { /* axes from the attribute or a constant input */
        int64_t axes[NNFX_MAX_RANK];
        int na = 0;
        bool red[NNFX_MAX_RANK];
        char why[160];
        const nnfx_tensor *at = nin > 1 ? in[1] : NULL;
        if (at && (!(const_mask & 2u) || !kern_ints(at, axes, NNFX_MAX_RANK, &na))) return R_NONE;
        if (!ir_reduce_plan(n, rank, na, at ? axes : NULL, red, why, sizeof why)) return R_NONE;
        int first = rank;
        for (int d = rank - 1; d >= 0; d--)
            if (red[d]) first = d;
        *axis0 = first;
        return R_ROWS;
    }
    return R_NONE;
}

/* Dim of t split along output dim d of an output of rank `rank`, the
 * inputs aligned on their last dims (numpy broadcasting): -1 when t is
 * read whole (no such dim, or 1 there); -2 when it cannot be split. */
static int aligned_dim(const nnfx_tensor *t, int rank, int d, int64_t len) {
    int k = d - (rank - t->rank);
    if (k < 0 || t->shape[k] == 1) return -1;
    if (t->shape[k] != len) return -2;
    for (int i = 0; i < k; i++)
        if (t->shape[i] != 1) return -2;
    return k;
}

bool fx_ranges_plan(const nnfx_node *n, int nin, nnfx_tensor *const *in, unsigned const_mask, const nnfx_tensor *out,
                    fx_ranges *r) {
    memset(r, 0, sizeof *r);
    if (nin < 1 || nin > FX_RANGES_MAX_IN || !in[0] || !out || out->rank < 1 || n->nout != 1) return false;
    int d = 0;
    while (d < out->rank && out->shape[d] == 1)
        d++;
    if (d == out->rank) return false;
    const int64_t len = out->shape[d], numel = nnfx_shape_numel(out->rank, out->shape);
    int axis0;
    range_kind kind = kind_of(n, nin, in, const_mask, &axis0);
    int64_t work = numel, per_task = FX_RANGE_MIN_WORK;
    for (int a = 0; a < nin; a++)
        r->in_dim[a] = -1;
    switch (kind) {
    case R_NONE: return false;
    case R_ELEMENTWISE:
        for (int a = 0; a < nin; a++)
            if (in[a] && (r->in_dim[a] = aligned_dim(in[a], out->rank, d, len)) == -2) return false;
        break;
    case R_ROWS: /* the rows' input x keeps the output's dims up to the first one a row spans */
        if (d >= axis0 || in[0]->rank < d + 1 || in[0]->shape[d] != len) return false;
        r->in_dim[0] = d;
        work = nnfx_shape_numel(in[0]->rank, in[0]->shape);
        break;
    case R_MATMUL: { /* batch dims aligned on the last; the row dim of A alone */
        const nnfx_tensor *b = nin > 1 ? in[1] : NULL;
        if (!b || in[0]->rank < 2 || b->rank < 2 || out->rank < 2 || d > out->rank - 2) return false;
        if (d == out->rank - 2) { /* rows of A (every batch dim 1) times all of B */
            r->in_dim[0] = in[0]->rank - 2;
        } else if ((r->in_dim[0] = aligned_dim(in[0], out->rank, d, len)) == -2 ||
                   (r->in_dim[1] = aligned_dim(b, out->rank, d, len)) == -2) {
            return false;
        }
        work = numel * in[0]->shape[in[0]->rank - 1];
        per_task = FX_RANGE_MIN_MACS;
        break;
    }
    case R_TRANSPOSE: r->transpose = true; break;
    }
    int64_t t = work / per_task;
    if (t > len) t = len;
    if (t > FX_RANGE_MAX_TASKS) t = FX_RANGE_MAX_TASKS;
    if (t < 2) return false;
    r->tasks = (int)t;
    r->dim = d;
    r->len = len;
    return true;
}

/* Narrows t (a header copy) to rows [r0, r1) of its dim k, every dim
 * before k being 1. */
static void narrow(nnfx_tensor *t, int k, int64_t r0, int64_t r1) {
    int64_t st = 1;
    for (int i = k + 1; i < t->rank; i++)
        st *= t->shape[i];
    size_t es = nnfx_dtype_size(t->dtype);
    t->data = (char *)t->data + (size_t)(r0 * st) * es;
    t->shape[k] = r1 - r0;
    t->nbytes = (size_t)nnfx_shape_numel(t->rank, t->shape) * es;
}

typedef struct ranges_ctx {
    const fx_ranges *r;
    nnfx_kernel_fn kern;
    const nnfx_node *n;
    int nin;
    nnfx_tensor *const *in;
    nnfx_tensor *out;
    atomic_int failed;
} ranges_ctx;

static void range_task(void *vctx, int64_t task, int tid) {
    (void)tid;
    ranges_ctx *c = vctx;
    const fx_ranges *r = c->r;
    const int64_t r0 = task * r->len / r->tasks, r1 = (task + 1) * r->len / r->tasks;
    if (r0 >= r1) return;
    nnfx_tensor hin[FX_RANGES_MAX_IN], hout = *c->out, *ip[FX_RANGES_MAX_IN], *op = &hout;
    nnfx_status st;
    if (r->transpose) {
        st = kern_transpose_range(c->n, c->nin, c->in, 1, &c->out, r->dim, r0, r1, NULL);
    } else {
        for (int a = 0; a < c->nin; a++) {
            ip[a] = c->in[a];
            if (!c->in[a] || r->in_dim[a] < 0) continue;
            hin[a] = *c->in[a];
            narrow(&hin[a], r->in_dim[a], r0, r1);
            ip[a] = &hin[a];
        }
        narrow(&hout, r->dim, r0, r1);
        st = c->kern(c->n, c->nin, ip, 1, &op, NULL);
    }
    if (st) atomic_store(&c->failed, 1);
}

nnfx_status fx_ranges_run(const fx_ranges *r, fx_pool *pool, nnfx_kernel_fn kern, const nnfx_node *n, int nin,
                          nnfx_tensor *const *in, nnfx_tensor *out, nnfx_error *err) {
    ranges_ctx c = {r, kern, n, nin, in, out, 0};
    fx_pool_run(pool, r->tasks, range_task, &c);
    if (!atomic_load(&c.failed)) return NNFX_OK;
    /* a range that failed: the whole step again, for its error (the same
     * checks); ranges failing where the whole step runs are a planning bug,
     * reported rather than hidden behind the whole step's result */
    nnfx_status st = kern(n, nin, in, 1, &out, err);
    return st ? st
              : nnfx_error_set(err, NNFX_ERR_RUNTIME, "node %s (%s): a range of the step failed, the whole step not",
                               nnfx_node_name(n), nnfx_op_name(n->op));
}
