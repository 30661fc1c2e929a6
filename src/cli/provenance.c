/* provenance.c — what every model nnfx writes says about where it came
 * from: metadata_props nnfx.version, nnfx.build (cli_build_id), nnfx.source_sha256 (of the input
 * file), nnfx.steps (passes and rewrites in order, JSON) and
 * nnfx.validation (JSON, when checked), and the opset chosen with --opset.
 * A command fills a cli_provenance and makes it current for its thread;
 * cli_save_model then passes it to nnfx_onnx_save. */
#include <stdlib.h>
#include <string.h>

#include "build_id.h"
#include "cli/cli.h"
#include "publish/publish.h"

const char *cli_build_id(void) { return NNFX_BUILD_ID; }

static _Thread_local cli_provenance *current;

int cli_provenance_begin(cli_provenance *p, const char *cmd, const char *source) {
    memset(p, 0, sizeof *p);
    nnfx_error err = {0};
    if (pub_sha256_file(source, p->source_sha256, NULL, &err)) return cli_fail(cmd, source, &err);
    return CLI_EXIT_OK;
}

void cli_provenance_use(cli_provenance *p) {
    current = p;
    if (!p) return;
    p->n = 0;
    p->keys[p->n] = "nnfx.version";
    p->values[p->n++] = NNFX_VERSION;
    p->keys[p->n] = "nnfx.build";
    p->values[p->n++] = NNFX_BUILD_ID;
    if (p->source_sha256[0]) {
        p->keys[p->n] = "nnfx.source_sha256";
        p->values[p->n++] = p->source_sha256;
    }
    p->keys[p->n] = "nnfx.steps";
    p->values[p->n++] = p->steps ? p->steps : "[]";
    if (p->validation) {
        p->keys[p->n] = "nnfx.validation";
        p->values[p->n++] = p->validation;
    }
}

void cli_provenance_apply(nnfx_onnx_save_options *o) {
    if (!current) return;
    o->opset = current->opset;
    o->nmetadata = current->n;
    o->metadata_keys = current->keys;
    o->metadata_values = current->values;
}

int cli_provenance_check_opset(const char *cmd, const nnfx_graph *g, const cli_provenance *p, bool quiet) {
    char why[256];
    nnfx_error err = {0};
    int64_t v = nnfx_onnx_export_opset(g, p ? p->opset : 0, why, &err);
    if (v < 0) {
        cli_error(cmd, "%s", err.msg);
        return CLI_EXIT_BAD_INPUT;
    }
    if (why[0] && !quiet) fprintf(stderr, "nnfx %s: note: writing opset %lld: %s\n", cmd, (long long)v, why);
    return CLI_EXIT_OK;
}

void cli_provenance_free(cli_provenance *p) {
    if (!p) return;
    if (current == p) current = NULL;
    free(p->steps);
    free(p->validation);
    p->steps = p->validation = NULL;
}
