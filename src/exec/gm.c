/* gm.c — GraphModule: a graph plus its compiled plan; recompile and run. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/fast_int.h"
#include "ir/ir_int.h"

struct nnfx_gm {
    nnfx_graph *g;
    uint64_t compiled_version; /* graph version at the last recompile */
    bool compiled;
    int threads;
    nnfx_interp *interp; /* runs graphs the compiled executor does not take */
    fx_plan *fast;       /* compiled executor (static shapes), or NULL */
};

nnfx_gm *nnfx_gm_new(nnfx_graph *g, nnfx_error *err) {
    if (!g) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_new: NULL graph");
        return NULL;
    }
    nnfx_gm *gm = calloc(1, sizeof *gm);
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    gm->g = g;
    gm->threads = 1;
    return gm;
}

void nnfx_gm_free(nnfx_gm *gm) {
    if (!gm) return;
    nnfx_interp_free(gm->interp);
    fx_plan_free(gm->fast);
    nnfx_graph_free(gm->g);
    free(gm);
}

nnfx_graph *nnfx_gm_graph(nnfx_gm *gm) { return gm ? gm->g : NULL; }

void nnfx_gm_set_threads(nnfx_gm *gm, int threads) {
    if (!gm) return;
    threads = threads > 0 ? threads : 1;
    if (threads != gm->threads) gm->compiled = false; /* the plan owns the thread pool */
    gm->threads = threads;
}

nnfx_status nnfx_gm_recompile(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "recompile: NULL module");
    gm->compiled = false;
    nnfx_interp_free(gm->interp);
    gm->interp = NULL;
    fx_plan_free(gm->fast);
    gm->fast = NULL;
    nnfx_status st = nnfx_graph_lint(gm->g, err);
    if (!st) st = nnfx_graph_infer_shapes(gm->g, err);
    if (st) {
        nnfx_error_prefix(err, "recompile");
        return st;
    }
    gm->interp = exec_interp_new_linted(gm->g, NULL, NULL, err);
    if (!gm->interp) return err ? err->status : NNFX_ERR_NOMEM;
    /* The compiled executor takes graphs with static shapes; anything it
     * declines (or fails to build) runs in the interpreter, which reports
     * the errors of a bad graph at run time. */
    nnfx_error ferr = {0};
    gm->fast = fx_plan_new(gm->g, gm->threads, &ferr);
    gm->compiled_version = gm->g->version;
    gm->compiled = true;
    return NNFX_OK;
}

/* Recompiles when the graph changed since the last compile. */
static nnfx_status ensure_compiled(nnfx_gm *gm, nnfx_error *err) {
    if (gm->compiled && gm->compiled_version == gm->g->version) return NNFX_OK;
    return nnfx_gm_recompile(gm, err);
}

nnfx_status nnfx_gm_run(nnfx_gm *gm, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                        nnfx_error *err) {
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_run: NULL module");
    nnfx_status st = ensure_compiled(gm, err);
    if (st) return st;
    if (gm->fast) return fx_plan_run(gm->fast, nin, in, max_out, outs, nout, err);
    return nnfx_interp_run(gm->interp, nin, in, max_out, outs, nout, err);
}

int64_t exec_gm_compiled_peak(nnfx_gm *gm) { return gm && gm->fast ? fx_plan_peak_bytes(gm->fast) : -1; }

char *nnfx_gm_plan(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_plan: NULL module");
        return NULL;
    }
    if (ensure_compiled(gm, err)) return NULL;
    char *s =
        gm->fast
            ? fx_plan_text(gm->fast)
            : ir_strdup("# interpreted: the graph has dynamic shapes or ops the compiled executor does not take\n");
    if (!s) nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    return s;
}

char *nnfx_gm_code(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_code: NULL module");
        return NULL;
    }
    if (ensure_compiled(gm, err)) return NULL;
    return exec_graph_code(gm->g);
}
