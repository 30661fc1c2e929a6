/* seed_models.c — the models of the seed workflows, written the way a user
 * writes a model in C: a module tree of built-in layers plus forward
 * functions over nnfx_values (see seed_models.h). */
#include <stdio.h>

#include "seed_models.h"

/* Flags read by forward functions through the module's user pointer. */
static const bool k_true = true, k_false = false;
static void *flag_ptr(bool on) { return (void *)(on ? &k_true : &k_false); }
static bool flag_of(nnfx_module *m) { return *(const bool *)nnfx_module_user(m); }

/* Adds child under name; returns false (after the module freed it) on failure. */
static bool add(nnfx_module *parent, const char *name, nnfx_module *child) {
    return nnfx_module_add(parent, name, child) != NULL;
}

/* --- Sequential --------------------------------------------------------------- */

static nnfx_value *sequential_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_value *x = in[0];
    for (int i = 0; i < nnfx_module_num_children(self) && x; i++)
        x = nnfx_call(ctx, nnfx_module_child_at(self, i), x);
    return x;
}

nnfx_module *trace_seed_sequential(void) {
    nnfx_module *m = nnfx_module_new("Sequential", sequential_forward, NULL);
    if (m) nnfx_module_set_inputs(m, 1, NULL, NULL);
    return m;
}

/* --- SimpleNet ------------------------------------------------------------------ */

/* user flag: true when the forward skips the pooling layer (the seed bug) */
static nnfx_value *simplenet_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_value *x = nnfx_call(ctx, nnfx_module_child(self, "conv"), in[0]);
    nnfx_module *bn = nnfx_module_child(self, "bn");
    if (bn) x = nnfx_call(ctx, bn, x);
    x = nnfx_call(ctx, nnfx_module_child(self, "relu"), x);
    if (!flag_of(self)) x = nnfx_call(ctx, nnfx_module_child(self, "pool"), x);
    x = nnfx_call(ctx, nnfx_module_child(self, "flatten"), x);
    return nnfx_call(ctx, nnfx_module_child(self, "fc"), x);
}

nnfx_module *trace_seed_simplenet(uint64_t seed, const trace_seed_simplenet_opts *opts) {
    trace_seed_simplenet_opts o = {0};
    if (opts) o = *opts;
    nnfx_module *m = nnfx_module_new("SimpleNet", simplenet_forward, flag_ptr(o.skip_pool));
    if (!m) return NULL;
    bool ok = nnfx_module_set_inputs(m, 1, NULL, NULL) == NNFX_OK;
    ok = ok && add(m, "conv", nnfx_conv2d(3, 16, 3, 1, 0, 1, 1, true, seed * 16 + 1));
    if (!o.no_bn) ok = ok && add(m, "bn", nnfx_batchnorm2d(16, 1e-5, seed * 16 + 2));
    ok = ok && add(m, "relu", o.leaky > 0 ? nnfx_leaky_relu_layer(o.leaky) : nnfx_relu_layer());
    ok = ok && add(m, "pool", nnfx_adaptive_avgpool2d_1());
    ok = ok && add(m, "flatten", nnfx_flatten_layer(1));
    ok = ok && add(m, "fc", nnfx_linear(16, 10, true, seed * 16 + 3));
    if (!ok) {
        nnfx_module_free(m);
        return NULL;
    }
    return m;
}

/* --- the sigmoid MLP --------------------------------------------------------------- */

/* user flag: true for clip(x, 0, 1) instead of sigmoid */
static nnfx_value *mlp_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_value *x = nnfx_call(ctx, nnfx_module_child(self, "fc1"), in[0]);
    x = nnfx_call(ctx, nnfx_module_child(self, "relu"), x);
    x = nnfx_call(ctx, nnfx_module_child(self, "fc2"), x);
    if (!flag_of(self)) return nnfx_call(ctx, nnfx_module_child(self, "sigmoid"), x);
    nnfx_value *args[3] = {x, nnfx_v_scalar(ctx, 0.0), nnfx_v_scalar(ctx, 1.0)};
    return nnfx_v_op(ctx, NNFX_OP_CLIP, 3, args, 0, NULL);
}

nnfx_module *trace_seed_sigmoid_mlp(uint64_t seed, bool clip) {
    nnfx_module *m = nnfx_module_new("SigmoidMLP", mlp_forward, flag_ptr(clip));
    if (!m) return NULL;
    bool ok = nnfx_module_set_inputs(m, 1, NULL, NULL) == NNFX_OK;
    ok = ok && add(m, "fc1", nnfx_linear(10, 5, true, seed * 16 + 1));
    ok = ok && add(m, "relu", nnfx_relu_layer());
    ok = ok && add(m, "fc2", nnfx_linear(5, 1, true, seed * 16 + 2));
    if (!clip) ok = ok && add(m, "sigmoid", nnfx_sigmoid_layer());
    if (!ok) {
        nnfx_module_free(m);
        return NULL;
    }
    return m;
}

/* --- data-dependent control flow ------------------------------------------------------ */

static int g_item_line;

static nnfx_value *branchy_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_attr keep = nnfx_attr_int("keepdims", 0);
    nnfx_value *s = nnfx_v_op(ctx, NNFX_OP_REDUCE_SUM, 1, in, 1, &keep);
    double total = 0;
    g_item_line = __LINE__ + 1;
    if (nnfx_v_item(ctx, s, &total)) return NULL; /* tracing stops here */
    if (total > 0) return nnfx_v_relu(ctx, in[0]);
    return nnfx_v_unary_at(ctx, NNFX_OP_NEG, in[0], __FILE__, __LINE__);
}

nnfx_module *trace_seed_branchy(void) {
    nnfx_module *m = nnfx_module_new("Branchy", branchy_forward, NULL);
    if (m) nnfx_module_set_inputs(m, 1, NULL, NULL);
    return m;
}

int trace_seed_branchy_item_line(void) {
    /* the line is recorded when the forward first runs; it is fixed, so
     * report it even before any run */
    return g_item_line ? g_item_line : -1;
}

/* --- the benchmark chain -------------------------------------------------------------- */

static nnfx_value *block_forward(nnfx_module *self, nnfx_ctx *ctx, int nin, nnfx_value *const *in) {
    nnfx_value *y = nnfx_call(ctx, nnfx_module_child(self, "conv"), in[0]);
    y = nnfx_call(ctx, nnfx_module_child(self, "bn"), y);
    y = nnfx_v_sigmoid(ctx, nnfx_v_relu(ctx, y));
    return nnfx_v_mul(ctx, y, in[0]);
}

nnfx_module *trace_seed_chain(int nblocks, uint64_t seed) {
    if (nblocks < 0) return NULL;
    nnfx_module *m = trace_seed_sequential();
    if (!m) return NULL;
    nnfx_module *root = nnfx_module_new("Chain", sequential_forward, NULL);
    if (!root || !add(root, "layers", m)) {
        if (!root) nnfx_module_free(m);
        nnfx_module_free(root);
        return NULL;
    }
    nnfx_module_set_inputs(root, 1, NULL, NULL);
    for (int i = 0; i < nblocks; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        nnfx_module *b = nnfx_module_new("Block", block_forward, NULL);
        bool ok = b && add(m, name, b);
        ok = ok && nnfx_module_set_inputs(b, 1, NULL, NULL) == NNFX_OK;
        ok = ok && add(b, "conv", nnfx_conv2d(4, 4, 1, 1, 0, 1, 1, true, seed * 1000003u + (uint64_t)i * 2));
        ok = ok && add(b, "bn", nnfx_batchnorm2d(4, 1e-5, seed * 1000003u + (uint64_t)i * 2 + 1));
        if (!ok) {
            nnfx_module_free(root);
            return NULL;
        }
    }
    return root;
}
