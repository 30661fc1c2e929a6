/* fuzz_text_parse.c — libFuzzer target for the text IR: nnfx_graph_parse
 * returns a graph or an error with a message; a parsed graph prints, parses
 * back, copies, and goes through shape inference, planning and one run. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(text, &err);
    free(text);
    if (!g) {
        fz_check_error(&err);
        return 0;
    }
    char *printed = nnfx_graph_to_text(g);
    if (printed) {
        nnfx_graph *back = nnfx_graph_parse(printed, &err);
        nnfx_graph_free(back); /* may fail: the printed form keeps shapes, not values */
        free(printed);
    }
    free(nnfx_graph_tabular(g));
    free(nnfx_graph_to_dot(g));
    nnfx_graph *c = nnfx_graph_copy(g, NULL, &err);
    nnfx_graph_free(c);
    fz_run_graph(g);
    return 0;
}
