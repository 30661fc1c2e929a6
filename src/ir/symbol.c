/* symbol.c — interned symbolic dim names (nnfx_dim.symbol): one copy per
 * distinct name for the life of the process, so metas stay small and copy
 * by assignment. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_int.h"

static ir_strmap g_symbols; /* name -> its interned copy (the key itself) */
static pthread_mutex_t g_symbols_mu = PTHREAD_MUTEX_INITIALIZER;

const char *nnfx_symbol(const char *name) {
    if (!name) return NULL;
    if (!*name) return "";
    size_t n = strlen(name);
    uint64_t h = ir_strmap_hash_n(name, n);
    pthread_mutex_lock(&g_symbols_mu);
    char *s = ir_strmap_get_h(&g_symbols, name, h);
    if (!s && (s = malloc(n + 1)) != NULL) {
        memcpy(s, name, n + 1);
        if (!ir_strmap_put_h(&g_symbols, s, h, s)) {
            free(s);
            s = NULL;
        }
    }
    pthread_mutex_unlock(&g_symbols_mu);
    return s;
}
