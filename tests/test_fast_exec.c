/* test_fast_exec.c — the compiled executor (static memory plan, fused
 * conv epilogues, direct depthwise and max pool, thread pool) against the
 * generic interpreter on small graphs, and 1 thread against 2. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nnfx.h"
#include "exec/fast_int.h"

static uint32_t rng = 12345;
static float frand(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static nnfx_tensor *rand_tensor(int rank, const int64_t *dims) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, dims, NULL);
    float *p = t->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        p[i] = frand();
    return t;
}

/* A get_attr node over a new random parameter of the given shape. */
static nnfx_node *param(nnfx_graph *g, const char *name, int rank, const int64_t *dims, float add) {
    nnfx_tensor *t = rand_tensor(rank, dims);
    float *p = t->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(t); i++)
        p[i] += add;
    assert_int_equal(nnfx_graph_set_param(g, name, t, NULL), NNFX_OK);
    nnfx_tensor_release(t);
    nnfx_node *n = nnfx_graph_get_attr(g, name, NULL);
    assert_non_null(n);
    return n;
}

static nnfx_node *op(nnfx_graph *g, nnfx_op o, int nargs, const nnfx_arg *args, int nattrs, const nnfx_attr *attrs) {
    nnfx_error err = {0};
    nnfx_node *n = nnfx_graph_call_op(g, o, nargs, args, nattrs, attrs, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

static nnfx_node *conv(nnfx_graph *g, nnfx_node *x, const char *name, int64_t m, int64_t cin, int64_t k, int64_t stride,
                       int64_t pad, int64_t group, bool bias) {
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(bn, sizeof bn, "%s.b", name);
    int64_t wd[4] = {m, cin / group, k, k}, bd[1] = {m};
    nnfx_node *w = param(g, wn, 4, wd, 0.0f);
    int64_t pads[4] = {pad, pad, pad, pad}, st[2] = {stride, stride}, ks[2] = {k, k};
    nnfx_attr at[4] = {nnfx_attr_ints("pads", 4, pads), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_int("group", group)};
    nnfx_arg a[3] = {nnfx_arg_node(x), nnfx_arg_node(w), nnfx_arg_node(x)};
    if (bias) a[2] = nnfx_arg_node(param(g, bn, 1, bd, 0.0f));
    return op(g, NNFX_OP_CONV, bias ? 3 : 2, a, 4, at);
}

/* conv() with dilation, bias always. */
static nnfx_node *conv_dil(nnfx_graph *g, nnfx_node *x, const char *name, int64_t m, int64_t cin, int64_t k,
                           int64_t stride, int64_t pad, int64_t dil, int64_t group) {
    char wn[64], bn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(bn, sizeof bn, "%s.b", name);
    int64_t wd[4] = {m, cin / group, k, k}, bd[1] = {m};
    int64_t pads[4] = {pad, pad, pad, pad}, st[2] = {stride, stride}, ks[2] = {k, k}, dl[2] = {dil, dil};
    nnfx_attr at[5] = {nnfx_attr_ints("pads", 4, pads), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_int("group", group),
                       nnfx_attr_ints("dilations", 2, dl)};
    nnfx_arg a[3] = {nnfx_arg_node(x), nnfx_arg_node(param(g, wn, 4, wd, 0.0f)),
                     nnfx_arg_node(param(g, bn, 1, bd, 0.0f))};
    return op(g, NNFX_OP_CONV, 3, a, 5, at);
}

static nnfx_node *unary(nnfx_graph *g, nnfx_op o, nnfx_node *x) {
    nnfx_arg a = nnfx_arg_node(x);
    return op(g, o, 1, &a, 0, NULL);
}

static nnfx_node *binary(nnfx_graph *g, nnfx_op o, nnfx_node *x, nnfx_node *y) {
    nnfx_arg a[2] = {nnfx_arg_node(x), nnfx_arg_node(y)};
    return op(g, o, 2, a, 0, NULL);
}

static nnfx_node *input(nnfx_graph *g, int rank, const int64_t *dims) {
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, rank, dims);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, NULL);
    assert_non_null(x);
    return x;
}

/* Residual block: conv3x3 -> batch norm -> relu -> conv3x3 (+ x) -> relu,
 * plus a strided 1x1 conv + add + relu (downsample shortcut form). */
static nnfx_graph *resblock(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 8, xd[2] = 9, xd[3] = 9;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *c1 = conv(g, x, "c1", 8, 8, 3, 1, 1, 1, true);
    int64_t cd[1] = {8};
    nnfx_arg bn[5] = {nnfx_arg_node(c1), nnfx_arg_node(param(g, "bn.scale", 1, cd, 1.5f)),
                      nnfx_arg_node(param(g, "bn.bias", 1, cd, 0.0f)), nnfx_arg_node(param(g, "bn.mean", 1, cd, 0.0f)),
                      nnfx_arg_node(param(g, "bn.var", 1, cd, 2.0f))};
    nnfx_node *b1 = op(g, NNFX_OP_BATCH_NORM, 5, bn, 0, NULL);
    nnfx_node *r1 = unary(g, NNFX_OP_RELU, b1);
    nnfx_node *c2 = conv(g, r1, "c2", 8, 8, 3, 1, 1, 1, false);
    nnfx_node *r2 = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, c2, x));
    nnfx_node *c3 = conv(g, r2, "c3", 16, 8, 3, 2, 1, 1, true);
    nnfx_node *d = conv(g, r2, "down", 16, 8, 1, 2, 0, 1, true);
    nnfx_node *r3 = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, d, c3));
    assert_non_null(nnfx_graph_output(g, 1, &r3, NULL));
    return g;
}

/* Depthwise convs with relu6 (Clip), x * sigmoid(x), hard swish, and a
 * ceil-mode max pool. */
static nnfx_graph *depthwise(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 6, xd[2] = 13, xd[3] = 11;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *d1 = conv(g, x, "d1", 6, 6, 3, 2, 1, 6, true);
    nnfx_arg ca[3] = {nnfx_arg_node(d1), nnfx_arg_float(0.0), nnfx_arg_float(0.5)};
    nnfx_node *c1 = op(g, NNFX_OP_CLIP, 3, ca, 0, NULL);
    nnfx_node *p1 = conv(g, c1, "p1", 12, 6, 1, 1, 0, 1, true);
    nnfx_node *d2 = conv(g, p1, "d2", 12, 12, 5, 1, 2, 12, true);
    nnfx_node *s2 = binary(g, NNFX_OP_MUL, d2, unary(g, NNFX_OP_SIGMOID, d2));
    nnfx_node *d3 = conv(g, s2, "d3", 12, 12, 3, 1, 1, 12, false);
    nnfx_node *h3 = unary(g, NNFX_OP_HARD_SWISH, d3);
    int64_t ks[2] = {3, 3}, st[2] = {2, 2};
    nnfx_attr pa[3] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_int("ceil_mode", 1)};
    nnfx_arg pin = nnfx_arg_node(h3);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 3, pa);
    assert_non_null(nnfx_graph_output(g, 1, &mp, NULL));
    return g;
}

/* x * HardSigmoid(x) with alpha, beta (hard-swish as exported before opset 14). */
static nnfx_node *x_hard_sigmoid(nnfx_graph *g, nnfx_node *x, double alpha, double beta) {
    nnfx_attr at[2] = {nnfx_attr_float("alpha", alpha), nnfx_attr_float("beta", beta)};
    nnfx_arg a = nnfx_arg_node(x);
    return binary(g, NNFX_OP_MUL, x, op(g, NNFX_OP_HARD_SIGMOID, 1, &a, 2, at));
}

/* A MobileNetV3 block as PyTorch exports it at opset 13: conv and
 * depthwise conv each followed by x * HardSigmoid(x), a squeeze-excite gate
 * ending in a HardSigmoid of its own (alpha 0.2, beta 0.3); both fused into
 * the convs. */
static nnfx_graph *hswish_block(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 8, xd[2] = 12, xd[3] = 10;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *a = x_hard_sigmoid(g, conv(g, x, "a", 16, 8, 3, 1, 1, 1, true), 1.0 / 6.0, 0.5);
    nnfx_node *d = x_hard_sigmoid(g, conv(g, a, "d", 16, 16, 3, 1, 1, 16, true), 1.0 / 6.0, 0.5);
    nnfx_node *s =
        unary(g, NNFX_OP_RELU, conv(g, unary(g, NNFX_OP_GLOBAL_AVERAGE_POOL, d), "s1", 4, 16, 1, 1, 0, 1, true));
    nnfx_attr at[2] = {nnfx_attr_float("alpha", 0.2), nnfx_attr_float("beta", 0.3)};
    nnfx_arg ga = nnfx_arg_node(conv(g, s, "s2", 16, 4, 1, 1, 0, 1, true));
    nnfx_node *y = binary(g, NNFX_OP_MUL, d, op(g, NNFX_OP_HARD_SIGMOID, 1, &ga, 2, at));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Atrous convs on a small map (most taps read padding): 300 channels (two
 * K blocks), a residual add, a strided one. */
static nnfx_graph *atrous(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 300, xd[2] = 9, xd[3] = 11;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *a = unary(g, NNFX_OP_RELU, conv_dil(g, x, "a", 24, 300, 3, 1, 6, 6, 1));
    nnfx_node *b = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, conv_dil(g, a, "b", 24, 24, 3, 1, 5, 5, 1), a));
    nnfx_node *y = conv_dil(g, b, "c", 8, 24, 3, 2, 4, 4, 1);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Pad (zeros over H and W, pads p: ONNX order) then AveragePool k/s of no
 * pads of its own: avg_pool2d with count_include_pad as PyTorch exports it. */
static nnfx_node *pad_avgpool(nnfx_graph *g, nnfx_node *x, const char *name, const int64_t *pads, int64_t k,
                              int64_t s) {
    int64_t d8[1] = {8};
    nnfx_tensor *pt = nnfx_tensor_new(NNFX_I64, 1, d8, NULL);
    assert_non_null(pt);
    memcpy(pt->data, pads, 8 * sizeof(int64_t));
    assert_int_equal(nnfx_graph_set_param(g, name, pt, NULL), NNFX_OK);
    nnfx_tensor_release(pt);
    nnfx_attr pm[1] = {nnfx_attr_string("mode", "constant")};
    nnfx_arg pa[2] = {nnfx_arg_node(x), nnfx_arg_node(nnfx_graph_get_attr(g, name, NULL))};
    nnfx_node *pd = op(g, NNFX_OP_PAD, 2, pa, 1, pm);
    int64_t ks[2] = {k, k}, st[2] = {s, s};
    nnfx_attr at[2] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st)};
    nnfx_arg a = nnfx_arg_node(pd);
    return op(g, NNFX_OP_AVERAGE_POOL, 1, &a, 2, at);
}

/* Inception's pooling branch: Pad + AveragePool 3x3/s1 after a conv (a
 * channels-last value), then asymmetric pads with stride 2 on the graph's
 * input (channels-first). */
static nnfx_graph *padpool(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 6, xd[2] = 9, xd[3] = 8;
    nnfx_node *x = input(g, 4, xd);
    int64_t p1[8] = {0, 0, 1, 1, 0, 0, 1, 1}, p2[8] = {0, 0, 2, 0, 0, 0, 1, 2};
    nnfx_node *a =
        conv(g, pad_avgpool(g, conv(g, x, "a", 8, 6, 1, 1, 0, 1, true), "p1", p1, 3, 1), "b", 6, 8, 1, 1, 0, 1, true);
    nnfx_node *y = binary(g, NNFX_OP_ADD, pad_avgpool(g, a, "p2", p2, 3, 2), pad_avgpool(g, x, "p3", p2, 3, 2));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* A conv followed by Tanh (super-resolution nets): the Tanh is fused into
 * the conv's epilogue (the plan names it), then a 1x1 conv. */
static nnfx_graph *tanhconv(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 3, xd[2] = 20, xd[3] = 17;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *t = unary(g, NNFX_OP_TANH, conv(g, x, "a", 16, 3, 3, 1, 1, 1, true));
    nnfx_node *y = conv(g, t, "b", 5, 16, 1, 1, 0, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* 3-d convs (a video net's residual block): conv + relu, conv + residual
 * add + relu, a strided conv with asymmetric pads; 5-d input. */
static nnfx_graph *conv3d_block(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 4, xd[2] = 5, xd[3] = 9, xd[4] = 7;
    nnfx_node *x = input(g, 5, xd);
    nnfx_node *c[3];
    int64_t wd[3][5] = {{4, 4, 3, 3, 3}, {4, 4, 3, 3, 3}, {6, 4, 1, 3, 2}}, bd[1] = {4}, bd6[1] = {6};
    int64_t pads[3][6] = {{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {0, 1, 0, 0, 1, 1}},
            st[3][3] = {{1, 1, 1}, {1, 1, 1}, {1, 2, 2}};
    const char *names[3] = {"c1", "c2", "c3"};
    nnfx_node *in = x;
    for (int i = 0; i < 3; i++) {
        char wn[16], bn[16];
        snprintf(wn, sizeof wn, "%s.w", names[i]);
        snprintf(bn, sizeof bn, "%s.b", names[i]);
        nnfx_attr at[2] = {nnfx_attr_ints("pads", 6, pads[i]), nnfx_attr_ints("strides", 3, st[i])};
        nnfx_arg a[3] = {nnfx_arg_node(in), nnfx_arg_node(param(g, wn, 5, wd[i], 0.0f)),
                         nnfx_arg_node(param(g, bn, 1, i == 2 ? bd6 : bd, 0.0f))};
        c[i] = op(g, NNFX_OP_CONV, 3, a, 2, at);
        if (i == 0) in = unary(g, NNFX_OP_RELU, c[0]);
        if (i == 1) in = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, c[1], x));
    }
    assert_non_null(nnfx_graph_output(g, 1, &c[2], NULL));
    return g;
}

/* A U-Net's up-sampling: conv + relu, ConvTranspose 2x2/s2 + relu (its
 * chain fused), concatenated with a skip (channels-last end to end); c
 * channels in the skip, 2c below it. */
static nnfx_graph *upsample_with(int64_t *xd, int64_t c) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 3, xd[2] = 10, xd[3] = 12;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *skip = unary(g, NNFX_OP_RELU, conv(g, x, "s", c, 3, 3, 1, 1, 1, true));
    int64_t ks[2] = {2, 2}, st[2] = {2, 2};
    nnfx_attr pa[2] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st)};
    nnfx_arg pin = nnfx_arg_node(skip);
    nnfx_node *down = conv(g, op(g, NNFX_OP_MAX_POOL, 1, &pin, 2, pa), "d", 2 * c, c, 3, 1, 1, 1, true);
    int64_t wd[4] = {2 * c, c, 2, 2}, bd[1] = {c};
    nnfx_attr ta[1] = {nnfx_attr_ints("strides", 2, st)};
    nnfx_arg a[3] = {nnfx_arg_node(down), nnfx_arg_node(param(g, "t.w", 4, wd, 0.0f)),
                     nnfx_arg_node(param(g, "t.b", 1, bd, 0.0f))};
    nnfx_node *up = unary(g, NNFX_OP_RELU, op(g, NNFX_OP_CONV_TRANSPOSE, 3, a, 1, ta));
    nnfx_arg ca[2] = {nnfx_arg_node(up), nnfx_arg_node(skip)};
    nnfx_attr cat = nnfx_attr_int("axis", 1);
    nnfx_node *y = conv(g, op(g, NNFX_OP_CONCAT, 2, ca, 1, &cat), "h", 4, 2 * c, 3, 1, 1, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

static nnfx_graph *upsample(int64_t *xd) { return upsample_with(xd, 8); }

/* The same U-Net step four times as wide (32 and 64 channels): whole
 * blocks of 16 too. */
static nnfx_graph *upsample_wide(int64_t *xd) { return upsample_with(xd, 32); }

/* GEMM-path convs whose sizes are not multiples of the register tile (M,
 * K, N odd), with stride, padding, dilation, groups, K split into blocks
 * (K > 256), output channels split into row blocks, and a residual add. */
static nnfx_graph *oddconv(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 5, xd[2] = 11, xd[3] = 9;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *a = unary(g, NNFX_OP_RELU, conv(g, x, "a", 13, 5, 3, 1, 1, 1, true)); /* K 45, N 99 */
    nnfx_node *b = conv_dil(g, a, "b", 14, 13, 3, 2, 2, 2, 1);                       /* dilated, strided */
    nnfx_node *c = conv(g, b, "c", 12, 14, 1, 1, 0, 2, true);                        /* groups, 1x1 */
    nnfx_node *d = conv(g, c, "d", 70, 12, 5, 1, 2, 1, true);                        /* K 300, M 70 */
    nnfx_node *e = conv(g, d, "e", 70, 70, 1, 1, 0, 1, false);                       /* 1x1, K 70 */
    nnfx_node *y = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, e, d));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Wide images: several column panels per image, the last one partial. */
static nnfx_graph *wideconv(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 3, xd[2] = 45, xd[3] = 41;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *a0 = unary(g, NNFX_OP_RELU, conv(g, x, "a", 32, 3, 3, 1, 1, 1, true));
    /* padded grid: dilated, K 288 (two K blocks), M 32, residual add */
    nnfx_node *a = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, conv_dil(g, a0, "pd", 32, 32, 3, 1, 2, 2, 1), a0));
    int64_t ks[2] = {3, 3}, st[2] = {1, 1}, pd[4] = {1, 1, 1, 1};
    nnfx_attr pa[3] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("pads", 4, pd)};
    nnfx_arg pin = nnfx_arg_node(a);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 3, pa);      /* padded, stride 1 */
    nnfx_node *d3 = conv(g, mp, "d3", 32, 32, 3, 2, 1, 32, true); /* vector depthwise rows + tails */
    nnfx_node *d5 = conv(g, d3, "d5", 32, 32, 5, 1, 2, 32, true); /* 23 x 21 */
    nnfx_node *b = conv(g, d5, "b", 20, 32, 1, 1, 0, 1, true);
    nnfx_node *d3s = conv(g, b, "d3s", 20, 20, 3, 1, 1, 20, true);
    nnfx_node *d5s = conv(g, binary(g, NNFX_OP_ADD, d3s, b), "d5s", 20, 20, 5, 2, 2, 20, true); /* 12 x 11 */
    nnfx_node *c = conv(g, d5s, "c", 9, 20, 3, 2, 0, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &c, NULL));
    return g;
}

/* Deep, small images (the last stages of a classifier): output channels
 * split into row blocks over few columns. A strided conv whose B blocks are
 * packed once for every row block, then padded-grid convs on a 7 x 7 grid
 * (K 360 and K 1800 in several K blocks, read in place), batch 2. */
static nnfx_graph *deepconv(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 40, xd[2] = 14, xd[3] = 13;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *a = unary(g, NNFX_OP_RELU, conv(g, x, "s2", 200, 40, 3, 2, 1, 1, true)); /* 7 x 7, K 360 */
    nnfx_node *b = conv(g, a, "p", 200, 200, 3, 1, 1, 1, true);                         /* K 1800 */
    nnfx_node *c = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, b, a));
    nnfx_node *d = conv_dil(g, c, "pd", 50, 200, 3, 1, 2, 2, 1); /* dilated: 7 x 11 grid */
    assert_non_null(nnfx_graph_output(g, 1, &d, NULL));
    return g;
}

/* One depthwise conv (3 channels) of the shape set by test_dw_borders. */
static int64_t g_dw_h, g_dw_w, g_dw_k, g_dw_s, g_dw_p;
static nnfx_graph *dwcase(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 3, xd[2] = g_dw_h, xd[3] = g_dw_w;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *d = conv(g, x, "dw", 3, 3, g_dw_k, g_dw_s, g_dw_p, 3, true);
    assert_non_null(nnfx_graph_output(g, 1, &d, NULL));
    return g;
}

/* One max pool (2 channels) of the shape set by test_maxpool_borders. */
static int64_t g_mp_w, g_mp_k, g_mp_s, g_mp_p;
static nnfx_graph *mpcase(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 2, xd[2] = 4, xd[3] = g_mp_w;
    nnfx_node *x = input(g, 4, xd);
    int64_t ks[2] = {g_mp_k, g_mp_k}, st[2] = {g_mp_s, g_mp_s}, pd[4] = {g_mp_p, g_mp_p, g_mp_p, g_mp_p};
    nnfx_attr pa[4] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("pads", 4, pd), nnfx_attr_int("ceil_mode", 1)};
    nnfx_arg pin = nnfx_arg_node(x);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 4, pa);
    assert_non_null(nnfx_graph_output(g, 1, &mp, NULL));
    return g;
}

/* A channels-last region (oneDNN steps and the kernel steps between them):
 * conv + relu; a squeeze-excitation scale (GlobalAveragePool, 1x1 conv,
 * sigmoid) applied as Mul(x, s) and as Sub(s, x) (the per-channel vector
 * first); a same-shape Add; two convs concatenated over channels; MaxPool
 * (pads, stride 2), AveragePool counting pads, then a 1x1 conv, a
 * Concat that also takes an NCHW value (the input through Relu) and
 * the output, NCHW. */
static nnfx_graph *nhwc_region(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 8, xd[2] = 10, xd[3] = 10;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *c1 = unary(g, NNFX_OP_RELU, conv(g, x, "c1", 16, 8, 3, 1, 1, 1, true));
    nnfx_node *gap = unary(g, NNFX_OP_GLOBAL_AVERAGE_POOL, c1);
    nnfx_node *s = unary(g, NNFX_OP_SIGMOID, conv(g, gap, "se", 16, 16, 1, 1, 0, 1, true));
    nnfx_node *m = binary(g, NNFX_OP_MUL, c1, s);
    nnfx_node *d = binary(g, NNFX_OP_SUB, s, m);
    nnfx_node *e = binary(g, NNFX_OP_ADD, m, d);
    nnfx_node *c2 = conv(g, e, "c2", 8, 16, 3, 1, 1, 1, true), *c3 = conv(g, e, "c3", 8, 16, 1, 1, 0, 1, true);
    nnfx_arg ca[2] = {nnfx_arg_node(c2), nnfx_arg_node(c3)};
    nnfx_attr ax = nnfx_attr_int("axis", 1);
    nnfx_node *cat = op(g, NNFX_OP_CONCAT, 2, ca, 1, &ax);
    int64_t ks[2] = {3, 3}, st[2] = {2, 2}, pd[4] = {1, 1, 1, 1};
    nnfx_attr pa[3] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("pads", 4, pd)};
    nnfx_arg pin = nnfx_arg_node(cat);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 3, pa);
    int64_t ks2[2] = {2, 2}, st2[2] = {1, 1}, pd2[4] = {1, 1, 0, 0};
    nnfx_attr aa[4] = {nnfx_attr_ints("kernel_shape", 2, ks2), nnfx_attr_ints("strides", 2, st2),
                       nnfx_attr_ints("pads", 4, pd2), nnfx_attr_int("count_include_pad", 1)};
    nnfx_arg ain = nnfx_arg_node(mp);
    nnfx_node *ap = op(g, NNFX_OP_AVERAGE_POOL, 1, &ain, 4, aa);
    nnfx_node *c4 = conv(g, ap, "c4", 4, 16, 1, 1, 0, 1, true);
    nnfx_node *xs = conv(g, unary(g, NNFX_OP_RELU, x), "xs", 4, 8, 3, 2, 1, 1, false);
    nnfx_arg oa[2] = {nnfx_arg_node(c4), nnfx_arg_node(xs)};
    nnfx_node *y = op(g, NNFX_OP_CONCAT, 2, oa, 1, &ax);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Flatten -> Gemm (transB) -> Relu -> Gemm. */
static nnfx_graph *gemm(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 4, xd[1] = 3, xd[2] = 5, xd[3] = 2;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *f = unary(g, NNFX_OP_FLATTEN, x);
    int64_t wd[2] = {7, 30}, bd[1] = {7}, w2d[2] = {7, 5};
    nnfx_attr tb = nnfx_attr_int("transB", 1);
    nnfx_arg a[3] = {nnfx_arg_node(f), nnfx_arg_node(param(g, "fc.w", 2, wd, 0.0f)),
                     nnfx_arg_node(param(g, "fc.b", 1, bd, 0.0f))};
    nnfx_node *r = unary(g, NNFX_OP_RELU, op(g, NNFX_OP_GEMM, 3, a, 1, &tb));
    nnfx_arg b[2] = {nnfx_arg_node(r), nnfx_arg_node(param(g, "fc2.w", 2, w2d, 0.0f))};
    nnfx_node *y = op(g, NNFX_OP_GEMM, 2, b, 0, NULL);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Gemms large enough for the plan to split their output columns over the
 * pool: a batch-1 classifier (transB, bias, 999 columns: the last range
 * shorter) and a 3-row Gemm with transA, alpha and beta over a row bias. */
static nnfx_graph *big_gemm(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 1, xd[2] = 3, xd[3] = 430;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *f = unary(g, NNFX_OP_FLATTEN, x); /* [1, 1290] */
    int64_t wd[2] = {999, 1290}, bd[1] = {999};
    nnfx_attr tb = nnfx_attr_int("transB", 1);
    nnfx_arg a[3] = {nnfx_arg_node(f), nnfx_arg_node(param(g, "fc.w", 2, wd, 0.0f)),
                     nnfx_arg_node(param(g, "fc.b", 1, bd, 0.0f))};
    nnfx_node *h = unary(g, NNFX_OP_RELU, op(g, NNFX_OP_GEMM, 3, a, 1, &tb)); /* [1, 999] */
    int64_t at[2] = {999, 3}, w2[2] = {999, 1100}, b2[2] = {1, 1100};
    /* A of the transA Gemm, [999, 3]: h's transpose times a [999, 3] constant */
    nnfx_arg ht = nnfx_arg_node(h);
    nnfx_arg mul[2] = {nnfx_arg_node(param(g, "at", 2, at, 0.0f)),
                       nnfx_arg_node(op(g, NNFX_OP_TRANSPOSE, 1, &ht, 0, NULL))};
    nnfx_node *hm = op(g, NNFX_OP_MUL, 2, mul, 0, NULL);
    nnfx_attr attrs[3] = {nnfx_attr_int("transA", 1), nnfx_attr_float("alpha", 0.5), nnfx_attr_float("beta", 2.0)};
    nnfx_arg c[3] = {nnfx_arg_node(hm), nnfx_arg_node(param(g, "fc2.w", 2, w2, 0.0f)),
                     nnfx_arg_node(param(g, "fc2.b", 2, b2, 0.0f))};
    nnfx_node *y = op(g, NNFX_OP_GEMM, 3, c, 3, attrs); /* [3, 1100] */
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* A linear layer over a sequence: x [1, 200, 96] MatMul a 2-d weight
 * [96, 300] (5.8 M multiply-adds: split into column ranges), then Relu. */
static nnfx_graph *big_matmul(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 200, xd[2] = 96;
    nnfx_node *x = input(g, 3, xd);
    int64_t wd[2] = {96, 300};
    nnfx_arg a[2] = {nnfx_arg_node(x), nnfx_arg_node(param(g, "lin.w", 2, wd, 0.0f))};
    nnfx_node *y = unary(g, NNFX_OP_RELU, op(g, NNFX_OP_MATMUL, 2, a, 0, NULL));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* max |a - b| / max |b| */
static double rel_diff(const nnfx_tensor *a, const nnfx_tensor *b) {
    assert_int_equal(nnfx_tensor_numel(a), nnfx_tensor_numel(b));
    const float *pa = a->data, *pb = b->data;
    double d = 0, m = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(a); i++) {
        if (fabs((double)pa[i] - pb[i]) > d) d = fabs((double)pa[i] - pb[i]);
        if (fabs(pb[i]) > m) m = fabs(pb[i]);
    }
    return m > 0 ? d / m : d;
}

static nnfx_tensor *run_gm(nnfx_gm *gm, nnfx_tensor *x, int threads) {
    nnfx_error err = {0};
    nnfx_gm_set_threads(gm, threads);
    nnfx_tensor *y = NULL;
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err)) fail_msg("%s", err.msg);
    assert_int_equal(nout, 1);
    return y;
}

/* The plan's description of a conv: ours (NNFX_CONV=own, or built
 * without oneDNN) or oneDNN's. */
static const char *conv_kind(const char *own, const char *onednn) { return fx_dnnl_enabled() ? onednn : own; }

/* Compiled (1 and 2 threads, run twice so reused buffers are exercised)
 * against the interpreter. */
/* check_graph for an input of rank `rank` (4 or 5). */
static void check_graph_rank(nnfx_graph *(*make)(int64_t *), const char *want_in_plan, int rank) {
    int64_t xd[5];
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(make(xd), &err);
    assert_non_null(gm);
    nnfx_tensor *x = rand_tensor(rank, xd);
    nnfx_tensor *y1 = run_gm(gm, x, 1), *y1b = run_gm(gm, x, 1), *y2 = run_gm(gm, x, 2), *y2b = run_gm(gm, x, 2);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    if (want_in_plan && !strstr(plan, want_in_plan)) fail_msg("plan lacks '%s':\n%s", want_in_plan, plan);
    assert_null(strstr(plan, "interpreted"));
    free(plan);
    int64_t peak = nnfx_gm_peak_activation_bytes(gm, &err);
    assert_true(peak > nnfx_tensor_numel(x) * 4);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    nnfx_tensor *ref = NULL;
    int nout = 0;
    assert_int_equal(nnfx_interp_run(ip, 1, &x, 1, &ref, &nout, &err), NNFX_OK);
    assert_true(rel_diff(y1, ref) <= 1e-5);
    assert_true(rel_diff(y2, ref) <= 1e-5);
    assert_true(rel_diff(y2, y1) <= 1e-5);
    assert_true(rel_diff(y1b, y1) == 0.0);
    assert_true(rel_diff(y2b, y2) == 0.0);
    nnfx_tensor *outs[4] = {y1, y1b, y2, y2b};
    for (int i = 0; i < 4; i++)
        nnfx_tensor_release(outs[i]);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(x);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

static void check_graph(nnfx_graph *(*make)(int64_t *), const char *want_in_plan) {
    check_graph_rank(make, want_in_plan, 4);
}

static void test_resblock(void **state) {
    (void)state;
    check_graph(resblock, "+ add + relu");
}

static void test_hard_sigmoid_fused(void **state) {
    (void)state;
    check_graph(hswish_block, "+ x * hard_sigmoid");
    check_graph(hswish_block, "+ hard_sigmoid");
}

static void test_pad_avgpool(void **state) {
    (void)state;
    check_graph(padpool, fx_dnnl_enabled() ? "pad folded (nhwc)" : NULL);
    check_graph(padpool, fx_dnnl_enabled() ? "pad folded (x from nchw" : NULL);
}

/* A batch of two (not tapwise) through the im2col packing: the second
 * column block (592 columns of 60 x 60 outputs) starts at x 52, 22 past
 * where the inside of the 30-dilated right tap ends; its last K row (the
 * bottom right tap) reads a row inside the input. */
static nnfx_graph *atrous_batch2(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 9, xd[2] = 60, xd[3] = 60;
    nnfx_node *y = conv_dil(g, input(g, 4, xd), "a", 16, 9, 3, 1, 30, 30, 1);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

static void test_atrous(void **state) {
    (void)state;
    /* oneDNN's AVX-512 brgconv takes these dilated convs (its gemm
     * fallback on AVX2 hosts is refused, so ours runs there):
     * test_fast_exec_own checks the tapwise GEMM on every host */
    check_graph(atrous, conv_kind("tapwise gemm", NULL));
    check_graph(atrous_batch2, NULL);
}

static void test_tanh_fused(void **state) {
    (void)state;
    check_graph(tanhconv, "+ tanh");
}

/* A chain of oneDNN convs: c1 (4 -> 16, tanh) feeds c2 (16 -> 16, relu)
 * and c3 (16 -> 8, 1x1); c3 adds c4 (16 -> 8, reading c2) as its
 * residual; c5 (8 -> 9) reads c3; c2's output also goes through a
 * scalar Mul to c6 (16 -> 9, 1x1), added to c5 for the NCHW output.
 * Where oneDNN runs AVX2 kernels (fx_dnnl_block 8), c1 and c3 write
 * nChw8c and c2, c3, c4 and c5 read it; c2's output (a kernel step reads
 * it) and c4's (a residual) stay channels-last. */
static nnfx_graph *blocked_chain(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 4, xd[2] = 11, xd[3] = 13;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *v1 = unary(g, NNFX_OP_TANH, conv(g, x, "c1", 16, 4, 3, 1, 1, 1, true));
    nnfx_node *v2 = unary(g, NNFX_OP_RELU, conv(g, v1, "c2", 16, 16, 3, 1, 1, 1, true));
    nnfx_node *v3 = conv(g, v1, "c3", 8, 16, 1, 1, 0, 1, false);
    nnfx_node *v4 = binary(g, NNFX_OP_ADD, conv(g, v2, "c4", 8, 16, 3, 1, 1, 1, true), v3);
    int64_t one = 1;
    nnfx_node *v5 = binary(g, NNFX_OP_MUL, v2, param(g, "k", 1, &one, 1.5f)); /* a kernel step reading c2 too */
    nnfx_node *y =
        binary(g, NNFX_OP_ADD, conv(g, v4, "c5", 9, 8, 3, 1, 1, 1, true), conv(g, v5, "c6", 9, 16, 1, 1, 0, 1, false));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* conv 3x3 -> a scalar Mul (channels-last kernel step) -> two 1x1 convs
 * -> conv 3x3: the values between them stay channels-last (a 1x1 conv
 * beside a channels-last value gains less from nChw8c than the reorder
 * costs, so its other value stays channels-last too, and so on). */
static nnfx_graph *pointwise_pair(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 8, xd[2] = 7, xd[3] = 9;
    int64_t one = 1;
    nnfx_node *k = param(g, "k", 1, &one, 0.5f);
    nnfx_node *v = binary(g, NNFX_OP_MUL, conv(g, input(g, 4, xd), "c1", 16, 8, 3, 1, 1, 1, true), k);
    nnfx_node *p1 = conv(g, conv(g, v, "p1", 16, 16, 1, 1, 0, 1, true), "p2", 8, 16, 1, 1, 0, 1, true);
    nnfx_node *y = conv(g, p1, "c2", 8, 8, 3, 1, 1, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* A bottleneck chain: c1 (4 -> 32, 3x3, relu) feeds c2 (1x1, relu) and
 * c3 (3x3) takes c1's output as its residual (+ add + relu); c4 (32 -> 9)
 * writes the NCHW output. Where oneDNN's convs run nChw16c (fx_dnnl_block
 * 16), every value between them is, the residual too (the sum post-op
 * starts from it, no reorder); with nChw8c the residual stays
 * channels-last. */
static nnfx_graph *blocked_residual(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 4, xd[2] = 12, xd[3] = 10;
    nnfx_node *v1 = unary(g, NNFX_OP_RELU, conv(g, input(g, 4, xd), "c1", 32, 4, 3, 1, 1, 1, true));
    nnfx_node *v2 = unary(g, NNFX_OP_RELU, conv(g, v1, "c2", 32, 32, 1, 1, 0, 1, true));
    nnfx_node *v3 = unary(g, NNFX_OP_RELU, binary(g, NNFX_OP_ADD, conv(g, v2, "c3", 32, 32, 3, 1, 1, 1, true), v1));
    nnfx_node *y = conv(g, v3, "c4", 9, 32, 3, 1, 1, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Chains of 32 and 64 channels in whole blocks of fx_dnnl_block channels
 * (nChw16c where oneDNN runs AVX-512 kernels, nChw8c on AVX2): a U-Net
 * step's MaxPool, Concat and ConvTranspose, and with nChw16c a residual
 * passed blocked. */
static void test_blocked_wide(void **state) {
    (void)state;
    int b = fx_dnnl_enabled() ? fx_dnnl_block() : 0;
    if (!b) {
        check_graph(blocked_residual, fx_dnnl_enabled() ? "+ add + relu (nhwc)" : NULL);
        check_graph(upsample_wide, fx_dnnl_enabled() ? "max_pool (nhwc)" : NULL);
        return;
    }
    const char *name = b == 16 ? "nchw16c" : "nchw8c";
    char want[8][96];
    snprintf(want[0], sizeof want[0], "+ bias + relu (x nchw, y %s)", name);
    snprintf(want[1], sizeof want[1], "+ add + relu (%s)", name);
    snprintf(want[2], sizeof want[2], "+ bias (x %s, y to nchw)", name);
    snprintf(want[3], sizeof want[3], "+ bias + relu (%s)", name);
    for (int i = 0; i < 4; i++)
        check_graph(blocked_residual, b == 16 ? want[i] : "+ add + relu (x from nhwc, res from nhwc, y nchw8c)");
    snprintf(want[4], sizeof want[4], "max_pool (%s)", name);
    snprintf(want[5], sizeof want[5], "concat (%s)", name);
    snprintf(want[6], sizeof want[6], "+ bias + relu (%s)  [conv_transpose ..", name);
    snprintf(want[7], sizeof want[7], "+ bias (x %s, y to nchw)", name);
    for (int i = 4; i < 8; i++)
        check_graph(upsample_wide, want[i]);
}

static void test_blocked_chain(void **state) {
    (void)state;
    if (!fx_dnnl_enabled() || fx_dnnl_block() != 8) { /* 16-channel values: too narrow for nChw16c */
        check_graph(blocked_chain, fx_dnnl_enabled() ? "+ bias + relu (nhwc)" : NULL);
        return;
    }
    const char *want[] = {"+ bias + tanh (x nchw", "+ bias + relu (x nchw8c, y to nhwc)",
                          "+ bias (x nchw8c, y to nhwc)", "+ add (x nchw8c, res from nhwc, y nchw8c)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        check_graph(blocked_chain, want[i]);
    check_graph(pointwise_pair, "conv_2 = conv1x1/s1 onednn jit_1x1:avx2 + bias (nhwc)");
    check_graph(pointwise_pair, "conv_3 = conv3x3/s1 onednn jit:avx2 + bias (x nhwc, y to nchw)");
}

static void test_conv3d(void **state) {
    (void)state;
    /* oneDNN's 3-d conv with the chain fused; without it, the generic kernel step */
    check_graph_rank(conv3d_block, fx_dnnl_enabled() ? "conv3d 3x3/s1 onednn" : NULL, 5);
    if (fx_dnnl_enabled())
        check_graph_rank(conv3d_block, "+ bias + add + relu (x from nchw, res from nchw, y to nchw)", 5);
}

/* conv 3x3 -> ConvTranspose 2x2/s2 (16 -> 12 channels) as the NCHW
 * output: the 1x1 conv and shuffle write y in NCHW element by element. */
static nnfx_graph *upsample_out(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 2, xd[1] = 3, xd[2] = 5, xd[3] = 7;
    nnfx_node *c = conv(g, input(g, 4, xd), "c", 16, 3, 3, 1, 1, 1, true);
    int64_t wd[4] = {16, 12, 2, 2}, bd[1] = {12}, st[2] = {2, 2};
    nnfx_attr ta[1] = {nnfx_attr_ints("strides", 2, st)};
    nnfx_arg a[3] = {nnfx_arg_node(c), nnfx_arg_node(param(g, "t.w", 4, wd, 0.0f)),
                     nnfx_arg_node(param(g, "t.b", 1, bd, 0.0f))};
    nnfx_node *y = op(g, NNFX_OP_CONV_TRANSPOSE, 3, a, 1, ta);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

static void test_conv_transpose(void **state) {
    (void)state;
    check_graph(upsample, fx_dnnl_enabled() ? "conv_transpose2x2/s2 onednn" : NULL);
    /* window = stride: a 1x1 conv to 4 * M channels and a shuffle (NHWC,
     * nChw8c, nChw16c, NCHW y), with oneDNN's AVX2 or AVX-512 kernels */
    check_graph(upsample, fx_dnnl_enabled() ? "1x1 + shuffle + bias + relu" : NULL);
    check_graph(upsample_out, fx_dnnl_enabled() ? "1x1 + shuffle + bias (x " : NULL);
    check_graph(upsample_wide, fx_dnnl_enabled() ? "1x1 + shuffle + bias + relu" : NULL);
    if (fx_dnnl_enabled() && fx_dnnl_block() != 8) check_graph(upsample, "+ bias + relu (nhwc)  [conv_transpose ..");
    if (!fx_dnnl_enabled() || fx_dnnl_block() != 8) return;
    /* the whole U-Net step in nChw8c: the pool on the [N * C/8, H, W, 8]
     * view, the Concat appending channel blocks, the ConvTranspose blocked */
    const char *want[] = {"max_pool (nchw8c)", "concat (nchw8c)", "+ bias + relu (nchw8c)  [conv_transpose ..",
                          "+ bias (x nchw8c, y to nchw)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        check_graph(upsample, want[i]);
}

static void test_depthwise(void **state) {
    (void)state;
    check_graph(depthwise, conv_kind("dwconv5x5/s1 direct + bias + silu", "grouped conv5x5/s1 onednn"));
}

/* The depthwise border paths (padding rows, clipped left and right
 * columns, rows with no interior column) over kernels 3 and 5, strides 1
 * and 2, pads 0 to 2, widths 1 to 19 and heights 1 to 9. */
static void test_dw_borders(void **state) {
    (void)state;
    for (g_dw_k = 3; g_dw_k <= 5; g_dw_k += 2)
        for (g_dw_s = 1; g_dw_s <= 2; g_dw_s++)
            for (g_dw_p = 0; g_dw_p <= 2; g_dw_p++)
                for (g_dw_h = 1; g_dw_h <= 9; g_dw_h++)
                    for (g_dw_w = 1; g_dw_w <= 19; g_dw_w++)
                        if (g_dw_h + 2 * g_dw_p >= g_dw_k && g_dw_w + 2 * g_dw_p >= g_dw_k)
                            check_graph(dwcase, conv_kind("dwconv", "conv")); /* oneDNN declines some border cases */
}

/* The channels-last region's steps against the interpreter; with oneDNN,
 * the plan keeps every value in it NHWC (no reorder inside) and runs the
 * broadcast Mul/Sub and the Concat with the NHWC kernels. */
/* conv -> the exported GELU chain (scalar constants) -> conv3x3 -> times a
 * scalar -> conv: the GELU step and the scalar Mul read and write
 * channels-last, so the convs between them take no reorder. */
static nnfx_graph *nhwc_gelu(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 8, xd[2] = 9, xd[3] = 9;
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *c1 = conv(g, x, "c1", 16, 8, 1, 1, 0, 1, true);
    int64_t one = 1;
    nnfx_node *k0 = param(g, "k0", 1, &one, 1.5f), *k1 = param(g, "k1", 1, &one, 1.0f),
              *k2 = param(g, "k2", 1, &one, 0.5f);
    nnfx_node *e = unary(g, NNFX_OP_ERF, binary(g, NNFX_OP_DIV, c1, k0));
    nnfx_node *gl = binary(g, NNFX_OP_MUL, binary(g, NNFX_OP_MUL, c1, binary(g, NNFX_OP_ADD, e, k1)), k2);
    nnfx_node *c2 = conv(g, gl, "c2", 16, 16, 3, 1, 1, 1, true);
    nnfx_node *y = conv(g, binary(g, NNFX_OP_MUL, k2, c2), "c3", 4, 16, 1, 1, 0, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

static void test_nhwc_gelu(void **state) {
    (void)state;
    if (!fx_dnnl_enabled()) {
        check_graph(nhwc_gelu, "gelu");
        return;
    }
    const char *want[] = {"(x from nchw, y nhwc)", "+ bias (nhwc)", "(x nhwc, y to nchw)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        check_graph(nhwc_gelu, want[i]);
}

static void test_nhwc_region(void **state) {
    (void)state;
    if (!fx_dnnl_enabled()) {
        check_graph(nhwc_region, "concat");
        return;
    }
    const char *want[] = {
        "mul (nhwc)",        "sub (nhwc)",           "concat (nhwc)", "max_pool (nhwc)", "avgpool 2x2/s1 onednn",
        "conv3x3/s1 onednn", "(x from nchw, y nhwc)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        check_graph(nhwc_region, want[i]);
}

/* A NaN inside a channels-last region: the input's NaN spreads through
 * a 1x1 conv to every channel of its pixel, and the channels-last MaxPool
 * must give NaN for each window holding it (the ONNX and PyTorch rule;
 * oneDNN's pooling does not, so it never runs MaxPool), as the interpreter
 * does; the other windows agree too. */
static void test_nhwc_maxpool_nan(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xd[4] = {1, 4, 6, 6}, ks[2] = {2, 2}, st[2] = {2, 2};
    nnfx_node *x = input(g, 4, xd);
    nnfx_node *c = conv(g, x, "c", 72, 4, 1, 1, 0, 1, true); /* 72: four vector groups and a tail */
    nnfx_attr pa[2] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st)};
    nnfx_arg pin = nnfx_arg_node(c);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 2, pa);
    nnfx_node *y = conv(g, mp, "d", 16, 72, 1, 1, 0, 1, true);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *xt = rand_tensor(4, xd);
    ((float *)xt->data)[1 * 36 + 2 * 6 + 3] = NAN; /* channel 1, row 2, column 3: window (1, 1) */
    nnfx_tensor *yc = run_gm(gm, xt, 1), *ref = NULL;
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    /* nChw8c: 72 = 9 blocks; not a whole number of blocks of 16 */
    const char *want = fx_dnnl_block() == 8 ? "max_pool (nchw8c)" : "max_pool (nhwc)";
    if (fx_dnnl_enabled() && !strstr(plan, want)) fail_msg("the max pool is not %s:\n%s", want + 10, plan);
    free(plan);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    int nout = 0;
    assert_int_equal(nnfx_interp_run(ip, 1, &xt, 1, &ref, &nout, &err), NNFX_OK);
    const float *a = yc->data, *b = ref->data;
    int nans = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(ref); i++) {
        assert_int_equal(isnan(a[i]), isnan(b[i]));
        nans += isnan(b[i]) != 0;
        if (!isnan(b[i])) assert_true(fabsf(a[i] - b[i]) <= 1e-5f * (1.0f + fabsf(b[i])));
    }
    assert_int_equal(nans, 16); /* one window, every channel */
    nnfx_tensor_release(yc);
    nnfx_tensor_release(ref);
    nnfx_tensor_release(xt);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

/* OpenMP's thread count as a program sees it (weak: absent when the
 * library was built without oneDNN, then the test has nothing to check). */
extern void omp_set_num_threads(int n) __attribute__((weak));
extern int omp_get_max_threads(void) __attribute__((weak));

/* A program using OpenMP keeps its own thread count across plan builds and
 * runs at 1 and 2 threads (oneDNN's count is set per call and put back). */
static void test_omp_threads_kept(void **state) {
    (void)state;
    if (!fx_dnnl_enabled() || !omp_set_num_threads || !omp_get_max_threads) {
        puts("skipped: oneDNN is off (NNFX_CONV=own, NNFX_ISA=portable, or built without it)");
        return;
    }
    omp_set_num_threads(3);
    check_graph(nhwc_region, "onednn");
    assert_int_equal(omp_get_max_threads(), 3);
}

/* Max pools of every row width up to 40 (vector steps of 16, their masked
 * tails, stride-2 steps of one to sixteen outputs, clipped edges): the
 * compiled plan against the interpreter. */
static void test_maxpool_borders(void **state) {
    (void)state;
    for (g_mp_k = 2; g_mp_k <= 3; g_mp_k++)
        for (g_mp_s = 1; g_mp_s <= 2; g_mp_s++)
            for (g_mp_p = 0; g_mp_p < g_mp_k && g_mp_p <= 1; g_mp_p++)
                for (g_mp_w = g_mp_k; g_mp_w <= 40; g_mp_w++)
                    check_graph(mpcase, "(direct)");
}

/* MaxPool's NaN and padding rule (ONNX, PyTorch): a window holding a NaN
 * gives NaN, and padding never wins (a window of -inf and padding gives
 * -inf, not 0). x [1, 1, 3, 3], 2x2 windows, stride 2, pads 1: the four
 * windows read {x00}, {x01, x02}, {x10, x20}, {x11, x12, x21, x22}; the
 * expected values are worked out by hand. The compiled plan's direct max
 * pool (1 and 2 threads) and the interpreter must both give them. */
static void test_maxpool_nan(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xd[4] = {1, 1, 3, 3}, ks[2] = {2, 2}, st[2] = {2, 2}, pd[4] = {1, 1, 1, 1};
    nnfx_node *x = input(g, 4, xd);
    nnfx_attr pa[3] = {nnfx_attr_ints("kernel_shape", 2, ks), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("pads", 4, pd)};
    nnfx_arg pin = nnfx_arg_node(x);
    nnfx_node *mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 3, pa);
    assert_non_null(nnfx_graph_output(g, 1, &mp, NULL));
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *xt = nnfx_tensor_new(NNFX_F32, 4, xd, NULL);
    const float xv[9] = {-INFINITY, NAN, 2, 3, 4, -1, 0, 5, 6};
    memcpy(xt->data, xv, sizeof xv);
    nnfx_tensor *y[3] = {run_gm(gm, xt, 1), run_gm(gm, xt, 2), NULL};
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    if (!strstr(plan, "(direct)")) fail_msg("the max pool is not the direct one:\n%s", plan);
    free(plan);
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    int nout = 0;
    assert_int_equal(nnfx_interp_run(ip, 1, &xt, 1, &y[2], &nout, &err), NNFX_OK);
    for (int r = 0; r < 3; r++) {
        const float *v = y[r]->data;
        assert_int_equal(nnfx_tensor_numel(y[r]), 4);
        assert_true(isinf(v[0]) && v[0] < 0);
        assert_true(isnan(v[1]));
        assert_true(v[2] == 3.0f);
        assert_true(v[3] == 6.0f);
        nnfx_tensor_release(y[r]);
    }
    nnfx_tensor_release(xt);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
    /* rows wide enough for the vector interior: a NaN in one row (its
     * windows take the NaN rule, the other rows the plain max), NaN and
     * -0/+0 ties; the same values as the interpreter's, NaN for NaN */
    g = nnfx_graph_new();
    int64_t wd[4] = {1, 2, 6, 45}, k3[2] = {3, 3};
    x = input(g, 4, wd);
    nnfx_attr pb[3] = {nnfx_attr_ints("kernel_shape", 2, k3), nnfx_attr_ints("strides", 2, st),
                       nnfx_attr_ints("pads", 4, pd)};
    pin = nnfx_arg_node(x);
    mp = op(g, NNFX_OP_MAX_POOL, 1, &pin, 3, pb);
    assert_non_null(nnfx_graph_output(g, 1, &mp, NULL));
    gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    xt = nnfx_tensor_new(NNFX_F32, 4, wd, NULL);
    float *xw = xt->data;
    for (int64_t i = 0; i < 2 * 6 * 45; i++)
        xw[i] = (float)((i * 37) % 101) - 50.0f;
    xw[2 * 45 + 20] = NAN, xw[6 * 45 + 4 * 45 + 31] = NAN;
    xw[3 * 45 + 7] = -0.0f, xw[3 * 45 + 8] = 0.0f;
    nnfx_tensor *yw[2] = {run_gm(gm, xt, 1), NULL};
    ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    assert_non_null(ip);
    assert_int_equal(nnfx_interp_run(ip, 1, &xt, 1, &yw[1], &nout, &err), NNFX_OK);
    assert_int_equal(nnfx_tensor_numel(yw[0]), nnfx_tensor_numel(yw[1]));
    const float *a = yw[0]->data, *b = yw[1]->data;
    int nans = 0;
    for (int64_t i = 0; i < nnfx_tensor_numel(yw[0]); i++) {
        if (isnan(b[i])) {
            nans++;
            assert_true(isnan(a[i]));
        } else if (memcmp(&a[i], &b[i], sizeof a[i]))
            fail_msg("max pool element %lld: %g, the interpreter %g", (long long)i, a[i], b[i]);
    }
    assert_int_equal(nans, 3); /* the windows over (2, 20) and (4, 31): one and two */
    for (int r = 0; r < 2; r++)
        nnfx_tensor_release(yw[r]);
    nnfx_tensor_release(xt);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

/* A scalar float32 parameter. */
static nnfx_node *scalar_param(nnfx_graph *g, const char *name, float v) {
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, 0, NULL, NULL);
    *(float *)t->data = v;
    assert_int_equal(nnfx_graph_set_param(g, name, t, NULL), NNFX_OK);
    nnfx_tensor_release(t);
    nnfx_node *n = nnfx_graph_get_attr(g, name, NULL);
    assert_non_null(n);
    return n;
}

/* The exported GELU, (x * (Erf(x / sqrt 2) + 1)) * 0.5, becomes one vector
 * step; an Erf with another reader stays an Erf step (the vector erf), and
 * so does the chain that reads it. Values against 0.5 x (1 + erf(x /
 * sqrt 2)) in double (libm), 1 and 2 threads. */
static void test_float_gelu_steps(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xd[3] = {1, 7, 37};
    nnfx_node *x = input(g, 3, xd);
    nnfx_node *d = binary(g, NNFX_OP_DIV, x, scalar_param(g, "c0", 1.41421353816986084f));
    nnfx_node *e = unary(g, NNFX_OP_ERF, d);
    nnfx_node *a = binary(g, NNFX_OP_ADD, scalar_param(g, "c1", 1.0f), e); /* the constant first */
    nnfx_node *m = binary(g, NNFX_OP_MUL, x, a);
    nnfx_node *y1 = binary(g, NNFX_OP_MUL, m, scalar_param(g, "c2", 0.5f));
    nnfx_node *e2 = unary(g, NNFX_OP_ERF, x); /* read twice: no fusion */
    nnfx_node *y2 = binary(g, NNFX_OP_MUL, e2, e2);
    nnfx_node *outs[3] = {y1, e2, y2};
    assert_non_null(nnfx_graph_output(g, 3, outs, NULL));
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *xt = nnfx_tensor_new(NNFX_F32, 3, xd, NULL);
    float *xv = xt->data;
    int64_t n = nnfx_tensor_numel(xt);
    for (int64_t i = 0; i < n; i++)
        xv[i] = (float)((i * 53) % 259) * 0.05f - 6.5f;
    for (int threads = 1; threads <= 2; threads++) {
        nnfx_tensor *y[3] = {0};
        int nout = 0;
        nnfx_gm_set_threads(gm, threads);
        if (nnfx_gm_run(gm, 1, &xt, 3, y, &nout, &err)) fail_msg("%s", err.msg);
        assert_int_equal(nout, 3);
        char *plan = nnfx_gm_plan(gm, &err);
        assert_non_null(plan);
        if (!strstr(plan, "gelu: (x * (erf(x / c0) + c1)) * c2 (vector)") || !strstr(plan, "= erf (vector)") ||
            strstr(plan, "= div") || strstr(plan, "= add"))
            fail_msg("no GELU step or vector erf step in the plan:\n%s", plan);
        free(plan);
        for (int64_t i = 0; i < n; i++) {
            double xi = xv[i], w1 = 0.5 * xi * (1.0 + erf(xi / sqrt(2.0))), w2 = erf(xi);
            float g1 = ((const float *)y[0]->data)[i], g2 = ((const float *)y[1]->data)[i],
                  g3 = ((const float *)y[2]->data)[i];
            if (fabs(g1 - w1) > 1e-6 + 1e-6 * fabs(w1) || fabs(g2 - w2) > 1e-6 || fabs(g3 - w2 * w2) > 2e-6)
                fail_msg("x %g: gelu %g (libm %g), erf %g (libm %g), erf^2 %g", xi, g1, w1, g2, w2, g3);
        }
        for (int k = 0; k < 3; k++)
            nnfx_tensor_release(y[k]);
    }
    nnfx_tensor_release(xt);
    nnfx_gm_free(gm);
}

/* ReduceMean of x over axis ax, keeping it (axes a constant input, named
 * name). */
static nnfx_node *reduce_mean(nnfx_graph *g, const char *name, nnfx_node *x, int64_t ax) {
    int64_t one = 1;
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, &one, NULL);
    *(int64_t *)t->data = ax;
    assert_int_equal(nnfx_graph_set_param(g, name, t, NULL), NNFX_OK);
    nnfx_tensor_release(t);
    nnfx_arg a[2] = {nnfx_arg_node(x), nnfx_arg_node(nnfx_graph_get_attr(g, name, NULL))};
    return op(g, NNFX_OP_REDUCE_MEAN, 2, a, 0, NULL);
}

/* How the decomposed LayerNorm chain is built: LN_AFFINE with the scale
 * and bias, LN_PLAIN without, LN_BIAS_ONLY with the bias alone,
 * LN_MEAN_READ with its mean an output too and LN_AXIS_1 over a dim that
 * is not the last (neither of the last two fuses). */
typedef enum ln_case { LN_AFFINE, LN_PLAIN, LN_BIAS_ONLY, LN_MEAN_READ, LN_AXIS_1 } ln_case;

/* PyTorch's opset-13 export of nn.LayerNorm over the last dim of x [d0,
 * d1, len]: ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, then
 * Mul scale, Add bias (LN_AFFINE; the scale [len], the bias [1, 1, len]). */
static nnfx_graph *ln_chain(const int64_t *xd, ln_case c) {
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *x = input(g, 3, xd);
    int64_t ax = c == LN_AXIS_1 ? 1 : -1, sd[1] = {xd[2]}, bd[3] = {1, 1, xd[2]};
    nnfx_node *mean = reduce_mean(g, "axes0", x, ax), *d = binary(g, NNFX_OP_SUB, x, mean);
    nnfx_node *var = reduce_mean(g, "axes1", binary(g, NNFX_OP_POW, d, scalar_param(g, "two", 2.0f)), ax);
    nnfx_node *den = unary(g, NNFX_OP_SQRT, binary(g, NNFX_OP_ADD, var, scalar_param(g, "eps", 1e-5f)));
    nnfx_node *y = binary(g, NNFX_OP_DIV, d, den);
    if (c != LN_PLAIN && c != LN_BIAS_ONLY) y = binary(g, NNFX_OP_MUL, y, param(g, "scale", 1, sd, 1.0f));
    if (c != LN_PLAIN) y = binary(g, NNFX_OP_ADD, param(g, "bias", 3, bd, 0.0f), y); /* the constant first */
    nnfx_node *outs[2] = {y, mean};
    assert_non_null(nnfx_graph_output(g, c == LN_MEAN_READ ? 2 : 1, outs, NULL));
    return g;
}

/* One ln_chain case: the plan (1 and 2 threads) against the interpreter,
 * and whether the plan lists the fused step. */
static void check_ln_chain(const int64_t *xd, ln_case c) {
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(ln_chain(xd, c), &err);
    assert_non_null(gm);
    nnfx_tensor *x = rand_tensor(3, xd);
    float *xv = x->data;
    for (int64_t i = 0; i < nnfx_tensor_numel(x); i++)
        xv[i] = xv[i] * 3.0f + (float)(i % 5); /* rows of a mean far from 0 */
    int want = c == LN_MEAN_READ ? 2 : 1, nout = 0;
    nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
    if (!ip) fail_msg("%s", err.msg);
    nnfx_tensor *ref[2] = {0};
    assert_int_equal(nnfx_interp_run(ip, 1, &x, want, ref, &nout, &err), NNFX_OK);
    for (int threads = 1; threads <= 2; threads++) {
        nnfx_tensor *y[2] = {0};
        nnfx_gm_set_threads(gm, threads);
        if (nnfx_gm_run(gm, 1, &x, want, y, &nout, &err)) fail_msg("%s", err.msg);
        assert_int_equal(nout, want);
        char *plan = nnfx_gm_plan(gm, &err);
        assert_non_null(plan);
        bool fused = strstr(plan, "layernorm chain: (x - mean) / sqrt(var + eps) * scale + bias (vector)") != NULL;
        if (fused != (c <= LN_BIAS_ONLY) || (fused && (strstr(plan, "= pow") || strstr(plan, "= sqrt"))))
            fail_msg("case %d, rows of %lld: fused %d in the plan:\n%s", (int)c, (long long)xd[2], fused, plan);
        if (threads == 2 && xd[0] > 1 && xd[0] * xd[1] * xd[2] >= 1 << 15 && !strstr(plan, "ranges of dim 0"))
            fail_msg("case %d: the step is not split over rows:\n%s", (int)c, plan);
        free(plan);
        for (int k = 0; k < want; k++) {
            double r = rel_diff(y[k], ref[k]);
            if (r > 2e-6)
                fail_msg("case %d, rows of %lld, %d threads: output %d off by %g", (int)c, (long long)xd[2], threads, k,
                         r);
            nnfx_tensor_release(y[k]);
        }
    }
    for (int k = 0; k < want; k++)
        nnfx_tensor_release(ref[k]);
    nnfx_tensor_release(x);
    nnfx_interp_free(ip);
    nnfx_gm_free(gm);
}

/* The decomposed LayerNorm chain over the last axis, with and without the
 * scale and bias, is one vector step (split over whole rows at 2 threads
 * when large); a chain whose mean has another reader, or over a dim not the
 * last, stays its steps. Rows of 37, 96 and one of 33001 (large enough
 * for an element-wise split, which would cut the row), against the
 * interpreter. */
static void test_layernorm_chain(void **state) {
    (void)state;
    const int64_t small[3] = {2, 3, 37}, large[3] = {64, 8, 96}, one_row[3] = {1, 1, 33001};
    for (int c = LN_AFFINE; c <= LN_AXIS_1; c++) {
        check_ln_chain(small, (ln_case)c);
        check_ln_chain(large, (ln_case)c);
    }
    check_ln_chain(one_row, LN_AFFINE); /* one row: never split as element-wise */
}

/* A float Sigmoid and x * Sigmoid(x) outside any conv chain (the float
 * islands of a QDQ model): the SiLU is one vector step reading x (its
 * Sigmoid absorbed), a Sigmoid with two readers a vector step of its own,
 * a broadcasting Mul by a sigmoid stays a Mul, a GlobalAveragePool is the
 * plan's vector mean; values against libm's
 * 1 / (1 + exp(-x)) in double within the bounds of fast_int.h (and an
 * absolute 1e-6 near zero), 1 and 2 threads, lengths off the vector width. */
static void test_float_silu_steps(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xd[4] = {1, 3, 7, 11};
    nnfx_node *x = input(g, 4, xd);
    nnfx_arg a1 = nnfx_arg_node(x);
    nnfx_node *sg = op(g, NNFX_OP_SIGMOID, 1, &a1, 0, NULL);
    nnfx_arg m1[2] = {nnfx_arg_node(sg), nnfx_arg_node(x)}; /* sigmoid(x) * x: x is the second argument */
    nnfx_node *silu = op(g, NNFX_OP_MUL, 2, m1, 0, NULL);
    nnfx_arg a2 = nnfx_arg_node(silu);
    nnfx_node *s2 = op(g, NNFX_OP_SIGMOID, 1, &a2, 0, NULL); /* two readers: not a SiLU */
    nnfx_arg m2[2] = {nnfx_arg_node(s2), nnfx_arg_node(silu)};
    nnfx_node *y2 = op(g, NNFX_OP_ADD, 2, m2, 0, NULL);
    nnfx_arg a3 = nnfx_arg_node(s2);
    nnfx_node *y3 = op(g, NNFX_OP_NEG, 1, &a3, 0, NULL);
    nnfx_arg a4 = nnfx_arg_node(y2);
    nnfx_node *mean = op(g, NNFX_OP_GLOBAL_AVERAGE_POOL, 1, &a4, 0, NULL);
    nnfx_arg a5 = nnfx_arg_node(mean);
    nnfx_node *gate = op(g, NNFX_OP_SIGMOID, 1, &a5, 0, NULL);
    nnfx_arg m3[2] = {nnfx_arg_node(y2), nnfx_arg_node(gate)}; /* y2 * sigmoid(mean): a broadcast, not a SiLU */
    nnfx_node *y4 = op(g, NNFX_OP_MUL, 2, m3, 0, NULL);
    nnfx_node *outs[3] = {y2, y3, y4};
    assert_non_null(nnfx_graph_output(g, 3, outs, NULL));
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *xt = nnfx_tensor_new(NNFX_F32, 4, xd, NULL);
    float *xv = xt->data;
    int64_t n = nnfx_tensor_numel(xt);
    for (int64_t i = 0; i < n; i++)
        xv[i] = (float)((i * 53) % 231) * 0.11f - 12.5f;
    xv[0] = -100.0f, xv[1] = 90.0f, xv[2] = 0.0f;
    for (int threads = 1; threads <= 2; threads++) {
        nnfx_tensor *y[3] = {0};
        int nout = 0;
        nnfx_gm_set_threads(gm, threads);
        if (nnfx_gm_run(gm, 1, &xt, 3, y, &nout, &err)) fail_msg("%s", err.msg);
        assert_int_equal(nout, 3);
        char *plan = nnfx_gm_plan(gm, &err);
        assert_non_null(plan);
        if (!strstr(plan, "x * sigmoid(x) (vector)") || !strstr(plan, "= sigmoid (vector)") || !strstr(plan, "= mul") ||
            !strstr(plan, "= global_average_pool (vector)"))
            fail_msg("no SiLU step, vector sigmoid or mean step or broadcast mul in the plan:\n%s", plan);
        free(plan);
        double cs[3] = {0};
        for (int64_t i = 0; i < n; i++) {
            double xi = xv[i], si = xi / (1.0 + exp(-xi)), ti = 1.0 / (1.0 + exp(-si));
            double w2 = si + ti, w3 = -ti;
            cs[i / 77] += w2;
            float a = ((const float *)y[0]->data)[i], b = ((const float *)y[1]->data)[i];
            if (fabs(a - w2) > 1e-6 + 1e-5 * fabs(w2) || fabs(b - w3) > 1e-6 + 1e-5 * fabs(w3))
                fail_msg("x %g: silu + sigmoid %g (libm %g), -sigmoid %g (libm %g)", xi, a, w2, b, w3);
        }
        for (int64_t i = 0; i < n; i++) {
            double w2 = ((const float *)y[0]->data)[i], w4 = w2 / (1.0 + exp(-cs[i / 77] / 77.0));
            float c = ((const float *)y[2]->data)[i];
            if (fabs(c - w4) > 1e-6 + 1e-5 * fabs(w4)) fail_msg("element %lld: gated %g, libm %g", (long long)i, c, w4);
        }
        for (int k = 0; k < 3; k++)
            nnfx_tensor_release(y[k]);
    }
    nnfx_tensor_release(xt);
    nnfx_gm_free(gm);
}

/* A Cast to its input's own type (as PyTorch's QDQ exports write between
 * QuantizeLinear and DequantizeLinear) is an alias in the plan, not a copy
 * step; a Cast that converts stays a step. Values as max(x, 0) and -x. */
static void test_same_type_cast(void **state) {
    (void)state;
    nnfx_graph *g = nnfx_graph_new();
    int64_t xd[2] = {3, 5};
    nnfx_node *x = input(g, 2, xd);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_attr to = nnfx_attr_int("to", 1); /* FLOAT */
    nnfx_node *c = op(g, NNFX_OP_CAST, 1, &a, 1, &to);
    nnfx_arg b = nnfx_arg_node(c);
    nnfx_node *r = op(g, NNFX_OP_RELU, 1, &b, 0, NULL);
    nnfx_attr td = nnfx_attr_int("to", 11); /* DOUBLE: a real conversion */
    nnfx_arg d = nnfx_arg_node(r);
    nnfx_node *c2 = op(g, NNFX_OP_CAST, 1, &d, 1, &td);
    nnfx_node *outs[2] = {r, c2};
    assert_non_null(nnfx_graph_output(g, 2, outs, NULL));
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *xt = nnfx_tensor_new(NNFX_F32, 2, xd, NULL);
    for (int i = 0; i < 15; i++)
        ((float *)xt->data)[i] = (float)(i - 7) * 0.5f;
    nnfx_tensor *y[2] = {0};
    int nout = 0;
    if (nnfx_gm_run(gm, 1, &xt, 2, y, &nout, &err)) fail_msg("%s", err.msg);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    const char *first = strstr(plan, "= cast");
    if (!first || strstr(first + 1, "= cast"))
        fail_msg("want exactly one cast step (the float -> double one):\n%s", plan);
    free(plan);
    assert_int_equal(y[1]->dtype, NNFX_F64);
    for (int i = 0; i < 15; i++) {
        float want = (float)(i - 7) * 0.5f > 0 ? (float)(i - 7) * 0.5f : 0.0f;
        assert_true(((const float *)y[0]->data)[i] == want);
        assert_true(((const double *)y[1]->data)[i] == (double)want);
    }
    nnfx_tensor_release(y[0]), nnfx_tensor_release(y[1]), nnfx_tensor_release(xt);
    nnfx_gm_free(gm);
}

static void test_odd_conv(void **state) {
    (void)state;
    check_graph(oddconv, conv_kind("conv1x1/s1 gemm + bias + add + relu", "conv1x1/s1 onednn"));
}

static void test_wide_conv(void **state) {
    (void)state;
    check_graph(wideconv, conv_kind("conv3x3/s1 padded+gemm + bias + add + relu", "conv3x3/s1 onednn"));
}

static void test_deep_conv(void **state) {
    (void)state;
    check_graph(deepconv, conv_kind("conv3x3/s2 im2col+gemm (B packed once) + bias + relu", "conv3x3/s2 onednn"));
    check_graph(deepconv, conv_kind("conv3x3/s1 padded+gemm + bias + add + relu", "conv3x3/s1 onednn"));
}

static void test_gemm(void **state) {
    (void)state;
    check_graph(gemm, "gemm");
    check_graph(big_gemm, "gemm (column ranges)");
    check_graph_rank(big_matmul, "matmul (column ranges)", 3);
}

/* An attention block over x [1, 8, 64, 64] (8 heads of 64 tokens), every
 * step big enough to run in ranges of its first dim of more than one
 * element: MatMul by a 2-d weight (rows), Transpose (contiguous and
 * strided input rows), batched MatMuls, Adds of a per-head bias (split
 * with the output) and a mask (read whole), Softmax rows, ReduceMean rows,
 * Sub of the mean (broadcast along the rows), the exported GELU chain (one
 * vector step) and LayerNormalization. */
static nnfx_graph *attention_block(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 8, xd[2] = 64, xd[3] = 64;
    nnfx_node *x = input(g, 4, xd);
    int64_t wd[2] = {64, 64}, bd[3] = {8, 64, 64}, md[4] = {1, 1, 64, 64}, ld[1] = {64};
    int64_t p0132[4] = {0, 1, 3, 2}, p0213[4] = {0, 2, 1, 3};
    nnfx_node *q = binary(g, NNFX_OP_MATMUL, x, param(g, "wq", 2, wd, 0.0f));
    nnfx_attr ta = nnfx_attr_ints("perm", 4, p0132), tb = nnfx_attr_ints("perm", 4, p0213);
    nnfx_arg xa = nnfx_arg_node(x);
    nnfx_node *kt = op(g, NNFX_OP_TRANSPOSE, 1, &xa, 1, &ta);
    nnfx_node *s = binary(g, NNFX_OP_MATMUL, q, kt);
    s = binary(g, NNFX_OP_ADD, s, param(g, "bias", 3, bd, 0.0f));
    s = binary(g, NNFX_OP_ADD, s, param(g, "mask", 4, md, 0.0f));
    nnfx_attr ax = nnfx_attr_int("axis", -1);
    nnfx_arg sa = nnfx_arg_node(s);
    nnfx_node *o = binary(g, NNFX_OP_MATMUL, op(g, NNFX_OP_SOFTMAX, 1, &sa, 1, &ax), x);
    nnfx_arg oa = nnfx_arg_node(o);
    nnfx_node *t = op(g, NNFX_OP_TRANSPOSE, 1, &oa, 1, &tb);                /* [1, 64, 8, 64] */
    nnfx_tensor *axes = nnfx_tensor_new(NNFX_I64, 1, (int64_t[]){1}, NULL); /* ReduceMean's axes: the last */
    *(int64_t *)axes->data = -1;
    assert_int_equal(nnfx_graph_set_param(g, "axes", axes, NULL), NNFX_OK);
    nnfx_tensor_release(axes);
    nnfx_node *c = binary(g, NNFX_OP_SUB, t, binary(g, NNFX_OP_REDUCE_MEAN, t, nnfx_graph_get_attr(g, "axes", NULL)));
    nnfx_node *e = unary(g, NNFX_OP_ERF, binary(g, NNFX_OP_DIV, c, scalar_param(g, "c0", 1.41421353816986084f)));
    nnfx_node *gl =
        binary(g, NNFX_OP_MUL, binary(g, NNFX_OP_MUL, c, binary(g, NNFX_OP_ADD, e, scalar_param(g, "c1", 1))),
               scalar_param(g, "c2", 0.5f));
    nnfx_arg la[3] = {nnfx_arg_node(gl), nnfx_arg_node(param(g, "ln.w", 1, ld, 1.0f)),
                      nnfx_arg_node(param(g, "ln.b", 1, ld, 0.0f))};
    nnfx_node *y = op(g, NNFX_OP_LAYER_NORM, 3, la, 1, &ax);
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* x [1, 1, 512, 64] MatMul a 2-d weight [64, 96] (too narrow for column
 * ranges): ranges of A's rows (dim 2), each one sgemm. */
static nnfx_graph *row_matmul(int64_t *xd) {
    nnfx_graph *g = nnfx_graph_new();
    xd[0] = 1, xd[1] = 1, xd[2] = 512, xd[3] = 64;
    int64_t wd[2] = {64, 96};
    nnfx_node *y = binary(g, NNFX_OP_MATMUL, input(g, 4, xd), param(g, "w", 2, wd, 0.0f));
    assert_non_null(nnfx_graph_output(g, 1, &y, NULL));
    return g;
}

/* Whether some line of plan has both a and b. */
static bool plan_line_has(const char *plan, const char *a, const char *b) {
    for (const char *l = plan; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *end = strchr(l, '\n'), *pa = strstr(l, a), *pb = strstr(l, b);
        if (pa && pb && (!end || (pa < end && pb < end))) return true;
    }
    return false;
}

/* Kernel steps in ranges of an outer dim (outer_ranges.c): against the
 * interpreter (check_graph), and 1 and 2 threads give the same bits. */
static void test_outer_ranges(void **state) {
    (void)state;
    check_graph(attention_block, "ranges of dim 1");
    check_graph(row_matmul, "ranges of dim 2");
    int64_t xd[4];
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(attention_block(xd), &err);
    assert_non_null(gm);
    nnfx_tensor *x = rand_tensor(4, xd), *y1 = run_gm(gm, x, 1), *y2 = run_gm(gm, x, 2);
    assert_int_equal(y1->nbytes, y2->nbytes);
    assert_memory_equal(y1->data, y2->data, y1->nbytes);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(plan);
    const char *split[] = {"= matmul",      "= transpose", "= add", "= softmax",
                           "= reduce_mean", "= sub",       "gelu:", "= layer_normalization"};
    for (size_t i = 0; i < sizeof split / sizeof *split; i++)
        if (!plan_line_has(plan, split[i], "ranges of dim")) fail_msg("no '%s' step in ranges:\n%s", split[i], plan);
    free(plan);
    nnfx_tensor_release(x);
    nnfx_tensor_release(y1);
    nnfx_tensor_release(y2);
    nnfx_gm_free(gm);
}

/* A wrong input is an error, not a crash; a graph with dynamic shapes runs
 * in the interpreter. */
static void test_bad_input_and_fallback(void **state) {
    (void)state;
    int64_t xd[4];
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(resblock(xd), &err);
    int64_t bad[4] = {1, 8, 9, 9};
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, bad, NULL), *y = NULL;
    int nout = 0;
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_ERR_SHAPE);
    assert_non_null(strstr(err.msg, "input x expects"));
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);

    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *in = nnfx_graph_placeholder(g, "x", NULL, &err);
    nnfx_node *r = unary(g, NNFX_OP_RELU, in);
    nnfx_graph_output(g, 1, &r, &err);
    gm = nnfx_gm_new(g, &err);
    int64_t d[2] = {2, 2};
    float v[4] = {-1, 2, -3, 4};
    x = nnfx_tensor_from_floats(2, d, v, NULL);
    assert_int_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    assert_float_equal(((float *)y->data)[1], 2.0f, 0);
    assert_float_equal(((float *)y->data)[2], 0.0f, 0);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(strstr(plan, "interpreted"));
    free(plan);
    nnfx_tensor_release(x);
    nnfx_tensor_release(y);
    nnfx_gm_free(gm);
}

/* Step timing: off by default (no profile), on from nnfx_gm_set_profile
 * with counts from zero, surviving a plan rebuild (threads), off again. */
static void test_profile(void **state) {
    (void)state;
    int64_t xd[4];
    nnfx_error err = {0};
    nnfx_gm *gm = nnfx_gm_new(resblock(xd), &err);
    assert_non_null(gm);
    nnfx_tensor *x = rand_tensor(4, xd);
    nnfx_tensor_release(run_gm(gm, x, 1));
    assert_null(nnfx_gm_profile(gm, &err)); /* off */
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    assert_int_equal(nnfx_gm_set_profile(gm, true, &err), NNFX_OK);
    for (int r = 0; r < 3; r++)
        nnfx_tensor_release(run_gm(gm, x, 1));
    char *t = nnfx_gm_profile(gm, &err);
    assert_non_null(t);
    if (!strstr(t, "# profile: 3 runs,") || !strstr(t, "conv3x3/s1") || !strstr(t, "%  "))
        fail_msg("unexpected profile:\n%s", t);
    free(t);
    nnfx_tensor_release(run_gm(gm, x, 2)); /* new thread count: a new plan, counts from zero */
    t = nnfx_gm_profile(gm, &err);
    assert_non_null(t);
    if (!strstr(t, "# profile: 1 run,") || !strstr(t, "2 threads")) fail_msg("after a rebuild:\n%s", t);
    free(t);
    assert_int_equal(nnfx_gm_set_profile(gm, false, &err), NNFX_OK);
    assert_null(nnfx_gm_profile(gm, &err));
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

/* The plan is built on first use, not at recompile; nnfx_gm_compile builds
 * it now and says whether the interpreter runs the graph (and the plan text
 * why); an error building it is returned, not hidden by the fallback. */
static void test_lazy_plan(void **state) {
    (void)state;
    int64_t xd[4];
    nnfx_error err = {0};
    bool interp = true;
    nnfx_gm *gm = nnfx_gm_new(resblock(xd), &err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    assert_int_equal(nnfx_gm_compile(gm, &interp, &err), NNFX_OK);
    assert_false(interp);
    nnfx_gm_free(gm);

    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *in = nnfx_graph_placeholder(g, "x", NULL, &err);
    nnfx_node *r = unary(g, NNFX_OP_RELU, in);
    nnfx_graph_output(g, 1, &r, &err);
    gm = nnfx_gm_new(g, &err);
    assert_int_equal(nnfx_gm_compile(gm, &interp, &err), NNFX_OK);
    assert_true(interp);
    char *plan = nnfx_gm_plan(gm, &err);
    assert_non_null(strstr(plan, "# interpreted: compiled executor: node x: shape not static"));
    free(plan);
    nnfx_gm_free(gm);

    /* a constant GatherElements whose index is out of range: inference
     * passes (shapes only), folding it while compiling fails */
    g = nnfx_graph_new();
    int64_t d2[2] = {2, 2};
    nnfx_meta m = {0};
    nnfx_meta_set_shape(&m, NNFX_F32, 2, d2);
    in = nnfx_graph_placeholder(g, "x", &m, &err);
    nnfx_node *data = param(g, "data", 2, d2, 0.0f);
    nnfx_tensor *ix = nnfx_tensor_new(NNFX_I64, 2, d2, NULL);
    int64_t *ip = ix->data;
    ip[0] = ip[1] = ip[2] = 0, ip[3] = 5;
    assert_int_equal(nnfx_graph_set_param(g, "ix", ix, NULL), NNFX_OK);
    nnfx_tensor_release(ix);
    nnfx_node *gat = binary(g, NNFX_OP_GATHER_ELEMENTS, data, nnfx_graph_get_attr(g, "ix", NULL));
    nnfx_node *sum = binary(g, NNFX_OP_ADD, in, gat);
    nnfx_graph_output(g, 1, &sum, &err);
    gm = nnfx_gm_new(g, &err);
    assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
    assert_int_not_equal(nnfx_gm_compile(gm, &interp, &err), NNFX_OK);
    assert_non_null(strstr(err.msg, "compile"));
    assert_non_null(strstr(err.msg, "out of range"));
    nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 2, d2, NULL), *y = NULL;
    int nout = 0;
    err = (nnfx_error){0};
    assert_int_not_equal(nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err), NNFX_OK);
    assert_non_null(strstr(err.msg, "out of range"));
    assert_null(nnfx_gm_plan(gm, &err));
    nnfx_tensor_release(x);
    nnfx_gm_free(gm);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resblock),         cmocka_unit_test(test_depthwise),
        cmocka_unit_test(test_tanh_fused),       cmocka_unit_test(test_hard_sigmoid_fused),
        cmocka_unit_test(test_atrous),           cmocka_unit_test(test_pad_avgpool),
        cmocka_unit_test(test_blocked_chain),    cmocka_unit_test(test_blocked_wide),
        cmocka_unit_test(test_conv3d),           cmocka_unit_test(test_conv_transpose),
        cmocka_unit_test(test_dw_borders),       cmocka_unit_test(test_maxpool_nan),
        cmocka_unit_test(test_odd_conv),         cmocka_unit_test(test_float_silu_steps),
        cmocka_unit_test(test_float_gelu_steps), cmocka_unit_test(test_layernorm_chain),
        cmocka_unit_test(test_nhwc_gelu),        cmocka_unit_test(test_same_type_cast),
        cmocka_unit_test(test_wide_conv),        cmocka_unit_test(test_deep_conv),
        cmocka_unit_test(test_maxpool_borders),  cmocka_unit_test(test_nhwc_region),
        cmocka_unit_test(test_nhwc_maxpool_nan), cmocka_unit_test(test_omp_threads_kept),
        cmocka_unit_test(test_profile),          cmocka_unit_test(test_gemm),
        cmocka_unit_test(test_outer_ranges),     cmocka_unit_test(test_bad_input_and_fallback),
        cmocka_unit_test(test_lazy_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
