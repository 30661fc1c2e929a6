/* conv_dnnl.c — convolutions and average poolings of the compiled plan run by
 * oneDNN (Debian's libdnnl): its JIT kernels (brgemm convolutions on
 * AVX-512, jit:avx2 on AVX2 hosts) take 0.55-0.85x of our own kernels' time
 * on the convs of resnet18 and mobilenet_v2 (bench/run_conv_libs.sh), when
 * activations are channels-last (NHWC). The plan (fast_plan.c) keeps a
 * value channels-last between such steps when every reader of it takes
 * that layout; a step whose input or output value is in the graph's NCHW
 * reorders it through its scratch. Where oneDNN runs its AVX2 kernels
 * (no AVX-512, or NNFX_ISA=avx2), jit:avx2 is faster on nChw8c than on
 * NHWC (espcn's 64 -> 32 3x3 conv at 224x224: about 0.7x the time), so a
 * value passed between 2-d convs and ConvTransposes (group 1) only, or
 * through a MaxPool or channel Concat between them (plan_layout.c's
 * plan_blocked), of a multiple of 8 channels, is kept nChw8c and the steps
 * are built for it
 * (fx_dnnl_block; NNFX_DNNL_BLOCKED=0 turns it off). Where it runs its
 * AVX-512 kernels, jit:avx512_core on nChw16c is as fast as or faster
 * than brgconv on NHWC for spatial convs of 32 channels or more (espcn's
 * 64 -> 32 conv: 0.91x, fcn_resnet50's 2048 -> 512 head: 0.8x) and slower
 * for 16 (U-Net's first level): values of a multiple of 16 channels, 32
 * or more, chain nChw16c there. The bias and residual add are fused
 * (bias and a sum post-op); the activation runs after the primitive over
 * the output (fx_act_row: oneDNN's eltwise post-ops turn NaN into 0), so
 * the meaning is conv_fast.c's: y = act(conv(x) + bias + res); results
 * differ from it only by float
 * summation order (tests/test_fast_exec.c compares both with the
 * interpreter). 3-d convs (group 1) run in the blocked layouts oneDNN
 * picks, reordered from and to the plan's NCDHW values every step; a 2-d
 * ConvTranspose (group 1) is oneDNN's deconvolution, its end pads derived
 * from the inferred output size (output_padding, output_shape); one whose
 * window equals its stride with no pads (U-Net's 2x2/s2 upsampling: no
 * output gets two taps) is a 1x1 conv to KH*KW*M channels into scratch,
 * shuffled into y after (oneDNN's deconvolution took several times as
 * long with its AVX2 kernels, 2-4x with its AVX-512 ones: U-Net's three
 * upsamplings). Built only when oneDNN is found (NNFX_HAVE_DNNL);
 * NNFX_CONV=own in the environment turns it off at run time, NNFX_ISA=avx2
 * keeps it to its AVX2 kernels and NNFX_ISA=portable turns it off. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "exec/fast_int.h"
#include "ir/infer_int.h"

#ifdef NNFX_HAVE_DNNL
#include <dnnl.h>

/* OpenMP (libgomp, oneDNN's threading runtime in Debian): the thread count,
 * and a parallel region by libgomp's entry point (what `#pragma omp
 * parallel` compiles to), declared here so that neither -fopenmp nor a
 * compiler's omp.h is needed. */
extern void omp_set_num_threads(int n);
extern int omp_get_max_threads(void);
extern int omp_get_thread_num(void);
extern void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

typedef struct par_job {
    void (*fn)(void *arg, int tid);
    void *arg;
} par_job;

static void par_body(void *data) {
    const par_job *j = data;
    j->fn(j->arg, omp_get_thread_num());
}

bool fx_dnnl_parallel_available(void) { return true; }

void fx_dnnl_parallel(int threads, void (*fn)(void *arg, int tid), void *arg) {
    par_job j = {fn, arg};
    GOMP_parallel(par_body, &j, (unsigned)threads, 0);
}

struct fx_dnnl {
    bool conv;
    int64_t n, c, h, w, m, oh, ow;
    int64_t dd, od; /* depths of a 3-d conv's x and y (1: 2-d) */
    bool blocked;   /* 3-d: the primitive's layouts, x and y always reordered */
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    dnnl_memory_t src, dst, wts, bias, pad;  /* the primitive's (channels-last activations) */
    dnnl_primitive_t x_re, r_re, y_re;       /* NCHW -> NHWC (x, res into dst), NHWC -> NCHW (y), or NULL */
    dnnl_memory_t x_plain, r_plain, y_plain; /* the plan's NCHW values, when reordered */
    int64_t pad_bytes, x_off, y_off, scratch_bytes;
    bool residual;
    bool chains;           /* a 2-d group-1 Conv or ConvTranspose: may be built again for nChw8c values (set_layouts) */
    const nnfx_node *node; /* chains: what fx_dnnl_conv_new was given (alive until set_layouts) */
    int64_t xs[4], ys[4];  /* chains: x and y shapes */
    const nnfx_tensor *wt, *bt; /* chains: weights and bias */
    fx_layout xl, rl, yl;
    bool shuffle; /* a ConvTranspose of window = stride run as a 1x1 conv to kh*kw*m channels, then shuffled */
    fx_layout tl; /* shuffle: the 1x1 conv's output's (scratch at y_off): blocked (fx_dnnl_block) or NHWC */
    int64_t kh, kw; /* shuffle: the window */ /* the plan's layouts of x, res and y */
    fx_act act; /* applied by fx_act_row after the primitive, not as a post-op: oneDNN's turn NaN into 0 */
    float p0, p1;
    int threads;
    char what[160], impl[40];
};

static dnnl_engine_t g_engine;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
/* The engine, under NNFX_ISA's switch (core/cpu.c) like our own paths: none
 * without AVX2 and FMA (NNFX_ISA=portable, or an older CPU), and AVX2
 * kernels only when our AVX-512 paths are off (NNFX_ISA=avx2). */
static void engine_init(void) {
    g_engine = NULL;
    if (!core_cpu_avx2_fma()) return;
    if (!core_cpu_avx512f()) dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2);
    if (dnnl_engine_create(&g_engine, dnnl_cpu, 0) != dnnl_success) g_engine = NULL;
}

/* The engine (created once per process), or NULL when oneDNN is unusable. */
static dnnl_engine_t engine(void) {
    pthread_once(&g_engine_once, engine_init);
    return g_engine;
}

bool fx_dnnl_enabled(void) {
    const char *e = getenv("NNFX_CONV");
    if (e && strcmp(e, "own") == 0) return false;
    return engine() != NULL;
}

/* Sets the calling thread's OpenMP thread count (what oneDNN sizes its
 * kernels and parallel regions by) and returns the previous one, which the
 * caller restores: a program using OpenMP itself keeps its own setting. */
static int set_threads(int threads) {
    int prev = omp_get_max_threads();
    if (prev != threads) omp_set_num_threads(threads);
    return prev;
}

static void restore_threads(int prev) {
    if (omp_get_max_threads() != prev) omp_set_num_threads(prev);
}

void fx_dnnl_free(fx_dnnl *d) {
    if (!d) return;
    dnnl_primitive_t prims[] = {d->prim, d->x_re, d->r_re, d->y_re};
    for (size_t k = 0; k < sizeof prims / sizeof *prims; k++)
        if (prims[k]) dnnl_primitive_destroy(prims[k]);
    dnnl_memory_t mems[] = {d->src, d->dst, d->wts, d->bias, d->pad, d->x_plain, d->r_plain, d->y_plain};
    for (size_t k = 0; k < sizeof mems / sizeof *mems; k++)
        if (mems[k]) dnnl_memory_destroy(mems[k]);
    if (d->stream) dnnl_stream_destroy(d->stream);
    free(d);
}

/* Whether [a, b, c, d] floats (and that many again for a reorder) stay far
 * inside int64 byte counts; the arena's own budget check comes later. */
static bool sane_dims(const int64_t *s) {
    int64_t n = 1;
    for (int i = 0; i < 4; i++)
        if (s[i] < 1 || __builtin_mul_overflow(n, s[i], &n) || n > ((int64_t)1 << 56)) return false;
    return true;
}

static fx_dnnl *refuse(fx_dnnl *d, nnfx_error *err, const char *why) {
    fx_dnnl_free(d);
    nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "oneDNN: %s", why);
    return NULL;
}

static void md4(dnnl_memory_desc_t *md, int64_t a, int64_t b, int64_t c, int64_t d, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {a, b, c, d};
    dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, tag);
}

static dnnl_format_tag_t tag_of(fx_layout l) {
    return l == FX_LAYOUT_NCHW16C  ? dnnl_nChw16c
           : l == FX_LAYOUT_NCHW8C ? dnnl_nChw8c
           : l == FX_LAYOUT_NHWC   ? dnnl_nhwc
                                   : dnnl_nchw;
}

static bool is_blocked(fx_layout l) { return l == FX_LAYOUT_NCHW8C || l == FX_LAYOUT_NCHW16C; }

/* The blocked tag of this host's chains (fx_dnnl_block). */
static dnnl_format_tag_t blocked_tag(void) { return fx_dnnl_block() == 16 ? dnnl_nChw16c : dnnl_nChw8c; }

/* The plan's layout l of x (out false: [n, c, h, w]) or y ([n, m, oh,
 * ow]); NCDHW for a 3-d conv. */
static void plain_md(const fx_dnnl *d, bool out, fx_layout l, dnnl_memory_desc_t *md) {
    int64_t ch = out ? d->m : d->c, dp = out ? d->od : d->dd, h = out ? d->oh : d->h, w = out ? d->ow : d->w;
    if (d->blocked) {
        dnnl_dims_t dims = {d->n, ch, dp, h, w};
        dnnl_memory_desc_init_by_tag(md, 5, dims, dnnl_f32, dnnl_ncdhw);
    } else {
        md4(md, d->n, ch, h, w, tag_of(l));
    }
}

/* A memory of md without storage (its handle is set per run). */
static dnnl_memory_t view_of(const dnnl_memory_desc_t *md) {
    dnnl_memory_t m = NULL;
    return dnnl_memory_create(&m, md, engine(), DNNL_MEMORY_NONE) == dnnl_success ? m : NULL;
}

/* The primitive from pd (destroyed here) with its memories and stream;
 * false on failure. */
static bool finish(fx_dnnl *d, dnnl_primitive_desc_t pd) {
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    snprintf(d->impl, sizeof d->impl, "%s", impl ? impl : "?");
    const dnnl_memory_desc_t *pad_md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    d->pad_bytes = pad_md ? (int64_t)dnnl_memory_desc_get_size(pad_md) : 0;
    bool ok = dnnl_primitive_create(&d->prim, pd) == dnnl_success &&
              dnnl_stream_create(&d->stream, engine(), dnnl_stream_default_flags) == dnnl_success &&
              (d->src = view_of(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0))) &&
              (d->dst = view_of(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0))) &&
              (!d->pad_bytes || (d->pad = view_of(pad_md)));
    dnnl_primitive_desc_destroy(pd);
    return ok;
}

/* Sets attr's post-ops: the residual add (the activation runs after the
 * primitive, fx_act_row: oneDNN's eltwise post-ops turn NaN into 0, the
 * plan's Relu keeps it). */
static bool set_post_ops(dnnl_primitive_attr_t attr, bool residual) {
    dnnl_post_ops_t po = NULL;
    if (dnnl_post_ops_create(&po) != dnnl_success) return false;
    bool good = true;
    /* the residual is copied into dst before the conv adds to it: the
     * brgemm kernels take a sum post-op, not a full-tensor binary one */
    if (residual) good = dnnl_post_ops_append_sum(po, 1.0f) == dnnl_success;
    if (good) good = dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    dnnl_post_ops_destroy(po);
    return good;
}

/* The primitive descriptor of op_desc (a conv or pooling description) with
 * a user scratchpad and d's residual add as a post-op; NULL when oneDNN has
 * no implementation for it. */
static dnnl_primitive_desc_t primitive_desc(const fx_dnnl *d, const void *op_desc) {
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    if (dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
    if (dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success ||
        !set_post_ops(attr, d->residual) ||
        dnnl_primitive_desc_create(&pd, op_desc, attr, engine(), NULL) != dnnl_success)
        pd = NULL;
    dnnl_primitive_attr_destroy(attr);
    return pd;
}

/* The window of conv (or ConvTranspose: tr) node n into *win, checked
 * against the inferred shapes; *sh: a ConvTranspose whose window equals its
 * stride with no pads, dilation or output padding (no overlap). */
static nnfx_status read_window(const nnfx_node *n, int nsp, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                               const nnfx_tensor *b, const int64_t *k, const int64_t *in_sp, ir_window *pw, bool *sh,
                               nnfx_error *err) {
    bool tr = nnfx_node_is_op(n, NNFX_OP_CONV_TRANSPOSE);
    int64_t group = ir_attr_int(n, "group");
    ir_window win = {0};
    if (tr) {
        ir_convt ct;
        if (nsp != 2 || group != 1 || w->shape[0] != xs[1] || ys[1] != w->shape[1] || (b && b->shape[0] != ys[1]) ||
            ys[0] != xs[0])
            return refuse(NULL, err, "2-d ConvTranspose of group 1 only"), err->status;
        if (ir_convt_plan(n, nsp, k, in_sp, &ct, err)) return err->status;
        *sh = true;
        for (int i = 0; i < nsp; i++) { /* end pads from the output size (output_padding, output_shape) */
            win.s[i] = ct.s[i], win.d[i] = ct.d[i], win.pb[i] = ct.pb[i];
            win.pe[i] = (in_sp[i] - 1) * ct.s[i] + (k[i] - 1) * ct.d[i] + 1 - ct.pb[i] - ys[2 + i];
            if (ct.out[i] != ys[2 + i] || win.pb[i] < 0 || win.pe[i] < 0)
                return refuse(NULL, err, "window does not fit"), err->status;
            *sh = *sh && k[i] == ct.s[i] && ct.d[i] == 1 && win.pb[i] == 0 && win.pe[i] == 0;
        }
    } else {
        if (ir_window_read(n, nsp, k, in_sp, &win, err)) return err->status;
        if (group < 1 || w->shape[0] % group || w->shape[1] * group != xs[1] || ys[1] != w->shape[0] ||
            (b && b->shape[0] != w->shape[0]) || ys[0] != xs[0] || (nsp == 3 && group != 1))
            return refuse(NULL, err, "shapes do not fit"), err->status;
        for (int i = 0; i < nsp; i++) /* the window oneDNN computes must be ONNX's */
            if ((in_sp[i] + win.pb[i] + win.pe[i] - (k[i] - 1) * win.d[i] - 1) / win.s[i] + 1 != ys[2 + i] ||
                win.pb[i] < 0 || win.pe[i] < 0)
                return refuse(NULL, err, "window does not fit"), err->status;
    }
    *pw = win;
    return NNFX_OK;
}

/* Reorders the weights wdata (layout wt_user) once into pd's layout, and
 * copies the bias bdata (nb floats, or NULL); false on failure. */
static bool load_weights(fx_dnnl *d, dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *wt_user, const void *wdata,
                         const float *bdata, int64_t nb) {
    const dnnl_memory_desc_t *wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_t wu = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t re = NULL;
    bool wok = dnnl_memory_create(&d->wts, wmd, engine(), DNNL_MEMORY_ALLOCATE) == dnnl_success &&
               dnnl_memory_create(&wu, wt_user, engine(), (void *)wdata) == dnnl_success &&
               dnnl_reorder_primitive_desc_create(&rpd, wt_user, engine(), wmd, engine(), NULL) == dnnl_success &&
               dnnl_primitive_create(&re, rpd) == dnnl_success;
    if (wok) {
        dnnl_stream_t s = NULL;
        dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, wu}, {DNNL_ARG_TO, d->wts}};
        wok = dnnl_stream_create(&s, engine(), dnnl_stream_default_flags) == dnnl_success &&
              dnnl_primitive_execute(re, s, 2, a) == dnnl_success && dnnl_stream_wait(s) == dnnl_success;
        if (s) dnnl_stream_destroy(s);
    }
    if (re) dnnl_primitive_destroy(re);
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    if (wu) dnnl_memory_destroy(wu);
    if (wok && bdata) {
        dnnl_memory_desc_t bias;
        dnnl_dims_t bd = {nb};
        dnnl_memory_desc_init_by_tag(&bias, 1, bd, dnnl_f32, dnnl_a);
        wok = dnnl_memory_create(&d->bias, &bias, engine(), DNNL_MEMORY_ALLOCATE) == dnnl_success;
        void *h = NULL;
        if (wok && dnnl_memory_get_data_handle(d->bias, &h) == dnnl_success && h)
            memcpy(h, bdata, (size_t)nb * sizeof(float));
        else
            wok = false;
    }
    return wok;
}

/* For a shuffled ConvTranspose (w [C, M, KH, KW], bias b or NULL): the
 * 1x1 conv's weights [KH*KW*M, C] (row (i*KW + j)*M + m is w[:, m, i, j])
 * and bias (b repeated), in one new buffer: weights, then bias. */
static float *shuffle_weights(const nnfx_tensor *w, const nnfx_tensor *b) {
    int64_t c = w->shape[0], m = w->shape[1], kk = w->shape[2] * w->shape[3];
    float *t = malloc((size_t)(kk * m * (c + 1)) * sizeof(float));
    if (!t) return NULL;
    const float *wd = w->data;
    for (int64_t q = 0; q < kk; q++)
        for (int64_t o = 0; o < m; o++) {
            for (int64_t i = 0; i < c; i++)
                t[(q * m + o) * c + i] = wd[(i * m + o) * kk + q];
            t[kk * m * c + q * m + o] = b ? ((const float *)b->data)[o] : 0.0f;
        }
    return t;
}

/* The conv step (fx_dnnl_conv_new); bx, by: x, y blocked (nChw8c or
 * nChw16c: fx_dnnl_block; a 2-d
 * group-1 Conv only), the other of the two in the layout oneDNN picks;
 * shuffle_ok: a ConvTranspose of window = stride may run as a 1x1 conv to
 * KH*KW*M channels (oneDNN's deconvolution is several times slower there)
 * whose output is shuffled into y after. */
static fx_dnnl *conv_build(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                           const nnfx_tensor *b, fx_act act, float p0, float p1, bool residual, int threads, bool bx,
                           bool by, bool shuffle_ok, nnfx_error *err) {
    if (!w || w->dtype != NNFX_F32 || (w->rank != 4 && w->rank != 5) || (b && (b->dtype != NNFX_F32 || b->rank != 1)))
        return refuse(NULL, err, "2-d or 3-d float32 weights only");
    int nsp = w->rank - 2; /* 3: xs and ys have five dims [N, C, D, H, W] */
    int64_t xf[4] = {xs[0], xs[1], xs[2], xs[3]}, yf[4] = {ys[0], ys[1], ys[2], ys[3]};
    if (nsp == 3) xf[2] = xs[2] * xs[3], xf[3] = xs[4], yf[2] = ys[2] * ys[3], yf[3] = ys[4];
    if (!sane_dims(xf) || !sane_dims(yf)) return refuse(NULL, err, "empty or huge activations");
    int64_t k[3], in_sp[3];
    for (int i = 0; i < nsp; i++)
        k[i] = w->shape[2 + i], in_sp[i] = xs[2 + i];
    bool tr = nnfx_node_is_op(n, NNFX_OP_CONV_TRANSPOSE); /* w [C, M, KH, KW], group 1, 2-d */
    ir_window win = {0};
    int64_t group = ir_attr_int(n, "group");
    bool sh = false; /* a ConvTranspose of window = stride, no pads: a 1x1 conv and a shuffle */
    if (read_window(n, nsp, xs, ys, w, b, k, in_sp, &win, &sh, err)) return NULL;
    sh = sh && shuffle_ok && !residual;
    fx_dnnl *d = calloc(1, sizeof *d);
    if (!d) return refuse(NULL, err, "out of memory");
    int o = nsp - 2; /* H and W sit o dims further in a 3-d conv */
    *d = (fx_dnnl){.conv = true,
                   .n = xs[0],
                   .c = xs[1],
                   .h = xs[2 + o],
                   .w = xs[3 + o],
                   .m = ys[1],
                   .oh = ys[2 + o],
                   .ow = ys[3 + o],
                   .dd = o ? xs[2] : 1,
                   .od = o ? ys[2] : 1,
                   .blocked = o > 0};
    d->residual = residual;
    d->act = act, d->p0 = p0, d->p1 = p1;
    d->threads = threads;
    d->chains = nsp == 2 && group == 1;
    if (d->chains) {
        d->node = n, d->wt = w, d->bt = b;
        memcpy(d->xs, xs, sizeof d->xs), memcpy(d->ys, ys, sizeof d->ys);
    }
    d->xl = d->rl = d->yl = FX_LAYOUT_NHWC;
    dnnl_memory_desc_t src, dst, wt, bias, wt_user;
    bool blk = d->chains && (bx || by); /* blocked where asked, oneDNN's pick for the other */
    dnnl_format_tag_t bt = blocked_tag();
    md4(&src, d->n, d->c, d->h, d->w, blk ? (bx ? bt : dnnl_format_tag_any) : dnnl_nhwc);
    md4(&dst, d->n, d->m, d->oh, d->ow, blk ? (by ? bt : dnnl_format_tag_any) : dnnl_nhwc);
    if (nsp == 3) { /* blocked layouts of the primitive's choice, reordered from and to NCDHW per run */
        dnnl_dims_t xd = {d->n, d->c, d->dd, d->h, d->w}, yd = {d->n, d->m, d->od, d->oh, d->ow};
        dnnl_dims_t wd = {d->m, d->c, k[0], k[1], k[2]};
        dnnl_memory_desc_init_by_tag(&src, 5, xd, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&dst, 5, yd, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&wt, 5, wd, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&wt_user, 5, wd, dnnl_f32, dnnl_oidhw);
    } else if (sh) { /* x [N, C, H, W] -> t [N, KH*KW*M, H, W] by a 1x1 conv */
        md4(&src, d->n, d->c, d->h, d->w, bx ? bt : dnnl_nhwc);
        md4(&dst, d->n, k[0] * k[1] * d->m, d->h, d->w, bx ? bt : dnnl_nhwc);
        md4(&wt, k[0] * k[1] * d->m, d->c, 1, 1, dnnl_format_tag_any);
        md4(&wt_user, k[0] * k[1] * d->m, d->c, 1, 1, dnnl_oihw);
        d->shuffle = true, d->kh = k[0], d->kw = k[1];
        d->tl = !bx ? FX_LAYOUT_NHWC : bt == dnnl_nChw16c ? FX_LAYOUT_NCHW16C : FX_LAYOUT_NCHW8C;
        win = (ir_window){.s = {1, 1}, .d = {1, 1}};
    } else if (tr) { /* ONNX's [C, M, KH, KW] is oneDNN's iohw */
        md4(&wt, d->m, d->c, k[0], k[1], dnnl_format_tag_any);
        md4(&wt_user, d->m, d->c, k[0], k[1], dnnl_iohw);
    } else if (group > 1) {
        dnnl_dims_t wd = {group, d->m / group, d->c / group, k[0], k[1]};
        dnnl_memory_desc_init_by_tag(&wt, 5, wd, dnnl_f32, dnnl_format_tag_any);
        dnnl_memory_desc_init_by_tag(&wt_user, 5, wd, dnnl_f32, dnnl_goihw);
    } else {
        md4(&wt, d->m, d->c, k[0], k[1], dnnl_format_tag_any);
        md4(&wt_user, d->m, d->c, k[0], k[1], dnnl_oihw);
    }
    int64_t nb = sh ? k[0] * k[1] * d->m : d->m; /* bias entries */
    dnnl_dims_t bd = {nb};
    dnnl_memory_desc_init_by_tag(&bias, 1, bd, dnnl_f32, dnnl_a);
    dnnl_dims_t st, dl, pl, pr;
    for (int i = 0; i < nsp; i++)
        st[i] = win.s[i], dl[i] = win.d[i] - 1, pl[i] = win.pb[i], pr[i] = win.pe[i];
    dnnl_convolution_desc_t cd;
    dnnl_deconvolution_desc_t dcd;
    tr = tr && !sh;
    dnnl_status_t ds =
        tr ? dnnl_dilated_deconvolution_forward_desc_init(&dcd, dnnl_forward_inference, dnnl_deconvolution_direct, &src,
                                                          &wt, b ? &bias : NULL, &dst, st, dl, pl, pr)
           : dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &src, &wt,
                                                        b ? &bias : NULL, &dst, st, dl, pl, pr);
    if (ds != dnnl_success) return refuse(d, err, "convolution not described");
    dnnl_primitive_desc_t pd = tr ? primitive_desc(d, &dcd) : primitive_desc(d, &cd);
    if (!pd) return refuse(d, err, "no implementation");
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    /* not faster than ours (a transposed conv: only the reference is refused) */
    if (impl && (strstr(impl, "ref") || (!tr && strstr(impl, "gemm")))) {
        dnnl_primitive_desc_destroy(pd);
        return refuse(d, err, "only a reference or gemm implementation");
    }
    float *swb = sh ? shuffle_weights(w, b) : NULL; /* weights once into the primitive's layout */
    bool wok = (!sh || swb) && load_weights(d, pd, &wt_user, sh ? (const void *)swb : w->data,
                                            !b   ? NULL
                                            : sh ? swb + nb * d->c
                                                 : b->data,
                                            nb);
    free(swb);
    if (!wok) {
        dnnl_primitive_desc_destroy(pd);
        return refuse(d, err, "weights not prepared");
    }
    if (!finish(d, pd)) return refuse(d, err, "primitive not created");
    snprintf(d->what, sizeof d->what, "%s%s%lldx%lld/s%lld onednn %s%s + bias%s%s%s",
             tr || sh    ? "conv_transpose"
             : group > 1 ? "grouped conv"
                         : "conv",
             nsp == 3 ? "3d " : "", (long long)k[0], (long long)k[nsp - 1], (long long)(sh ? k[0] : win.s[0]), d->impl,
             sh ? " 1x1 + shuffle" : "", residual ? " + add" : "", act ? " + " : "", act ? fx_act_name(act) : "");
    return d;
}

/* conv_build, a ConvTranspose of window = stride as a 1x1 conv and a
 * shuffle where oneDNN has a fast 1x1 kernel for it, else its
 * deconvolution. */
static fx_dnnl *conv_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                         const nnfx_tensor *b, fx_act act, float p0, float p1, bool residual, int threads, bool bx,
                         bool by, nnfx_error *err) {
    bool sh = nnfx_node_is_op(n, NNFX_OP_CONV_TRANSPOSE);
    fx_dnnl *d = conv_build(n, xs, ys, w, b, act, p0, p1, residual, threads, bx, by, sh, err);
    if (d || !sh || err->status == NNFX_ERR_NOMEM) return d;
    *err = (nnfx_error){0};
    return conv_build(n, xs, ys, w, b, act, p0, p1, residual, threads, bx, by, false, err);
}

fx_dnnl *fx_dnnl_conv_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                          const nnfx_tensor *b, fx_act act, float p0, float p1, bool residual, int threads,
                          nnfx_error *err) {
    int prev = set_threads(threads);
    fx_dnnl *d = conv_new(n, xs, ys, w, b, act, p0, p1, residual, threads, false, false, err);
    restore_threads(prev);
    return d;
}

static fx_dnnl *pool_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const int64_t *pad4, int threads,
                         nnfx_error *err) {
    bool global = nnfx_node_is_op(n, NNFX_OP_GLOBAL_AVERAGE_POOL);
    if (!global && !nnfx_node_is_op(n, NNFX_OP_AVERAGE_POOL)) return refuse(NULL, err, "not an average pooling");
    if (nnfx_node_num_outputs(n) != 1 || ys[0] != xs[0] || ys[1] != xs[1])
        return refuse(NULL, err, "one output of the input's channels only");
    if (!sane_dims(xs) || !sane_dims(ys)) return refuse(NULL, err, "empty or huge activations");
    int64_t k[2] = {xs[2], xs[3]}, in_sp[2] = {xs[2], xs[3]};
    ir_window win = {2, {xs[2], xs[3]}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false};
    if (!global) {
        const nnfx_attr *ks = nnfx_node_attr(n, "kernel_shape");
        if (!ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != 2) return refuse(NULL, err, "2-d kernel only");
        k[0] = ks->u.ints.v[0], k[1] = ks->u.ints.v[1];
        if (ir_window_read(n, 2, k, in_sp, &win, err)) return NULL;
    }
    if (pad4) { /* a zero Pad before a pooling of no pads of its own: its pads, counted */
        if (global || win.pb[0] || win.pb[1] || win.pe[0] || win.pe[1]) return refuse(NULL, err, "pads twice");
        win.pb[0] = pad4[0], win.pb[1] = pad4[1], win.pe[0] = pad4[2], win.pe[1] = pad4[3];
    }
    for (int i = 0; i < 2; i++) /* no ceil_mode overhang, no dilation: the window is the floor formula's */
        if ((in_sp[i] + win.pb[i] + win.pe[i] - k[i]) / win.s[i] + 1 != ys[2 + i] || win.d[i] != 1 || win.pb[i] < 0 ||
            win.pe[i] < 0 || win.pb[i] >= k[i] || win.pe[i] >= k[i])
            return refuse(NULL, err, "window does not fit");
    fx_dnnl *d = calloc(1, sizeof *d);
    if (!d) return refuse(NULL, err, "out of memory");
    *d = (fx_dnnl){
        .n = xs[0], .c = xs[1], .h = xs[2], .w = xs[3], .m = ys[1], .oh = ys[2], .ow = ys[3], .dd = 1, .od = 1};
    d->threads = threads;
    dnnl_memory_desc_t src, dst;
    md4(&src, d->n, d->c, d->h, d->w, dnnl_nhwc);
    md4(&dst, d->n, d->m, d->oh, d->ow, dnnl_nhwc);
    dnnl_alg_kind_t alg = pad4 || ir_attr_int(n, "count_include_pad") ? dnnl_pooling_avg_include_padding
                                                                      : dnnl_pooling_avg_exclude_padding;
    dnnl_dims_t st = {win.s[0], win.s[1]}, kd = {k[0], k[1]}, dl = {0, 0}, pl = {win.pb[0], win.pb[1]},
                pr = {win.pe[0], win.pe[1]};
    dnnl_pooling_v2_desc_t pdsc;
    if (dnnl_pooling_v2_forward_desc_init(&pdsc, dnnl_forward_inference, alg, &src, &dst, st, kd, dl, pl, pr) !=
        dnnl_success)
        return refuse(d, err, "pooling not described");
    dnnl_primitive_desc_t pd = primitive_desc(d, &pdsc);
    if (!pd) return refuse(d, err, "no implementation");
    if (!finish(d, pd)) return refuse(d, err, "primitive not created");
    snprintf(d->what, sizeof d->what, "avgpool %lldx%lld/s%lld onednn %s%s", (long long)k[0], (long long)k[1],
             (long long)win.s[0], d->impl, pad4 ? " + pad folded" : "");
    return d;
}

fx_dnnl *fx_dnnl_pool_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const int64_t *pad4, int threads,
                          nnfx_error *err) {
    int prev = set_threads(threads);
    fx_dnnl *d = pool_new(n, xs, ys, pad4, threads, err);
    restore_threads(prev);
    return d;
}

/* A reorder between the plan's value of x (out false) or y, in layout l
 * (NCDHW in 3-d), and the primitive's memory prim; to_prim: from the
 * plan's to the primitive's. Sets *plain to the plan's memory (handle set
 * per run). */
static dnnl_primitive_t make_reorder(const fx_dnnl *d, bool out, fx_layout l, dnnl_memory_t prim, bool to_prim,
                                     dnnl_memory_t *plain) {
    dnnl_memory_desc_t a, b;
    const dnnl_memory_desc_t *pm = NULL;
    plain_md(d, out, l, &a);
    if (dnnl_memory_get_memory_desc(prim, &pm) != dnnl_success || !pm) return NULL;
    b = *pm;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t re = NULL;
    if (!(*plain = view_of(&a))) return NULL;
    if (dnnl_reorder_primitive_desc_create(&pd, to_prim ? &a : &b, engine(), to_prim ? &b : &a, engine(), NULL) ==
        dnnl_success)
        dnnl_primitive_create(&re, pd);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return re;
}

static int64_t up64(int64_t b) { return (b + 63) / 64 * 64; }

/* Whether the plan's x (out false) or y in layout l needs a reorder to or
 * from the primitive's memory prim: a 3-d conv always; else when the two
 * differ, but not between NCHW and NHWC of one spatial position (the same
 * bytes). */
static bool needs_reorder(const fx_dnnl *d, bool out, fx_layout l, dnnl_memory_t prim) {
    if (d->blocked) return true;
    const dnnl_memory_desc_t *pm = NULL;
    if (dnnl_memory_get_memory_desc(prim, &pm) != dnnl_success || !pm) return true;
    dnnl_memory_desc_t a, nhwc;
    plain_md(d, out, l, &a);
    if (dnnl_memory_desc_equal(&a, pm)) return false;
    bool one = out ? d->oh * d->ow == 1 : d->h * d->w == 1;
    plain_md(d, out, FX_LAYOUT_NHWC, &nhwc);
    return !(one && !is_blocked(l) && dnnl_memory_desc_equal(&nhwc, pm));
}

static const char *layout_name(fx_layout l) {
    return l == FX_LAYOUT_NCHW16C  ? "nchw16c"
           : l == FX_LAYOUT_NCHW8C ? "nchw8c"
           : l == FX_LAYOUT_NHWC   ? "nhwc"
                                   : "nchw";
}

/* Builds a chaining conv again for blocked x (bx) or y (by); false (d
 * unchanged) when oneDNN has no fast kernel for that. */
static bool rebuild_blocked(fx_dnnl *d, bool bx, bool by) {
    nnfx_error e = {0};
    fx_dnnl *nd =
        conv_new(d->node, d->xs, d->ys, d->wt, d->bt, d->act, d->p0, d->p1, d->residual, d->threads, bx, by, &e);
    if (!nd) return false;
    fx_dnnl old = *d;
    *d = *nd;
    *nd = old;
    fx_dnnl_free(nd);
    return true;
}

static nnfx_status set_layouts(fx_dnnl *d, fx_layout xl, fx_layout rl, fx_layout yl, nnfx_error *err) {
    if (d->chains && (is_blocked(xl) || is_blocked(yl)))
        rebuild_blocked(d, is_blocked(xl), is_blocked(yl)); /* else nhwc, reordered */
    d->node = NULL, d->wt = d->bt = NULL;                   /* not kept past the build */
    d->xl = xl, d->rl = rl, d->yl = yl;
    int64_t off = up64(d->pad_bytes);
    bool x_re = needs_reorder(d, false, xl, d->src), y_re = !d->shuffle && needs_reorder(d, true, yl, d->dst);
    bool r_re = d->residual && needs_reorder(d, true, rl, d->dst);
    /* a blocked layout pads channels: the primitive's own sizes */
    const dnnl_memory_desc_t *sm = NULL, *dm = NULL;
    if (dnnl_memory_get_memory_desc(d->src, &sm) != dnnl_success ||
        dnnl_memory_get_memory_desc(d->dst, &dm) != dnnl_success)
        goto fail;
    if (x_re) {
        if (!(d->x_re = make_reorder(d, false, xl, d->src, true, &d->x_plain))) goto fail;
        d->x_off = off, off += up64((int64_t)dnnl_memory_desc_get_size(sm));
    }
    if (r_re && !(d->r_re = make_reorder(d, true, rl, d->dst, true, &d->r_plain))) goto fail;
    if (y_re || d->shuffle) { /* the primitive's y (a shuffle's t) in scratch */
        if (y_re && !(d->y_re = make_reorder(d, true, yl, d->dst, false, &d->y_plain))) goto fail;
        d->y_off = off, off += up64((int64_t)dnnl_memory_desc_get_size(dm));
    }
    d->scratch_bytes = off;
    size_t l = strlen(d->what);
    if (x_re || y_re || r_re || (d->shuffle && xl != yl) || (xl != yl && (is_blocked(xl) || is_blocked(yl))))
        snprintf(d->what + l, sizeof d->what - l, " (x %s%s%s%s, y %s%s)", x_re ? "from " : "", layout_name(xl),
                 r_re ? ", res from " : "", r_re ? layout_name(rl) : "", y_re ? "to " : "", layout_name(yl));
    else
        snprintf(d->what + l, sizeof d->what - l, " (%s)", layout_name(is_blocked(xl) ? xl : FX_LAYOUT_NHWC));
    return NNFX_OK;
fail:
    return nnfx_error_set(err, NNFX_ERR_NOMEM, "oneDNN: reorder not created");
}

nnfx_status fx_dnnl_set_layouts(fx_dnnl *d, fx_layout x, fx_layout res, fx_layout y, nnfx_error *err) {
    int prev = set_threads(d->threads);
    nnfx_status st = set_layouts(d, x, res, y, err);
    restore_threads(prev);
    return st;
}

bool fx_dnnl_avx2_engine(void) { return engine() != NULL && !core_cpu_avx512f(); }

int fx_dnnl_block(void) {
    const char *e = getenv("NNFX_DNNL_BLOCKED");
    if (!engine() || (e && strcmp(e, "0") == 0)) return 0;
    return fx_dnnl_avx2_engine() ? 8 : 16;
}

bool fx_dnnl_chains(const fx_dnnl *d) { return d->chains; }

int64_t fx_dnnl_scratch_bytes(const fx_dnnl *d) { return d->scratch_bytes; }

const char *fx_dnnl_describe(const fx_dnnl *d) { return d->what; }

static bool run_reorder(dnnl_primitive_t re, dnnl_stream_t s, dnnl_memory_t from, dnnl_memory_t to) {
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return dnnl_primitive_execute(re, s, 2, a) == dnnl_success;
}

/* Offset of element (n, c, h, w) of a [N, C, H, W] value in layout l
 * (blocked: C rounded up to whole blocks). */
static int64_t at4(fx_layout l, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
    if (l == FX_LAYOUT_NHWC) return ((n * H + h) * W + w) * C + c;
    int64_t b = l == FX_LAYOUT_NCHW16C ? 16 : 8;
    if (is_blocked(l)) return (((n * ((C + b - 1) / b) + c / b) * H + h) * W + w) * b + c % b;
    return ((n * C + c) * H + h) * W + w;
}

/* y[n, m, h*kh + i, w*kw + j] = t[n, (i*kw + j)*M + m, h, w]: a shuffled
 * ConvTranspose's output from its 1x1 conv's (bias included), y in the
 * plan's layout. */
static void shuffle_out(const fx_dnnl *d, const float *t, float *y) {
    int64_t kh = d->kh, kw = d->kw, m = d->m, ct = kh * kw * m;
    fx_layout tl = d->tl;
    int64_t b = tl == FX_LAYOUT_NCHW16C ? 16 : 8; /* a blocked t's block */
    int64_t run = tl == d->yl && (tl == FX_LAYOUT_NHWC || m % b == 0) ? (tl == FX_LAYOUT_NHWC ? m : b) : 0;
    if (run) { /* whole channel runs: all m channels (NHWC) or whole blocks */
        for (int64_t n = 0; n < d->n; n++)
            for (int64_t h = 0; h < d->h; h++)
                for (int64_t i = 0; i < kh; i++)
                    for (int64_t w = 0; w < d->w; w++)
                        for (int64_t j = 0; j < kw; j++)
                            for (int64_t c = 0; c < m; c += run)
                                memcpy(y + at4(tl, m, d->oh, d->ow, n, c, h * kh + i, w * kw + j),
                                       t + at4(tl, ct, d->h, d->w, n, (i * kw + j) * m + c, h, w),
                                       (size_t)run * sizeof(float));
        return;
    }
    for (int64_t n = 0; n < d->n; n++)
        for (int64_t h = 0; h < d->h; h++)
            for (int64_t i = 0; i < kh; i++)
                for (int64_t w = 0; w < d->w; w++)
                    for (int64_t j = 0; j < kw; j++)
                        for (int64_t c = 0; c < m; c++)
                            y[at4(d->yl, m, d->oh, d->ow, n, c, h * kh + i, w * kw + j)] =
                                t[at4(tl, ct, d->h, d->w, n, (i * kw + j) * m + c, h, w)];
}

static bool run(fx_dnnl *d, const float *x, const float *res, float *y, void *scratch) {
    char *sp = scratch;
    bool ok = true;
    if (d->x_re) {
        ok = dnnl_memory_set_data_handle(d->x_plain, (void *)x) == dnnl_success &&
             dnnl_memory_set_data_handle(d->src, sp + d->x_off) == dnnl_success &&
             run_reorder(d->x_re, d->stream, d->x_plain, d->src);
    } else
        ok = dnnl_memory_set_data_handle(d->src, (void *)x) == dnnl_success;
    void *dst = d->y_re || d->shuffle ? (void *)(sp + d->y_off) : (void *)y;
    if (ok) ok = dnnl_memory_set_data_handle(d->dst, dst) == dnnl_success;
    if (ok && d->residual) { /* dst = res, channels-last; the sum post-op adds the conv to it */
        if (d->r_re)
            ok = dnnl_memory_set_data_handle(d->r_plain, (void *)res) == dnnl_success &&
                 run_reorder(d->r_re, d->stream, d->r_plain, d->dst);
        else
            memcpy(dst, res, (size_t)(d->n * d->m * d->od * d->oh * d->ow) * sizeof(float));
    }
    if (ok && d->pad) ok = dnnl_memory_set_data_handle(d->pad, sp) == dnnl_success;
    dnnl_exec_arg_t a[7];
    int na = 0;
    a[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, d->src};
    a[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, d->dst};
    if (d->conv) a[na++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, d->wts};
    if (d->bias) a[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, d->bias};
    if (d->pad) a[na++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, d->pad};
    if (ok) ok = dnnl_primitive_execute(d->prim, d->stream, na, a) == dnnl_success;
    if (ok && d->y_re)
        ok = dnnl_memory_set_data_handle(d->y_plain, y) == dnnl_success &&
             run_reorder(d->y_re, d->stream, d->dst, d->y_plain);
    if (ok) ok = dnnl_stream_wait(d->stream) == dnnl_success;
    if (ok && d->shuffle) shuffle_out(d, dst, y);
    if (ok && d->act) fx_act_row(y, d->n * d->m * d->od * d->oh * d->ow, d->act, d->p0, d->p1); /* the plan's meaning */
    return ok;
}

nnfx_status fx_dnnl_run(fx_dnnl *d, const float *x, const float *res, float *y, void *scratch, nnfx_error *err) {
    int prev = set_threads(d->threads);
    bool ok = run(d, x, res, y, scratch);
    restore_threads(prev);
    return ok ? NNFX_OK : nnfx_error_set(err, NNFX_ERR_RUNTIME, "oneDNN: %s failed to run", d->what);
}

#else /* no oneDNN: the plan never asks for these steps */

bool fx_dnnl_parallel_available(void) { return false; }
void fx_dnnl_parallel(int threads, void (*fn)(void *arg, int tid), void *arg) {
    for (int t = 0; t < threads; t++)
        fn(arg, t);
}

bool fx_dnnl_enabled(void) { return false; }
fx_dnnl *fx_dnnl_conv_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const nnfx_tensor *w,
                          const nnfx_tensor *b, fx_act act, float p0, float p1, bool residual, int threads,
                          nnfx_error *err) {
    nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "built without oneDNN");
    return NULL;
}
fx_dnnl *fx_dnnl_pool_new(const nnfx_node *n, const int64_t *xs, const int64_t *ys, const int64_t *pad4, int threads,
                          nnfx_error *err) {
    nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "built without oneDNN");
    return NULL;
}
void fx_dnnl_free(fx_dnnl *d) { (void)d; }
nnfx_status fx_dnnl_set_layouts(fx_dnnl *d, fx_layout x, fx_layout res, fx_layout y, nnfx_error *err) {
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "built without oneDNN");
}
int fx_dnnl_block(void) { return 0; }
bool fx_dnnl_avx2_engine(void) { return false; }
bool fx_dnnl_chains(const fx_dnnl *d) { return false; }
int64_t fx_dnnl_scratch_bytes(const fx_dnnl *d) { return 0; }
const char *fx_dnnl_describe(const fx_dnnl *d) { return "onednn"; }
nnfx_status fx_dnnl_run(fx_dnnl *d, const float *x, const float *res, float *y, void *scratch, nnfx_error *err) {
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "built without oneDNN");
}
#endif
