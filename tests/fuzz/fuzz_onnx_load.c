/* fuzz_onnx_load.c — libFuzzer target: nnfx_onnx_load_buffer must return a
 * graph or a clean error for any input, and an imported graph must export.
 * Build with -DNNFX_FUZZ=ON (clang); seeds in tests/fuzz/corpus/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nnfx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load_buffer(data, size, &err);
    if (!g) {
        if (err.status == NNFX_OK || !err.msg[0]) abort(); /* a failure must say why */
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/nnfx_fuzz_%d.onnx", (int)getpid());
    nnfx_onnx_save(g, path, NULL, &err); /* may fail cleanly (unknown dtypes) */
    remove(path);
    nnfx_graph_free(g);
    return 0;
}
