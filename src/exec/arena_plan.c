/* arena_plan.c — greedy-by-size arena offsets with an interval query (see
 * arena_plan.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/arena_plan.h"

static int64_t rounded(int64_t bytes) { return (bytes + FX_ARENA_ALIGN - 1) / FX_ARENA_ALIGN * FX_ARENA_ALIGN; }

typedef struct key {
    int64_t k;
    int idx;
} key;

/* Sorts a[0..n) by k ascending, keeping the order of equal keys (LSD radix,
 * 8-bit digits; passes where every key has the same digit are skipped).
 * tmp holds n keys. Keys must be >= 0. */
static void radix_sort(key *a, key *tmp, int n) {
    int cnt[256];
    for (int shift = 0; shift < 64; shift += 8) {
        memset(cnt, 0, sizeof cnt);
        for (int i = 0; i < n; i++)
            cnt[(a[i].k >> shift) & 0xff]++;
        if (cnt[(a[0].k >> shift) & 0xff] == n) continue;
        for (int d = 0, sum = 0; d < 256; d++) {
            int c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int i = 0; i < n; i++)
            tmp[cnt[(a[i].k >> shift) & 0xff]++] = a[i];
        memcpy(a, tmp, sizeof *a * (size_t)n);
    }
}

/* Sorts a few keys by k ascending, then idx (insertion sort: the values
 * live at one time are few). */
static void small_sort(key *a, int n) {
    for (int i = 1; i < n; i++) {
        key x = a[i];
        int j = i - 1;
        while (j >= 0 && (a[j].k > x.k || (a[j].k == x.k && a[j].idx > x.idx))) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

/* key order for larger conflict sets */
static int cmp_asc(const void *a, const void *b) {
    const key *x = a, *y = b;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Max-tree over the blocks sorted by def: leaf i holds the `last` of the
 * i-th block when it is placed, INT_MIN before. */
typedef struct tree {
    int size; /* leaves, a power of two */
    int *max;
} tree;

/* Appends to out the blocks (sorted positions < lim) whose leaf value is
 * >= lo, visiting only subtrees that hold one. */
static void collect(const tree *t, int node, int l, int r, int lim, int lo, int *out, int *nout) {
    if (l >= lim || t->max[node] < lo) return;
    if (r - l == 1) {
        out[(*nout)++] = l;
        return;
    }
    int m = (l + r) / 2;
    collect(t, 2 * node, l, m, lim, lo, out, nout);
    collect(t, 2 * node + 1, m, r, lim, lo, out, nout);
}

/* Leaf pos (INT_MIN so far) becomes v: raises the maxima above it. */
static void tree_set(tree *t, int pos, int v) {
    for (int i = pos + t->size; i >= 1 && t->max[i] < v; i /= 2)
        t->max[i] = v;
}

int64_t fx_arena_assign(fx_block *b, int n, nnfx_error *err) {
    if (n <= 0) return 0;
    tree t = {1, NULL};
    while (t.size < n)
        t.size *= 2;
    key *order = malloc(sizeof *order * (size_t)n);
    key *bydef = malloc(sizeof *bydef * (size_t)n);
    int *pos = malloc(sizeof *pos * (size_t)n); /* block -> position in bydef */
    int *found = malloc(sizeof *found * (size_t)n);
    key *conf = malloc(sizeof *conf * (size_t)n); /* conflicts, by offset */
    t.max = malloc(sizeof *t.max * (size_t)(2 * t.size));
    if (!order || !bydef || !pos || !found || !conf || !t.max) {
        free(order), free(bydef), free(pos), free(found), free(conf), free(t.max);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory planning activations");
        return -1;
    }
    for (int i = 0; i < 2 * t.size; i++)
        t.max[i] = INT_MIN;
    /* by size descending (ties: index ascending), by def ascending */
    for (int i = 0; i < n; i++) {
        order[i] = (key){INT64_MAX - (b[i].bytes > 0 ? b[i].bytes : 0), i};
        bydef[i] = (key){b[i].def > 0 ? b[i].def : 0, i};
    }
    radix_sort(order, conf, n);
    radix_sort(bydef, conf, n);
    for (int i = 0; i < n; i++)
        pos[bydef[i].idx] = i;
    int64_t top = 0;
    for (int i = 0; i < n; i++) {
        fx_block *v = &b[order[i].idx];
        int64_t sz = rounded(v->bytes);
        /* placed blocks with def <= v->last (a prefix of bydef) and
         * last >= v->def: the lifetimes meet */
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (bydef[mid].k <= v->last)
                lo = mid + 1;
            else
                hi = mid;
        }
        int nf = 0;
        collect(&t, 1, 0, t.size, lo, v->def, found, &nf);
        for (int j = 0; j < nf; j++) {
            int o = bydef[found[j]].idx;
            conf[j] = (key){b[o].off, o};
        }
        if (nf <= 32)
            small_sort(conf, nf);
        else
            qsort(conf, (size_t)nf, sizeof *conf, cmp_asc);
        /* first fit: the lowest offset below, between or above them */
        int64_t off = 0;
        for (int j = 0; j < nf; j++) {
            if (off + sz <= conf[j].k) break;
            int64_t end = conf[j].k + rounded(b[conf[j].idx].bytes);
            if (end > off) off = end;
        }
        v->off = off;
        if (off + sz > top) top = off + sz;
        tree_set(&t, pos[order[i].idx], v->last);
    }
    free(order), free(bydef), free(pos), free(found), free(conf), free(t.max);
    return top;
}
