/* tensor_pb.c — reads a serialized ONNX TensorProto (.pb), the format of
 * the input_N.pb / output_N.pb files of ONNX's node tests. */
#include <stdlib.h>
#include <string.h>

#include "io/onnx_int.h"

nnfx_tensor *nnfx_tensor_pb_load(const char *path, nnfx_error *err) {
    if (!path) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "tensor_pb_load: path is NULL");
        return NULL;
    }
    nnfx_error local = {0};
    if (!err) err = &local;
    nnfx_mapping *m = nnfx_mapping_open(path, err);
    if (!m) return NULL;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    onnx_load_ctx c;
    memset(&c, 0, sizeof c);
    c.what = slash ? slash + 1 : path;
    c.dir = dir;
    c.map = m;
    c.err = err;
    nnfx_tensor *t = NULL;
    if (!dir) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    } else {
        ow_reader r = ow_reader_init(nnfx_mapping_data(m), nnfx_mapping_size(m), c.what, err);
        onnx_read_tensor(&c, &r, NULL, &t);
    }
    onnx_load_ctx_done(&c);
    free(dir);
    nnfx_mapping_release(m);
    return t;
}
