/* fuzz_onnx_run.c — libFuzzer target: an ONNX model that loads must also
 * survive shape inference, planning and one run on small inputs (crashes
 * hide behind the loader), under a 64 MiB tensor budget. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load_buffer(data, size, &err);
    if (!g) {
        fz_check_error(&err);
        return 0;
    }
    if (nnfx_graph_infer_shapes(g, &err)) fz_check_error(&err);
    fz_run_graph(g);
    return 0;
}
