/* nnfx_rt_spectral.h — DFT and STFT by direct summation in double (O(n^2)
 * per signal, no FFT: short frames, a keyword spotter's front end). Values
 * are typed bytes (nnfx_rt_typed.h's codes; the generator passes float32);
 * signals carry a last dim of 1 (real) or 2 (complex), outputs are complex
 * (last dim 2). The interpreter's kernels (src/exec/kernels/spectral.c)
 * call these same loops. Sections as in nnfx_rt_kernels.h. */
#ifndef NNFX_RT_SPECTRAL_H
#define NNFX_RT_SPECTRAL_H

#include <math.h>

#include "nnfx_rt_typed.h"

/* @rt dft1 libm */
/* out[k] = sum_j in[j] e^{-+2 pi i j k / len} for k < nbins (scaled by
 * 1/len when inverse); in holds n complex values (zero beyond). */
static inline void nnfx_rt_dft1(const double *re, const double *im, long n, long len, long nbins, int inverse,
                                double *ore, double *oim) {
    const double sg = inverse ? 1.0 : -1.0, pi = 3.14159265358979323846;
    long k, j;
    for (k = 0; k < nbins; k++) {
        double sr = 0, si = 0;
        for (j = 0; j < n && j < len; j++) {
            const double a = sg * 2 * pi * (double)((j * k) % len) / (double)len, c = cos(a), s = sin(a);
            sr += re[j] * c - im[j] * s;
            si += re[j] * s + im[j] * c;
        }
        ore[k] = inverse ? sr / (double)len : sr;
        oim[k] = inverse ? si / (double)len : si;
    }
}
/* @end */

/* @rt dft needs:dft1,tval */
/* DFT along the middle dim of x [outer, N, inner, cx] (type tx; cx 1 real
 * or 2 complex) into y [outer, L, inner, 2] (type ty): len points (the
 * signal cut or padded with zeros), L bins; work holds 2 * (N + L)
 * doubles. */
static inline void nnfx_rt_dft(const unsigned char *x, int tx, unsigned char *y, int ty, long outer, long N, long inner,
                               long cx, long len, long L, int inverse, double *work) {
    double *re = work, *im = work + N, *ore = work + 2 * N, *oim = work + 2 * N + L;
    long o, i, j, k;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            for (j = 0; j < N; j++) {
                const long at = ((o * N + j) * inner + i) * cx;
                re[j] = nnfx_rt_ld_f(x, at, tx);
                im[j] = cx == 2 ? nnfx_rt_ld_f(x, at + 1, tx) : 0;
            }
            nnfx_rt_dft1(re, im, N, len, L, inverse, ore, oim);
            for (k = 0; k < L; k++) {
                const long at = ((o * L + k) * inner + i) * 2;
                nnfx_rt_st_f(y, at, ty, ore[k]);
                nnfx_rt_st_f(y, at + 1, ty, oim[k]);
            }
        }
}
/* @end */

/* @rt stft needs:dft1,tval */
/* STFT of x [B, T, cx] (type tx): F frames of fl values every step, each
 * times the window win (fl values of type tw; NULL: none) and zero past
 * the signal's end, to bins complex values: y [B, F, bins, 2] (type ty);
 * work holds 2 * (fl + bins) doubles. */
static inline void nnfx_rt_stft(const unsigned char *x, int tx, const unsigned char *win, int tw, unsigned char *y,
                                int ty, long B, long T, long cx, long step, long fl, long F, long bins, double *work) {
    double *re = work, *im = work + fl, *ore = work + 2 * fl, *oim = work + 2 * fl + bins;
    long b, f, j, k;
    for (b = 0; b < B; b++)
        for (f = 0; f < F; f++) {
            for (j = 0; j < fl; j++) {
                const long t = f * step + j;
                const double w = win ? nnfx_rt_ld_f(win, j, tw) : 1.0;
                re[j] = t < T ? w * nnfx_rt_ld_f(x, (b * T + t) * cx, tx) : 0;
                im[j] = t < T && cx == 2 ? w * nnfx_rt_ld_f(x, (b * T + t) * cx + 1, tx) : 0;
            }
            nnfx_rt_dft1(re, im, fl, fl, bins, 0, ore, oim);
            for (k = 0; k < bins; k++) {
                const long at = ((b * F + f) * bins + k) * 2;
                nnfx_rt_st_f(y, at, ty, ore[k]);
                nnfx_rt_st_f(y, at + 1, ty, oim[k]);
            }
        }
}
/* @end */

#endif
