/* qfast_check.c — the fast int8 conv kernels of nnfx_rt_int8.h
 * (nnfx_rt_qpw: pointwise; nnfx_rt_qdw3: 3x3 depthwise; nnfx_rt_qconv1:
 * one input channel per output channel; nnfx_rt_qconvg: group 1, im2col)
 * and nnfx_rt_qconv against a plain
 * direct convolution with the general requantization (ref_conv), byte for
 * byte, on random geometries (odd channel
 * and pixel counts, C not a multiple of 4, strides 1-2, padding 0-2) and
 * random zero points and fixed-point epilogues. Built for the host (the
 * portable path) and, by check_qfast.py, for QEMU's Cortex-M3 / M4 (the
 * SMLAD path) / M55 with startup.c. Exit status 0: all equal. */
#include <stdint.h>
#include <string.h>

#define NNFX_RT_INT_ONLY 1
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function" /* the header's other kernels */
#endif
#include "../../../src/rt/nnfx_rt_int8.h"

#if defined(NNFX_QFAST_SEMIHOST)
int sh_call(int op, const void *arg);
static void say(const char *s) { sh_call(0x04, s); }
#else
#include <stdio.h>
static void say(const char *s) { fputs(s, stdout); }
#endif

static uint32_t rng = 12345u;
/* a pseudo-random integer in [lo, hi] */
static int32_t rnd(int32_t lo, int32_t hi) {
    rng = rng * 1664525u + 1013904223u;
    return lo + (int32_t)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

static int8_t xb[2 * 64 * 200], wb[9 * 600], y0[48000], y1[48000], y2[48000]; /* y: up to 2 x 12 x 42 x 42 */
static int32_t fb[64], fm[64], fs[64];

/* A random epilogue for m channels and input zero point range into op. */
static void rand_op(nnfx_rt_qop *op, int m) {
    int i;
    for (i = 0; i < m; i++)
        fb[i] = rnd(-(1 << 20), 1 << 20), fm[i] = rnd(1 << 30, 0x7fffffff), fs[i] = rnd(-14, 0);
    if (m && !rnd(0, 3)) fs[rnd(0, m - 1)] = rnd(-31, -15); /* past the fast requantization's shifts */
    op->fb = fb, op->fm = fm, op->fs = fs;
    op->x_signed = 1, op->y_signed = 1;
    op->x_zp = rnd(-128, 127), op->y_zp = rnd(-128, 127);
    op->lo = rnd(-128, 0), op->hi = rnd(0, 127);
    if (rnd(0, 1)) op->lo = -128, op->hi = 127; /* the whole range: the kernels saturate */
}

/* The reference: y = the direct convolution of g (nnfx_rt_qconv's layout)
 * with plain int32 sums, requantized by the general nnfx_rt_qf_requant
 * (not the kernels' row epilogue, so a wrong fast requantization shows). */
static void ref_conv(const int8_t *x, const int8_t *w, const nnfx_rt_qop *op, int8_t *y, const int *g) {
    const int N = g[0], C = g[1], H = g[2], W = g[3], M = g[4], KH = g[5], KW = g[6], OH = g[7], OW = g[8];
    const int SH = g[9], SW = g[10], PH = g[11], PW = g[12], DH = g[13], DW = g[14], G = g[15];
    const int CG = C / G, MG = M / G;
    int n, m, oh, ow, c, kh, kw;
    for (n = 0; n < N; n++)
        for (m = 0; m < M; m++)
            for (oh = 0; oh < OH; oh++)
                for (ow = 0; ow < OW; ow++) {
                    int32_t acc = 0;
                    for (c = 0; c < CG; c++)
                        for (kh = 0; kh < KH; kh++)
                            for (kw = 0; kw < KW; kw++) {
                                const int ih = oh * SH - PH + kh * DH, iw = ow * SW - PW + kw * DW;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (x[(((long)n * C + (long)(m / MG) * CG + c) * H + ih) * W + iw] - op->x_zp) *
                                       w[(((long)m * CG + c) * KH + kh) * KW + kw];
                            }
                    y[(((long)n * M + m) * OH + oh) * OW + ow] =
                        nnfx_rt_qf_requant(acc + op->fb[m], op->fm[m], (int)op->fs[m], op->y_zp, op->lo, op->hi);
                }
}

static void fill(int8_t *p, long n) {
    long i;
    for (i = 0; i < n; i++)
        p[i] = (int8_t)rnd(-128, 127);
}

/* Fine cases, so that an accumulator off by one shows in the bytes: x within
 * 3 of op's zero point and w in [-3, 3] (small sums), and op's epilogue
 * scaled by 1/4 to 1 (shifts -1 to -3, bias small). */
static void fine(nnfx_rt_qop *op, int m, int8_t *x, long nx, int8_t *w, long nw) {
    long i;
    for (i = 0; i < m; i++)
        fb[i] = rnd(-40, 40), fs[i] = rnd(-3, -1);
    for (i = 0; i < nx; i++)
        x[i] = (int8_t)nnfx_rt_qf_clamp(op->x_zp + rnd(-3, 3), -128, 127);
    for (i = 0; i < nw; i++)
        w[i] = (int8_t)rnd(-3, 3);
}

int main(void) {
    int t, bad = 0;
#if defined(__ARM_FEATURE_MVE) && defined(NNFX_RT_QPW_MVE_BUF) && defined(NNFX_RT_QDW_LDZ)
    /* the header's Helium pointwise and depthwise kernels were compiled in: check_qfast.py wants this from the M55 */
    say("qfast: the Helium (MVE) path\n");
#endif
    for (t = 0; t < 300 && !bad; t++) { /* pointwise */
        /* C past NNFX_RT_QPW_CPACK (512) and P past a block of pixels (NNFX_RT_QPW_PB) too */
        const int N = rnd(1, 2),
                  C = t < 50    ? rnd(1, 9)
                      : t < 250 ? rnd(1, 64)
                                : rnd(100, 600),
                  M = rnd(1, 9),
                  P = t < 150  ? rnd(1, 23)
                      : C > 64 ? rnd(1, 21)
                               : rnd(24, 100);
        const int g[16] = {N, C, 1, P, M, 1, 1, 1, P, 1, 1, 0, 0, 1, 1, 1};
        nnfx_rt_qop op;
        rand_op(&op, M);
        fill(xb, (long)N * C * P), fill(wb, (long)M * C);
        if (t % 3 == 0) fine(&op, M, xb, (long)N * C * P, wb, (long)M * C);
        ref_conv(xb, wb, &op, y0, g), nnfx_rt_qconv(xb, wb, &op, 0, y2, g);
        nnfx_rt_qpw(xb, wb, &op, y1, N, C, M, P);
        if (memcmp(y0, y2, (size_t)N * M * P)) say("FAIL: nnfx_rt_qconv (1x1) differs from the reference\n"), bad = 1;
        if (memcmp(y0, y1, (size_t)N * M * P)) say("FAIL: nnfx_rt_qpw differs from nnfx_rt_qconv\n"), bad = 1;
    }
    for (t = 0; t < 300 && !bad; t++) { /* 3x3 depthwise */
        /* planes past NNFX_RT_QDW_BUF padded bytes take the unbuffered path */
        const int big = t >= 200, N = rnd(1, 2), C = rnd(1, 5), H = big ? rnd(30, 40) : rnd(1, 9),
                  W = big ? rnd(30, 40) : rnd(1, 21), SH = rnd(1, 2), SW = rnd(1, 2);
        const int PH = rnd(0, 2), PW = rnd(0, 2), OH = (H + 2 * PH - 3) / SH + 1, OW = (W + 2 * PW - 3) / SW + 1;
        const int g[16] = {N, C, H, W, C, 3, 3, OH, OW, SH, SW, PH, PW, 1, 1, C};
        nnfx_rt_qop op;
        if (H + 2 * PH < 3 || W + 2 * PW < 3) continue;
        rand_op(&op, C);
        fill(xb, (long)N * C * H * W), fill(wb, (long)C * 9);
        if (t % 3 == 0) fine(&op, C, xb, (long)N * C * H * W, wb, (long)C * 9);
        ref_conv(xb, wb, &op, y0, g), nnfx_rt_qconv(xb, wb, &op, 0, y2, g);
        nnfx_rt_qdw3(xb, wb, &op, y1, g);
        if (memcmp(y0, y2, (size_t)N * C * OH * OW))
            say("FAIL: nnfx_rt_qconv (3x3 dw) differs from the reference\n"), bad = 1;
        if (memcmp(y0, y1, (size_t)N * C * OH * OW)) say("FAIL: nnfx_rt_qdw3 differs from nnfx_rt_qconv\n"), bad = 1;
    }
    for (t = 0; t < 300 && !bad; t++) { /* one input channel per output channel, any kernel */
        const int big = t >= 250, N = rnd(1, 2), C = rnd(1, 3), MG = rnd(1, 4), KH = rnd(1, 10), KW = rnd(1, 5);
        const int H = big ? rnd(30, 40) : rnd(1, 30), W = big ? rnd(30, 40) : rnd(1, 12), SH = rnd(1, 3),
                  SW = rnd(1, 3);
        const int PH = rnd(0, KH - 1), PW = rnd(0, KW - 1), OH = (H + 2 * PH - KH) / SH + 1,
                  OW = (W + 2 * PW - KW) / SW + 1;
        const int g[16] = {N, C, H, W, C * MG, KH, KW, OH, OW, SH, SW, PH, PW, 1, 1, C};
        nnfx_rt_qop op;
        if (H + 2 * PH < KH || W + 2 * PW < KW) continue;
        rand_op(&op, C * MG);
        fill(xb, (long)N * C * H * W), fill(wb, (long)C * MG * KH * KW);
        ref_conv(xb, wb, &op, y0, g), nnfx_rt_qconv(xb, wb, &op, 0, y2, g);
        nnfx_rt_qconv1(xb, wb, &op, y1, g);
        if (memcmp(y0, y2, (size_t)N * C * MG * OH * OW))
            say("FAIL: nnfx_rt_qconv (one channel) differs from the reference\n"), bad = 1;
        if (memcmp(y0, y1, (size_t)N * C * MG * OH * OW))
            say("FAIL: nnfx_rt_qconv1 differs from nnfx_rt_qconv\n"), bad = 1;
    }
    for (t = 0; t < 300 && !bad; t++) { /* group 1, any kernel, stride, padding, dilation (im2col) */
        /* K = C * KH * KW past NNFX_RT_QCG_KMAX (640) in the last cases: the reference path */
        const int wide = t >= 280, N = rnd(1, 2), C = wide ? rnd(26, 30) : rnd(1, 9), M = wide ? rnd(1, 7) : rnd(1, 9);
        const int KH = wide ? 5 : rnd(1, 5), KW = wide ? 5 : rnd(1, 5), DH = rnd(1, 2), DW = rnd(1, 2);
        const int H = rnd(1, 14), W = rnd(1, 14), SH = rnd(1, 3), SW = rnd(1, 3), PH = rnd(0, KH - 1),
                  PW = rnd(0, KW - 1);
        const int EH = (KH - 1) * DH + 1, EW = (KW - 1) * DW + 1, OH = (H + 2 * PH - EH) / SH + 1,
                  OW = (W + 2 * PW - EW) / SW + 1;
        const int g[16] = {N, C, H, W, M, KH, KW, OH, OW, SH, SW, PH, PW, DH, DW, 1};
        nnfx_rt_qop op;
        if (H + 2 * PH < EH || W + 2 * PW < EW) continue;
        rand_op(&op, M);
        fill(xb, (long)N * C * H * W), fill(wb, (long)M * C * KH * KW);
        ref_conv(xb, wb, &op, y0, g), nnfx_rt_qconv(xb, wb, &op, 0, y2, g);
        nnfx_rt_qconvg(xb, wb, &op, y1, g);
        if (memcmp(y0, y2, (size_t)N * M * OH * OW))
            say("FAIL: nnfx_rt_qconv (group 1) differs from the reference\n"), bad = 1;
        if (memcmp(y0, y1, (size_t)N * M * OH * OW)) say("FAIL: nnfx_rt_qconvg differs from nnfx_rt_qconv\n"), bad = 1;
    }
    for (t = 0; t < 3000 && !bad; t++) { /* the row epilogue alone, accumulators of every magnitude */
        const int n = rnd(1, 37), e = rnd(0, 29);
        int8_t yr[37], yq[37];
        int32_t acc[37];
        nnfx_rt_qop op;
        int i;
        rand_op(&op, 1);
        fs[0] = rnd(-22, 0);
        if (t % 4 == 0) /* the largest products and high words (qm near 2^31, long shifts, zero point near 127) */
            fm[0] = rnd(0x7f000000, 0x7fffffff), fs[0] = rnd(-20, -12), op.y_zp = rnd(64, 127);
        for (i = 0; i < n; i++) { /* |acc| < 2^e, and near the int32 limits (less the bias's 2^20) */
            acc[i] =
                rnd(0, 7) ? rnd(-(1 << e), 1 << e) : (rnd(0, 1) ? 1 : -1) * rnd(0x7fe00000, 0x7fffffff - (1 << 20));
            yr[i] = nnfx_rt_qf_requant(acc[i] + fb[0], fm[0], (int)fs[0], op.y_zp, op.lo, op.hi);
        }
        nnfx_rt_qstore_row(&op, 0, acc, n, 0, yq, 0);
        if (memcmp(yr, yq, (size_t)n)) say("FAIL: nnfx_rt_qstore_row differs from nnfx_rt_qf_requant\n"), bad = 1;
    }
    if (!bad)
        say("qfast: nnfx_rt_qpw, nnfx_rt_qdw3, nnfx_rt_qconv1, nnfx_rt_qconvg and nnfx_rt_qconv equal the reference "
            "on 1200 random cases, nnfx_rt_qstore_row on 3000 rows\n");
    return bad;
}
