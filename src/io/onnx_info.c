/* onnx_info.c — ONNX model metadata kept on a graph (nnfx_graph.model_info)
 * so that export writes back what import read: IR version, opsets,
 * producer, doc strings, metadata_props, graph name and original value
 * and node names. */
#include <stdlib.h>
#include <string.h>

#include "io/onnx_int.h"
#include "ir/ir_int.h"

bool onnx_kv_push(onnx_kv **arr, int *n, int *cap, const char *key, const char *value) {
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        onnx_kv *grown = realloc(*arr, sizeof **arr * (size_t)nc);
        if (!grown) return false;
        *arr = grown;
        *cap = nc;
    }
    char *k = ir_strdup(key ? key : ""), *v = ir_strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return false;
    }
    (*arr)[*n].key = k;
    (*arr)[*n].value = v;
    (*n)++;
    return true;
}

static void kv_free(onnx_kv *arr, int n) {
    for (int i = 0; i < n; i++) {
        free(arr[i].key);
        free(arr[i].value);
    }
    free(arr);
}

void onnx_info_free(void *p) {
    onnx_model_info *info = p;
    if (!info) return;
    kv_free(info->opsets, info->nopsets);
    kv_free(info->meta, info->nmeta);
    kv_free(info->names, info->nnames);
    kv_free(info->node_names, info->nnode_names);
    for (int i = 0; i < info->next_files; i++)
        free(info->ext_files[i]);
    free(info->ext_files);
    free(info->producer_name);
    free(info->producer_version);
    free(info->domain);
    free(info->doc_string);
    free(info->graph_name);
    free(info->graph_doc);
    free(info);
}

/* Copies n kv pairs; false on OOM. */
static bool kv_copy(onnx_kv **dst, int *dn, const onnx_kv *src, int n) {
    int cap = 0;
    *dst = NULL;
    *dn = 0;
    for (int i = 0; i < n; i++)
        if (!onnx_kv_push(dst, dn, &cap, src[i].key, src[i].value)) return false;
    return true;
}

void *onnx_info_copy(const void *p) {
    const onnx_model_info *s = p;
    if (!s) return NULL;
    onnx_model_info *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->ir_version = s->ir_version;
    d->model_version = s->model_version;
    bool ok = kv_copy(&d->opsets, &d->nopsets, s->opsets, s->nopsets) &&
              kv_copy(&d->meta, &d->nmeta, s->meta, s->nmeta) && kv_copy(&d->names, &d->nnames, s->names, s->nnames);
    d->cap_names = d->nnames;
    ok = ok && kv_copy(&d->node_names, &d->nnode_names, s->node_names, s->nnode_names);
    d->cap_node_names = d->nnode_names;
    if (ok && s->next_files && (d->ext_files = calloc((size_t)s->next_files, sizeof *d->ext_files)))
        for (; d->next_files < s->next_files && ok; d->next_files++)
            ok = (d->ext_files[d->next_files] = ir_strdup(s->ext_files[d->next_files])) != NULL;
    else if (s->next_files)
        ok = false;
    const char *const src_strings[] = {s->producer_name, s->producer_version, s->domain,
                                       s->doc_string,    s->graph_name,       s->graph_doc};
    char **dst_strings[] = {&d->producer_name, &d->producer_version, &d->domain,
                            &d->doc_string,    &d->graph_name,       &d->graph_doc};
    for (size_t i = 0; i < sizeof src_strings / sizeof src_strings[0]; i++)
        if (src_strings[i] && !(*dst_strings[i] = ir_strdup(src_strings[i]))) ok = false;
    if (!ok) {
        onnx_info_free(d);
        return NULL;
    }
    return d;
}

const onnx_model_info *onnx_info_of(const nnfx_graph *g) {
    if (!g || g->model_info_free != onnx_info_free) return NULL;
    return g->model_info;
}
