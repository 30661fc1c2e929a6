/* nnfx_rt_rnn.h — the recurrent layers RNN, GRU and LSTM in portable C99
 * (sections as in nnfx_rt_kernels.h). The gate math of one hidden unit
 * (rnn_cell) is the one definition: the interpreter's kernel
 * (src/exec/kernels/rnn.c) calls it after its BLAS projections, the
 * generated C calls it from nnfx_rt_rnn below. The activations are the scalar functions of nnfx_rt_scalar.h. */
#ifndef NNFX_RT_RNN_H
#define NNFX_RT_RNN_H

#include <string.h>

#include "nnfx_rt_scalar.h"

/* @rt rnn_cell */
/* One activation of a recurrent op: f(x, a, b) (alpha and beta where the
 * function takes them). */
typedef struct nnfx_rt_act {
    float (*f)(float, float, float);
    float a, b;
} nnfx_rt_act;

/* A gate: the activation of the pre-activation v clipped to [-clip, clip]
 * (clip <= 0: not clipped). */
static inline float nnfx_rt_gate(float v, float clip, const nnfx_rt_act *act) {
    if (clip > 0) v = v > clip ? clip : (v < -clip ? -clip : v);
    return act->f(v, act->a, act->b);
}

/* One LSTM unit. i, o, f, c: the pre-activations of the input, output and
 * forget gates and of the cell (x W^T + h R^T + biases); pi, po, pf: the
 * peepholes (0 without); coupled: input_forget (f = 1 - i); acts: f, g, h
 * of ONNX (gates, cell, output). *cell: the previous cell in, the new one
 * out. Returns the new hidden value. */
static inline float nnfx_rt_lstm_unit(float i, float o, float f, float c, float pi, float po, float pf, int coupled,
                                      float clip, const nnfx_rt_act *acts, float *cell) {
    const float ci = *cell;
    const float iv = nnfx_rt_gate(i + pi * ci, clip, &acts[0]);
    const float fv = coupled ? 1.0f - iv : nnfx_rt_gate(f + pf * ci, clip, &acts[0]);
    const float cv = nnfx_rt_gate(c, clip, &acts[1]);
    const float cn = fv * ci + iv * cv;
    const float ov = nnfx_rt_gate(o + po * cn, clip, &acts[0]);
    *cell = cn;
    return ov * acts[2].f(cn, acts[2].a, acts[2].b);
}

/* The new hidden value of a GRU unit from its update gate z, its
 * candidate hh and the previous hidden value h. */
static inline float nnfx_rt_gru_mix(float z, float hh, float h) { return (1 - z) * hh + z * h; }
/* @end */

/* @rt rnn needs:rnn_cell */
/* One gate of hidden units j0 .. j0 + nb - 1 (nb <= 8): px[u] = bias[j0 +
 * u] + x . W[j0 + u] (bias NULL: 0) and ph[u] = h . R[j0 + u] (h NULL:
 * zeros), from the gate's weights transposed, WT [IN][H] and RT [H][H]:
 * eight (or four) units side by side, no horizontal sums. */
static inline void nnfx_rt_rnn_gate8(const float *x, const float *h, const float *WT, const float *RT,
                                     const float *bias, int IN, int H, int j0, int nb, float *px, float *ph) {
    float a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int k, u;
    if (nb == 8) {
        for (k = 0; k < IN; k++)
            for (u = 0; u < 8; u++)
                a[u] += x[k] * WT[(long)k * H + j0 + u];
        if (h)
            for (k = 0; k < H; k++)
                for (u = 0; u < 8; u++)
                    c[u] += h[k] * RT[(long)k * H + j0 + u];
    } else if (nb == 4) {
        for (k = 0; k < IN; k++)
            for (u = 0; u < 4; u++)
                a[u] += x[k] * WT[(long)k * H + j0 + u];
        if (h)
            for (k = 0; k < H; k++)
                for (u = 0; u < 4; u++)
                    c[u] += h[k] * RT[(long)k * H + j0 + u];
    } else {
        for (k = 0; k < IN; k++)
            for (u = 0; u < nb; u++)
                a[u] += x[k] * WT[(long)k * H + j0 + u];
        if (h)
            for (k = 0; k < H; k++)
                for (u = 0; u < nb; u++)
                    c[u] += h[k] * RT[(long)k * H + j0 + u];
    }
    for (u = 0; u < nb; u++) {
        px[u] = (bias ? bias[j0 + u] : 0.0f) + a[u];
        ph[u] = c[u];
    }
}

/* RNN (kind 0), GRU (1) or LSTM (2) as ONNX defines them, without
 * allocation: each batch row's recurrence reads its previous hidden state
 * from its own Y slot of the previous step; an LSTM's cell lives in Y_c,
 * or without yc in the Y slot of the step that reads it (each unit reads
 * its cell there before it writes its hidden value).
 * geo: kind, T, B, IN, H, dirs, reverse (a single direction runs
 * backwards), layout (1: batch first), linear_before_reset, input_forget.
 * x [T, B, IN] ([B, T, IN] batch first); WT [dirs, G, IN, H] and RT [dirs,
 * G, H, H]: ONNX's W [dirs, G*H, IN] and R [dirs, G*H, H] with each gate's
 * matrix transposed (G gates: 1, 3 z r h, 4 i o f c); bsum [dirs, G*H] =
 * Wb + Rb except the GRU's h rows, which hold Wb alone, rbh [dirs, H]
 * those Rb rows (GRU; NULL: zeros), bsum NULL: no bias; lens [B] or NULL
 * (every sequence T long); h0, c0 [dirs, B, H] ([B, dirs, H]) or NULL
 * (zeros); P [dirs, 3H] peepholes i o f or NULL; clip (<= 0: none); acts:
 * per direction 1 (RNN f), 2 (GRU f g) or 3 (LSTM f g h). y [T, dirs, B,
 * H] ([B, T, dirs, H]), zeros past a sequence's length; yh (NULL: not
 * wanted) and yc (LSTM: NULL when not wanted) [dirs, B, H] ([B, dirs, H]);
 * scratch: H floats for a GRU without linear_before_reset, else NULL. */
static inline void nnfx_rt_rnn(const int *geo, const float *x, const float *WT, const float *RT, const float *bsum,
                               const float *rbh, const int *lens, const float *h0, const float *c0, const float *P,
                               float clip, const nnfx_rt_act *acts, float *y, float *yh, float *yc, float *scratch) {
    const int kind = geo[0], T = geo[1], B = geo[2], IN = geo[3], H = geo[4], dirs = geo[5], bf = geo[7];
    const int lbr = geo[8], coupled = geo[9], G = kind == 2 ? 4 : kind == 1 ? 3 : 1, per = kind + 1;
    const long gw = (long)IN * H, gr = (long)H * H; /* floats of one gate's WT, RT */
    float px[4][8], ph[4][8];
    int d, b, s, j, u, g;
    if (lens) memset(y, 0, sizeof(float) * (size_t)T * (size_t)dirs * (size_t)B * (size_t)H);
    for (d = 0; d < dirs; d++) {
        const int back = geo[6] || d == 1;
        const float *Wd = WT + (long)d * G * gw, *Rd = RT + (long)d * G * gr;
        const float *bd = bsum ? bsum + (long)d * G * H : 0, *rd = rbh ? rbh + (long)d * H : 0;
        const float *Pd = P ? P + (long)d * 3 * H : 0;
        const nnfx_rt_act *a = acts + d * per;
        for (b = 0; b < B; b++) {
            const long so = bf ? ((long)b * dirs + d) * H : ((long)d * B + b) * H;
            const int len = !lens ? T : lens[b] < 0 ? 0 : lens[b] > T ? T : lens[b];
            const float *hp = h0 ? h0 + so : 0;
            float *cell = yc ? yc + so : 0;
            for (s = 0; s < len; s++) {
                const int t = back ? len - 1 - s : s, tn = back ? t - 1 : t + 1;
                const float *xt = x + (bf ? (long)b * T + t : (long)t * B + b) * IN;
                float *ht = y + (bf ? ((long)b * T + t) * dirs + d : ((long)t * dirs + d) * B + b) * H;
                float *hn = s + 1 < len ? y + (bf ? ((long)b * T + tn) * dirs + d : ((long)tn * dirs + d) * B + b) * H
                                        : 0; /* the next step's slot: the cell without yc */
                if (kind == 2 && s == 0)
                    for (j = 0; j < H; j++)
                        (cell ? cell : ht)[j] = c0 ? c0[so + j] : 0.0f;
                if (kind == 1 && !lbr) /* r * h first (scratch): hh = g(x Wh + (r h) Rh + Rbh) */
                    for (j = 0; j < H; j += 8) {
                        const int nb = H - j < 8 ? H - j : 8;
                        nnfx_rt_rnn_gate8(xt, hp, Wd + gw, Rd + gr, bd ? bd + H : 0, IN, H, j, nb, px[1], ph[1]);
                        for (u = 0; u < nb; u++)
                            scratch[j + u] = hp ? nnfx_rt_gate(px[1][u] + ph[1][u], clip, &a[0]) * hp[j + u] : 0.0f;
                    }
                for (j = 0; j < H; j += 8) {
                    const int nb = H - j < 8 ? H - j : 8;
                    for (g = 0; g < G; g++)
                        if (!(kind == 1 && !lbr && g == 1))
                            nnfx_rt_rnn_gate8(xt, kind == 1 && !lbr && g == 2 ? (hp ? scratch : 0) : hp, Wd + g * gw,
                                              Rd + g * gr, bd ? bd + g * H : 0, IN, H, j, nb, px[g], ph[g]);
                    for (u = 0; u < nb; u++) {
                        const float hprev = hp ? hp[j + u] : 0.0f, rb = rd ? rd[j + u] : 0.0f;
                        if (kind == 0) {
                            ht[j + u] = nnfx_rt_gate(px[0][u] + ph[0][u], clip, &a[0]);
                        } else if (kind == 2) {
                            float cv = cell ? cell[j + u] : ht[j + u];
                            ht[j + u] =
                                nnfx_rt_lstm_unit(px[0][u] + ph[0][u], px[1][u] + ph[1][u], px[2][u] + ph[2][u],
                                                  px[3][u] + ph[3][u], Pd ? Pd[j + u] : 0.0f, Pd ? Pd[H + j + u] : 0.0f,
                                                  Pd ? Pd[2 * H + j + u] : 0.0f, coupled, clip, a, &cv);
                            if (cell)
                                cell[j + u] = cv;
                            else if (hn)
                                hn[j + u] = cv;
                        } else {
                            const float z = nnfx_rt_gate(px[0][u] + ph[0][u], clip, &a[0]);
                            float hh;
                            if (lbr)
                                hh = nnfx_rt_gate(px[2][u] +
                                                      nnfx_rt_gate(px[1][u] + ph[1][u], clip, &a[0]) * (ph[2][u] + rb),
                                                  clip, &a[1]);
                            else
                                hh = nnfx_rt_gate(px[2][u] + rb + ph[2][u], clip, &a[1]);
                            ht[j + u] = nnfx_rt_gru_mix(z, hh, hprev);
                        }
                    }
                }
                hp = ht;
            }
            if (yh)
                for (j = 0; j < H; j++)
                    yh[so + j] = hp ? hp[j] : 0.0f;
        }
    }
}
/* @end */

/* @rt rnn_pack */
/* W or R of a recurrent layer computed at run time, [dg][H][K] (dg =
 * directions x gates), into the layout nnfx_rt_rnn reads: each gate's
 * matrix transposed, tr [dg][K][H] (what the generator does to constant
 * weights). */
static inline void nnfx_rt_rnn_pack(const float *w, float *tr, long dg, long H, long K) {
    long g, j, k;
    for (g = 0; g < dg; g++)
        for (j = 0; j < H; j++)
            for (k = 0; k < K; k++)
                tr[(g * K + k) * H + j] = w[(g * H + j) * K + k];
}

/* B computed at run time, [dirs][Wb (G x H), Rb (G x H)], into the arrays
 * nnfx_rt_rnn reads (what the generator does to a constant B): sum = Wb +
 * Rb per gate row, except a GRU's h rows (Wb alone), whose Rb go to rh
 * [dirs][H]. */
static inline void nnfx_rt_rnn_pack_bias(const float *b, float *sum, float *rh, long dirs, long G, long H, int gru) {
    long d, j;
    for (d = 0; d < dirs; d++)
        for (j = 0; j < G * H; j++) {
            const float wb = b[d * 2 * G * H + j], rbj = b[d * 2 * G * H + G * H + j];
            sum[d * G * H + j] = gru && j >= 2 * H ? wb : wb + rbj;
            if (gru && j >= 2 * H) rh[d * H + j - 2 * H] = rbj;
        }
}
/* @end */

/* @rt cast_i64 */
/* y[i] = (float)v[i] for the n int64 values stored bytewise at src (TopK's
 * indices): Cast to float32 as C converts. */
static inline void nnfx_rt_cast_i64(const unsigned char *src, float *y, long n) {
    long i;
    for (i = 0; i < n; i++) {
        long long v;
        memcpy(&v, src + i * (long)sizeof v, sizeof v);
        y[i] = (float)v;
    }
}
/* @end */

/* @rt cast_f32_i64 */
/* Cast of n float32 values to int64, stored bytewise at y (any alignment):
 * truncated toward zero and saturated, NaN gives 0 (the interpreter's
 * kern_set). */
static inline void nnfx_rt_cast_f32_i64(const float *x, unsigned char *y, long n) {
    long i;
    for (i = 0; i < n; i++) {
        const double v = x[i];
        long long r;
        if (v != v)
            r = 0;
        else if (v < -9223372036854775808.0)
            r = (long long)-9223372036854775807LL - 1;
        else if (v > 9223372036854774784.0)
            r = 9223372036854774784LL;
        else
            r = (long long)v;
        memcpy(y + i * (long)sizeof r, &r, sizeof r);
    }
}
/* @end */

/* @rt cast_f32_bool */
/* Cast of n float32 values to bool (one byte each): 1 where nonzero (NaN
 * too). */
static inline void nnfx_rt_cast_f32_bool(const float *x, unsigned char *y, long n) {
    long i;
    for (i = 0; i < n; i++)
        y[i] = x[i] != 0;
}
/* @end */

#endif
