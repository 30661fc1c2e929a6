/* qpool.c — int8 pooling for the compiled plan's DequantizeLinear ->
 * MaxPool | GlobalAveragePool -> QuantizeLinear islands (see qgemm.h).
 * MaxPool: quantization is monotone, so the max of the int8 inputs is
 * taken first and requantized once (no requantization at all when the two
 * sides share scale, zero point and type); the requantization is the
 * reference's own float computation, so results are exact.
 * GlobalAveragePool: the sum of (x - zp) in int32, then one float
 * requantization (a value on a rounding tie may differ by one unit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/kernels/qgemm.h"
#include "ir/quant_int.h"

struct fx_qpool {
    fx_qpool_geom g;
    bool same; /* max pool with identical quantization on both sides */
};

fx_qpool *fx_qpool_new(const fx_qpool_geom *g) {
    fx_qpool *p = malloc(sizeof *p);
    if (!p) return NULL;
    p->g = *g;
    p->same = !g->global_avg && g->x_signed == g->y_signed && g->x_scale == g->y_scale && g->x_zp == g->y_zp;
    return p;
}

void fx_qpool_free(fx_qpool *p) { free(p); }

static inline int32_t ld(bool sgn, const void *x, int64_t i) {
    return sgn ? ((const int8_t *)x)[i] : ((const uint8_t *)x)[i];
}

static inline void st(bool sgn, void *y, int64_t i, int32_t v) {
    if (sgn)
        ((int8_t *)y)[i] = (int8_t)v;
    else
        ((uint8_t *)y)[i] = (uint8_t)v;
}

typedef struct pjob {
    const fx_qpool *p;
    const void *x;
    void *y;
} pjob;

static void plane_task(void *ctx, int64_t t, int tid) {
    (void)tid;
    const pjob *j = ctx;
    const fx_qpool_geom *g = &j->p->g;
    int32_t lo = g->y_signed ? -128 : 0, hi = g->y_signed ? 127 : 255;
    int64_t hw = g->h * g->w;
    if (g->global_avg) {
        int32_t s = 0;
        for (int64_t i = 0; i < hw; i++)
            s += ld(g->x_signed, j->x, t * hw + i) - g->x_zp;
        st(g->y_signed, j->y, t, nnfx_rt_qavg(s, (long)hw, g->x_scale, g->y_scale, g->y_zp, lo, hi));
        return;
    }
    int64_t ohw = g->oh * g->ow;
    for (int64_t oy = 0; oy < g->oh; oy++)
        for (int64_t ox = 0; ox < g->ow; ox++) {
            int32_t m = -1000;
            for (int64_t ky = 0; ky < g->kh; ky++) {
                int64_t iy = oy * g->sh - g->ph + ky * g->dh;
                if (iy < 0 || iy >= g->h) continue;
                for (int64_t kx = 0; kx < g->kw; kx++) {
                    int64_t ix = ox * g->sw - g->pw + kx * g->dw;
                    if (ix < 0 || ix >= g->w) continue;
                    int32_t v = ld(g->x_signed, j->x, t * hw + iy * g->w + ix);
                    if (v > m) m = v;
                }
            }
            int32_t q = m;
            if (m == -1000) /* an all-padding window: the float max pool gives -inf */
                q = lo;
            else if (!j->p->same)
                q = ir_quant_one((float)(m - g->x_zp) * g->x_scale, g->y_scale, g->y_zp, lo, hi);
            st(g->y_signed, j->y, t * ohw + oy * g->ow + ox, q);
        }
}

void fx_qpool_run(const fx_qpool *p, fx_pool *pool, const void *x, void *y) {
    pjob j = {p, x, y};
    fx_pool_run(pool, p->g.n * p->g.c, plane_task, &j);
}

void fx_qpool_describe(const fx_qpool *p, char *buf, size_t len) {
    if (p->g.global_avg)
        snprintf(buf, len, "qglobal_avg_pool int8 (int32 sum + requant)");
    else
        snprintf(buf, len, "qmax_pool%lldx%lld/s%lld int8%s", (long long)p->g.kh, (long long)p->g.kw,
                 (long long)p->g.sh, p->same ? "" : " + requant");
}
