/* arena.c — per-graph slab allocator (see arena.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arena.h"

#if defined(__SANITIZE_ADDRESS__)
#define IR_ARENA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IR_ARENA_SANITIZED 1
#endif
#endif

/* Chunk header; sanitized builds use it as a doubly linked block header. */
struct ir_arena_chunk {
    ir_arena_chunk *next, *prev;
    size_t size;
    size_t pad; /* keeps the payload 16-byte aligned */
};

#define CHUNK_FIRST ((size_t)64 * 1024)
#define CHUNK_LIMIT ((size_t)4 * 1024 * 1024)

/* Tracked blocks: one malloc each, on a doubly linked list so that
 * ir_arena_release frees them (blocks over IR_ARENA_MAX; every block in
 * sanitized builds). */
static void *tracked_alloc(ir_arena *a, size_t size) {
    ir_arena_chunk *c = malloc(sizeof *c + (size ? size : 1));
    if (!c) return NULL;
    c->size = size;
    c->prev = NULL;
    c->next = a->big;
    if (a->big) a->big->prev = c;
    a->big = c;
    return c + 1;
}

static void tracked_free(ir_arena *a, void *p, size_t size) {
    ir_arena_chunk *c = (ir_arena_chunk *)p - 1;
    if (c->size != size) abort(); /* a caller broke the size contract */
    if (c->prev)
        c->prev->next = c->next;
    else
        a->big = c->next;
    if (c->next) c->next->prev = c->prev;
    free(c);
}

#ifdef IR_ARENA_SANITIZED

void *ir_arena_alloc(ir_arena *a, size_t size) { return tracked_alloc(a, size); }

void ir_arena_free(ir_arena *a, void *p, size_t size) {
    if (p) tracked_free(a, p, size);
}

#else

/* Released chunks kept for the next graph, up to CACHE_BYTES in all, one
 * list per chunk size (64 KB doubling to 4 MB). A trace -> edit -> copy
 * loop builds and frees graphs of the same size over and over; fresh
 * memory costs a page fault per 4 KB on first touch, which made up most
 * of a trace's time on some virtual machines. */
#define CACHE_BYTES   ((size_t)64 * 1024 * 1024)
#define CACHE_CLASSES 7
static ir_arena_chunk *g_cache[CACHE_CLASSES];
static size_t g_cache_bytes;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;

/* The cache list of chunks of payload size `size`, or -1 for none. */
static int cache_class(size_t size) {
    for (int k = 0; k < CACHE_CLASSES; k++)
        if (size == CHUNK_FIRST << k) return k;
    return -1;
}

/* A cached chunk of payload size `size`, or NULL. */
static ir_arena_chunk *cache_take(size_t size) {
    int k = cache_class(size);
    if (k < 0) return NULL;
    pthread_mutex_lock(&g_cache_mu);
    ir_arena_chunk *c = g_cache[k];
    if (c) g_cache[k] = c->next, g_cache_bytes -= size;
    pthread_mutex_unlock(&g_cache_mu);
    return c;
}

/* Keeps c for reuse when it fits the cache, else frees it. */
static void cache_give(ir_arena_chunk *c) {
    int k = cache_class(c->size);
    if (k >= 0) {
        pthread_mutex_lock(&g_cache_mu);
        bool keep = g_cache_bytes + c->size <= CACHE_BYTES;
        if (keep) c->next = g_cache[k], g_cache[k] = c, g_cache_bytes += c->size;
        pthread_mutex_unlock(&g_cache_mu);
        if (keep) return;
    }
    free(c);
}

/* Carves a block of class size cs from the current chunk, adding a chunk
 * when the tail is too short (the old tail goes to the free lists). */
static void *carve(ir_arena *a, size_t cs) {
    if ((size_t)(a->end - a->cur) < cs) {
        while (a->cur && a->end - a->cur >= 16) {
            size_t left = (size_t)(a->end - a->cur);
            size_t k = (left > IR_ARENA_MAX ? IR_ARENA_MAX : left) / 16;
            void **blk = (void **)a->cur;
            *blk = a->free_list[k - 1];
            a->free_list[k - 1] = blk;
            a->cur += k * 16;
        }
        size_t want = a->next_chunk ? a->next_chunk : CHUNK_FIRST;
        ir_arena_chunk *c = cache_take(want);
        if (!c) c = malloc(sizeof *c + want);
        if (!c) return NULL;
        c->size = want;
        c->next = a->chunks;
        a->chunks = c;
        a->cur = (char *)(c + 1);
        a->end = a->cur + want;
        if (want < CHUNK_LIMIT) a->next_chunk = want * 2;
    }
    void *p = a->cur;
    a->cur += cs;
    return p;
}

void *ir_arena_alloc(ir_arena *a, size_t size) {
    if (size > IR_ARENA_MAX) return tracked_alloc(a, size);
    size_t k = size ? (size - 1) / 16 : 0;
    void **blk = a->free_list[k];
    if (blk) {
        a->free_list[k] = *blk;
        return blk;
    }
    return carve(a, (k + 1) * 16);
}

void ir_arena_free(ir_arena *a, void *p, size_t size) {
    if (!p) return;
    if (size > IR_ARENA_MAX) {
        tracked_free(a, p, size);
        return;
    }
    size_t k = size ? (size - 1) / 16 : 0;
    void **blk = p;
    *blk = a->free_list[k];
    a->free_list[k] = blk;
}

#endif

void *ir_arena_calloc(ir_arena *a, size_t size) {
    void *p = ir_arena_alloc(a, size);
    if (p) memset(p, 0, size);
    return p;
}

char *ir_arena_strdup(ir_arena *a, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = ir_arena_alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}

void ir_arena_release(ir_arena *a) {
    for (ir_arena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
#ifdef IR_ARENA_SANITIZED
        free(c);
#else
        cache_give(c);
#endif
    }
    for (ir_arena_chunk *c = a->big, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    memset(a, 0, sizeof *a);
}
