/* graph_json.c — the graph as JSON: nodes with their arguments,
 * attributes, metas and users; parameters; inputs and outputs. */
#include <stdlib.h>

#include "cli/graph_json.h"

/* JSON's writers for sb_attr_value. */
static void json_real(sbuf *b, double v, void *ctx) { cli_json_num(b, v); }
static void json_real_item(sbuf *b, float v, void *ctx) { cli_json_num(b, v); }
static void json_str(sbuf *b, const char *s, void *ctx) { cli_json_str(b, s); }
static void json_tensor(sbuf *b, const nnfx_tensor *t, void *ctx) {
    if (!t) {
        sb_printf(b, "null");
        return;
    }
    sb_printf(b, "{\"tensor\": {\"dtype\": \"%s\", \"shape\": [", nnfx_dtype_name(t->dtype));
    for (int d = 0; d < t->rank; d++)
        sb_printf(b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    sb_printf(b, "]}}");
}
static void json_graph(sbuf *b, const nnfx_graph *g, void *ctx) {
    sb_printf(b, "{\"graph\": {\"nodes\": %d}}", nnfx_graph_num_nodes(g));
}

void cli_json_attr_value(sbuf *b, const nnfx_attr *a) {
    static const sb_attr_style st = {"[", "]", json_real, json_real_item, json_str, json_tensor, json_graph, NULL};
    sb_attr_value(b, a, &st);
}

void cli_json_value_entry(sbuf *b, const nnfx_node *n) {
    const nnfx_meta *m = nnfx_node_meta_c(n, 0);
    sb_printf(b, "{\"name\": ");
    cli_json_str(b, nnfx_node_name(n));
    sb_printf(b, ", \"dtype\": ");
    cli_json_str(b, m ? nnfx_dtype_name(m->dtype) : "undefined");
    sb_printf(b, ", \"shape\": ");
    cli_json_shape(b, m);
    sb_printf(b, "}");
}

char *cli_graph_to_json(const nnfx_graph *g) {
    sbuf b = {0};
    sb_printf(&b, "{\n  \"inputs\": [");
    for (int i = 0; i < nnfx_graph_num_inputs(g); i++) {
        if (i) sb_printf(&b, ", ");
        cli_json_value_entry(&b, nnfx_graph_input(g, i));
    }
    sb_printf(&b, "],\n  \"outputs\": [");
    const nnfx_node *outn = nnfx_graph_output_node(g);
    for (int i = 0; outn && i < nnfx_node_num_args(outn); i++) {
        const nnfx_node *src = nnfx_node_arg_node(outn, i);
        if (!src) continue;
        if (i) sb_printf(&b, ", ");
        cli_json_value_entry(&b, src);
    }
    sb_printf(&b, "],\n  \"params\": [");
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        nnfx_meta t = {0}; /* dtype and shape only: the weight is not read */
        nnfx_graph_param_meta_at(g, i, &t);
        sb_printf(&b, "%s\n    {\"name\": ", i ? "," : "");
        cli_json_str(&b, nnfx_graph_param_name(g, i));
        sb_printf(&b, ", \"dtype\": \"%s\", \"shape\": [", nnfx_dtype_name(t.dtype));
        for (int d = 0; d < t.rank; d++)
            sb_printf(&b, "%s%lld", d ? ", " : "", (long long)t.dims[d].value);
        sb_printf(&b, "]}");
    }
    sb_printf(&b, "],\n  \"nodes\": [");
    int k = 0;
    for (const nnfx_node *n = nnfx_graph_first(g); n; n = nnfx_node_next(n), k++) {
        sb_printf(&b, "%s\n    {\"name\": ", k ? "," : "");
        cli_json_str(&b, nnfx_node_name(n));
        sb_printf(&b, ", \"opcode\": \"%s\", \"target\": ", nnfx_opcode_name(nnfx_node_opcode(n)));
        cli_json_str(&b, nnfx_node_target(n));
        if (nnfx_node_opcode(n) == NNFX_CALL_FUNCTION) {
            sb_printf(&b, ", \"op\": ");
            const char *ot = nnfx_op_onnx_type(nnfx_node_op(n));
            cli_json_str(&b, ot && *ot ? ot : nnfx_op_name(nnfx_node_op(n)));
        }
        sb_printf(&b, ", \"args\": [");
        for (int i = 0; i < nnfx_node_num_args(n); i++) {
            nnfx_arg a = nnfx_node_arg(n, i);
            if (i) sb_printf(&b, ", ");
            switch (a.kind) {
            case NNFX_ARG_NODE: cli_json_str(&b, nnfx_node_name(a.u.node)); break;
            case NNFX_ARG_INT: sb_printf(&b, "%lld", (long long)a.u.i); break;
            case NNFX_ARG_FLOAT: cli_json_num(&b, a.u.f); break;
            default: sb_printf(&b, "null");
            }
        }
        sb_printf(&b, "], \"attrs\": {");
        for (int i = 0; i < nnfx_node_num_attrs(n); i++) {
            const nnfx_attr *a = nnfx_node_attr_at(n, i);
            if (i) sb_printf(&b, ", ");
            cli_json_str(&b, a->name);
            sb_printf(&b, ": ");
            cli_json_attr_value(&b, a);
        }
        sb_printf(&b, "}");
        if (nnfx_node_opcode(n) != NNFX_OUTPUT) {
            int no = nnfx_node_num_outputs(n);
            sb_printf(&b, ", \"values\": [");
            for (int i = 0; i < no; i++) {
                const nnfx_meta *m = nnfx_node_meta_c(n, i);
                sb_printf(&b, "%s{\"dtype\": ", i ? ", " : "");
                cli_json_str(&b, m ? nnfx_dtype_name(m->dtype) : "undefined");
                sb_printf(&b, ", \"shape\": ");
                cli_json_shape(&b, m);
                sb_printf(&b, "}");
            }
            sb_printf(&b, "]");
        }
        sb_printf(&b, ", \"users\": [");
        for (int i = 0; i < nnfx_node_num_users(n); i++) {
            if (i) sb_printf(&b, ", ");
            cli_json_str(&b, nnfx_node_name(nnfx_node_user(n, i)));
        }
        sb_printf(&b, "]");
        const char *mod = nnfx_node_module_path(n);
        if (mod && *mod) {
            sb_printf(&b, ", \"module\": ");
            cli_json_str(&b, mod);
        }
        sb_printf(&b, "}");
    }
    sb_printf(&b, "\n  ]\n}\n");
    return sb_finish(&b);
}
