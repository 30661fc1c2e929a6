/* dot.c — the graph as Graphviz DOT (render with `dot -Tsvg`). One box per
 * node labelled name / op / shape; placeholders, parameters, leaf calls and
 * the output get their own shapes and colours; one edge per node argument
 * (labelled with the argument index when a node takes several). */
#include <stdlib.h>
#include <string.h>

#include "io/text_int.h"
#include "ir/ir_int.h"

/* Appends s as the inside of a DOT double-quoted string. */
static void dot_escape(sbuf *b, const char *s) {
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '"' || *p == '\\') {
            sb_append(b, "\\", 1);
            sb_append(b, p, 1);
        } else if (*p == '\n') {
            sb_append(b, "\\n", 2);
        } else if ((unsigned char)*p < 0x20) {
            sb_append(b, " ", 1);
        } else {
            sb_append(b, p, 1);
        }
    }
}

static void dot_label(sbuf *b, const nnfx_node *n) {
    sbuf l = {0};
    sb_printf(&l, "%s\n", n->name);
    switch (n->opcode) {
    case NNFX_CALL_FUNCTION: sb_printf(&l, "%s", nnfx_op_name(n->op)); break;
    case NNFX_OUTPUT: sb_printf(&l, "output"); break;
    default: sb_printf(&l, "%s %s", nnfx_opcode_name(n->opcode), n->target ? n->target : ""); break;
    }
    for (int i = 0; i < n->nout; i++) {
        if (!txt_meta_known(&n->meta[i])) continue;
        sb_printf(&l, "\n");
        txt_meta(&l, &n->meta[i]);
    }
    if (n->module_path && *n->module_path) sb_printf(&l, "\n(%s)", n->module_path);
    char *s = sb_finish(&l);
    dot_escape(b, s ? s : n->name);
    free(s);
}

static const char *dot_style(const nnfx_node *n) {
    switch (n->opcode) {
    case NNFX_PLACEHOLDER: return "shape=ellipse, style=filled, fillcolor=\"#cfe8ff\"";
    case NNFX_GET_ATTR: return "shape=note, style=filled, fillcolor=\"#eeeeee\"";
    case NNFX_CALL_MODULE: return "shape=box3d, style=filled, fillcolor=\"#ffe9c7\"";
    case NNFX_OUTPUT: return "shape=doubleoctagon, style=filled, fillcolor=\"#d6f5d6\"";
    case NNFX_CALL_FUNCTION: break;
    }
    return "shape=box, style=rounded";
}

char *nnfx_graph_to_dot(const nnfx_graph *g) {
    sbuf b = {0};
    sb_printf(&b, "digraph \"graph\" {\n    rankdir=TB;\n    node [fontname=\"monospace\", fontsize=10];\n");
    for (const nnfx_node *n = g ? g->head : NULL; n; n = n->next) {
        sb_printf(&b, "    \"");
        dot_escape(&b, n->name);
        sb_printf(&b, "\" [label=\"");
        dot_label(&b, n);
        sb_printf(&b, "\", %s];\n", dot_style(n));
    }
    for (const nnfx_node *n = g ? g->head : NULL; n; n = n->next) {
        for (int i = 0; i < n->nargs; i++) {
            const nnfx_arg *a = &n->args[i];
            if (a->kind != NNFX_ARG_NODE || !a->u.node) continue;
            sb_printf(&b, "    \"");
            dot_escape(&b, a->u.node->name);
            sb_printf(&b, "\" -> \"");
            dot_escape(&b, n->name);
            sb_printf(&b, "\"");
            if (n->nargs > 1 && n->opcode != NNFX_OUTPUT) sb_printf(&b, " [label=\"%d\"]", i);
            sb_printf(&b, ";\n");
        }
    }
    sb_printf(&b, "}\n");
    return sb_finish(&b);
}
