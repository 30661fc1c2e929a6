/* seed_models.h — the small models of the seed workflows (SimpleNet, the
 * sigmoid MLP, a forward with data-dependent control flow, the benchmark
 * chain), shared by examples/, the `nnfx demo` command, tests and benches.
 * Internal: not part of the public API. Every builder returns a module tree
 * owned by the caller (nnfx_module_free), or NULL when out of memory.
 * Parameters depend only on seed and the layer's role, so variants built
 * with the same seed share the weights of the layers they have in common. */
#ifndef NNFX_SEED_MODELS_H
#define NNFX_SEED_MODELS_H

#include "nnfx.h"

/* Variants of SimpleNet. */
typedef struct trace_seed_simplenet_opts {
    bool no_bn;     /* drop the BatchNorm2d layer                      */
    bool skip_pool; /* define the pooling layer but do not call it
                       (the seed article's shape bug)                  */
    double leaky;   /* > 0: LeakyReLU(leaky) instead of ReLU           */
} trace_seed_simplenet_opts;

/* SimpleNet: conv(3->16, k3) -> bn -> relu -> adaptive avg pool(1) ->
 * flatten -> linear(16->10); children conv, bn, relu, pool, flatten, fc.
 * opts may be NULL (the plain model). Input: float32 [N, 3, H, W]. */
nnfx_module *trace_seed_simplenet(uint64_t seed, const trace_seed_simplenet_opts *opts);

/* The sigmoid MLP: fc1 linear(10->5) -> relu -> fc2 linear(5->1) -> sigmoid.
 * With clip, the last step is clip(x, 0, 1) of fc2's output instead (what
 * the seed's sigmoid -> clamp rewrite meant). Input: float32 [N, 10]. */
nnfx_module *trace_seed_sigmoid_mlp(uint64_t seed, bool clip);

/* A forward with data-dependent control flow:
 *     if (item(reduce_sum(x)) > 0) return relu(x); else return neg(x);
 * Runs eagerly; tracing it fails with the control-flow trace error. The
 * line of the item() call is trace_seed_branchy_item_line(). */
nnfx_module *trace_seed_branchy(void);
int trace_seed_branchy_item_line(void);

/* The benchmark chain: `layers` (a Sequential) of nblocks blocks, each
 *     x = sigmoid(relu(bn(conv1x1_4to4(x)))) * x
 * Input: float32 [N, 4, H, W]. */
nnfx_module *trace_seed_chain(int nblocks, uint64_t seed);

/* A Sequential container: calls its children in insertion order. */
nnfx_module *trace_seed_sequential(void);

#endif
