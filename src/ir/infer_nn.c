/* infer_nn.c — shape inference of neural-network layers: Conv, pooling,
 * BatchNormalization, Gemm, MatMul. */
#include <string.h>

#include "ir/infer_int.h"

/* Conv: X [N, C, D1..Dk], W [M, C/group, K1..Kk], B [M] -> [N, M, O1..Ok]. */
nnfx_status infer_conv(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "W");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *w = c->in[1];
    char b1[200], b2[200];
    if (x->rank < 0 && w->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    int rank = x->rank >= 0 ? x->rank : w->rank;
    if (rank < 3)
        return infer_fail(c, "conv expects input of rank >= 3 ([N, C, spatial...]), got %s",
                          infer_meta_str(x, b1, sizeof b1));
    if (x->rank >= 0 && w->rank >= 0 && x->rank != w->rank)
        return infer_fail(c, "conv expects weight of rank %d like the input %s, got %s", x->rank,
                          infer_meta_str(x, b1, sizeof b1), infer_meta_str(w, b2, sizeof b2));
    int nsp = rank - 2;
    int64_t group = nnfx_node_attr_int(c->node, "group", 1);
    if (group < 1) return infer_fail(c, "conv group %lld must be >= 1", (long long)group);
    int64_t k[NNFX_MAX_RANK], in_sp[NNFX_MAX_RANK];
    const nnfx_attr *ks = nnfx_node_attr(c->node, "kernel_shape");
    for (int i = 0; i < nsp; i++) {
        k[i] = w->rank >= 0 ? w->dims[2 + i].value : -1;
        if (ks && ks->kind == NNFX_ATTR_INTS && ks->u.ints.n == nsp) {
            if (k[i] >= 0 && k[i] != ks->u.ints.v[i])
                return infer_fail(c, "conv kernel_shape[%d] = %lld but weight %s", i, (long long)ks->u.ints.v[i],
                                  infer_meta_str(w, b2, sizeof b2));
            k[i] = ks->u.ints.v[i];
        }
        if (k[i] < 0) k[i] = 1; /* unknown kernel: geometry below yields unknown */
        in_sp[i] = x->rank >= 0 ? x->dims[2 + i].value : -1;
    }
    if (x->rank >= 0 && w->rank >= 0) {
        int64_t cin = x->dims[1].value, wc = w->dims[1].value, m = w->dims[0].value;
        int64_t want_c;
        if (cin >= 0 && wc >= 0 && (__builtin_mul_overflow(wc, group, &want_c) || cin != want_c))
            return infer_fail(
                c, "conv expects input channels (%lld) = weight dim 1 (%lld) x group (%lld); input %s, weight %s",
                (long long)cin, (long long)wc, (long long)group, infer_meta_str(x, b1, sizeof b1),
                infer_meta_str(w, b2, sizeof b2));
        if (m >= 0 && m % group != 0)
            return infer_fail(c, "conv output channels %lld not divisible by group %lld", (long long)m,
                              (long long)group);
    }
    if (c->nin > 2 && c->in[2] && c->in[2]->rank >= 0) {
        const nnfx_meta *bm = c->in[2];
        int64_t m = w->rank >= 0 ? w->dims[0].value : -1;
        if (bm->rank != 1 || (m >= 0 && bm->dims[0].value >= 0 && bm->dims[0].value != m))
            return infer_fail(c, "conv bias must be [%lld], got %s", (long long)m, infer_meta_str(bm, b1, sizeof b1));
    }
    ir_window win;
    if ((s = ir_window_read(c->node, nsp, k, in_sp, &win, c->err))) return s;
    nnfx_meta *o = &c->out[0];
    infer_set_rank(o, x->dtype != NNFX_DTYPE_UNDEFINED ? x->dtype : w->dtype, rank);
    if (x->rank >= 0) o->dims[0] = x->dims[0];
    if (w->rank >= 0) o->dims[1] = w->dims[0];
    for (int i = 0; i < nsp; i++) {
        bool kknown = w->rank >= 0 ? w->dims[2 + i].value >= 0 : (ks != NULL);
        int64_t od = kknown ? ir_window_out(&win, i, in_sp[i]) : -1;
        if (in_sp[i] >= 0 && kknown && od < 1)
            return infer_fail(c, "conv window (kernel %lld, dilation %lld) does not fit input %s with pads %lld/%lld",
                              (long long)k[i], (long long)win.d[i], infer_meta_str(x, b1, sizeof b1),
                              (long long)win.pb[i], (long long)win.pe[i]);
        o->dims[2 + i] = infer_dim(od);
    }
    return NNFX_OK;
}

/* MaxPool / AveragePool: X [N, C, D...] -> [N, C, O...]; MaxPool may also
 * have Indices (int64, the same shape). */
nnfx_status infer_pool(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    const nnfx_attr *ks = nnfx_node_attr(c->node, "kernel_shape");
    if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n < 1)
        return infer_fail(c, "pooling needs attribute kernel_shape");
    int nsp = ks->u.ints.n;
    if (x->rank < 0) {
        infer_set_rank(&c->out[0], x->dtype, nsp + 2);
        if (c->nout > 1) infer_set_rank(&c->out[1], NNFX_I64, nsp + 2);
        return NNFX_OK;
    }
    if (x->rank != nsp + 2)
        return infer_fail(c, "pooling with a %d-d kernel expects input of rank %d, got %s", nsp, nsp + 2,
                          infer_meta_str(x, b1, sizeof b1));
    if (c->nout > 2 || (c->nout > 1 && nnfx_node_op(c->node) != NNFX_OP_MAX_POOL))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "%s has %d outputs", nnfx_op_name(nnfx_node_op(c->node)),
                                 c->nout);
    int64_t in_sp[NNFX_MAX_RANK];
    for (int i = 0; i < nsp; i++)
        in_sp[i] = x->dims[2 + i].value;
    ir_window win;
    if ((s = ir_window_read(c->node, nsp, ks->u.ints.v, in_sp, &win, c->err))) return s;
    nnfx_meta *o = &c->out[0];
    *o = *x;
    for (int i = 0; i < nsp; i++) {
        if (win.pb[i] >= win.k[i] || win.pe[i] >= win.k[i])
            return infer_fail(c, "pooling pads (%lld, %lld) must be smaller than the kernel (%lld)",
                              (long long)win.pb[i], (long long)win.pe[i], (long long)win.k[i]);
        int64_t od = ir_window_out(&win, i, in_sp[i]);
        if (in_sp[i] >= 0 && od < 1)
            return infer_fail(c, "pooling window %lld does not fit input %s", (long long)win.k[i],
                              infer_meta_str(x, b1, sizeof b1));
        o->dims[2 + i] = infer_dim(od);
    }
    if (c->nout > 1) { /* MaxPool's Indices: int64, Y's shape */
        c->out[1] = *o;
        c->out[1].dtype = NNFX_I64;
    }
    return NNFX_OK;
}

/* GlobalAveragePool / GlobalMaxPool: [N, C, D...] -> [N, C, 1...]. */
nnfx_status infer_global_pool(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    char b1[200];
    if (x->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    if (x->rank < 3)
        return infer_fail(c, "global pooling expects input of rank >= 3, got %s", infer_meta_str(x, b1, sizeof b1));
    c->out[0] = *x;
    for (int i = 2; i < x->rank; i++)
        c->out[0].dims[i] = infer_dim(1);
    return NNFX_OK;
}

/* BatchNormalization (inference): X [N, C, ...], scale/B/mean/var [C]. */
nnfx_status infer_batch_norm(nnfx_infer_ctx *c) {
    static const char *names[5] = {"X", "scale", "B", "input_mean", "input_var"};
    for (int i = 0; i < 5; i++) {
        nnfx_status s = infer_need(c, i, names[i]);
        if (s) return s;
    }
    const nnfx_meta *x = c->in[0];
    char b1[200], b2[200];
    if (nnfx_node_attr_int(c->node, "training_mode", 0) != 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "batch_normalization training_mode=1 is not supported");
    if (x->rank >= 0 && x->rank < 2)
        return infer_fail(c, "batch_normalization expects input of rank >= 2, got %s",
                          infer_meta_str(x, b1, sizeof b1));
    int64_t ch = x->rank >= 0 ? x->dims[1].value : -1;
    for (int i = 1; i < 5; i++) {
        const nnfx_meta *p = c->in[i];
        if (p->rank < 0) continue;
        if (p->rank != 1 || (ch >= 0 && p->dims[0].value >= 0 && p->dims[0].value != ch))
            return infer_fail(c, "batch_normalization expects %s of shape [%lld] (channels of %s), got %s", names[i],
                              (long long)ch, infer_meta_str(x, b1, sizeof b1), infer_meta_str(p, b2, sizeof b2));
    }
    c->out[0] = *x;
    return NNFX_OK;
}

/* Gemm: Y = alpha * A' B' + beta * C, A' [M, K], B' [K, N], C -> [M, N]. */
nnfx_status infer_gemm(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "A");
    if (!s) s = infer_need(c, 1, "B");
    if (s) return s;
    const nnfx_meta *a = c->in[0], *b = c->in[1];
    char b1[200], b2[200];
    bool ta = nnfx_node_attr_int(c->node, "transA", 0) != 0;
    bool tb = nnfx_node_attr_int(c->node, "transB", 0) != 0;
    if ((a->rank >= 0 && a->rank != 2) || (b->rank >= 0 && b->rank != 2))
        return infer_fail(c, "gemm expects 2-d inputs, got %s and %s", infer_meta_str(a, b1, sizeof b1),
                          infer_meta_str(b, b2, sizeof b2));
    nnfx_dim m = infer_dim(-1), n = infer_dim(-1), ka = infer_dim(-1), kb = infer_dim(-1);
    if (a->rank == 2) {
        m = a->dims[ta ? 1 : 0];
        ka = a->dims[ta ? 0 : 1];
    }
    if (b->rank == 2) {
        n = b->dims[tb ? 0 : 1];
        kb = b->dims[tb ? 1 : 0];
    }
    if (ka.value >= 0 && kb.value >= 0 && ka.value != kb.value)
        return infer_fail(c, "gemm expects input dim %d (%lld) to equal weight dim %d (%lld); input %s, weight %s",
                          ta ? 0 : 1, (long long)ka.value, tb ? 1 : 0, (long long)kb.value,
                          infer_meta_str(a, b1, sizeof b1), infer_meta_str(b, b2, sizeof b2));
    if (c->nin > 2 && c->in[2] && c->in[2]->rank >= 0) {
        const nnfx_meta *cm = c->in[2];
        bool ok = cm->rank <= 2;
        if (ok && cm->rank >= 1) {
            int64_t v = cm->dims[cm->rank - 1].value;
            ok = v < 0 || v == 1 || n.value < 0 || v == n.value;
        }
        if (ok && cm->rank == 2) {
            int64_t v = cm->dims[0].value;
            ok = v < 0 || v == 1 || m.value < 0 || v == m.value;
        }
        if (!ok)
            return infer_fail(c, "gemm bias %s does not broadcast to [%lld, %lld]", infer_meta_str(cm, b1, sizeof b1),
                              (long long)m.value, (long long)n.value);
    }
    nnfx_meta *o = &c->out[0];
    infer_set_rank(o, a->dtype != NNFX_DTYPE_UNDEFINED ? a->dtype : b->dtype, 2);
    o->dims[0] = m;
    o->dims[1] = n;
    return NNFX_OK;
}

/* MatMul with numpy semantics (1-d operands promoted, batch broadcast). */
nnfx_status infer_matmul(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "A");
    if (!s) s = infer_need(c, 1, "B");
    if (s) return s;
    const nnfx_meta *a = c->in[0], *b = c->in[1];
    char b1[200], b2[200];
    nnfx_dtype dt = a->dtype != NNFX_DTYPE_UNDEFINED ? a->dtype : b->dtype;
    if (a->rank < 0 || b->rank < 0) {
        infer_set_unknown(&c->out[0], dt);
        return NNFX_OK;
    }
    if (a->rank == 0 || b->rank == 0)
        return infer_fail(c, "matmul does not take scalars (%s, %s)", infer_meta_str(a, b1, sizeof b1),
                          infer_meta_str(b, b2, sizeof b2));
    nnfx_dim one = infer_dim(1);
    nnfx_dim am = a->rank >= 2 ? a->dims[a->rank - 2] : one, ak = a->dims[a->rank - 1];
    nnfx_dim bk = b->rank >= 2 ? b->dims[b->rank - 2] : b->dims[0], bn = b->rank >= 2 ? b->dims[b->rank - 1] : one;
    if (ak.value >= 0 && bk.value >= 0 && ak.value != bk.value)
        return infer_fail(c, "matmul expects input dim %d (%lld) to equal weight dim %d (%lld); %s @ %s", a->rank - 1,
                          (long long)ak.value, b->rank >= 2 ? b->rank - 2 : 0, (long long)bk.value,
                          infer_meta_str(a, b1, sizeof b1), infer_meta_str(b, b2, sizeof b2));
    int ab = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
    int batch = ab > bb ? ab : bb;
    nnfx_meta *o = &c->out[0];
    int rank = batch + (a->rank >= 2 ? 1 : 0) + (b->rank >= 2 ? 1 : 0);
    infer_set_rank(o, dt, rank);
    for (int i = 0; i < batch; i++) {
        int ia = i - (batch - ab), ib = i - (batch - bb);
        const nnfx_dim *da = ia >= 0 ? &a->dims[ia] : &one, *db = ib >= 0 ? &b->dims[ib] : &one;
        if (da->value == 1)
            o->dims[i] = *db;
        else if (db->value == 1 || db->value < 0)
            o->dims[i] = *da;
        else if (da->value < 0 || da->value == db->value)
            o->dims[i] = *db;
        else
            return infer_fail(c, "matmul batch dims do not broadcast: %s @ %s", infer_meta_str(a, b1, sizeof b1),
                              infer_meta_str(b, b2, sizeof b2));
    }
    int r = batch;
    if (a->rank >= 2) o->dims[r++] = am;
    if (b->rank >= 2) o->dims[r++] = bn;
    return NNFX_OK;
}
