/* fuzz_onnx_roundtrip.c — libFuzzer target for the ONNX writer: a model
 * that loads and saves must load back, with the same inputs and outputs. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load_buffer(data, size, &err);
    if (!g) {
        fz_check_error(&err);
        return 0;
    }
    char path[128];
    fz_path(path, sizeof path, "rt.onnx");
    if (nnfx_onnx_save(g, path, NULL, &err)) {
        fz_check_error(&err); /* may fail cleanly (a dtype ONNX export does not write) */
    } else {
        nnfx_graph *back = nnfx_onnx_load(path, &err);
        if (!back) abort(); /* what nnfx writes, nnfx must read */
        /* same interface; node counts may differ (the writer may spell an
         * op with an extra parameter or fold one back into an attribute) */
        if (nnfx_graph_num_inputs(back) != nnfx_graph_num_inputs(g) ||
            nnfx_node_num_args(nnfx_graph_output_node(back)) != nnfx_node_num_args(nnfx_graph_output_node(g)))
            abort();
        nnfx_graph_free(back);
    }
    remove(path);
    nnfx_graph_free(g);
    return 0;
}
