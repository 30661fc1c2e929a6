/* text_tabular.c — FX's print_tabular: one row per node under the header
 * opcode / name / target / args / kwargs, columns left-aligned and padded
 * to the widest cell, two spaces apart, a line of dashes under the header
 * (tabulate's "simple" format; trailing blanks are trimmed). Args and
 * kwargs are written as Python would repr them: (x, 1), {'axis': 1}. */
#include <stdlib.h>
#include <string.h>

#include "io/text_int.h"
#include "ir/ir_int.h"

#define TAB_COLS 5

static char *cell_args(const nnfx_node *n) {
    sbuf b = {0};
    bool wrap = n->opcode == NNFX_OUTPUT && n->nargs != 1; /* FX: output args = ((a, b),) */
    sb_printf(&b, wrap ? "((" : "(");
    for (int i = 0; i < n->nargs; i++) {
        if (i) sb_printf(&b, ", ");
        txt_arg(&b, &n->args[i], false);
    }
    if (n->nargs == 1) sb_printf(&b, ",");
    sb_printf(&b, wrap ? "),)" : ")");
    return sb_finish(&b);
}

static char *cell_kwargs(const nnfx_node *n) {
    sbuf b = {0};
    sb_printf(&b, "{");
    for (int i = 0; i < n->nattrs; i++) {
        if (i) sb_printf(&b, ", ");
        txt_quoted(&b, n->attrs[i].name, '\'');
        sb_printf(&b, ": ");
        txt_attr_value(&b, &n->attrs[i], '\'');
    }
    sb_printf(&b, "}");
    return sb_finish(&b);
}

char *nnfx_graph_tabular(const nnfx_graph *g) {
    static const char *const header[TAB_COLS] = {"opcode", "name", "target", "args", "kwargs"};
    int rows = (g ? g->num_nodes : 0) + 1;
    char **cells = calloc((size_t)rows * TAB_COLS, sizeof *cells);
    if (!cells) return NULL;
    bool ok = true;
    for (int c = 0; c < TAB_COLS; c++)
        ok &= (cells[c] = ir_strdup(header[c])) != NULL;
    int r = 1;
    for (const nnfx_node *n = g ? g->head : NULL; n && r < rows; n = n->next, r++) {
        char **row = cells + (size_t)r * TAB_COLS;
        row[0] = ir_strdup(nnfx_opcode_name(n->opcode));
        row[1] = ir_strdup(n->name);
        row[2] = ir_strdup(nnfx_node_target(n));
        row[3] = cell_args(n);
        row[4] = cell_kwargs(n);
        for (int c = 0; c < TAB_COLS; c++)
            ok &= row[c] != NULL;
    }
    rows = r;
    char *out = NULL;
    if (ok) {
        size_t width[TAB_COLS] = {0};
        for (int i = 0; i < rows; i++)
            for (int c = 0; c < TAB_COLS; c++) {
                size_t l = strlen(cells[(size_t)i * TAB_COLS + c]);
                if (l > width[c]) width[c] = l;
            }
        sbuf b = {0};
        for (int i = 0; i < rows; i++) {
            size_t start = b.len;
            for (int c = 0; c < TAB_COLS; c++) {
                const char *cell = cells[(size_t)i * TAB_COLS + c];
                sb_printf(&b, "%s%-*s", c ? "  " : "", (int)width[c], cell);
            }
            while (b.len > start && b.s && b.s[b.len - 1] == ' ')
                b.len--;
            sb_printf(&b, "\n");
            if (i == 0) {
                for (int c = 0; c < TAB_COLS; c++) {
                    if (c) sb_printf(&b, "  ");
                    for (size_t k = 0; k < width[c]; k++)
                        sb_append(&b, "-", 1);
                }
                sb_printf(&b, "\n");
            }
        }
        out = sb_finish(&b);
    }
    for (int i = 0; i < rows * TAB_COLS; i++)
        free(cells[i]);
    free(cells);
    return out;
}
