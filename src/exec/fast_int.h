/* fast_int.h — the compiled executor built at recompile time: a static
 * memory plan over one activation arena, constant values resolved once,
 * convolutions with fused epilogues (bias, residual add, activation), and a
 * small thread pool for the kernels of our own. */
#ifndef NNFX_FAST_INT_H
#define NNFX_FAST_INT_H

#include <stdint.h>

#include "nnfx.h"

/* The compiled plan's auto-vectorised loops are compiled for AVX2 and the
 * baseline and picked at run time: CORE_ISA_VARIANTS (core/core_int.h). */

/* ---- thread pool (src/exec/thread_pool.c) ----------------------------- */

typedef struct fx_pool fx_pool;
/* One task: index `task` of a parallel loop, run by thread `tid`
 * (0 = the calling thread, < fx_pool_threads). */
typedef void (*fx_task_fn)(void *ctx, int64_t task, int tid);

/* A pool running loops on `threads` threads (the caller is one of them, so
 * threads - 1 workers are started). NULL on failure. */
fx_pool *fx_pool_new(int threads);
/* A pool whose loops run on the OpenMP threads oneDNN uses (fx_dnnl_parallel),
 * so that a plan with oneDNN steps keeps one set of threads: its own loops'
 * workers would otherwise compete for the cores with OpenMP's spinning ones.
 * NULL when threads < 2 or OpenMP is not there (then use fx_pool_new). */
fx_pool *fx_pool_new_omp(int threads);
void fx_pool_free(fx_pool *p);
int fx_pool_threads(const fx_pool *p);
/* Runs fn(ctx, t, tid) for t in [0, ntasks), spread over the pool's
 * threads; returns when every task is done. A NULL pool runs serially. The
 * partition into tasks is the caller's, so results never depend on the
 * number of threads. */
void fx_pool_run(fx_pool *p, int64_t ntasks, fx_task_fn fn, void *ctx);

/* ---- fused convolution (src/exec/kernels/conv_fast.c) ----------------- */

typedef enum fx_act {
    FX_ACT_NONE,
    FX_ACT_RELU,
    FX_ACT_CLIP,  /* min(max(x, lo), hi)          */
    FX_ACT_LEAKY, /* x < 0 ? alpha x : x          */
    FX_ACT_SIGMOID,
    FX_ACT_SILU,      /* x * sigmoid(x)               */
    FX_ACT_HARDSWISH, /* x * clip(x / 6 + 1/2, 0, 1)  */
    FX_ACT_TANH,
    FX_ACT_HARDSIGMOID,  /* clip(p0 x + p1, 0, 1): HardSigmoid's alpha, beta */
    FX_ACT_XHARDSIGMOID, /* x * clip(p0 x + p1, 0, 1): x * HardSigmoid(x)     */
} fx_act;

/* ---- fused activations (src/exec/kernels/act_fast.c) ------------------ */

/* Name of an activation ("relu", ...; "none"). */
const char *fx_act_name(fx_act a);
/* y[i] = act(y[i]) for i in [0, n); p0, p1: Clip's min and max, LeakyRelu's
 * alpha in p0. The meaning of each activation is its scalar definition in
 * src/rt/nnfx_rt_scalar.h (the interpreter's too): Relu, Clip,
 * LeakyRelu, HardSwish, HardSigmoid and x * HardSigmoid(x) (alpha in p0,
 * beta in p1) give exactly its values. Sigmoid and SiLU take a
 * faster equivalent (the AVX2 row of act_x86.c where the CPU has it, else
 * fx_sigmoid_fast), which tests/test_act.c checks against nnfx_rt_sigmoid /
 * nnfx_rt_silu over the float range: within 8 ulp, except where the meaning
 * is below 2^-125 (sigmoid) or 2^-118 (SiLU) in magnitude, which is the
 * bound on the absolute error there (x <= -87 gives sigmoid 0); NaN for
 * NaN; sigmoid 0 at -inf and within 1 ulp of 1 at +inf. Tanh takes
 * fx_tanh_fast's rational function (or the vector row of act_x86.c): within
 * 8 ulp of nnfx_rt_tanh everywhere, NaN for NaN. */
void fx_act_row(float *y, int64_t n, fx_act act, float p0, float p1);
/* The portable fast sigmoid: branch-free, vectorisable, error as above. */
float fx_sigmoid_fast(float x);
/* The portable fast tanh: x * P(x^2) / Q(x^2) on |x| clamped to 7.9988
 * (x itself below 0.0004), branch-free, error as above. */
float fx_tanh_fast(float x);
/* The compiled plan's erf: x * P(x^2) / Q(x^2) on x clamped to [-4, 4],
 * clamped to [-1, 1], branch-free; within 5e-7 of nnfx_rt_erf (libm's
 * erff) everywhere, NaN for NaN (tests/test_act.c). */
float fx_erf_fast(float x);
/* gelu false: y[i] = fx_erf_fast(x[i]); true: y[i] = (x[i] *
 * (fx_erf_fast(x[i] / c[0]) + c[1])) * c[2] (the exported GELU's steps,
 * each rounded as the graph rounds it, erf as above), for i in [0, n). x
 * and y may be the same buffer. */
void fx_erf_row(const float *x, float *y, int64_t n, const float *c, bool gelu);
/* Softmax over each of rows rows of n floats, x to y (distinct buffers, or
 * the same one): nnfx_rt_softmax itself, compiled for the host's vector
 * ISA (act_fast.c), so its values are the interpreter's and generated C's. */
void fx_softmax_rows(const float *x, float *y, int64_t rows, int64_t n);

/* A 2-d convolution prepared once: geometry, packed weights and bias, the
 * epilogue y = act(conv(x) + bias + residual). */
typedef struct fx_conv fx_conv;

/* Prepares conv node n over x of shape xshape [N, C, H, W] (float32) with
 * weight w [M, C/group, KH, KW] and optional bias b [M] (NULL); the window
 * attributes are read from n. Returns NULL with err set (status
 * NNFX_ERR_UNSUPPORTED) when this kernel does not handle the conv: the
 * generic kernel runs it then. */
fx_conv *fx_conv_new(const nnfx_node *n, const int64_t *xshape, const nnfx_tensor *w, const nnfx_tensor *b,
                     nnfx_error *err);
/* True when fx_conv_new would take the conv: the same checks, reading only
 * the shapes of w and b (their data is not touched). */
bool fx_conv_takes(const nnfx_node *n, const int64_t *xs, const nnfx_tensor *w, const nnfx_tensor *b);
void fx_conv_free(fx_conv *c);
void fx_conv_set_epilogue(fx_conv *c, fx_act act, float p0, float p1, bool residual);
/* Floats of per-thread scratch the conv needs. */
int64_t fx_conv_scratch_floats(const fx_conv *c);
/* Floats of scratch shared by all threads (a multiple of 16; 0 if none). */
int64_t fx_conv_shared_floats(const fx_conv *c);
/* Short description: "conv3x3/s1 gemm + bias + add + relu". */
void fx_conv_describe(const fx_conv *c, char *buf, size_t len);
/* y = act(conv(x) + bias + res); shapes were checked at build. scratch
 * holds fx_conv_shared_floats floats, then fx_pool_threads(pool) blocks of
 * fx_conv_scratch_floats floats (64-byte aligned). */
void fx_conv_run(const fx_conv *c, fx_pool *pool, const float *x, const float *res, float *y, float *scratch);

/* ---- max pooling (src/exec/kernels/pool_fast.c) ----------------------- */

typedef struct fx_maxpool fx_maxpool;
/* Prepares MaxPool node n (2-d, float32, one output) from x [N, C, H, W] to
 * y [N, C, OH, OW] (the inferred shapes). NULL with err set (status
 * NNFX_ERR_UNSUPPORTED) when the generic kernel should run it. */
fx_maxpool *fx_maxpool_new(const nnfx_node *n, const int64_t *xshape, const int64_t *yshape, nnfx_error *err);
void fx_maxpool_free(fx_maxpool *m);
void fx_maxpool_run(const fx_maxpool *m, fx_pool *pool, const float *x, float *y);
/* The same pool over channels-last values: x [N, H, W, C], y [N, OH, OW, C]
 * (the compiled plan's NHWC regions). */
void fx_maxpool_run_nhwc(const fx_maxpool *m, fx_pool *pool, const float *x, float *y);

/* ---- oneDNN convolution and pooling (src/exec/kernels/conv_dnnl.c) ----- */

/* A conv (with its fused epilogue) or pooling step run by oneDNN on
 * channels-last (NHWC) activations; the plan's values at its input, residual
 * and output are either NHWC or NCHW (fx_dnnl_set_layouts), NCHW ones are
 * reordered through the step's scratch. */
typedef struct fx_dnnl fx_dnnl;

/* True when the library was built with oneDNN, it initialised, the CPU has
 * AVX2 and FMA, and the environment says neither NNFX_CONV=own nor
 * NNFX_ISA=portable (NNFX_ISA=avx2 keeps oneDNN to its AVX2 kernels). */
bool fx_dnnl_enabled(void);
/* A conv step for node n from x [N, C, H, W] to y [N, M, OH, OW] (the
 * inferred shapes) with weight w [M, C/group, KH, KW] (a 3-d conv, group 1:
 * x [N, C, D, H, W], y [N, M, OD, OH, OW], w [M, C, KD, KH, KW], its
 * values always NCDHW in the plan; a 2-d ConvTranspose node, group 1: w
 * [C, M, KH, KW]), optional bias b, and
 * the epilogue y = act(conv(x) + b + res) (residual: a res input shaped like
 * y), for `threads` threads. Weights are copied into oneDNN's layout (w is
 * not kept). NULL with err set (NNFX_ERR_UNSUPPORTED: run our own kernel)
 * when oneDNN has no fast kernel for it. */
fx_dnnl *fx_dnnl_conv_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                          const nnfx_tensor *b, fx_act act, float p0, float p1, bool residual, int threads,
                          nnfx_error *err);
/* An AveragePool or GlobalAveragePool step for node n (2-d, one output, no
 * ceil_mode overhang or dilation); NULL with err set as above. MaxPool is
 * not offered: oneDNN's drops NaN taps where ONNX gives NaN. pad4 (or
 * NULL): the zero pads {top, left, bottom, right} of a Pad folded into an
 * AveragePool of no pads of its own (xs: the Pad's input), counted in
 * every window's divisor as the padded tensor's zeros were. */
fx_dnnl *fx_dnnl_pool_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const int64_t *pad4, int threads,
                          nnfx_error *err);
/* How the plan holds a 4-d value a oneDNN step reads or writes: NCHW (the
 * graph's), channels-last, or oneDNN's nChw8c / nChw16c (channel blocks of
 * 8 or 16, each [H, W, 8 or 16]; only for channel counts that are
 * multiples of the block, so no padding: an elementwise pass sees every
 * element once). */
typedef enum fx_layout { FX_LAYOUT_NCHW, FX_LAYOUT_NHWC, FX_LAYOUT_NCHW8C, FX_LAYOUT_NCHW16C } fx_layout;
/* Fixes the layouts of the plan's values the step reads and writes; a
 * value with one spatial position needs no NCHW / NHWC reorder either way.
 * A 2-d conv step (fx_dnnl_chains) with x or y blocked is built again
 * for blocked layouts (the rest reordered); n, w and b given to
 * fx_dnnl_conv_new must still be alive. Call once, before
 * fx_dnnl_scratch_bytes and fx_dnnl_run. */
nnfx_status fx_dnnl_set_layouts(fx_dnnl *d, fx_layout x, fx_layout res, fx_layout y, nnfx_error *err);
/* The channel block of values passed between two 2-d conv steps: 8
 * (FX_LAYOUT_NCHW8C) where oneDNN runs AVX2 kernels (no AVX-512, or
 * NNFX_ISA=avx2), 16 (FX_LAYOUT_NCHW16C) where it runs AVX-512 ones (its
 * blocked jit convs are faster than its channels-last ones on spatial
 * windows in both cases); 0, channels-last (no oneDNN, or
 * NNFX_DNNL_BLOCKED=0 in the environment). */
int fx_dnnl_block(void);
/* Whether oneDNN is on and runs its AVX2 kernels (no AVX-512, or
 * NNFX_ISA=avx2). */
bool fx_dnnl_avx2_engine(void);
/* Whether step d is a 2-d, group-1 Conv or ConvTranspose (not a pooling):
 * one that may read and write blocked values. */
bool fx_dnnl_chains(const fx_dnnl *d);
/* Bytes of scratch a run needs (oneDNN's scratchpad and reorder buffers). */
int64_t fx_dnnl_scratch_bytes(const fx_dnnl *d);
/* Short description for plan listings. */
const char *fx_dnnl_describe(const fx_dnnl *d);
/* Runs the step: y from x (and res when residual); scratch holds
 * fx_dnnl_scratch_bytes bytes, 64-byte aligned. */
nnfx_status fx_dnnl_run(fx_dnnl *d, const float *x, const float *res, float *y, void *scratch, nnfx_error *err);
void fx_dnnl_free(fx_dnnl *d);
/* Whether fx_dnnl_parallel can run (the build has oneDNN and its OpenMP). */
bool fx_dnnl_parallel_available(void);
/* Runs fn(arg, tid) on `threads` OpenMP threads (tid 0 the caller) and
 * returns when all are done. */
void fx_dnnl_parallel(int threads, void (*fn)(void *arg, int tid), void *arg);

/* ---- channels-last kernel steps (src/exec/kernels/nhwc.c) -------------- */

/* y = x op v (full_first; else v op x) for op Add, Sub, Mul or Div, where x
 * and y are [N, H, W, C] (n images of hw positions) and v holds C values
 * per image (v_shared: one set for all images). */
void fx_nhwc_channel_op(nnfx_op op, bool full_first, const float *x, const float *v, bool v_shared, int64_t n,
                        int64_t c, int64_t hw, float *y);
/* Concat over channels of nin float32 values held channels-last: y's shape
 * is [N, C0 + C1 + ..., H, W] (the NCHW shape), each in[a] [N, Ca, H, W]. */
void fx_nhwc_concat(int nin, const nnfx_tensor *const *in, nnfx_tensor *y);
/* The same Concat over values held in channel blocks (nChw8c or nChw16c,
 * every Ca a multiple of the block): each batch entry's channel blocks,
 * one input after another. */
void fx_blocked_concat(int nin, const nnfx_tensor *const *in, nnfx_tensor *y);

/* ---- the compiled plan (src/exec/fast_plan.c) ------------------------- */

typedef struct fx_plan fx_plan;

/* Compiles g (linted, shapes inferred) for `threads` threads. Returns NULL
 * with err set when the graph cannot be compiled (dynamic shapes, leaf
 * modules, non-float32 convs are fine but unknown dims are not):
 * NNFX_ERR_UNSUPPORTED then means "use the interpreter". */
fx_plan *fx_plan_new(const nnfx_graph *g, int threads, nnfx_error *err);
/* Peak bytes (activation arena + graph inputs) of the plan fx_plan_new
 * would build, without building its kernels: no weight is read (weights,
 * constants too large to be shape values and packed conv weights stay
 * untouched), no arena is allocated. -1 with err set (status
 * NNFX_ERR_UNSUPPORTED: the interpreter would run it) as fx_plan_new. */
int64_t fx_plan_layout_peak(const nnfx_graph *g, nnfx_error *err);
void fx_plan_free(fx_plan *p);
nnfx_status fx_plan_run(fx_plan *p, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                        nnfx_error *err);
/* Bytes of the activation arena plus the graph inputs. */
int64_t fx_plan_peak_bytes(const fx_plan *p);
/* Turns per-step timing on (counts cleared) or off for later runs of p.
 * NNFX_ERR_NOMEM when the counters cannot be allocated. */
nnfx_status fx_plan_set_profile(fx_plan *p, bool on);
/* The steps of p by time spent since profiling was turned on: ms per run,
 * share, and fx_plan_text's line for each, slowest first; malloc'd; NULL
 * when profiling is off or out of memory. */
char *fx_plan_profile_text(const fx_plan *p);

/* Listing of the compiled steps, one per line (malloc'd; NULL on OOM). */
char *fx_plan_text(const fx_plan *p);

/* ---- the split plan (src/exec/split_plan.c) ---------------------------- */

/* A graph whose static plan fx_plan_new declines because a node's output
 * size is known only at run time (NonZero, Unique, NonMaxSuppression...):
 * the nodes before such nodes run as one compiled plan, the data-dependent
 * nodes with their kernels, and the rest is compiled for the shapes they
 * produced (cached per shape). g (linted, shapes inferred) must outlive it.
 * NULL with err set (NNFX_ERR_UNSUPPORTED: use the interpreter) when the
 * graph has no such node, a graph input of unknown shape or a leaf
 * module. */
typedef struct fx_split fx_split;
fx_split *fx_split_new(const nnfx_graph *g, int threads, nnfx_error *err);
void fx_split_free(fx_split *sp);
nnfx_status fx_split_run(fx_split *sp, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                         nnfx_error *err);
/* Listing: the prefix plan, the data-dependent nodes, the rest's plan for
 * the latest shapes (malloc'd; NULL on OOM). */
char *fx_split_text(const fx_split *sp);
/* Turns timing on (counts cleared) or off for later runs of sp: the time
 * of its parts, and per step in its prefix and rest plans (rests built
 * later too). NNFX_ERR_NOMEM when the counters cannot be allocated. */
nnfx_status fx_split_set_profile(fx_split *sp, bool on);
/* The time per run of the prefix, the data-dependent nodes and the rest,
 * then the prefix's and the latest rest's step profiles (fx_plan_profile_text);
 * malloc'd; NULL when profiling is off or out of memory. */
char *fx_split_profile_text(const fx_split *sp);

#endif
