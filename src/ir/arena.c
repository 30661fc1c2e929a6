/* arena.c — per-graph slab allocator (see arena.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

void *ir_big_alloc(size_t size, bool zero) { return zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1); }

void ir_big_free(void *p, size_t size) {
    (void)size;
    free(p);
}

size_t ir_big_trim(void) { return 0; }

#else

/* Released large blocks (arena chunks, hash tables) kept for the next
 * graph, up to CACHE_BYTES in all. A trace -> edit -> copy loop builds and
 * frees graphs of the same size over and over; fresh memory costs a page
 * fault per 4 KB on first touch, which made up most of a trace's time on
 * some virtual machines. Blocks of 2 MB and more are mapped 2 MB-aligned
 * and offered to transparent huge pages (one fault per 2 MB). */
#define CACHE_BYTES ((size_t)256 * 1024 * 1024)
#define CACHE_SLOTS 128
#define CACHE_MIN   ((size_t)64 * 1024) /* smaller blocks: plain malloc */
#define HUGE_BYTES  ((size_t)2 * 1024 * 1024)
typedef struct cached_block {
    void *p;
    size_t size;
} cached_block;
static cached_block g_cache[CACHE_SLOTS];
static int g_cache_n;
static size_t g_cache_bytes;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;

/* A cached block of exactly `size` bytes (the newest), or NULL. */
static void *cache_take(size_t size) {
    void *p = NULL;
    pthread_mutex_lock(&g_cache_mu);
    for (int i = g_cache_n - 1; i >= 0; i--)
        if (g_cache[i].size == size) {
            p = g_cache[i].p;
            g_cache[i] = g_cache[--g_cache_n];
            g_cache_bytes -= size;
            break;
        }
    pthread_mutex_unlock(&g_cache_mu);
    return p;
}

/* Keeps block p of `size` bytes for reuse when it fits the cache; false
 * when the caller must release it. */
static bool cache_give(void *p, size_t size) {
    pthread_mutex_lock(&g_cache_mu);
    bool keep = g_cache_n < CACHE_SLOTS && g_cache_bytes + size <= CACHE_BYTES;
    if (keep) g_cache[g_cache_n++] = (cached_block){p, size}, g_cache_bytes += size;
    pthread_mutex_unlock(&g_cache_mu);
    return keep;
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define BIG_MAPPED 1
/* A fresh 2 MB-aligned zeroed mapping of size bytes (a multiple of 2 MB
 * or not), offered to transparent huge pages; NULL on failure. */
static void *map_huge(size_t size) {
    size_t span = size + HUGE_BYTES;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    char *a = (char *)(((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (a > p) munmap(p, (size_t)(a - p));
    size_t tail = (size_t)(p + span - (a + size));
    if (tail) munmap(a + size, tail);
    madvise(a, size, MADV_HUGEPAGE);
    return a;
}
#endif

void *ir_big_alloc(size_t size, bool zero) {
    if (size < CACHE_MIN) return zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
    void *p = cache_take(size);
    if (p) {
        if (zero) memset(p, 0, size);
        return p;
    }
#ifdef BIG_MAPPED
    if (size >= HUGE_BYTES) return map_huge(size);
#endif
    return zero ? calloc(1, size) : malloc(size);
}

/* Returns block p of `size` bytes from ir_big_alloc to the system. */
static void big_release(void *p, size_t size) {
#ifdef BIG_MAPPED
    if (size >= HUGE_BYTES) {
        munmap(p, size);
        return;
    }
#endif
    (void)size;
    free(p);
}

void ir_big_free(void *p, size_t size) {
    if (!p) return;
    if (size >= CACHE_MIN && cache_give(p, size)) return;
    big_release(p, size);
}

size_t ir_big_trim(void) {
    size_t released = 0;
    for (;;) {
        pthread_mutex_lock(&g_cache_mu);
        cached_block b = {NULL, 0};
        if (g_cache_n > 0) b = g_cache[--g_cache_n], g_cache_bytes -= b.size;
        pthread_mutex_unlock(&g_cache_mu);
        if (!b.p) return released;
        released += b.size;
        big_release(b.p, b.size);
    }
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
        ir_arena_chunk *c = ir_big_alloc(want, false);
        if (!c) return NULL;
        c->size = want;
        c->next = a->chunks;
        a->chunks = c;
        a->cur = (char *)(c + 1);
        a->end = (char *)c + want;
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
        ir_big_free(c, c->size);
#endif
    }
    for (ir_arena_chunk *c = a->big, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    memset(a, 0, sizeof *a);
}
