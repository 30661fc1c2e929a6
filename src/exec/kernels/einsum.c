/* einsum.c — Einsum over any equation ONNX allows (products of the
 * inputs summed over the labels missing from the output; repeated labels
 * take diagonals; ellipsis dims broadcast). Every label has a stride per
 * input (the sum over the dims it names: diagonals), so one odometer over
 * output labels (outer) and summed labels (inner) visits each product
 * once (the generated C's loops: nnfx_rt_einsum for float32,
 * nnfx_rt_teinsum through double for the other types it holds). The
 * matmul-like equations (attention's "bhqd,bhkd->bhqk" and the like) take
 * a fast path: gather into [batch, M, K] x [batch, K, N] and GEMM. */
#include <cblas.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_kernels.h"
#include "rt/nnfx_rt_typed.h"
#include "exec/kernels/kernels_int.h"

/* dst (contiguous, labels lab[0..n) of sizes sz) = the strided view of src
 * with element strides st (one per label). */
static void gather_view(const float *src, int n, const int64_t *sz, const int64_t *st, float *dst) {
    int64_t idx[2 * NNFX_MAX_RANK] = {0}, off = 0, total = 1;
    for (int a = 0; a < n; a++)
        total *= sz[a];
    for (int64_t i = 0; i < total; i++) {
        dst[i] = src[off];
        for (int a = n - 1; a >= 0; a--) {
            off += st[a];
            if (++idx[a] < sz[a]) break;
            off -= st[a] * idx[a];
            idx[a] = 0;
        }
    }
}

/* Whether labels lab[0..n) are the groups g[0], g[1], ... (g[k] of cnt[k]
 * labels) one after another. */
static bool labels_are(const int *lab, int n, int ng, const int *const *g, const int *cnt) {
    int j = 0;
    for (int k = 0; k < ng; k++)
        for (int i = 0; i < cnt[k]; i++, j++)
            if (j >= n || lab[j] != g[k][i]) return false;
    return j == n;
}

/* einsum_gemm's case when no operand needs a gather: A's labels are batch,
 * M, K (or batch, K, M: transposed), B's batch, K, N (or batch, N, K), the
 * output's batch, M, N; g holds the batch, M, N and K labels, cnt their
 * counts. One GEMM per batch entry straight on the tensors; false when the
 * labels are in another order. */
static bool einsum_gemm_direct(const ir_einsum *p, nnfx_tensor *const *in, nnfx_tensor *out, const int *const *g,
                               const int *cnt, int64_t B, int64_t M, int64_t N, int64_t K) {
    const int *ga[3] = {g[0], g[1], g[3]}, *gat[3] = {g[0], g[3], g[1]}, *gb[3] = {g[0], g[3], g[2]},
              *gbt[3] = {g[0], g[2], g[3]}, *go[3] = {g[0], g[1], g[2]};
    const int ca[3] = {cnt[0], cnt[1], cnt[3]}, cat[3] = {cnt[0], cnt[3], cnt[1]}, cb[3] = {cnt[0], cnt[3], cnt[2]},
              cbt[3] = {cnt[0], cnt[2], cnt[3]}, co[3] = {cnt[0], cnt[1], cnt[2]};
    bool ta = false, tb = false;
    if (B == 0 || M == 0 || N == 0 || K == 0) return false;
    if (!labels_are(p->lab[0], p->nlab[0], 3, ga, ca)) {
        if (!labels_are(p->lab[0], p->nlab[0], 3, gat, cat)) return false;
        ta = true;
    }
    if (!labels_are(p->lab[1], p->nlab[1], 3, gb, cb)) {
        if (!labels_are(p->lab[1], p->nlab[1], 3, gbt, cbt)) return false;
        tb = true;
    }
    if (!labels_are(p->out, p->nout, 3, go, co)) return false;
    const float *a = in[0]->data, *b = in[1]->data;
    float *c = out->data;
    for (int64_t i = 0; i < B; i++)
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M, (int)N,
                    (int)K, 1.0f, a + i * M * K, ta ? (int)M : (int)K, b + i * K * N, tb ? (int)K : (int)N, 0.0f,
                    c + i * M * N, (int)N);
    return true;
}

/* The matmul-like case (two float32 inputs, no diagonal, no broadcast
 * dims, every label in at least two of A, B, output): labels split into
 * batch (A, B, out), M (A, out), N (B, out) and K (A, B); A and B are
 * gathered into [batch, M, K] and [batch, K, N], one GEMM per batch entry
 * writes [batch, M, N], which is permuted into the output. Returns false
 * when the equation is not of that form (the generic loop runs instead). */
static bool einsum_gemm(const ir_einsum *p, nnfx_tensor *const *in, nnfx_tensor *out) {
    if (p->nin != 2 || in[0]->dtype != NNFX_F32 || in[1]->dtype != NNFX_F32 || out->dtype != NNFX_F32) return false;
    int where[256] = {0}; /* bit 1: in A, 2: in B, 4: in out */
    int64_t size[256] = {0}, sta[256] = {0}, stb[256] = {0};
    for (int i = 0; i < 2; i++) {
        int64_t st[NNFX_MAX_RANK];
        kern_strides(in[i]->rank, in[i]->shape, st);
        for (int j = 0; j < p->nlab[i]; j++) {
            int l = p->lab[i][j];
            if (where[l] & (1 << i)) return false;                   /* a diagonal */
            if (size[l] && size[l] != in[i]->shape[j]) return false; /* broadcast */
            where[l] |= 1 << i;
            size[l] = in[i]->shape[j];
            (i ? stb : sta)[l] = st[j];
        }
    }
    for (int j = 0; j < p->nout; j++)
        where[p->out[j]] |= 4;
    int bl[NNFX_MAX_RANK], ml[NNFX_MAX_RANK], nl[NNFX_MAX_RANK], kl[NNFX_MAX_RANK], nb = 0, nm = 0, nn = 0, nk = 0;
    int64_t B = 1, M = 1, N = 1, K = 1;
    for (int l = 0; l < 256; l++)
        if (where[l] && where[l] != 7 && where[l] != 5 && where[l] != 6 && where[l] != 3)
            return false; /* summed over one input only: the generic loop */
    /* batch, M and N labels in the output's order, K labels in A's */
    for (int j = 0; j < p->nout; j++) {
        int l = p->out[j];
        if (where[l] == 7)
            bl[nb++] = l, B *= size[l];
        else if (where[l] == 5)
            ml[nm++] = l, M *= size[l];
        else
            nl[nn++] = l, N *= size[l];
    }
    for (int j = 0; j < p->nlab[0]; j++)
        if (where[p->lab[0][j]] == 3) kl[nk++] = p->lab[0][j], K *= size[p->lab[0][j]];
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX) return false;
    if (einsum_gemm_direct(p, in, out, (const int *const[4]){bl, ml, nl, kl}, (const int[4]){nb, nm, nn, nk}, B, M, N,
                           K))
        return true;
    float *a = malloc(sizeof *a * (size_t)(B * M * K + 1)), *b = malloc(sizeof *b * (size_t)(B * K * N + 1));
    float *c = malloc(sizeof *c * (size_t)(B * M * N + 1));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return false;
    }
    int64_t sz[2 * NNFX_MAX_RANK], st[2 * NNFX_MAX_RANK];
    int k = 0;
    for (int i = 0; i < nb; i++, k++)
        sz[k] = size[bl[i]], st[k] = sta[bl[i]];
    for (int i = 0; i < nm; i++, k++)
        sz[k] = size[ml[i]], st[k] = sta[ml[i]];
    for (int i = 0; i < nk; i++, k++)
        sz[k] = size[kl[i]], st[k] = sta[kl[i]];
    gather_view(in[0]->data, k, sz, st, a);
    k = 0;
    for (int i = 0; i < nb; i++, k++)
        sz[k] = size[bl[i]], st[k] = stb[bl[i]];
    for (int i = 0; i < nk; i++, k++)
        sz[k] = size[kl[i]], st[k] = stb[kl[i]];
    for (int i = 0; i < nn; i++, k++)
        sz[k] = size[nl[i]], st[k] = stb[nl[i]];
    gather_view(in[1]->data, k, sz, st, b);
    for (int64_t i = 0; i < B; i++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, a + i * M * K, (int)K,
                    b + i * K * N, (int)N, 0.0f, c + i * M * N, (int)N);
    /* c is [batch..., M..., N...]: strides per label, then read in out's order */
    int64_t cst[256] = {0}, s = 1;
    for (int i = nn - 1; i >= 0; i--)
        cst[nl[i]] = s, s *= size[nl[i]];
    for (int i = nm - 1; i >= 0; i--)
        cst[ml[i]] = s, s *= size[ml[i]];
    for (int i = nb - 1; i >= 0; i--)
        cst[bl[i]] = s, s *= size[bl[i]];
    for (int j = 0; j < p->nout; j++)
        sz[j] = size[p->out[j]], st[j] = cst[p->out[j]];
    gather_view(c, p->nout, sz, st, out->data);
    free(a), free(b), free(c);
    return true;
}

bool kern_einsum_geometry(const ir_einsum *p, int nin, const int64_t *const *shapes, kern_einsum_geom *g) {
    bool seen[256] = {false};
    int64_t size[256];
    int all[KERN_EINSUM_MAX_LABELS];
    for (int i = 0; i < 256; i++)
        size[i] = 1;
    g->nin = nin, g->nall = 0;
    for (int j = 0; j < p->nout; j++) {
        all[g->nall++] = p->out[j];
        seen[p->out[j]] = true;
    }
    g->nouter = g->nall;
    for (int i = 0; i < nin; i++)
        for (int j = 0; j < p->nlab[i]; j++) {
            int l = p->lab[i][j];
            if (shapes[i][j] != 1) size[l] = shapes[i][j];
            if (!seen[l] && g->nall < KERN_EINSUM_MAX_LABELS) {
                seen[l] = true;
                all[g->nall++] = l;
            }
        }
    for (int a = 0; a < g->nall; a++)
        g->size[a] = size[all[a]];
    for (int i = 0; i < nin; i++) {
        int64_t st[NNFX_MAX_RANK], shp[NNFX_MAX_RANK];
        for (int j = 0; j < p->nlab[i]; j++)
            shp[j] = shapes[i][j];
        kern_strides(p->nlab[i], shp, st);
        for (int a = 0; a < g->nall; a++) {
            g->st[i][a] = 0;
            for (int j = 0; j < p->nlab[i]; j++)
                if (p->lab[i][j] == all[a]) {
                    if (shapes[i][j] != size[all[a]] && shapes[i][j] != 1) return false;
                    if (shapes[i][j] != 1) g->st[i][a] += st[j];
                }
        }
    }
    return true;
}

nnfx_status kern_einsum(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 1 || nin > IR_EINSUM_MAX_IN || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "einsum needs 1 to %d inputs", IR_EINSUM_MAX_IN);
    int ranks[IR_EINSUM_MAX_IN];
    bool f32 = out[0]->dtype == NNFX_F32;
    for (int i = 0; i < nin; i++) {
        if (!in[i]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "einsum input %d is missing", i);
        ranks[i] = in[i]->rank;
        f32 = f32 && in[i]->dtype == NNFX_F32;
    }
    ir_einsum p;
    char why[200];
    if (!ir_einsum_parse(nnfx_node_attr_string(n, "equation", ""), nin, ranks, &p, why, sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s", why);
    if (einsum_gemm(&p, in, out[0])) return NNFX_OK;
    const int64_t *shapes[IR_EINSUM_MAX_IN];
    for (int i = 0; i < nin; i++)
        shapes[i] = in[i]->shape;
    kern_einsum_geom g;
    if (!kern_einsum_geometry(&p, nin, shapes, &g))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "einsum label sizes differ");
    const int64_t total = nnfx_tensor_numel(out[0]);
    int tx[IR_EINSUM_MAX_IN], ty = kern_rt_tcode(out[0]->dtype);
    const unsigned char *xb[IR_EINSUM_MAX_IN];
    const float *x[IR_EINSUM_MAX_IN];
    long size[KERN_EINSUM_MAX_LABELS], st[IR_EINSUM_MAX_IN * KERN_EINSUM_MAX_LABELS];
    for (int i = 0; i < nin; i++) {
        x[i] = in[i]->data, xb[i] = in[i]->data;
        if ((tx[i] = kern_rt_tcode(in[i]->dtype)) < 0) ty = -1;
        for (int a = 0; a < g.nall; a++)
            st[i * g.nall + a] = (long)g.st[i][a];
    }
    if (ty < 0 || g.nall > 64) /* letters and an ellipsis's dims: at most 60 labels */
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "einsum of %s or of more than 64 labels is not supported",
                         nnfx_dtype_name(out[0]->dtype));
    for (int a = 0; a < g.nall; a++)
        size[a] = (long)g.size[a];
    /* generated C's loops: float32 read directly, other types through double */
    if (f32)
        nnfx_rt_einsum(nin, x, out[0]->data, (long)total, g.nall, g.nouter, size, st);
    else
        nnfx_rt_teinsum(nin, xb, tx, out[0]->data, ty, (long)total, g.nall, g.nouter, size, st);
    return NNFX_OK;
}
