/* qconv_dnnl.c — the int32 sums of an int8 convolution (group 1, no
 * dilation) by oneDNN's u8s8 / s8s8 -> s32 convolution, for the hosts
 * where it runs VNNI (or AMX) kernels: vpdpbusd sums four u8 x s8
 * products into int32 exactly, so its sums equal nnfx's own tile's bit for
 * bit, whatever order it adds them in. The requantization stays nnfx's
 * (fx_qepi_nhwc_avx512 over these sums, in qgemm.c), so the bytes are the
 * other paths'. On resnet18's shapes at one thread its brgemm kernels
 * reached 230-280 GMAC/s where nnfx's window tiles reach 110-170.
 *
 * The input image (NCHW, one byte per value) is transposed channels-last
 * (16 x 16 byte blocks: oneDNN's u8 reorder took 5-10 times as long) and
 * the conv pads it with zeros, skipping the taps that fall in the pads
 * (a pre-padded input cost 10-20% more time on 7x7 and 14x14 images): the
 * sums are over the taps inside the image only, so the zero point's part
 * differs at the borders, and the caller subtracts zp * (the sum of the
 * weights of the taps inside) per position (qgemm.c's use_dnnl). The
 * primitive is built for one OpenMP thread (what fx_qconv_run takes it
 * for) and run with oneDNN's sums left channels-last (int32 [OH * OW][M])
 * in the scratch. */
#include "exec/kernels/qgemm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifdef NNFX_HAVE_DNNL
#include <dnnl.h>

extern void omp_set_num_threads(int n);
extern int omp_get_max_threads(void);

struct fx_qdnnl {
    int64_t c, h, w, m, oh, ow;
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    dnnl_memory_t src, dst, wts, spad;
    int64_t spad_bytes, src_off, dst_off, bytes;
    char impl[64];
};

static dnnl_engine_t g_qengine;
static pthread_once_t g_qengine_once = PTHREAD_ONCE_INIT;
static bool g_qdnnl_allow = true;

static void qengine_init(void) {
    if (dnnl_engine_create(&g_qengine, dnnl_cpu, 0) != dnnl_success) g_qengine = NULL;
}

void fx_qdnnl_allow(bool on) { g_qdnnl_allow = on; }

void fx_qdnnl_free(fx_qdnnl *d) {
    if (!d) return;
    if (d->prim) dnnl_primitive_destroy(d->prim);
    dnnl_memory_t mems[] = {d->src, d->dst, d->wts, d->spad};
    for (size_t k = 0; k < sizeof mems / sizeof *mems; k++)
        if (mems[k]) dnnl_memory_destroy(mems[k]);
    if (d->stream) dnnl_stream_destroy(d->stream);
    free(d);
}

static dnnl_memory_t qview(const dnnl_memory_desc_t *md) {
    dnnl_memory_t m = NULL;
    return dnnl_memory_create(&m, md, g_qengine, DNNL_MEMORY_NONE) == dnnl_success ? m : NULL;
}

/* Copies w [M, C, KH, KW] into the primitive's weight layout (s8 to s8:
 * the same values). */
static bool load_qweights(fx_qdnnl *d, dnnl_primitive_desc_t pd, const dnnl_memory_desc_t *wu_md, const int8_t *w) {
    const dnnl_memory_desc_t *wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_t wu = NULL;
    dnnl_primitive_desc_t rpd = NULL;
    dnnl_primitive_t re = NULL;
    dnnl_stream_t s = NULL;
    bool ok = dnnl_memory_create(&d->wts, wmd, g_qengine, DNNL_MEMORY_ALLOCATE) == dnnl_success &&
              dnnl_memory_create(&wu, wu_md, g_qengine, (void *)w) == dnnl_success &&
              dnnl_reorder_primitive_desc_create(&rpd, wu_md, g_qengine, wmd, g_qengine, NULL) == dnnl_success &&
              dnnl_primitive_create(&re, rpd) == dnnl_success &&
              dnnl_stream_create(&s, g_qengine, dnnl_stream_default_flags) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, wu}, {DNNL_ARG_TO, d->wts}};
        ok = dnnl_primitive_execute(re, s, 2, a) == dnnl_success && dnnl_stream_wait(s) == dnnl_success;
    }
    if (s) dnnl_stream_destroy(s);
    if (re) dnnl_primitive_destroy(re);
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    if (wu) dnnl_memory_destroy(wu);
    return ok;
}

/* The convolution's primitive (one OpenMP thread); false when oneDNN has
 * no exact (VNNI or AMX) kernel for it. */
static bool make_conv(fx_qdnnl *d, const fx_qconv_geom *g, const int8_t *w, dnnl_data_type_t dt) {
    dnnl_memory_desc_t sd, wany, wu, dd;
    dnnl_dims_t sdims = {1, g->c, g->h, g->w}, wdims = {g->m, g->c, g->kh, g->kw}, ddims = {1, g->m, g->oh, g->ow};
    /* the end pads: how far the last output's window passes the image (0
     * where it ends inside: a strided 1x1 conv over an even size) */
    dnnl_dims_t stride = {g->sh, g->sw}, lpad = {g->ph, g->pw};
    dnnl_dims_t rpad = {(g->oh - 1) * g->sh + g->kh - g->h - g->ph, (g->ow - 1) * g->sw + g->kw - g->w - g->pw};
    for (int i = 0; i < 2; i++)
        if (rpad[i] < 0 && rpad[i] > -stride[i]) rpad[i] = 0; /* oneDNN's output size rounds down as ONNX's */
    dnnl_convolution_desc_t cd;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    bool ok = rpad[0] >= 0 && rpad[1] >= 0 &&
              dnnl_memory_desc_init_by_tag(&sd, 4, sdims, dt, dnnl_nhwc) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&wany, 4, wdims, dnnl_s8, dnnl_format_tag_any) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&wu, 4, wdims, dnnl_s8, dnnl_oihw) == dnnl_success &&
              dnnl_memory_desc_init_by_tag(&dd, 4, ddims, dnnl_s32, dnnl_nhwc) == dnnl_success &&
              dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &sd, &wany, NULL,
                                                 &dd, stride, lpad, rpad) == dnnl_success &&
              dnnl_primitive_attr_create(&attr) == dnnl_success &&
              dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success &&
              dnnl_primitive_desc_create(&pd, &cd, attr, g_qengine, NULL) == dnnl_success;
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (!ok) return false;
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    snprintf(d->impl, sizeof d->impl, "%s", impl ? impl : "?");
    /* exact kernels only: oneDNN's pre-VNNI int8 kernels (vpmaddubsw) halve
     * s8 x s8 weights or saturate int16 pair sums */
    ok = strstr(d->impl, "vnni") || strstr(d->impl, "amx");
    const dnnl_memory_desc_t *pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    d->spad_bytes = pmd ? (int64_t)dnnl_memory_desc_get_size(pmd) : 0;
    ok = ok && dnnl_primitive_create(&d->prim, pd) == dnnl_success && (d->src = qview(&sd)) && (d->dst = qview(&dd)) &&
         (!d->spad_bytes || (d->spad = qview(pmd))) && load_qweights(d, pd, &wu, w);
    dnnl_primitive_desc_destroy(pd);
    return ok;
}

static int64_t up64(int64_t b) { return (b + 63) / 64 * 64; }

fx_qdnnl *fx_qdnnl_new(const fx_qconv_geom *g, const int8_t *w, bool x_signed) {
    if (!g_qdnnl_allow || g->group != 1 || g->dh != 1 || g->dw != 1 || fx_qisa_active() != FX_QISA_AVX512VNNI ||
        !fx_dnnl_enabled())
        return NULL;
    pthread_once(&g_qengine_once, qengine_init);
    if (!g_qengine) return NULL;
    fx_qdnnl *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->c = g->c, d->h = g->h, d->w = g->w, d->m = g->m, d->oh = g->oh, d->ow = g->ow;
    dnnl_data_type_t dt = x_signed ? dnnl_s8 : dnnl_u8;
    int prev = omp_get_max_threads();
    if (prev != 1) omp_set_num_threads(1);
    bool ok =
        make_conv(d, g, w, dt) && dnnl_stream_create(&d->stream, g_qengine, dnnl_stream_default_flags) == dnnl_success;
    if (omp_get_max_threads() != prev) omp_set_num_threads(prev);
    if (!ok) {
        fx_qdnnl_free(d);
        return NULL;
    }
    d->src_off = up64(d->spad_bytes);
    d->dst_off = d->src_off + up64(d->h * d->w * d->c);
    d->bytes = d->dst_off + up64(d->oh * d->ow * d->m * 4);
    return d;
}

int64_t fx_qdnnl_scratch_bytes(const fx_qdnnl *d) { return d->bytes; }

const char *fx_qdnnl_impl(const fx_qdnnl *d) { return d->impl; }

/* y[p * c + ch] = x[ch * np + p]: np positions of c channels from planes
 * to channels-last, in 16 x 16 blocks of bytes (four rounds of unpacks),
 * the edges byte by byte. */
static void to_channels_last(const uint8_t *x, int64_t c, int64_t np, uint8_t *y) {
    int64_t c16 = 0, p16 = 0;
#if defined(__x86_64__) || defined(__SSE2__)
    c16 = c / 16 * 16, p16 = np / 16 * 16;
    for (int64_t c0 = 0; c0 < c16; c0 += 16)
        for (int64_t p0 = 0; p0 < p16; p0 += 16) {
            __m128i r[16], t[16];
            for (int i = 0; i < 16; i++)
                r[i] = _mm_loadu_si128((const __m128i *)(x + (c0 + i) * np + p0));
            for (int k = 0; k < 8; k++) { /* t[k]: channels 2k, 2k + 1 of positions 0..7, t[k + 8]: 8..15 */
                t[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
                t[k + 8] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
            }
            for (int h = 0; h < 16; h += 8) /* r[b + j]: channels 4j.. of positions b..b + 3 */
                for (int j = 0; j < 4; j++) {
                    r[h + j] = _mm_unpacklo_epi16(t[h + 2 * j], t[h + 2 * j + 1]);
                    r[h + j + 4] = _mm_unpackhi_epi16(t[h + 2 * j], t[h + 2 * j + 1]);
                }
            for (int b = 0; b < 16; b += 4) /* t[b + 2i + q]: channels 8i.. of positions b + 2q, b + 2q + 1 */
                for (int i = 0; i < 2; i++) {
                    t[b + 2 * i] = _mm_unpacklo_epi32(r[b + 2 * i], r[b + 2 * i + 1]);
                    t[b + 2 * i + 1] = _mm_unpackhi_epi32(r[b + 2 * i], r[b + 2 * i + 1]);
                }
            uint8_t *o = y + p0 * c + c0;
            for (int b = 0; b < 16; b += 4)
                for (int q = 0; q < 2; q++) {
                    _mm_storeu_si128((__m128i *)(o + (b + 2 * q) * c), _mm_unpacklo_epi64(t[b + q], t[b + 2 + q]));
                    _mm_storeu_si128((__m128i *)(o + (b + 2 * q + 1) * c), _mm_unpackhi_epi64(t[b + q], t[b + 2 + q]));
                }
        }
#endif
    for (int64_t p = 0; p < np; p++) /* the positions past the last block of 16, then the channels past it */
        for (int64_t ch = p < p16 ? c16 : 0; ch < c; ch++)
            y[p * c + ch] = x[ch * np + p];
}

const int32_t *fx_qdnnl_sums(const fx_qdnnl *d, const uint8_t *x, void *scratch) {
    char *sp = scratch;
    uint8_t *xp = (uint8_t *)(sp + d->src_off);
    int32_t *acc = (int32_t *)(sp + d->dst_off);
    int prev = omp_get_max_threads();
    if (prev != 1) omp_set_num_threads(1);
    dnnl_exec_arg_t a[4] = {
        {DNNL_ARG_SRC, d->src}, {DNNL_ARG_WEIGHTS, d->wts}, {DNNL_ARG_DST, d->dst}, {DNNL_ARG_SCRATCHPAD, d->spad}};
    to_channels_last(x, d->c, d->h * d->w, xp);
    bool ok = dnnl_memory_set_data_handle(d->src, xp) == dnnl_success &&
              dnnl_memory_set_data_handle(d->dst, acc) == dnnl_success &&
              (!d->spad || dnnl_memory_set_data_handle(d->spad, sp) == dnnl_success) &&
              dnnl_primitive_execute(d->prim, d->stream, d->spad ? 4 : 3, a) == dnnl_success &&
              dnnl_stream_wait(d->stream) == dnnl_success;
    if (omp_get_max_threads() != prev) omp_set_num_threads(prev);
    return ok ? acc : NULL;
}

#else /* no oneDNN: nnfx's own kernels run every int8 conv */

void fx_qdnnl_allow(bool on) { (void)on; }
fx_qdnnl *fx_qdnnl_new(const fx_qconv_geom *g, const int8_t *w, bool x_signed) {
    (void)g, (void)w, (void)x_signed;
    return NULL;
}
void fx_qdnnl_free(fx_qdnnl *d) { (void)d; }
int64_t fx_qdnnl_scratch_bytes(const fx_qdnnl *d) {
    (void)d;
    return 0;
}
const char *fx_qdnnl_impl(const fx_qdnnl *d) {
    (void)d;
    return "";
}
const int32_t *fx_qdnnl_sums(const fx_qdnnl *d, const uint8_t *x, void *scratch) {
    (void)d, (void)x, (void)scratch;
    return NULL;
}
#endif
