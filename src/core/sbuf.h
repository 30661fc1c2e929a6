/* sbuf.h — a growable string buffer for printers. Usage:
 *     sbuf b = {0};
 *     sb_printf(&b, "%d nodes\n", n);
 *     char *s = sb_finish(&b);   // malloc'd, or NULL if any append failed
 */
#ifndef NNFX_SBUF_H
#define NNFX_SBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "nnfx.h"

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool oom; /* an append failed; later appends do nothing */
} sbuf;

/* Appends formatted text. */
void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends n bytes. */
void sb_append(sbuf *b, const char *s, size_t n);
/* The string (caller frees), or NULL after an allocation failure. */
char *sb_finish(sbuf *b);

/* How sb_attr_value writes an attribute's value: the brackets of a list
 * and a writer for each kind the printers write differently (the text IR,
 * JSON, gm.code); ctx goes to every writer. */
typedef struct sb_attr_style {
    const char *open, *close;                                 /* around INTS and FLOATS */
    void (*real)(sbuf *b, double v, void *ctx);               /* FLOAT */
    void (*real_item)(sbuf *b, float v, void *ctx);           /* an element of FLOATS */
    void (*str)(sbuf *b, const char *s, void *ctx);           /* STRING */
    void (*tensor)(sbuf *b, const nnfx_tensor *t, void *ctx); /* TENSOR (t may be NULL) */
    void (*graph)(sbuf *b, const nnfx_graph *g, void *ctx);   /* GRAPH */
    void *ctx;
} sb_attr_style;
/* Appends attribute a's value (not its name) in style s: INT and the
 * elements of INTS as decimal integers, list elements separated by ", ",
 * the rest through s's writers. The one attribute printer. */
void sb_attr_value(sbuf *b, const nnfx_attr *a, const sb_attr_style *s);

#endif
