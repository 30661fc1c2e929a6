/* onnx_info.h — what an ONNX load kept of the model beside the graph
 * (opsets, producer, metadata_props, the original value and node names,
 * the external data files read), read-only. A narrow header of io/ that
 * the command includes (onnx_int.h is io/'s own); onnx_info.c. */
#ifndef NNFX_ONNX_INFO_H
#define NNFX_ONNX_INFO_H

#include <stdint.h>

#include "nnfx.h"

/* --- Model metadata kept in nnfx_graph.model_info ------------------------- */

typedef struct onnx_kv {
    char *key, *value;
} onnx_kv;

typedef struct onnx_model_info {
    int64_t ir_version;
    int nopsets;
    onnx_kv *opsets; /* key: domain ("" default), value: version as text */
    char *producer_name, *producer_version, *domain, *doc_string;
    int64_t model_version;
    int nmeta;
    onnx_kv *meta; /* metadata_props                                   */
    char *graph_name, *graph_doc;
    int nnames, cap_names;
    onnx_kv *names; /* node name -> original ONNX value name (when they differ) */
    int nnode_names, cap_node_names;
    onnx_kv *node_names; /* node name -> original NodeProto name (when they differ) */
    int next_files;
    char **ext_files; /* the external data files read at load (paths as opened) */
} onnx_model_info;

/* The info attached to g by the importer, or NULL. */
const onnx_model_info *onnx_info_of(const nnfx_graph *g);

#endif
