/* strmap.c — open-addressing string map (word-at-a-time hash, linear probing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"
#include "ir/strmap.h"

#define TOMBSTONE ((const char *)1)

/* Hashes 8 bytes per step (a multiply and a shift each), then folds the
 * high bits down so that the low bits used as the slot index mix well. */
uint64_t ir_strmap_hash(const char *s) { return ir_strmap_hash_n(s, strlen(s)); }

uint64_t ir_strmap_hash_n(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

void **ir_strmap_value_h(const ir_strmap *m, const char *key, uint64_t hash) {
    if (!m->cap || !key) return NULL;
    size_t mask = m->cap - 1, i = (size_t)hash & mask;
    for (;;) {
        ir_strmap_slot *s = &m->slots[i];
        if (!s->key) return NULL;
        if (s->hash == hash && s->key != TOMBSTONE && (s->key == key || strcmp(s->key, key) == 0)) return &s->value;
        i = (i + 1) & mask;
    }
}

void *ir_strmap_get_h(const ir_strmap *m, const char *key, uint64_t hash) {
    void **v = ir_strmap_value_h(m, key, hash);
    return v ? *v : NULL;
}

void *ir_strmap_get(const ir_strmap *m, const char *key) {
    if (!m->cap || !key) return NULL;
    return ir_strmap_get_h(m, key, ir_strmap_hash(key));
}

size_t ir_hash_grow_cap(size_t count, size_t cap) {
    size_t ncap = cap && count * 4 < cap ? cap : (cap ? cap * 2 : 64);
    while (count * 2 >= ncap)
        ncap *= 2;
    return ncap;
}

/* Rehashes m's live entries into ncap slots (a power of two that holds
 * them at most half full); false on OOM. */
static bool rehash_to(ir_strmap *m, size_t ncap) {
    ir_strmap_slot *ns = ir_big_alloc(ncap * sizeof *ns, true);
    if (!ns) return false;
    for (size_t i = 0; i < m->cap; i++) {
        const char *k = m->slots[i].key;
        if (!k || k == TOMBSTONE) continue;
        size_t j = (size_t)m->slots[i].hash & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    ir_big_free(m->slots, m->cap * sizeof *m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = m->count;
    return true;
}

static bool grow(ir_strmap *m) { return rehash_to(m, ir_hash_grow_cap(m->count, m->cap)); }

bool ir_strmap_reserve(ir_strmap *m, size_t extra) {
    size_t want = m->count + extra;
    if ((want + 1) * 2 <= m->cap && (m->used + extra + 1) * 2 <= m->cap) return true;
    size_t ncap = m->cap ? m->cap : 64;
    while ((want + 1) * 2 > ncap)
        ncap *= 2;
    return rehash_to(m, ncap);
}

bool ir_strmap_put_h(ir_strmap *m, const char *key, uint64_t hash, void *value) {
    if ((m->used + 1) * 2 > m->cap && !grow(m)) return false;
    size_t mask = m->cap - 1, i = (size_t)hash & mask;
    ir_strmap_slot *tomb = NULL;
    for (;;) {
        ir_strmap_slot *s = &m->slots[i];
        if (!s->key) break;
        if (s->key == TOMBSTONE) {
            if (!tomb) tomb = s;
        } else if (s->hash == hash && (s->key == key || strcmp(s->key, key) == 0)) {
            s->value = value; /* the stored key pointer stays */
            return true;
        }
        i = (i + 1) & mask;
    }
    ir_strmap_slot *s = tomb ? tomb : &m->slots[i];
    if (!tomb) m->used++;
    s->key = key;
    s->value = value;
    s->hash = hash;
    m->count++;
    return true;
}

bool ir_strmap_put(ir_strmap *m, const char *key, void *value) {
    return ir_strmap_put_h(m, key, ir_strmap_hash(key), value);
}

void ir_strmap_del(ir_strmap *m, const char *key) {
    if (!m->cap) return;
    uint64_t hash = ir_strmap_hash(key);
    size_t mask = m->cap - 1, i = (size_t)hash & mask;
    for (;;) {
        ir_strmap_slot *s = &m->slots[i];
        if (!s->key) return;
        if (s->key != TOMBSTONE && s->hash == hash && strcmp(s->key, key) == 0) {
            s->key = TOMBSTONE;
            s->value = NULL;
            m->count--;
            return;
        }
        i = (i + 1) & mask;
    }
}

void ir_strmap_free(ir_strmap *m) {
    ir_big_free(m->slots, m->cap * sizeof *m->slots);
    memset(m, 0, sizeof *m);
}
