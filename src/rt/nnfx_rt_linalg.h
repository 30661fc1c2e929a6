/* nnfx_rt_linalg.h — Det (LU with partial pivoting, in double) and
 * MelWeightMatrix (the ONNX reference's triangular mel filters), over typed
 * bytes (nnfx_rt_typed.h's codes). The interpreter's kernels
 * (src/exec/kernels/layout.c, spectral.c) call these same loops. Sections as
 * in nnfx_rt_kernels.h. */
#ifndef NNFX_RT_LINALG_H
#define NNFX_RT_LINALG_H

#include <math.h>

#include "nnfx_rt_typed.h"

/* @rt det libm needs:tval */
/* y[m] = det of the m-th M x M matrix of x (type tx) for m < count (y of
 * type ty): Gaussian elimination with partial pivoting in double; work
 * holds M * M doubles. */
static inline void nnfx_rt_det(const unsigned char *x, int tx, unsigned char *y, int ty, long count, long M,
                               double *a) {
    long m, i, j, k, p;
    for (m = 0; m < count; m++) {
        double det = 1;
        for (i = 0; i < M * M; i++)
            a[i] = nnfx_rt_ld_f(x, m * M * M + i, tx);
        for (k = 0; k < M && det != 0; k++) {
            p = k;
            for (i = k + 1; i < M; i++)
                if (fabs(a[i * M + k]) > fabs(a[p * M + k])) p = i;
            if (a[p * M + k] == 0) {
                det = 0;
                break;
            }
            if (p != k) {
                for (j = 0; j < M; j++) {
                    const double t = a[k * M + j];
                    a[k * M + j] = a[p * M + j];
                    a[p * M + j] = t;
                }
                det = -det;
            }
            det *= a[k * M + k];
            for (i = k + 1; i < M; i++) {
                const double f = a[i * M + k] / a[k * M + k];
                for (j = k; j < M; j++)
                    a[i * M + j] -= f * a[k * M + j];
            }
        }
        nnfx_rt_st_f(y, m, ty, det);
    }
}
/* @end */

/* @rt mel_weight_matrix libm needs:tval */
/* MelWeightMatrix into y [nspec, bins] (type ty): bins + 2 points evenly
 * spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) from lo_hz to
 * hi_hz, mapped to spectrogram bins floor((len + 1) * hz / rate); filter i
 * rises from point i to i + 1 and falls to i + 2. pt holds bins + 2 longs.
 * Returns 1 (writing nothing) when rate is not positive, else 0. */
static inline int nnfx_rt_mel_weight_matrix(double len, double rate, double lo_hz, double hi_hz, long nspec, long bins,
                                            unsigned char *y, int ty, long *pt) {
    const double lo = 2595 * log10(1 + lo_hz / 700), hi = 2595 * log10(1 + hi_hz / 700);
    const double step = (hi - lo) / (double)(bins + 2);
    long i, j;
    if (!(rate > 0)) return 1;
    for (i = 0; i < bins + 2; i++) {
        const double hz = 700 * (pow(10, ((double)i * step + lo) / 2595) - 1);
        pt[i] = (long)floor((len + 1) * hz / rate);
    }
    for (i = 0; i < nspec * bins; i++)
        nnfx_rt_st_f(y, i, ty, 0.0);
    for (i = 0; i < bins; i++) {
        const long l = pt[i], c = pt[i + 1], h = pt[i + 2];
        for (j = l; j <= c; j++) /* rising edge (a single 1 when l == c) */
            if (j >= 0 && j < nspec)
                nnfx_rt_st_f(y, j * bins + i, ty, c == l ? 1.0 : (double)(j - l) / (double)(c - l));
        for (j = c; j < h; j++)
            if (j >= 0 && j < nspec) nnfx_rt_st_f(y, j * bins + i, ty, (double)(h - j) / (double)(h - c));
    }
    return 0;
}
/* @end */

#endif
