/* onnx_int.h — shared internals of the ONNX reader and writer (io/ only):
 * field numbers of onnx.proto, the model metadata kept on a graph for round
 * trips, and TensorProto decoding/encoding. */
#ifndef NNFX_ONNX_INT_H
#define NNFX_ONNX_INT_H

#include "io/onnx_info.h"
#include "io/onnx_wire.h"
#include "nnfx.h"

/* Field numbers (onnx.proto, IR version 8). */
enum {
    /* ModelProto */
    PB_MODEL_IR_VERSION = 1,
    PB_MODEL_PRODUCER_NAME = 2,
    PB_MODEL_PRODUCER_VERSION = 3,
    PB_MODEL_DOMAIN = 4,
    PB_MODEL_MODEL_VERSION = 5,
    PB_MODEL_DOC_STRING = 6,
    PB_MODEL_GRAPH = 7,
    PB_MODEL_OPSET_IMPORT = 8,
    PB_MODEL_METADATA_PROPS = 14,
    PB_MODEL_FUNCTIONS = 25,
    /* OperatorSetIdProto, StringStringEntryProto */
    PB_OPSET_DOMAIN = 1,
    PB_OPSET_VERSION = 2,
    PB_KV_KEY = 1,
    PB_KV_VALUE = 2,
    /* GraphProto */
    PB_GRAPH_NODE = 1,
    PB_GRAPH_NAME = 2,
    PB_GRAPH_INITIALIZER = 5,
    PB_GRAPH_DOC_STRING = 10,
    PB_GRAPH_INPUT = 11,
    PB_GRAPH_OUTPUT = 12,
    PB_GRAPH_VALUE_INFO = 13,
    PB_GRAPH_SPARSE_INITIALIZER = 15,
    /* NodeProto */
    PB_NODE_INPUT = 1,
    PB_NODE_OUTPUT = 2,
    PB_NODE_NAME = 3,
    PB_NODE_OP_TYPE = 4,
    PB_NODE_ATTRIBUTE = 5,
    PB_NODE_DOC_STRING = 6,
    PB_NODE_DOMAIN = 7,
    /* AttributeProto */
    PB_ATTR_NAME = 1,
    PB_ATTR_F = 2,
    PB_ATTR_I = 3,
    PB_ATTR_S = 4,
    PB_ATTR_T = 5,
    PB_ATTR_G = 6,
    PB_ATTR_FLOATS = 7,
    PB_ATTR_INTS = 8,
    PB_ATTR_STRINGS = 9,
    PB_ATTR_TYPE = 20,
    /* ValueInfoProto, TypeProto, TypeProto.Tensor, TensorShapeProto(.Dimension) */
    PB_VI_NAME = 1,
    PB_VI_TYPE = 2,
    PB_TYPE_TENSOR = 1,
    PB_TENSOR_TYPE_ELEM = 1,
    PB_TENSOR_TYPE_SHAPE = 2,
    PB_SHAPE_DIM = 1,
    PB_DIM_VALUE = 1,
    PB_DIM_PARAM = 2,
    /* TensorProto */
    PB_T_DIMS = 1,
    PB_T_DATA_TYPE = 2,
    PB_T_SEGMENT = 3,
    PB_T_FLOAT_DATA = 4,
    PB_T_INT32_DATA = 5,
    PB_T_STRING_DATA = 6,
    PB_T_INT64_DATA = 7,
    PB_T_NAME = 8,
    PB_T_RAW_DATA = 9,
    PB_T_DOUBLE_DATA = 10,
    PB_T_UINT64_DATA = 11,
    PB_T_EXTERNAL_DATA = 13,
    PB_T_DATA_LOCATION = 14
};

/* AttributeProto.AttributeType values. */
enum {
    PB_AT_FLOAT = 1,
    PB_AT_INT = 2,
    PB_AT_STRING = 3,
    PB_AT_TENSOR = 4,
    PB_AT_GRAPH = 5,
    PB_AT_FLOATS = 6,
    PB_AT_INTS = 7,
    PB_AT_STRINGS = 8
};

/* Copy/free callbacks stored with the info on a graph. */
void *onnx_info_copy(const void *info);
void onnx_info_free(void *info);
/* Appends key/value to a kv array (strings copied); false on OOM. */
bool onnx_kv_push(onnx_kv **arr, int *n, int *cap, const char *key, const char *value);

/* --- Tensors ------------------------------------------------------------- */

/* Where tensors come from while loading: the mapped model (zero-copy) or a
 * plain buffer (copied), and the directory for external data files. */
/* Mapped tensors (and initializer fields) at least this large have their
 * file pages unmapped again once read past at load (core_mapping_drop): a
 * load keeps no weight bytes resident. */
#define ONNX_DROP_MAPPED_BYTES (64 * 1024)

typedef struct onnx_load_ctx {
    const char *what;  /* file name for messages                           */
    const char *dir;   /* directory of the model file; NULL for a buffer   */
    nnfx_mapping *map; /* the model's mapping, or NULL (data is copied)    */
    int next;
    struct {
        char *path;
        nnfx_mapping *m;
    } * ext;              /* external data files mapped so far                 */
    bool defer_unaligned; /* large unaligned tensors may stay in the file:
                             only for initializers, which reach kernels
                             through the graph's accessors (they align) */
    nnfx_error *err;
} onnx_load_ctx;

/* Releases the external mappings cached in c. */
void onnx_load_ctx_done(onnx_load_ctx *c);
/* Decodes the TensorProto read by r into a new tensor (*out, refcount 1)
 * and its name (*name, malloc'd, may be NULL when not wanted). Raw data is
 * mapped when aligned, external data is mapped from the side file. */
nnfx_status onnx_read_tensor(onnx_load_ctx *c, ow_reader *r, char **name, nnfx_tensor **out);
/* ONNX data type code -> nnfx dtype (UNDEFINED when nnfx lacks it). */
nnfx_dtype onnx_dtype(int64_t onnx_type);
/* ONNX name of a data type code ("FLOAT", "STRING"...). */
const char *onnx_dtype_name(int64_t onnx_type);

/* The opset from which op takes its `axes` as an input instead of an
 * attribute: 13 for Squeeze, Unsqueeze and ReduceSum, 18 for the other ops
 * flagged NNFX_F_REDUCE, 0 for ops without axes (onnx_upgrade.c). */
int64_t onnx_axes_input_opset(nnfx_op op);

/* Writes a TensorProto as field `num` of b with raw_data (or, when loc is
 * not NULL, as external data at loc/offset). */
void onnx_write_tensor(ow_buf *b, uint32_t num, const char *name, const nnfx_tensor *t, const char *loc,
                       uint64_t offset);

#endif
