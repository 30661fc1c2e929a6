/* sbuf.c — growable string buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sbuf.h"

static bool sb_reserve(sbuf *b, size_t extra) {
    if (b->oom) return false;
    if (b->s && b->len + extra + 1 <= b->cap) return true;
    size_t nc = b->cap ? b->cap * 2 : 1024;
    while (nc < b->len + extra + 1)
        nc *= 2;
    char *ns = realloc(b->s, nc);
    if (!ns) {
        b->oom = true;
        return false;
    }
    b->s = ns;
    b->cap = nc;
    return true;
}

void sb_printf(sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0 || !sb_reserve(b, (size_t)k)) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

void sb_append(sbuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

char *sb_finish(sbuf *b) {
    if (b->oom) {
        free(b->s);
        b->s = NULL;
        return NULL;
    }
    if (!b->s && !sb_reserve(b, 0)) return NULL;
    b->s[b->len] = 0;
    char *s = b->s;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}
