/* passes_int.h — helpers shared by the passes: reports and node removal
 * (new parameters and dropping dead ones: ir_graph_new_param and
 * ir_graph_drop_dead_params, ir/ir_int.h). */
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
/* The "dce" pass (registry.c): nnfx_eliminate_dead_code, then unused
 * parameters dropped; report->changed counts both. NNFX_ERR_INVALID_ARG
 * for a NULL graph. */
nnfx_status ps_dce(nnfx_graph *g, nnfx_pass_report *report, nnfx_error *err);

#endif
