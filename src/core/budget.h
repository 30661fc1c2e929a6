/* budget.h — the memory budget on owned tensor storage (limits.c), a
 * narrow header the command includes too (to refuse reading a file past
 * the budget with the library's own message). */
#ifndef NNFX_CORE_BUDGET_H
#define NNFX_CORE_BUDGET_H

#include <stddef.h>

#include "nnfx.h"

/* Memory budget (nnfx_set_memory_limit) on owned tensor storage.
 * core_budget_check: would `bytes` more fit? NNFX_ERR_NOMEM naming `what`,
 * the size and the limit when not. core_budget_take: the same check, and
 * counts the bytes as in use; core_budget_give returns them. */
nnfx_status core_budget_check(size_t bytes, const char *what, nnfx_error *err);
nnfx_status core_budget_take(size_t bytes, const char *what, nnfx_error *err);
void core_budget_give(size_t bytes);

#endif
