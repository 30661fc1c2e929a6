/* tfidf.c — TfIdfVectorizer over integer tokens: counts the pool's n-grams
 * (min_gram_length..max_gram_length items, taken every skip + 1 tokens for
 * skip 0..max_skip_count; unigrams once) in each row and writes, per
 * output index ngram_indexes[g], the count (TF), the n-gram's weight when
 * it occurs (IDF) or their product (TFIDF). String pools and inputs are not
 * supported (nnfx has no string tensors). */
#include <stdlib.h>
#include <string.h>

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
    int64_t Cout = y->shape[y->rank - 1], npool = pool->u.ints.n;
    memset(y->data, 0, y->nbytes);
    for (int64_t r = 0; r < rows; r++) {
        int64_t ordinal = 0; /* index of the first n-gram of the current length */
        for (int64_t len = 1; len <= cnts->u.ints.n && len <= mx; len++) {
            int64_t lo = cnts->u.ints.v[len - 1], hi = len < cnts->u.ints.n ? cnts->u.ints.v[len] : npool;
            if (lo < 0 || hi > npool || hi < lo || (hi - lo) % len)
                return kern_fail(err, n, NNFX_ERR_SHAPE, "tfidf ngram_counts do not fit the pool");
            int64_t ngrams = (hi - lo) / len;
            for (int64_t skip = 0; len >= mn && skip <= skips && !(len == 1 && skip > 0); skip++) {
                int64_t step = skip + 1;
                for (int64_t s = 0; s + (len - 1) * step < C; s++)
                    for (int64_t g = 0; g < ngrams; g++) {
                        bool same = true;
                        for (int64_t k = 0; k < len && same; k++)
                            same =
                                (int64_t)nnfx_tensor_get(x, r * C + s + k * step) == pool->u.ints.v[lo + g * len + k];
                        if (!same) continue;
                        if (ordinal + g >= idx->u.ints.n)
                            return kern_fail(err, n, NNFX_ERR_SHAPE, "tfidf ngram_indexes is too short");
                        int64_t o = idx->u.ints.v[ordinal + g];
                        if (o < 0 || o >= Cout)
                            return kern_fail(err, n, NNFX_ERR_SHAPE, "tfidf output index out of range");
                        kern_set(y, r * Cout + o, nnfx_tensor_get(y, r * Cout + o) + 1);
                    }
            }
            ordinal += ngrams;
        }
        if (m == 0) continue;
        for (int64_t g = 0; g < idx->u.ints.n; g++) { /* IDF / TFIDF: weigh each n-gram's count */
            int64_t o = idx->u.ints.v[g];
            if (o < 0 || o >= Cout) continue;
            double w = wts && wts->kind == NNFX_ATTR_FLOATS && g < wts->u.floats.n ? wts->u.floats.v[g] : 1.0;
            double c = nnfx_tensor_get(y, r * Cout + o);
            kern_set(y, r * Cout + o, m == 1 ? (c > 0 ? w : 0) : c * w);
        }
    }
    return NNFX_OK;
}
