/* text_int.h — helpers shared by the text forms of the graph IR (the
 * printed form, the parser, the table and the DOT view). The io/ text files
 * use the prefix txt_.
 *
 * Word syntax shared by printer and parser: a target, parameter name,
 * module path or symbolic dim is printed bare when every byte is one of
 * [A-Za-z0-9_.:/+@-] (txt_is_bare_char), and otherwise as a double-quoted
 * string with C-style escapes (\" \\ \n \t \r \xHH).
 */
#ifndef NNFX_TEXT_INT_H
#define NNFX_TEXT_INT_H

#include <stdbool.h>

#include "core/sbuf.h"
#include "nnfx.h"

/* True when c may appear in a bare (unquoted) word. */
bool txt_is_bare_char(int c);
/* Appends s double-quoted with escapes. */
void txt_quoted(sbuf *b, const char *s, char quote);
/* Appends s bare when possible, else quoted. */
void txt_word(sbuf *b, const char *s);
/* Appends an attribute name: bare when [A-Za-z0-9_]+, else quoted. */
void txt_key(sbuf *b, const char *s);
/* Appends a double with the fewest digits that read back to the same value,
 * always with a '.' or an exponent ("1.0", "1e-05"); "inf", "-inf", "nan". */
void txt_double(sbuf *b, double v);
/* Same for a float32 value (at most 9 significant digits). */
void txt_float(sbuf *b, float v);
/* True when m says anything (dtype or rank known). */
bool txt_meta_known(const nnfx_meta *m);
/* Appends meta: "?" (nothing known), "float32" (rank unknown),
 * "float32[1, batch, ?]" (dims: number, symbol, unknown). */
void txt_meta(sbuf *b, const nnfx_meta *m);
/* Appends a positional argument: "%name" (or "name" without percent),
 * an int, a float, or "None". */
void txt_arg(sbuf *b, const nnfx_arg *a, bool percent);
/* Appends an attribute value: 3, 0.5, "s" (quote char q), [1, 2],
 * [0.5, 1.0], tensor(float32[2, 3]). */
void txt_attr_value(sbuf *b, const nnfx_attr *a, char q);

#endif
