/* graph_json.h — the graph as JSON (for `nnfx inspect --format json`). */
#ifndef NNFX_CLI_GRAPH_JSON_H
#define NNFX_CLI_GRAPH_JSON_H

#include "cli/cli.h"

/* Appends one node's attribute value as JSON. */
void cli_json_attr_value(sbuf *b, const nnfx_attr *a);
/* Appends {"name", "dtype", "shape"} for a node's first value. */
void cli_json_value_entry(sbuf *b, const nnfx_node *n);
/* The graph as a JSON document (malloc'd; NULL on out of memory):
 * {"inputs": [...], "outputs": [...], "params": [{name, dtype, shape}],
 *  "nodes": [{name, opcode, target, op, args, attrs, dtype, shape, users,
 *  module}]}. */
char *cli_graph_to_json(const nnfx_graph *g);

#endif
