/* strmap.h — a small open-addressing hash map from strings to pointers,
 * used for node names, name counters and parameter lookup. Keys are not
 * copied: the caller keeps them alive while they are in the map. Each slot
 * keeps its key's hash, so growing never rehashes strings and probes compare
 * strings only when the hashes agree. The _h variants take a hash the
 * caller already computed with ir_strmap_hash (it must be that key's). */
#ifndef NNFX_STRMAP_H
#define NNFX_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ir_strmap_slot {
    const char *key; /* NULL: empty; (const char *)1: deleted */
    void *value;
    uint64_t hash;
} ir_strmap_slot;

typedef struct ir_strmap {
    ir_strmap_slot *slots;
    size_t cap, count, used;
} ir_strmap;

/* Hash of a NUL-terminated key. */
uint64_t ir_strmap_hash(const char *key);
/* Hash of the n bytes at s (equal to ir_strmap_hash of that string). */
uint64_t ir_strmap_hash_n(const char *s, size_t n);
/* The slot count an open-addressing table of count live entries in cap
 * slots grows to: cap again when mostly deleted (a rehash in place), else
 * doubled (64 at first), at most half full. */
size_t ir_hash_grow_cap(size_t count, size_t cap);
/* Where the value of key is stored (writable in place, valid until the
 * next put or del), or NULL when key is absent. */
void **ir_strmap_value_h(const ir_strmap *m, const char *key, uint64_t hash);
/* Value stored under key, or NULL. */
void *ir_strmap_get(const ir_strmap *m, const char *key);
void *ir_strmap_get_h(const ir_strmap *m, const char *key, uint64_t hash);
/* Inserts or replaces the value (an existing entry keeps its key
 * pointer); false on allocation failure. */
bool ir_strmap_put(ir_strmap *m, const char *key, void *value);
bool ir_strmap_put_h(ir_strmap *m, const char *key, uint64_t hash, void *value);
/* Hints the CPU to fetch the slot where a lookup of `hash` starts (walks
 * over large graphs look up a node a few steps ahead). */
static inline void ir_strmap_prefetch(const ir_strmap *m, uint64_t hash) {
    if (m->cap) __builtin_prefetch(&m->slots[(size_t)hash & (m->cap - 1)]);
}
/* Grows m so that `extra` more keys fit without a further grow (one
 * rehash instead of a doubling chain when many keys are added at once);
 * false on allocation failure (m is unchanged then). */
bool ir_strmap_reserve(ir_strmap *m, size_t extra);
/* Removes key if present. */
void ir_strmap_del(ir_strmap *m, const char *key);
/* Frees the slot array (not keys or values). */
void ir_strmap_free(ir_strmap *m);

#endif
