/* graph.c — graph lifetime, unique names, the insert point and node creation. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

const char *nnfx_opcode_name(nnfx_opcode oc) {
    switch (oc) {
    case NNFX_PLACEHOLDER: return "placeholder";
    case NNFX_GET_ATTR: return "get_attr";
    case NNFX_CALL_FUNCTION: return "call_function";
    case NNFX_CALL_MODULE: return "call_module";
    case NNFX_OUTPUT: return "output";
    }
    return "?";
}

nnfx_graph *nnfx_graph_new(void) {
    nnfx_graph *g = calloc(1, sizeof(nnfx_graph));
    if (!g) return NULL;
    g->param_epoch = 1;
    /* an empty list is in order, and link_before keeps it so while nodes
     * are added (a trace appends every node): the first recompile of a
     * large graph then needs no renumbering walk */
    g->orders_valid = true;
    return g;
}

void ir_graph_touch(nnfx_graph *g) {
    if (g) g->version++;
}

static void names_free(ir_names *m);
static void param_index_free(ir_param_index *x);
static size_t scratch_bytes(size_t n);

/* Returns a node and everything it owns to the graph's arena. */
/* True for the kinds of node dead-code elimination may erase when unused
 * (placeholders, call_module and the output node are always kept). */
static bool removable_kind(const nnfx_node *n) { return n->opcode == NNFX_GET_ATTR || n->opcode == NNFX_CALL_FUNCTION; }

static void node_free(nnfx_graph *g, nnfx_node *n) {
    ir_arena *a = &g->arena;
    if (n->nusers == 0 && removable_kind(n)) g->unused_removable--;
    ir_graph_free_str(g, n->name);
    ir_sstr_put(g, n->target);
    ir_arena_free(&g->hot, n->args, sizeof *n->args * (size_t)n->nargs);
    for (int i = 0; i < n->nattrs; i++)
        ir_node_attr_free(g, &n->attrs[i]);
    ir_arena_free(a, n->attrs, sizeof *n->attrs * (size_t)n->nattrs);
    ir_arena_free(&g->hot, n->users, sizeof *n->users * (size_t)n->cap_users);
    ir_arena_free(a, n->meta, sizeof *n->meta * (size_t)n->nout);
    ir_sstr_put(g, n->module_path);
    ir_sstr_put(g, n->src_file);
    ir_arena_free(&g->nodes, n, sizeof *n);
}

void nnfx_graph_free(nnfx_graph *g) {
    if (!g) return;
    /* the arena holds every node; only tensor and graph attributes hold references */
    for (nnfx_node *n = g->head; n; n = n->next)
        for (int i = 0; i < n->nattrs; i++) {
            if (n->attrs[i].kind == NNFX_ATTR_TENSOR) nnfx_tensor_release(n->attrs[i].u.t);
            if (n->attrs[i].kind == NNFX_ATTR_GRAPH) nnfx_graph_free(n->attrs[i].u.g);
        }
    ir_big_free(g->order, g->order_bytes);
    ir_arena_release(&g->arena);
    ir_arena_release(&g->hot);
    ir_arena_release(&g->nodes);
    names_free(&g->names);
    ir_strmap_free(&g->name_counters);
    for (int i = 0; i < g->ncounter_keys; i++)
        free(g->counter_keys[i]);
    free(g->counter_keys);
    param_index_free(&g->param_index);
    for (int i = 0; i < g->nparams; i++)
        nnfx_tensor_release(g->params[i].t); /* names: arena */
    ir_big_free(g->params, sizeof *g->params * (size_t)g->cap_params);
    for (int i = 0; i < g->nleaves; i++)
        free(g->leaves[i].name);
    free(g->leaves);
    if (g->model_info && g->model_info_free) g->model_info_free(g->model_info);
    free(g);
}

size_t nnfx_release_cached_memory(void) { return ir_big_trim(); }

/* --- names --------------------------------------------------------------------- */

nnfx_node *ir_names_get(const ir_names *m, const char *name, uint64_t hash) {
    if (!m->cap || !name) return NULL;
    size_t mask = m->cap - 1, i = (size_t)hash & mask;
    for (;;) {
        const ir_name_slot *s = &m->slots[i];
        if (!s->node) return NULL;
        if (s->hash == hash && s->node != IR_NAME_TOMB && (s->node->name == name || strcmp(s->node->name, name) == 0))
            return s->node;
        i = (i + 1) & mask;
    }
}

/* Doubles the table (or rehashes it in place when mostly deleted); false
 * on OOM. */
static bool names_grow(ir_names *m) {
    size_t ncap = ir_hash_grow_cap(m->count, m->cap);
    ir_name_slot *ns = ir_big_alloc(ncap * sizeof *ns, true);
    if (!ns) return false;
    for (size_t i = 0; i < m->cap; i++) {
        const ir_name_slot *s = &m->slots[i];
        if (!s->node || s->node == IR_NAME_TOMB) continue;
        size_t j = (size_t)s->hash & (ncap - 1);
        while (ns[j].node)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    ir_big_free(m->slots, m->cap * sizeof *m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = m->count;
    return true;
}

/* Enters n under n->name (hash n->name_hash), replacing a node of the
 * same name; false on OOM. */
static bool names_put(ir_names *m, nnfx_node *n) {
    if ((m->used + 1) * 2 > m->cap && !names_grow(m)) return false;
    size_t mask = m->cap - 1, i = (size_t)n->name_hash & mask;
    ir_name_slot *tomb = NULL;
    for (;;) {
        ir_name_slot *s = &m->slots[i];
        if (!s->node) break;
        if (s->node == IR_NAME_TOMB) {
            if (!tomb) tomb = s;
        } else if (s->hash == n->name_hash && strcmp(s->node->name, n->name) == 0) {
            s->node = n;
            return true;
        }
        i = (i + 1) & mask;
    }
    ir_name_slot *s = tomb ? tomb : &m->slots[i];
    if (!tomb) m->used++;
    s->node = n;
    s->hash = n->name_hash;
    m->count++;
    return true;
}

void ir_names_del(ir_names *m, const nnfx_node *n) {
    if (!m->cap) return;
    size_t mask = m->cap - 1, i = (size_t)n->name_hash & mask;
    for (;;) {
        ir_name_slot *s = &m->slots[i];
        if (!s->node) return;
        if (s->node == n) {
            s->node = IR_NAME_TOMB;
            m->count--;
            return;
        }
        i = (i + 1) & mask;
    }
}

static void names_free(ir_names *m) {
    ir_big_free(m->slots, m->cap * sizeof *m->slots);
    memset(m, 0, sizeof *m);
}

/* c itself for an identifier character ([A-Za-z0-9_]), '_' for any other. */
/* clang-format off */
static const char ident_map[256] = {
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '_', '_', '_', '_', '_', '_',
    '_', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
    'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', '_', '_', '_', '_', '_',
    '_', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
    'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
    '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_', '_',
};
/* clang-format on */

/* Turns s into an identifier ([A-Za-z_][A-Za-z0-9_]*) in buf; its length. */
static size_t sanitize_name(const char *s, char *buf, size_t len) {
    size_t o = 0;
    if (!s || !*s) s = "node";
    if (*s >= '0' && *s <= '9') buf[o++] = '_';
    char *d = buf + o;
    size_t n = 0, max = len - 1 - o;
    for (unsigned char c; n < max && (c = (unsigned char)s[n]) != 0; n++)
        d[n] = ident_map[c];
    d[n] = 0;
    return o + n;
}

/* Copy of the n bytes at s plus a NUL in g's arena. */
static char *arena_strndup(nnfx_graph *g, const char *s, size_t n) {
    char *d = ir_arena_alloc(&g->arena, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* A name not used in g, derived from base: base, base_1, base_2, ...
 * (in g's arena; *hash receives its ir_strmap_hash). */
/* Room for a base name of up to FRESH_BASE_MAX - 1 bytes plus "_" and a
 * number. */
#define FRESH_BASE_MAX 200
#define FRESH_BUF      240

/* Name tables of at least this many slots (16 bytes each) outgrow the
 * caches: lookups that will come soon are prefetched. */
#define NAMES_PREFETCH_MIN ((size_t)1 << 17)

/* Writes "_" and decimal k after the bl-byte base in buf (snprintf is slow
 * on this hot path); returns the new length. */
static size_t put_suffix(char *buf, size_t bl, intptr_t k) {
    int nd = 1;
    for (intptr_t v = k; v >= 10; v /= 10)
        nd++;
    buf[bl] = '_';
    for (intptr_t v = k, i = nd; i > 0; v /= 10)
        buf[bl + (size_t)i--] = (char)('0' + v % 10);
    buf[bl + 1 + nd] = 0;
    return bl + 1 + (size_t)nd;
}

/* fresh_name from a base that is an identifier already: buf holds it (bl
 * bytes and a NUL, in FRESH_BUF bytes), bh is its hash. In a large graph
 * the slot of the name the next node of the same base will get (base_k+1,
 * a random address in the table) is prefetched: a trace creates such a
 * node a few nodes later. */
static char *fresh_name_from(nnfx_graph *g, char *buf, size_t bl, uint64_t bh, uint64_t *hash) {
    const char *base = buf;
    if (!ir_names_get(&g->names, base, bh)) {
        *hash = bh;
        return arena_strndup(g, base, bl);
    }
    void **counter = ir_strmap_value_h(&g->name_counters, base, bh);
    intptr_t next = counter ? (intptr_t)*counter : 0;
    for (intptr_t k = next ? next : 1;; k++) {
        size_t len = put_suffix(buf, bl, k); /* buf = base + "_" + decimal k */
        uint64_t h = ir_strmap_hash_n(buf, len);
        if (!ir_names_get(&g->names, buf, h)) {
            if (!next) {
                if (g->ncounter_keys == g->cap_counter_keys) {
                    int nc = g->cap_counter_keys ? g->cap_counter_keys * 2 : 16;
                    char **nk = realloc(g->counter_keys, sizeof *nk * (size_t)nc);
                    if (!nk) return NULL;
                    g->counter_keys = nk;
                    g->cap_counter_keys = nc;
                }
                char *key = malloc(bl + 1); /* the base alone: buf holds base + "_" + k now */
                if (!key) return NULL;
                memcpy(key, base, bl);
                key[bl] = 0;
                g->counter_keys[g->ncounter_keys++] = key;
                if (!ir_strmap_put_h(&g->name_counters, key, bh, (void *)(k + 1))) return NULL;
            } else {
                *counter = (void *)(k + 1); /* the key stays owned by counter_keys */
            }
            *hash = h;
            char *name = arena_strndup(g, buf, len);
            if (g->names.cap >= NAMES_PREFETCH_MIN)
                ir_names_prefetch(&g->names, ir_strmap_hash_n(buf, put_suffix(buf, bl, k + 1)));
            return name;
        }
    }
}

static char *fresh_name(nnfx_graph *g, const char *base_in, uint64_t *hash) {
    char buf[FRESH_BUF];
    size_t bl = sanitize_name(base_in, buf, FRESH_BASE_MAX);
    return fresh_name_from(g, buf, bl, ir_strmap_hash_n(buf, bl), hash);
}

/* Each op's name made an identifier, with its length and hash: the base
 * names of call_function nodes, sanitized and hashed once per process
 * (the op table never changes). */
typedef struct op_base_name {
    char text[48];
    size_t len; /* 0: too long for text; sanitize the op name per node */
    uint64_t hash;
} op_base_name;
static op_base_name op_base_names[NNFX_OP_COUNT];
static pthread_once_t op_base_once = PTHREAD_ONCE_INIT;

static void op_base_names_init(void) {
    for (int op = 1; op < NNFX_OP_COUNT; op++) {
        op_base_name *b = &op_base_names[op];
        const char *name = ir_op_info((nnfx_op)op)->name;
        if (strlen(name) + 2 > sizeof b->text) continue; /* room for a leading '_' */
        b->len = sanitize_name(name, b->text, sizeof b->text);
        b->hash = ir_strmap_hash_n(b->text, b->len);
    }
}

/* fresh_name(g, the name of op, hash), without sanitizing and hashing the
 * op's name each time. */
static char *fresh_op_name(nnfx_graph *g, nnfx_op op, uint64_t *hash) {
    pthread_once(&op_base_once, op_base_names_init);
    const op_base_name *b = &op_base_names[op];
    if (!b->len) return fresh_name(g, ir_op_info(op)->name, hash);
    char buf[FRESH_BUF];
    memcpy(buf, b->text, b->len + 1);
    return fresh_name_from(g, buf, b->len, b->hash, hash);
}

nnfx_status nnfx_node_set_name(nnfx_node *n, const char *name, nnfx_error *err) {
    if (!n || !name) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_name: NULL node or name");
    nnfx_graph *g = n->graph;
    if (strcmp(n->name, name) == 0) return NNFX_OK;
    ir_names_del(&g->names, n);
    uint64_t h;
    char *nn = fresh_name(g, name, &h);
    if (!nn) {
        names_put(&g->names, n); /* back under its old name (best effort, as before) */
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    ir_graph_free_str(g, n->name);
    n->name = nn;
    n->name_hash = h;
    if (!names_put(&g->names, n)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    return NNFX_OK;
}

/* --- users --------------------------------------------------------------------- */

bool ir_add_user(nnfx_node *n, nnfx_node *u) {
    for (int i = 0; i < n->nusers; i++)
        if (n->users[i] == u) return true;
    if (n->nusers == n->cap_users) {
        int nc = n->cap_users ? n->cap_users * 2 : 2;
        ir_arena *a = &n->graph->hot;
        nnfx_node **nu = ir_arena_alloc(a, sizeof *nu * (size_t)nc);
        if (!nu) return false;
        if (n->nusers) memcpy(nu, n->users, sizeof *nu * (size_t)n->nusers);
        ir_arena_free(a, n->users, sizeof *nu * (size_t)n->cap_users);
        n->users = nu;
        n->cap_users = nc;
    }
    if (n->nusers == 0 && removable_kind(n)) n->graph->unused_removable--;
    n->users[n->nusers++] = u;
    return true;
}

void ir_drop_user_if_unused(nnfx_node *n, nnfx_node *u) {
    for (int i = 0; i < u->nargs; i++)
        if (u->args[i].kind == NNFX_ARG_NODE && u->args[i].u.node == n) return;
    for (int i = 0; i < n->nusers; i++) {
        if (n->users[i] == u) {
            memmove(&n->users[i], &n->users[i + 1], sizeof *n->users * (size_t)(n->nusers - i - 1));
            if (--n->nusers == 0 && removable_kind(n)) n->graph->unused_removable++;
            return;
        }
    }
}

/* --- list placement ----------------------------------------------------------- */

static void link_before(nnfx_graph *g, nnfx_node *n, nnfx_node *ref) {
    n->next = ref;
    n->prev = ref ? ref->prev : g->tail;
    if (n->prev)
        n->prev->next = n;
    else
        g->head = n;
    if (ref)
        ref->prev = n;
    else
        g->tail = n;
    g->num_nodes++;
    g->order_valid = false;
    if (n->prev && n->next && n->next->order - n->prev->order > 1) {
        n->order = n->prev->order + (n->next->order - n->prev->order) / 2;
    } else if (!n->next) {
        n->order = n->prev ? n->prev->order + 1024 : 1024;
        if (n->prev && n->order <= n->prev->order) g->orders_valid = false;
    } else if (!n->prev) {
        n->order = n->next->order / 2;
        if (n->order == 0 || n->order >= n->next->order) g->orders_valid = false;
    } else {
        g->orders_valid = false;
    }
}

static void unlink_node(nnfx_graph *g, nnfx_node *n) {
    if (n->prev)
        n->prev->next = n->next;
    else
        g->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->tail = n->prev;
    n->prev = n->next = NULL;
    g->num_nodes--;
    g->order_valid = false;
}

nnfx_node *const *ir_graph_order(nnfx_graph *g) {
    if (g->num_nodes < IR_ORDER_MIN_NODES) return NULL;
    if (g->order_valid) return g->order;
    size_t need = sizeof *g->order * (size_t)g->num_nodes;
    if (need > g->order_bytes) {
        ir_big_free(g->order, g->order_bytes);
        g->order_bytes = scratch_bytes(need);
        g->order = ir_big_alloc(g->order_bytes, false);
        if (!g->order) {
            g->order_bytes = 0;
            return NULL;
        }
    }
    int i = 0;
    for (nnfx_node *n = g->head; n && i < g->num_nodes; n = n->next) {
        ir_node_prefetch(n, 16);
        g->order[i++] = n;
    }
    g->order_valid = i == g->num_nodes && !g->order[i - 1]->next; /* else a broken list: walk it */
    return g->order_valid ? g->order : NULL;
}

void ir_graph_renumber(nnfx_graph *g) {
    if (g->orders_valid) return;
    uint32_t k = 1024;
    for (nnfx_node *n = g->head; n; n = n->next, k += 1024) {
        ir_node_prefetch(n, 16);
        n->order = k;
    }
    g->orders_valid = true;
}

void nnfx_inserting_before(nnfx_graph *g, nnfx_node *n) {
    if (!g) return;
    g->insert_ref = n;
    g->insert_after = false;
}

void nnfx_inserting_after(nnfx_graph *g, nnfx_node *n) {
    if (!g) return;
    g->insert_ref = n;
    g->insert_after = true;
}

void nnfx_inserting_at_end(nnfx_graph *g) {
    if (!g) return;
    g->insert_ref = NULL;
    g->insert_after = false;
}

static nnfx_node *output_node_of(const nnfx_graph *g) {
    return g->tail && g->tail->opcode == NNFX_OUTPUT ? g->tail : NULL;
}

/* Places a new node at the insert point (creation order is kept both ways). */
static void place_node(nnfx_graph *g, nnfx_node *n) {
    if (n->opcode == NNFX_OUTPUT) {
        link_before(g, n, NULL);
    } else if (n->opcode == NNFX_PLACEHOLDER) {
        nnfx_node *ref = g->head;
        while (ref && ref->opcode == NNFX_PLACEHOLDER)
            ref = ref->next;
        link_before(g, n, ref);
    } else if (!g->insert_ref) {
        link_before(g, n, output_node_of(g));
    } else if (g->insert_after) {
        link_before(g, n, g->insert_ref->next);
        g->insert_ref = n; /* the next node goes after this one */
    } else {
        link_before(g, n, g->insert_ref);
    }
    ir_graph_touch(g);
}

/* --- creation ------------------------------------------------------------------- */

/* A new node named after base, or after op's name when base is NULL. */
static nnfx_node *node_alloc(nnfx_graph *g, nnfx_opcode oc, const char *base, nnfx_op op, int nout, nnfx_error *err) {
    nnfx_node *n = ir_arena_calloc(&g->nodes, sizeof *n);
    if (!n) goto oom;
    n->graph = g;
    n->opcode = oc;
    n->serial = ++g->last_serial;
    if (removable_kind(n)) g->unused_removable++; /* no users yet */
    n->nout = nout < 1 ? 1 : nout;
    n->infer_dirty = true;
    n->meta = ir_arena_calloc(&g->arena, sizeof *n->meta * (size_t)n->nout);
    n->name = base ? fresh_name(g, base, &n->name_hash) : fresh_op_name(g, op, &n->name_hash);
    if (!n->meta || !n->name) goto oom;
    for (int i = 0; i < n->nout; i++)
        n->meta[i].rank = -1;
    if (!names_put(&g->names, n)) goto oom;
    return n;
oom:
    if (n) {
        if (n->name) ir_names_del(&g->names, n);
        node_free(g, n);
    }
    nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory creating a node");
    return NULL;
}

/* Stores args on n and registers n as a user of each node arg. */
static nnfx_status node_set_args_raw(nnfx_node *n, int nargs, const nnfx_arg *args, nnfx_error *err) {
    for (int i = 0; i < nargs; i++) {
        if (n->opcode == NNFX_OUTPUT && args[i].kind != NNFX_ARG_NODE)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "output: value %d is a literal or None; a graph returns nodes",
                                  i);
        if (args[i].kind == NNFX_ARG_NODE) {
            nnfx_node *a = args[i].u.node;
            if (!a) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "node %s: argument %d is a NULL node", n->name, i);
            if (a->graph != n->graph)
                return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: argument %d (%%%s) belongs to another graph",
                                      n->name, i, a->name);
            if (a->opcode == NNFX_OUTPUT)
                return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: argument %d is the output node", n->name, i);
        }
    }
    ir_arena *ar = &n->graph->hot;
    nnfx_arg *copy = NULL;
    if (nargs > 0) {
        copy = ir_arena_alloc(ar, sizeof *copy * (size_t)nargs);
        if (!copy) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        memcpy(copy, args, sizeof *copy * (size_t)nargs);
    }
    nnfx_arg *old = n->args;
    int nold = n->nargs;
    n->infer_dirty = true;
    n->args = copy;
    n->nargs = nargs;
    for (int i = 0; i < nargs; i++)
        if (copy[i].kind == NNFX_ARG_NODE && !ir_add_user(copy[i].u.node, n)) {
            /* undo: n keeps its old arguments and the users lists agree */
            n->args = old;
            n->nargs = nold;
            for (int j = 0; j < i; j++)
                if (copy[j].kind == NNFX_ARG_NODE) ir_drop_user_if_unused(copy[j].u.node, n);
            ir_arena_free(ar, copy, sizeof *copy * (size_t)nargs);
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        }
    for (int i = 0; i < nold; i++)
        if (old[i].kind == NNFX_ARG_NODE) ir_drop_user_if_unused(old[i].u.node, n);
    ir_arena_free(ar, old, sizeof *old * (size_t)nold);
    ir_graph_touch(n->graph);
    return NNFX_OK;
}

/* Frees a node that was allocated but failed before being linked. */
static void node_discard(nnfx_graph *g, nnfx_node *n) {
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].kind == NNFX_ARG_NODE) {
            nnfx_node *a = n->args[i].u.node;
            n->args[i].kind = NNFX_ARG_NONE;
            ir_drop_user_if_unused(a, n);
        }
    ir_names_del(&g->names, n);
    node_free(g, n);
}

nnfx_node *nnfx_graph_placeholder(nnfx_graph *g, const char *name, const nnfx_meta *meta, nnfx_error *err) {
    if (!g || !name || !*name) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "placeholder: NULL graph or empty name");
        return NULL;
    }
    nnfx_node *n = node_alloc(g, NNFX_PLACEHOLDER, name, NNFX_OP_NONE, 1, err);
    if (!n) return NULL;
    if (!ir_node_set_target(n, n->name)) {
        node_discard(g, n);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (meta) n->meta[0] = *meta;
    n->infer_dirty = false; /* its meta is the source; users are new */
    place_node(g, n);
    return n;
}

nnfx_node *nnfx_graph_get_attr(nnfx_graph *g, const char *target, nnfx_error *err) {
    if (!g || !target) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "get_attr: NULL graph or target");
        return NULL;
    }
    int idx = ir_graph_param_find(g, target);
    if (!idx) {
        nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "get_attr: the graph has no parameter '%s'", target);
        return NULL;
    }
    return ir_graph_get_attr_at(g, idx - 1, err);
}

nnfx_node *ir_graph_get_attr_at(nnfx_graph *g, int idx, nnfx_error *err) {
    if (!g || idx < 0 || idx >= g->nparams) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "get_attr: no parameter index %d", idx);
        return NULL;
    }
    const ir_param *p = &g->params[idx];
    nnfx_node *n = node_alloc(g, NNFX_GET_ATTR, p->name, NNFX_OP_NONE, 1, err);
    if (!n) return NULL;
    n->target = ir_sstr_ref(p->name); /* parameter names are shared strings */
    n->param_idx = idx + 1;
    n->param_epoch = g->param_epoch;
    nnfx_meta_set_shape(&n->meta[0], p->t->dtype, p->t->rank, p->t->shape);
    n->infer_dirty = false; /* the meta a pass would give; users are new */
    place_node(g, n);
    return n;
}

/* True when attrs has no NULL and no repeated names (the common case). */
static bool attrs_distinct(int nattrs, const nnfx_attr *attrs) {
    for (int i = 0; i < nattrs; i++) {
        if (!attrs[i].name) return false;
        for (int j = 0; j < i; j++)
            if (attrs[i].name[0] == attrs[j].name[0] && strcmp(attrs[i].name, attrs[j].name) == 0) return false;
    }
    return true;
}

/* Gives n (with no attributes yet) copies of attrs in one array; false on OOM. */
static bool attrs_copy_all(nnfx_node *n, int nattrs, const nnfx_attr *attrs) {
    nnfx_graph *g = n->graph;
    nnfx_attr *v = ir_arena_alloc(&g->arena, sizeof *v * (size_t)nattrs);
    if (!v) return false;
    for (int i = 0; i < nattrs; i++) {
        if (!ir_node_attr_copy(g, &v[i], &attrs[i])) {
            while (i-- > 0)
                ir_node_attr_free(g, &v[i]);
            ir_arena_free(&g->arena, v, sizeof *v * (size_t)nattrs);
            return false;
        }
        n->had_subgraph |= v[i].kind == NNFX_ATTR_GRAPH;
    }
    n->attrs = v;
    n->nattrs = nattrs;
    n->attrs_linted = false;
    return true;
}

nnfx_node *nnfx_graph_call_op(nnfx_graph *g, nnfx_op op, int nargs, const nnfx_arg *args, int nattrs,
                              const nnfx_attr *attrs, nnfx_error *err) {
    if (!g) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "call_op: NULL graph");
        return NULL;
    }
    if ((int)op <= 0 || op >= NNFX_OP_COUNT) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "call_op: unknown op id %d", (int)op);
        return NULL;
    }
    const nnfx_op_info *info = ir_op_info(op);
    if (nargs < info->min_inputs || nargs > info->max_inputs || (nargs > 0 && !args) || nattrs < 0 ||
        (nattrs > 0 && !attrs)) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "call_op: %s takes %d to %d arguments, got %d", info->name,
                       info->min_inputs, info->max_inputs, nargs);
        return NULL;
    }
    nnfx_node *n = node_alloc(g, NNFX_CALL_FUNCTION, NULL, op, 1, err);
    if (!n) return NULL;
    n->op = op;
    if (!attrs_distinct(nattrs, attrs)) { /* later ones replace earlier ones */
        for (int i = 0; i < nattrs; i++) {
            if (nnfx_node_set_attr(n, &attrs[i], err)) {
                node_discard(g, n);
                return NULL;
            }
        }
    } else if (nattrs > 0 && !attrs_copy_all(n, nattrs, attrs)) {
        node_discard(g, n);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    /* The attributes are checked against the schema now, while they are in
     * the cache: lint then skips them (attrs_linted), unless they fail,
     * in which case lint reports them as before. */
    n->attrs_linted = ir_node_attrs_valid(n);
    int nout = ir_node_num_outputs_for(op, n);
    if ((nout != 1 && ir_node_set_num_outputs(n, nout, err)) || node_set_args_raw(n, nargs, args, err)) {
        node_discard(g, n);
        return NULL;
    }
    place_node(g, n);
    return n;
}

#define W_PTR(x) ((void *)(uintptr_t)(x))

nnfx_node *nnfx_binding_call_op(uint64_t *w) {
    if (!w) return NULL;
    nnfx_graph *g = W_PTR(w[0]);
    nnfx_node *n = nnfx_graph_call_op(g, (nnfx_op)w[1], (int)w[2], W_PTR(w[3]), (int)w[4], W_PTR(w[5]), W_PTR(w[6]));
    if (n) {
        nnfx_node_info info[2] = {{0}};
        nnfx_graph_nodes(g, n, true, info, 2); /* n, then its predecessor */
        for (int i = 0; i < 2; i++) {
            w[8 + 3 * i] = (uint64_t)(uintptr_t)info[i].node;
            w[9 + 3 * i] = info[i].serial;
            w[10 + 3 * i] = (uint64_t)(uint32_t)info[i].opcode | (uint64_t)(uint32_t)info[i].op << 32;
        }
    }
    return n;
}

int nnfx_binding_node_args(uint64_t *w) {
    if (!w) return 0;
    return nnfx_node_args(W_PTR(w[0]), (nnfx_arg *)(void *)(w + 2), (int)w[1]);
}

int nnfx_binding_replace_all_uses_with(uint64_t *w) {
    if (!w) return -1;
    return nnfx_replace_all_uses_with_list(W_PTR(w[0]), W_PTR(w[1]), (nnfx_node **)(void *)(w + 3), (int)w[2]);
}

nnfx_status nnfx_binding_erase_node(uint64_t *w) {
    if (!w) return NNFX_ERR_INVALID_ARG;
    return nnfx_erase_node(W_PTR(w[0]), W_PTR(w[1]), W_PTR(w[2]));
}

/* the calling thread's words and error for the _tls calls */
static _Thread_local uint64_t binding_words[NNFX_BINDING_WORDS];
static _Thread_local nnfx_error binding_err;

uint64_t *nnfx_binding_words(void) { return binding_words; }

nnfx_error *nnfx_binding_error(void) { return &binding_err; }

nnfx_node *nnfx_binding_call_op_tls(void) {
    binding_words[6] = (uint64_t)(uintptr_t)&binding_err;
    return nnfx_binding_call_op(binding_words);
}

int nnfx_binding_node_args_tls(void) {
    binding_words[1] = (NNFX_BINDING_WORDS - 2) / 2;
    return nnfx_binding_node_args(binding_words);
}

int nnfx_binding_replace_all_uses_with_tls(void) {
    binding_words[2] = NNFX_BINDING_WORDS - 3;
    return nnfx_binding_replace_all_uses_with(binding_words);
}

nnfx_status nnfx_binding_erase_node_tls(void) {
    return nnfx_erase_node(W_PTR(binding_words[0]), W_PTR(binding_words[1]), &binding_err);
}

#undef W_PTR

nnfx_node *nnfx_graph_call_module(nnfx_graph *g, const char *target, int nargs, const nnfx_arg *args, nnfx_error *err) {
    if (!g || !target || (nargs > 0 && !args) || nargs < 0) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "call_module: NULL graph, target or args");
        return NULL;
    }
    if (!ir_graph_leaf(g, target)) {
        nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "call_module: no leaf function '%s' is registered on the graph",
                       target);
        return NULL;
    }
    nnfx_node *n = node_alloc(g, NNFX_CALL_MODULE, target, NNFX_OP_NONE, 1, err);
    if (!n) return NULL;
    if (!ir_node_set_target(n, target)) {
        node_discard(g, n);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (node_set_args_raw(n, nargs, args, err)) {
        node_discard(g, n);
        return NULL;
    }
    place_node(g, n);
    return n;
}

nnfx_node *nnfx_graph_getitem(nnfx_graph *g, nnfx_node *tuple_node, int index, nnfx_error *err) {
    if (!g || !tuple_node) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "getitem: NULL graph or node");
        return NULL;
    }
    if (index < 0 || index >= tuple_node->nout) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "getitem: node %s has %d outputs, index %d is out of range",
                       tuple_node->name, tuple_node->nout, index);
        return NULL;
    }
    nnfx_arg args[2] = {nnfx_arg_node(tuple_node), nnfx_arg_int(index)};
    nnfx_node *n = nnfx_graph_call_op(g, NNFX_OP_GETITEM, 2, args, 0, NULL, err);
    if (n) n->meta[0] = tuple_node->meta[index];
    return n;
}

nnfx_node *nnfx_graph_output(nnfx_graph *g, int nvals, nnfx_node *const *values, nnfx_error *err) {
    if (!g || nvals < 0 || (nvals > 0 && !values)) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "output: NULL graph or values");
        return NULL;
    }
    if (output_node_of(g)) {
        nnfx_error_set(err, NNFX_ERR_GRAPH, "output: the graph already has an output node");
        return NULL;
    }
    nnfx_node *n = node_alloc(g, NNFX_OUTPUT, "output", NNFX_OP_NONE, 1, err);
    if (!n) return NULL;
    nnfx_arg stack[16];
    nnfx_arg *args = nvals <= 16 ? stack : malloc(sizeof *args * (size_t)nvals);
    if (!args) {
        node_discard(g, n);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int i = 0; i < nvals; i++)
        args[i] = nnfx_arg_node(values[i]);
    nnfx_status st = node_set_args_raw(n, nvals, args, err);
    if (args != stack) free(args);
    if (st) {
        node_discard(g, n);
        return NULL;
    }
    place_node(g, n);
    return n;
}

/* --- walking ------------------------------------------------------------------- */

nnfx_node *nnfx_graph_first(const nnfx_graph *g) { return g ? g->head : NULL; }
nnfx_node *nnfx_graph_last(const nnfx_graph *g) { return g ? g->tail : NULL; }
nnfx_node *nnfx_node_next(const nnfx_node *n) { return n ? n->next : NULL; }
nnfx_node *nnfx_node_prev(const nnfx_node *n) { return n ? n->prev : NULL; }
int nnfx_graph_num_nodes(const nnfx_graph *g) { return g ? g->num_nodes : 0; }
nnfx_node *nnfx_graph_find(const nnfx_graph *g, const char *name) {
    return g && name ? ir_names_get(&g->names, name, ir_strmap_hash(name)) : NULL;
}
nnfx_node *nnfx_graph_output_node(const nnfx_graph *g) { return g ? output_node_of(g) : NULL; }

int nnfx_graph_num_inputs(const nnfx_graph *g) {
    int k = 0;
    for (nnfx_node *n = g ? g->head : NULL; n; n = n->next)
        k += n->opcode == NNFX_PLACEHOLDER;
    return k;
}

nnfx_node *nnfx_graph_input(const nnfx_graph *g, int i) {
    for (nnfx_node *n = g ? g->head : NULL; n; n = n->next)
        if (n->opcode == NNFX_PLACEHOLDER && i-- == 0) return n;
    return NULL;
}

/* --- parameters and leaves ---------------------------------------------------- */

nnfx_status nnfx_graph_set_param(nnfx_graph *g, const char *name, nnfx_tensor *t, nnfx_error *err) {
    if (!g || !name || !*name || !t) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_param: NULL argument");
    int idx = ir_graph_param_find(g, name);
    if (idx) {
        nnfx_tensor_retain(t);
        nnfx_tensor_release(g->params[idx - 1].t);
        g->params[idx - 1].t = t;
        g->infer_valid = false; /* constant values may differ now */
        ir_graph_touch(g);
        return NNFX_OK;
    }
    return ir_graph_param_add(g, name, t, err) ? NNFX_OK : (err ? err->status : NNFX_ERR_NOMEM);
}

/* --- the parameter index (ir_param_index) --- */

static void param_index_free(ir_param_index *x) {
    ir_big_free(x->slots, x->cap * sizeof *x->slots);
    memset(x, 0, sizeof *x);
}

static void param_index_prefetch(const ir_param_index *x, uint64_t hash) {
    if (x->cap) __builtin_prefetch(&x->slots[(size_t)hash & (x->cap - 1)]);
}

/* Grows x to ncap slots (a power of two holding its entries at most half
 * full); false on OOM (x unchanged). The tags give each entry's slot, so
 * no name is read. */
static bool param_index_rehash(ir_param_index *x, size_t ncap) {
    uint64_t *ns = ir_big_alloc(ncap * sizeof *ns, true);
    if (!ns) return false;
    for (size_t i = 0; i < x->cap; i++) {
        uint64_t e = x->slots[i];
        if (!e) continue;
        size_t j = (size_t)(e >> 32) & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = e;
    }
    ir_big_free(x->slots, x->cap * sizeof *x->slots);
    x->slots = ns;
    x->cap = ncap;
    return true;
}

/* Room for `extra` more entries without a further grow; false on OOM. */
static bool param_index_reserve(ir_param_index *x, size_t extra) {
    size_t want = x->count + extra, ncap = x->cap ? x->cap : 64;
    while ((want + 1) * 2 > ncap)
        ncap *= 2;
    return ncap == x->cap || param_index_rehash(x, ncap);
}

/* Maps params[i].name (hash h) to i + 1; an entry of the same name takes
 * the new index, as a put into a string map would. False on OOM. */
static bool param_index_put(nnfx_graph *g, int i, uint64_t h) {
    ir_param_index *x = &g->param_index;
    if ((x->count + 1) * 2 > x->cap && !param_index_rehash(x, x->cap ? x->cap * 2 : 64)) return false;
    uint64_t e = (h << 32) | (uint64_t)(uint32_t)(i + 1);
    size_t mask = x->cap - 1, j = (size_t)(uint32_t)h & mask;
    for (; x->slots[j]; j = (j + 1) & mask) {
        uint64_t o = x->slots[j];
        if ((uint32_t)(o >> 32) == (uint32_t)h && strcmp(g->params[(uint32_t)o - 1].name, g->params[i].name) == 0) {
            x->slots[j] = e;
            return true;
        }
    }
    x->slots[j] = e;
    x->count++;
    return true;
}

/* index + 1 of the parameter named `name` (hash h) among the indexed, or 0. */
static int param_index_get(const nnfx_graph *g, const char *name, uint64_t h) {
    const ir_param_index *x = &g->param_index;
    if (!x->cap) return 0;
    size_t mask = x->cap - 1;
    for (size_t j = (size_t)(uint32_t)h & mask; x->slots[j]; j = (j + 1) & mask) {
        uint64_t o = x->slots[j];
        if ((uint32_t)(o >> 32) == (uint32_t)h && strcmp(g->params[(uint32_t)o - 1].name, name) == 0)
            return (int)(uint32_t)o;
    }
    return 0;
}

/* Indexes the parameters not yet in param_index, which has room for all
 * of them (param_index_reserve), in the same order as one put each: the
 * hashes of a group are computed first (the next group's names loading
 * meanwhile) and the group's slots prefetched, so that the inserts into a
 * table larger than the caches overlap their misses instead of waiting
 * for each in turn. Stops early on OOM (the caller indexes the rest one
 * by one). */
static void param_index_bulk(nnfx_graph *g) {
    enum { GROUP = 32 };
    uint64_t h[GROUP];
    while (g->nparams - g->nparams_indexed >= GROUP) {
        const ir_param *p = &g->params[g->nparams_indexed];
        for (int k = GROUP; k < 2 * GROUP && g->nparams_indexed + k < g->nparams; k++)
            __builtin_prefetch(p[k].name);
        for (int k = 0; k < GROUP; k++) {
            h[k] = ir_strmap_hash(p[k].name);
            param_index_prefetch(&g->param_index, h[k]);
        }
        for (int k = 0; k < GROUP; k++, g->nparams_indexed++)
            if (!param_index_put(g, g->nparams_indexed, h[k])) return;
    }
}

void ir_graph_prefetch_new_param(const nnfx_graph *g, const char *base, const char *suffix) {
    if (g->names.cap < NAMES_PREFETCH_MIN) return;
    char name[FRESH_BUF];
    size_t bl = strlen(base), sl = strlen(suffix);
    if (bl + sl >= FRESH_BASE_MAX) return; /* a rare long name: not worth it */
    memcpy(name, base, bl);
    memcpy(name + bl, suffix, sl + 1);
    param_index_prefetch(&g->param_index, ir_strmap_hash_n(name, bl + sl));
    char ident[FRESH_BUF]; /* the get_attr node's name, as fresh_name makes it */
    size_t il = sanitize_name(name, ident, FRESH_BASE_MAX);
    ir_names_prefetch(&g->names, ir_strmap_hash_n(ident, il));
}

int ir_graph_param_find(const nnfx_graph *cg, const char *name) {
    if (!name) return 0;
    /* parameters added since the last lookup join the index now (a trace
     * adds thousands and looks none up); indexing is not a semantic change */
    nnfx_graph *g = (nnfx_graph *)cg;
    if (g->nparams - g->nparams_indexed > 64) /* a bulk of them: one rehash, not a doubling chain */
        if (param_index_reserve(&g->param_index, (size_t)(g->nparams - g->nparams_indexed))) param_index_bulk(g);
    for (; g->nparams_indexed < g->nparams; g->nparams_indexed++) {
        int i = g->nparams_indexed;
        if (!param_index_put(g, i, ir_strmap_hash(g->params[i].name))) break;
    }
    int idx = param_index_get(g, name, ir_strmap_hash(name));
    for (int i = g->nparams_indexed; !idx && i < g->nparams; i++) /* out of memory indexing */
        if (strcmp(g->params[i].name, name) == 0) idx = i + 1;
    return idx;
}

int ir_graph_param_add(nnfx_graph *g, const char *name, nnfx_tensor *t, nnfx_error *err) {
    if (g->nparams == g->cap_params) {
        /* a large array comes from the big-block cache: a trace of a large
         * model adds thousands of parameters, and fresh pages for each
         * doubling cost more than the copy */
        int nc = g->cap_params ? g->cap_params * 2 : 16;
        ir_param *np = ir_big_alloc(sizeof *np * (size_t)nc, false);
        if (!np) {
            nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            return 0;
        }
        if (g->nparams) memcpy(np, g->params, sizeof *np * (size_t)g->nparams);
        ir_big_free(g->params, sizeof *np * (size_t)g->cap_params);
        g->params = np;
        g->cap_params = nc;
        /* keys point into params[].name strings, which did not move */
    }
    char *nm = ir_sstr_get(g, NULL, name); /* get_attr nodes share it as their target */
    if (!nm) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return 0;
    }
    g->params[g->nparams].name = nm;
    g->params[g->nparams].t = nnfx_tensor_retain(t);
    g->params[g->nparams].constant = false;
    g->nparams++;
    ir_graph_touch(g);
    return g->nparams;
}

/* Parameters leave the graph aligned for their dtype: an unaligned mapped
 * tensor (left in the file by the ONNX loader) is copied on first access.
 * NULL when that copy runs out of memory. */
static nnfx_tensor *param_ready(nnfx_tensor *t) {
    if (core_tensor_unaligned(t) && core_tensor_materialize(t, NULL)) return NULL;
    return t;
}

nnfx_tensor *ir_tensor_ready(nnfx_tensor *raw) { return param_ready(raw); }

nnfx_tensor *ir_graph_param_raw(const nnfx_graph *g, const char *name) {
    if (!g || !name) return NULL;
    int idx = ir_graph_param_find(g, name);
    return idx ? g->params[idx - 1].t : NULL;
}

nnfx_tensor *nnfx_graph_param(const nnfx_graph *g, const char *name) {
    return param_ready(ir_graph_param_raw(g, name));
}

nnfx_tensor *ir_node_param_raw(const nnfx_node *cn) {
    if (!cn || cn->opcode != NNFX_GET_ATTR || !cn->target) return NULL;
    nnfx_node *n = (nnfx_node *)cn; /* the cache is not a semantic change */
    const nnfx_graph *g = n->graph;
    if (n->param_idx <= 0 || n->param_epoch != g->param_epoch || n->param_idx > g->nparams) {
        n->param_idx = ir_graph_param_find(g, n->target);
        n->param_epoch = g->param_epoch;
        if (!n->param_idx) return NULL;
    }
    return g->params[n->param_idx - 1].t;
}

nnfx_tensor *ir_node_param(const nnfx_node *n) { return param_ready(ir_node_param_raw(n)); }

nnfx_tensor *nnfx_graph_param_mut(nnfx_graph *g, const char *name, nnfx_error *err) {
    if (!g || !name) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "param_mut: NULL graph or name");
        return NULL;
    }
    int idx = ir_graph_param_find(g, name);
    if (!idx) {
        nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "param_mut: the graph has no parameter '%s'", name);
        return NULL;
    }
    nnfx_tensor *t = g->params[idx - 1].t;
    /* Copy on write: a mapped file, caller memory, or a tensor another
     * graph (a copy) or a compiled plan still holds is never written. */
    if (t->storage != NNFX_STORAGE_OWNED || t->refcount > 1) {
        nnfx_tensor *c = nnfx_tensor_clone(t, err);
        if (!c) {
            nnfx_error_prefix(err, "param_mut '%s'", name);
            return NULL;
        }
        nnfx_tensor_release(t);
        g->params[idx - 1].t = t = c;
    }
    g->infer_valid = false; /* folded constants and packed weights are stale */
    ir_graph_touch(g);
    return t;
}

int nnfx_graph_num_params(const nnfx_graph *g) { return g ? g->nparams : 0; }

nnfx_status nnfx_graph_set_param_constant(nnfx_graph *g, const char *name, bool constant, nnfx_error *err) {
    int idx = g && name ? ir_graph_param_find(g, name) : 0;
    if (!idx) return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "the graph has no parameter '%s'", name ? name : "");
    g->params[idx - 1].constant = constant;
    return NNFX_OK;
}

bool nnfx_graph_param_is_constant(const nnfx_graph *g, int i) {
    return g && i >= 0 && i < g->nparams && g->params[i].constant;
}
const char *nnfx_graph_param_name(const nnfx_graph *g, int i) {
    return g && i >= 0 && i < g->nparams ? g->params[i].name : NULL;
}
static bool param_meta(const nnfx_tensor *t, nnfx_meta *m) {
    if (!t || !m) return false;
    nnfx_meta_set_shape(m, t->dtype, t->rank, t->shape);
    return true;
}

bool nnfx_graph_param_meta(const nnfx_graph *g, const char *name, nnfx_meta *m) {
    return param_meta(ir_graph_param_raw(g, name), m);
}

bool nnfx_graph_param_meta_at(const nnfx_graph *g, int i, nnfx_meta *m) {
    return g && i >= 0 && i < g->nparams && param_meta(g->params[i].t, m);
}

nnfx_tensor *nnfx_graph_param_at(const nnfx_graph *g, int i) {
    return g && i >= 0 && i < g->nparams ? param_ready(g->params[i].t) : NULL;
}

/* The size to request from ir_big_alloc for a scratch array of n bytes:
 * large ones rounded up to a power of two, so that the next pass over a
 * graph of about the same size reuses the cached block instead of faulting
 * fresh pages in. */
static size_t scratch_bytes(size_t n) {
    if (n < ((size_t)64 << 10)) return n;
    size_t b = (size_t)64 << 10;
    while (b < n)
        b *= 2;
    return b;
}

int nnfx_graph_drop_unused_params(nnfx_graph *g) {
    if (!g || !g->nparams) return 0;
    /* remap[i]: index + 1 of params[i] after compaction, 0 while unused.
     * A get_attr node's cached index (valid in this epoch) marks its
     * parameter without a lookup by name, and the nodes are collected so
     * that their caches are updated from an array afterwards (one walk of
     * the node list, no hash table probes at random addresses). */
    size_t remap_bytes = scratch_bytes(sizeof(int) * (size_t)g->nparams);
    int *remap = ir_big_alloc(remap_bytes, true);
    size_t nga = 0, cap = 0;
    nnfx_node **ga = NULL;
    if (!remap) return 0; /* out of memory: drop nothing (always safe) */
    ir_walk wk;
    for (nnfx_node *n = ir_walk_first(g, &wk); n; n = ir_walk_next(&wk, n)) {
        ir_walk_prefetch(&wk, n);
        if (n->opcode != NNFX_GET_ATTR || !n->target) continue;
        if (n->param_epoch != g->param_epoch || n->param_idx <= 0 || n->param_idx > g->nparams) {
            n->param_idx = ir_graph_param_find(g, n->target); /* the cache is not a semantic change */
            n->param_epoch = g->param_epoch;
        }
        if (!n->param_idx) continue;
        remap[n->param_idx - 1] = 1;
        if (nga == cap) {
            size_t nc = cap ? cap * 2 : 256; /* a power of two: scratch_bytes of its size */
            nnfx_node **ng = ir_big_alloc(sizeof *ng * nc, false);
            if (ng && nga) memcpy(ng, ga, sizeof *ng * nga);
            ir_big_free(ga, sizeof *ga * cap);
            if (!ng) { /* the caches go stale instead (lookups by name later) */
                ga = NULL;
                nga = cap = 0;
                continue;
            }
            ga = ng;
            cap = nc;
        }
        if (ga) ga[nga++] = n;
    }
    int kept = 0, dropped = 0;
    param_index_free(&g->param_index);
    for (int i = 0; i < g->nparams; i++) {
        if (i + 8 < g->nparams && !remap[i + 8]) { /* its tensor and name are released below */
            __builtin_prefetch(g->params[i + 8].t);
            __builtin_prefetch(g->params[i + 8].name);
        }
        if (remap[i]) {
            g->params[kept++] = g->params[i];
            remap[i] = kept;
        } else {
            ir_sstr_put(g, g->params[i].name);
            nnfx_tensor_release(g->params[i].t);
            dropped++;
        }
    }
    g->nparams = kept;
    g->nparams_indexed = 0; /* indexed again on the next lookup by name */
    g->param_epoch++;
    for (size_t i = 0; i < nga; i++) { /* every collected get_attr keeps a valid cached index */
        ga[i]->param_idx = remap[ga[i]->param_idx - 1];
        ga[i]->param_epoch = g->param_epoch;
    }
    ir_big_free(ga, sizeof *ga * cap);
    ir_big_free(remap, remap_bytes);
    if (dropped) ir_graph_touch(g);
    return dropped;
}

nnfx_status nnfx_graph_register_leaf(nnfx_graph *g, const char *name, nnfx_leaf_fn fn, nnfx_leaf_infer_fn infer,
                                     void *user, nnfx_error *err) {
    if (!g || !name || !*name || !fn)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "register_leaf: NULL graph, name or function");
    for (int i = 0; i < g->nleaves; i++) {
        if (strcmp(g->leaves[i].name, name) == 0) {
            g->leaves[i].fn = fn;
            g->leaves[i].infer = infer;
            g->infer_valid = false;
            g->leaves[i].user = user;
            return NNFX_OK;
        }
    }
    if (g->nleaves == g->cap_leaves) {
        int nc = g->cap_leaves ? g->cap_leaves * 2 : 4;
        ir_leaf *nl = realloc(g->leaves, sizeof *nl * (size_t)nc);
        if (!nl) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        g->leaves = nl;
        g->cap_leaves = nc;
    }
    char *nm = ir_strdup(name);
    if (!nm) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    g->leaves[g->nleaves++] = (ir_leaf){nm, fn, infer, user};
    return NNFX_OK;
}

const ir_leaf *ir_graph_leaf(const nnfx_graph *g, const char *name) {
    for (int i = 0; g && name && i < g->nleaves; i++)
        if (strcmp(g->leaves[i].name, name) == 0) return &g->leaves[i];
    return NULL;
}

/* --- editing ------------------------------------------------------------------ */

nnfx_status nnfx_node_set_args(nnfx_node *n, int nargs, const nnfx_arg *args, nnfx_error *err) {
    if (!n || nargs < 0 || (nargs > 0 && !args))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_args: NULL node or args");
    for (int i = 0; i < nargs; i++)
        if (args[i].kind == NNFX_ARG_NODE && args[i].u.node == n)
            return nnfx_error_set(err, NNFX_ERR_GRAPH, "node %s: cannot use itself as argument %d", n->name, i);
    return node_set_args_raw(n, nargs, args, err);
}

nnfx_status nnfx_node_set_arg(nnfx_node *n, int i, nnfx_arg a, nnfx_error *err) {
    if (!n || i < 0 || i >= n->nargs)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_arg: node %s has no argument %d", n ? n->name : "(null)",
                              i);
    nnfx_arg *copy = malloc(sizeof *copy * (size_t)n->nargs);
    if (!copy) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    memcpy(copy, n->args, sizeof *copy * (size_t)n->nargs);
    copy[i] = a;
    nnfx_status st = nnfx_node_set_args(n, n->nargs, copy, err);
    free(copy);
    return st;
}

int nnfx_replace_all_uses_with(nnfx_node *old, nnfx_node *new_node, nnfx_user_filter filter, void *ctx) {
    if (!old || !new_node || old->graph != new_node->graph) return -1;
    if (old == new_node) return 0;
    int count = 0;
    /* iterate over a snapshot: rewiring edits old->users */
    int nu = old->nusers;
    nnfx_node *stack[16];
    nnfx_node **users = nu <= 16 ? stack : malloc(sizeof *users * (size_t)nu);
    if (!users) return -1;
    if (nu) memcpy(users, old->users, sizeof *users * (size_t)nu);
    for (int k = 0; k < nu; k++) {
        nnfx_node *u = users[k];
        if (u == new_node) continue; /* never rewire the replacement itself */
        if (filter && !filter(u, ctx)) continue;
        /* the user entry first: on failure u is left as it was */
        if (!ir_add_user(new_node, u)) {
            if (users != stack) free(users);
            return -1;
        }
        for (int i = 0; i < u->nargs; i++)
            if (u->args[i].kind == NNFX_ARG_NODE && u->args[i].u.node == old) u->args[i].u.node = new_node;
        u->infer_dirty = true;
        ir_drop_user_if_unused(old, u);
        count++;
    }
    if (users != stack) free(users);
    if (count) ir_graph_touch(old->graph);
    return count;
}

int nnfx_replace_all_uses_with_list(nnfx_node *old, nnfx_node *new_node, nnfx_node **out, int cap) {
    if (!old || !new_node || old->graph != new_node->graph || (!out && cap > 0)) return -1;
    if (old->nusers > cap) return -2;
    int k = 0;
    for (int i = 0; i < old->nusers; i++)
        if (old->users[i] != new_node) out[k++] = old->users[i];
    if (old == new_node) return 0;
    return nnfx_replace_all_uses_with(old, new_node, NULL, NULL) == k ? k : -1;
}

nnfx_status nnfx_replace_input_with(nnfx_node *n, nnfx_node *old, nnfx_node *new_node, nnfx_error *err) {
    if (!n || !old || !new_node) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "replace_input_with: NULL node");
    if (new_node->graph != n->graph)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "replace_input_with: %%%s belongs to another graph", new_node->name);
    if (new_node == n)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "replace_input_with: node %s cannot use itself", n->name);
    bool found = false;
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].kind == NNFX_ARG_NODE && n->args[i].u.node == old) found = true;
    if (!found)
        return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "replace_input_with: %%%s is not an input of %%%s", old->name,
                              n->name);
    /* the user entry first: on failure n is left as it was */
    if (!ir_add_user(new_node, n)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].kind == NNFX_ARG_NODE && n->args[i].u.node == old) {
            n->args[i].u.node = new_node;
            n->infer_dirty = true;
        }
    ir_drop_user_if_unused(old, n);
    ir_graph_touch(n->graph);
    return NNFX_OK;
}

nnfx_status nnfx_erase_node(nnfx_graph *g, nnfx_node *n, nnfx_error *err) {
    if (!g || !n) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "erase_node: NULL graph or node");
    if (n->graph != g)
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "erase_node: node %s does not belong to this graph", n->name);
    if (n->nusers > 0) {
        char list[512];
        size_t off = 0;
        list[0] = 0;
        for (int i = 0; i < n->nusers && off < sizeof list - 8; i++)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%%%s", i ? ", " : "", n->users[i]->name);
        return nnfx_error_set(err, NNFX_ERR_GRAPH, "cannot erase node %s: it still has %d user%s (%s)", n->name,
                              n->nusers, n->nusers == 1 ? "" : "s", list);
    }
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i].kind == NNFX_ARG_NODE) {
            nnfx_node *a = n->args[i].u.node;
            n->args[i].kind = NNFX_ARG_NONE;
            ir_drop_user_if_unused(a, n);
        }
    if (g->insert_ref == n) g->insert_ref = g->insert_after ? n->prev : n->next;
    if (g->insert_ref == NULL && g->insert_after) g->insert_after = false;
    unlink_node(g, n);
    ir_names_del(&g->names, n);
    node_free(g, n);
    ir_graph_touch(g);
    return NNFX_OK;
}

int nnfx_eliminate_dead_code_list(nnfx_graph *g, nnfx_node **out, int cap) {
    if (!g || g->unused_removable == 0) return 0; /* nothing unused that may go */
    int removed = 0;
    for (nnfx_node *n = g->tail, *prev; n; n = prev) {
        prev = n->prev;
        ir_node_prefetch(n, -16);
        if (n->nusers == 0 && !nnfx_node_is_impure(n)) {
            if (nnfx_erase_node(g, n, NULL) == NNFX_OK) {
                if (out && removed < cap) out[removed] = n;
                removed++;
            }
        }
    }
    return removed;
}

int nnfx_eliminate_dead_code(nnfx_graph *g) { return nnfx_eliminate_dead_code_list(g, NULL, 0); }

int nnfx_eliminate_dead_code_runs(nnfx_graph *g, nnfx_node **out, int cap, int *nruns) {
    if (nruns) *nruns = 0;
    if (!g || g->unused_removable == 0) return 0; /* nothing unused that may go */
    if (!out || cap < 0) cap = 0;
    int removed = 0, runs = 0;
    nnfx_node *after = NULL; /* the live node after the run being erased (NULL: the list's end) */
    bool in_run = false;
    for (nnfx_node *n = g->tail, *prev; n; n = prev) {
        prev = n->prev;
        ir_node_prefetch(n, -16);
        nnfx_node *next = n->next; /* live: the nodes after it were erased or kept already */
        if (n->nusers == 0 && !nnfx_node_is_impure(n) && nnfx_erase_node(g, n, NULL) == NNFX_OK) {
            if (removed < cap) out[removed] = n;
            removed++;
            if (!in_run) after = next;
            in_run = true;
            continue;
        }
        if (in_run) { /* the run ends at n, which stays */
            runs++;
            if (removed + 2 * runs <= cap) {
                out[cap - 2 * runs] = n;
                out[cap - 2 * runs + 1] = after;
            }
            in_run = false;
        }
    }
    if (in_run) { /* the run reached the list's start */
        runs++;
        if (removed + 2 * runs <= cap) {
            out[cap - 2 * runs] = NULL;
            out[cap - 2 * runs + 1] = after;
        }
    }
    if (nruns) *nruns = runs;
    return removed;
}

nnfx_status nnfx_node_move_before(nnfx_node *n, nnfx_node *ref, nnfx_error *err) {
    if (!n || !ref || n->graph != ref->graph)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "move_before: NULL node or nodes of different graphs");
    if (n == ref) return NNFX_OK;
    nnfx_graph *g = n->graph;
    unlink_node(g, n);
    link_before(g, n, ref);
    ir_graph_touch(g);
    return NNFX_OK;
}
