/* optimize.h — `nnfx optimize`: options, the one-model pipeline
 * (optimize.c) and batch mode (optimize_batch.c). */
#ifndef NNFX_CLI_OPTIMIZE_H
#define NNFX_CLI_OPTIMIZE_H

#include "cli/validate.h"

typedef struct opt_step {
    bool is_rewrite; /* --rewrite RULE, else --pass NAME */
    const char *text;
    long expect_matches; /* --expect-matches N after a --rewrite; 0: none */
} opt_step;

typedef struct opt_opts {
    int nsteps;
    opt_step *steps; /* in command-line order */
    bool validate;
    cli_samples samples; /* --input / --random  */
    double atol, rtol;
    const char *labels;
    double max_drop;    /* percentage points; < 0: no gate */
    const char *report; /* --report FILE (batch: the summary) */
    bool quiet;
    bool batch;             /* several models, -o is a folder */
    const char *batch_list; /* --batch FILE, or NULL */
    bool external_data;
    long opset;           /* --opset N; 0: the default */
    bool explain;         /* --explain: every candidate of every --rewrite */
    const char *cache;    /* --cache DIR; NULL: none */
    int shard_k, shard_n; /* --shard K/N (batch); 0: all models */
} opt_opts;

/* What happened to one model. */
typedef struct opt_result {
    int rc;       /* exit code for this model        */
    char *report; /* its JSON report (malloc'd)      */
    char *html;   /* its HTML page (malloc'd), when --report names a .html file (one model) */
    int nodes_before, nodes_after;
    double ms;
    bool validated;
    double max_abs;
    bool have_acc;
    double drop;
    char status[32];    /* "ok", "check failed", "error"   */
    bool cached;        /* taken from the --cache          */
    bool paths_refused; /* the output rule failed: write nothing, not even the report */
    bool cache_store;   /* a fresh result to store once its files are in place (opt_cache_store) */
    char cache_key[65];
    char cache_line[256];
} opt_result;

/* Optimises one model into out; fills res (free res->report). Prints
 * errors; prints a summary on stdout unless opts->quiet or batch. With
 * opts->cache, a valid cache entry for the same inputs and options is used
 * instead (res->cached); a fresh ok or check-failed result is marked
 * res->cache_store, for opt_cache_store once the run's staged files are
 * committed (cli_out_end). */
void opt_one(const opt_opts *o, const char *model, const char *out, opt_result *res);

/* Stores res (marked by opt_one) in opts->cache, reading the committed
 * output files of out; does nothing for other results. */
void opt_cache_store(const opt_opts *o, const char *out, const opt_result *res);

/* Batch mode: every model into dir, jobs at a time; prints the summary
 * table and writes the JSON summary (opts->report). Returns the exit code:
 * the highest of the models' codes. */
int opt_batch(const opt_opts *o, int nmodels, char **models, const char *dir, long jobs);

#endif
