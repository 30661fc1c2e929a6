/* conv_fast.c — 2-d convolution for the compiled executor: weights packed
 * once into GEMM panels (sgemm_fast.c), the im2col fused into the packing
 * of each B block so it is never materialised, and an epilogue fusing bias,
 * residual add and activation applied per row panel while it is in cache.
 * Depthwise convs use a direct kernel. Work
 * is split into tasks by shape only, so results do not depend on the
 * number of threads. Vector loops are compiled for several ISAs and picked
 * at run time (CORE_ISA_VARIANTS: AVX2 or the baseline, by core_cpu_avx2). */
#if defined(__GNUC__) && !defined(__clang__)
/* compares may be if-converted (no FP exceptions are observed), so the
 * clamped exp and the activations vectorise; results are unchanged. Short
 * fill and copy loops stay inline instead of becoming memset/memcpy calls
 * (the im2col segments are often a few floats long). */
#pragma GCC optimize("no-trapping-math", "no-tree-loop-distribute-patterns")
#endif
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "exec/fast_int.h"
#include "exec/kernels/kernels_int.h"
#include "exec/kernels/dwconv_x86.h"
#include "exec/kernels/sgemm_fast.h"

/* B block budget: KC x NB floats of packed (im2col) input per task. */
#define FX_PANEL_FLOATS (48 * 1024)
#define FX_KC_MAX       256
#define FX_NB_MAX       768
/* Shared pre-packed B: at most this many floats for all blocks of a conv. */
#define FX_PREPACK_MAX (2 * 1024 * 1024)
/* Tapwise convs: at most this many output columns per GEMM task (a multiple of FX_NR). */
#define FX_TAP_NB_MAX 256

struct fx_conv {
    int64_t n, c, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw, group;
    int64_t cg, mg, kk, ohw;
    bool depthwise, direct; /* direct: 1x1, stride 1, no padding */
    float *wt;              /* depthwise: [M, KK]; else packed A per group */
    int64_t wgroup;         /* floats of packed A per group: K block after K
                               block, each its FX_MR-row panels (a_panel) */
    float *bias;            /* [M] zeros when absent                       */
    int64_t kc;             /* rows of K per packed B block                */
    bool padgrid;           /* stride 1: GEMM columns over a padded grid    */
    int64_t pgh, pgw;       /* padgrid: zero-bordered input plane dims      */
    int64_t *koff;          /* padgrid: where row k of B starts in the padded
                               planes of a group (KK entries)               */
    int64_t ncols;          /* GEMM columns per image (ohw or oh * pgw)     */
    int64_t nb, ncb;        /* columns per panel, panels per image         */
    int64_t mb, nmb;        /* rows per task (multiple of FX_MR), blocks    */
    int64_t nbr, nkb;       /* columns per packed block (FX_NR multiple), K blocks */
    bool prepack;           /* row blocks share B blocks packed once in the
                               shared scratch, not each task its own        */
    fx_act act;
    float p0, p1;
    bool residual;
    bool tapwise; /* dilated, mostly padding: one GEMM per tap over
                     the outputs whose input is inside (tap_rect)  */
    int64_t wtap; /* tapwise: floats of packed A per tap ([M, C])   */
    int64_t tnb;  /* tapwise: columns per task of a tap's GEMM      */
};

/* The outputs [o0, o1) along one axis (input n, output no, kernel tap k of
 * dilation d, stride s, pad p) whose input index o * s - p + k * d lies in
 * [0, n); o1 <= o0 when none do. */
static void tap_range(int64_t n, int64_t no, int64_t k, int64_t d, int64_t s, int64_t p, int64_t *o0, int64_t *o1) {
    int64_t off = k * d - p; /* input = o * s + off */
    int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s, hi = n - off <= 0 ? 0 : (n - off + s - 1) / s;
    *o0 = lo;
    *o1 = hi < no ? hi : no;
}

static float *alloc_floats(int64_t n) {
    size_t bytes = ((size_t)(n > 0 ? n : 1) * sizeof(float) + 63) / 64 * 64;
    return aligned_alloc(64, bytes);
}

/* Geometry and blocking of conv node n (see fx_conv_new) into *c0, reading
 * only the shapes of w and b; NULL err-set status on refusal. */
static nnfx_status conv_plan(const nnfx_node *n, const int64_t *xs, const nnfx_tensor *w, const nnfx_tensor *b,
                             fx_conv *out, nnfx_error *err) {
    if (!w || w->dtype != NNFX_F32 || w->rank != 4 ||
        (b && (b->dtype != NNFX_F32 || nnfx_tensor_numel(b) != w->shape[0]))) {
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast conv: 2-d float32 weights only");
    }
    int64_t ksz[2] = {w->shape[2], w->shape[3]}, in_sp[2] = {xs[2], xs[3]};
    ir_window win;
    nnfx_status st = ir_window_read(n, 2, ksz, in_sp, &win, err);
    if (st) return st;
    fx_conv c0 = {0};
    c0.n = xs[0], c0.c = xs[1], c0.h = xs[2], c0.w = xs[3];
    c0.m = w->shape[0];
    c0.group = ir_attr_int(n, "group");
    c0.kh = win.k[0], c0.kw = win.k[1], c0.sh = win.s[0], c0.sw = win.s[1];
    c0.dh = win.d[0], c0.dw = win.d[1], c0.ph = win.pb[0], c0.pw = win.pb[1];
    c0.oh = ir_window_out(&win, 0, c0.h);
    c0.ow = ir_window_out(&win, 1, c0.w);
    int64_t cin;
    if (c0.group < 1 || c0.m <= 0 || w->shape[1] <= 0 || __builtin_mul_overflow(w->shape[1], c0.group, &cin) ||
        c0.c != cin || c0.m % c0.group || c0.oh <= 0 || c0.ow <= 0 || c0.n <= 0) {
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast conv: shapes do not fit");
    }
    c0.cg = c0.c / c0.group, c0.mg = c0.m / c0.group;
    c0.kk = c0.cg * c0.kh * c0.kw, c0.ohw = c0.oh * c0.ow;
    if (c0.mg > INT_MAX || c0.ohw > INT_MAX || c0.kk > INT_MAX / 64) {
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast conv: beyond the BLAS int range");
    }
    c0.depthwise = c0.cg == 1 && c0.group > 1;
    const kern_dw_geom dg = {c0.h, c0.w, c0.oh, c0.ow, c0.kh, c0.kw, c0.sh, c0.sw, c0.ph, c0.pw, c0.dh, c0.dw};
    if (c0.depthwise && !kern_dw_geom_fits(&dg))
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "fast conv: depthwise beyond the int range");
    c0.direct = c0.kh == 1 && c0.kw == 1 && c0.sh == 1 && c0.sw == 1 && c0.ph == 0 && c0.pw == 0 && c0.oh == c0.h &&
                c0.ow == c0.w;
    /* K blocks of at most FX_KC_MAX rows, balanced */
    int64_t nkb = (c0.kk + FX_KC_MAX - 1) / FX_KC_MAX;
    c0.kc = (c0.kk + nkb - 1) / nkb;
    /* Padded grid (stride 1, kernel > 1x1, rows wide enough that the extra
     * (KW - 1) * DW columns per row cost at most 1/8): the input is copied
     * once into zero-bordered planes [PGH, PGW], PGW = OW + (KW - 1) * DW, and
     * output (oy, ox) becomes GEMM column oy * PGW + ox; every im2col row is
     * then one contiguous run of a plane, packed without any index work.
     * Columns ox >= OW are computed and dropped. */
    c0.pgh = c0.oh + (c0.kh - 1) * c0.dh, c0.pgw = c0.ow + (c0.kw - 1) * c0.dw;
    /* ... taken when the grid's columns, rounded up to whole register
     * tiles, are at most 1/8 more than the output's (a 7x7 output is 49
     * columns, four tiles; its 7x9 grid 63, also four) */
    int64_t grid_tiles = (c0.oh * c0.pgw + FX_NR - 1) / FX_NR, out_tiles = (c0.ohw + FX_NR - 1) / FX_NR;
    c0.padgrid = !c0.depthwise && !c0.direct && c0.sh == 1 && c0.sw == 1 && (c0.kh > 1 || c0.kw > 1) &&
                 grid_tiles * 8 <= out_tiles * 9 && c0.mg <= 1024;
    /* Tap by tap (dilated convs whose taps mostly read padding, as in
     * atrous pyramids on small maps): each tap a GEMM [M, C] x [C, outputs
     * it reaches], so the padding costs nothing; taken when the taps reach
     * at most 3/4 of the full im2col's columns. */
    if (!c0.depthwise && !c0.direct && !c0.padgrid && c0.group == 1 && (c0.dh > 1 || c0.dw > 1) && c0.n == 1) {
        int64_t live = 0;
        for (int64_t ky = 0; ky < c0.kh; ky++)
            for (int64_t kx = 0; kx < c0.kw; kx++) {
                int64_t y0, y1, x0, x1;
                tap_range(c0.h, c0.oh, ky, c0.dh, c0.sh, c0.ph, &y0, &y1);
                tap_range(c0.w, c0.ow, kx, c0.dw, c0.sw, c0.pw, &x0, &x1);
                live += y1 > y0 && x1 > x0 ? (y1 - y0) * (x1 - x0) : 0;
            }
        c0.tapwise = live * 4 <= c0.kh * c0.kw * c0.ohw * 3 && c0.mg <= 1024;
    }
    c0.ncols = c0.padgrid ? c0.oh * c0.pgw : c0.ohw;
    /* column panels: as wide as the B block budget allows, a multiple of FX_NR */
    int64_t nb = FX_PANEL_FLOATS / c0.kc;
    nb = nb < 64 ? 64 : nb > FX_NB_MAX ? FX_NB_MAX : nb / FX_NR * FX_NR;
    if (c0.padgrid) {
        /* B is read in place, so no block budget: about 16 column blocks
         * (whole tile pairs, 64 columns at least) balance two or four
         * threads; the C block [MG, NB] of a task is staged in scratch */
        nb = (c0.ncols / 16 + 2 * FX_NR - 1) / (2 * FX_NR) * (2 * FX_NR);
        int64_t cap = (64 * 1024) / c0.mg / FX_NR * FX_NR;
        nb = nb < 64 ? 64 : nb > FX_NB_MAX ? FX_NB_MAX : nb;
        if (nb > cap) nb = cap < FX_NR ? FX_NR : cap;
    }
    if (nb >= c0.ncols) nb = c0.ncols;
    c0.nb = nb;
    c0.ncb = (c0.ncols + nb - 1) / nb;
    /* row blocks: split output channels when there are few tasks, so two or
     * more threads have work; by shape only */
    c0.mb = c0.mg;
    while (c0.n * c0.group * c0.ncb * ((c0.mg + c0.mb - 1) / c0.mb) < 8 && c0.mb >= 64)
        c0.mb = (c0.mb / 2 + FX_MR - 1) / FX_MR * FX_MR;
    c0.nmb = (c0.mg + c0.mb - 1) / c0.mb;
    /* with several row blocks, each B block is packed once for all of them
     * (when they fit the budget); 1x1 convs read B in place */
    c0.nbr = (c0.nb + FX_NR - 1) / FX_NR * FX_NR;
    c0.nkb = nkb;
    c0.prepack = c0.nmb > 1 && !c0.direct && !c0.depthwise && !c0.padgrid &&
                 c0.n * c0.group * c0.ncb * c0.nkb * c0.kc * c0.nbr <= FX_PREPACK_MAX;
    c0.wgroup = c0.depthwise ? 0 : fx_pack_a_floats(c0.mg, c0.kk);
    if (c0.tapwise) { /* K = C per tap, in blocks of at most FX_KC_MAX; C staged per task */
        int64_t nkc = (c0.c + FX_KC_MAX - 1) / FX_KC_MAX;
        c0.kc = (c0.c + nkc - 1) / nkc;
        c0.wtap = fx_pack_a_floats(c0.m, c0.c);
        c0.tnb = (64 * 1024) / (c0.m + c0.kc) / FX_NR * FX_NR;
        c0.tnb = c0.tnb < FX_NR ? FX_NR : c0.tnb > FX_TAP_NB_MAX ? FX_TAP_NB_MAX : c0.tnb;
        c0.prepack = false;
    }
    *out = c0;
    return NNFX_OK;
}

/* Tapwise: the weights of each tap, W[:, :, ky, kx] as an [M, C] matrix,
 * packed in K blocks of kc rows (tap_panel); false on OOM. */
static bool tap_pack(const fx_conv *c, const float *w, float *wt) {
    float *a = malloc((size_t)(c->m * c->c) * sizeof *a);
    if (!a) return false;
    int64_t taps = c->kh * c->kw;
    for (int64_t t = 0; t < taps; t++) {
        for (int64_t m = 0; m < c->m; m++)
            for (int64_t ci = 0; ci < c->c; ci++)
                a[m * c->c + ci] = w[(m * c->c + ci) * taps + t];
        for (int64_t k0 = 0; k0 < c->c; k0 += c->kc)
            fx_pack_a(a + k0, c->c, c->m, c->c - k0 < c->kc ? c->c - k0 : c->kc,
                      wt + t * c->wtap + k0 * (c->wtap / c->c));
    }
    free(a);
    return true;
}

bool fx_conv_takes(const nnfx_node *n, const int64_t *xs, const nnfx_tensor *w, const nnfx_tensor *b) {
    fx_conv c0;
    nnfx_error err = {0};
    return conv_plan(n, xs, w, b, &c0, &err) == NNFX_OK;
}

fx_conv *fx_conv_new(const nnfx_node *n, const int64_t *xs, const nnfx_tensor *w, const nnfx_tensor *b,
                     nnfx_error *err) {
    fx_conv c0 = {0};
    if (conv_plan(n, xs, w, b, &c0, err)) return NULL;
    fx_conv *c = malloc(sizeof *c);
    float *wt = alloc_floats(c0.depthwise ? c0.m * c0.kk
                             : c0.tapwise ? c0.kh * c0.kw * c0.wtap
                                          : c0.group * c0.wgroup),
          *bias = alloc_floats(c0.m);
    int64_t *koff = c0.padgrid ? malloc((size_t)c0.kk * sizeof *koff) : NULL;
    if (!c || !wt || !bias || (c0.padgrid && !koff)) {
        free(c), free(wt), free(bias), free(koff);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing a conv");
        return NULL;
    }
    *c = c0;
    if (c0.depthwise)
        memcpy(wt, w->data, (size_t)(c0.m * c0.kk) * sizeof(float));
    else if (c0.tapwise && !tap_pack(&c0, w->data, wt)) {
        free(c), free(wt), free(bias), free(koff);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory preparing a conv");
        return NULL;
    } else if (!c0.tapwise)
        for (int64_t gi = 0; gi < c0.group; gi++)
            for (int64_t k0 = 0; k0 < c0.kk; k0 += c0.kc)
                fx_pack_a((const float *)w->data + gi * c0.mg * c0.kk + k0, c0.kk, c0.mg,
                          c0.kk - k0 < c0.kc ? c0.kk - k0 : c0.kc, wt + gi * c0.wgroup + k0 * (c0.wgroup / c0.kk));
    if (b)
        memcpy(bias, b->data, (size_t)c0.m * sizeof(float));
    else
        memset(bias, 0, (size_t)c0.m * sizeof(float));
    c->wt = wt;
    c->bias = bias;
    c->koff = koff;
    for (int64_t k = 0; koff && k < c0.kk; k++) { /* k = (ci * KH + ky) * KW + kx */
        int64_t kx = k % c0.kw, ky = k / c0.kw % c0.kh, ci = k / (c0.kw * c0.kh);
        koff[k] = ci * c0.pgh * c0.pgw + ky * c0.dh * c0.pgw + kx * c0.dw;
    }
    return c;
}

/* Packed A of group gi, rows [r0, r0 + FX_MR) (r0 a multiple of FX_MR),
 * K block from k0: one contiguous panel of kc x FX_MR floats. A K block's
 * panels lie together, so a task streams its weights in order. */
static const float *a_panel(const fx_conv *c, int64_t gi, int64_t r0, int64_t k0) {
    int64_t kc = c->kk - k0 < c->kc ? c->kk - k0 : c->kc;
    return c->wt + gi * c->wgroup + k0 * (c->wgroup / c->kk) + r0 * kc;
}

void fx_conv_free(fx_conv *c) {
    if (!c) return;
    free(c->wt);
    free(c->bias);
    free(c->koff);
    free(c);
}

void fx_conv_set_epilogue(fx_conv *c, fx_act act, float p0, float p1, bool residual) {
    c->act = act;
    c->p0 = p0;
    c->p1 = p1;
    c->residual = residual;
}

static bool dw_fast(const fx_conv *c);

int64_t fx_conv_scratch_floats(const fx_conv *c) {
    if (c->depthwise) /* the zero row */
        return dw_fast(c) ? (c->w + 15) / 16 * 16 : 0;
    if (c->tapwise) /* a packed B block, its gathered row and the staged C block */
        return ((c->kc + 1 + c->m) * c->tnb + 15) / 16 * 16;
    /* the staged C block (B is read in place), or a packed B block and one
     * im2col row */
    return ((c->padgrid ? c->mb * c->nbr : c->kc * c->nbr + c->nbr) + 15) / 16 * 16;
}

/* The padded planes are followed by a zeroed slack, read (and dropped) by
 * the last column panel of the last plane's B rows (fx_sgemm_panel_gather
 * reads whole panels): past the plane by at most (KW - 1) * DW + FX_NR - 1. */
static int64_t padded_slack_at(const fx_conv *c) { return c->n * c->c * c->pgh * c->pgw; }
static int64_t padded_slack(const fx_conv *c) { return c->pgw + FX_NR; }

/* Floats of the padded planes in the shared scratch (padgrid), then the
 * pre-packed B blocks (prepack): block (image, group, column block, K
 * block) in that order, kc x nbr floats each. */
static int64_t padded_floats(const fx_conv *c) {
    return c->padgrid ? (padded_slack_at(c) + padded_slack(c) + 15) / 16 * 16 : 0;
}

static int64_t prepack_block_floats(const fx_conv *c) { return c->kc * c->nbr; }

int64_t fx_conv_shared_floats(const fx_conv *c) {
    return padded_floats(c) + (c->prepack ? c->n * c->group * c->ncb * c->nkb * prepack_block_floats(c) : 0);
}

void fx_conv_describe(const fx_conv *c, char *buf, size_t len) {
    snprintf(buf, len, "%s%lldx%lld/s%lld %s%s%s%s%s", c->depthwise ? "dwconv" : "conv", (long long)c->kh,
             (long long)c->kw, (long long)c->sh,
             c->depthwise ? "direct"
             : c->direct  ? "gemm"
             : c->padgrid ? "padded+gemm"
             : c->tapwise ? "tapwise gemm"
                          : "im2col+gemm",
             c->prepack ? " (B packed once)" : "", " + bias", c->residual ? " + add" : "", c->act ? "" : "");
    if (c->act) {
        size_t l = strlen(buf);
        snprintf(buf + l, len > l ? len - l : 0, " + %s", fx_act_name(c->act));
    }
}

/* y[i] = act(y[i] + bias + res[i]) over one row of n values (the
 * activation: fx_act_row, act_fast.c). */
static inline CORE_ALWAYS_INLINE void epilogue_row_body(float *restrict y, const float *restrict res, int64_t n,
                                                        float bias, fx_act act, float p0, float p1) {
    if (res)
        for (int64_t i = 0; i < n; i++)
            y[i] += bias + res[i];
    else
        for (int64_t i = 0; i < n; i++)
            y[i] += bias;
    fx_act_row(y, n, act, p0, p1);
}

CORE_ISA_VARIANTS(epilogue_row,
                  (float *restrict y, const float *restrict res, int64_t n, float bias, fx_act act, float p0, float p1),
                  (y, res, n, bias, act, p0, p1))

static void epilogue_row(float *restrict y, const float *restrict res, int64_t n, float bias, fx_act act, float p0,
                         float p1) {
    CORE_ISA_PICK(epilogue_row)(y, res, n, bias, act, p0, p1);
}

/* Rows [k0, k0 + kc) x columns [c0, c0 + nb) of the im2col matrix of one
 * image's group slice x [CG, H, W], packed as a B block (fx_pack_b_row
 * layout) into bp; row (ci * KH + ky) * KW + kx is first built in rowbuf
 * [nb]. The output rows are walked without divisions; inside each row
 * segment the columns whose input lies in the image are copied (stride 1)
 * or gathered, the rest zeroed. */
static inline CORE_ALWAYS_INLINE void pack_im2col_body(const fx_conv *c, const float *x, int64_t k0, int64_t kc,
                                                       int64_t c0, int64_t nb, float *restrict rowbuf,
                                                       float *restrict bp) {
    int64_t kx = k0 % c->kw, ky = k0 / c->kw % c->kh, ci = k0 / (c->kw * c->kh);
    int64_t oy0 = c0 / c->ow, ox00 = c0 % c->ow;
    for (int64_t kk = 0; kk < kc; kk++) {
        int64_t off = kx * c->dw - c->pw; /* ix = ox * sw + off */
        int64_t lo = off < 0 ? (-off + c->sw - 1) / c->sw : 0;
        int64_t hi = c->w - 1 - off < 0 ? 0 : (c->w - 1 - off) / c->sw + 1;
        if (hi > c->ow) hi = c->ow;
        if (lo > hi) lo = hi;
        const float *src = x + ci * c->h * c->w;
        int64_t done = 0, oy = oy0, ox0 = ox00;
        while (done < nb) {
            int64_t seg = c->ow - ox0 < nb - done ? c->ow - ox0 : nb - done;
            float *restrict d = rowbuf + done - ox0; /* d[ox] for ox in [ox0, ox0 + seg) */
            int64_t iy = oy * c->sh - c->ph + ky * c->dh;
            int64_t e = ox0 + seg;
            if (iy < 0 || iy >= c->h) {
                for (int64_t ox = ox0; ox < e; ox++)
                    d[ox] = 0.0f;
            } else {
                const float *restrict srow = src + iy * c->w + off;
                int64_t a = lo > ox0 ? lo : ox0, bnd = hi < e ? hi : e;
                if (bnd < ox0) bnd = ox0; /* the inside ends before the segment: no write below d[ox0] */
                if (a > bnd) a = bnd;
                for (int64_t ox = ox0; ox < a; ox++)
                    d[ox] = 0.0f;
                if (c->sw == 1)
                    for (int64_t ox = a; ox < bnd; ox++)
                        d[ox] = srow[ox];
                else if (c->sw == 2)
                    for (int64_t ox = a; ox < bnd; ox++)
                        d[ox] = srow[2 * ox];
                else
                    for (int64_t ox = a; ox < bnd; ox++)
                        d[ox] = srow[ox * c->sw];
                for (int64_t ox = bnd; ox < e; ox++)
                    d[ox] = 0.0f;
            }
            done += seg;
            oy++;
            ox0 = 0;
        }
        /* rowbuf -> row kk of the packed block */
        float *restrict dp = bp + kk * FX_NR;
        int64_t jj = 0;
        for (; jj + FX_NR <= nb; jj += FX_NR, dp += kc * FX_NR)
            for (int q = 0; q < FX_NR; q++)
                dp[q] = rowbuf[jj + q];
        if (jj < nb) {
            for (int64_t q = 0; q < nb - jj; q++)
                dp[q] = rowbuf[jj + q];
            for (int64_t q = nb - jj; q < FX_NR; q++)
                dp[q] = 0.0f;
        }
        if (++kx == c->kw) {
            kx = 0;
            if (++ky == c->kh) ky = 0, ci++;
        }
    }
}

CORE_ISA_VARIANTS(pack_im2col,
                  (const fx_conv *c, const float *x, int64_t k0, int64_t kc, int64_t c0, int64_t nb,
                   float *restrict rowbuf, float *restrict bp),
                  (c, x, k0, kc, c0, nb, rowbuf, bp))

static void pack_im2col(const fx_conv *c, const float *x, int64_t k0, int64_t kc, int64_t c0, int64_t nb,
                        float *restrict rowbuf, float *restrict bp) {
    CORE_ISA_PICK(pack_im2col)(c, x, k0, kc, c0, nb, rowbuf, bp);
}

/* Outputs yin[0, n) of one row with every tap inside the image: all K x K
 * taps summed in one pass (rows r[0..K), stride SW). */
#define DW_FULL(K, SW)                                                                                                 \
    for (int64_t ox = 0; ox < n; ox++) {                                                                               \
        float acc = 0.0f;                                                                                              \
        for (int ky = 0; ky < (K); ky++)                                                                               \
            for (int kx = 0; kx < (K); kx++)                                                                           \
                acc += k[ky * (K) + kx] * r[ky][ox * (SW) + kx];                                                       \
        yin[ox] = acc;                                                                                                 \
    }

static bool dw_fast(const fx_conv *c) {
    return c->dw == 1 && c->dh == 1 && c->kh == c->kw && (c->kw == 3 || c->kw == 5) && (c->sw == 1 || c->sw == 2) &&
           c->sh == c->sw;
}

/* Output columns [lo, hi) of the fast depthwise path whose K taps all lie
 * inside the row (0 <= ox * s - pw and ox * s - pw + K <= w); lo == hi when
 * there are none. */
static void dw_inner_cols(const fx_conv *c, int64_t *lo, int64_t *hi) {
    int64_t a = (c->pw + c->sw - 1) / c->sw, lim = c->w - c->kw + c->pw;
    int64_t b = lim < 0 ? 0 : lim / c->sw + 1;
    if (b > c->ow) b = c->ow;
    if (a > c->ow) a = c->ow;
    *lo = a;
    *hi = b > a ? b : a;
}

/* Output column ox of the fast path from rows r[0..K) of the input (a
 * row outside the image is a row of zeros), taps clipped to the row. */
static inline float dw_edge(const fx_conv *c, const float *const *r, const float *k, int64_t ox) {
    float acc = 0.0f;
    int64_t x0 = ox * c->sw - c->pw;
    for (int64_t ky = 0; ky < c->kh; ky++)
        for (int64_t kx = 0; kx < c->kw; kx++)
            if (x0 + kx >= 0 && x0 + kx < c->w) acc += k[ky * c->kw + kx] * r[ky][x0 + kx];
    return acc;
}

/* One output-channel plane of a depthwise conv, epilogue included. The
 * fast path (3x3 and 5x5, stride 1 and 2) reads the input plane in place:
 * a padding row above or below the image is the zero row in scratch
 * (zero, w floats). Vector rows (when the CPU has them) mask the taps
 * outside a row; else the output columns whose taps all lie inside the row
 * sum all taps in one pass with no bounds checks, and the few border
 * columns clip their taps. Other shapes go through Conv's own depthwise
 * plane (kern_dw_plane, conv.c), then the epilogue. */
static inline CORE_ALWAYS_INLINE void dw_plane_body(const fx_conv *c, const float *restrict xi, const float *restrict k,
                                                    float bias, const float *res, float *restrict yo,
                                                    float *restrict zero) {
    if (!dw_fast(c)) {
        const kern_dw_geom g = {c->h, c->w, c->oh, c->ow, c->kh, c->kw, c->sh, c->sw, c->ph, c->pw, c->dh, c->dw};
        kern_dw_plane(&g, xi, k, NULL, yo);
        epilogue_row(yo, res, c->ohw, bias, c->act, c->p0, c->p1);
        return;
    }
    if (c->ph > 0 || (c->oh - 1) * c->sh - c->ph + c->kh > c->h)
        for (int64_t x = 0; x < c->w; x++)
            zero[x] = 0.0f;
    int64_t lo, hi;
    dw_inner_cols(c, &lo, &hi);
    int64_t off = lo * c->sw - c->pw; /* input column of output lo's first tap */
    for (int64_t oy = 0; oy < c->oh; oy++) {
        float *restrict yrow = yo + oy * c->ow;
        const float *rows[5], *r[5];
        for (int64_t ky = 0; ky < c->kh; ky++) {
            int64_t iy = oy * c->sh - c->ph + ky;
            rows[ky] = iy >= 0 && iy < c->h ? xi + iy * c->w : zero;
        }
        if (fx_dw_row((int)c->kw, (int)c->sw, rows, c->w, c->pw, k, yrow, c->ow)) continue;
        for (int64_t ox = 0; ox < lo; ox++)
            yrow[ox] = dw_edge(c, rows, k, ox);
        for (int64_t ox = hi; ox < c->ow; ox++)
            yrow[ox] = dw_edge(c, rows, k, ox);
        if (hi == lo) continue;
        /* r[ky][j] is input column off + j */
        for (int64_t ky = 0; ky < c->kh; ky++)
            r[ky] = rows[ky] + off;
        float *restrict yin = yrow + lo;
        int64_t n = hi - lo;
        if (c->kw == 3 && c->sw == 1)
            DW_FULL(3, 1)
        else if (c->kw == 3)
            DW_FULL(3, 2)
        else if (c->sw == 1)
            DW_FULL(5, 1)
        else
            DW_FULL(5, 2)
    }
    epilogue_row(yo, res, c->ohw, bias, c->act, c->p0, c->p1);
}

CORE_ISA_VARIANTS(dw_plane,
                  (const fx_conv *c, const float *restrict xi, const float *restrict k, float bias, const float *res,
                   float *restrict yo, float *restrict zero),
                  (c, xi, k, bias, res, yo, zero))

static void dw_plane(const fx_conv *c, const float *restrict xi, const float *restrict k, float bias, const float *res,
                     float *restrict yo, float *restrict zero) {
    CORE_ISA_PICK(dw_plane)(c, xi, k, bias, res, yo, zero);
}

typedef struct conv_job {
    const fx_conv *c;
    const float *x, *res;
    float *y, *scratch, *xpad, *packed; /* packed: the pre-packed B blocks */
    int64_t scratch_per_thread;
} conv_job;

/* Columns in column block cb (returned), the first of them in *c0. */
static int64_t block_cols(const fx_conv *c, int64_t cb, int64_t *c0) {
    *c0 = cb * c->nb;
    return c->ncols - *c0 < c->nb ? c->ncols - *c0 : c->nb;
}

/* The pre-packed B block (image b, group gi, column block cb, K block kb)
 * of job j. */
static float *packed_block(const conv_job *j, int64_t b, int64_t gi, int64_t cb, int64_t kb) {
    const fx_conv *c = j->c;
    return j->packed + (((b * c->group + gi) * c->ncb + cb) * c->nkb + kb) * prepack_block_floats(c);
}

/* Pre-pack task t: B block (image, group, column block, K block) once into
 * the shared scratch, for every row block's GEMM task to read. */
static void prepack_task(void *ctx, int64_t t, int tid) {
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    int64_t kb = t % c->nkb, rest = t / c->nkb, cb = rest % c->ncb;
    rest /= c->ncb;
    int64_t gi = rest % c->group, b = rest / c->group, c0;
    int64_t nb = block_cols(c, cb, &c0), k0 = kb * c->kc, kc = c->kk - k0 < c->kc ? c->kk - k0 : c->kc;
    pack_im2col(c, j->x + (b * c->c + gi * c->cg) * c->h * c->w, k0, kc, c0, nb,
                j->scratch + (int64_t)tid * j->scratch_per_thread, packed_block(j, b, gi, cb, kb));
}

/* Padded grid: input plane t (of N * C) into its zero-bordered copy. */
/* Padded grid: pad tasks per image, each a band of padded rows of every
 * channel (bands of rows, like the GEMM's column blocks, so a thread pads
 * roughly the rows its GEMM tasks then read). By shape only. */
static int64_t pad_bands(const fx_conv *c) { return c->pgh < 16 ? c->pgh : 16; }

/* Pad task t: band t % pad_bands of image t / pad_bands into the
 * zero-bordered planes. */
static void pad_task(void *ctx, int64_t t, int tid) {
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    int64_t nb = pad_bands(c), b = t / nb, q = t % nb;
    int64_t y0 = c->pgh * q / nb, y1 = c->pgh * (q + 1) / nb;
    /* columns x take input x - pw where inside [0, W) */
    int64_t a = c->pw < c->pgw ? c->pw : c->pgw, e = c->pw + c->w < c->pgw ? c->pw + c->w : c->pgw;
    if (e < a) e = a;
    for (int64_t ci = 0; ci < c->c; ci++) {
        const float *src = j->x + (b * c->c + ci) * c->h * c->w;
        float *dst = j->xpad + (b * c->c + ci) * c->pgh * c->pgw;
        for (int64_t y = y0; y < y1; y++) {
            float *restrict d = dst + y * c->pgw;
            int64_t iy = y - c->ph;
            if (iy < 0 || iy >= c->h) {
                memset(d, 0, (size_t)c->pgw * sizeof(float));
                continue;
            }
            memset(d, 0, (size_t)a * sizeof(float));
            memcpy(d + a, src + iy * c->w + (a - c->pw), (size_t)(e - a) * sizeof(float));
            memset(d + e, 0, (size_t)(c->pgw - e) * sizeof(float));
        }
    }
}

/* Padded grid GEMM task: B rows are runs of the padded planes, read in
 * place; C is staged in scratch and its valid columns (ox < OW) leave
 * through the epilogue. */
static void padgrid_task(void *ctx, int64_t t, int tid) {
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    int64_t cb = t % c->ncb, rest = t / c->ncb;
    int64_t mbi = rest % c->nmb;
    rest /= c->nmb;
    int64_t gi = rest % c->group, b = rest / c->group;
    int64_t c0, nb = block_cols(c, cb, &c0);
    int64_t nbr = (nb + FX_NR - 1) / FX_NR * FX_NR;
    int64_t m0 = gi * c->mg + mbi * c->mb, mrows = c->mg - mbi * c->mb < c->mb ? c->mg - mbi * c->mb : c->mb;
    const float *xg = j->xpad + (b * c->c + gi * c->cg) * c->pgh * c->pgw + c0;
    float *cb_ = j->scratch + (int64_t)tid * j->scratch_per_thread;
    for (int64_t k0 = 0; k0 < c->kk; k0 += c->kc) {
        int64_t kc = c->kk - k0 < c->kc ? c->kk - k0 : c->kc;
        fx_sgemm_panel_gather(kc, nb, mrows, a_panel(c, gi, m0 - gi * c->mg, k0), xg, c->koff + k0, cb_, nbr, k0 > 0);
    }
    /* valid columns: grid column g = oy * PGW + ox, ox < OW */
    for (int64_t r = 0; r < mrows; r++) {
        float *yr = j->y + (b * c->m + m0 + r) * c->ohw;
        const float *rr = j->res ? j->res + (b * c->m + m0 + r) * c->ohw : NULL;
        const float *cr = cb_ + r * nbr;
        int64_t g = c0, oy = c0 / c->pgw, ox = c0 % c->pgw;
        while (g < c0 + nb) {
            int64_t len = c0 + nb - g < c->pgw - ox ? c0 + nb - g : c->pgw - ox;
            int64_t v = ox < c->ow ? (c->ow - ox < len ? c->ow - ox : len) : 0;
            if (v > 0) {
                float *yd = yr + oy * c->ow + ox;
                memcpy(yd, cr + (g - c0), (size_t)v * sizeof(float));
                epilogue_row(yd, rr ? rr + oy * c->ow + ox : NULL, v, c->bias[m0 + r], c->act, c->p0, c->p1);
            }
            g += len;
            oy++;
            ox = 0;
        }
    }
}

/* Depthwise planes per task: about 4096 outputs' worth (small planes
 * are grouped, so tasks are not dominated by hand-off and threads do not
 * write into one cache line), but at least 8 tasks where there are 8
 * planes. By shape only. */
static int64_t dw_planes_per_task(const fx_conv *c) {
    int64_t planes = c->n * c->m, per = (4096 + c->ohw - 1) / c->ohw;
    if (per > planes / 8) per = planes / 8;
    return per < 1 ? 1 : per;
}

static void dw_task(void *ctx, int64_t t, int tid) {
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    int64_t per = dw_planes_per_task(c), p0 = t * per, p1 = p0 + per < c->n * c->m ? p0 + per : c->n * c->m;
    for (int64_t p = p0; p < p1; p++) {
        int64_t b = p / c->m, oc = p % c->m, mult = c->m / c->group;
        int64_t plane = (b * c->m + oc) * c->ohw;
        dw_plane(c, j->x + (b * c->c + oc / mult) * c->h * c->w, c->wt + oc * c->kh * c->kw, c->bias[oc],
                 j->res ? j->res + plane : NULL, j->y + plane, j->scratch + (int64_t)tid * j->scratch_per_thread);
    }
}

static void gemm_task(void *ctx, int64_t t, int tid) {
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    int64_t cb = t % c->ncb, rest = t / c->ncb;
    int64_t mbi = rest % c->nmb;
    rest /= c->nmb;
    int64_t gi = rest % c->group, b = rest / c->group;
    int64_t c0, nb = block_cols(c, cb, &c0);
    int64_t m0 = gi * c->mg + mbi * c->mb, mrows = c->mg - mbi * c->mb < c->mb ? c->mg - mbi * c->mb : c->mb;
    const float *xg = j->x + (b * c->c + gi * c->cg) * c->h * c->w;
    float *y = j->y + (b * c->m + m0) * c->ohw + c0;
    const float *res = j->res ? j->res + (b * c->m + m0) * c->ohw + c0 : NULL;
    float *bp = j->scratch + (int64_t)tid * j->scratch_per_thread;
    float *rowbuf = bp + c->kc * ((nb + FX_NR - 1) / FX_NR * FX_NR);
    for (int64_t k0 = 0; k0 < c->kk; k0 += c->kc) {
        int64_t kc = c->kk - k0 < c->kc ? c->kk - k0 : c->kc;
        /* 1x1 stride 1: B is the input itself, read in place (only a
         * partial last column panel is packed); else im2col packed */
        int64_t full = nb / FX_NR * FX_NR;
        if (c->prepack)
            bp = packed_block(j, b, gi, cb, k0 / c->kc);
        else if (!c->direct)
            pack_im2col(c, xg, k0, kc, c0, nb, rowbuf, bp);
        else if (full < nb)
            for (int64_t kk = 0; kk < kc; kk++)
                fx_pack_b_row(xg + (k0 + kk) * c->ohw + c0 + full, nb - full, kc, kk, bp);
        const float *ap = a_panel(c, gi, m0 - gi * c->mg, k0);
        if (c->direct)
            fx_sgemm_panel_rows(kc, nb, mrows, ap, xg + k0 * c->ohw + c0, c->ohw, bp, y, c->ohw, k0 > 0);
        else
            fx_sgemm_panel(kc, nb, mrows, ap, bp, y, c->ohw, k0 > 0);
    }
    for (int64_t r = 0; r < mrows; r++)
        epilogue_row(y + r * c->ohw, res ? res + r * c->ohw : NULL, nb, c->bias[m0 + r], c->act, c->p0, c->p1);
}

/* Tapwise: the packed A panel of tap t, rows from r0, K block from k0. */
static const float *tap_panel(const fx_conv *c, int64_t t, int64_t r0, int64_t k0) {
    int64_t kc = c->c - k0 < c->kc ? c->c - k0 : c->kc;
    return c->wt + t * c->wtap + k0 * (c->wtap / c->c) + r0 * kc;
}

typedef struct tap_job {
    const conv_job *j;
    int64_t t, y0, x0, rw, n; /* tap, its output rect's corner and width, outputs in the rect */
} tap_job;

/* Tapwise task q: columns [q * tnb, ...) of tap t's output rect (row-major
 * over the rect): B gathered per K block, C = A_t * B staged, then added
 * into y (zeroed before the first tap). */
static void tap_task(void *ctx, int64_t q, int tid) {
    const tap_job *tj = ctx;
    const conv_job *j = tj->j;
    const fx_conv *c = j->c;
    int64_t q0 = q * c->tnb, nb = tj->n - q0 < c->tnb ? tj->n - q0 : c->tnb, nbr = (nb + FX_NR - 1) / FX_NR * FX_NR;
    int64_t ky = tj->t / c->kw, kx = tj->t % c->kw;
    float *bp = j->scratch + (int64_t)tid * j->scratch_per_thread, *row = bp + c->kc * c->tnb, *cb = row + c->tnb;
    int64_t xo[FX_TAP_NB_MAX], yo[FX_TAP_NB_MAX]; /* where column i reads its input and writes its output */
    for (int64_t i = 0; i < nb; i++) {
        int64_t oy = tj->y0 + (q0 + i) / tj->rw, ox = tj->x0 + (q0 + i) % tj->rw;
        xo[i] = (oy * c->sh - c->ph + ky * c->dh) * c->w + ox * c->sw - c->pw + kx * c->dw;
        yo[i] = oy * c->ow + ox;
    }
    for (int64_t k0 = 0; k0 < c->c; k0 += c->kc) {
        int64_t kc = c->c - k0 < c->kc ? c->c - k0 : c->kc;
        for (int64_t kk = 0; kk < kc; kk++) {
            const float *xp = j->x + (k0 + kk) * c->h * c->w;
            for (int64_t i = 0; i < nb; i++)
                row[i] = xp[xo[i]];
            fx_pack_b_row(row, nb, kc, kk, bp);
        }
        fx_sgemm_panel(kc, nb, c->m, tap_panel(c, tj->t, 0, k0), bp, cb, nbr, k0 > 0);
    }
    for (int64_t r = 0; r < c->m; r++) {
        float *yr = j->y + r * c->ohw;
        const float *cr = cb + r * nbr;
        for (int64_t i = 0; i < nb; i++)
            yr[yo[i]] += cr[i];
    }
}

/* Tapwise epilogue task r: output channel r's plane. */
static void tap_epilogue_task(void *ctx, int64_t r, int tid) {
    (void)tid;
    const conv_job *j = ctx;
    const fx_conv *c = j->c;
    epilogue_row(j->y + r * c->ohw, j->res ? j->res + r * c->ohw : NULL, c->ohw, c->bias[r], c->act, c->p0, c->p1);
}

static void tapwise_run(const fx_conv *c, fx_pool *pool, conv_job *j) {
    memset(j->y, 0, (size_t)(c->m * c->ohw) * sizeof(float));
    for (int64_t t = 0; t < c->kh * c->kw; t++) {
        int64_t y0, y1, x0, x1;
        tap_range(c->h, c->oh, t / c->kw, c->dh, c->sh, c->ph, &y0, &y1);
        tap_range(c->w, c->ow, t % c->kw, c->dw, c->sw, c->pw, &x0, &x1);
        if (y1 <= y0 || x1 <= x0) continue;
        tap_job tj = {j, t, y0, x0, x1 - x0, (y1 - y0) * (x1 - x0)};
        fx_pool_run(pool, (tj.n + c->tnb - 1) / c->tnb, tap_task, &tj);
    }
    fx_pool_run(pool, c->m, tap_epilogue_task, j);
}

void fx_conv_run(const fx_conv *c, fx_pool *pool, const float *x, const float *res, float *y, float *scratch) {
    int64_t shared = fx_conv_shared_floats(c);
    conv_job j = {c,
                  x,
                  c->residual ? res : NULL,
                  y,
                  scratch + shared,
                  scratch,
                  scratch + padded_floats(c),
                  fx_conv_scratch_floats(c)};
    if (c->depthwise) {
        int64_t per = dw_planes_per_task(c);
        fx_pool_run(pool, (c->n * c->m + per - 1) / per, dw_task, &j);
        return;
    }
    if (c->tapwise) {
        tapwise_run(c, pool, &j);
        return;
    }
    if (c->padgrid) {
        memset(scratch + padded_slack_at(c), 0, (size_t)padded_slack(c) * sizeof(float));
        fx_pool_run(pool, c->n * pad_bands(c), pad_task, &j);
    }
    if (c->prepack) fx_pool_run(pool, c->n * c->group * c->ncb * c->nkb, prepack_task, &j);
    if (c->padgrid) {
        fx_pool_run(pool, c->n * c->group * c->nmb * c->ncb, padgrid_task, &j);
    } else {
        fx_pool_run(pool, c->n * c->group * c->nmb * c->ncb, gemm_task, &j);
    }
}
