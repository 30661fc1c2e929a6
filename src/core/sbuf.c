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

void sb_attr_value(sbuf *b, const nnfx_attr *a, const sb_attr_style *s) {
    switch (a->kind) {
    case NNFX_ATTR_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
    case NNFX_ATTR_FLOAT: s->real(b, a->u.f, s->ctx); break;
    case NNFX_ATTR_STRING: s->str(b, a->u.s, s->ctx); break;
    case NNFX_ATTR_INTS:
        sb_printf(b, "%s", s->open);
        for (int i = 0; i < a->u.ints.n; i++)
            sb_printf(b, "%s%lld", i ? ", " : "", (long long)a->u.ints.v[i]);
        sb_printf(b, "%s", s->close);
        break;
    case NNFX_ATTR_FLOATS:
        sb_printf(b, "%s", s->open);
        for (int i = 0; i < a->u.floats.n; i++) {
            if (i) sb_printf(b, ", ");
            s->real_item(b, a->u.floats.v[i], s->ctx);
        }
        sb_printf(b, "%s", s->close);
        break;
    case NNFX_ATTR_TENSOR: s->tensor(b, a->u.t, s->ctx); break;
    case NNFX_ATTR_GRAPH: s->graph(b, a->u.g, s->ctx); break;
    }
}
