/* text_print.c — the graph in FX's printed form, extended so it parses back:
 *
 *   graph():
 *       # param conv.weight : float32[16, 3, 3, 3]
 *       %x : [num_users=1] = placeholder[target=x]  # float32[batch, 3, 32, 32]
 *       %conv : [num_users=1] = call_function[target=conv](args = (%x, %conv_weight, None), kwargs = {pads: [0, 0, 0,
 * 0]})  # float32[batch, 16, 30, 30] {module: conv} return conv
 *
 * Everything after '#' is a comment to FX readers; nnfx_graph_parse reads
 * it back (text_parse.c has the grammar). A node owning subgraphs (If,
 * Loop, Scan) prints `name: graph` in its kwargs, and each body after its
 * line, indented, as `name = graph():` and the body's own lines.
 */
#include <stdlib.h>
#include <string.h>

#include "io/text_int.h"
#include "ir/ir_int.h"

/* Appends "  # <metas> {module: ..., source: "..."}" when there is anything to say. */
static void print_suffix(sbuf *b, const nnfx_node *n) {
    bool metas = n->nout > 1 || (n->nout == 1 && txt_meta_known(&n->meta[0]));
    bool module = n->module_path && *n->module_path;
    bool src = n->src_file != NULL;
    if (!metas && !module && !src) return;
    sb_printf(b, "  # ");
    if (n->nout > 1) {
        sb_printf(b, "(");
        for (int i = 0; i < n->nout; i++) {
            if (i) sb_printf(b, ", ");
            txt_meta(b, &n->meta[i]);
        }
        sb_printf(b, ")");
    } else {
        txt_meta(b, &n->meta[0]);
    }
    if (module || src) {
        sb_printf(b, " {");
        if (module) {
            sb_printf(b, "module: ");
            txt_word(b, n->module_path);
        }
        if (src) {
            sbuf loc = {0};
            sb_printf(&loc, "%s:%d", n->src_file, n->src_line);
            char *s = sb_finish(&loc);
            sb_printf(b, "%ssource: ", module ? ", " : "");
            txt_quoted(b, s ? s : "", '"');
            free(s);
        }
        sb_printf(b, "}");
    }
}

static void print_call(sbuf *b, const nnfx_node *n) {
    sb_printf(b, "(args = (");
    for (int i = 0; i < n->nargs; i++) {
        if (i) sb_printf(b, ", ");
        txt_arg(b, &n->args[i], true);
    }
    sb_printf(b, "%s), kwargs = {", n->nargs == 1 ? "," : "");
    for (int i = 0; i < n->nattrs; i++) {
        if (i) sb_printf(b, ", ");
        txt_key(b, n->attrs[i].name);
        sb_printf(b, ": ");
        txt_attr_value(b, &n->attrs[i], '"');
    }
    sb_printf(b, "})");
}

/* The bodies of a control-flow node, indented under its line. */
static void print_bodies(sbuf *b, const nnfx_node *n) {
    for (int i = 0; i < n->nattrs; i++) {
        if (n->attrs[i].kind != NNFX_ATTR_GRAPH) continue;
        char *text = nnfx_graph_to_text(n->attrs[i].u.g);
        if (!text) {
            b->oom = true;
            return;
        }
        const char *p = strchr(text, '\n'); /* after "graph():" */
        sb_printf(b, "        ");
        txt_key(b, n->attrs[i].name);
        sb_printf(b, " = graph():\n");
        for (p = p ? p + 1 : ""; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            sb_printf(b, "        %.*s\n", len, p);
            p += len + (nl != NULL);
        }
        free(text);
    }
}

static void print_node(sbuf *b, const nnfx_node *n) {
    if (n->opcode == NNFX_OUTPUT) {
        sb_printf(b, "    return ");
        if (n->nargs == 1) {
            txt_arg(b, &n->args[0], false);
        } else {
            sb_printf(b, "(");
            for (int i = 0; i < n->nargs; i++) {
                if (i) sb_printf(b, ", ");
                txt_arg(b, &n->args[i], false);
            }
            sb_printf(b, ")");
        }
        sb_printf(b, "\n");
        return;
    }
    sb_printf(b, "    %%%s : [num_users=%d] = %s[target=", n->name, n->nusers, nnfx_opcode_name(n->opcode));
    if (n->opcode == NNFX_CALL_FUNCTION)
        sb_printf(b, "%s", nnfx_op_name(n->op));
    else
        txt_word(b, n->target);
    sb_printf(b, "]");
    if (n->opcode == NNFX_CALL_FUNCTION || n->opcode == NNFX_CALL_MODULE) print_call(b, n);
    print_suffix(b, n);
    sb_printf(b, "\n");
    print_bodies(b, n);
}

char *nnfx_graph_to_text(const nnfx_graph *g) {
    sbuf b = {0};
    sb_printf(&b, "graph():\n");
    if (g) {
        for (int i = 0; i < g->nparams; i++) {
            const nnfx_tensor *t = g->params[i].t;
            nnfx_meta m;
            nnfx_meta_set_shape(&m, t->dtype, t->rank, t->shape);
            sb_printf(&b, "    # param ");
            txt_word(&b, g->params[i].name);
            sb_printf(&b, " : ");
            txt_meta(&b, &m);
            sb_printf(&b, "\n");
        }
        for (const nnfx_node *n = g->head; n; n = n->next)
            print_node(&b, n);
    }
    return sb_finish(&b);
}
