/* registry.c — passes by name, for the CLI and scripts. */
#include <string.h>

#include "passes/passes_int.h"

typedef nnfx_status (*pass_fn)(nnfx_graph *g, nnfx_pass_report *r, nnfx_error *err);

static const struct {
    const char *name;
    pass_fn fn;
    const char *description;
} passes[] = {
    {"fuse-conv-bn", nnfx_pass_fuse_conv_bn, "fold BatchNormalization into the preceding Conv/Gemm/MatMul"},
    {"remove-bn", nnfx_pass_remove_bn, "replace every BatchNormalization by its input"},
    {"remove-dropout", nnfx_pass_remove_dropout, "replace every Dropout by its input"},
    {"remove-identity", nnfx_pass_remove_identity, "replace no-op nodes (Identity, Dropout) by their input"},
    {"dce", ps_dce, "remove nodes and parameters nothing uses"},
    {"cse", nnfx_pass_cse, "merge identical pure computations"},
    {"fold-constants", nnfx_pass_fold_constants, "evaluate constant subgraphs into parameters"},
    {"shape-prop", nnfx_pass_shape_prop, "re-infer every node's dtype and shape"},
};

#define NPASSES ((int)(sizeof passes / sizeof passes[0]))

int nnfx_pass_count(void) { return NPASSES; }
const char *nnfx_pass_name(int i) { return i >= 0 && i < NPASSES ? passes[i].name : NULL; }
const char *nnfx_pass_description(int i) { return i >= 0 && i < NPASSES ? passes[i].description : NULL; }

nnfx_status nnfx_pass_run_by_name(nnfx_graph *g, const char *name, nnfx_pass_report *report, nnfx_error *err) {
    if (!g || !name) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "run pass: NULL graph or name");
    for (int i = 0; i < NPASSES; i++)
        if (strcmp(passes[i].name, name) == 0) return passes[i].fn(g, report, err);
    char list[400];
    size_t off = 0;
    list[0] = 0;
    for (int i = 0; i < NPASSES && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", passes[i].name);
    return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "unknown pass '%s' (passes: %s)", name, list);
}
