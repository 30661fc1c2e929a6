/* cse.c — common-subexpression elimination: pure call_function nodes (and
 * get_attr reads) with the same op, arguments and attributes are merged
 * into the first one. One pass in graph order with a hash table; since
 * arguments are merged before their users, chains collapse in one pass. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"
#include "passes/passes_int.h"

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t attr_hash(const nnfx_attr *a) {
    uint64_t h = hash_bytes(a->name, strlen(a->name)) ^ (uint64_t)a->kind;
    switch (a->kind) {
    case NNFX_ATTR_INT: return mix(h, (uint64_t)a->u.i);
    case NNFX_ATTR_FLOAT: return mix(h, hash_bytes(&a->u.f, sizeof a->u.f));
    case NNFX_ATTR_STRING: return mix(h, hash_bytes(a->u.s, strlen(a->u.s)));
    case NNFX_ATTR_INTS: return mix(h, hash_bytes(a->u.ints.v, sizeof(int64_t) * (size_t)a->u.ints.n));
    case NNFX_ATTR_FLOATS: return mix(h, hash_bytes(a->u.floats.v, sizeof(float) * (size_t)a->u.floats.n));
    case NNFX_ATTR_TENSOR: return mix(h, (uint64_t)(uintptr_t)a->u.t);
    case NNFX_ATTR_GRAPH: return mix(h, (uint64_t)(uintptr_t)a->u.g);
    }
    return h;
}

static uint64_t node_hash(const nnfx_node *n) {
    uint64_t h = mix((uint64_t)n->opcode, (uint64_t)n->op);
    if (n->opcode == NNFX_GET_ATTR) return mix(h, hash_bytes(n->target, strlen(n->target)));
    h = mix(h, (uint64_t)n->nargs);
    for (int i = 0; i < n->nargs; i++) {
        const nnfx_arg *a = &n->args[i];
        h = mix(h, (uint64_t)a->kind);
        if (a->kind == NNFX_ARG_NODE)
            h = mix(h, (uint64_t)(uintptr_t)a->u.node);
        else if (a->kind == NNFX_ARG_INT)
            h = mix(h, (uint64_t)a->u.i);
        else if (a->kind == NNFX_ARG_FLOAT)
            h = mix(h, hash_bytes(&a->u.f, sizeof a->u.f));
    }
    uint64_t ah = 0; /* order-independent over attributes */
    for (int i = 0; i < n->nattrs; i++)
        ah += attr_hash(&n->attrs[i]);
    return mix(h, ah);
}

static bool attr_equal(const nnfx_attr *a, const nnfx_attr *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case NNFX_ATTR_INT: return a->u.i == b->u.i;
    case NNFX_ATTR_FLOAT: return a->u.f == b->u.f;
    case NNFX_ATTR_STRING: return strcmp(a->u.s, b->u.s) == 0;
    case NNFX_ATTR_INTS:
        return a->u.ints.n == b->u.ints.n &&
               (!a->u.ints.n || !memcmp(a->u.ints.v, b->u.ints.v, sizeof(int64_t) * (size_t)a->u.ints.n));
    case NNFX_ATTR_FLOATS:
        return a->u.floats.n == b->u.floats.n &&
               (!a->u.floats.n || !memcmp(a->u.floats.v, b->u.floats.v, sizeof(float) * (size_t)a->u.floats.n));
    case NNFX_ATTR_TENSOR: return a->u.t == b->u.t;
    case NNFX_ATTR_GRAPH: return a->u.g == b->u.g; /* each node owns its bodies: never merged */
    }
    return false;
}

static bool node_equal(const nnfx_node *a, const nnfx_node *b) {
    if (a->opcode != b->opcode || a->op != b->op || a->nout != b->nout) return false;
    if (a->opcode == NNFX_GET_ATTR) return strcmp(a->target, b->target) == 0;
    if (a->nargs != b->nargs || a->nattrs != b->nattrs) return false;
    for (int i = 0; i < a->nargs; i++) {
        const nnfx_arg *x = &a->args[i], *y = &b->args[i];
        if (x->kind != y->kind) return false;
        if (x->kind == NNFX_ARG_NODE && x->u.node != y->u.node) return false;
        if (x->kind == NNFX_ARG_INT && x->u.i != y->u.i) return false;
        if (x->kind == NNFX_ARG_FLOAT && x->u.f != y->u.f) return false;
    }
    for (int i = 0; i < a->nattrs; i++) {
        const nnfx_attr *y = nnfx_node_attr(b, a->attrs[i].name);
        if (!y || !attr_equal(&a->attrs[i], y)) return false;
    }
    return true;
}

static bool candidate(const nnfx_node *n) {
    if (n->opcode == NNFX_GET_ATTR) return true;
    return n->opcode == NNFX_CALL_FUNCTION && !(nnfx_op_flags(n->op) & NNFX_F_IMPURE) &&
           n->op != NNFX_OP_DROPOUT; /* random in training mode: never merged */
}

nnfx_status nnfx_pass_cse(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err) {
    if (!g) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "cse: NULL graph");
    ps_begin(report, "cse", g);
    size_t cap = 64;
    while (cap < (size_t)nnfx_graph_num_nodes(g) * 2)
        cap *= 2;
    nnfx_node **tab = calloc(cap, sizeof *tab);
    uint64_t *hs = calloc(cap, sizeof *hs);
    if (!tab || !hs) {
        free(tab);
        free(hs);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    nnfx_status st = NNFX_OK;
    for (nnfx_node *n = nnfx_graph_first(g), *next; n && !st; n = next) {
        next = n->next;
        if (!candidate(n)) continue;
        uint64_t h = node_hash(n);
        size_t j = (size_t)h & (cap - 1);
        nnfx_node *same = NULL;
        while (tab[j]) {
            if (hs[j] == h && node_equal(tab[j], n)) {
                same = tab[j];
                break;
            }
            j = (j + 1) & (cap - 1);
        }
        if (!same) {
            tab[j] = n;
            hs[j] = h;
            continue;
        }
        if (nnfx_replace_all_uses_with(n, same, NULL, NULL) < 0) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            break;
        }
        if (!(st = nnfx_erase_node(g, n, err)) && report) report->changed++;
    }
    free(tab);
    free(hs);
    ps_end(report, g);
    return st;
}
