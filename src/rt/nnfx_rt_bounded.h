/* nnfx_rt_bounded.h — portable C99 kernels of the C that `nnfx codegen`
 * writes for nodes whose output size depends on the data (NonZero,
 * Compress, Unique, NonMaxSuppression): each writes its output compactly at the start of a buffer
 * sized for the most it can hold (the bound the generator computed), sets
 * the rest of that buffer to zero, and stores the output's actual extent
 * where the caller asks. Values are typed bytes (nnfx_rt_typed.h's type
 * codes); a nonzero test is `value != 0` on the value as a double (a NaN
 * counts as nonzero), as the interpreter's kern_non_zero and kern_compress
 * test it. */
#ifndef NNFX_RT_BOUNDED_H
#define NNFX_RT_BOUNDED_H

#include <string.h>

#include "nnfx_rt_typed.h"

/* @rt valid_walk */
/* Whether index idx (rank dims) lies inside `valid` in every dim (the part
 * of a bound a value whose size depends on the data actually has). */
static inline int nnfx_rt_inside(const long *idx, const long *valid, int rank) {
    int d, in = 1;
    for (d = 0; d < rank; d++)
        in &= idx[d] < valid[d];
    return in;
}

/* idx (rank dims `shape`) moved to the next index in row-major order. */
static inline void nnfx_rt_next_index(long *idx, const long *shape, int rank) {
    int d;
    for (d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) return;
        idx[d] = 0;
    }
}
/* @end */

/* @rt nonzero needs:tval,valid_walk */
/* NonZero of x (`rank` <= 8 dims `shape`, type code tx) over its part
 * `valid` (the dims x actually has when some depend on the data; else
 * `shape`): the coordinates of its nonzero values in row-major order, int64
 * [rank, numel(shape)] into y, row d holding the coordinates along dim d
 * from its start and zeros after them; *count receives their number. */
static inline void nnfx_rt_nonzero(const unsigned char *x, int tx, int rank, const long *shape, const long *valid,
                                   unsigned char *y, long long *count) {
    long n = 1, nv = 1, i, cnt = 0, idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int d;
    for (d = 0; d < rank; d++)
        n *= shape[d], nv *= valid[d];
    memset(y, 0, (size_t)(rank * n * 8));
    for (i = 0; i < n && nv > 0; i++, nnfx_rt_next_index(idx, shape, rank))
        if (nnfx_rt_inside(idx, valid, rank) && nnfx_rt_ld_f(x, i, tx) != 0) {
            for (d = 0; d < rank; d++) {
                const int64_t v = idx[d];
                memcpy(y + (d * n + cnt) * 8, &v, 8);
            }
            cnt++;
        }
    *count = cnt;
}
/* @end */

/* @rt fill_pad needs:valid_walk */
/* The values of x (`rank` <= 8 dims `bound`, es bytes each) past its
 * actual dims `valid` in some dim (the padding of a value whose size
 * depends on the data) set to the es bytes at v. */
static inline void nnfx_rt_fill_pad(unsigned char *x, long es, int rank, const long *bound, const long *valid,
                                    const void *v) {
    long n = 1, i, idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int d;
    for (d = 0; d < rank; d++)
        n *= bound[d];
    for (i = 0; i < n; i++, nnfx_rt_next_index(idx, bound, rank))
        if (!nnfx_rt_inside(idx, valid, rank)) memcpy(x + i * es, v, (size_t)es);
}
/* @end */

/* @rt compact needs:valid_walk */
/* y = the part `valid` of x (`rank` <= 8 dims `bound`, es-byte values) in
 * row-major order, then zeros up to the bound's size (a model output whose
 * size depends on the data). x and y do not overlap. */
static inline void nnfx_rt_compact(const unsigned char *x, unsigned char *y, long es, int rank, const long *bound,
                                   const long *valid) {
    long n = 1, i, k = 0, idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int d;
    for (d = 0; d < rank; d++)
        n *= bound[d];
    for (i = 0; i < n; i++, nnfx_rt_next_index(idx, bound, rank))
        if (nnfx_rt_inside(idx, valid, rank)) memcpy(y + (k++) * es, x + i * es, (size_t)es);
    memset(y + k * es, 0, (size_t)((n - k) * es));
}
/* @end */

/* @rt rescale */
/* y[0..n) times bound / actual: a mean over a bound's count made the mean
 * over the actual count (NaN when actual is 0, as a mean of nothing). */
static inline void nnfx_rt_rescale(float *y, long n, double bound, double actual) {
    long i;
    for (i = 0; i < n; i++)
        y[i] = (float)(y[i] * (bound / actual));
}
/* @end */

/* @rt compress needs:tval */
/* Compress: of x as [outer, A, row bytes], the slices along A whose entry
 * of the condition (clen <= A values of type code tc) is nonzero, written
 * compactly into y, which holds outer * clen rows (zeros past them);
 * *count receives how many slices of each outer position were kept. */
static inline void nnfx_rt_compress(const unsigned char *x, const unsigned char *cond, int tc, long clen,
                                    unsigned char *y, long outer, long A, long row, long long *count) {
    long o, i, kept = 0;
    unsigned char *dst = y;
    for (i = 0; i < clen; i++)
        kept += nnfx_rt_ld_f(cond, i, tc) != 0;
    for (o = 0; o < outer; o++)
        for (i = 0; i < clen; i++)
            if (nnfx_rt_ld_f(cond, i, tc) != 0) {
                memcpy(dst, x + (o * A + i) * row, (size_t)row);
                dst += row;
            }
    memset(dst, 0, (size_t)(outer * (clen - kept) * row));
    *count = kept;
}
/* @end */

/* @rt align8 */
#include <stdint.h>
/* p moved up to the next multiple of 8 bytes (the arena is only 4-byte
 * aligned; the working memory of the kernels below holds longs and
 * doubles). */
static inline void *nnfx_rt_align8(void *p) {
    unsigned char *b = (unsigned char *)p;
    return b + ((8 - (long)((uintptr_t)b & 7)) & 7);
}
/* @end */

/* @rt unique needs:tval,align8 */
/* Whether slices a and b (along A) of x [outer, A, inner] (type code tx)
 * hold equal values (compared as doubles: a NaN equals nothing). */
static inline int nnfx_rt_slices_equal(const unsigned char *x, int tx, long outer, long A, long inner, long a, long b) {
    long o, i;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++)
            if (!(nnfx_rt_ld_f(x, (o * A + a) * inner + i, tx) == nnfx_rt_ld_f(x, (o * A + b) * inner + i, tx)))
                return 0;
    return 1;
}

/* Whether slice a orders before slice b: the first unequal value (in
 * [outer, inner] order) is smaller. */
static inline int nnfx_rt_slice_before(const unsigned char *x, int tx, long outer, long A, long inner, long a, long b) {
    long o, i;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const double va = nnfx_rt_ld_f(x, (o * A + a) * inner + i, tx);
            const double vb = nnfx_rt_ld_f(x, (o * A + b) * inner + i, tx);
            if (va != vb) return va < vb;
        }
    return 0;
}

/* Unique of the A slices of x [outer, A, inner] (values of es bytes, type
 * code tx): the distinct slices in order of first occurrence, or in
 * ascending order when sorted (lexicographic, equal ones by first index).
 * y [outer, U, inner] compactly (zeros past it, up to A slices); first
 * [U] each one's first index, inverse [A] each slice's group, counts [U]
 * (int64 bytes; NULL: not wanted). work holds 4 * A longs past its first
 * 8-byte boundary (any alignment: the arena may be 4-byte aligned).
 * *unique receives U. y may be NULL too. */
static inline void nnfx_rt_unique(const unsigned char *x, int tx, long es, long outer, long A, long inner, int sorted,
                                  unsigned char *y, unsigned char *first, unsigned char *inverse, unsigned char *counts,
                                  void *work, long long *unique) {
    long *fst = (long *)nnfx_rt_align8(work), *grp = fst + A, *pos = fst + 2 * A, *rank = fst + 3 * A;
    long i, j, g, o, U = 0;
    for (i = 0; i < A; i++) {
        for (j = 0; j < U && !nnfx_rt_slices_equal(x, tx, outer, A, inner, fst[j], i); j++)
            ;
        if (j == U) fst[U++] = i;
        grp[i] = j;
    }
    for (g = 0; g < U; g++)
        pos[g] = g;
    if (sorted) /* stable insertion: equal slices cannot be two groups */
        for (g = 1; g < U; g++)
            for (j = g; j > 0 && nnfx_rt_slice_before(x, tx, outer, A, inner, fst[pos[j]], fst[pos[j - 1]]); j--) {
                const long t = pos[j];
                pos[j] = pos[j - 1];
                pos[j - 1] = t;
            }
    for (g = 0; g < U; g++)
        rank[pos[g]] = g;
    for (o = 0; y && o < outer; o++)
        for (g = 0; g < U; g++)
            memcpy(y + ((o * U + g) * inner) * es, x + ((o * A + fst[pos[g]]) * inner) * es, (size_t)(inner * es));
    if (y) memset(y + outer * U * inner * es, 0, (size_t)(outer * (A - U) * inner * es));
    for (g = 0; g < A; g++) {
        int64_t f = g < U ? fst[pos[g]] : 0, n = 0;
        if (g < U)
            for (i = 0; i < A; i++)
                n += grp[i] == pos[g];
        if (first) memcpy(first + g * 8, &f, 8);
        if (counts) memcpy(counts + g * 8, &n, 8);
        if (inverse) {
            const int64_t r = rank[grp[g]];
            memcpy(inverse + g * 8, &r, 8);
        }
    }
    *unique = U;
}
/* @end */

/* @rt nms libm needs:tval,align8 */
/* Box i of boxes (float32 [.., 4]) as y1, x1, y2, x2 with y1 <= y2 and
 * x1 <= x2 (center: the box is [x_center, y_center, width, height]). */
static inline void nnfx_rt_nms_box(const float *boxes, long i, int center, double *o) {
    const double v0 = boxes[4 * i], v1 = boxes[4 * i + 1], v2 = boxes[4 * i + 2], v3 = boxes[4 * i + 3];
    if (center) {
        o[0] = v1 - v3 / 2, o[1] = v0 - v2 / 2, o[2] = v1 + v3 / 2, o[3] = v0 + v2 / 2;
    } else {
        o[0] = fmin(v0, v2), o[1] = fmin(v1, v3), o[2] = fmax(v0, v2), o[3] = fmax(v1, v3);
    }
}

/* Intersection over union of boxes a and b (0 when they do not overlap). */
static inline double nnfx_rt_nms_iou(const double *a, const double *b) {
    const double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]), iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    double inter, ua;
    if (ih <= 0 || iw <= 0) return 0;
    inter = ih * iw, ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    return ua > 0 ? inter / ua : 0;
}

/* Sorts the m box indices ord by descending score sc, equal scores in
 * their order (a stable bottom-up merge sort through tmp, m longs: the
 * interpreter's ir_sort_idx). */
static inline void nnfx_rt_nms_sort(const float *sc, long *ord, long *tmp, long m) {
    long w, lo, t;
    for (w = 1; w < m; w *= 2) {
        for (lo = 0; lo < m; lo += 2 * w) {
            const long mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
            long i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = sc[ord[j]] > sc[ord[i]] ? ord[j++] : ord[i++];
            while (i < mid)
                tmp[k++] = ord[i++];
            while (j < hi)
                tmp[k++] = ord[j++];
        }
        for (t = 0; t < m; t++)
            ord[t] = tmp[t];
    }
}

/* NonMaxSuppression of boxes [B, N, 4] and scores [B, C, N] (float32; N
 * the actual count, ns >= N the stride of that dim: its bound when the
 * count depends on the data): per batch and class, the boxes by descending score (equal scores in box
 * order, nnfx_rt_nms_sort) above the score threshold (when has_st), each kept unless its
 * IoU with one kept before exceeds iou_t, at most mo (clamped to N) per
 * class. y: int64 [selected, 3] (batch, class, box) compactly, zeros past
 * it up to `bound` rows. work holds 3 * N longs then 4 * N doubles past
 * its first 8-byte boundary. *selected receives the count. */
static inline void nnfx_rt_nms(const float *boxes, const float *scores, long B, long C, long N, long ns, long long mo,
                               double iou_t, int has_st, double st, int center, unsigned char *y, long bound,
                               void *work, long long *selected) {
    long *ord = (long *)nnfx_rt_align8(work), *kept = ord + N, *tmp = kept + N;
    double *bx = (double *)(void *)(tmp + N);
    long b, c, i, m, nk, k = 0;
    if (mo > N) mo = N;
    for (b = 0; b < B && mo > 0; b++) {
        for (i = 0; i < N; i++)
            nnfx_rt_nms_box(boxes + b * ns * 4, i, center, bx + 4 * i);
        for (c = 0; c < C; c++) {
            const float *sc = scores + (b * C + c) * ns;
            for (i = 0, m = 0; i < N; i++)
                if (!has_st || sc[i] > st) ord[m++] = i;
            nnfx_rt_nms_sort(sc, ord, tmp, m);
            for (i = 0, nk = 0; i < m && nk < mo; i++) {
                int keep = 1;
                long q;
                for (q = 0; q < nk && keep; q++)
                    keep = nnfx_rt_nms_iou(bx + 4 * ord[i], bx + 4 * kept[q]) <= iou_t;
                if (!keep) continue;
                kept[nk++] = ord[i];
                {
                    const int64_t row[3] = {b, c, ord[i]};
                    memcpy(y + k * 24, row, 24);
                }
                k++;
            }
        }
    }
    memset(y + k * 24, 0, (size_t)((bound - k) * 24));
    *selected = k;
}
/* @end */

/* @rt read_int */
/* Element k of an integer value of `size` bytes per element (8: int64, 4:
 * int32) at p, as a size a loop body read from data. */
static inline long long nnfx_rt_read_int(const unsigned char *p, long k, int size) {
    if (size == 4) {
        int32_t v;
        memcpy(&v, p + 4 * k, 4);
        return v;
    } else {
        int64_t v;
        memcpy(&v, p + 8 * k, 8);
        return v;
    }
}
/* @end */

/* @rt extent_ops */
/* Saturating + - * of sizes known at run time (a constant such as
 * INT64_MAX stands for "no limit"; the result never overflows). */
static inline long long nnfx_rt_xadd(long long a, long long b) {
    if (b > 0 && a > 9223372036854775807LL - b) return 9223372036854775807LL;
    if (b < 0 && a < (-9223372036854775807LL - 1) - b) return -9223372036854775807LL - 1;
    return a + b;
}
static inline long long nnfx_rt_xsub(long long a, long long b) {
    if (b == -9223372036854775807LL - 1) return a >= 0 ? 9223372036854775807LL : a + 9223372036854775807LL + 1;
    return nnfx_rt_xadd(a, -b);
}
static inline long long nnfx_rt_xmul(long long a, long long b) {
    if (a == 0 || b == 0) return 0;
    if ((a > 0) == (b > 0))
        return (a > 0 ? a > 9223372036854775807LL / b : a < 9223372036854775807LL / b) ? 9223372036854775807LL : a * b;
    return (a > 0 ? b < (-9223372036854775807LL - 1) / a : a < (-9223372036854775807LL - 1) / b)
               ? -9223372036854775807LL - 1
               : a * b;
}
/* @end */

#endif
