/* fleet.h — running one pipeline over a fleet of models: --shard K/N (which
 * models this process takes) and --cache DIR (a content-addressed store of
 * earlier results). See fleet.c. */
#ifndef NNFX_CLI_FLEET_H
#define NNFX_CLI_FLEET_H

#include "cli/cli.h"

#define CLI_SHARD_MAX 65536

/* Parses "K/N" (decimal, 1 <= K <= N <= CLI_SHARD_MAX, nothing else) into
 * *k and *n; false when malformed or out of range. */
bool cli_shard_parse(const char *s, int *k, int *n);

/* The shard (1..n) that owns path: rendezvous (highest-random-weight)
 * hashing of the path string as given, so a model keeps its shard when the
 * list is reordered or grows, and each path is in exactly one shard. */
int cli_shard_of(const char *path, int n);

/* The SHA-256 (hex) of recipe (every option that changes the result, one
 * a line), NNFX_VERSION, the build identity (cli_build_id) and the contents of model and its sidecars
 * (MODEL.data and MODEL.safetensors when they exist). Non-zero (with err)
 * when the model cannot be read. */
nnfx_status cli_cache_key(const char *recipe, const char *model, char key[65], nnfx_error *err);

/* Appends "TAG PATH SHA256\n" for the file path (its digest; "-" when it
 * cannot be read) to a recipe. */
void cli_cache_recipe_file(sbuf *recipe, const char *tag, const char *path);

/* Appends "host-cpu FEATURES\n" to a recipe: the CPU features this host's
 * kernels use (nnfx_cpu_features, as NNFX_ISA leaves them), for results
 * computed by running a model here (checks, accuracy, host findings), which
 * may differ on a host with other features. */
void cli_cache_recipe_host(sbuf *recipe);

/* Looks key up in the cache dir. On a valid entry: every stored file is
 * placed at outs[i] (hard link, else copy; atomically renamed in), and
 * *report and *meta get the stored texts (malloc'd); returns true. An entry
 * that fails its digests (corrupt, partial) is reported on stderr (cmd),
 * removed and false returned; so is a miss (silently). */
bool cli_cache_get(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs, char **report,
                   char **meta);

/* Stores the result of key: the files outs[i] that exist (none when
 * with_files is false), the report and a one-line meta text. The entry is
 * built in a temporary folder, every file with its digest, and renamed into
 * place; an entry already there is left alone. Failures are warnings. */
void cli_cache_put(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs,
                   bool with_files, const char *report, const char *meta);

/* --- list mode of the one-model commands (fleet_run.c) --------------------------- */

/* A one-model command as a list run sees it. */
typedef struct cli_fleet_cmd {
    const char *cmd;                   /* "quantize" */
    int (*one)(int argc, char **argv); /* its one-model entry (argv[1] is MODEL) */
    const char *out_opt;               /* the per-model output option ("-o", "--json"), or NULL (push) */
    const char *out_suffix;            /* appended to the model's file name in DIR ("" or ".json") */
    const char *report_opt;            /* the per-model JSON report option ("--report"), or NULL */
    const char *quiet_opt;             /* "-q" when it has one */
    bool out_is_report;                /* the output is its JSON report (analyze --json) */
} cli_fleet_cmd;

/* Whether argv asks for a list run (--list or --shard before any "--"). */
bool cli_fleet_wanted(int argc, char **argv);

/* `nnfx CMD --list LIST [--shard K/N] (-o DIR | --to REGISTRY/PREFIX[:TAG])
 * [--report R.json] [-q] OPTIONS...`: runs c->one once per listed model of
 * the shard (output DIR/NAME[suffix], or push's PREFIX/STEM[:TAG]) with
 * OPTIONS, after checking every output name of the whole list; writes the
 * summary (optimize --batch's shape, "command" added) to R.json through
 * the staged writer. Returns the worst exit status of the models, or 2
 * when the options are wrong (the first model's usage error stops it). */
int cli_fleet_run(const cli_fleet_cmd *c, int argc, char **argv);

/* Adds "key": "value" to the report entry of the model a list run is
 * running (nothing outside a list run): what a command has to say that its
 * own report does not (push's reference and digest). */
void cli_fleet_note(const char *key, const char *value);

#endif
