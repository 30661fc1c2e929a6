/* passes_int.h — helpers shared by the passes: reports, node removal,
 * fresh parameter names. */
#ifndef NNFX_PASSES_INT_H
#define NNFX_PASSES_INT_H

#include "nnfx.h"

/* Starts a pass run on report r (may be NULL): records name and size. */
void ps_begin(nnfx_pass_report *r, const char *name, const nnfx_graph *g);
/* Ends a pass run: records the final size. */
void ps_end(nnfx_pass_report *r, const nnfx_graph *g);
/* Appends a skipped item (node name, printf-style reason). */
void ps_skip(nnfx_pass_report *r, const char *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Sends n's users to its first input (a node) and erases n. */
nnfx_status ps_bypass(nnfx_graph *g, nnfx_node *n, nnfx_error *err);
/* Erases get_attr nodes without users and drops unused parameters. */
void ps_drop_dead_params(nnfx_graph *g);
/* Adds t as a new parameter named after base ("conv.weight" ->
 * "conv.weight_fused", "_fused_1", ...); returns its get_attr node created
 * at the current insert point, or NULL. */
nnfx_node *ps_new_param(nnfx_graph *g, const char *base, const char *suffix, nnfx_tensor *t, nnfx_error *err);

#endif
