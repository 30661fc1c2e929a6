/* fuzz_tensor_files.c — libFuzzer target for the tensor readers: the input
 * is written to a file and read as NumPy .npy and as ONNX TensorProto .pb;
 * each returns a tensor whose bytes match its shape, or an error. */
#include "fuzz_common.h"

static void check(nnfx_tensor *t, const nnfx_error *err) {
    if (!t) {
        fz_check_error(err);
        return;
    }
    size_t nb = 0;
    if (nnfx_shape_nbytes(t->dtype, t->rank, t->shape, &nb, NULL) || nb != t->nbytes) abort();
    volatile uint8_t sum = 0; /* every byte readable (ASan) */
    for (size_t i = 0; i < t->nbytes; i++)
        sum += ((const uint8_t *)t->data)[i];
    (void)sum;
    nnfx_tensor_release(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    char path[128];
    fz_path(path, sizeof path, "tensor");
    if (fz_write(path, data, size)) return 0;
    nnfx_error err = {0};
    check(nnfx_npy_load(path, &err), &err);
    memset(&err, 0, sizeof err);
    check(nnfx_tensor_pb_load(path, &err), &err);
    remove(path);
    return 0;
}
