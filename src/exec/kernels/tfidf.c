/* tfidf.c — TfIdfVectorizer over integer tokens: counts the pool's n-grams
 * (min_gram_length..max_gram_length items, taken every skip + 1 tokens for
 * skip 0..max_skip_count; unigrams once) in each row and writes, per
 * output index ngram_indexes[g], the count (TF), the n-gram's weight when
 * it occurs (IDF) or their product (TFIDF). String pools and inputs are not
 * supported (nnfx has no string tensors). The loop is
 * src/rt/nnfx_rt_indexed.h's, which generated C runs too. */
#include <stdlib.h>
#include <string.h>

#include "rt/nnfx_rt_indexed.h"
#include "exec/kernels/kernels_int.h"

nnfx_status kern_tfidf(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                       nnfx_error *err) {
    if (nin < 1 || !in[0] || nout < 1 || !out[0]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "tfidf needs X");
    const nnfx_tensor *x = in[0];
    nnfx_tensor *y = out[0];
    const nnfx_attr *cnts = nnfx_node_attr(n, "ngram_counts"), *idx = nnfx_node_attr(n, "ngram_indexes"),
                    *pool = nnfx_node_attr(n, "pool_int64s"), *wts = nnfx_node_attr(n, "weights");
    if (x->dtype != NNFX_I32 && x->dtype != NNFX_I64)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "tfidf takes int32 or int64 tokens");
    if (!cnts || !idx || !pool || cnts->kind != NNFX_ATTR_INTS || idx->kind != NNFX_ATTR_INTS ||
        pool->kind != NNFX_ATTR_INTS)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "tfidf needs ngram_counts, ngram_indexes and pool_int64s");
    int64_t mn = nnfx_node_attr_int(n, "min_gram_length", 1), mx = nnfx_node_attr_int(n, "max_gram_length", 1);
    int64_t skips = nnfx_node_attr_int(n, "max_skip_count", 0);
    const char *mode = nnfx_node_attr_string(n, "mode", "TF");
    int m = strcmp(mode, "TF") == 0 ? 0 : strcmp(mode, "IDF") == 0 ? 1 : strcmp(mode, "TFIDF") == 0 ? 2 : -1;
    if (m < 0 || mn < 1 || mx < mn || skips < 0)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "tfidf mode '%s' or gram lengths %lld..%lld are not valid", mode,
                         (long long)mn, (long long)mx);
    int64_t rows = x->rank == 2 ? x->shape[0] : 1, C = x->rank == 2 ? x->shape[1] : x->rank == 1 ? x->shape[0] : 0;
    if (y->dtype != NNFX_F32) return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "tfidf writes float32");
    const int nc = cnts->u.ints.n, ni = idx->u.ints.n, np = pool->u.ints.n;
    long *l = malloc(sizeof *l * (size_t)(nc + ni + np + 1));
    if (!l) return kern_fail(err, n, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; i < nc; i++)
        l[i] = (long)cnts->u.ints.v[i];
    for (int i = 0; i < ni; i++)
        l[nc + i] = (long)idx->u.ints.v[i];
    for (int i = 0; i < np; i++)
        l[nc + ni + i] = (long)pool->u.ints.v[i];
    const bool w = wts && wts->kind == NNFX_ATTR_FLOATS;
    const int bad = nnfx_rt_tfidf(
        x->data, x->dtype == NNFX_I64 ? 1 : 2, (long)rows, (long)C, y->data, (long)y->shape[y->rank - 1], l, nc, l + nc,
        ni, l + nc + ni, np, w ? wts->u.floats.v : NULL, w ? wts->u.floats.n : 0, (long)mn, (long)mx, (long)skips, m);
    free(l);
    if (bad)
        return kern_fail(err, n, NNFX_ERR_SHAPE, "tfidf %s",
                         bad == 1   ? "ngram_counts do not fit the pool"
                         : bad == 2 ? "ngram_indexes is too short"
                                    : "output index out of range");
    return NNFX_OK;
}
