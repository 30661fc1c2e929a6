/* alloc_hook.h — routes the library's heap allocations through the core
 * allocation hook (src/core/limits.c), so that nnfx_alloc_fail_at can make
 * the k-th one fail (fault injection, like SQLite's). The build force-includes
 * this header in every library source (-include), so call sites keep writing
 * malloc/calloc/realloc/aligned_alloc/strdup. The system headers are read
 * first, so their declarations are not renamed. */
#ifndef NNFX_ALLOC_HOOK_H
#define NNFX_ALLOC_HOOK_H

#include <stdlib.h>
#include <string.h>

void *core_malloc(size_t n);
void *core_calloc(size_t n, size_t m);
void *core_realloc(void *p, size_t n);
void *core_aligned_alloc(size_t align, size_t n);
char *core_strdup(const char *s);

#define malloc(n)           core_malloc(n)
#define calloc(n, m)        core_calloc((n), (m))
#define realloc(p, n)       core_realloc((p), (n))
#define aligned_alloc(a, n) core_aligned_alloc((a), (n))
#define strdup(s)           core_strdup(s)

#endif
