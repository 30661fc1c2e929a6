/* conv_libs.c — nnfx's own conv kernels against oneDNN and XNNPACK on the
 * convolutions of real models, one thread, batch of the model.
 *
 * For every distinct Conv of each model given (geometry and count), times
 *   nnfx     fx_conv_run (the compiled plan's kernel, NCHW, packed weights)
 *   oneDNN   a convolution primitive with the layouts it prefers
 *            (format_tag any: blocked nChw8c/16c on x86), weights reordered
 *            once outside the timing, as a whole network in that layout runs
 *   XNNPACK  convolution2d_nhwc_f32 (NHWC, what TFLite uses)
 * as the median of RUNS runs after a warm-up, and prints one JSON line per
 * conv plus a summary line per model (sum of count x time). Activations and
 * epilogues are not part of the timing (bias is). Built and run by
 * bench/run_conv_libs.sh (needs libdnnl-dev and libxnnpack-dev).
 * Usage: conv_libs RUNS MODEL.onnx ... */
#include <dnnl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xnnpack.h>

#include "exec/fast_int.h"
#include "nnfx.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct geom {
    int64_t n, c, h, w, m, kh, kw, sh, sw, ph, pw, pb, pr, dh, dw, g, oh, ow;
    int count;
    const nnfx_node *node;
} geom;

static void fill(float *p, size_t n) {
    uint32_t s = 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)((s >> 9) & 0xffff) / 65536.0f - 0.5f;
    }
}

typedef void (*run_fn)(void *ctx);

static double median_ms(int runs, run_fn fn, void *ctx) {
    fn(ctx); /* warm-up */
    double *t = malloc(sizeof *t * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double t0 = now_s();
        fn(ctx);
        t[r] = (now_s() - t0) * 1e3;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_d);
    double m = t[runs / 2];
    free(t);
    return m;
}

/* ---- nnfx ---- */
typedef struct nctx {
    fx_conv *c;
    float *x, *y, *scratch;
} nctx;
static void nnfx_run(void *p) {
    nctx *c = p;
    fx_conv_run(c->c, NULL, c->x, NULL, c->y, c->scratch);
}
static double time_nnfx(const geom *g, const nnfx_tensor *w, const nnfx_tensor *b, int runs) {
    int64_t xs[4] = {g->n, g->c, g->h, g->w};
    nnfx_error err = {0};
    fx_conv *c = fx_conv_new(g->node, xs, w, b, &err);
    if (!c) return NAN;
    size_t xn = (size_t)(g->n * g->c * g->h * g->w), yn = (size_t)(g->n * g->m * g->oh * g->ow);
    size_t sn = (size_t)(fx_conv_shared_floats(c) + fx_conv_scratch_floats(c) + 16);
    nctx ctx = {c, aligned_alloc(64, (xn * 4 + 63) / 64 * 64), aligned_alloc(64, (yn * 4 + 63) / 64 * 64),
                aligned_alloc(64, (sn * 4 + 63) / 64 * 64)};
    fill(ctx.x, xn);
    double ms = median_ms(runs, nnfx_run, &ctx);
    free(ctx.x), free(ctx.y), free(ctx.scratch);
    fx_conv_free(c);
    return ms;
}

/* ---- oneDNN ---- */
typedef struct dctx {
    dnnl_primitive_t prim;
    dnnl_stream_t s;
    dnnl_exec_arg_t args[4];
} dctx;
static void dnnl_run(void *p) {
    dctx *c = p;
    dnnl_primitive_execute(c->prim, c->s, 4, c->args);
    dnnl_stream_wait(c->s);
}
static dnnl_memory_t dnnl_mem(dnnl_engine_t eng, const dnnl_memory_desc_t *md) {
    dnnl_memory_t m = NULL;
    if (dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success) return NULL;
    void *h = NULL;
    dnnl_memory_get_data_handle(m, &h);
    fill(h, dnnl_memory_desc_get_size(md) / sizeof(float));
    return m;
}
static double time_dnnl(dnnl_engine_t eng, dnnl_stream_t s, const geom *g, int runs, char *impl, size_t ilen) {
    dnnl_memory_desc_t src, wt, bias, dst;
    dnnl_dims_t sd = {g->n, g->c, g->h, g->w}, dd = {g->n, g->m, g->oh, g->ow}, bd = {g->m};
    dnnl_dims_t wd5 = {g->g, g->m / g->g, g->c / g->g, g->kh, g->kw}, wd4 = {g->m, g->c, g->kh, g->kw};
    dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&bias, 1, bd, dnnl_f32, dnnl_a);
    if (g->g > 1)
        dnnl_memory_desc_init_by_tag(&wt, 5, wd5, dnnl_f32, dnnl_format_tag_any);
    else
        dnnl_memory_desc_init_by_tag(&wt, 4, wd4, dnnl_f32, dnnl_format_tag_any);
    dnnl_dims_t st = {g->sh, g->sw}, dl = {g->dh - 1, g->dw - 1}, pl = {g->ph, g->pw}, pr = {g->pb, g->pr};
    dnnl_convolution_desc_t cd;
    if (dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &src, &wt,
                                                   &bias, &dst, st, dl, pl, pr) != dnnl_success)
        return NAN;
    dnnl_primitive_desc_t pd;
    if (dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL) != dnnl_success) return NAN;
    const char *name = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
    snprintf(impl, ilen, "%s", name ? name : "?");
    dctx c = {NULL, s, {{0}}};
    dnnl_memory_t ms = dnnl_mem(eng, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
    dnnl_memory_t mw = dnnl_mem(eng, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0));
    dnnl_memory_t mb = dnnl_mem(eng, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1));
    dnnl_memory_t md = dnnl_mem(eng, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    dnnl_primitive_create(&c.prim, pd);
    c.args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, ms};
    c.args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, mw};
    c.args[2] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mb};
    c.args[3] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
    double t = median_ms(runs, dnnl_run, &c);
    dnnl_primitive_destroy(c.prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms), dnnl_memory_destroy(mw), dnnl_memory_destroy(mb), dnnl_memory_destroy(md);
    return t;
}

/* ---- XNNPACK ---- */
typedef struct xctx {
    xnn_operator_t op;
} xctx;
static void xnn_run(void *p) { xnn_run_operator(((xctx *)p)->op, NULL); }
static double time_xnn(const geom *g, int runs) {
    size_t cg = (size_t)(g->c / g->g), mg = (size_t)(g->m / g->g);
    size_t wn = (size_t)(g->m * g->kh * g->kw) * cg, xn = (size_t)(g->n * g->h * g->w * g->c),
           yn = (size_t)(g->n * g->oh * g->ow * g->m);
    float *w = malloc(wn * 4), *b = malloc((size_t)g->m * 4), *x = malloc(xn * 4 + 64), *y = malloc(yn * 4 + 64);
    fill(w, wn), fill(b, (size_t)g->m), fill(x, xn);
    xctx c = {NULL};
    double t = NAN;
    if (xnn_create_convolution2d_nhwc_f32((uint32_t)g->ph, (uint32_t)g->pr, (uint32_t)g->pb, (uint32_t)g->pw,
                                          (uint32_t)g->kh, (uint32_t)g->kw, (uint32_t)g->sh, (uint32_t)g->sw,
                                          (uint32_t)g->dh, (uint32_t)g->dw, (uint32_t)g->g, cg, mg, (size_t)g->c,
                                          (size_t)g->m, w, b, -INFINITY, INFINITY, 0, &c.op) == xnn_status_success &&
        xnn_setup_convolution2d_nhwc_f32(c.op, (size_t)g->n, (size_t)g->h, (size_t)g->w, x, y, NULL) ==
            xnn_status_success)
        t = median_ms(runs, xnn_run, &c);
    if (c.op) xnn_delete_operator(c.op);
    free(w), free(b), free(x), free(y);
    return t;
}

static int64_t attr_at(const nnfx_node *n, const char *name, int i, int64_t dflt) {
    const nnfx_attr *a = nnfx_node_attr(n, name);
    return a && a->kind == NNFX_ATTR_INTS && i < a->u.ints.n ? a->u.ints.v[i] : dflt;
}

static bool same(const geom *a, const geom *b) {
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->m == b->m && a->kh == b->kh &&
           a->kw == b->kw && a->sh == b->sh && a->sw == b->sw && a->ph == b->ph && a->pw == b->pw && a->pb == b->pb &&
           a->pr == b->pr && a->dh == b->dh && a->dw == b->dw && a->g == b->g;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: conv_libs RUNS MODEL.onnx ...\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    if (xnn_initialize(NULL) != xnn_status_success) {
        fprintf(stderr, "conv_libs: XNNPACK failed to initialise\n");
        return 1;
    }
    dnnl_engine_t eng;
    dnnl_stream_t s;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&s, eng, dnnl_stream_default_flags);
    for (int mi = 2; mi < argc; mi++) {
        nnfx_error err = {0};
        nnfx_graph *gr = nnfx_onnx_load(argv[mi], &err);
        if (!gr || nnfx_graph_infer_shapes(gr, &err)) {
            fprintf(stderr, "%s: %s\n", argv[mi], err.msg);
            return 1;
        }
        geom *gs = calloc((size_t)nnfx_graph_num_nodes(gr), sizeof *gs);
        int ng = 0;
        for (const nnfx_node *n = nnfx_graph_first(gr); n; n = nnfx_node_next(n)) {
            if (!nnfx_node_is_op(n, NNFX_OP_CONV)) continue;
            const nnfx_node *x = nnfx_node_arg_node(n, 0), *wn = nnfx_node_arg_node(n, 1);
            const nnfx_meta *xm = nnfx_node_meta_c(x, 0), *ym = nnfx_node_meta_c(n, 0);
            const nnfx_tensor *w = wn ? nnfx_graph_param(gr, nnfx_node_target(wn)) : NULL;
            if (!w || xm->rank != 4 || !nnfx_meta_is_static(xm) || !nnfx_meta_is_static(ym)) continue;
            geom g = {xm->dims[0].value,
                      xm->dims[1].value,
                      xm->dims[2].value,
                      xm->dims[3].value,
                      w->shape[0],
                      w->shape[2],
                      w->shape[3],
                      attr_at(n, "strides", 0, 1),
                      attr_at(n, "strides", 1, 1),
                      attr_at(n, "pads", 0, 0),
                      attr_at(n, "pads", 1, 0),
                      attr_at(n, "pads", 2, 0),
                      attr_at(n, "pads", 3, 0),
                      attr_at(n, "dilations", 0, 1),
                      attr_at(n, "dilations", 1, 1),
                      nnfx_node_attr_int(n, "group", 1),
                      ym->dims[2].value,
                      ym->dims[3].value,
                      1,
                      n};
            int k = 0;
            while (k < ng && !same(&gs[k], &g))
                k++;
            if (k < ng)
                gs[k].count++;
            else
                gs[ng++] = g;
        }
        double tot[3] = {0, 0, 0};
        for (int k = 0; k < ng; k++) {
            const geom *g = &gs[k];
            const nnfx_node *n = g->node;
            const nnfx_node *bn = nnfx_node_num_args(n) > 2 ? nnfx_node_arg_node(n, 2) : NULL;
            const nnfx_tensor *w = nnfx_graph_param(gr, nnfx_node_target(nnfx_node_arg_node(n, 1)));
            const nnfx_tensor *b = bn ? nnfx_graph_param(gr, nnfx_node_target(bn)) : NULL;
            char impl[64] = "";
            double t[3] = {time_nnfx(g, w, b, runs), time_dnnl(eng, s, g, runs, impl, sizeof impl), time_xnn(g, runs)};
            for (int e = 0; e < 3; e++)
                tot[e] += g->count * t[e];
            printf(
                "{\"model\": \"%s\", \"conv\": \"%lldx%lldx%lldx%lld -> %lld k%lldx%lld s%lld g%lld\", \"count\": %d, "
                "\"nnfx_ms\": %.4f, \"onednn_ms\": %.4f, \"xnnpack_ms\": %.4f, \"onednn_impl\": \"%s\"}\n",
                argv[mi], (long long)g->n, (long long)g->c, (long long)g->h, (long long)g->w, (long long)g->m,
                (long long)g->kh, (long long)g->kw, (long long)g->sh, (long long)g->g, g->count, t[0], t[1], t[2],
                impl);
            fflush(stdout);
        }
        printf("{\"model\": \"%s\", \"total\": true, \"convs\": %d, \"nnfx_ms\": %.3f, \"onednn_ms\": %.3f, "
               "\"xnnpack_ms\": %.3f}\n",
               argv[mi], ng, tot[0], tot[1], tot[2]);
        free(gs);
        nnfx_graph_free(gr);
    }
    dnnl_stream_destroy(s);
    dnnl_engine_destroy(eng);
    return 0;
}
