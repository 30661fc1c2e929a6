/* test_qkernels.c — the int8 kernels (src/exec/kernels/qgemm*.c) against
 * the reference semantics DequantizeLinear -> float op -> QuantizeLinear,
 * computed here independently in double precision, on odd shapes (M, N, K
 * not multiples of the vector widths, stride / pad / dilation, groups,
 * depthwise), per-tensor and per-channel scales, u8 and s8 activations and
 * outputs, Relu / Clip bounds, a requantize + residual add epilogue, and
 * inputs at the edges of the types (the u8 x s8 pair sums of vpmaddubsw
 * would saturate there). Every ISA path the host has is run and compared
 * with the portable one byte for byte; 1 thread against 2.
 *
 * Agreement with the reference: a value differs only where the exact
 * result lies within 1e-3 of a rounding tie (x.5 LSB), by one unit there
 * (the kernel divides by a scale as a product with the reciprocal, and sums
 * exactly in int32; float evaluation cannot decide such ties). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "exec/fast_int.h"
#include "exec/kernels/qelem.h"
#include "exec/kernels/qgemm.h"

#include "rt/nnfx_rt_qfixed.h"
#include "rt/nnfx_rt_scalar.h"

static uint32_t rng = 2024;
static uint32_t rnd(void) {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static int irand(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffff) / 65535.0f; }

typedef struct qcase {
    fx_qconv_geom g;
    bool fc;
    int64_t rows; /* fc */
    fx_qparams q;
    int wlo, whi; /* weight range */
    int spikes;   /* when > 0: weights in [-60, 60] but this percentage at 100..128 in magnitude */
    int xmode;    /* 0 random, 1 all max, 2 all min */
    bool act_relu, act_clip;
} qcase;

typedef struct qdata {
    uint8_t *x, *res, *y, *y2;
    int8_t *w;
    float *ws, *bias;
    int64_t nx, ny;
    double *ref;   /* pre-rounding value of the output, in LSB units incl. zp */
    bool *nearmid; /* a tie at the intermediate requantization */
    double tie;    /* how close to x.5 a value counts as a tie */
} qdata;

static double rne(double v) { return nearbyint(v); }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double xval(bool s, const uint8_t *p, int64_t i) { return s ? (double)(int8_t)p[i] : (double)p[i]; }

static void fill_case(qcase *k, qdata *d) {
    fx_qconv_geom *g = &k->g;
    int64_t m = k->fc ? g->m : g->m, kk = k->fc ? g->c : g->c / g->group * g->kh * g->kw;
    d->nx = k->fc ? k->rows * g->c : g->n * g->c * g->h * g->w;
    d->ny = k->fc ? k->rows * g->m : g->n * g->m * g->oh * g->ow;
    d->x = malloc((size_t)d->nx);
    d->res = malloc((size_t)d->ny);
    d->y = calloc((size_t)d->ny, 1);
    d->y2 = calloc((size_t)d->ny, 1);
    d->w = malloc((size_t)(m * kk));
    d->ws = malloc(sizeof(float) * (size_t)m);
    d->bias = malloc(sizeof(float) * (size_t)m);
    d->ref = malloc(sizeof(double) * (size_t)d->ny);
    d->nearmid = calloc((size_t)d->ny, 1);
    for (int64_t i = 0; i < d->nx; i++) {
        int v = k->xmode == 1   ? (k->q.x_signed ? 127 : 255)
                : k->xmode == 2 ? (k->q.x_signed ? -128 : 0)
                                : irand(k->q.x_signed ? -128 : 0, k->q.x_signed ? 127 : 255);
        d->x[i] = (uint8_t)v;
    }
    for (int64_t i = 0; i < d->ny; i++)
        d->res[i] = (uint8_t)irand(0, 255);
    for (int64_t i = 0; i < m * kk; i++)
        d->w[i] = (int8_t)(k->xmode ? (i % 3 ? k->wlo : k->whi) : irand(k->wlo, k->whi));
    if (k->spikes) /* a few unsafe pairs: the vpmaddubsw kernel with corrections */
        for (int64_t i = 0; i < m * kk; i++) {
            int v = irand(-60, 60);
            if (irand(0, 99) < k->spikes) v = irand(0, 1) ? irand(100, 127) : -irand(100, 128);
            d->w[i] = (int8_t)v;
        }
    for (int64_t i = 0; i < m; i++) {
        d->ws[i] = frand(0.002f, 0.02f);
        d->bias[i] = frand(-2.0f, 2.0f);
        if (k->q.fixed) { /* an int32 bias of scale x_scale * w_scale, as QDQ files state it */
            float sc = k->q.x_scale * d->ws[i];
            d->bias[i] = (float)nearbyint(d->bias[i] / sc) * sc;
        }
    }
    fx_qparams *q = &k->q;
    /* TFLite's requantization rounds twice (to 2^shift units, then to units):
     * within 2^shift of x.5 it may land a unit away, besides ties away from zero */
    d->tie = 1e-3;
    for (int64_t i = 0; q->fixed && i < m; i++) {
        int32_t qm;
        int sh;
        nnfx_rt_qf_quantize_multiplier((double)(q->x_scale * d->ws[i]) / q->y_scale, &qm, &sh);
        if (ldexp(1.0, sh) > d->tie) d->tie = ldexp(1.0, sh);
    }
    q->w_scale = d->ws;
    q->bias = d->bias;
    q->act_lo = -INFINITY, q->act_hi = INFINITY;
    q->mid_lo = -INFINITY, q->mid_hi = INFINITY;
    if (k->act_relu) q->act_lo = 0.0f;
    if (k->act_clip) q->act_lo = 0.0f, q->act_hi = 6.0f;
    if (q->mid) q->mid_lo = 0.0f; /* a Relu before the intermediate Q */
}

static void free_data(qdata *d) {
    free(d->x), free(d->res), free(d->y), free(d->y2), free(d->w), free(d->ws), free(d->bias), free(d->ref);
    free(d->nearmid);
}

/* The reference: every value dequantized, the op in double, the epilogue
 * as the QDQ nodes state it. */
static void reference(const qcase *k, qdata *d) {
    const fx_qconv_geom *g = &k->g;
    const fx_qparams *q = &k->q;
    int64_t cg = k->fc ? g->c : g->c / g->group, mg = k->fc ? g->m : g->m / g->group;
    int64_t kk = k->fc ? g->c : cg * g->kh * g->kw;
    int64_t npix = k->fc ? k->rows : g->n * g->oh * g->ow;
    for (int64_t pix = 0; pix < npix; pix++)
        for (int64_t mo = 0; mo < g->m; mo++) {
            double s = 0;
            double ws = q->w_scale[q->w_scale_n == 1 ? 0 : mo];
            int64_t yi;
            if (k->fc) {
                for (int64_t c = 0; c < kk; c++)
                    s += (xval(q->x_signed, d->x, pix * kk + c) - q->x_zp) * q->x_scale * (d->w[mo * kk + c] * ws);
                yi = pix * g->m + mo;
            } else {
                int64_t i = pix / (g->oh * g->ow), oy = pix / g->ow % g->oh, ox = pix % g->ow, gi = mo / mg;
                for (int64_t c = 0; c < cg; c++)
                    for (int64_t ky = 0; ky < g->kh; ky++)
                        for (int64_t kx = 0; kx < g->kw; kx++) {
                            int64_t iy = oy * g->sh - g->ph + ky * g->dh, ix = ox * g->sw - g->pw + kx * g->dw;
                            if (iy < 0 || iy >= g->h || ix < 0 || ix >= g->w) continue;
                            double xv = xval(q->x_signed, d->x, ((i * g->c + gi * cg + c) * g->h + iy) * g->w + ix);
                            double wv = d->w[((mo * cg + c) * g->kh + ky) * g->kw + kx] * ws;
                            s += (xv - q->x_zp) * q->x_scale * wv;
                        }
                yi = ((i * g->m + mo) * g->oh + oy) * g->ow + ox;
            }
            double t = s + (q->bias ? q->bias[mo] : 0.0);
            if (q->mid) {
                t = clampd(t, q->mid_lo, q->mid_hi);
                double v = t / q->mid_scale;
                d->nearmid[yi] = fabs(fabs(v - floor(v)) - 0.5) < 1e-3;
                double mq = clampd(rne(v) + q->mid_zp, q->mid_signed ? -128 : 0, q->mid_signed ? 127 : 255);
                t = (mq - q->mid_zp) * q->mid_scale;
            }
            if (q->res) t += (xval(q->res_signed, d->res, yi) - q->res_zp) * q->res_scale;
            t = clampd(t, q->act_lo, q->act_hi);
            d->ref[yi] = t / q->y_scale;
        }
}

static int check_against_ref(const qcase *k, const qdata *d, const uint8_t *y, const char *what) {
    const fx_qparams *q = &k->q;
    int off = 0;
    for (int64_t i = 0; i < d->ny; i++) {
        double v = d->ref[i];
        double want = clampd(rne(v) + q->y_zp, q->y_signed ? -128 : 0, q->y_signed ? 127 : 255);
        double got = xval(q->y_signed, y, i);
        if (got == want) continue;
        bool tie = fabs(fabs(v - floor(v)) - 0.5) < d->tie;
        if (!((tie && fabs(got - want) <= 1) || d->nearmid[i]))
            fail_msg("%s: element %lld: got %g, reference %g (unrounded %.6f)", what, (long long)i, got, want,
                     v + q->y_zp);
        off++;
    }
    return off;
}

static fx_qconv *build(const qcase *k, const qdata *d) {
    const fx_qconv_geom *g = &k->g;
    fx_qconv *c = k->fc ? fx_qfc_new(k->rows, g->c, g->m, d->w, &k->q) : fx_qconv_new(g, d->w, &k->q);
    assert_non_null(c);
    return c;
}

static void run(const fx_qconv *c, fx_pool *pool, const qdata *d, const qcase *k, uint8_t *y) {
    int th = fx_pool_threads(pool);
    int64_t sb = fx_qconv_scratch_bytes(c);
    void *scratch = aligned_alloc(64, (size_t)(sb * th + 64));
    assert_non_null(scratch);
    memset(y, 0xcd, (size_t)d->ny);
    fx_qconv_run(c, pool, d->x, k->q.res ? d->res : NULL, y, scratch);
    free(scratch);
}

/* A substring the next run_case's kernel description must hold (NULL:
 * none); run_case clears it. */
static const char *g_want_desc;
static void expect_in_desc(const char *want) { g_want_desc = want; }

/* Runs one case on every ISA the host has (and 2 threads), checking each
 * against the reference and all against the portable path. */
static void run_case(qcase *k, const char *name) {
    qdata d;
    fill_case(k, &d);
    reference(k, &d);
    /* the last entry: AVX-512 VNNI with the u8 depthwise off (its int16 rows) */
    fx_qisa isas[5] = {FX_QISA_C, FX_QISA_AVX2, FX_QISA_AVXVNNI, FX_QISA_AVX512VNNI, FX_QISA_AVX512VNNI};
    bool have_c = false;
    for (int ii = 0; ii < 5; ii++) {
        fx_qdw_u8_allow(ii != 4);
        if (!fx_qisa_force(isas[ii])) {
            printf("# %s: ISA %s not on this CPU: not run\n", name, fx_qisa_name(isas[ii]));
            continue;
        }
        fx_qconv *c = build(k, &d);
        char what[256];
        snprintf(what, sizeof what, "%s [%s]", name, fx_qisa_name(isas[ii]));
        uint8_t *y = have_c ? d.y2 : d.y;
        run(c, NULL, &d, k, y);
        int off = check_against_ref(k, &d, y, what);
        if (off * 100 > d.ny)
            fail_msg("%s: %d of %lld values off by one (ties should be rare)", what, off, (long long)d.ny);
        if (have_c && memcmp(d.y, d.y2, (size_t)d.ny)) fail_msg("%s: differs from the portable path", what);
        /* 2 threads: same bytes */
        fx_pool *pool = fx_pool_new(2);
        assert_non_null(pool);
        uint8_t *y3 = malloc((size_t)d.ny);
        run(c, pool, &d, k, y3);
        if (memcmp(y3, y, (size_t)d.ny)) fail_msg("%s: 2 threads differ from 1", what);
        free(y3);
        fx_pool_free(pool);
        char desc[160];
        fx_qconv_describe(c, desc, sizeof desc);
        if (g_want_desc && !strstr(desc, g_want_desc)) fail_msg("%s: '%s' lacks '%s'", what, desc, g_want_desc);
        int distinct = 0;
        bool seen[256] = {0};
        for (int64_t i = 0; i < d.ny; i++)
            if (!seen[y[i]]) seen[y[i]] = true, distinct++;
        printf("# %s: %s, %d of %lld on a tie, %d distinct values\n", name, desc, off, (long long)d.ny, distinct);
        fx_qconv_free(c);
        have_c = true;
    }
    fx_qisa_force(FX_QISA_AUTO);
    fx_qdw_u8_allow(true);
    free_data(&d);
    g_want_desc = NULL;
}

static void geom(qcase *k, int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t kh, int64_t kw, int64_t s,
                 int64_t p, int64_t dil, int64_t group) {
    memset(k, 0, sizeof *k);
    fx_qconv_geom *g = &k->g;
    g->n = n, g->c = c, g->h = h, g->w = w, g->m = m, g->kh = kh, g->kw = kw, g->sh = g->sw = s;
    g->ph = g->pw = p, g->dh = g->dw = dil, g->group = group;
    g->oh = (h + 2 * p - dil * (kh - 1) - 1) / s + 1;
    g->ow = (w + 2 * p - dil * (kw - 1) - 1) / s + 1;
    k->wlo = -128, k->whi = 127;
    k->q.x_scale = 0.02f, k->q.x_zp = 3;
    k->q.y_scale = 0.05f, k->q.y_zp = 7;
    k->q.w_scale_n = m;
}

static void test_conv_shapes(void **state) {
    (void)state;
    qcase k;
    /* 3x3 pad 1, odd channels and spatial sizes, per-channel, Relu */
    geom(&k, 2, 5, 9, 11, 7, 3, 3, 1, 1, 1, 1);
    k.act_relu = true;
    run_case(&k, "conv3x3 s1 p1 relu");
    /* stride 2, 7x7, pad 3 (a stem), per-tensor weight scale */
    geom(&k, 1, 3, 17, 15, 10, 7, 7, 2, 3, 1, 1);
    k.q.w_scale_n = 1;
    run_case(&k, "conv7x7 s2 p3 per-tensor");
    /* 1x1, s8 activations and s8 output, Clip(0, 6) */
    geom(&k, 1, 19, 6, 5, 13, 1, 1, 1, 0, 1, 1);
    k.q.x_signed = true, k.q.x_zp = -5, k.q.y_signed = true, k.q.y_zp = -3;
    k.act_clip = true;
    run_case(&k, "conv1x1 s8 in/out clip");
    /* 3x3 s1 and s2 over 24 channels, s8 in and out with TFLite's fixed-point
     * requantization: the padded grid and its window tiles (stride 1, and
     * phase planes at stride 2) with the fixed point fused */
    for (int st = 1; st <= 2; st++) {
        geom(&k, 1, 24, 19, 21, 20, 3, 3, st, 1, 1, 1);
        k.q.x_signed = true, k.q.x_zp = 7, k.q.y_signed = true, k.q.y_zp = -9, k.q.fixed = true;
        k.act_relu = st == 2;
        run_case(&k, st == 1 ? "conv3x3 s1 fixed point" : "conv3x3 s2 fixed point relu");
    }
    /* dilation 2, groups 3 */
    geom(&k, 1, 6, 12, 13, 9, 3, 3, 1, 2, 2, 3);
    run_case(&k, "conv3x3 dilation 2 groups 3");
    /* stride 2 with dilation and asymmetric width, output channels past 4k */
    geom(&k, 1, 4, 10, 21, 6, 3, 2, 2, 1, 2, 1);
    run_case(&k, "conv3x2 s2 d2");
    /* long K: 3x3 over 70 channels */
    geom(&k, 1, 70, 7, 7, 33, 3, 3, 1, 1, 1, 1);
    run_case(&k, "conv3x3 K=630");
    /* K = 2304: several column blocks, each from its own input window
     * (blocks start inside output rows); stride 2; split-pair weights */
    geom(&k, 1, 256, 20, 23, 5, 3, 3, 1, 1, 1, 1);
    run_case(&k, "conv3x3 K=2304, column blocks");
    geom(&k, 1, 256, 41, 45, 6, 3, 3, 2, 1, 1, 1);
    k.spikes = 1, k.q.x_signed = true, k.q.x_zp = -3;
    run_case(&k, "conv3x3 s2 K=2304, column blocks, split pairs, s8");
    /* every column tail of the tiles (8-column units, 16-column panels,
     * 32-column tiles) with a weight-panel pair and a single panel (12
     * rows), 1x1 over one row of w columns */
    static const int64_t widths[] = {1, 7, 8, 9, 15, 16, 17, 24, 25, 31, 32, 33, 41, 47, 48, 56, 57};
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
        char name[64];
        geom(&k, 1, 9, 1, widths[i], 12, 1, 1, 1, 0, 1, 1);
        snprintf(name, sizeof name, "conv1x1 m=12 over %lld columns", (long long)widths[i]);
        run_case(&k, name);
    }
    /* stride 2 over the grid of phase planes (AVX-512 VNNI): a stem (7x7,
     * 3 channels, rows long enough for the vector gathers), and a 3x3 with
     * odd sizes, s8 input, a residual and 2 threads' column blocks */
    geom(&k, 1, 3, 45, 70, 16, 7, 7, 2, 3, 1, 1);
    k.act_relu = true;
    run_case(&k, "conv7x7 s2 p3 stem over phase planes");
    geom(&k, 2, 10, 37, 67, 9, 3, 3, 2, 1, 1, 1);
    k.q.x_signed = true, k.q.x_zp = 6;
    k.q.res = true, k.q.res_scale = 0.04f, k.q.res_zp = 120;
    run_case(&k, "conv3x3 s2 p1 over phase planes, s8, residual");
    /* on AVX-512 VNNI the padded-grid convs above read a 4-channel
     * interleaved window in place (checked against the portable path by
     * run_case); make sure that path is the one taken */
    if (fx_qisa_force(FX_QISA_AVX512VNNI)) {
        geom(&k, 1, 70, 7, 7, 33, 3, 3, 1, 1, 1, 1);
        qdata d;
        fill_case(&k, &d);
        fx_qconv *c = build(&k, &d);
        char desc[160];
        fx_qconv_describe(c, desc, sizeof desc);
        assert_non_null(strstr(desc, "4-channel window"));
        fx_qconv_free(c);
        free_data(&d);
        fx_qisa_force(FX_QISA_AUTO);
    } else {
        printf("# AVX-512 VNNI not on this CPU: the 4-channel window path is not run\n");
    }
}

/* Whether a conv of case k built under AVX-512 VNNI takes oneDNN's sums
 * (false: the CPU lacks AVX-512 VNNI, or oneDNN is not there). */
static bool takes_onednn(qcase *k) {
    if (!fx_qisa_force(FX_QISA_AVX512VNNI)) return false;
    qdata d;
    fill_case(k, &d);
    fx_qconv *c = build(k, &d);
    char desc[256];
    fx_qconv_describe(c, desc, sizeof desc);
    fx_qconv_free(c);
    free_data(&d);
    fx_qisa_force(FX_QISA_AUTO);
    return strstr(desc, "onednn") != NULL;
}

/* oneDNN's int8 sums (AVX-512 VNNI hosts, one thread) with nnfx's
 * epilogue: the same bytes as the portable path (run_case), at the
 * borders too, where oneDNN skips the taps in the pads and the zero
 * point's compensation changes with the taps inside (3x3 and 5x5 pads,
 * stride 2 with an end pad short of the window, zero points away from 0,
 * channel counts off 16 for the gathered tail, positions off 16, s8 input,
 * two images, residual and intermediate requantization, a 1x1 conv over a
 * 7x7 image, a strided 1x1 conv whose last window ends inside). */
static void test_onednn_sums(void **state) {
    (void)state;
    uint32_t rng_before = rng; /* the later tests' random cases as they were before this one */
    qcase k;
    geom(&k, 2, 24, 7, 9, 40, 3, 3, 1, 1, 1, 1);
    k.q.x_zp = 200;
    k.q.mid = true, k.q.mid_scale = 0.04f, k.q.mid_zp = 0;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 128;
    k.act_relu = true;
    bool host = fx_qisa_force(FX_QISA_AVX512VNNI) && fx_dnnl_enabled(); /* the path's hosts */
    fx_qisa_force(FX_QISA_AUTO);
    if (!host) {
        printf("# no AVX-512 VNNI or no oneDNN: oneDNN's int8 sums not run\n");
        return;
    }
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 3x3 s1, zp 200, 40 channels, requant + residual");
    geom(&k, 1, 19, 13, 11, 33, 5, 5, 1, 2, 1, 1);
    k.q.x_zp = 77;
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 5x5 s1 p2, 19 -> 33 channels");
    geom(&k, 1, 32, 15, 14, 48, 3, 3, 2, 1, 1, 1);
    k.q.x_zp = 255;
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 3x3 s2 p1, zp 255");
    geom(&k, 1, 16, 9, 9, 16, 3, 3, 1, 1, 1, 1);
    k.q.x_signed = true, k.q.x_zp = -100, k.q.y_signed = true, k.q.y_zp = 5, k.q.fixed = true;
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 3x3 s8 input, fixed point");
    geom(&k, 1, 48, 7, 7, 40, 1, 1, 1, 0, 1, 1); /* 1x1 over 49 positions */
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 9;
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 1x1 over 7x7, residual");
    geom(&k, 1, 32, 14, 12, 24, 1, 1, 2, 0, 1, 1); /* the last window ends inside the image */
    assert_true(takes_onednn(&k));
    run_case(&k, "onednn 1x1 s2 over an even size");
    rng = rng_before;
}

static void test_conv_7bit_weights(void **state) {
    (void)state;
    /* weights in [-64, 64]: the vpmaddubsw tile is exact and must be picked */
    qcase k;
    geom(&k, 1, 9, 10, 9, 11, 3, 3, 1, 1, 1, 1);
    k.wlo = -64, k.whi = 64;
    qdata d;
    fill_case(&k, &d);
    fx_qconv *c = build(&k, &d);
    char desc[160];
    fx_qconv_describe(c, desc, sizeof desc);
    if (fx_qisa_active() == FX_QISA_AVX2) assert_non_null(strstr(desc, "maddubs"));
    fx_qconv_free(c);
    free_data(&d);
    run_case(&k, "conv3x3 7-bit weights (maddubs)");
}

/* 8-bit weights with a few pairs past |w0| + |w1| = 128: split into a safe
 * pair plus a correction, the vpmaddubsw kernel must be picked (AVX2) and
 * stay exact, also where x = 255 would saturate an unsplit pair. */
static void check_fixes(qcase *k, const char *name) {
    qdata d;
    fill_case(k, &d);
    fx_qconv *c = build(k, &d);
    char desc[160];
    fx_qconv_describe(c, desc, sizeof desc);
    if (fx_qisa_active() == FX_QISA_AVX2 && !strstr(desc, "maddubs + fixes"))
        fail_msg("%s: %s: the corrected vpmaddubsw kernel was not picked", name, desc);
    fx_qconv_free(c);
    free_data(&d);
    run_case(k, name);
}

static void test_split_pairs(void **state) {
    (void)state;
    qcase k;
    geom(&k, 1, 9, 10, 9, 11, 3, 3, 1, 1, 1, 1); /* K = 81: odd, a last lone k */
    k.spikes = 1;
    check_fixes(&k, "conv3x3 8-bit weights, split pairs");
    geom(&k, 1, 9, 10, 9, 11, 3, 3, 1, 1, 1, 1);
    k.spikes = 1, k.xmode = 1, k.q.x_zp = 0, k.q.x_scale = 0.001f;
    check_fixes(&k, "conv3x3 split pairs, x at 255");
    geom(&k, 1, 40, 9, 10, 12, 1, 1, 1, 0, 1, 1);
    k.spikes = 1;
    k.q.mid = true, k.q.mid_scale = 0.04f, k.q.mid_zp = 0;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 128;
    k.act_relu = true;
    check_fixes(&k, "conv1x1 split pairs + requant + residual add");
    memset(&k, 0, sizeof k);
    k.fc = true, k.rows = 8, k.g.c = 130, k.g.m = 33, k.g.n = 1, k.g.group = 1, k.spikes = 1;
    k.q.x_scale = 0.01f, k.q.x_zp = 120, k.q.y_scale = 0.08f, k.q.y_zp = 128, k.q.w_scale_n = 33;
    check_fixes(&k, "fc 8x130x33 split pairs");
}

static void test_saturation_edges(void **state) {
    (void)state;
    qcase k;
    /* x all 255 against weights -128 / 127: int16 pair sums of 2 * 255 * 128
     * would saturate vpmaddubsw; the output saturates at both ends */
    for (int mode = 1; mode <= 2; mode++) {
        geom(&k, 1, 64, 5, 6, 9, 3, 3, 1, 1, 1, 1);
        k.xmode = mode;
        k.q.x_zp = mode == 1 ? 0 : 255;
        k.q.x_scale = 0.001f;
        run_case(&k, mode == 1 ? "x at 255, full-range weights" : "x at 0 (zp 255), full-range weights");
    }
    geom(&k, 1, 64, 5, 6, 9, 3, 3, 1, 1, 1, 1);
    k.xmode = 1, k.q.x_signed = true, k.q.x_zp = -128, k.q.x_scale = 0.0005f;
    run_case(&k, "s8 x at 127");
    /* a huge scale: every output saturates */
    geom(&k, 1, 8, 5, 5, 5, 3, 3, 1, 1, 1, 1);
    k.q.y_scale = 1e-6f;
    run_case(&k, "outputs saturated");
}

static void test_depthwise(void **state) {
    (void)state;
    qcase k;
    geom(&k, 2, 13, 11, 17, 13, 3, 3, 1, 1, 1, 13);
    k.act_clip = true;
    run_case(&k, "dwconv3x3 s1 clip");
    geom(&k, 1, 9, 14, 19, 9, 3, 3, 2, 1, 1, 9);
    run_case(&k, "dwconv3x3 s2");
    geom(&k, 1, 5, 13, 29, 5, 5, 5, 2, 2, 1, 5);
    k.q.x_signed = true, k.q.x_zp = 4;
    run_case(&k, "dwconv5x5 s2 s8");
    geom(&k, 1, 3, 11, 21, 3, 5, 5, 1, 2, 1, 3);
    run_case(&k, "dwconv5x5 s1");
    geom(&k, 1, 4, 12, 20, 4, 3, 3, 1, 2, 2, 4);
    run_case(&k, "dwconv3x3 dilation 2");
    /* rows of whole vectors (ow = 24): the epilogue per row on the grid */
    geom(&k, 1, 5, 7, 24, 5, 3, 3, 1, 1, 1, 5);
    k.q.res = true, k.q.res_scale = 0.02f, k.q.res_zp = 100;
    run_case(&k, "dwconv3x3 s1 ow 24 + residual add");
    /* rows narrower than a vector (7 x 7, 5 x 9): the u8 path's long row
     * over the padded grid */
    geom(&k, 2, 6, 7, 7, 6, 3, 3, 1, 1, 1, 6);
    k.act_clip = true;
    run_case(&k, "dwconv3x3 s1 7x7 clip");
    geom(&k, 1, 3, 5, 9, 3, 5, 5, 1, 2, 1, 3);
    k.q.x_signed = true, k.q.x_zp = -6;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 90;
    run_case(&k, "dwconv5x5 s1 5x9 s8 + residual add");
}

static void test_residual(void **state) {
    (void)state;
    qcase k;
    /* conv -> Relu -> Q -> DQ -> Add(DQ(r)) -> Relu -> Q */
    geom(&k, 1, 8, 9, 10, 12, 3, 3, 1, 1, 1, 1);
    k.q.mid = true, k.q.mid_scale = 0.04f, k.q.mid_zp = 0;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 128;
    k.act_relu = true;
    run_case(&k, "conv + requant + residual add + relu");
    /* the same on 7-bit weights: the vpmaddubsw tile with the fused epilogue */
    geom(&k, 1, 8, 9, 10, 12, 3, 3, 1, 1, 1, 1);
    k.wlo = -64, k.whi = 63;
    k.q.mid = true, k.q.mid_scale = 0.04f, k.q.mid_zp = 0;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 128;
    k.act_relu = true;
    run_case(&k, "conv + requant + residual add + relu, 7-bit weights (maddubs)");
    /* conv -> Add(DQ(r)) -> Q, s8 residual */
    geom(&k, 1, 8, 9, 10, 12, 1, 1, 1, 0, 1, 1);
    k.q.res = true, k.q.res_signed = true, k.q.res_scale = 0.03f, k.q.res_zp = -2;
    run_case(&k, "conv1x1 + residual add (s8)");
    /* the padded grid (wide rows): residual staged in and outputs out of
     * the grid, two images, two groups, several column blocks, s8 input */
    geom(&k, 2, 12, 9, 30, 10, 3, 3, 1, 1, 1, 2);
    k.q.mid = true, k.q.mid_scale = 0.04f, k.q.mid_zp = 0;
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 128;
    k.q.x_signed = true, k.q.x_zp = -4;
    k.act_relu = true;
    expect_in_desc("padded grid");
    run_case(&k, "conv3x3 padded grid + requant + residual add + relu, groups 2");
    geom(&k, 1, 160, 13, 30, 7, 3, 3, 1, 1, 1, 1);
    k.q.res = true, k.q.res_scale = 0.03f, k.q.res_zp = 90;
    expect_in_desc("padded grid");
    run_case(&k, "conv3x3 padded grid K=1440, column blocks, residual");
    geom(&k, 1, 6, 9, 10, 6, 3, 3, 1, 1, 1, 6);
    k.q.res = true, k.q.res_scale = 0.02f, k.q.res_zp = 100;
    run_case(&k, "dwconv + residual add");
}

static void test_fc(void **state) {
    (void)state;
    qcase k;
    /* rows x k x m; the last three reach every tile shape of the AVX-512
     * VNNI path (32, 16 and 8 columns; 8-row pairs of weight panels with 8
     * and 5 rows, and a single 1-row panel after a pair) */
    int64_t shapes[][3] = {{1, 512, 1000}, {3, 37, 11}, {17, 9, 5},  {8, 130, 33},
                           {41, 20, 13},   {37, 16, 9}, {64, 33, 8}, {2, 100, 7}};
    for (int i = 0; i < 8; i++) {
        memset(&k, 0, sizeof k);
        k.fc = true;
        k.rows = shapes[i][0];
        k.g.c = shapes[i][1], k.g.m = shapes[i][2], k.g.n = 1, k.g.group = 1;
        k.wlo = -128, k.whi = 127;
        k.q.x_scale = 0.01f, k.q.x_zp = 120, k.q.y_scale = 0.08f, k.q.y_zp = 128;
        k.q.w_scale_n = i == 2 ? 1 : k.g.m;
        k.q.x_signed = i == 3 || i == 7, k.q.y_signed = i == 3; /* the last: few rows (a dot product each), s8 */
        char name[64];
        snprintf(name, sizeof name, "fc %lldx%lldx%lld", (long long)k.rows, (long long)k.g.c, (long long)k.g.m);
        run_case(&k, name);
        if (i == 0 || i == 3 || i == 7) { /* s8 -> s8 with TFLite's fixed-point requantization (gemv, tiles) */
            k.q.x_signed = k.q.y_signed = k.q.fixed = true;
            k.q.x_zp = -9, k.q.y_zp = 5;
            snprintf(name, sizeof name, "fc %lldx%lldx%lld fixed point", (long long)k.rows, (long long)k.g.c,
                     (long long)k.g.m);
            run_case(&k, name);
        }
    }
}

/* Why the pair check matters: the vpmaddubsw tile on full-range weights and
 * x = 255 saturates its int16 pair sums (the madd16 tile and the portable
 * path do not), so fx_qgemm_pack_w must flag such weights unsafe. */
static void test_maddubs_saturates(void **state) {
    (void)state;
    if (!fx_qisa_force(FX_QISA_AVX2)) {
        printf("# no AVX2 on this CPU: vpmaddubsw not run\n");
        return;
    }
    int8_t w[4 * 8];
    uint8_t x[8 * 8];
    for (int i = 0; i < 32; i++)
        w[i] = i % 2 ? 127 : -128;
    for (int i = 0; i < 8; i++) /* row 0: pairs of 127 * 255 * 2 > 32767 */
        w[i] = 127;
    memset(x, 255, sizeof x);
    fx_qgemm_w pw, pc;
    assert_true(fx_qgemm_pack_w(&pw, w, 4, 8, 8)); /* AVX2: unsafe pairs take vpmaddwd */
    assert_false(pw.pair_safe);
    assert_int_equal(pw.kern, FX_QK_MADD);
    fx_qisa_force(FX_QISA_C);
    assert_true(fx_qgemm_pack_w(&pc, w, 4, 8, 8)); /* the quad packing vpmaddubsw reads */
    fx_qisa_force(FX_QISA_AUTO);
    uint8_t b[2 * 32], b16[4 * 32];
    const uint8_t *r[4] = {x, x + 8, x + 16, x + 24};
    fx_qpack_b_step(&pc, r, 8, 0, b);
    fx_qpack_b_step(&pc, r, 8, 1, b);
    for (int s = 0; s < 4; s++)
        fx_qpack_b_step(&pw, r, 8, s, b16);
    int32_t c[96], u[96], m16[96];
    fx_qtile_c(2, pc.a, b, 1, c);
    fx_qtile_avx2_ubs(2, pc.a, b, 1, NULL, NULL, u);
    fx_qtile_avx2_madd(4, pw.a16, b16, 1, m16);
    assert_int_equal(c[0], 255 * 127 * 8);
    assert_int_not_equal(u[0], c[0]); /* saturated */
    for (int rr = 0; rr < 4; rr++)
        for (int j = 0; j < 8; j++)
            assert_int_equal(m16[rr * 16 + j], c[rr * 16 + j]);
    fx_qgemm_w_free(&pw);
    fx_qgemm_w_free(&pc);
}

/* Random shapes: a small fuzz over geometry and parameters. */
static void test_random_convs(void **state) {
    (void)state;
    for (int it = 0; it < 24; it++) {
        qcase k;
        int64_t kh = irand(1, 4), s = irand(1, 3), dil = irand(1, 2), p = irand(0, 2), group = irand(1, 3);
        int64_t c = group * irand(1, 5), m = group * irand(1, 6);
        if (it % 4 == 0) c = m = group = irand(2, 9); /* depthwise */
        int64_t h = dil * (kh - 1) + irand(1, 12), w = dil * (kh - 1) + irand(1, 12);
        geom(&k, irand(1, 2), c, h, w, m, kh, kh, s, p, dil, group);
        k.q.x_signed = irand(0, 1), k.q.y_signed = irand(0, 1);
        k.q.x_zp = k.q.x_signed ? irand(-20, 20) : irand(0, 255);
        k.q.y_zp = k.q.y_signed ? irand(-20, 20) : irand(0, 255);
        k.q.x_scale = frand(0.005f, 0.05f), k.q.y_scale = frand(0.01f, 0.2f);
        k.q.w_scale_n = irand(0, 1) ? 1 : m;
        k.act_relu = irand(0, 1);
        if (irand(0, 3) == 0) k.wlo = -60, k.whi = 60;
        char name[64];
        snprintf(name, sizeof name, "random conv %d", it);
        run_case(&k, name);
        if (k.q.x_signed && k.q.y_signed) { /* the same with TFLite's fixed-point requantization */
            k.q.fixed = true;
            snprintf(name, sizeof name, "random conv %d, fixed point", it);
            run_case(&k, name);
        }
    }
}

/* int8 MaxPool (pads, stride, dilation; same and different quantization on
 * both sides) and GlobalAveragePool against DQ -> float pool -> Q in
 * double: max pool exactly, average pool up to a unit at a tie. */
static void test_pools(void **state) {
    (void)state;
    for (int it = 0; it < 10; it++) {
        fx_qpool_geom g = {0};
        g.global_avg = it == 4 || it == 5;
        g.n = 2, g.c = 3, g.h = 9 + it, g.w = 7 + 2 * it;
        g.kh = g.kw = 2 + it % 2, g.sh = g.sw = 1 + it % 2, g.ph = g.pw = it % 2, g.dh = g.dw = it == 3 ? 2 : 1;
        if (it == 6 || it == 7) /* 3x3 / 2, pad 1, rows of 8+ outputs: the vector path */
            g.h = 23, g.w = 37 + it, g.kh = g.kw = 3, g.sh = g.sw = 2, g.ph = g.pw = 1;
        if (it == 8) /* pads as wide as the window: edge windows hold no input (-inf) */
            g.kh = g.kw = 2, g.sh = g.sw = 1, g.ph = g.pw = 2;
        if (it == 9) /* s8, 3x3 / 1: the vector path on flipped keys */
            g.kh = g.kw = 3, g.sh = g.sw = 1, g.ph = g.pw = 1;
        g.oh = g.global_avg ? 1 : (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
        g.ow = g.global_avg ? 1 : (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
        g.x_signed = it % 2, g.y_signed = it == 1;
        g.x_scale = 0.03f, g.x_zp = g.x_signed ? -4 : 17;
        bool same = it == 2 || it == 6 || it == 8 || it == 9;
        g.y_scale = same ? g.x_scale : 0.045f, g.y_zp = same ? g.x_zp : (g.y_signed ? 3 : 40);
        int64_t nx = g.n * g.c * g.h * g.w, ny = g.n * g.c * g.oh * g.ow;
        uint8_t *x = malloc((size_t)nx), *y = malloc((size_t)ny);
        for (int64_t i = 0; i < nx; i++)
            x[i] = (uint8_t)irand(0, 255);
        fx_qpool *p = fx_qpool_new(&g);
        assert_non_null(p);
        fx_qpool_run(p, NULL, x, y);
        for (int64_t t = 0; t < g.n * g.c; t++)
            for (int64_t oy = 0; oy < g.oh; oy++)
                for (int64_t ox = 0; ox < g.ow; ox++) {
                    double v = g.global_avg ? 0 : -INFINITY;
                    for (int64_t iy = 0; iy < g.h; iy++)
                        for (int64_t ix = 0; ix < g.w; ix++) {
                            double xv = (xval(g.x_signed, x, (t * g.h + iy) * g.w + ix) - g.x_zp) * g.x_scale;
                            if (g.global_avg) {
                                v += xv / (double)(g.h * g.w);
                                continue;
                            }
                            int64_t dy = iy - (oy * g.sh - g.ph), dx = ix - (ox * g.sw - g.pw);
                            if (dy < 0 || dx < 0 || dy % g.dh || dx % g.dw || dy / g.dh >= g.kh || dx / g.dw >= g.kw)
                                continue;
                            if (xv > v) v = xv;
                        }
                    double u = v / g.y_scale;
                    double want = clampd(rne(u) + g.y_zp, g.y_signed ? -128 : 0, g.y_signed ? 127 : 255);
                    double got = xval(g.y_signed, y, (t * g.oh + oy) * g.ow + ox);
                    bool tie = fabs(fabs(u - floor(u)) - 0.5) < 1e-3;
                    if (got != want && !(tie && fabs(got - want) <= 1))
                        fail_msg("pool case %d: (%lld, %lld, %lld): got %g, reference %g", it, (long long)t,
                                 (long long)oy, (long long)ox, got, want);
                }
        fx_qpool_free(p);
        free(x), free(y);
    }
}

/* ---- model level: a QDQ model through the compiled plan ----------------- */

/* Runs tests/data/qdq/<name>.onnx through the compiled plan (on each ISA)
 * and the interpreter; both must agree with the reference outputs of the
 * fixture script (DQ -> float op -> Q in PyTorch float32; for PyTorch FX's
 * export, which has none, the interpreter): max |diff| <= one output
 * quantization step, and the same top-1 per row. The islands must
 * have run as int8 kernels (`want` of them in the plan). */
static void check_model(const char *name, int want, bool have_ref) {
    char rel[128], path[512];
    snprintf(rel, sizeof rel, "qdq/%s.onnx", name);
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, rel), &err);
    if (!g) fail_msg("%s", err.msg);
    snprintf(rel, sizeof rel, "qdq/%s_x.npy", name);
    nnfx_tensor *x = tu_load_npy(rel);
    nnfx_gm *gm = nnfx_gm_new(g, &err);
    assert_non_null(gm);
    nnfx_tensor *ref = NULL;
    if (have_ref) {
        snprintf(rel, sizeof rel, "qdq/%s_ref.npy", name);
        ref = tu_load_npy(rel);
    } else { /* ONNX Runtime checks this one (qdq_int8_vs_onnxruntime); here the interpreter */
        nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
        int nr = 0;
        if (!ip || nnfx_interp_run(ip, 1, &x, 1, &ref, &nr, &err)) fail_msg("%s", err.msg);
        nnfx_interp_free(ip);
    }
    /* the output step: the smallest non-zero gap between reference values */
    const float *r = ref->data;
    int64_t n = nnfx_tensor_numel(ref), cols = ref->shape[ref->rank - 1];
    double step = INFINITY;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double d = fabs((double)r[i] - r[j]);
            if (d > 1e-7 && d < step) step = d;
        }
    fx_qisa isas[4] = {FX_QISA_C, FX_QISA_AVX2, FX_QISA_AVXVNNI, FX_QISA_AVX512VNNI};
    for (int ii = 0; ii < 5; ii++) {
        nnfx_tensor *out = NULL;
        int nout = 0;
        const char *how = "interpreter";
        if (ii < 4) {
            if (!fx_qisa_force(isas[ii])) continue;
            how = fx_qisa_name(isas[ii]);
            assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
            if (nnfx_gm_run(gm, 1, &x, 1, &out, &nout, &err)) fail_msg("%s", err.msg);
            char *plan = nnfx_gm_plan(gm, &err);
            int k = 0;
            for (const char *p = plan; (p = strstr(p, " int8 (")); p++)
                k++;
            if (k != want) fail_msg("%s: %d int8 steps in the plan, want %d:\n%s", name, k, want, plan);
            free(plan);
        } else {
            fx_qisa_force(FX_QISA_AUTO);
            nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
            if (!ip || nnfx_interp_run(ip, 1, &x, 1, &out, &nout, &err)) fail_msg("%s", err.msg);
            nnfx_interp_free(ip);
        }
        const float *o = out->data;
        assert_int_equal(nnfx_tensor_numel(out), n);
        double maxd = 0;
        int64_t ndiff = 0;
        for (int64_t i = 0; i < n; i++) {
            double d = fabs((double)o[i] - r[i]);
            if (d > maxd) maxd = d;
            ndiff += d > 1e-6;
        }
        for (int64_t row = 0; row < n / cols; row++) {
            int64_t a = 0, b = 0;
            for (int64_t j = 1; j < cols; j++) {
                if (o[row * cols + j] > o[row * cols + a]) a = j;
                if (r[row * cols + j] > r[row * cols + b]) b = j;
            }
            if (a != b)
                fail_msg("%s [%s]: row %lld top-1 %lld, reference %lld", name, how, (long long)row, (long long)a,
                         (long long)b);
        }
        printf("# %s [%s]: max |diff| %.3g (output step %.3g), %lld of %lld values differ\n", name, how, maxd, step,
               (long long)ndiff, (long long)n);
        if (maxd > step * 1.001) fail_msg("%s [%s]: max |diff| %g > one output step %g", name, how, maxd, step);
        nnfx_tensor_release(out);
    }
    fx_qisa_force(FX_QISA_AUTO);
    nnfx_tensor_release(x);
    nnfx_tensor_release(ref);
    nnfx_gm_free(gm);
}

static void test_qdq_models(void **state) {
    (void)state;
    check_model("qdq_cnn", 8, true);
    check_model("qdq_matmul", 1, true);
    check_model("qdq_fx_small", 5, false); /* PyTorch FX's export: Q -> Cast -> DQ, residual add */
}

/* ---- element-wise regions on one int8 value: the plan's 256-entry tables ---- */

static nnfx_node *lut_scalar(nnfx_graph *g, const char *name, nnfx_dtype dt, double v) {
    nnfx_tensor *t = nnfx_tensor_new(dt, 0, NULL, NULL);
    if (dt == NNFX_F32) *(float *)t->data = (float)v;
    if (dt == NNFX_I8) *(int8_t *)t->data = (int8_t)v;
    if (dt == NNFX_U8) *(uint8_t *)t->data = (uint8_t)v;
    assert_int_equal(nnfx_graph_set_param(g, name, t, NULL), NNFX_OK);
    nnfx_tensor_release(t);
    nnfx_node *n = nnfx_graph_get_attr(g, name, NULL);
    assert_non_null(n);
    return n;
}

static nnfx_node *lut_op(nnfx_graph *g, nnfx_op o, nnfx_node *a, nnfx_node *b, int nattrs, const nnfx_attr *at) {
    nnfx_error err = {0};
    nnfx_arg args[2] = {nnfx_arg_node(a), b ? nnfx_arg_node(b) : nnfx_arg_none()};
    nnfx_node *n = nnfx_graph_call_op(g, o, b ? 2 : 1, args, nattrs, at, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

/* x -> Q -> DQ -> region `kind` -> Q -> DQ: the region on every one of the
 * 256 int8 (or uint8) inputs x holds. */
static nnfx_graph *lut_graph(int kind, nnfx_dtype dt, float xs, int xz, float ys, int yz) {
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[4] = {1, 4, 8, 8};
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 4, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, NULL);
    nnfx_node *s1 = lut_scalar(g, "xs", NNFX_F32, xs), *z1 = lut_scalar(g, "xz", dt, xz);
    nnfx_node *s2 = lut_scalar(g, "ys", NNFX_F32, ys), *z2 = lut_scalar(g, "yz", dt, yz);
    nnfx_error err = {0};
    nnfx_arg qa[3] = {nnfx_arg_node(x), nnfx_arg_node(s1), nnfx_arg_node(z1)};
    nnfx_node *q = nnfx_graph_call_op(g, NNFX_OP_QUANTIZE_LINEAR, 3, qa, 0, NULL, &err);
    qa[0] = nnfx_arg_node(q);
    nnfx_node *v = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 3, qa, 0, NULL, &err), *y = NULL;
    assert_non_null(v);
    nnfx_attr hs[2] = {nnfx_attr_float("alpha", 0.25), nnfx_attr_float("beta", 0.4)};
    switch (kind) {
    case 0: y = lut_op(g, NNFX_OP_SIGMOID, v, NULL, 0, NULL); break;
    case 1: y = lut_op(g, NNFX_OP_MUL, v, lut_op(g, NNFX_OP_SIGMOID, v, NULL, 0, NULL), 0, NULL); break; /* swish */
    case 2: y = lut_op(g, NNFX_OP_TANH, v, NULL, 0, NULL); break;
    case 3: y = lut_op(g, NNFX_OP_HARD_SWISH, v, NULL, 0, NULL); break;
    case 4: y = lut_op(g, NNFX_OP_HARD_SIGMOID, v, NULL, 2, hs); break;
    default: { /* erf GELU: x * 0.5 * (1 + erf(x / sqrt 2)) */
        nnfx_node *e =
            lut_op(g, NNFX_OP_ERF, lut_op(g, NNFX_OP_DIV, v, lut_scalar(g, "r2", NNFX_F32, 1.4142135), 0, NULL), NULL,
                   0, NULL);
        nnfx_node *h = lut_op(g, NNFX_OP_MUL, v, lut_scalar(g, "half", NNFX_F32, 0.5), 0, NULL);
        y = lut_op(g, NNFX_OP_MUL, h, lut_op(g, NNFX_OP_ADD, e, lut_scalar(g, "one", NNFX_F32, 1.0), 0, NULL), 0, NULL);
    }
    }
    nnfx_arg ya[3] = {nnfx_arg_node(y), nnfx_arg_node(s2), nnfx_arg_node(z2)};
    nnfx_node *yq = nnfx_graph_call_op(g, NNFX_OP_QUANTIZE_LINEAR, 3, ya, 0, NULL, &err);
    ya[0] = nnfx_arg_node(yq);
    nnfx_node *yd = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 3, ya, 0, NULL, &err);
    assert_non_null(yd);
    assert_non_null(nnfx_graph_output(g, 1, &yd, &err));
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    return g;
}

/* The plan runs each region as one table step and gives the interpreter's
 * DQ -> float ops -> Q bytes at all 256 inputs, int8 and uint8. */
static void test_lut_regions(void **state) {
    (void)state;
    const char *names[6] = {"sigmoid", "x*sigmoid(x)", "tanh", "hard_swish", "hard_sigmoid", "erf gelu"};
    for (int kind = 0; kind < 6; kind++)
        for (int sg = 0; sg < 2; sg++) {
            nnfx_dtype dt = sg ? NNFX_I8 : NNFX_U8;
            float xs = 0.043f + 0.01f * (float)kind, ys = kind == 0 || kind == 4 ? 1.0f / 250.0f : 0.031f;
            int xz = sg ? -7 + kind : 121 + kind, yz = sg ? (kind == 0 || kind == 4 ? -125 : -20) : 40;
            nnfx_error err = {0};
            nnfx_gm *gm = nnfx_gm_new(lut_graph(kind, dt, xs, xz, ys, yz), &err);
            assert_non_null(gm);
            int64_t d[4] = {1, 4, 8, 8};
            nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, d, NULL);
            for (int v = 0; v < 256; v++) /* every int8 / uint8 value, in a scrambled order */
                ((float *)x->data)[(v * 97) % 256] = ((float)((sg ? v - 128 : v) - xz)) * xs;
            nnfx_tensor *y = NULL, *ref = NULL;
            int nout = 0;
            if (nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err)) fail_msg("%s", err.msg);
            char *plan = nnfx_gm_plan(gm, &err);
            if (!strstr(plan, "int8 table (256 entries)"))
                fail_msg("%s: no table step in the plan:\n%s", names[kind], plan);
            free(plan);
            nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
            if (!ip || nnfx_interp_run(ip, 1, &x, 1, &ref, &nout, &err)) fail_msg("%s", err.msg);
            nnfx_interp_free(ip);
            int distinct = 0;
            for (int64_t i = 0; i < 256; i++) {
                float a = ((const float *)y->data)[i], b = ((const float *)ref->data)[i];
                if (a != b)
                    fail_msg("%s %s: input %lld gives %g, the interpreter %g", names[kind], sg ? "s8" : "u8",
                             (long long)i, a, b);
                distinct += i == 0 || b != ((const float *)ref->data)[i - 1];
            }
            assert_true(distinct > 8); /* the table is not flat: the case tests something */
            nnfx_tensor_release(x), nnfx_tensor_release(y), nnfx_tensor_release(ref);
            nnfx_gm_free(gm);
        }
}

/* ---- Conv -> Q1 -> [Cast] -> DQ1 -> Relu | Clip -> Q2: one kernel ---------- */

static nnfx_node *qnode(nnfx_graph *g, nnfx_op o, nnfx_node *v, nnfx_node *s, nnfx_node *z, int nattrs,
                        const nnfx_attr *at) {
    nnfx_error err = {0};
    nnfx_arg a[3] = {nnfx_arg_node(v), nnfx_arg_node(s), nnfx_arg_node(z)};
    nnfx_node *n = nnfx_graph_call_op(g, o, 3, a, nattrs, at, &err);
    if (!n) fail_msg("%s", err.msg);
    return n;
}

/* x [1, 8, 9, 9] -> Q -> DQ -> Conv 3x3 (pads 1, `group` groups, per-channel
 * int8 weights, bias) -> Q1 -> [Cast to the same type] -> DQ1 -> Relu (act
 * 0) or Clip(0, 1.5) (act 1) -> Q2 -> DQ2, activations int8 (sg) or uint8. */
static nnfx_graph *act_mid_graph(bool sg, int group, int act, bool cast) {
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[4] = {1, 8, 9, 9}, wd[4] = {8, 8 / group, 3, 3}, m = 8;
    nnfx_dtype dt = sg ? NNFX_I8 : NNFX_U8;
    nnfx_meta mt;
    nnfx_meta_set_shape(&mt, NNFX_F32, 4, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &mt, NULL);
    nnfx_node *xs = lut_scalar(g, "xs", NNFX_F32, 0.05), *xz = lut_scalar(g, "xz", dt, sg ? -3 : 120);
    nnfx_node *s1 = lut_scalar(g, "s1", NNFX_F32, 0.07), *z1 = lut_scalar(g, "z1", dt, sg ? 5 : 100);
    nnfx_node *s2 = lut_scalar(g, "s2", NNFX_F32, 0.011), *z2 = lut_scalar(g, "z2", dt, sg ? -128 : 0);
    nnfx_tensor *w = nnfx_tensor_new(NNFX_I8, 4, wd, NULL), *ws = nnfx_tensor_new(NNFX_F32, 1, &m, NULL);
    nnfx_tensor *b = nnfx_tensor_new(NNFX_F32, 1, &m, NULL);
    uint32_t r = 12345;
    for (int64_t i = 0; i < nnfx_tensor_numel(w); i++) {
        r = r * 1103515245u + 12345u;
        ((int8_t *)w->data)[i] = (int8_t)((int)((r >> 16) % 255) - 127);
    }
    for (int64_t i = 0; i < m; i++) {
        ((float *)ws->data)[i] = (group == 1 ? 0.0009f : 0.004f) * (float)(1 + i % 3);
        ((float *)b->data)[i] = 0.3f * (float)(i % 4) - 0.4f;
    }
    assert_int_equal(nnfx_graph_set_param(g, "w", w, NULL), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "ws", ws, NULL), NNFX_OK);
    assert_int_equal(nnfx_graph_set_param(g, "b", b, NULL), NNFX_OK);
    nnfx_tensor_release(w), nnfx_tensor_release(ws), nnfx_tensor_release(b);
    nnfx_node *wz = lut_scalar(g, "wz", NNFX_I8, 0);
    (void)wz;
    nnfx_attr ax = nnfx_attr_int("axis", 0);
    nnfx_error err = {0};
    nnfx_arg wa[2] = {nnfx_arg_node(nnfx_graph_get_attr(g, "w", NULL)),
                      nnfx_arg_node(nnfx_graph_get_attr(g, "ws", NULL))};
    nnfx_node *wdq = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 2, wa, 1, &ax, &err);
    assert_non_null(wdq);
    nnfx_node *v =
        qnode(g, NNFX_OP_DEQUANTIZE_LINEAR, qnode(g, NNFX_OP_QUANTIZE_LINEAR, x, xs, xz, 0, NULL), xs, xz, 0, NULL);
    int64_t pads[4] = {1, 1, 1, 1};
    nnfx_attr ca[2] = {nnfx_attr_ints("pads", 4, pads), nnfx_attr_int("group", group)};
    nnfx_arg cv[3] = {nnfx_arg_node(v), nnfx_arg_node(wdq), nnfx_arg_node(nnfx_graph_get_attr(g, "b", NULL))};
    nnfx_node *conv = nnfx_graph_call_op(g, NNFX_OP_CONV, 3, cv, 2, ca, &err);
    assert_non_null(conv);
    nnfx_node *q1 = qnode(g, NNFX_OP_QUANTIZE_LINEAR, conv, s1, z1, 0, NULL);
    if (cast) { /* PyTorch's export: a Cast to the same type */
        nnfx_attr to = nnfx_attr_int("to", sg ? 3 : 2);
        q1 = lut_op(g, NNFX_OP_CAST, q1, NULL, 1, &to);
    }
    nnfx_node *d1 = qnode(g, NNFX_OP_DEQUANTIZE_LINEAR, q1, s1, z1, 0, NULL), *a;
    if (act == 0) {
        a = lut_op(g, NNFX_OP_RELU, d1, NULL, 0, NULL);
    } else {
        nnfx_arg cl[3] = {nnfx_arg_node(d1), nnfx_arg_node(lut_scalar(g, "lo", NNFX_F32, 0.0)),
                          nnfx_arg_node(lut_scalar(g, "hi", NNFX_F32, 1.5))};
        a = nnfx_graph_call_op(g, NNFX_OP_CLIP, 3, cl, 0, NULL, &err);
        assert_non_null(a);
    }
    nnfx_node *y =
        qnode(g, NNFX_OP_DEQUANTIZE_LINEAR, qnode(g, NNFX_OP_QUANTIZE_LINEAR, a, s2, z2, 0, NULL), s2, z2, 0, NULL);
    assert_non_null(nnfx_graph_output(g, 1, &y, &err));
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    return g;
}

/* The plan folds DQ1 -> Relu / Clip -> Q2 into the conv's epilogue (an
 * intermediate requantization, no table step; int8 in and int8 Q1 keep
 * the fixed-point conv and the table) and gives the interpreter's
 * values to within one output step (a tie rounded the other way), on every
 * ISA path; the outputs reach both bounds, so the activation is tested. */
static void test_act_after_requant(void **state) {
    (void)state;
    fx_qisa isas[4] = {FX_QISA_C, FX_QISA_AVX2, FX_QISA_AVXVNNI, FX_QISA_AVX512VNNI};
    for (int c = 0; c < 16; c++) {
        bool sg = c & 1, cast = c & 8;
        int group = c & 2 ? 8 : 1, act = (c >> 2) & 1;
        nnfx_error err = {0};
        nnfx_gm *gm = nnfx_gm_new(act_mid_graph(sg, group, act, cast), &err);
        assert_non_null(gm);
        int64_t d[4] = {1, 8, 9, 9};
        nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, d, NULL), *ref = NULL;
        for (int64_t i = 0; i < nnfx_tensor_numel(x); i++)
            ((float *)x->data)[i] = 6.0f * sinf(0.37f * (float)i + 0.5f * (float)c);
        int nout = 0;
        nnfx_interp *ip = nnfx_interp_new(nnfx_gm_graph(gm), NULL, NULL, &err);
        if (!ip || nnfx_interp_run(ip, 1, &x, 1, &ref, &nout, &err)) fail_msg("%s", err.msg);
        nnfx_interp_free(ip);
        const float *rv = ref->data;
        int64_t n = nnfx_tensor_numel(ref), at_lo = 0, at_hi = 0;
        float hi = 0.011f * (act ? 136.0f : 255.0f); /* Clip 1.5: level 136 of Q2; Relu: the type's top */
        for (int64_t i = 0; i < n; i++)
            at_lo += rv[i] == 0.0f, at_hi += fabsf(rv[i] - hi) < 1e-4f;
        printf("# case %d: %lld at 0, %lld at the top, of %lld\n", c, (long long)at_lo, (long long)at_hi, (long long)n);
        fflush(stdout);
        assert_true(at_lo > 0 && at_hi > 0 && at_lo + at_hi < n);
        for (int ii = 0; ii < 4; ii++) {
            if (!fx_qisa_force(isas[ii])) continue;
            assert_int_equal(nnfx_gm_recompile(gm, &err), NNFX_OK);
            nnfx_tensor *y = NULL;
            if (nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err)) fail_msg("%s", err.msg);
            char *plan = nnfx_gm_plan(gm, &err);
            if (!sg && (!strstr(plan, "+ requant") || strstr(plan, "int8 table")))
                fail_msg("case %d: the activation is not in the conv's epilogue:\n%s", c, plan);
            if (sg && (strstr(plan, "+ requant") || !strstr(plan, "int8 table"))) /* s8 -> s8: fixed point kept */
                fail_msg("case %d: s8 in and out lost the fixed-point conv and its table:\n%s", c, plan);
            free(plan);
            /* one output step (a tie); s8 -> s8's fixed point may land one Q1 step (0.07) off the float value */
            float tol = (sg ? 0.07f + 0.011f : 0.011f) * 1.001f;
            int64_t ndiff = 0;
            for (int64_t i = 0; i < n; i++) {
                float dv = fabsf(((const float *)y->data)[i] - rv[i]);
                if (dv > tol)
                    fail_msg("case %d [%s]: value %lld is %g, the interpreter's %g", c, fx_qisa_name(isas[ii]),
                             (long long)i, ((const float *)y->data)[i], rv[i]);
                ndiff += dv > 0;
            }
            if (ndiff * 50 > n)
                fail_msg("case %d [%s]: %lld of %lld values differ", c, fx_qisa_name(isas[ii]), (long long)ndiff,
                         (long long)n);
            nnfx_tensor_release(y);
        }
        fx_qisa_force(FX_QISA_AUTO);
        nnfx_tensor_release(x), nnfx_tensor_release(ref);
        nnfx_gm_free(gm);
    }
}

/* ---- int8 Mul / Add / mean in fixed point: the plan's steps against TFLite's formulas ---- */

/* Graph: x [2, 3, 4, 5] -> Q(int8) -> DQ -> op(a, b) -> Q -> DQ, where a
 * is DQ(Q(x)) and b DQ(Q(x * -0.7 + 0.3)) (op 0 Mul, 1 Add, 2 Sub), or
 * (op 3) ReduceMean over the last two axes, (op 4) GlobalAveragePool. */
static nnfx_graph *fixed_graph(int op, float *sx, int *zx, float *sb, int *zb, float *sy, int *zy) {
    nnfx_graph *g = nnfx_graph_new();
    int64_t d[4] = {2, 3, 4, 5};
    nnfx_meta m;
    nnfx_meta_set_shape(&m, NNFX_F32, 4, d);
    nnfx_node *x = nnfx_graph_placeholder(g, "x", &m, NULL);
    *sx = 0.021f, *zx = -3, *sb = 0.017f, *zb = 9;
    *sy = op == 0 ? 0.013f : op >= 3 ? 0.011f : 0.029f, *zy = op == 0 ? 4 : -6;
    nnfx_node *s1 = lut_scalar(g, "s1", NNFX_F32, *sx), *z1 = lut_scalar(g, "z1", NNFX_I8, *zx);
    nnfx_node *s2 = lut_scalar(g, "s2", NNFX_F32, *sb), *z2 = lut_scalar(g, "z2", NNFX_I8, *zb);
    nnfx_node *s3 = lut_scalar(g, "s3", NNFX_F32, *sy), *z3 = lut_scalar(g, "z3", NNFX_I8, *zy);
    nnfx_error err = {0};
    nnfx_arg qa[3] = {nnfx_arg_node(x), nnfx_arg_node(s1), nnfx_arg_node(z1)};
    nnfx_node *q = nnfx_graph_call_op(g, NNFX_OP_QUANTIZE_LINEAR, 3, qa, 0, NULL, &err);
    qa[0] = nnfx_arg_node(q);
    nnfx_node *a = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 3, qa, 0, NULL, &err), *y;
    if (op < 3) {
        nnfx_node *t = lut_op(g, NNFX_OP_ADD, lut_op(g, NNFX_OP_MUL, x, lut_scalar(g, "k", NNFX_F32, -0.7), 0, NULL),
                              lut_scalar(g, "c", NNFX_F32, 0.3), 0, NULL);
        nnfx_arg ba[3] = {nnfx_arg_node(t), nnfx_arg_node(s2), nnfx_arg_node(z2)};
        nnfx_node *qb = nnfx_graph_call_op(g, NNFX_OP_QUANTIZE_LINEAR, 3, ba, 0, NULL, &err);
        ba[0] = nnfx_arg_node(qb);
        nnfx_node *b = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 3, ba, 0, NULL, &err);
        y = lut_op(g, op == 0 ? NNFX_OP_MUL : op == 1 ? NNFX_OP_ADD : NNFX_OP_SUB, a, b, 0, NULL);
    } else if (op == 4) {
        y = lut_op(g, NNFX_OP_GLOBAL_AVERAGE_POOL, a, NULL, 0, NULL);
    } else {
        int64_t two = 2;
        nnfx_tensor *ax = nnfx_tensor_new(NNFX_I64, 1, &two, NULL);
        ((int64_t *)ax->data)[0] = 2, ((int64_t *)ax->data)[1] = 3;
        assert_int_equal(nnfx_graph_set_param(g, "axes", ax, NULL), NNFX_OK);
        nnfx_tensor_release(ax);
        nnfx_attr at = nnfx_attr_int("keepdims", 0);
        y = lut_op(g, NNFX_OP_REDUCE_MEAN, a, nnfx_graph_get_attr(g, "axes", NULL), 1, &at);
    }
    nnfx_arg ya[3] = {nnfx_arg_node(y), nnfx_arg_node(s3), nnfx_arg_node(z3)};
    nnfx_node *yq = nnfx_graph_call_op(g, NNFX_OP_QUANTIZE_LINEAR, 3, ya, 0, NULL, &err);
    ya[0] = nnfx_arg_node(yq);
    nnfx_node *yd = nnfx_graph_call_op(g, NNFX_OP_DEQUANTIZE_LINEAR, 3, ya, 0, NULL, &err);
    assert_non_null(yd);
    assert_non_null(nnfx_graph_output(g, 1, &yd, &err));
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    return g;
}

static int32_t q8_of(float v, float s, int z) {
    int32_t q = (int32_t)nearbyintf(v / s) + z;
    return q < -128 ? -128 : q > 127 ? 127 : q;
}

/* The plan's int8 Mul / Add / Sub and mean steps give TFLite's integer
 * results (nnfx_rt_qfixed.h, itself checked against TFLite's formulas by
 * the qfixed test) on every element, with the operands' and output's own
 * scales and zero points. */
static void test_fixed_elementwise(void **state) {
    (void)state;
    const char *names[5] = {"mul fixed point", "add fixed point", "sub fixed point", "mean fixed point",
                            "mean fixed point"};
    for (int op = 0; op < 5; op++) { /* the last: GlobalAveragePool */
        float sx, sb, sy;
        int zx, zb, zy;
        nnfx_error err = {0};
        nnfx_gm *gm = nnfx_gm_new(fixed_graph(op, &sx, &zx, &sb, &zb, &sy, &zy), &err);
        assert_non_null(gm);
        int64_t d[4] = {2, 3, 4, 5};
        nnfx_tensor *x = nnfx_tensor_new(NNFX_F32, 4, d, NULL), *y = NULL;
        for (int i = 0; i < 120; i++)
            ((float *)x->data)[i] = frand(-2.8f, 2.8f);
        int nout = 0;
        if (nnfx_gm_run(gm, 1, &x, 1, &y, &nout, &err)) fail_msg("%s", err.msg);
        char *plan = nnfx_gm_plan(gm, &err);
        if (!strstr(plan, names[op])) fail_msg("no '%s' step in the plan:\n%s", names[op], plan);
        free(plan);
        const float *xv = x->data, *yv = y->data;
        int64_t ny = nnfx_tensor_numel(y);
        for (int64_t i = 0; i < ny; i++) {
            int32_t want;
            if (op < 3) {
                int32_t a = q8_of(xv[i], sx, zx), b = q8_of(xv[i] * -0.7f + 0.3f, sb, zb);
                if (op == 0) {
                    int32_t qm;
                    int sh;
                    nnfx_rt_qf_quantize_multiplier((double)sx * sb / sy, &qm, &sh);
                    want = nnfx_rt_qf_mul_q8(a, zx, b, zb, qm, sh, zy, -128, 127);
                } else {
                    nnfx_rt_qf_addp p;
                    nnfx_rt_qf_quantize_add(sx, zx, sb, zb, sy, zy, -128, 127, &p);
                    want = nnfx_rt_qf_add(&p, a, b, op == 2);
                }
            } else {
                int32_t sum = 0, qm;
                int sh;
                for (int k = 0; k < 20; k++)
                    sum += q8_of(xv[i * 20 + k], sx, zx) - zx;
                nnfx_rt_qf_quantize_multiplier((double)sx / ((double)sy * 20.0), &qm, &sh);
                want = nnfx_rt_qf_requant(sum, qm, sh, zy, -128, 127);
            }
            float wf = ((float)want - (float)zy) * sy;
            if (yv[i] != wf) fail_msg("%s: element %lld: %g, TFLite's formula %g", names[op], (long long)i, yv[i], wf);
        }
        nnfx_tensor_release(x), nnfx_tensor_release(y);
        nnfx_gm_free(gm);
    }
}

/* The element-wise int8 rows (qelem.h: table lookup, TFLite's Add / Sub /
 * Mul) on every ISA path this host has against their portable definitions
 * (the scalar nnfx_rt_qf_* of nnfx_rt_qfixed.h), byte for byte: random
 * scales (output scales from 1/64 to 4x the inputs', so shifts of both
 * signs), zero points, Relu-narrowed clamps, lengths with vector tails,
 * in place (y = a) too. Prints which paths ran. */
static void test_elementwise_rows(void **state) {
    (void)state;
    enum { N = 301 };
    const fx_qisa isas[3] = {FX_QISA_AVX512VNNI, FX_QISA_AVX2, FX_QISA_C};
    int ran = 0;
    for (int ii = 0; ii < 3; ii++) {
        if (!fx_qisa_force(isas[ii])) {
            printf("# %s not on this CPU: not run\n", fx_qisa_name(isas[ii]));
            continue;
        }
        ran++;
        int8_t a[N], b[N], y1[N], y2[N];
        uint8_t tab[256], x[N], l1[N], l2[N];
        for (int it = 0; it < 400; it++) {
            int n = it % 7 == 0 ? N : irand(0, N);
            for (int i = 0; i < N; i++)
                a[i] = (int8_t)irand(-128, 127), b[i] = (int8_t)irand(-128, 127), x[i] = (uint8_t)irand(0, 255);
            if (it % 9 == 0) a[0] = -128, b[0] = -128, a[1] = 127, b[1] = 127, a[2] = -128, b[2] = 127;
            for (int v = 0; v < 256; v++)
                tab[v] = (uint8_t)irand(0, 255);
            float sa = frand(0.001f, 0.1f), sb = frand(0.001f, 0.1f), sy = (sa + sb) * frand(1.0f / 64, 4.0f);
            int32_t az = irand(-128, 127), bz = irand(-128, 127), yz = irand(-128, 127);
            nnfx_rt_qf_addp p;
            nnfx_rt_qf_quantize_add(sa, az, sb, bz, sy, yz, it % 4 == 0 ? yz : -128, 127, &p);
            bool sub = it % 2;
            fx_qadd_row_c(&p, a, b, y1, n, sub);
            fx_qadd_row(&p, a, b, y2, n, sub);
            for (int i = 0; i < n; i++)
                if (y1[i] != y2[i])
                    fail_msg("%s add case %d: %d %s %d gives %d, the definition %d", fx_qisa_name(isas[ii]), it, a[i],
                             sub ? "-" : "+", b[i], y2[i], y1[i]);
            int32_t qm;
            int sh;
            nnfx_rt_qf_quantize_multiplier((double)sa * sb / (sy * frand(0.002f, 0.2f)), &qm, &sh);
            fx_qmul_row_c(a, az, b, bz, qm, sh, yz, y1, n);
            memcpy(y2, a, sizeof a);
            fx_qmul_row(y2, az, b, bz, qm, sh, yz, y2, n); /* in place */
            for (int i = 0; i < n; i++)
                if (y1[i] != y2[i])
                    fail_msg("%s mul case %d (qm %ld shift %d): %d * %d gives %d, the definition %d",
                             fx_qisa_name(isas[ii]), it, (long)qm, sh, a[i], b[i], y2[i], y1[i]);
            uint8_t flip = it % 2 ? 0x80 : 0;
            fx_qlut_row_c(tab, flip, x, l1, n);
            memcpy(l2, x, sizeof x);
            fx_qlut_row(tab, flip, l2, l2, n);
            for (int i = 0; i < n; i++)
                if (l1[i] != l2[i])
                    fail_msg("%s table case %d: %u gives %u, the definition %u", fx_qisa_name(isas[ii]), it, x[i],
                             l2[i], l1[i]);
        }
    }
    fx_qisa_force(FX_QISA_AUTO);
    assert_true(ran >= 1);
}

/* The AVX2 float epilogue with an intermediate requantization and / or a
 * residual gives fx_qepi_row_c's bytes on every lane: scales whose products
 * land on .5 ties, zero points, Relu / Clip bounds on both stages, signed
 * and unsigned, rows with a vector tail. */
static void test_float_epilogue_lanes(void **state) {
    (void)state;
    if (!fx_qisa_force(FX_QISA_AVX2)) {
        printf("# AVX2 not on this CPU: not run\n");
        return;
    }
    enum { N = 45 };
    int32_t acc[N + 8];
    uint8_t res[N], y1[N], y2[N];
    for (int it = 0; it < 4000; it++) {
        float mult = it % 4 == 0 ? 0.5f : it % 4 == 1 ? 0.25f : frand(0.0005f, 0.05f);
        float bias = it % 3 == 0 ? 0.0f : frand(-3.0f, 3.0f);
        fx_qepi e = {0};
        e.mult = &mult, e.bias = &bias;
        e.mid = it % 3 != 2, e.res = it % 3 != 0;
        e.y_signed = (it >> 2) % 2, e.res_signed = (it >> 3) % 2;
        bool mid_signed = (it >> 4) % 2;
        /* ties: scale 1 or 2 against mult 0.5 / 0.25 puts t * inv on halves */
        e.mid_scale = it % 8 < 4 ? (it % 2 ? 1.0f : 2.0f) : frand(0.02f, 0.2f);
        e.mid_inv = 1.0f / e.mid_scale;
        e.mid_zp = mid_signed ? irand(-20, 20) : irand(0, 255);
        e.mid_lo = mid_signed ? -128 : 0, e.mid_hi = mid_signed ? 127 : 255;
        if (it % 5 == 0) e.mid_lo = e.mid_zp;                             /* Relu before Q1 */
        if (it % 7 == 0) e.mid_hi = e.mid_lo + (e.mid_hi - e.mid_lo) / 3; /* Clip */
        e.res_scale = frand(0.01f, 0.1f), e.res_zp = e.res_signed ? irand(-20, 20) : irand(0, 255);
        float ys = it % 6 < 3 ? (it % 2 ? 0.5f : 1.0f) : frand(0.01f, 0.3f);
        e.y_inv = 1.0f / ys;
        e.y_zp = e.y_signed ? irand(-30, 30) : irand(0, 255);
        e.lo = e.y_signed ? -128 : 0, e.hi = e.y_signed ? 127 : 255;
        if (it % 4 == 1) e.lo = e.y_zp;                   /* Relu */
        if (it % 9 == 0) e.hi = e.lo + (e.hi - e.lo) / 2; /* Clip */
        for (int i = 0; i < N + 8; i++)
            acc[i] = i % 4 == 0 ? (int32_t)(rnd() % 4001) - 2000 : (int32_t)(rnd() % 400001) - 200000;
        for (int i = 0; i < N; i++)
            res[i] = (uint8_t)rnd();
        int32_t comp = (int32_t)(rnd() % 201) - 100;
        int n = it % 2 ? N : 32;
        fx_qepi_row_c(&e, 0, comp, acc, n, e.res ? res : NULL, y1, 1);
        fx_qepi_row(&e, 0, comp, acc, n, e.res ? res : NULL, y2, 1);
        for (int i = 0; i < n; i++)
            if (y1[i] != y2[i])
                fail_msg("case %d (mid %d res %d): acc %ld gives %u on AVX2, %u portable", it, e.mid, e.res,
                         (long)acc[i], y2[i], y1[i]);
    }
    fx_qisa_force(FX_QISA_AUTO);
}

/* The fixed-point epilogue on AVX2 lanes against the portable one, byte
 * for byte, over accumulators near the int32 extremes and random ones, every
 * shift from -31 to 8, multipliers at both ends of [2^30, 2^31) and 0, both
 * output types, clamps narrowed by Relu. */
static void test_fixed_epilogue_lanes(void **state) {
    (void)state;
    if (!fx_qisa_force(FX_QISA_AVX2)) {
        printf("# AVX2 not on this CPU: not run\n");
        return;
    }
    enum { N = 37 };
    int32_t acc[N];
    uint8_t y1[N], y2[N];
    for (int it = 0; it < 3000; it++) {
        int32_t fb = (int32_t)(rnd() % 2000001) - 1000000, fm, fs = it % 40 - 31;
        int pick = it % 7;
        fm = pick == 0 ? (int32_t)1 << 30 : pick == 1 ? INT32_MAX : pick == 2 ? 0 : (int32_t)((1u << 30) | rnd());
        for (int i = 0; i < N; i++) {
            uint32_t r = rnd() ^ (rnd() << 16);
            /* near the extremes, with room for the bias and the compensation: the sums cannot overflow */
            acc[i] = i == 0   ? INT32_MIN + 1100000
                     : i == 1 ? INT32_MAX - 1100000
                     : i == 2 ? 0
                     : i == 3 ? -1
                     : i % 3  ? (int32_t)((int64_t)(r % 4000000001u) - 2000000000)
                              : (int32_t)(r % 20001) - 10000;
        }
        if (fs > 0) /* a left shift wraps in both; keep most inputs small */
            for (int i = 4; i < N; i++)
                acc[i] = (int32_t)(rnd() % 4001) - 2000;
        fx_qepi e = {0};
        e.fixed = true, e.fb = &fb, e.fm = &fm, e.fs = &fs;
        e.y_signed = it % 2, e.y_zp = e.y_signed ? irand(-20, 20) : irand(0, 255);
        e.lo = e.y_signed ? -128 : 0, e.hi = e.y_signed ? 127 : 255;
        if (it % 5 == 0) e.lo = e.y_zp; /* Relu */
        int32_t comp = (int32_t)(rnd() % 201) - 100;
        fx_qepi_row_c(&e, 0, comp, acc, N, NULL, y1, 1);
        fx_qepi_row_fixed_avx2(&e, 0, comp, acc, N, y2);
        if (memcmp(y1, y2, N))
            for (int i = 0; i < N; i++)
                if (y1[i] != y2[i])
                    fail_msg("case %d (fm %ld, fs %ld): acc %ld gives %u on AVX2, %u portable", it, (long)fm, (long)fs,
                             (long)acc[i], y2[i], y1[i]);
    }
    /* the rounding high multiply's ties: multiplier 2^30 halves, so every
     * odd sum lands on a .5 (below zero too), inside the output range */
    for (int sh = 0; sh > -3; sh--) {
        int32_t fb = 0, fm = (int32_t)1 << 30, fs = sh;
        fx_qepi e = {0};
        e.fixed = true, e.fb = &fb, e.fm = &fm, e.fs = &fs;
        e.y_signed = true, e.y_zp = 3, e.lo = -128, e.hi = 127;
        for (int i = 0; i < N; i++)
            acc[i] = 3 * (i - N / 2) * (1 - sh); /* odd and even, either sign */
        fx_qepi_row_c(&e, 0, 0, acc, N, NULL, y1, 1);
        fx_qepi_row_fixed_avx2(&e, 0, 0, acc, N, y2);
        for (int i = 0; i < N; i++)
            if (y1[i] != y2[i])
                fail_msg("tie case (fs %d): acc %ld gives %d on AVX2, %d portable", sh, (long)acc[i], (int8_t)y2[i],
                         (int8_t)y1[i]);
    }
    fx_qisa_force(FX_QISA_AUTO);
}

/* QuantizeLinear's scalar definition (nnfx_rt_quantize, branch-free so it
 * vectorises) against the spec's formula written here with rint (round half
 * to even in the default mode): saturate(rint(x / scale) + zp), NaN -> zp;
 * over ties, values near the range edges, infinities and NaN, for the 8-
 * and 16-bit ranges. */
static void test_quantize_scalar(void **state) {
    (void)state;
    const struct {
        int32_t lo, hi, zp;
    } ranges[] = {{0, 255, 0}, {0, 255, 128}, {-128, 127, 0}, {-128, 127, -7}, {0, 65535, 300}, {-32768, 32767, 5}};
    const float scales[] = {1.0f, 0.5f, 0.1f, 3.0f, 1e-6f, 7.25e3f};
    int checked = 0;
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++)
            for (int i = -200000; i <= 200000; i += 7) {
                float sc = scales[si];
                float xs[4] = {(float)i * 0.5f * sc, (float)i * 0.37f * sc, (float)i * 1e3f, (float)i * 1e-3f};
                for (int j = 0; j < 4; j++) {
                    double t = rint((double)(xs[j] / sc)); /* the float quotient, as the spec computes it */
                    double want = t + ranges[r].zp;
                    want = want < ranges[r].lo ? ranges[r].lo : want > ranges[r].hi ? ranges[r].hi : want;
                    int32_t got = nnfx_rt_quantize(xs[j], sc, ranges[r].zp, ranges[r].lo, ranges[r].hi);
                    if (got != (int32_t)want)
                        fail_msg("quantize(%.9g / %g, zp %d): %d, want %d", xs[j], sc, ranges[r].zp, got, (int)want);
                    checked++;
                }
            }
    float odd[] = {NAN,         INFINITY, -INFINITY, 3.4e38f, -3.4e38f, 8388608.5f,
                   16777217.0f, 0.5f,     1.5f,      2.5f,    -0.5f,    -2.5f};
    for (size_t j = 0; j < sizeof odd / sizeof odd[0]; j++) {
        double t = isnan(odd[j]) ? 0 : rint((double)odd[j]);
        double want = t + 3 < 0 ? 0 : t + 3 > 255 ? 255 : t + 3;
        assert_int_equal(nnfx_rt_quantize(odd[j], 1.0f, 3, 0, 255), (int32_t)want);
    }
    printf("# quantize scalar: %d values agree with saturate(rint(x / scale) + zp)\n", checked);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_scalar),
        cmocka_unit_test(test_conv_shapes),
        cmocka_unit_test(test_onednn_sums),
        cmocka_unit_test(test_conv_7bit_weights),
        cmocka_unit_test(test_saturation_edges),
        cmocka_unit_test(test_depthwise),
        cmocka_unit_test(test_residual),
        cmocka_unit_test(test_fc),
        cmocka_unit_test(test_random_convs),
        cmocka_unit_test(test_maddubs_saturates),
        cmocka_unit_test(test_qdq_models),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_lut_regions),
        cmocka_unit_test(test_act_after_requant),
        cmocka_unit_test(test_fixed_elementwise),
        cmocka_unit_test(test_fixed_epilogue_lanes),
        cmocka_unit_test(test_float_epilogue_lanes),
        cmocka_unit_test(test_elementwise_rows),
        cmocka_unit_test(test_split_pairs),
    };
    printf("# int8 kernels: active ISA %s\n", fx_qisa_name(fx_qisa_active()));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
