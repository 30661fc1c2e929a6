/* symbol.h — reading symbolic dim names (nnfx_dim.symbol, interned by
 * nnfx_symbol in symbol.c). */
#ifndef NNFX_IR_SYMBOL_H
#define NNFX_IR_SYMBOL_H

#include <string.h>

#include "nnfx.h"

/* The symbol of dim d, "" when it has none (NULL and "" both mean none). */
static inline const char *ir_sym(const nnfx_dim *d) { return d->symbol ? d->symbol : ""; }
/* Whether two dim symbols name the same thing (NULL equals ""). */
static inline bool ir_sym_eq(const char *a, const char *b) { return a == b || strcmp(a ? a : "", b ? b : "") == 0; }

#endif
