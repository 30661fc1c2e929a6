/* layers.c — built-in layers (PyTorch's Conv2d, BatchNorm2d, Linear, ...):
 * constructors with deterministic PyTorch-like initialisation, and their
 * lowering to get_attr parameters plus one call_function with ONNX
 * semantics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_int.h"

/* --- deterministic initialisation ------------------------------------------------ */

/* Seed of the k-th tensor of a layer built with seed (splitmix64 finaliser,
 * so nearby seeds give unrelated streams). */
static uint64_t sub_seed(uint64_t seed, uint64_t k) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (k + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Adds a float32 parameter filled uniformly in [lo, hi); false on failure
 * (the module is marked bad). */
static bool add_uniform(nnfx_module *m, const char *name, int rank, const int64_t *shape, uint64_t seed, float lo,
                        float hi) {
    nnfx_error e = {0};
    nnfx_tensor *t = nnfx_tensor_new(NNFX_F32, rank, shape, &e);
    if (!t) {
        trace_module_set_bad(m, "%s: cannot create parameter %s: %s", m->type_name, name, e.msg);
        return false;
    }
    nnfx_tensor_fill_uniform(t, seed, lo, hi);
    nnfx_status st = nnfx_module_add_param(m, name, t, &e);
    nnfx_tensor_release(t);
    if (st) trace_module_set_bad(m, "%s: cannot add parameter %s: %s", m->type_name, name, e.msg);
    return st == NNFX_OK;
}

/* --- constructors -------------------------------------------------------------- */

nnfx_module *nnfx_conv2d(int in_ch, int out_ch, int kernel, int stride, int padding, int dilation, int groups,
                         bool bias, uint64_t seed) {
    nnfx_module *m = trace_module_alloc("Conv2d", TL_CONV);
    if (!m) return NULL;
    m->cfg = (trace_layer_cfg){
        .kernel = kernel, .stride = stride, .padding = padding, .dilation = dilation, .groups = groups};
    if (in_ch <= 0 || out_ch <= 0 || kernel <= 0 || stride <= 0 || padding < 0 || dilation <= 0 || groups <= 0) {
        trace_module_set_bad(m,
                             "Conv2d(%d, %d, kernel=%d, stride=%d, padding=%d, dilation=%d, groups=%d): sizes must be "
                             "positive (padding >= 0)",
                             in_ch, out_ch, kernel, stride, padding, dilation, groups);
        return m;
    }
    if (in_ch % groups || out_ch % groups) {
        trace_module_set_bad(m, "Conv2d: in_channels (%d) and out_channels (%d) must be divisible by groups (%d)",
                             in_ch, out_ch, groups);
        return m;
    }
    /* kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in); the bias uses
     * the same bound, as PyTorch's reset_parameters does. */
    int64_t fan_in = (int64_t)(in_ch / groups) * kernel * kernel;
    float bound = (float)(1.0 / sqrt((double)fan_in));
    int64_t wshape[4] = {out_ch, in_ch / groups, kernel, kernel};
    int64_t bshape[1] = {out_ch};
    if (!add_uniform(m, "weight", 4, wshape, sub_seed(seed, 0), -bound, bound)) return m;
    if (bias) add_uniform(m, "bias", 1, bshape, sub_seed(seed, 1), -bound, bound);
    return m;
}

nnfx_module *nnfx_batchnorm2d(int channels, double eps, uint64_t seed) {
    nnfx_module *m = trace_module_alloc("BatchNorm2d", TL_BN);
    if (!m) return NULL;
    m->cfg.f = eps;
    if (channels <= 0 || !(eps > 0)) {
        trace_module_set_bad(m, "BatchNorm2d(%d, eps=%g): channels and eps must be positive", channels, eps);
        return m;
    }
    /* PyTorch starts with weight 1, bias 0, mean 0, var 1 — an identity that
     * would hide bugs; these are the statistics of a trained layer instead. */
    int64_t shape[1] = {channels};
    if (add_uniform(m, "weight", 1, shape, sub_seed(seed, 0), 0.75f, 1.25f) &&
        add_uniform(m, "bias", 1, shape, sub_seed(seed, 1), -0.1f, 0.1f) &&
        add_uniform(m, "running_mean", 1, shape, sub_seed(seed, 2), -0.1f, 0.1f))
        add_uniform(m, "running_var", 1, shape, sub_seed(seed, 3), 0.5f, 1.5f);
    return m;
}

nnfx_module *nnfx_linear(int in_features, int out_features, bool bias, uint64_t seed) {
    nnfx_module *m = trace_module_alloc("Linear", TL_LINEAR);
    if (!m) return NULL;
    if (in_features <= 0 || out_features <= 0) {
        trace_module_set_bad(m, "Linear(%d, %d): sizes must be positive", in_features, out_features);
        return m;
    }
    float bound = (float)(1.0 / sqrt((double)in_features));
    int64_t wshape[2] = {out_features, in_features};
    int64_t bshape[1] = {out_features};
    if (!add_uniform(m, "weight", 2, wshape, sub_seed(seed, 0), -bound, bound)) return m;
    if (bias) add_uniform(m, "bias", 1, bshape, sub_seed(seed, 1), -bound, bound);
    return m;
}

nnfx_module *nnfx_relu_layer(void) { return trace_module_alloc("ReLU", TL_RELU); }

nnfx_module *nnfx_leaky_relu_layer(double alpha) {
    nnfx_module *m = trace_module_alloc("LeakyReLU", TL_LEAKY);
    if (m) m->cfg.f = alpha;
    return m;
}

nnfx_module *nnfx_sigmoid_layer(void) { return trace_module_alloc("Sigmoid", TL_SIGMOID); }

nnfx_module *nnfx_maxpool2d(int kernel, int stride, int padding) {
    nnfx_module *m = trace_module_alloc("MaxPool2d", TL_MAXPOOL);
    if (!m) return NULL;
    /* stride 0 means "same as kernel", as in PyTorch's default */
    m->cfg = (trace_layer_cfg){.kernel = kernel, .stride = stride ? stride : kernel, .padding = padding};
    if (kernel <= 0 || stride < 0 || padding < 0 || padding * 2 > kernel)
        trace_module_set_bad(m,
                             "MaxPool2d(kernel=%d, stride=%d, padding=%d): bad sizes (padding at most half the kernel)",
                             kernel, stride, padding);
    return m;
}

nnfx_module *nnfx_adaptive_avgpool2d_1(void) { return trace_module_alloc("AdaptiveAvgPool2d", TL_GAP); }

nnfx_module *nnfx_flatten_layer(int start_dim) {
    nnfx_module *m = trace_module_alloc("Flatten", TL_FLATTEN);
    if (m) m->cfg.axis = start_dim;
    return m;
}

nnfx_module *nnfx_dropout_layer(double p) {
    nnfx_module *m = trace_module_alloc("Dropout", TL_DROPOUT);
    if (!m) return NULL;
    m->cfg.f = p;
    if (!(p >= 0 && p < 1)) trace_module_set_bad(m, "Dropout(p=%g): p must be in [0, 1)", p);
    return m;
}

/* --- lowering ------------------------------------------------------------------ */

nnfx_value *trace_layer_call(nnfx_ctx *ctx, nnfx_module *m, const char *path, nnfx_value *x, const char *file,
                             int line) {
    nnfx_value *in[5] = {x, NULL, NULL, NULL, NULL};
    const trace_layer_cfg *c = &m->cfg;
    switch (m->layer) {
    case TL_CONV: {
        int64_t k2[2] = {c->kernel, c->kernel}, s2[2] = {c->stride, c->stride}, d2[2] = {c->dilation, c->dilation};
        int64_t p4[4] = {c->padding, c->padding, c->padding, c->padding};
        nnfx_attr attrs[5] = {nnfx_attr_ints("kernel_shape", 2, k2), nnfx_attr_ints("strides", 2, s2),
                              nnfx_attr_ints("pads", 4, p4), nnfx_attr_ints("dilations", 2, d2),
                              nnfx_attr_int("group", c->groups)};
        int nin = 2;
        in[1] = trace_param(ctx, m, path, "weight", file, line);
        if (trace_module_own_param(m, "bias")) in[nin++] = trace_param(ctx, m, path, "bias", file, line);
        return trace_op(ctx, NNFX_OP_CONV, NULL, nin, in, 5, attrs, path, file, line);
    }
    case TL_BN: {
        static const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
        for (int i = 0; i < 4; i++)
            in[i + 1] = trace_param(ctx, m, path, names[i], file, line);
        nnfx_attr eps = nnfx_attr_float("epsilon", c->f);
        return trace_op(ctx, NNFX_OP_BATCH_NORM, NULL, 5, in, 1, &eps, path, file, line);
    }
    case TL_LINEAR: {
        int nin = 2;
        in[1] = trace_param(ctx, m, path, "weight", file, line);
        if (trace_module_own_param(m, "bias")) in[nin++] = trace_param(ctx, m, path, "bias", file, line);
        nnfx_attr tb = nnfx_attr_int("transB", 1);
        return trace_op(ctx, NNFX_OP_GEMM, "linear", nin, in, 1, &tb, path, file, line);
    }
    case TL_RELU: return trace_op(ctx, NNFX_OP_RELU, NULL, 1, in, 0, NULL, path, file, line);
    case TL_LEAKY: {
        nnfx_attr a = nnfx_attr_float("alpha", c->f);
        return trace_op(ctx, NNFX_OP_LEAKY_RELU, NULL, 1, in, 1, &a, path, file, line);
    }
    case TL_SIGMOID: return trace_op(ctx, NNFX_OP_SIGMOID, NULL, 1, in, 0, NULL, path, file, line);
    case TL_MAXPOOL: {
        int64_t k2[2] = {c->kernel, c->kernel}, s2[2] = {c->stride, c->stride};
        int64_t p4[4] = {c->padding, c->padding, c->padding, c->padding};
        nnfx_attr attrs[3] = {nnfx_attr_ints("kernel_shape", 2, k2), nnfx_attr_ints("strides", 2, s2),
                              nnfx_attr_ints("pads", 4, p4)};
        return trace_op(ctx, NNFX_OP_MAX_POOL, NULL, 1, in, 3, attrs, path, file, line);
    }
    case TL_GAP: return trace_op(ctx, NNFX_OP_GLOBAL_AVERAGE_POOL, NULL, 1, in, 0, NULL, path, file, line);
    case TL_FLATTEN: {
        nnfx_attr a = nnfx_attr_int("axis", c->axis);
        return trace_op(ctx, NNFX_OP_FLATTEN, NULL, 1, in, 1, &a, path, file, line);
    }
    case TL_DROPOUT: {
        /* inference: identity; the ratio is kept as ONNX's second input */
        in[1] = nnfx_v_scalar(ctx, c->f);
        return trace_op(ctx, NNFX_OP_DROPOUT, NULL, 2, in, 0, NULL, path, file, line);
    }
    case TL_USER: break;
    }
    trace_fail(ctx, NNFX_ERR_INVALID_ARG, "module %s is not a built-in layer", m->type_name);
    return NULL;
}
