/* cost.c — multiply-accumulate and floating-point operation counts of one
 * call of each op, from the inferred metas (unknown dims count as 1). */
#include "ir/infer_int.h"

/* Saturating arithmetic: counts of absurd shapes stop at INT64_MAX. */
static int64_t smul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
static int64_t sadd(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Elements of m (unknown dims and ranks count as 1). */
static int64_t numel1(const nnfx_meta *m) {
    if (!m || m->rank < 0) return 1;
    int64_t n = 1;
    for (int i = 0; i < m->rank; i++)
        if (__builtin_mul_overflow(n, m->dims[i].value >= 0 ? m->dims[i].value : 1, &n)) return INT64_MAX;
    return n;
}

static int64_t dim1(const nnfx_meta *m, int i) {
    if (!m || i < 0 || i >= m->rank || m->dims[i].value < 0) return 1;
    return m->dims[i].value;
}

static const nnfx_meta *input(const nnfx_infer_ctx *c, int i) { return i < c->nin ? c->in[i] : NULL; }

/* Ops that move or reinterpret data: no arithmetic. */
void cost_zero(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    (void)c;
    *macs = 0;
    *flops = 0;
}

/* One flop per output element. */
void cost_elementwise(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    *macs = 0;
    *flops = c->nout > 0 ? numel1(&c->out[0]) : 0;
}

/* Conv: out elements x (Cin/group x prod(kernel)) MACs; 2 flops per MAC
 * plus one per output element for the bias. */
void cost_conv(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_meta *w = input(c, 1);
    int64_t per = 1;
    if (w && w->rank >= 2)
        for (int i = 1; i < w->rank; i++)
            per = smul(per, dim1(w, i));
    int64_t out = numel1(&c->out[0]);
    *macs = smul(out, per);
    *flops = sadd(smul(2, *macs), input(c, 2) ? out : 0);
}

/* Inference BatchNorm folds to one multiply-add per element. */
void cost_batch_norm(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    int64_t out = numel1(&c->out[0]);
    *macs = out;
    *flops = smul(2, out);
}

/* Gemm: M x N x K MACs; bias and alpha/beta add one flop per element each. */
void cost_gemm(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_meta *a = input(c, 0);
    int ta = nnfx_node_attr_int(c->node, "transA", 0) != 0;
    int64_t k = dim1(a, ta ? 0 : 1);
    int64_t out = numel1(&c->out[0]);
    *macs = smul(out, k);
    *flops = sadd(smul(2, *macs), input(c, 2) ? out : 0);
}

/* MatMul: batch x M x N x K MACs. */
void cost_matmul(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_meta *a = input(c, 0);
    int64_t k = a && a->rank >= 1 ? dim1(a, a->rank - 1) : 1;
    *macs = smul(numel1(&c->out[0]), k);
    *flops = smul(2, *macs);
}

/* Pooling: one comparison or addition per window element per output. */
void cost_pool(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_attr *ks = nnfx_node_attr(c->node, "kernel_shape");
    int64_t win = 1;
    if (ks && ks->kind == NNFX_ATTR_INTS)
        for (int i = 0; i < ks->u.ints.n; i++)
            win = smul(win, ks->u.ints.v[i] > 0 ? ks->u.ints.v[i] : 1);
    *macs = 0;
    *flops = smul(numel1(&c->out[0]), win);
}

/* Reductions: one operation per input element. */
void cost_reduce(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    *macs = 0;
    *flops = numel1(input(c, 0));
}

/* Softmax: max, subtract, exp, sum, divide: ~5 flops per element. */
void cost_softmax(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    *macs = 0;
    *flops = smul(5, numel1(&c->out[0]));
}

/* LayerNorm: mean, variance, normalise, scale, shift: ~8 per element. */
void cost_layer_norm(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    *macs = 0;
    *flops = smul(8, numel1(&c->out[0]));
}

/* Resize: nearest copies (1), linear interpolates (~2 per resized axis). */
void cost_resize(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const char *mode = nnfx_node_attr_string(c->node, "mode", "nearest");
    int64_t out = numel1(&c->out[0]);
    *macs = 0;
    *flops = (mode && mode[0] == 'l') ? smul(4, out) : out;
}

/* ConvTranspose: every input element meets M/group x prod(kernel) weights. */
void cost_conv_transpose(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_meta *w = input(c, 1);
    int64_t per = dim1(w, 1);
    for (int i = 2; w && i < w->rank; i++)
        per *= dim1(w, i);
    *macs = numel1(input(c, 0)) * per;
    *flops = 2 * *macs + (input(c, 2) ? numel1(&c->out[0]) : 0);
}

/* RNN / GRU / LSTM: per step, direction and batch row, gates x hidden x
 * (input + hidden) MACs; the gate math adds about 4 flops per gate value. */
void cost_rnn(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    const nnfx_meta *w = input(c, 1), *r = input(c, 2), *x = input(c, 0);
    bool bw = nnfx_node_attr_int(c->node, "layout", 0) != 0;
    int64_t steps = dim1(x, bw ? 1 : 0) * dim1(x, bw ? 0 : 1); /* seq x batch */
    int64_t gh = dim1(w, 1), dirs = dim1(w, 0);
    *macs = dirs * steps * gh * (dim1(w, 2) + dim1(r, 2));
    *flops = 2 * *macs + 4 * dirs * steps * gh;
}

/* Einsum: one multiply-add per output element and summed index. */
void cost_einsum(const nnfx_infer_ctx *c, int64_t *macs, int64_t *flops) {
    int ranks[IR_EINSUM_MAX_IN];
    ir_einsum p;
    char why[160];
    *macs = *flops = 0;
    if (c->nin > IR_EINSUM_MAX_IN) return;
    for (int i = 0; i < c->nin; i++) {
        if (!c->in[i] || c->in[i]->rank < 0) return;
        ranks[i] = c->in[i]->rank;
    }
    if (!ir_einsum_parse(nnfx_node_attr_string(c->node, "equation", ""), c->nin, ranks, &p, why, sizeof why)) return;
    int64_t size[256];
    bool out[256] = {false};
    for (int i = 0; i < 256; i++)
        size[i] = 1;
    for (int j = 0; j < p.nout; j++)
        out[p.out[j]] = true;
    for (int i = 0; i < c->nin; i++)
        for (int j = 0; j < p.nlab[i]; j++)
            if (dim1(c->in[i], j) > 1) size[p.lab[i][j]] = dim1(c->in[i], j);
    int64_t inner = 1;
    for (int l = 0; l < 256; l++) {
        bool used = false;
        for (int i = 0; i < c->nin && !used; i++)
            for (int j = 0; j < p.nlab[i] && !used; j++)
                used = p.lab[i][j] == l;
        if (used && !out[l]) inner *= size[l];
    }
    *macs = numel1(&c->out[0]) * inner * (c->nin > 1 ? c->nin - 1 : 1);
    *flops = 2 * *macs;
}
