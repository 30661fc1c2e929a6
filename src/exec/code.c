/* code.c — gm.code: the graph as a readable C-like forward function. */
#include <stdlib.h>
#include <string.h>

#include "core/sbuf.h"
#include "exec/exec_int.h"
#include "ir/ir_int.h"

static void print_arg(sbuf *b, const nnfx_arg *a) {
    switch (a->kind) {
    case NNFX_ARG_NONE: sb_printf(b, "NULL"); break;
    case NNFX_ARG_NODE: sb_printf(b, "%s", a->u.node->name); break;
    case NNFX_ARG_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
    case NNFX_ARG_FLOAT: sb_printf(b, "%g", a->u.f); break;
    }
}

/* gm.code's writers for sb_attr_value. */
static void code_real(sbuf *b, double v, void *ctx) { sb_printf(b, "%g", v); }
static void code_real_item(sbuf *b, float v, void *ctx) { sb_printf(b, "%g", (double)v); }
static void code_str(sbuf *b, const char *s, void *ctx) { sb_printf(b, "\"%s\"", s); }
static void code_tensor(sbuf *b, const nnfx_tensor *t, void *ctx) { sb_printf(b, "<tensor>"); }
static void code_graph(sbuf *b, const nnfx_graph *g, void *ctx) {
    sb_printf(b, "<graph of %d nodes>", nnfx_graph_num_nodes(g));
}

/* name=value of attribute a, as gm.code writes it. */
static void print_attr(sbuf *b, const nnfx_attr *a) {
    static const sb_attr_style st = {"{", "}", code_real, code_real_item, code_str, code_tensor, code_graph, NULL};
    sb_printf(b, "%s=", a->name);
    sb_attr_value(b, a, &st);
}

char *exec_graph_code(const nnfx_graph *g) {
    sbuf b = {0};
    sb_printf(&b, "tensor forward(");
    int k = 0;
    for (nnfx_node *n = g->head; n; n = n->next)
        if (n->opcode == NNFX_PLACEHOLDER) sb_printf(&b, "%stensor %s", k++ ? ", " : "", n->name);
    sb_printf(&b, ")\n{\n");
    char mbuf[256];
    for (nnfx_node *n = g->head; n; n = n->next) {
        switch (n->opcode) {
        case NNFX_PLACEHOLDER: continue;
        case NNFX_GET_ATTR: sb_printf(&b, "    tensor %s = self->%s;", n->name, n->target); break;
        case NNFX_OUTPUT:
            sb_printf(&b, "    return ");
            if (n->nargs != 1) sb_printf(&b, "(");
            for (int i = 0; i < n->nargs; i++) {
                if (i) sb_printf(&b, ", ");
                print_arg(&b, &n->args[i]);
            }
            if (n->nargs != 1) sb_printf(&b, ")");
            sb_printf(&b, ";\n");
            continue;
        case NNFX_CALL_FUNCTION:
        case NNFX_CALL_MODULE: {
            sb_printf(&b, "    tensor %s = %s(", n->name, nnfx_node_target(n));
            int c = 0;
            for (int i = 0; i < n->nargs; i++, c++) {
                if (c) sb_printf(&b, ", ");
                print_arg(&b, &n->args[i]);
            }
            for (int i = 0; i < n->nattrs; i++, c++) {
                if (c) sb_printf(&b, ", ");
                print_attr(&b, &n->attrs[i]);
            }
            sb_printf(&b, ");");
            break;
        }
        }
        sb_printf(&b, "  /* %s", nnfx_meta_str(&n->meta[0], mbuf, sizeof mbuf));
        if (n->module_path && *n->module_path) sb_printf(&b, ", %s", n->module_path);
        sb_printf(&b, " */\n");
    }
    sb_printf(&b, "}\n");
    return sb_finish(&b);
}
