/* limits.c — checked size arithmetic, the memory budget on tensor storage,
 * and the allocation hook used for fault injection (core/alloc_hook.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core_int.h"

/* ---- checked size arithmetic ----------------------------------------- */

nnfx_status nnfx_shape_nbytes(nnfx_dtype dt, int rank, const int64_t *shape, size_t *nbytes, nnfx_error *err) {
    size_t es = nnfx_dtype_size(dt);
    if (es == 0) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "unsupported tensor dtype %d", (int)dt);
    if (rank < 0 || rank > NNFX_MAX_RANK)
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "tensor rank %d outside 0..%d", rank, NNFX_MAX_RANK);
    if (rank > 0 && !shape) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "tensor shape is NULL");
    int64_t n = nnfx_shape_numel(rank, shape);
    int64_t bytes;
    /* SIZE_MAX / 2 keeps every later `bytes + padding` in range */
    if (n < 0 || __builtin_mul_overflow(n, (int64_t)es, &bytes) || (uint64_t)bytes > (uint64_t)(SIZE_MAX / 2)) {
        char buf[200];
        return nnfx_error_set(err, NNFX_ERR_SHAPE, "tensor shape %s is negative or too large",
                              nnfx_shape_str(rank, shape, buf, sizeof buf));
    }
    if (nbytes) *nbytes = (size_t)bytes;
    return NNFX_OK;
}

/* ---- the memory budget ------------------------------------------------- */

static _Atomic size_t mem_limit;  /* 0: none */
static _Atomic size_t mem_in_use; /* bytes of owned tensor storage */

void nnfx_set_memory_limit(size_t bytes) { atomic_store(&mem_limit, bytes); }
size_t nnfx_memory_limit(void) { return atomic_load(&mem_limit); }
size_t nnfx_memory_in_use(void) { return atomic_load(&mem_in_use); }

size_t nnfx_physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0;
    if ((unsigned long)pages > SIZE_MAX / (unsigned long)page) return SIZE_MAX;
    return (size_t)pages * (size_t)page;
}

static void fmt_bytes(size_t b, char *buf, size_t len) {
    if (b >= ((size_t)1 << 30))
        snprintf(buf, len, "%.1f GiB", (double)b / (double)((size_t)1 << 30));
    else if (b >= ((size_t)1 << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (double)((size_t)1 << 20));
    else
        snprintf(buf, len, "%zu bytes", b);
}

nnfx_status core_budget_check(size_t bytes, const char *what, nnfx_error *err) {
    size_t lim = atomic_load(&mem_limit);
    if (!lim) return NNFX_OK;
    size_t used = atomic_load(&mem_in_use);
    if (bytes > lim || used > lim - bytes) {
        char want[32], have[32], cap[32];
        fmt_bytes(bytes, want, sizeof want);
        fmt_bytes(used, have, sizeof have);
        fmt_bytes(lim, cap, sizeof cap);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "%s needs %s, over the memory budget of %s (%s in use)",
                              what ? what : "a tensor", want, cap, have);
    }
    return NNFX_OK;
}

nnfx_status core_budget_take(size_t bytes, const char *what, nnfx_error *err) {
    size_t lim = atomic_load(&mem_limit);
    if (!lim) {
        atomic_fetch_add(&mem_in_use, bytes);
        return NNFX_OK;
    }
    size_t used = atomic_load(&mem_in_use);
    do {
        if (bytes > lim || used > lim - bytes) return core_budget_check(bytes, what, err);
    } while (!atomic_compare_exchange_weak(&mem_in_use, &used, used + bytes));
    return NNFX_OK;
}

void core_budget_give(size_t bytes) { atomic_fetch_sub(&mem_in_use, bytes); }

/* ---- allocation hook ------------------------------------------------------ */

#undef malloc
#undef calloc
#undef realloc
#undef aligned_alloc
#undef strdup

static _Atomic long alloc_count; /* allocations since the last arm */
static _Atomic long alloc_fail_at;

void nnfx_alloc_fail_at(long k) {
    atomic_store(&alloc_count, 0);
    atomic_store(&alloc_fail_at, k > 0 ? k : 0);
}

long nnfx_alloc_count(void) { return atomic_load(&alloc_count); }

/* True when this allocation is the one chosen to fail. */
static bool alloc_fails(void) {
    long k = atomic_fetch_add(&alloc_count, 1) + 1;
    long at = atomic_load(&alloc_fail_at);
    return at > 0 && k == at;
}

void *core_malloc(size_t n) { return alloc_fails() ? NULL : malloc(n); }
void *core_calloc(size_t n, size_t m) { return alloc_fails() ? NULL : calloc(n, m); }
void *core_realloc(void *p, size_t n) { return alloc_fails() ? NULL : realloc(p, n); }
void *core_aligned_alloc(size_t a, size_t n) { return alloc_fails() ? NULL : aligned_alloc(a, n); }

/* Large blocks: anonymous pages, zero until written and not resident until
 * touched (page-aligned, so 64-byte aligned too). */
#define CORE_PAGES_MIN ((size_t)4 << 20)

void *core_tensor_data_alloc(size_t n) {
    if (n < CORE_PAGES_MIN) {
        void *p = core_aligned_alloc(64, n);
        if (p) memset(p, 0, n);
        return p;
    }
    if (alloc_fails()) return NULL;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *core_tensor_data_alloc_filled(size_t n) {
    if (n < CORE_PAGES_MIN) return core_tensor_data_alloc(n);
    if (alloc_fails()) return NULL;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void core_tensor_data_free(void *p, size_t n) {
    if (!p) return;
    if (n < CORE_PAGES_MIN)
        free(p);
    else
        munmap(p, n);
}
char *core_strdup(const char *s) {
    if (alloc_fails()) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
