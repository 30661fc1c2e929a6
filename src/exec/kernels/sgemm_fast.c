/* sgemm_fast.c — packed-operand GEMM blocks (see sgemm_fast.h): packing of
 * A and B, an FX_MR x FX_NR register-tile micro-kernel in AVX2+FMA and in
 * portable C, an FX_MR x 2 FX_NR one in AVX-512 (two column panels per
 * call, where the CPU has it), and the loop over one A panel's tiles. Edge tiles (fewer rows
 * or columns) run the same kernel on a small buffer. */
#include "exec/kernels/sgemm_fast.h"

#include <pthread.h>
#include <string.h>

#include "core/core_int.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns") /* short copies stay inline */
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#define FX_HAVE_X86 1
#include <immintrin.h>
#else
#define FX_HAVE_X86 0
#endif

int64_t fx_pack_a_floats(int64_t m, int64_t k) { return (m + FX_MR - 1) / FX_MR * FX_MR * k; }

void fx_pack_a(const float *a, int64_t lda, int64_t m, int64_t k, float *out) {
    for (int64_t p = 0; p < (m + FX_MR - 1) / FX_MR; p++) {
        float *dst = out + p * k * FX_MR;
        for (int64_t r = 0; r < FX_MR; r++) {
            int64_t row = p * FX_MR + r;
            if (row < m)
                for (int64_t kk = 0; kk < k; kk++)
                    dst[kk * FX_MR + r] = a[row * lda + kk];
            else
                for (int64_t kk = 0; kk < k; kk++)
                    dst[kk * FX_MR + r] = 0.0f;
        }
    }
}

static inline CORE_ALWAYS_INLINE void fx_pack_b_row_body(const float *restrict src, int64_t nc, int64_t kc, int64_t kk,
                                                         float *restrict dst) {
    int64_t j = 0;
    float *restrict d = dst + kk * FX_NR;
    for (; j + FX_NR <= nc; j += FX_NR, d += kc * FX_NR)
        for (int i = 0; i < FX_NR; i++)
            d[i] = src[j + i];
    if (j < nc) {
        int64_t r = nc - j;
        for (int64_t i = 0; i < r; i++)
            d[i] = src[j + i];
        for (int64_t i = r; i < FX_NR; i++)
            d[i] = 0.0f;
    }
}

CORE_ISA_VARIANTS(fx_pack_b_row, (const float *restrict src, int64_t nc, int64_t kc, int64_t kk, float *restrict dst),
                  (src, nc, kc, kk, dst))

void fx_pack_b_row(const float *restrict src, int64_t nc, int64_t kc, int64_t kk, float *restrict dst) {
    CORE_ISA_PICK(fx_pack_b_row)(src, nc, kc, kk, dst);
}

/* Row k of B for the micro-kernels: b + k * ldb (packed or in-place B),
 * or b + koff[k] (a gathered B: each row a run of some plane). */
/* The AVX-512 tile prefetches its A panel this many floats ahead (1.5 KB,
 * ~64 k steps: the next panel of a K block while this one runs). */
#define FX_PF_FLOATS 384
#define B_ROW(b, k)  ((koff) ? (b) + (koff)[k] : (b) + (k)*ldb)

/* One full tile: c[FX_MR, FX_NR] (ldc) = (acc ? c : 0) + a panel x b, row k
 * of b at B_ROW(b, k). */
typedef void (*fx_ukernel)(int64_t kc, const float *a, const float *b, int64_t ldb, const int64_t *koff, float *c,
                           int64_t ldc, bool acc);

static void ukernel_c(int64_t kc, const float *restrict a, const float *restrict b, int64_t ldb,
                      const int64_t *restrict koff, float *restrict c, int64_t ldc, bool acc) {
    float t[FX_MR][FX_NR];
    for (int r = 0; r < FX_MR; r++)
        for (int j = 0; j < FX_NR; j++)
            t[r][j] = acc ? c[r * ldc + j] : 0.0f;
    for (int64_t k = 0; k < kc; k++, a += FX_MR) {
        const float *bk = B_ROW(b, k);
        for (int r = 0; r < FX_MR; r++)
            for (int j = 0; j < FX_NR; j++)
                t[r][j] += a[r] * bk[j];
    }
    for (int r = 0; r < FX_MR; r++)
        for (int j = 0; j < FX_NR; j++)
            c[r * ldc + j] = t[r][j];
}

/* Each x86 kernel below is a body inlined twice: with koff NULL (strided
 * B, the row pointer strength-reduced) and with a row-offset table. */
#define FX_UKERNEL_ENTRY(name, isa)                                                                                    \
    __attribute__((target(isa))) static void name(int64_t kc, const float *restrict a, const float *restrict b,        \
                                                  int64_t ldb, const int64_t *restrict koff, float *restrict c,        \
                                                  int64_t ldc, bool acc) {                                             \
        if (koff)                                                                                                      \
            name##_body(kc, a, b, ldb, koff, c, ldc, acc);                                                             \
        else                                                                                                           \
            name##_body(kc, a, b, ldb, NULL, c, ldc, acc);                                                             \
    }

#if FX_HAVE_X86
/* 6 x 16 tile in 12 ymm accumulators: per k, two loads of B and six
 * broadcasts of A feed twelve FMAs. */
__attribute__((target("avx2,fma"))) static inline CORE_ALWAYS_INLINE void
ukernel_avx2_body(int64_t kc, const float *restrict a, const float *restrict b, int64_t ldb,
                  const int64_t *restrict koff, float *restrict c, int64_t ldc, bool acc) {
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (acc) {
        c00 = _mm256_loadu_ps(c + 0 * ldc), c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
        c10 = _mm256_loadu_ps(c + 1 * ldc), c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
        c20 = _mm256_loadu_ps(c + 2 * ldc), c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
        c30 = _mm256_loadu_ps(c + 3 * ldc), c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
        c40 = _mm256_loadu_ps(c + 4 * ldc), c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
        c50 = _mm256_loadu_ps(c + 5 * ldc), c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
    }
#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; k++) {
        const float *bk = B_ROW(b, k);
        __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8), av;
        av = _mm256_broadcast_ss(a + 0);
        c00 = _mm256_fmadd_ps(av, b0, c00), c01 = _mm256_fmadd_ps(av, b1, c01);
        av = _mm256_broadcast_ss(a + 1);
        c10 = _mm256_fmadd_ps(av, b0, c10), c11 = _mm256_fmadd_ps(av, b1, c11);
        av = _mm256_broadcast_ss(a + 2);
        c20 = _mm256_fmadd_ps(av, b0, c20), c21 = _mm256_fmadd_ps(av, b1, c21);
        av = _mm256_broadcast_ss(a + 3);
        c30 = _mm256_fmadd_ps(av, b0, c30), c31 = _mm256_fmadd_ps(av, b1, c31);
        av = _mm256_broadcast_ss(a + 4);
        c40 = _mm256_fmadd_ps(av, b0, c40), c41 = _mm256_fmadd_ps(av, b1, c41);
        av = _mm256_broadcast_ss(a + 5);
        c50 = _mm256_fmadd_ps(av, b0, c50), c51 = _mm256_fmadd_ps(av, b1, c51);
        a += FX_MR;
    }
    _mm256_storeu_ps(c + 0 * ldc, c00), _mm256_storeu_ps(c + 0 * ldc + 8, c01);
    _mm256_storeu_ps(c + 1 * ldc, c10), _mm256_storeu_ps(c + 1 * ldc + 8, c11);
    _mm256_storeu_ps(c + 2 * ldc, c20), _mm256_storeu_ps(c + 2 * ldc + 8, c21);
    _mm256_storeu_ps(c + 3 * ldc, c30), _mm256_storeu_ps(c + 3 * ldc + 8, c31);
    _mm256_storeu_ps(c + 4 * ldc, c40), _mm256_storeu_ps(c + 4 * ldc + 8, c41);
    _mm256_storeu_ps(c + 5 * ldc, c50), _mm256_storeu_ps(c + 5 * ldc + 8, c51);
}
FX_UKERNEL_ENTRY(ukernel_avx2, "avx2,fma")
#endif

/* Two full tiles side by side (columns 0-15 from b0, 16-31 from b1, row k
 * of each at B_ROW): c[FX_MR, 2 * FX_NR] (ldc). */
typedef void (*fx_ukernel2)(int64_t kc, const float *a, const float *b0, const float *b1, int64_t ldb,
                            const int64_t *koff, float *c, int64_t ldc, bool acc);

#if FX_HAVE_X86
/* AVX-512: 6 x 32 in 12 zmm accumulators (a column panel of 16 is one
 * register): per k, two loads of B and six broadcasts of A feed twelve
 * 16-wide FMAs. The same FMA per product in the same k order as
 * ukernel_avx2, so both give the same bits. */
__attribute__((target("avx512f,avx2,fma"))) static inline CORE_ALWAYS_INLINE void
ukernel2_avx512_body(int64_t kc, const float *restrict a, const float *restrict b0, const float *restrict b1,
                     int64_t ldb, const int64_t *restrict koff, float *restrict c, int64_t ldc, bool acc) {
    __m512 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (acc) {
        c00 = _mm512_loadu_ps(c + 0 * ldc), c01 = _mm512_loadu_ps(c + 0 * ldc + 16);
        c10 = _mm512_loadu_ps(c + 1 * ldc), c11 = _mm512_loadu_ps(c + 1 * ldc + 16);
        c20 = _mm512_loadu_ps(c + 2 * ldc), c21 = _mm512_loadu_ps(c + 2 * ldc + 16);
        c30 = _mm512_loadu_ps(c + 3 * ldc), c31 = _mm512_loadu_ps(c + 3 * ldc + 16);
        c40 = _mm512_loadu_ps(c + 4 * ldc), c41 = _mm512_loadu_ps(c + 4 * ldc + 16);
        c50 = _mm512_loadu_ps(c + 5 * ldc), c51 = _mm512_loadu_ps(c + 5 * ldc + 16);
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm512_setzero_ps();
    }
#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; k++) {
        __m512 x0 = _mm512_loadu_ps(B_ROW(b0, k)), x1 = _mm512_loadu_ps(B_ROW(b1, k)), av;
        _mm_prefetch((const char *)(a + FX_PF_FLOATS), _MM_HINT_T0);
        av = _mm512_set1_ps(a[0]);
        c00 = _mm512_fmadd_ps(av, x0, c00), c01 = _mm512_fmadd_ps(av, x1, c01);
        av = _mm512_set1_ps(a[1]);
        c10 = _mm512_fmadd_ps(av, x0, c10), c11 = _mm512_fmadd_ps(av, x1, c11);
        av = _mm512_set1_ps(a[2]);
        c20 = _mm512_fmadd_ps(av, x0, c20), c21 = _mm512_fmadd_ps(av, x1, c21);
        av = _mm512_set1_ps(a[3]);
        c30 = _mm512_fmadd_ps(av, x0, c30), c31 = _mm512_fmadd_ps(av, x1, c31);
        av = _mm512_set1_ps(a[4]);
        c40 = _mm512_fmadd_ps(av, x0, c40), c41 = _mm512_fmadd_ps(av, x1, c41);
        av = _mm512_set1_ps(a[5]);
        c50 = _mm512_fmadd_ps(av, x0, c50), c51 = _mm512_fmadd_ps(av, x1, c51);
        a += FX_MR;
    }
    _mm512_storeu_ps(c + 0 * ldc, c00), _mm512_storeu_ps(c + 0 * ldc + 16, c01);
    _mm512_storeu_ps(c + 1 * ldc, c10), _mm512_storeu_ps(c + 1 * ldc + 16, c11);
    _mm512_storeu_ps(c + 2 * ldc, c20), _mm512_storeu_ps(c + 2 * ldc + 16, c21);
    _mm512_storeu_ps(c + 3 * ldc, c30), _mm512_storeu_ps(c + 3 * ldc + 16, c31);
    _mm512_storeu_ps(c + 4 * ldc, c40), _mm512_storeu_ps(c + 4 * ldc + 16, c41);
    _mm512_storeu_ps(c + 5 * ldc, c50), _mm512_storeu_ps(c + 5 * ldc + 16, c51);
}

__attribute__((target("avx512f,avx2,fma"))) static void
ukernel2_avx512(int64_t kc, const float *restrict a, const float *restrict b0, const float *restrict b1, int64_t ldb,
                const int64_t *restrict koff, float *restrict c, int64_t ldc, bool acc) {
    if (koff)
        ukernel2_avx512_body(kc, a, b0, b1, ldb, koff, c, ldc, acc);
    else
        ukernel2_avx512_body(kc, a, b0, b1, ldb, NULL, c, ldc, acc);
}

/* AVX-512, one column panel: 6 x 16 in 6 zmm accumulators (the edge tiles
 * of ukernel2_avx512's callers); same FMAs in the same order. */
__attribute__((target("avx512f,avx2,fma"))) static inline CORE_ALWAYS_INLINE void
ukernel_avx512_body(int64_t kc, const float *restrict a, const float *restrict b, int64_t ldb,
                    const int64_t *restrict koff, float *restrict c, int64_t ldc, bool acc) {
    __m512 t[FX_MR];
    for (int r = 0; r < FX_MR; r++)
        t[r] = acc ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; k++, a += FX_MR) {
        __m512 x = _mm512_loadu_ps(B_ROW(b, k));
        for (int r = 0; r < FX_MR; r++)
            t[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), x, t[r]);
    }
    for (int r = 0; r < FX_MR; r++)
        _mm512_storeu_ps(c + r * ldc, t[r]);
}
FX_UKERNEL_ENTRY(ukernel_avx512, "avx512f,avx2,fma")
#endif

static fx_ukernel g_ukernel = ukernel_c;
static fx_ukernel2 g_ukernel2 = NULL; /* NULL: every tile takes g_ukernel */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void pick_kernel(void) {
#if FX_HAVE_X86
    if (core_cpu_avx2_fma()) g_ukernel = ukernel_avx2;
    if (core_cpu_avx2_fma() && core_cpu_avx512f()) g_ukernel = ukernel_avx512, g_ukernel2 = ukernel2_avx512;
#endif
}

const char *fx_sgemm_kernel_name(void) {
    pthread_once(&g_once, pick_kernel);
    return g_ukernel2 ? "avx512 6x32 and 6x16" : g_ukernel == ukernel_c ? "portable 6x16" : "avx2+fma 6x16";
}

/* rows x cols floats from src (leading dimension lds) to dst (ldd). */
static void copy_block(float *dst, int64_t ldd, const float *src, int64_t lds, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; r++)
        memcpy(dst + r * ldd, src + r * lds, (size_t)cols * sizeof(float));
}

/* g_ukernel on the valid rows x cols of one tile; a partial tile runs
 * through a buffer (the packed A's rows past `rows` are zero). */
static void one_tile(int64_t kc, int64_t rows, int64_t cols, const float *a, const float *b, int64_t ldb,
                     const int64_t *koff, float *c, int64_t ldc, bool accumulate) {
    if (rows == FX_MR && cols == FX_NR) {
        g_ukernel(kc, a, b, ldb, koff, c, ldc, accumulate);
        return;
    }
    float t[FX_MR * FX_NR] = {0};
    if (accumulate) copy_block(t, FX_NR, c, ldc, rows, cols);
    g_ukernel(kc, a, b, ldb, koff, t, FX_NR, accumulate);
    copy_block(c, ldc, t, FX_NR, rows, cols);
}

/* g_ukernel2 on two column panels (the second may be a zero-padded partial
 * one: cols valid columns of the pair) of rows <= FX_MR valid rows, the
 * same way. */
static void pair_tile(int64_t kc, int64_t rows, int64_t cols, const float *a, const float *b0, const float *b1,
                      int64_t ldb, const int64_t *koff, float *c, int64_t ldc, bool accumulate) {
    if (rows == FX_MR && cols == 2 * FX_NR) {
        g_ukernel2(kc, a, b0, b1, ldb, koff, c, ldc, accumulate);
        return;
    }
    float t[FX_MR * 2 * FX_NR] = {0};
    if (accumulate) copy_block(t, 2 * FX_NR, c, ldc, rows, cols);
    g_ukernel2(kc, a, b0, b1, ldb, koff, t, 2 * FX_NR, accumulate);
    copy_block(c, ldc, t, 2 * FX_NR, rows, cols);
}

/* Rows per chunk of the column-outer loops: the chunk's A panels (FX_MC x
 * kc floats, 96 KB at kc 256) stay in L2 while the columns pass. */
#define FX_MC (16 * FX_MR)

/* One column step (a tile pair when b1 is given, else one tile; cols
 * valid columns) down every A panel of mrows rows: panel p at a + p * kc *
 * FX_MR, its C rows from c + p * FX_MR * ldc. The step's B columns stay in
 * L1 while the panels stream past them. */
static void column_step(int64_t kc, int64_t mrows, int64_t cols, const float *a, const float *b0, const float *b1,
                        int64_t ldb, const int64_t *koff, float *c, int64_t ldc, bool accumulate) {
    for (int64_t r0 = 0; r0 < mrows; r0 += FX_MR, a += kc * FX_MR, c += FX_MR * ldc) {
        int64_t rows = mrows - r0 < FX_MR ? mrows - r0 : FX_MR;
        if (b1)
            pair_tile(kc, rows, cols, a, b0, b1, ldb, koff, c, ldc, accumulate);
        else
            one_tile(kc, rows, cols, a, b0, ldb, koff, c, ldc, accumulate);
    }
}

/* One chunk of rows (<= FX_MC) against nc columns of B held as FX_NR-column
 * panels, panel p at b + p * pstride with its row k at B_ROW (ldb, koff):
 * tile pairs, the last one possibly partial (more than one panel left: a
 * partial last panel is zero-padded or readable, and a pair tile costs
 * less than two single ones), then single tiles. */
static void chunk(int64_t kc, int64_t nc, int64_t rows, const float *a, const float *b, int64_t pstride, int64_t ldb,
                  const int64_t *koff, float *c, int64_t ldc, bool accumulate) {
    pthread_once(&g_once, pick_kernel);
    int64_t j = 0;
    if (g_ukernel2)
        for (; j + FX_NR < nc; j += 2 * FX_NR) {
            const float *b0 = b + j / FX_NR * pstride;
            column_step(kc, rows, nc - j < 2 * FX_NR ? nc - j : 2 * FX_NR, a, b0, b0 + pstride, ldb, koff, c + j, ldc,
                        accumulate);
        }
    for (; j < nc; j += FX_NR)
        column_step(kc, rows, nc - j < FX_NR ? nc - j : FX_NR, a, b + j / FX_NR * pstride, NULL, ldb, koff, c + j, ldc,
                    accumulate);
}

/* Rows in the chunk starting at row r0 of mrows. */
static int64_t chunk_rows(int64_t mrows, int64_t r0) { return mrows - r0 < FX_MC ? mrows - r0 : FX_MC; }

void fx_sgemm_panel(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, float *c, int64_t ldc,
                    bool accumulate) {
    for (int64_t r0 = 0; r0 < mrows; r0 += FX_MC)
        chunk(kc, nc, chunk_rows(mrows, r0), a + r0 * kc, b, kc * FX_NR, FX_NR, NULL, c + r0 * ldc, ldc, accumulate);
}

void fx_sgemm_panel_rows(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, int64_t ldb,
                         const float *tail, float *c, int64_t ldc, bool accumulate) {
    int64_t full = nc / FX_NR * FX_NR;
    for (int64_t r0 = 0; r0 < mrows; r0 += FX_MC) { /* in place, then the packed tail panel */
        chunk(kc, full, chunk_rows(mrows, r0), a + r0 * kc, b, FX_NR, ldb, NULL, c + r0 * ldc, ldc, accumulate);
        if (full < nc)
            chunk(kc, nc - full, chunk_rows(mrows, r0), a + r0 * kc, tail, kc * FX_NR, FX_NR, NULL, c + r0 * ldc + full,
                  ldc, accumulate);
    }
}

void fx_sgemm_panel_gather(int64_t kc, int64_t nc, int64_t mrows, const float *a, const float *b, const int64_t *koff,
                           float *c, int64_t ldc, bool accumulate) {
    for (int64_t r0 = 0; r0 < mrows; r0 += FX_MC)
        chunk(kc, nc, chunk_rows(mrows, r0), a + r0 * kc, b, FX_NR, 0, koff, c + r0 * ldc, ldc, accumulate);
}
