/* gemm.c — Gemm and MatMul (float32) through cblas_sgemm; MatMul with
 * numpy semantics (1-d promotion, batch broadcasting). */
#include <cblas.h>
#include <limits.h>
#include <string.h>

#include "exec/kernels/kernels_int.h"

/* Gemm(A, B, C?): Y = alpha * op(A) op(B) + beta * C (C broadcast). */
nnfx_status kern_gemm(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                      nnfx_error *err) {
    return kern_gemm_cols(n, nin, in, nout, out, 0, INT64_MAX, err);
}

nnfx_status kern_gemm_cols(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           int64_t j0, int64_t j1, nnfx_error *err) {
    nnfx_status s;
    if (nin < 2 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "gemm needs A and B");
    const nnfx_tensor *a = in[0], *b = in[1], *c = nin > 2 ? in[2] : NULL;
    if ((s = kern_need(n, a, NNFX_F32, "A", err)) || (s = kern_need(n, b, NNFX_F32, "B", err))) return s;
    if (c && (s = kern_need(n, c, NNFX_F32, "C", err))) return s;
    if (a->rank != 2 || b->rank != 2) return kern_fail(err, n, NNFX_ERR_SHAPE, "gemm expects 2-d A and B");
    bool ta = ir_attr_int(n, "transA") != 0, tb = ir_attr_int(n, "transB") != 0;
    float alpha = (float)ir_attr_float(n, "alpha"), beta = (float)ir_attr_float(n, "beta");
    int64_t m = a->shape[ta ? 1 : 0], k = a->shape[ta ? 0 : 1], kb = b->shape[tb ? 1 : 0], nn = b->shape[tb ? 0 : 1];
    if (k != kb)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "gemm expects input dim %d (%lld) to equal weight dim %d (%lld)",
                         ta ? 0 : 1, (long long)k, tb ? 1 : 0, (long long)kb);
    int64_t oshape[2] = {m, nn};
    if ((s = kern_check_out(n, out[0], 2, oshape, err))) return s;
    if (m > INT_MAX || nn > INT_MAX || k > INT_MAX)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "gemm dims exceed the BLAS int range");
    if (j1 > nn) j1 = nn;
    if (j0 >= j1) return NNFX_OK; /* no columns: the checks alone */
    const int64_t w = j1 - j0;    /* columns computed */
    float *y = (float *)out[0]->data + j0;
    float cb = 0.0f;
    if (c && beta != 0.0f) {
        const nnfx_tensor *ops[1] = {c};
        kern_bcast p;
        if (!kern_bcast_plan(&p, 2, oshape, 1, ops))
            return kern_fail(err, n, NNFX_ERR_SHAPE, "gemm C does not broadcast to [%lld, %lld]", (long long)m,
                             (long long)nn);
        const float *cd = c->data;
        int64_t cs0 = c->rank == 2 && c->shape[0] != 1 ? c->shape[1] : 0;
        int64_t cs1 = c->rank >= 1 && c->shape[c->rank - 1] != 1 ? 1 : 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = j0; j < j1; j++)
                y[i * nn + j - j0] = beta * cd[i * cs0 + j * cs1];
        cb = 1.0f;
    }
    if (m == 0) return NNFX_OK;
    if (k == 0) {
        for (int64_t i = 0; cb == 0.0f && i < m; i++)
            memset(y + i * nn, 0, (size_t)w * sizeof(float));
        return NNFX_OK;
    }
    const float *bd = (const float *)b->data + (tb ? j0 * k : j0); /* op(B)'s column j0 */
    if (m == 1) { /* one row (batch 1 classifiers): a matrix-vector product, B is not repacked */
        if (tb)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)w, (int)k, alpha, bd, (int)k, a->data, 1, cb, y, 1);
        else
            cblas_sgemv(CblasRowMajor, CblasTrans, (int)k, (int)w, alpha, bd, (int)nn, a->data, 1, cb, y, 1);
        return NNFX_OK;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)w, (int)k,
                alpha, a->data, (int)a->shape[1], bd, (int)b->shape[1], cb, y, (int)nn);
    return NNFX_OK;
}

/* MatMul(A, B) with numpy semantics. */
nnfx_status kern_matmul(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    return kern_matmul_cols(n, nin, in, nout, out, 0, INT64_MAX, err);
}

/* Columns [j0, j1) of A's rows (all batches, contiguous) times one shared
 * B [k, nn]: one sgemm over every row. */
static void matmul_rows_shared_b(const float *a, const float *b, float *y, int64_t rows, int64_t k, int64_t nn,
                                 int64_t j0, int64_t j1) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)(j1 - j0), (int)k, 1.0f, a, (int)k, b + j0,
                (int)nn, 0.0f, y + j0, (int)nn);
}

nnfx_status kern_matmul_cols(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             int64_t j0, int64_t j1, nnfx_error *err) {
    nnfx_status s;
    if (nin < 2 || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "matmul needs A and B");
    const nnfx_tensor *a = in[0], *b = in[1];
    if ((s = kern_need(n, a, NNFX_F32, "A", err)) || (s = kern_need(n, b, NNFX_F32, "B", err))) return s;
    if (a->rank < 1 || b->rank < 1) return kern_fail(err, n, NNFX_ERR_SHAPE, "matmul does not take scalars");
    int64_t m = a->rank >= 2 ? a->shape[a->rank - 2] : 1, k = a->shape[a->rank - 1];
    int64_t kb = b->rank >= 2 ? b->shape[b->rank - 2] : b->shape[0], nn = b->rank >= 2 ? b->shape[b->rank - 1] : 1;
    if (k != kb)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "matmul expects input dim %d (%lld) to equal weight dim %d (%lld)",
                         a->rank - 1, (long long)k, b->rank >= 2 ? b->rank - 2 : 0, (long long)kb);
    /* batch dims, right-aligned and broadcast */
    int ab = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
    int nb = ab > bb ? ab : bb;
    int64_t bshape[NNFX_MAX_RANK], sa[NNFX_MAX_RANK], sb[NNFX_MAX_RANK];
    int64_t astride = m * k, bstride = k * nn, nbatch = 1;
    int64_t acc_a = astride, acc_b = bstride;
    for (int i = nb - 1; i >= 0; i--) {
        int ia = i - (nb - ab), ib = i - (nb - bb);
        int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return kern_fail(err, n, NNFX_ERR_SHAPE, "matmul batch dim %d does not broadcast (%lld vs %lld)", i,
                             (long long)da, (long long)db);
        bshape[i] = da > db ? da : db;
        if (da == 0 || db == 0) bshape[i] = 0;
        sa[i] = da == 1 ? 0 : acc_a;
        sb[i] = db == 1 ? 0 : acc_b;
        acc_a *= da;
        acc_b *= db;
        nbatch *= bshape[i];
    }
    int64_t oshape[NNFX_MAX_RANK];
    int orank = 0;
    for (int i = 0; i < nb; i++)
        oshape[orank++] = bshape[i];
    if (a->rank >= 2) oshape[orank++] = m;
    if (b->rank >= 2) oshape[orank++] = nn;
    if ((s = kern_check_out(n, out[0], orank, oshape, err))) return s;
    if (m > INT_MAX || nn > INT_MAX || k > INT_MAX)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "matmul dims exceed the BLAS int range");
    float *y = out[0]->data;
    if (j1 > nn) j1 = nn;
    if (j0 >= j1 || nbatch == 0 || m == 0) return NNFX_OK; /* no columns: the checks alone */
    const bool whole = j0 == 0 && j1 == nn;                /* else a column range: B one 2-d matrix only */
    if (!whole && (b->rank != 2 || a->rank < 2 || nbatch * m > INT_MAX))
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "matmul column ranges need a 2-d B");
    if (k == 0) {
        for (int64_t r = 0; r < nbatch * m; r++)
            memset(y + r * nn + j0, 0, (size_t)(j1 - j0) * sizeof(float));
        return NNFX_OK;
    }
    const float *ad = a->data, *bd = b->data;
    /* A's batches contiguous and B shared (always so for a column range) */
    bool a_flat = true;
    for (int i = 0; i < nb; i++)
        a_flat = a_flat && sb[i] == 0 && (bshape[i] == 1 || sa[i] != 0);
    if (!whole || (a_flat && nb > 0 && ab == nb)) {
        matmul_rows_shared_b(ad, bd, y, nbatch * m, k, nn, j0, j1);
        return NNFX_OK;
    }
    int64_t idx[NNFX_MAX_RANK] = {0};
    for (int64_t t = 0; t < nbatch; t++) {
        int64_t oa = 0, ob = 0;
        for (int i = 0; i < nb; i++) {
            oa += idx[i] * sa[i];
            ob += idx[i] * sb[i];
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)nn, (int)k, 1.0f, ad + oa, (int)k, bd + ob,
                    (int)nn, 0.0f, y + t * m * nn, (int)nn);
        for (int i = nb - 1; i >= 0; i--) {
            if (++idx[i] < bshape[i]) break;
            idx[i] = 0;
        }
    }
    return NNFX_OK;
}
