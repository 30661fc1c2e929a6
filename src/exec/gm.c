/* gm.c — GraphModule: a graph plus its compiled plan; recompile and run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sbuf.h"
#include "exec/exec_int.h"
#include "exec/fast_int.h"
#include "ir/ir_int.h"

struct nnfx_gm {
    nnfx_graph *g;
    uint64_t compiled_version; /* graph version at the last recompile */
    bool compiled;             /* linted and shapes inferred at compiled_version */
    bool planned;              /* the plan below was built (or declined) since */
    int threads;
    bool profile;        /* nnfx_gm_set_profile: time the plan's steps */
    nnfx_interp *interp; /* runs graphs the compiled executor does not take */
    fx_plan *fast;       /* compiled executor (static shapes), or NULL */
    fx_split *split;     /* or: compiled around data-dependent nodes (split_plan.c) */
    char why[1024];      /* planned && !fast: why the interpreter runs it */
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

/* Drops the plan (and the interpreter) built for the last compile. */
static void drop_plan(nnfx_gm *gm) {
    nnfx_interp_free(gm->interp);
    gm->interp = NULL;
    fx_plan_free(gm->fast);
    gm->fast = NULL;
    fx_split_free(gm->split);
    gm->split = NULL;
    gm->planned = false;
    gm->why[0] = 0;
}

void nnfx_gm_free(nnfx_gm *gm) {
    if (!gm) return;
    drop_plan(gm);
    nnfx_graph_free(gm->g);
    free(gm);
}

nnfx_graph *nnfx_gm_graph(nnfx_gm *gm) { return gm ? gm->g : NULL; }

void nnfx_gm_set_threads(nnfx_gm *gm, int threads) {
    if (!gm) return;
    threads = threads > 0 ? threads : 1;
    if (threads != gm->threads) drop_plan(gm); /* the plan owns the thread pool */
    gm->threads = threads;
}

nnfx_status nnfx_gm_set_profile(nnfx_gm *gm, bool on, nnfx_error *err) {
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "set_profile: NULL module");
    gm->profile = on;
    if ((gm->fast && fx_plan_set_profile(gm->fast, on)) || (gm->split && fx_split_set_profile(gm->split, on)))
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory for the profile counters");
    return NNFX_OK;
}

char *nnfx_gm_profile(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "profile: NULL module");
        return NULL;
    }
    if (!gm->profile) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "profile: turn it on with nnfx_gm_set_profile before running");
        return NULL;
    }
    if (!gm->fast && !gm->split) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "profile: %s",
                       gm->planned ? "the graph does not run on the compiled plan (interpreted)"
                                   : "no run since the last compile");
        return NULL;
    }
    char *t = gm->fast ? fx_plan_profile_text(gm->fast) : fx_split_profile_text(gm->split);
    if (!t) nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    return t;
}

nnfx_status nnfx_gm_recompile(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "recompile: NULL module");
    gm->compiled = false;
    drop_plan(gm);
    nnfx_status st = ir_graph_lint_and_infer(gm->g, err);
    if (st) {
        nnfx_error_prefix(err, "recompile");
        return st;
    }
    /* the plan is built on first use (run, plan, nnfx_gm_compile) */
    gm->compiled_version = gm->g->version;
    gm->compiled = true;
    return NNFX_OK;
}

/* Recompiles when the graph changed since the last compile. */
static nnfx_status ensure_compiled(nnfx_gm *gm, nnfx_error *err) {
    if (gm->compiled && gm->compiled_version == gm->g->version) return NNFX_OK;
    return nnfx_gm_recompile(gm, err);
}

/* Recompiles if needed, then builds the plan if not built yet. The compiled
 * executor takes graphs with static shapes; one whose only non-static
 * shapes come after data-dependent nodes is split there (fx_split); a
 * graph both decline (NNFX_ERR_UNSUPPORTED: dynamic input shapes, leaf
 * modules...) runs in the interpreter, and gm->why says why. Any other
 * failure (out of memory, a constant subgraph whose kernel fails) is
 * returned. */
static nnfx_status ensure_plan(nnfx_gm *gm, nnfx_error *err) {
    nnfx_status st = ensure_compiled(gm, err);
    if (st || gm->planned) return st;
    nnfx_error ferr = {0}, serr = {0};
    gm->fast = fx_plan_new(gm->g, gm->threads, &ferr);
    if (gm->fast && gm->profile && fx_plan_set_profile(gm->fast, true)) {
        drop_plan(gm);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory for the profile counters");
    }
    if (!gm->fast) {
        if (ferr.status == NNFX_ERR_UNSUPPORTED) gm->split = fx_split_new(gm->g, gm->threads, &serr);
        if (gm->split && gm->profile && fx_split_set_profile(gm->split, true)) {
            drop_plan(gm);
            return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory for the profile counters");
        }
        if (!gm->split && serr.status && serr.status != NNFX_ERR_UNSUPPORTED) ferr = serr;
        if (!gm->split && ferr.status != NNFX_ERR_UNSUPPORTED) {
            if (err) *err = ferr;
            nnfx_error_prefix(err, "compile");
            return ferr.status ? ferr.status : NNFX_ERR_RUNTIME;
        }
    }
    if (!gm->fast && !gm->split) {
        gm->interp = exec_interp_new_linted(gm->g, NULL, NULL, err);
        if (!gm->interp) return err ? err->status : NNFX_ERR_NOMEM;
        sbuf b = {0};
        sb_printf(&b, "%s%s%s", ferr.msg, serr.status ? "; " : "", serr.msg);
        char *w = sb_finish(&b);
        snprintf(gm->why, sizeof gm->why, "%s", w ? w : ferr.msg);
        free(w);
    }
    gm->planned = true;
    return NNFX_OK;
}

nnfx_status nnfx_gm_compile(nnfx_gm *gm, bool *interpreted, nnfx_error *err) {
    if (interpreted) *interpreted = false;
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_compile: NULL module");
    nnfx_status st = ensure_plan(gm, err);
    if (!st && interpreted) *interpreted = !gm->fast && !gm->split;
    return st;
}

nnfx_status nnfx_gm_run(nnfx_gm *gm, int nin, nnfx_tensor *const *in, int max_out, nnfx_tensor **outs, int *nout,
                        nnfx_error *err) {
    if (!gm) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_run: NULL module");
    nnfx_status st = ensure_plan(gm, err);
    if (st) return st;
    if (gm->fast) return fx_plan_run(gm->fast, nin, in, max_out, outs, nout, err);
    if (gm->split) {
        nnfx_error serr = {0};
        st = fx_split_run(gm->split, nin, in, max_out, outs, nout, &serr);
        if (st != NNFX_ERR_UNSUPPORTED) {
            if (st && err) *err = serr;
            return st;
        }
        /* the split plan declines this graph at run time (a rest it cannot
         * compile): the interpreter runs it from now on, and says why */
        fx_split_free(gm->split);
        gm->split = NULL;
        gm->interp = exec_interp_new_linted(gm->g, NULL, NULL, err);
        if (!gm->interp) return err ? err->status : NNFX_ERR_NOMEM;
        snprintf(gm->why, sizeof gm->why, "split plan: %.900s", serr.msg);
    }
    return nnfx_interp_run(gm->interp, nin, in, max_out, outs, nout, err);
}

int64_t exec_gm_compiled_peak(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) return -1;
    if (ensure_compiled(gm, err)) return -2;
    if (gm->planned) return gm->fast ? fx_plan_peak_bytes(gm->fast) : -1;
    /* the same plan's layout, without building its kernels (no weight is
     * read): what analyze asks of a model it does not run */
    nnfx_error ferr = {0};
    int64_t peak = fx_plan_layout_peak(gm->g, &ferr);
    if (peak >= 0) return peak;
    if (ferr.status == NNFX_ERR_UNSUPPORTED) return -1;
    if (err) *err = ferr;
    nnfx_error_prefix(err, "compile");
    return -2;
}

char *nnfx_gm_plan(nnfx_gm *gm, nnfx_error *err) {
    if (!gm) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "gm_plan: NULL module");
        return NULL;
    }
    if (ensure_plan(gm, err)) return NULL;
    char *s = NULL;
    if (gm->fast)
        s = fx_plan_text(gm->fast);
    else if (gm->split)
        s = fx_split_text(gm->split);
    else {
        sbuf b = {0};
        sb_printf(&b, "# interpreted: %s\n", gm->why[0] ? gm->why : "the compiled executor does not take this graph");
        s = sb_finish(&b);
    }
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
