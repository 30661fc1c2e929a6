/* graphviz.h — SVG rendering through Graphviz's `dot` program. */
#ifndef NNFX_CLI_GRAPHVIZ_H
#define NNFX_CLI_GRAPHVIZ_H

#include "cli/cli.h"

/* The full path of an executable `name` found on PATH (malloc'd), or NULL. */
char *cli_find_program(const char *name);
/* Renders DOT text to SVG with `dot -Tsvg`; returns the malloc'd SVG, or
 * NULL with err set (NNFX_ERR_UNSUPPORTED when dot is not installed). */
char *cli_dot_to_svg(const char *dot_text, nnfx_error *err);

#endif
