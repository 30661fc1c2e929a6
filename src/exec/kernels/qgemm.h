/* qgemm.h — int8 kernels for the compiled executor: a u8 x s8 GEMM with
 * int32 accumulation over weights packed once, an im2col convolution and
 * a fully connected layer on it, a direct depthwise convolution, and the
 * requantize epilogue they share (per-channel weight scales, float bias,
 * output zero point, Relu/Clip as saturation bounds, an optional
 * intermediate requantization and residual add).
 *
 * Semantics are ONNX's DequantizeLinear -> float op -> QuantizeLinear: for
 * output channel m, acc = sum_k (x_k - x_zp) * w[m][k] is exact in int32,
 * and the epilogue computes
 *     t = (float)acc * mult[m] + bias[m]          (mult = x_scale * w_scale[m])
 *     mid:  t = (clamp(rne(t / s1) + z1, lo1, hi1) - z1) * s1
 *     res:  t = t + (r - r_zp) * r_scale
 *     y = clamp(rne(t / y_scale) + y_zp, lo, hi)
 * with rne = round half to even. Division by a scale is done as a product
 * with its reciprocal, so a value within float rounding of a .5 tie may land
 * one unit away from a float reference (which itself sums in another order).
 *
 * Activations are u8 or s8 (s8 is shifted to u8 by adding 128 while packing,
 * and the zero point with it); weights are s8 with zero point 0.
 *
 * ISA paths, picked at run time: portable C, AVX2, and AVX2 with a VNNI GEMM
 * tile (AVX-512 VNNI or AVX-VNNI: vpdpbusd sums four u8 x s8 products into
 * int32 exactly, so it needs none of the pair handling below). The AVX2 GEMM has two
 * kernels: vpmaddubsw + vpmaddwd when every adjacent weight pair has
 * |w0| + |w1| <= 128 (7-bit weights, as MLAS's and oneDNN's u8s8 kernels
 * ask for: the int16 pair sums of vpmaddubsw then cannot saturate for any
 * u8 input), and otherwise vpmaddwd alone on activations widened to int16
 * while packing, which is exact for all inputs and costs the same number of
 * multiplies per product (one vpmaddwd per 16 products against vpmaddubsw +
 * vpmaddwd per 32) but more instructions and twice the packed bytes. Where
 * few pairs are unsafe (8-bit weights of trained or randomly initialised
 * layers: a few percent), those pairs are split into a safe pair plus a
 * safe correction applied per row after the tile's main loop, and the
 * vpmaddubsw kernel runs. All give the portable path's int32 sums bit for
 * bit. */
#ifndef NNFX_QGEMM_H
#define NNFX_QGEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/fast_int.h"

/* ---- ISA selection ---------------------------------------------------- */

/* Each ISA after AVX2 includes it (the VNNI paths use the AVX2 epilogue,
 * depthwise and pooling kernels and change only the GEMM tile). */
typedef enum fx_qisa {
    FX_QISA_AUTO = 0,
    FX_QISA_C = 1,
    FX_QISA_AVX2 = 2,
    FX_QISA_AVXVNNI = 3,    /* AVX2 + VEX vpdpbusd */
    FX_QISA_AVX512VNNI = 4, /* AVX2 + EVEX vpdpbusd (AVX-512 F/BW/VL/VNNI) */
} fx_qisa;

/* The ISA the kernels use now: the best the CPU has (AVX-512 VNNI, then
 * AVX-VNNI, AVX2, C), unless forced by fx_qisa_force or the environment
 * variable NNFX_QISA=c|avx2|avxvnni|avx512vnni (read once; a name the CPU
 * cannot run is ignored). */
fx_qisa fx_qisa_active(void);
/* Forces an ISA for the next calls (tests); FX_QISA_AUTO restores the
 * automatic choice. Returns false (and changes nothing) when the CPU lacks
 * it. Weights packed before keep the kernel they were packed for. Not
 * thread-safe: call between runs. */
bool fx_qisa_force(fx_qisa isa);
const char *fx_qisa_name(fx_qisa isa);

/* ---- the requantize epilogue ----------------------------------------- */

typedef struct fx_qepi {
    /* per output channel (arrays of m) */
    const float *mult; /* x_scale * w_scale[m] */
    const float *bias; /* float bias, real units */
    /* mult / y_scale and bias / y_scale + y_zp: the epilogue without mid
     * and res is y = rne(clamp(acc * multq + biasq, lo, hi)) */
    const float *multq, *biasq;
    /* optional intermediate QuantizeLinear -> DequantizeLinear */
    bool mid;
    float mid_scale, mid_inv;
    int32_t mid_zp, mid_lo, mid_hi;
    /* optional residual add of a quantized tensor shaped like the output */
    bool res;
    bool res_signed;
    float res_scale;
    int32_t res_zp;
    /* output */
    bool y_signed;
    float y_inv;          /* 1 / y_scale */
    int32_t y_zp, lo, hi; /* lo, hi: the type range narrowed by Relu/Clip */
    /* fixed point (TFLite's requantization, nnfx_rt_qfixed.h; never with
     * mid or res): y = clamp(qf_mul(acc + fb[m], fm[m], fs[m]) + y_zp, lo,
     * hi), fb the int32 bias (bias / (x_scale * w_scale[m]) rounded), fm
     * and fs the quantized multiplier and shift of x_scale * w_scale[m] /
     * y_scale; the float arrays above are then unused */
    bool fixed;
    const int32_t *fb, *fm, *fs;
} fx_qepi;

/* One row of the epilogue: y[j * ys] for j < n from acc[j] (+ comp) of
 * output channel m; res (same strides, may be NULL when !e->res). */
void fx_qepi_row(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res, void *y,
                 int64_t ys);

/* ---- packed weights and the GEMM core -------------------------------- */

#define FX_QNR 8 /* columns of a tile's unit (fx_qgemm_w.nr is 8 or 16 of them per panel) */

/* The GEMM kernel a weight matrix was packed for. */
typedef enum fx_qkern {
    FX_QK_C,       /* portable; A: 4-row panels of k quads, B: u8 quads */
    FX_QK_UBS,     /* AVX2 vpmaddubsw; the same packing */
    FX_QK_MADD,    /* AVX2 vpmaddwd; A: 4-row panels of int16 k pairs, B: int16 pairs */
    FX_QK_VNNI,    /* AVX-VNNI vpdpbusd; the C packing, any s8 weights */
    FX_QK_VNNI512, /* AVX-512 VNNI vpdpbusd; the C packing, any s8 weights */
} fx_qkern;

/* A correction of the UBS kernel: step q of a row adds the u8 quad of
 * activations times the 4 s8 weights packed in quad (vpmaddubsw again). */
typedef struct fx_qfix {
    int32_t q;
    int32_t quad;
} fx_qfix;

typedef struct fx_qgemm_w {
    int64_t m, k;
    fx_qkern kern;  /* chosen when packing, for the ISA active then */
    int mr;         /* rows per panel */
    int kr;         /* k values per step: 4 (quads) or 2 (pairs) */
    int nr;         /* columns per packed activation panel: 16 for VNNI512 (a step is one zmm), else 8 */
    int64_t ks;     /* steps: ceil(k / kr) */
    int8_t *a;      /* C, UBS: ceil(m / 4) panels of [ks][4 rows][4] bytes, padding 0 */
    int16_t *a16;   /* MADD: ceil(m / 4) panels of [ks][4 rows][2] */
    int32_t *wsum;  /* [m] sum of each row */
    bool pair_safe; /* every pair |w[2i]| + |w[2i+1]| <= 128 */
    /* UBS on weights that are not pair-safe: each unsafe pair is split into
     * a safe pair (in a) plus a correction (fix) of the same pair, also
     * safe; a row's corrections are fix[fix_start[row] .. fix_start[row+1])
     * (fix_start has a row per panel row, padding rows empty). NULL when
     * there are none. */
    int32_t *fix_start;
    fx_qfix *fix;
} fx_qgemm_w;

/* Packs row-major w [m][k] (leading dimension ldw) for the kernel of the
 * active ISA. false on OOM. */
bool fx_qgemm_pack_w(fx_qgemm_w *pw, const int8_t *w, int64_t m, int64_t k, int64_t ldw);
void fx_qgemm_w_free(fx_qgemm_w *pw);

/* Bytes of a packed activation block of nc columns for weights pw. */
int64_t fx_qpack_b_bytes(const fx_qgemm_w *pw, int64_t nc);
/* Packs pw->kr rows of activations (r[j] holds nc bytes, NULL = zeros) as
 * step s of a block: with nr = pw->nr, column c's values at dst + (c / nr) *
 * ks * nr * 4 + s * nr * 4 + (c % nr) * 4 (kr u8 values, or kr int16
 * values when kr is 2); columns of the last panel past nc are zeroed. The
 * tiles' 8-column unit j (even) thus starts at dst + j * ks * 32 for either
 * nr. */
void fx_qpack_b_step(const fx_qgemm_w *pw, const uint8_t *const *r, int64_t nc, int64_t s, uint8_t *dst);
/* fx_qpack_b_step with each byte read from a row XORed with flip (0x80:
 * int8 activations to uint8 on the way). */
void fx_qpack_b_step_flip(const fx_qgemm_w *pw, const uint8_t *const *r, int64_t nc, int64_t s, uint8_t flip,
                          uint8_t *dst);

/* Y[m, n] for rows [0, w->m) and the nc columns of packed block b:
 * acc = sum_k x[k][n] * w[m][k] - x_zp * wsum[m] then the epilogue; output
 * element (m, n) at y + m * ym + n * yn (bytes), residual likewise. */
void fx_qgemm_run(const fx_qgemm_w *w, const uint8_t *b, int64_t nc, int32_t x_zp, const fx_qepi *e, int64_t m0,
                  const void *res, void *y, int64_t ym, int64_t yn);

/* fx_qgemm_run (contiguous output, yn 1) for VNNI weights (FX_QK_VNNI512, FX_QK_VNNI) whose k
 * index runs over (channel quad, tap) steps, the activations read in place
 * from a 4-channel interleaved window: step q of column c is the 4 bytes
 * at b + koff[q] + 4 * c. */
void fx_qgemm_run_win(const fx_qgemm_w *w, const uint8_t *b, const int64_t *koff, int64_t nc, int32_t x_zp,
                      const fx_qepi *e, int64_t m0, const void *res, void *y, int64_t ym);

/* ---- convolution and fully connected ---------------------------------- */

/* Quantization parameters of one int8 op, as its QDQ nodes state them. */
typedef struct fx_qparams {
    bool x_signed, y_signed, res_signed;
    float x_scale, y_scale;
    int32_t x_zp, y_zp;
    const float *w_scale; /* w_scale_n values: 1 (per tensor) or m (per channel) */
    int64_t w_scale_n;
    const float *bias;    /* [m] or NULL */
    float act_lo, act_hi; /* Relu / Clip bounds in real units (-inf, inf: none) */
    bool mid;             /* a Q -> DQ pair between the op and the residual add */
    float mid_scale;
    int32_t mid_zp;
    bool mid_signed;
    float mid_lo, mid_hi; /* activation before the mid Q (real units) */
    bool fixed;           /* fixed-point requantization (fx_qepi.fixed); ignored with mid or res */
    bool res;
    float res_scale;
    int32_t res_zp;
    int threads; /* threads the op will run on (0: unknown): oneDNN's sums are prepared only for 0 or 1 */
} fx_qparams;

typedef struct fx_qconv fx_qconv;

/* Geometry of a 2-d convolution; pads are the begin pads (the end pads are
 * implied by oh, ow). */
typedef struct fx_qconv_geom {
    int64_t n, c, h, w, m, kh, kw, sh, sw, ph, pw, dh, dw, group, oh, ow;
} fx_qconv_geom;

/* Prepares a conv over x [N, C, H, W] with weights w [M, C/group, KH, KW]
 * (s8, zero point 0); depthwise convs (C/group == 1, M == group) take the
 * direct kernel. NULL on OOM. */
fx_qconv *fx_qconv_new(const fx_qconv_geom *g, const int8_t *w, const fx_qparams *q);
void fx_qconv_free(fx_qconv *c);
/* Bytes of scratch per thread. */
int64_t fx_qconv_scratch_bytes(const fx_qconv *c);
void fx_qconv_describe(const fx_qconv *c, char *buf, size_t len);
/* y = requant(conv(x)); scratch: fx_pool_threads(pool) blocks of
 * fx_qconv_scratch_bytes bytes, 64-byte aligned. */
void fx_qconv_run(const fx_qconv *c, fx_pool *pool, const void *x, const void *res, void *y, void *scratch);

/* Fully connected: y [rows, m] = requant(x [rows, k] * w^T), w [m][k]
 * row-major (Gemm with transB = 1; MatMul passes its weights transposed). */
fx_qconv *fx_qfc_new(int64_t rows, int64_t k, int64_t m, const int8_t *w, const fx_qparams *q);
/* The epilogue c's kernels run (read-only; its arrays hold one value per
 * output channel), for the C generator. */
const fx_qepi *fx_qconv_epi(const fx_qconv *c);

/* ---- int8 conv sums by oneDNN (qconv_dnnl.c) --------------------------- */

/* A group-1, undilated conv's int32 sums by oneDNN's u8s8 / s8s8 -> s32
 * convolution, for one OpenMP thread. */
typedef struct fx_qdnnl fx_qdnnl;
/* The sums of geometry g with weights w [M, C, KH, KW], inputs of the
 * signedness x_signed; NULL where it would not give exact sums fast: no oneDNN, the
 * active ISA not AVX-512 VNNI (NNFX_ISA=avx2 keeps nnfx's kernels),
 * NNFX_CONV=own, oneDNN without a VNNI or AMX kernel for it, or turned
 * off by fx_qdnnl_allow. */
fx_qdnnl *fx_qdnnl_new(const fx_qconv_geom *g, const int8_t *w, bool x_signed);
void fx_qdnnl_free(fx_qdnnl *d);
/* Bytes of scratch fx_qdnnl_sums needs (64-byte aligned). */
int64_t fx_qdnnl_scratch_bytes(const fx_qdnnl *d);
/* oneDNN's name for its kernel. */
const char *fx_qdnnl_impl(const fx_qdnnl *d);
/* The sums of one image x [C, H, W]: int32 [OH * OW][M] (channels last)
 * in scratch, each the sum of x * w over the taps inside the image (none
 * from the pads); NULL when oneDNN failed. */
const int32_t *fx_qdnnl_sums(const fx_qdnnl *d, const uint8_t *x, void *scratch);
/* Whether fx_qdnnl_new may build (default true); tests turn it off. */
void fx_qdnnl_allow(bool on);
/* fx_qepi_row over channels-last sums acc [np][m] (AVX-512; qgemm_vnni.c):
 * channel ch's output y[ch * np + j] from acc[j * m + ch] + comp[cls[j] *
 * m + ch] (a compensation per class of positions), its residual at res +
 * ch * np; the bytes of fx_qepi_row_avx512. */
void fx_qepi_nhwc_avx512(const fx_qepi *e, const int32_t *comp, const int32_t *cls, const int32_t *acc, int64_t np,
                         int64_t m, const void *res, void *y);

/* ---- int8 pooling (qpool.c) -------------------------------------------- */

/* DequantizeLinear -> MaxPool (2-d) or GlobalAveragePool -> QuantizeLinear
 * on [N, C, H, W] int8 / uint8 values, per-tensor parameters. */
typedef struct fx_qpool_geom {
    bool global_avg;
    int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
    bool x_signed, y_signed;
    float x_scale, y_scale;
    int32_t x_zp, y_zp;
} fx_qpool_geom;

typedef struct fx_qpool fx_qpool;
fx_qpool *fx_qpool_new(const fx_qpool_geom *g); /* NULL on OOM */
void fx_qpool_free(fx_qpool *p);
void fx_qpool_run(const fx_qpool *p, fx_pool *pool, const void *x, void *y);
void fx_qpool_describe(const fx_qpool *p, char *buf, size_t len);

/* ---- per-ISA entry points (qgemm_avx2.c; callers check the ISA) ------ */

/* acc[r][j] (row stride 16) = sum over ks steps of packed weights (one
 * panel) times np (1 or 2) adjacent activation panels from b. */
void fx_qtile_c(int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc);
/* ubs: fs (NULL: none) the panel's 5 fix_start entries, fix the array. */
void fx_qtile_avx2_ubs(int64_t ks, const int8_t *a, const uint8_t *b, int np, const int32_t *fs, const fx_qfix *fix,
                       int32_t *acc);
void fx_qtile_avx2_madd(int64_t ks, const int16_t *a16, const uint8_t *b, int np, int32_t *acc);
/* A tile of the ubs (a: int8 quads) or madd (a: int16 pairs) kernel over
 * np activation panels with the whole epilogue fused: its first rows
 * (<= 4) and cols (<= 8 * np) values, row r to y + r * ym, its residual
 * (when e->res) at res + r * ym; comp[r] the rows' zero-point
 * compensation, m the channel of row 0; fs, fix as for the ubs tile. Same
 * bytes as the tile followed by fx_qepi_row_avx2. */
void fx_qtile_avx2_q(bool ubs, int64_t ks, const void *a, const uint8_t *b, int np, const int32_t *fs,
                     const fx_qfix *fix, const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols,
                     const void *res, void *y, int64_t ym);
/* The VNNI tiles (qgemm_vnni.c) of kernel k (FX_QK_VNNI or FX_QK_VNNI512):
 * sums as fx_qtile_c; and the tile with its epilogue fused, arguments as
 * fx_qtile_avx2_q. Same bytes as the C path. koff: NULL (b packed by
 * fx_qpack_b_step), or (VNNI kernels) the step offsets of a 4-channel
 * interleaved window (fx_qgemm_run_win). */
void fx_qtile_vnni(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, int np, int32_t *acc);
void fx_qtile_vnni_q(fx_qkern k, int64_t ks, const int8_t *a, const uint8_t *b, const int64_t *koff, int np,
                     const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                     int64_t ym);
/* The AVX-512 VNNI tile over two weight panels (a0: rows m.., a1: rows
 * m + 4..; rows <= 8) and one 16-column activation panel, epilogue fused;
 * comp has a value per row. */
void fx_qtile_vnni_q8(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                      const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                      int64_t ym);
/* The same over two 16-column activation panels (32 columns, cols > 16
 * valid) on 512-bit registers. */
void fx_qtile_vnni_q16(int64_t ks, const int8_t *a0, const int8_t *a1, const uint8_t *b, const int64_t *koff,
                       const fx_qepi *e, int64_t m, const int32_t *comp, int rows, int cols, const void *res, void *y,
                       int64_t ym);
/* acc[i] = sum over k < kpad of x[k] * w[i * kpad + k] for i < m (x u8,
 * w s8, kpad a multiple of 64, w 64-byte aligned; AVX-512 VNNI, callers
 * check the ISA). */
void fx_qgemv_avx512vnni(const uint8_t *x, const int8_t *w, int64_t m, int64_t kpad, int32_t *acc);
/* fx_qepi_row for ys == 1 (contiguous output); acc must be readable up to
 * 8 values past the last multiple of 8 below n (the tail is one vector). */
void fx_qepi_row_c(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res, void *y,
                   int64_t ys);
/* fx_qepi_row_avx2 on 16 lanes (AVX-512; qgemm_vnni.c), the same bytes. */
void fx_qepi_row_avx512(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                        void *y);
void fx_qepi_row_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, const void *res,
                      void *y);
/* fx_qepi_row_c for a fixed-point epilogue (e->fixed) and ys == 1 on 8
 * lanes (AVX2; callers check the ISA), the same bytes. */
void fx_qepi_row_fixed_avx2(const fx_qepi *e, int64_t m, int32_t comp, const int32_t *acc, int64_t n, void *y);
/* One depthwise output row: acc[ox] = sum_{ky,kx} xp[ky * dh * pw + (ox * sw + kx * dw)] * k[ky * kw + kx]
 * over a padded int16 plane xp of row pitch pw. */
void fx_qdw_row_c(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t sw, int64_t dh,
                  int64_t dw, int32_t *acc, int64_t ow);
/* fx_qdw_row_avx2 for stride 1, dilation 1 on 512-bit registers (32
 * outputs per step: acc and the plane need room for 32 past ow); callers
 * check the CPU has AVX-512BW (FX_QISA_AVX512VNNI implies it). */
void fx_qdw_row_s1_avx512(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t dh,
                          int32_t *acc, int64_t ow);
/* acc[oy * ow + ox] = sum of x * k over the taps of each output of one
 * depthwise plane of geometry g (its padded plane dph x dpw), x the padded
 * u8 plane (built in xp: dph * dpw + 128 bytes; pads hold zp, the input
 * zero point in the u8 domain; flip 0x80 for s8 input, else 0), so acc -
 * zp * sum(k) is the sum of (x - zp) * k. AVX-512 VNNI + VBMI: a byte
 * permute builds each output's 4-tap window, one vpdpbusd per 4 taps.
 * Returns false (nothing written) where the CPU or the shape does not
 * allow it (stride 1 or 2 in both directions, no dilation, kernel up to
 * 8 x 8). y (NULL: none): channel ch's output plane, written instead of
 * acc, requantized by epilogue e, which must have neither requant nor
 * residual (the bytes of fx_qepi_row on acc - zp * sum(k)). */
bool fx_qdw_plane_u8(const fx_qconv_geom *g, int64_t dph, int64_t dpw, uint8_t zp, uint8_t flip, const uint8_t *plane,
                     const int16_t *k, uint8_t *xp, int32_t *acc, const fx_qepi *e, int64_t ch, uint8_t *y);
/* Whether depthwise convs may take fx_qdw_plane_u8 (default true); the
 * tests turn it off to run the int16 rows on a host that has it. */
void fx_qdw_u8_allow(bool on);

/* The padded int16 plane of a depthwise conv (AVX-512BW; callers check
 * the CPU): xp[py * dpw + px] = (plane[(py - ph) * w + px - pw] ^ flip) -
 * zp where that lies in the h x w image, else 0, for py < dph, px < dpw. */
void fx_qdw_pad_plane_avx512(const uint8_t *plane, int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t dph,
                             int64_t dpw, int16_t zp, uint8_t flip, int16_t *xp);
void fx_qdw_row_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t sw, int64_t dh,
                     int64_t dw, int32_t *acc, int64_t ow);
/* The stride-1, dilation-1 row of fx_qdw_row_avx2 (n sums, kernel kh x kw
 * of channel m) with the epilogue e applied in registers: output i's byte
 * to yb[i], the same bytes as the row then fx_qepi_row_avx2 (comp 0); yb
 * takes up to 15 bytes past n. false, with nothing written, for a residual
 * or fixed-point epilogue or a kernel with more pairs than fit. AVX2. */
bool fx_qdw_row_s1_q_avx2(const int16_t *xp, int64_t pitch, const int16_t *k, int64_t kh, int64_t kw, int64_t dh,
                          const fx_qepi *e, int64_t m, uint8_t *yb, int64_t n);

#endif
