/* sbuf.h — a growable string buffer for printers. Usage:
 *     sbuf b = {0};
 *     sb_printf(&b, "%d nodes\n", n);
 *     char *s = sb_finish(&b);   // malloc'd, or NULL if any append failed
 */
#ifndef NNFX_SBUF_H
#define NNFX_SBUF_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
