/* observer.c — value statistics gathered during calibration (min/max and
 * histograms, FX's observers) and the range each method picks from them:
 * MinMax, Percentile, Entropy (the KL-divergence threshold of TensorRT and
 * ONNX Runtime's calibrator) and MSE (the clipping range with the least
 * expected squared error). */
#include <math.h>
#include <stdlib.h>

#include "quant/quant_lib.h"

void quant_obs_minmax(quant_obs *o, const nnfx_tensor *t) {
    const float *x = t->data;
    int64_t n = nnfx_tensor_numel(t);
    double mn = o->count ? o->min : INFINITY, mx = o->count ? o->max : -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        if (x[i] < mn) mn = x[i];
        if (x[i] > mx) mx = x[i];
    }
    if (n > 0 && mn <= mx) {
        o->min = mn, o->max = mx;
        o->count += n;
    }
}

static int bin_of(double v, double lo, double width) {
    if (!(width > 0)) return 0;
    double b = (v - lo) / width;
    if (!(b >= 0)) return 0;
    return b >= QUANT_BINS ? QUANT_BINS - 1 : (int)b;
}

bool quant_obs_hist(quant_obs *o, const nnfx_tensor *t) {
    if (!o->hist) o->hist = calloc(QUANT_BINS, sizeof *o->hist);
    if (!o->ahist) o->ahist = calloc(QUANT_BINS, sizeof *o->ahist);
    if (!o->hist || !o->ahist) return false;
    const float *x = t->data;
    int64_t n = nnfx_tensor_numel(t);
    double w = (o->max - o->min) / QUANT_BINS;
    double amax = fmax(fabs(o->min), fabs(o->max)), aw = amax / QUANT_BINS;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        o->hist[bin_of(x[i], o->min, w)]++;
        o->ahist[bin_of(fabs(x[i]), 0.0, aw)]++;
    }
    return true;
}

/* The value below which a fraction q of the histogram's mass lies. */
static double hist_quantile(const int64_t *h, double lo, double width, double q) {
    int64_t total = 0;
    for (int i = 0; i < QUANT_BINS; i++)
        total += h[i];
    if (total == 0) return lo;
    double want = q * (double)total, acc = 0;
    for (int i = 0; i < QUANT_BINS; i++) {
        acc += (double)h[i];
        if (acc >= want) return lo + width * (i + 1);
    }
    return lo + width * QUANT_BINS;
}

/* KL(p || q) of two unnormalised distributions over n bins. */
static double kl_div(const double *p, const double *q, int n) {
    double sp = 0, sq = 0, d = 0;
    for (int i = 0; i < n; i++)
        sp += p[i], sq += q[i];
    if (sp <= 0 || sq <= 0) return INFINITY;
    for (int i = 0; i < n; i++) {
        if (p[i] <= 0) continue;
        double pi = p[i] / sp, qi = q[i] / sq;
        if (qi <= 0) return INFINITY;
        d += pi * log(pi / qi);
    }
    return d;
}

/* TensorRT's entropy calibration on the |x| histogram: the threshold whose
 * clipped distribution, merged into `target` levels, loses the least
 * information. Returns the threshold (in |x| units). */
static double entropy_threshold(const quant_obs *o, int target) {
    double amax = fmax(fabs(o->min), fabs(o->max)), w = amax / QUANT_BINS;
    if (!(w > 0)) return amax;
    double *p = calloc(QUANT_BINS, sizeof *p), *q = calloc(QUANT_BINS, sizeof *q);
    double best = INFINITY, thr = amax;
    if (!p || !q) goto out;
    /* start past the leading empty bins so a few outliers cannot win */
    for (int i = target; i <= QUANT_BINS; i++) {
        double outliers = 0;
        for (int j = 0; j < i; j++)
            p[j] = (double)o->ahist[j];
        for (int j = i; j < QUANT_BINS; j++)
            outliers += (double)o->ahist[j];
        p[i - 1] += outliers;
        /* merge i bins into `target` levels, spread back over the non-empty bins */
        for (int l = 0; l < target; l++) {
            int a = (int)((int64_t)l * i / target), b = (int)((int64_t)(l + 1) * i / target);
            double sum = 0;
            int nz = 0;
            for (int j = a; j < b; j++) {
                sum += (double)o->ahist[j];
                nz += o->ahist[j] != 0;
            }
            for (int j = a; j < b; j++)
                q[j] = o->ahist[j] != 0 ? sum / nz : 0;
        }
        double d = kl_div(p, q, i);
        if (d < best) {
            best = d;
            thr = w * i;
        }
    }
out:
    free(p);
    free(q);
    return thr;
}

/* Expected squared error of quantizing the histogrammed values to range
 * [lo, hi] with `levels` steps: clipping error outside, step^2/12 inside. */
static double range_mse(const quant_obs *o, double lo, double hi, int levels) {
    double w = (o->max - o->min) / QUANT_BINS, step = (hi - lo) / levels, e = 0;
    for (int i = 0; i < QUANT_BINS; i++) {
        if (!o->hist[i]) continue;
        double c = o->min + w * (i + 0.5), d = c < lo ? lo - c : c > hi ? c - hi : 0;
        e += (double)o->hist[i] * (d > 0 ? d * d : step * step / 12.0);
    }
    return e;
}

void quant_obs_range(const quant_obs *o, nnfx_quant_method method, double percentile, int levels, double *lo,
                     double *hi) {
    double mn = o->count ? fmin(o->min, 0.0) : 0.0, mx = o->count ? fmax(o->max, 0.0) : 0.0;
    *lo = mn, *hi = mx;
    if (!o->hist || !o->ahist || method == NNFX_QUANT_MINMAX || !(o->max > o->min)) return;
    double w = (o->max - o->min) / QUANT_BINS;
    switch (method) {
    case NNFX_QUANT_PERCENTILE: {
        double p = percentile > 0 && percentile <= 100 ? percentile / 100.0 : 0.9999;
        double a = hist_quantile(o->hist, o->min, w, 1.0 - p), b = hist_quantile(o->hist, o->min, w, p);
        *lo = fmax(fmin(a, 0.0), mn), *hi = fmin(fmax(b, 0.0), mx);
        break;
    }
    case NNFX_QUANT_ENTROPY: {
        /* levels available on [0, T]: all of them for a non-negative value */
        double t = entropy_threshold(o, o->min >= 0 ? levels : (levels + 1) / 2);
        *lo = fmax(mn, -t), *hi = fmin(mx, t);
        break;
    }
    case NNFX_QUANT_MSE: {
        double best = INFINITY, bl = mn, bh = mx;
        for (int k = 100; k >= 10; k--) { /* shrink the range by 1 % steps */
            double f = k / 100.0, e = range_mse(o, mn * f, mx * f, levels);
            if (e < best) best = e, bl = mn * f, bh = mx * f;
        }
        *lo = bl, *hi = bh;
        break;
    }
    default: break;
    }
    if (!(*hi > *lo)) *lo = mn, *hi = mx;
}

void quant_affine(double lo, double hi, nnfx_dtype dt, float *scale, int32_t *zp) {
    lo = fmin(lo, 0.0), hi = fmax(hi, 0.0);
    double s = (hi - lo) / 255.0;
    if (!(s > 1e-30) || !isfinite(s)) s = 1.0;
    float sf = (float)s;
    double qmin = dt == NNFX_I8 ? -128 : 0, qmax = dt == NNFX_I8 ? 127 : 255;
    double z = rint(qmin - lo / sf);
    *scale = sf;
    *zp = (int32_t)(z < qmin ? qmin : z > qmax ? qmax : z);
}
