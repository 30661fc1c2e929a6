/* arena.h — per-graph slab allocator for nodes and their small arrays and
 * strings. Blocks up to IR_ARENA_MAX bytes come from size-class free lists
 * carved out of large chunks, so creating and erasing nodes costs a few
 * instructions and freeing a graph releases a handful of chunks instead of
 * every node piece by piece. Larger blocks go to malloc.
 *
 * Contract: ir_arena_free must be given the same size as the matching
 * ir_arena_alloc (callers derive it from the block: strlen + 1, a count
 * times an element size). In sanitizer builds every block is a separate
 * malloc so that AddressSanitizer still sees use-after-free and overflows. */
#ifndef NNFX_ARENA_H
#define NNFX_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#define IR_ARENA_MAX     1024
#define IR_ARENA_CLASSES (IR_ARENA_MAX / 16)

typedef struct ir_arena_chunk ir_arena_chunk;

typedef struct ir_arena {
    void *free_list[IR_ARENA_CLASSES]; /* class k holds blocks of 16 * (k + 1) bytes */
    char *cur, *end;                   /* unused tail of the newest chunk */
    ir_arena_chunk *chunks;            /* slab chunks                       */
    ir_arena_chunk *big;               /* separately malloc'd blocks        */
    size_t next_chunk;                 /* size of the next chunk to get */
} ir_arena;

/* A block of at least size bytes (16-byte aligned, uninitialised), or NULL
 * on allocation failure. size 0 gives a valid minimal block. */
void *ir_arena_alloc(ir_arena *a, size_t size);
/* A zeroed block (as ir_arena_alloc). */
void *ir_arena_calloc(ir_arena *a, size_t size);
/* Returns a block to the arena; p may be NULL. */
void ir_arena_free(ir_arena *a, void *p, size_t size);
/* Copy of s (NUL-terminated) in the arena; NULL for NULL s or on failure.
 * Free with ir_arena_free(a, p, strlen(p) + 1). */
char *ir_arena_strdup(ir_arena *a, const char *s);
/* A large block (hash tables, arena chunks) of size bytes, zeroed when
 * zero, or NULL on failure. Released blocks are cached process-wide for
 * reuse (up to a bound), so graphs built and freed in a loop do not fault
 * fresh pages in each time. Free with ir_big_free and the same size. */
void *ir_big_alloc(size_t size, bool zero);
/* Releases (or caches) a block from ir_big_alloc; p may be NULL. */
void ir_big_free(void *p, size_t size);
/* Releases every cached block; returns their bytes (0 in sanitized builds,
 * which cache nothing). */
size_t ir_big_trim(void);
/* Frees every block at once; the arena is empty and reusable afterwards. */
void ir_arena_release(ir_arena *a);

#endif
