/* strmap.c — open-addressing string map (word-at-a-time hash, linear probing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/strmap.h"

#define TOMBSTONE ((const char *)1)

/* Hashes 8 bytes per step (a multiply and a shift each), then folds the
 * high bits down so that the low bits used as the slot index mix well. */
static uint64_t hash_str(const char *s) {
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

void *ir_strmap_get(const ir_strmap *m, const char *key) {
    if (!m->cap || !key) return NULL;
    size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
    for (;;) {
        const char *k = m->slots[i].key;
        if (!k) return NULL;
        if (k != TOMBSTONE && strcmp(k, key) == 0) return m->slots[i].value;
        i = (i + 1) & mask;
    }
}

static bool grow(ir_strmap *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    while (m->count * 2 >= ncap) ncap *= 2;
    ir_strmap_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return false;
    for (size_t i = 0; i < m->cap; i++) {
        const char *k = m->slots[i].key;
        if (!k || k == TOMBSTONE) continue;
        size_t j = (size_t)hash_str(k) & (ncap - 1);
        while (ns[j].key) j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = m->count;
    return true;
}

bool ir_strmap_put(ir_strmap *m, const char *key, void *value) {
    if ((m->used + 1) * 2 > m->cap && !grow(m)) return false;
    size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
    ir_strmap_slot *tomb = NULL;
    for (;;) {
        const char *k = m->slots[i].key;
        if (!k) break;
        if (k == TOMBSTONE) {
            if (!tomb) tomb = &m->slots[i];
        } else if (strcmp(k, key) == 0) {
            m->slots[i].value = value; /* the stored key pointer stays */
            return true;
        }
        i = (i + 1) & mask;
    }
    ir_strmap_slot *s = tomb ? tomb : &m->slots[i];
    if (!tomb) m->used++;
    s->key = key;
    s->value = value;
    m->count++;
    return true;
}

void ir_strmap_del(ir_strmap *m, const char *key) {
    if (!m->cap) return;
    size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
    for (;;) {
        const char *k = m->slots[i].key;
        if (!k) return;
        if (k != TOMBSTONE && strcmp(k, key) == 0) {
            m->slots[i].key = TOMBSTONE;
            m->slots[i].value = NULL;
            m->count--;
            return;
        }
        i = (i + 1) & mask;
    }
}

void ir_strmap_free(ir_strmap *m) {
    free(m->slots);
    memset(m, 0, sizeof *m);
}
