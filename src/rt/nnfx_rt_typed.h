/* nnfx_rt_typed.h — portable C99 kernels of the C that `nnfx codegen`
 * writes over values that are not all float32: integer and bool
 * arithmetic, logic and comparisons with broadcasting, Where, Cast, IsNaN /
 * IsInf / Not, Trilu, and the float ops that read integer indices
 * (GatherElements, Gather and Scatter with computed indices, OneHot, the
 * losses). Values are bytes (any alignment) with a type code:
 *     0 float32, 1 int64, 2 int32, 3 int8, 4 uint8, 5 bool (one byte, 0 / 1),
 *     6 float64, 7 float16 (IEEE half bits), 8 int16, 9 uint16, 10 uint32,
 *     11 uint64 (as an integer: its bits in a long long; as a double: its
 *     unsigned value)
 * Integer results go through nnfx_rt_scalar.h's integer ops (the
 * interpreter's too) and are stored modulo the output type; conversions of
 * doubles to integers truncate and saturate (nnfx_rt_sat, the interpreter's
 * kern_set). Geometry is described beside each kernel; shapes are
 * row-major. */
#ifndef NNFX_RT_TYPED_H
#define NNFX_RT_TYPED_H

#include <math.h>
#include <string.h>

#include "nnfx_rt_float.h"
#include "nnfx_rt_scalar.h"

/* @rt tval needs:sat,half */
#include <stdint.h>
/* Bytes of one value of type code t. */
static inline long nnfx_rt_tsize(int t) {
    return (t == 1 || t == 6 || t == 11) ? 8 : (t == 0 || t == 2 || t == 10) ? 4 : (t == 7 || t == 8 || t == 9) ? 2 : 1;
}
/* Whether type code t is a floating-point type (float32, float64, float16). */
static inline int nnfx_rt_tfloat(int t) { return t == 0 || t == 6 || t == 7; }

/* Element i of typed bytes p as an integer (float32: truncated and
 * saturated). */
static inline long long nnfx_rt_ld_i(const unsigned char *p, long i, int t) {
    switch (t) {
    case 0: {
        float v;
        memcpy(&v, p + i * 4, 4);
        return (long long)nnfx_rt_sat(v, -9223372036854775808.0, 9223372036854774784.0);
    }
    case 1: {
        int64_t v;
        memcpy(&v, p + i * 8, 8);
        return v;
    }
    case 2: {
        int32_t v;
        memcpy(&v, p + i * 4, 4);
        return v;
    }
    case 3: {
        int8_t v;
        memcpy(&v, p + i, 1);
        return v;
    }
    case 6: {
        double v;
        memcpy(&v, p + i * 8, 8);
        return (long long)nnfx_rt_sat(v, -9223372036854775808.0, 9223372036854774784.0);
    }
    case 7: {
        uint16_t h;
        memcpy(&h, p + i * 2, 2);
        return (long long)nnfx_rt_sat(nnfx_rt_half_to_float(h), -9223372036854775808.0, 9223372036854774784.0);
    }
    case 8: {
        int16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    case 9: {
        uint16_t v;
        memcpy(&v, p + i * 2, 2);
        return v;
    }
    case 10: {
        uint32_t v;
        memcpy(&v, p + i * 4, 4);
        return v;
    }
    case 11: {
        uint64_t v;
        memcpy(&v, p + i * 8, 8);
        return (long long)v;
    }
    default: return p[i];
    }
}

/* Element i of typed bytes p as a double. */
static inline double nnfx_rt_ld_f(const unsigned char *p, long i, int t) {
    if (t == 0) {
        float v;
        memcpy(&v, p + i * 4, 4);
        return v;
    }
    if (t == 6) {
        double v;
        memcpy(&v, p + i * 8, 8);
        return v;
    }
    if (t == 7) {
        uint16_t h;
        memcpy(&h, p + i * 2, 2);
        return nnfx_rt_half_to_float(h);
    }
    if (t == 11) {
        uint64_t v;
        memcpy(&v, p + i * 8, 8);
        return (double)v;
    }
    return (double)nnfx_rt_ld_i(p, i, t);
}

/* Stores integer v as element i: modulo the width of an integer type, 0 / 1
 * for bool, converted for float32. */
static inline void nnfx_rt_st_i(unsigned char *p, long i, int t, long long v) {
    switch (t) {
    case 0: {
        float f = (float)v;
        memcpy(p + i * 4, &f, 4);
        break;
    }
    case 1:
    case 11: {
        int64_t w = v;
        memcpy(p + i * 8, &w, 8);
        break;
    }
    case 2:
    case 10: {
        uint32_t u = (uint32_t)(unsigned long long)v;
        memcpy(p + i * 4, &u, 4);
        break;
    }
    case 8:
    case 9: {
        uint16_t u = (uint16_t)(unsigned long long)v;
        memcpy(p + i * 2, &u, 2);
        break;
    }
    case 5: p[i] = v != 0; break;
    case 6: {
        double d = (double)v;
        memcpy(p + i * 8, &d, 8);
        break;
    }
    case 7: {
        uint16_t h = nnfx_rt_double_to_half((double)v);
        memcpy(p + i * 2, &h, 2);
        break;
    }
    default: p[i] = (unsigned char)(unsigned long long)v; break;
    }
}

/* Stores double v as element i: float32 rounded, bool v != 0 (NaN too),
 * integers truncated toward zero and saturated (NaN gives 0). */
static inline void nnfx_rt_st_f(unsigned char *p, long i, int t, double v) {
    switch (t) {
    case 0: {
        float f = (float)v;
        memcpy(p + i * 4, &f, 4);
        break;
    }
    case 1: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, -9223372036854775808.0, 9223372036854774784.0)); break;
    case 2: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, -2147483648.0, 2147483647.0)); break;
    case 3: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, -128.0, 127.0)); break;
    case 4: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, 0.0, 255.0)); break;
    case 8: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, -32768.0, 32767.0)); break;
    case 9: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, 0.0, 65535.0)); break;
    case 10: nnfx_rt_st_i(p, i, t, (long long)nnfx_rt_sat(v, 0.0, 4294967295.0)); break;
    case 11: {
        uint64_t u = (uint64_t)nnfx_rt_sat(v, 0.0, 18446744073709549568.0);
        memcpy(p + i * 8, &u, 8);
        break;
    }
    case 6: memcpy(p + i * 8, &v, 8); break;
    case 7: {
        uint16_t h = nnfx_rt_double_to_half(v);
        memcpy(p + i * 2, &h, 2);
        break;
    }
    default: p[i] = v != 0; break;
    }
}
/* @end */

/* @rt iunary needs:tval */
/* y = f(x) over n integers of type code t (Neg, Abs, Relu, Sign:
 * nnfx_rt_ineg, nnfx_rt_iabs, nnfx_rt_irelu, nnfx_rt_isign), stored modulo
 * the type's width. */
static inline void nnfx_rt_iunary(const unsigned char *x, unsigned char *y, int t, long n, long long (*f)(long long)) {
    long i;
    for (i = 0; i < n; i++)
        nnfx_rt_st_i(y, i, t, f(nnfx_rt_ld_i(x, i, t)));
}
/* @end */

/* @rt tbcast_next */
/* Steps the output index idx[0 .. rank) of a broadcast walk over k <= 3
 * operands (st[j]: operand j's element strides per output dim, 0 where it
 * broadcasts), their offsets off[j] following; 0 when the walk is done. */
static inline int nnfx_rt_tbcast_next(int rank, const long *shape, int k, const long *const *st, long *idx, long *off) {
    int d = rank - 1, j;
    while (d >= 0) {
        idx[d]++;
        for (j = 0; j < k; j++)
            off[j] += st[j][d];
        if (idx[d] < shape[d]) return 1;
        for (j = 0; j < k; j++)
            off[j] -= st[j][d] * shape[d];
        idx[d] = 0;
        d--;
    }
    return 0;
}
/* @end */

/* @rt ibinary needs:tval,tbcast_next */
/* y = f(a, b) over integers with broadcasting (the output has `rank` <= 8
 * dims `shape`; sa / sb each operand's element strides per output dim): a
 * of type ta, b of tb, y of ty (stored modulo its width). */
static inline void nnfx_rt_ibinary(const unsigned char *a, int ta, const unsigned char *b, int tb, unsigned char *y,
                                   int ty, int rank, const long *shape, const long *sa, const long *sb,
                                   long long (*f)(long long, long long)) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, off[2] = {0, 0}, i = 0;
    const long *st[2];
    st[0] = sa, st[1] = sb;
    do
        nnfx_rt_st_i(y, i++, ty, f(nnfx_rt_ld_i(a, off[0], ta), nnfx_rt_ld_i(b, off[1], tb)));
    while (nnfx_rt_tbcast_next(rank, shape, 2, st, idx, off));
}
/* @end */

/* @rt fbinary needs:tval,tbcast_next */
/* y = f(a, b) in double with broadcasting (as nnfx_rt_ibinary), a, b and y
 * of type t (float64's and float16's Min, Max, Mod). */
static inline void nnfx_rt_fbinary(const unsigned char *a, const unsigned char *b, unsigned char *y, int t, int rank,
                                   const long *shape, const long *sa, const long *sb, double (*f)(double, double)) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, off[2] = {0, 0}, i = 0;
    const long *st[2];
    st[0] = sa, st[1] = sb;
    do
        nnfx_rt_st_f(y, i++, t, f(nnfx_rt_ld_f(a, off[0], t), nnfx_rt_ld_f(b, off[1], t)));
    while (nnfx_rt_tbcast_next(rank, shape, 2, st, idx, off));
}
/* @end */

/* @rt funary needs:tval */
/* y = f(x) in double over n floats of type code t (float64, float16: one
 * rounding into the type). */
static inline void nnfx_rt_funary(const unsigned char *x, unsigned char *y, int t, long n, double (*f)(double)) {
    long i;
    for (i = 0; i < n; i++)
        nnfx_rt_st_f(y, i, t, f(nnfx_rt_ld_f(x, i, t)));
}
/* @end */

/* @rt cumsum needs:tval */
/* CumSum of x (type tx, `rank` dims `shape`) along axis (negative: from the
 * end) into y (type ty): running sums in double, exclusive leaving out the
 * element itself, reverse running from the end. */
static inline void nnfx_rt_cumsum(const unsigned char *x, int tx, unsigned char *y, int ty, int rank, const long *shape,
                                  long long axis, int excl, int rev) {
    long outer = 1, len, inner = 1, o, j, k;
    int d;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    for (d = 0; d < rank; d++) {
        if (d < axis) outer *= shape[d];
        if (d > axis) inner *= shape[d];
    }
    len = shape[axis];
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            double acc = 0;
            for (k = 0; k < len; k++) {
                const long i = rev ? len - 1 - k : k, off = (o * len + i) * inner + j;
                const double v = nnfx_rt_ld_f(x, off, tx);
                if (!excl) acc += v;
                nnfx_rt_st_f(y, off, ty, acc);
                if (excl) acc += v;
            }
        }
}
/* @end */

/* @rt tpow libm needs:tval,tbcast_next,pow */
/* Pow with broadcasting where a base or exponent is an integer: a float32
 * result is powf of the two converted to float; an integer one is pow in
 * double, truncated and saturated. */
static inline void nnfx_rt_tpow(const unsigned char *a, int ta, const unsigned char *b, int tb, unsigned char *y,
                                int ty, int rank, const long *shape, const long *sa, const long *sb) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, off[2] = {0, 0}, i = 0;
    const long *st[2];
    st[0] = sa, st[1] = sb;
    do {
        const double u = nnfx_rt_ld_f(a, off[0], ta), v = nnfx_rt_ld_f(b, off[1], tb);
        if (ty == 0)
            nnfx_rt_st_f(y, i, 0, nnfx_rt_pow((float)u, (float)v));
        else
            nnfx_rt_st_f(y, i, ty, pow(u, v));
        i++;
    } while (nnfx_rt_tbcast_next(rank, shape, 2, st, idx, off));
}
/* @end */

/* @rt tcompare needs:tval,tbcast_next */
/* y = (a op b) as bool bytes with broadcasting (as nnfx_rt_ibinary): op 0
 * >, 1 <, 2 >=, 3 <=, 4 ==; float32 operands compare as floats (false with
 * a NaN), integers exactly. */
static inline void nnfx_rt_tcompare(const unsigned char *a, int ta, const unsigned char *b, int tb, unsigned char *y,
                                    int rank, const long *shape, const long *sa, const long *sb, int op) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, off[2] = {0, 0}, i = 0;
    const long *st[2];
    st[0] = sa, st[1] = sb;
    do {
        int r;
        if (nnfx_rt_tfloat(ta) || nnfx_rt_tfloat(tb)) {
            const double u = nnfx_rt_ld_f(a, off[0], ta), v = nnfx_rt_ld_f(b, off[1], tb);
            r = op == 0 ? u > v : op == 1 ? u < v : op == 2 ? u >= v : op == 3 ? u <= v : u == v;
        } else {
            const long long u = nnfx_rt_ld_i(a, off[0], ta), v = nnfx_rt_ld_i(b, off[1], tb);
            r = op == 0 ? u > v : op == 1 ? u < v : op == 2 ? u >= v : op == 3 ? u <= v : u == v;
        }
        y[i++] = (unsigned char)r;
    } while (nnfx_rt_tbcast_next(rank, shape, 2, st, idx, off));
}
/* @end */

/* @rt where needs:tbcast_next */
/* Where: y = c ? x : z element-wise with broadcasting (strides sc, sx, sz
 * per output dim), values of es bytes, c bool bytes. */
static inline void nnfx_rt_where(const unsigned char *c, const unsigned char *x, const unsigned char *z,
                                 unsigned char *y, long es, int rank, const long *shape, const long *sc, const long *sx,
                                 const long *sz) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, off[3] = {0, 0, 0}, i = 0;
    const long *st[3];
    st[0] = sc, st[1] = sx, st[2] = sz;
    do {
        memcpy(y + i * es, c[off[0]] ? x + off[1] * es : z + off[2] * es, (size_t)es);
        i++;
    } while (nnfx_rt_tbcast_next(rank, shape, 3, st, idx, off));
}
/* @end */

/* @rt tcast needs:tval */
/* Cast of n values from type tx to ty (tx != ty): a floating-point value through
 * double (to an integer: truncated and saturated, NaN 0; to bool: nonzero,
 * NaN too), an integer one exactly to float32 (rounded once) and
 * saturated into a narrower integer type. */
static inline void nnfx_rt_tcast(const unsigned char *x, int tx, unsigned char *y, int ty, long n) {
    long i;
    for (i = 0; i < n; i++) {
        if (nnfx_rt_tfloat(tx))
            nnfx_rt_st_f(y, i, ty, nnfx_rt_ld_f(x, i, tx));
        else if (ty == 0)
            nnfx_rt_st_i(y, i, 0, nnfx_rt_ld_i(x, i, tx));
        else
            nnfx_rt_st_f(y, i, ty, (double)nnfx_rt_ld_i(x, i, tx));
    }
}
/* @end */

/* @rt tpredicate needs:tval */
/* Bool y[i] of n values: op 0 Not of bool x; 1 IsNaN, 2 IsInf (negative
 * infinities when neg, positive ones when pos) of float x of type code t
 * (float32, float64, float16). */
static inline void nnfx_rt_tpredicate(const unsigned char *x, int t, unsigned char *y, long n, int op, int neg,
                                      int pos) {
    long i;
    for (i = 0; i < n; i++) {
        double v;
        if (op == 0) {
            y[i] = !x[i];
            continue;
        }
        v = nnfx_rt_ld_f(x, i, t);
        y[i] = (unsigned char)(op == 1 ? v != v
                                       : ((v < -1.7976931348623157e308 && neg) || (v > 1.7976931348623157e308 && pos)));
    }
}
/* @end */

/* @rt trilu */
/* Trilu of `mats` matrices rows x cols of es-byte values: keeps j - i >= k
 * (upper) or j - i <= k, zeroes the rest. */
static inline void nnfx_rt_trilu(const unsigned char *x, unsigned char *y, long es, long mats, long rows, long cols,
                                 long k, int upper) {
    long m, i, j;
    for (m = 0; m < mats; m++)
        for (i = 0; i < rows; i++)
            for (j = 0; j < cols; j++) {
                const long off = ((m * rows + i) * cols + j) * es;
                if (upper ? j - i >= k : j - i <= k)
                    memmove(y + off, x + off, (size_t)es);
                else
                    memset(y + off, 0, (size_t)es);
            }
}
/* @end */

/* @rt gather_elements needs:tval */
/* GatherElements along axis: y (ishape) [i] = x (xshape) [i with its axis
 * coordinate replaced by ix[i]] (indices of type tix, negative ones count
 * from the end; one out of range gives zero bytes), es-byte values. */
static inline void nnfx_rt_gather_elements(const unsigned char *x, const unsigned char *ix, int tix, unsigned char *y,
                                           long es, int rank, const long *xshape, const long *ishape, int axis) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, xst[8], cnt = 1, i;
    int d;
    for (d = rank - 1; d >= 0; d--) {
        xst[d] = d == rank - 1 ? 1 : xst[d + 1] * xshape[d + 1];
        cnt *= ishape[d];
    }
    for (i = 0; i < cnt; i++) {
        long long j = nnfx_rt_ld_i(ix, i, tix);
        long off = 0;
        if (j < 0) j += xshape[axis];
        if (j < 0 || j >= xshape[axis])
            memset(y + i * es, 0, (size_t)es);
        else {
            for (d = 0; d < rank; d++)
                off += (d == axis ? (long)j : idx[d]) * xst[d];
            memcpy(y + i * es, x + off * es, (size_t)es);
        }
        for (d = rank - 1; d >= 0; d--) {
            if (++idx[d] < ishape[d]) break;
            idx[d] = 0;
        }
    }
}
/* @end */

/* @rt maxpool_idx needs:tval,max_takes */
/* MaxPool (and its Indices) of values of type code t over up to three
 * spatial dims (fewer: leading dims of 1): g: NC, then per spatial dim
 * j < 3 its input size, output size, kernel size, stride, dilation and
 * begin pad at g[1 + 6 * j ...]; col: storage_order 1. y gets each
 * window's max (taps by nnfx_rt_max_takes, padding never a tap), idx
 * (int64, stored bytewise; NULL: not wanted) the flat offset into x of its
 * first maximum: row-major, or with col the spatial part column-major, as
 * the interpreter's max_pool. */
static inline void nnfx_rt_maxpool_idx(const unsigned char *x, unsigned char *y, int t, unsigned char *idx,
                                       const long *g, int col) {
    const long NC = g[0], *A = g + 1, *B = g + 7, *Z = g + 13, sp = A[0] * B[0] * Z[0];
    long c, oz, oy, ox, kz, ky, kx, o = 0;
    for (c = 0; c < NC; c++)
        for (oz = 0; oz < A[1]; oz++)
            for (oy = 0; oy < B[1]; oy++)
                for (ox = 0; ox < Z[1]; ox++, o++) {
                    double m = -INFINITY;
                    long long arg = -1;
                    for (kz = 0; kz < A[2]; kz++) {
                        const long iz = oz * A[3] - A[5] + kz * A[4];
                        if (iz < 0 || iz >= A[0]) continue;
                        for (ky = 0; ky < B[2]; ky++) {
                            const long iy = oy * B[3] - B[5] + ky * B[4];
                            if (iy < 0 || iy >= B[0]) continue;
                            for (kx = 0; kx < Z[2]; kx++) {
                                const long ix = ox * Z[3] - Z[5] + kx * Z[4];
                                const long at = c * sp + (iz * B[0] + iy) * Z[0] + ix;
                                double v;
                                if (ix < 0 || ix >= Z[0]) continue;
                                v = nnfx_rt_ld_f(x, at, t);
                                if (arg < 0 || nnfx_rt_max_takes((float)m, (float)v)) {
                                    m = v;
                                    arg = col ? c * sp + iz + A[0] * (iy + B[0] * ix) : at;
                                }
                            }
                        }
                    }
                    nnfx_rt_st_f(y, o, t, m);
                    if (idx) memcpy(idx + o * (long)sizeof arg, &arg, sizeof arg);
                }
}
/* @end */

/* @rt topk needs:tval */
/* Whether element a (value va) comes before b in TopK's order: the larger
 * first (largest) or the smaller first, NaN above every number, ties by
 * the lower index. A strict total order, so any sort gives one result (the
 * interpreter's kern_topk sorts with it). */
static inline int nnfx_rt_topk_before(double va, long a, double vb, long b, int largest) {
    const int na = va != va, nb = vb != vb;
    if (na != nb) return largest ? na : nb;
    if (!na && va != vb) return largest ? va > vb : va < vb;
    return a < b;
}

/* TopK of x (type code t, values compared as doubles) viewed as [outer, n,
 * inner] along n: the first k elements in nnfx_rt_topk_before's order into
 * y [outer, k, inner] (their bytes copied) and their indices (int64, stored
 * bytewise: any alignment) into idx (NULL: not wanted). No scratch: pick j
 * is the first element after pick j - 1 in the order, k * n comparisons per
 * row. */
static inline void nnfx_rt_topk(const unsigned char *x, int t, unsigned char *y, unsigned char *idx, long outer, long n,
                                long inner, long k, int largest) {
    const long es = nnfx_rt_tsize(t);
    long o, i, j, e;
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            const long row = o * n * inner + i;
            long prev = -1;
            double pv = 0;
            for (j = 0; j < k; j++) {
                long best = -1;
                double bv = 0;
                for (e = 0; e < n; e++) {
                    const double v = nnfx_rt_ld_f(x, row + e * inner, t);
                    if (prev >= 0 && !nnfx_rt_topk_before(pv, prev, v, e, largest)) continue;
                    if (best < 0 || nnfx_rt_topk_before(v, e, bv, best, largest)) best = e, bv = v;
                }
                if (best < 0) break; /* k > n: not for a valid TopK */
                memcpy(y + ((o * k + j) * inner + i) * es, x + (row + best * inner) * es, (size_t)es);
                if (idx) {
                    const long long v = best;
                    memcpy(idx + ((o * k + j) * inner + i) * (long)sizeof v, &v, sizeof v);
                }
                prev = best, pv = bv;
            }
        }
}
/* @end */

/* @rt argmax needs:tval */
/* ArgMax (is_min 0) / ArgMin (1) of x (type code t, values compared as
 * doubles) viewed as [outer, n, inner] along n (n >= 1) into int64 values
 * stored bytewise at y [outer, inner]: the first extreme, or the last with
 * select_last; NaN never replaces the running best. The interpreter's
 * kern_argmax calls it. */
static inline void nnfx_rt_argmax(const unsigned char *x, int t, unsigned char *y, long outer, long n, long inner,
                                  int is_min, int select_last) {
    long o, j, i;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const long row = o * n * inner + j;
            long long best = 0;
            double bv = nnfx_rt_ld_f(x, row, t);
            for (i = 1; i < n; i++) {
                const double v = nnfx_rt_ld_f(x, row + i * inner, t);
                if ((is_min ? v < bv : v > bv) || (select_last && v == bv)) {
                    bv = v;
                    best = i;
                }
            }
            memcpy(y + (o * inner + j) * (long)sizeof best, &best, sizeof best);
        }
}
/* @end */

/* @rt teinsum needs:tval,einsum_start,einsum_step */
/* nnfx_rt_einsum over typed values: input i of type code tx[i], y of ty
 * (each sum and product in double, stored as nnfx_rt_st_f does). */
static inline void nnfx_rt_teinsum(int nin, const unsigned char *const *x, const int *tx, unsigned char *y, int ty,
                                   long total, int nall, int nouter, const long *size, const long *st) {
    long idx[64], off[8], o, s;
    const long inner = nnfx_rt_einsum_start(nin, nall, nouter, size, idx, off);
    int i;
    for (o = 0; o < total; o++) {
        double acc = 0;
        for (s = 0; s < (inner ? inner : 1); s++) {
            double prod = 1;
            for (i = 0; i < nin && inner; i++)
                prod *= nnfx_rt_ld_f(x[i], off[i], tx[i]);
            if (inner) acc += prod;
            nnfx_rt_einsum_step(nin, nall, inner ? nall : nouter, size, st, idx, off);
        }
        nnfx_rt_st_f(y, o, ty, acc);
    }
}
/* @end */

/* @rt transpose_bytes */
/* y = x permuted, values of es bytes (any type): y's dims are
 * shape[0..rank) (rank <= 8) and st[d] is the stride in x (in values) of
 * y's dim d. */
static inline void nnfx_rt_transpose_bytes(const unsigned char *x, unsigned char *y, long es, int rank,
                                           const long *shape, const long *st) {
    long n = 1, i, off, idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int d;
    for (d = 0; d < rank; d++)
        n *= shape[d];
    for (i = 0; i < n; i++) {
        for (off = 0, d = 0; d < rank; d++)
            off += idx[d] * st[d];
        memcpy(y + i * es, x + off * es, (size_t)es);
        for (d = rank - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}
/* @end */

/* @rt concat_rows */
/* Concat of n pieces of es-byte values along an axis: piece k viewed as
 * [outer, bound[k], inner] holds valid[k] rows (its actual extent along the
 * axis, bound[k] when it does not depend on the data); each outer index of
 * y ([outer, ybound, inner]) gets the pieces' valid rows one after another. */
static inline void nnfx_rt_concat_rows(unsigned char *y, long outer, long ybound, long inner, long es, int n,
                                       const unsigned char *const *x, const long *bound, const long *valid) {
    const long row = inner * es;
    long o, at;
    int k;
    for (o = 0; o < outer; o++)
        for (k = 0, at = 0; k < n; k++) {
            memmove(y + (o * ybound + at) * row, x[k] + o * bound[k] * row, (size_t)(valid[k] * row));
            at += valid[k];
        }
}
/* @end */

/* @rt index_ok needs:tval */
/* Whether each of the n indices at ix (type code t), taken as tuples of k,
 * lies within its dim: component j in [-dims[j], dims[j]) (the interpreter
 * refuses others). */
static inline int nnfx_rt_index_ok(const unsigned char *ix, int t, long n, int k, const long *dims) {
    long i;
    for (i = 0; i < n; i++) {
        const long long v = nnfx_rt_ld_i(ix, i, t), d = dims[i % k];
        if (v < -d || v >= d) return 0;
    }
    return 1;
}
/* @end */

/* @rt gather_typed needs:tval */
/* Gather with computed indices: x viewed as [outer, len, inner] es-byte
 * values, the ni indices ix (type tix, negative ones from the end of the
 * first lim rows: len, or the actual extent of an axis whose size depends
 * on the data; one out of range gives zero bytes) pick rows along len: y
 * is [outer, ni, inner]. */
static inline void nnfx_rt_gather_typed(const unsigned char *x, const unsigned char *ix, int tix, unsigned char *y,
                                        long es, long outer, long len, long lim, long inner, long ni) {
    long o, j;
    for (o = 0; o < outer; o++)
        for (j = 0; j < ni; j++) {
            long long k = nnfx_rt_ld_i(ix, j, tix);
            unsigned char *dst = y + (o * ni + j) * inner * es;
            if (k < 0) k += lim;
            if (k < 0 || k >= lim)
                memset(dst, 0, (size_t)(inner * es));
            else
                memcpy(dst, x + (o * len + (long)k) * inner * es, (size_t)(inner * es));
        }
}
/* @end */

/* @rt gather_nd needs:tval */
/* GatherND with batch_dims: for each of the B batches (bstride values of x
 * apart) and Q index tuples of k values in ix (type tix, negative ones
 * from the end), the slice of `slice` es-byte values of x at that tuple
 * (dims[j], strides st[j] of the indexed dims) into y, in order; a tuple
 * out of range gives zero bytes. */
static inline void nnfx_rt_gather_nd(const unsigned char *x, const unsigned char *ix, int tix, unsigned char *y,
                                     long es, long B, long Q, int k, const long *dims, const long *st, long slice,
                                     long bstride) {
    long b, q;
    int j;
    for (b = 0; b < B; b++)
        for (q = 0; q < Q; q++) {
            long off = b * bstride;
            int ok = 1;
            unsigned char *dst = y + (b * Q + q) * slice * es;
            for (j = 0; j < k; j++) {
                long long v = nnfx_rt_ld_i(ix, (b * Q + q) * k + j, tix);
                if (v < 0) v += dims[j];
                if (v < 0 || v >= dims[j]) ok = 0;
                off += (long)v * st[j];
            }
            if (ok)
                memcpy(dst, x + off * es, (size_t)(slice * es));
            else
                memset(dst, 0, (size_t)(slice * es));
        }
}
/* @end */

/* @rt iclip needs:tval */
/* Clip of n integer values of type t: below *lo to *lo, then above *hi to
 * *hi (lo / hi: one value of type t each, NULL when absent). */
static inline void nnfx_rt_iclip(const unsigned char *x, unsigned char *y, int t, long n, const unsigned char *lo,
                                 const unsigned char *hi) {
    long i;
    for (i = 0; i < n; i++) {
        long long v = nnfx_rt_ld_i(x, i, t);
        if (lo && v < nnfx_rt_ld_i(lo, 0, t)) v = nnfx_rt_ld_i(lo, 0, t);
        if (hi && v > nnfx_rt_ld_i(hi, 0, t)) v = nnfx_rt_ld_i(hi, 0, t);
        nnfx_rt_st_i(y, i, t, v);
    }
}
/* @end */

/* @rt scatter needs:tval */
/* One update of a scatter: y[o] = u[k] (red 0), y[o] + u[k] (1), y[o] *
 * u[k] (2), max (3), min (4), computed in double and stored into type t. */
static inline void nnfx_rt_scatter_apply(unsigned char *y, long o, const unsigned char *u, long k, int t, int red) {
    double a, b;
    if (red == 0) {
        const long es = nnfx_rt_tsize(t);
        memcpy(y + o * es, u + k * es, (size_t)es);
        return;
    }
    a = nnfx_rt_ld_f(y, o, t), b = nnfx_rt_ld_f(u, k, t);
    nnfx_rt_st_f(y, o, t,
                 red == 1   ? a + b
                 : red == 2 ? a * b
                 : red == 3 ? (a != a ? b : (b != b ? a : (a > b ? a : b)))
                            : (a != a ? b : (b != b ? a : (a < b ? a : b))));
}

/* ScatterElements along axis (y already holds a copy of the data, shape
 * xshape): y[i with its axis coordinate replaced by ix[i]] (red)= u[i] for
 * every index i of ishape, values of type t; indices out of range are
 * skipped. */
static inline void nnfx_rt_scatter_elements(unsigned char *y, const unsigned char *ix, int tix, const unsigned char *u,
                                            int t, int rank, const long *xshape, const long *ishape, int axis,
                                            int red) {
    long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0}, xst[8], cnt = 1, i;
    int d;
    for (d = rank - 1; d >= 0; d--) {
        xst[d] = d == rank - 1 ? 1 : xst[d + 1] * xshape[d + 1];
        cnt *= ishape[d];
    }
    for (i = 0; i < cnt; i++) {
        long long j = nnfx_rt_ld_i(ix, i, tix);
        long off = 0;
        if (j < 0) j += xshape[axis];
        if (j >= 0 && j < xshape[axis]) {
            for (d = 0; d < rank; d++)
                off += (d == axis ? (long)j : idx[d]) * xst[d];
            nnfx_rt_scatter_apply(y, off, u, i, t, red);
        }
        for (d = rank - 1; d >= 0; d--) {
            if (++idx[d] < ishape[d]) break;
            idx[d] = 0;
        }
    }
}

/* ScatterND (y already holds a copy of the data, shape xshape of rank
 * `rank`): for each of the q index tuples of k values in ix, the slice of
 * `slice` values at that position (red)= the tuple's slice of u. */
static inline void nnfx_rt_scatter_nd(unsigned char *y, const unsigned char *ix, int tix, const unsigned char *u, int t,
                                      int rank, const long *xshape, long q, int k, long slice, int red) {
    long xst[8], a, e;
    int d;
    for (d = rank - 1; d >= 0; d--)
        xst[d] = d == rank - 1 ? 1 : xst[d + 1] * xshape[d + 1];
    for (a = 0; a < q; a++) {
        long off = 0;
        int ok = 1;
        for (d = 0; d < k; d++) {
            long long v = nnfx_rt_ld_i(ix, a * k + d, tix);
            if (v < 0) v += xshape[d];
            if (v < 0 || v >= xshape[d]) ok = 0;
            off += (long)v * xst[d];
        }
        for (e = 0; ok && e < slice; e++)
            nnfx_rt_scatter_apply(y, off + e, u, a * slice + e, t, red);
    }
}
/* @end */

/* @rt one_hot needs:tval */
/* OneHot: y [outer, depth, inner] of type ty holds vals[0] (off) except
 * vals[1] (on) at each index ix[o * inner + i] (type tix, negative ones
 * from the end, out of range: none); vals of type tv. */
static inline void nnfx_rt_one_hot(const unsigned char *ix, int tix, const unsigned char *vals, int tv,
                                   unsigned char *y, int ty, long outer, long depth, long inner) {
    const double off = nnfx_rt_ld_f(vals, 0, tv), on = nnfx_rt_ld_f(vals, 1, tv);
    long i, n = outer * depth * inner;
    for (i = 0; i < n; i++)
        nnfx_rt_st_f(y, i, ty, off);
    for (i = 0; i < outer * inner; i++) {
        const double dv = nnfx_rt_ld_f(ix, i, tix);
        long long v;
        if (!(dv > -1e18 && dv < 1e18)) continue;
        v = (long long)dv;
        if (v < 0) v += depth;
        if (v < 0 || v >= depth) continue;
        nnfx_rt_st_f(y, ((i / inner) * depth + (long)v) * inner + i % inner, ty, on);
    }
}
/* @end */

/* @rt eye_like needs:tval */
/* EyeLike: y [rows, cols] of type ty, 1 where j - i == k, else 0. */
static inline void nnfx_rt_eye_like(unsigned char *y, int ty, long rows, long cols, long k) {
    long i, j;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
            nnfx_rt_st_f(y, i * cols + j, ty, j - i == k ? 1.0 : 0.0);
}
/* @end */

/* @rt nll_loss needs:tval */
/* The loss of one entry with target t: -lp * w[t] (w NULL: weight 1), and
 * its weight into *wt; 0 and weight 0 where t is ignore_index (when has_ii)
 * or out of range [0, C). */
static inline double nnfx_rt_loss_term(double lp_t, long long t, long C, const float *w, int has_ii, long long ii,
                                       double *wt) {
    *wt = 0;
    if ((has_ii && t == ii) || t < 0 || t >= C) return 0;
    *wt = w ? (double)w[t] : 1.0;
    return -lp_t * *wt;
}

/* The reduction of the losses: red 0 none (each entry's written already),
 * 1 the sum, 2 the sum over the summed weights, into y[0]. */
static inline void nnfx_rt_loss_reduce(float *y, int red, double sum, double wsum) {
    if (red) y[0] = (float)(red == 2 ? sum / wsum : sum);
}

/* NegativeLogLikelihoodLoss of float32 log-probabilities x [N, C, D] with
 * targets tg [N, D] (type tt), optional per-class weights w: each entry's
 * loss into y [N, D] (red 0) or their reduction (nnfx_rt_loss_reduce),
 * computed in double as the interpreter does. */
static inline void nnfx_rt_nll_loss(const float *x, const unsigned char *tg, int tt, const float *w, float *y, long N,
                                    long C, long D, int has_ii, long long ii, int red) {
    double sum = 0, wsum = 0, wt, l;
    long b, d;
    for (b = 0; b < N; b++)
        for (d = 0; d < D; d++) {
            const long long t = nnfx_rt_ld_i(tg, b * D + d, tt);
            const double lp = t >= 0 && t < C ? (double)x[(b * C + (long)t) * D + d] : 0;
            l = nnfx_rt_loss_term(lp, t, C, w, has_ii, ii, &wt);
            if (red == 0) y[b * D + d] = (float)l;
            sum += l;
            wsum += wt;
        }
    nnfx_rt_loss_reduce(y, red, sum, wsum);
}
/* @end */

/* @rt sce_loss libm needs:nll_loss */
/* SoftmaxCrossEntropyLoss of float32 scores x [N, C, D]: the log-softmax
 * over C in double (written as float32 into lpf when not NULL), then the
 * loss of nnfx_rt_nll_loss over it. */
static inline void nnfx_rt_sce_loss(const float *x, float *lpf, const unsigned char *tg, int tt, const float *w,
                                    float *y, long N, long C, long D, int has_ii, long long ii, int red) {
    double sum = 0, wsum = 0, wt, l;
    long b, d, c;
    for (b = 0; b < N; b++)
        for (d = 0; d < D; d++) {
            const long long t = nnfx_rt_ld_i(tg, b * D + d, tt);
            double mx = -INFINITY, se = 0, lp = 0;
            for (c = 0; c < C; c++)
                mx = fmax(mx, (double)x[(b * C + c) * D + d]);
            for (c = 0; c < C; c++)
                se += exp((double)x[(b * C + c) * D + d] - mx);
            for (c = 0; c < C; c++) {
                const double v = (double)x[(b * C + c) * D + d] - mx - log(se);
                if (lpf) lpf[(b * C + c) * D + d] = (float)v;
                if (c == t) lp = v;
            }
            l = nnfx_rt_loss_term(lp, t, C, w, has_ii, ii, &wt);
            if (red == 0) y[b * D + d] = (float)l;
            sum += l;
            wsum += wt;
        }
    nnfx_rt_loss_reduce(y, red, sum, wsum);
}
/* @end */

/* @rt treduce libm needs:tval,axes_walk */
/* A reduction of x (`rank` <= 6 dims shape, type code tx) over the dims
 * with red[d] set, any of them: y (type code ty) holds one value per
 * position of the other dims, in their order. Accumulated in double in the
 * input's order as the interpreter's reduce, stored as nnfx_rt_st_f does;
 * kind 0 mean, 1 sum, 2 max, 3 min (a NaN wins), 4 prod, 5 L1, 6 L2,
 * 7 log-sum, 8 log-sum-exp, 9 sum of squares. */
static inline void nnfx_rt_treduce(const unsigned char *x, int tx, unsigned char *y, int ty, int rank,
                                   const long *shape, const int *red, int kind) {
    long st[6], gi[6] = {0, 0, 0, 0, 0, 0}, ri[6], per, groups, g, e;
    int d;
    nnfx_rt_axes_split(rank, shape, red, st, &per, &groups);
    for (g = 0; g < groups; g++) {
        long off = 0;
        double acc = kind == 2 ? -INFINITY : kind == 3 ? INFINITY : kind == 4 ? 1.0 : 0.0;
        for (d = 0; d < rank; d++) {
            off += red[d] ? 0 : gi[d] * st[d];
            ri[d] = 0;
        }
        for (e = 0; e < per; e++) {
            const double v = nnfx_rt_ld_f(x, off, tx);
            if (kind == 2)
                acc = v > acc || v != v ? v : acc;
            else if (kind == 3)
                acc = v < acc || v != v ? v : acc;
            else
                acc = kind == 4                ? acc * v
                      : kind == 5              ? acc + fabs(v)
                      : kind == 8              ? acc + exp(v)
                      : kind == 6 || kind == 9 ? acc + v * v
                                               : acc + v;
            nnfx_rt_axes_next(rank, shape, red, 1, st, ri, &off);
        }
        nnfx_rt_st_f(y, g, ty,
                     kind == 0                ? (per ? acc / (double)per : NAN)
                     : kind == 6              ? sqrt(acc)
                     : kind == 7 || kind == 8 ? log(acc)
                                              : acc);
        nnfx_rt_axes_next(rank, shape, red, 0, st, gi, 0);
    }
}
/* @end */

/* @rt reduce_axes needs:treduce */
/* nnfx_rt_treduce of float32 values. */
static inline void nnfx_rt_reduce_axes(const float *x, float *y, int rank, const long *shape, const int *red,
                                       int kind) {
    nnfx_rt_treduce((const unsigned char *)x, 0, (unsigned char *)y, 0, rank, shape, red, kind);
}
/* @end */

#endif
