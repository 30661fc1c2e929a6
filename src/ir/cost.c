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
