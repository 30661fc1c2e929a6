/* cli.h — shared declarations of the nnfx command line: exit codes, the
 * subcommand entry points, and the helpers of common.c (option parsing,
 * error lines, model and tensor loading, atomic writes, progress, JSON).
 *
 * Every subcommand is `int cli_<name>(int argc, char **argv)` where argv[0]
 * is the subcommand's name; it returns one of the exit codes below. */
#ifndef NNFX_CLI_H
#define NNFX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nnfx.h"
#include "core/sbuf.h"

/* Exit codes: a stable interface that scripts depend on. */
enum {
    CLI_EXIT_OK = 0,       /* everything worked and every check passed     */
    CLI_EXIT_CHECK = 1,    /* a check failed (tolerance, accuracy gate)    */
    CLI_EXIT_USAGE = 2,    /* bad command line: flags, missing arguments   */
    CLI_EXIT_BAD_INPUT = 3 /* unreadable or corrupt model/data, bad op     */
};

/* --- subcommands (one file each) ----------------------------------------- */

int cli_run(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_analyze(int argc, char **argv);
int cli_optimize(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_export(int argc, char **argv);
/* nnfx push MODEL REF / nnfx pull REF -o FILE: OCI registries (src/cli/push.c). */
int cli_push(int argc, char **argv);
int cli_pull(int argc, char **argv);
/* nnfx prune MODEL -o OUT --ratio R | --sparsity S (src/cli/prune.c) */
int cli_prune(int argc, char **argv);
/* nnfx codegen MODEL -o DIR ...: standalone C99 (src/cli/codegen.c) */
int cli_codegen(int argc, char **argv);
/* nnfx demo [--no-text] [workflow ...]: runs the seed workflows (simplenet,
 * sigmoid_to_clip, remove_bn, control_flow, shape_error), printing graphs
 * before and after and every check; exit 0 when all checks pass, 1 when
 * one fails, 2 on a usage error. (src/cli/demo.c) */
int cli_demo(int argc, char **argv);
/* nnfx quantize MODEL -o OUT --calib NAME=FILE ...: post-training int8
 * quantization into QDQ form with the accuracy gate (src/cli/quantize.c). */
int cli_quantize(int argc, char **argv);
/* nnfx report merge REPORT.json... -o FLEET.json [--html FLEET.html] (report_merge.c) */
int cli_report(int argc, char **argv);
/* nnfx shard K/N LIST: the models of one shard (shard.c) */
int cli_shard(int argc, char **argv);

/* --- error lines --------------------------------------------------------- */

/* The message of this thread's last cli_error (without "nnfx CMD: "), ""
 * when none since cli_last_error_clear: a list run's report entry of a
 * model that failed (fleet_run.c). */
const char *cli_last_error(void);
/* Forgets this thread's last error message. */
void cli_last_error_clear(void);

/* Prints "nnfx CMD: message" on stderr as one line. */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints "nnfx CMD: FILE: err->msg" (FILE omitted when the message already
 * names it or file is NULL) and returns the exit code for err->status:
 * CLI_EXIT_USAGE for invalid arguments, CLI_EXIT_BAD_INPUT otherwise. */
int cli_fail(const char *cmd, const char *file, const nnfx_error *err);
/* Prints "nnfx CMD: message" plus "Try 'nnfx CMD --help'." and returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* --- option parsing -------------------------------------------------------- */

/* A cursor over a subcommand's arguments (argv[0], the name, is skipped). */
typedef struct cli_args {
    int argc;
    char **argv;
    int i;            /* index of the argument being looked at            */
    const char *cmd;  /* subcommand name for error lines                  */
    bool bad;         /* an option lacked its value (error already shown) */
    bool end_of_opts; /* "--" seen: the rest are positional               */
} cli_args;

/* Starts a cursor at argv[1]. */
void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv);
/* True while arguments remain. */
bool cli_args_more(const cli_args *a);
/* When the current argument is option `name` (or `alias`, may be NULL)
 * taking a value ("--name V" or "--name=V"), stores the value in *val,
 * advances and returns true. A missing value prints a usage error, sets
 * a->bad and returns true. Otherwise returns false and does not move. */
bool cli_opt(cli_args *a, const char *name, const char *alias, const char **val);
/* cli_opt for an option given at most once: a second one (*val already
 * set) prints a usage error naming both values and sets a->bad. */
bool cli_opt_once(cli_args *a, const char *name, const char *alias, const char **val);
/* When the current argument is flag `name` (or `alias`), advances and
 * returns true. */
bool cli_flag(cli_args *a, const char *name, const char *alias);
/* The current argument as a positional one: returns it and advances, or
 * returns NULL (after a usage error, setting a->bad) when it looks like an
 * unknown option. */
const char *cli_positional(cli_args *a);
/* True when any argument is -h or --help (before "--"). */
bool cli_wants_help(int argc, char **argv);

/* Parses a whole decimal integer in [lo, hi]; false when malformed. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);
/* Parses a finite non-negative floating-point number; false when malformed. */
bool cli_parse_nonneg_double(const char *s, double *out);
/* Parses "1x3x224x224" (or "1,3,224,224") into shape; false when malformed. */
bool cli_parse_shape(const char *s, nnfx_shape *shape);
/* Splits "NAME=VALUE" at the first '='. *name is malloc'd (caller frees);
 * *value points into s. Returns false when there is no '=' or the name is
 * empty. */
bool cli_split_binding(const char *s, char **name, const char **value);

/* --- files --------------------------------------------------------------- */

/* Loads a model: ONNX (.onnx, or any file not recognised as text) or the
 * nnfx text IR (.fx, .txt, .nnfx, or a file starting with "graph") with
 * its values from PATH.safetensors. A text IR with parameters whose values
 * file is missing is an error (NNFX_ERR_IO, naming the file): every command
 * that computes with weights loads through here. */
nnfx_graph *cli_load_model(const char *path, nnfx_error *err);
/* cli_load_model for commands that look at shapes only (inspect, analyze,
 * structural edits text to text): a text IR without its values file loads
 * with zero tensors and *weightless set (weightless may be NULL). */
nnfx_graph *cli_load_model_shapes(const char *path, bool *weightless, nnfx_error *err);
/* cli_load_model (shapes_only: cli_load_model_shapes) reading an ONNX
 * model with opts (NULL: the defaults), e.g. keeping ops nnfx lacks. */
nnfx_graph *cli_load_model_opts(const char *path, bool shapes_only, const nnfx_onnx_load_options *opts,
                                nnfx_error *err);
/* Loads a tensor file: NumPy .npy or ONNX TensorProto .pb (by content). */
nnfx_tensor *cli_load_tensor(const char *path, nnfx_error *err);
/* Reads a whole file into a NUL-terminated malloc'd buffer. */
char *cli_read_file(const char *path, size_t *len, nnfx_error *err);
/* Writes len bytes to path through a temporary name in the same folder and
 * a rename, so a failure leaves no partial file. path "-" writes stdout. */
nnfx_status cli_write_file(const char *path, const char *data, size_t len, nnfx_error *err);
/* cli_write_file of a NUL-terminated text; NULL text (a failed allocation
 * making it) is an out-of-memory error that also marks the run's outputs as
 * failed (cli_out_failed). */
nnfx_status cli_write_text(const char *path, const char *text, nnfx_error *err);
/* Writes n NUL-terminated texts to paths[0..n), all or none: each to a
 * temporary name first, then the renames. */
nnfx_status cli_write_files(int n, const char *const *paths, const char *const *data, nnfx_error *err);
/* The shortest prefix of folder path that does not exist (what
 * cli_make_dirs would create first; malloc'd), or NULL when path exists. */
char *cli_missing_dir(const char *path);
/* Removes folder path and its parents up to top (cli_missing_dir's answer
 * before cli_make_dirs), as far as they are empty: undoes cli_make_dirs
 * after a failure. NULL top: nothing was made. */
void cli_remove_made_dirs(const char *path, const char *top);
/* True when a and b name the same existing file (same device and inode). */
bool cli_same_file(const char *a, const char *b);
/* True when path names an existing directory. */
bool cli_is_dir(const char *path);
/* Creates folder path and the folders above it that are missing (mkdir -p);
 * false with errno set when one cannot be made. */
bool cli_make_dirs(const char *path);
/* The last path component (points into path). */
const char *cli_basename(const char *path);
/* Writes g, loaded weightless (cli_load_model_shapes), as text IR to path
 * with no values file (a stale one is removed); other formats are an
 * NNFX_ERR_INVALID_ARG error. */
nnfx_status cli_save_model_weightless(const nnfx_graph *g, const char *path, nnfx_error *err);
/* Saves the graph as ONNX or, for .fx/.txt/.nnfx names, as text IR plus
 * every parameter's values in PATH.safetensors, to a temporary name and a
 * rename. */
nnfx_status cli_save_model(const nnfx_graph *g, const char *path, bool external_data, nnfx_error *err);

/* --- the output rule (outputs.c) ------------------------------------------- */

/* The files one run reads (inputs) and writes (outputs), each with what
 * names it on the command line ("-o", "--report", "the model"...). */
typedef struct cli_io_path {
    char *what, *path;
    bool output;
} cli_io_path;
typedef struct cli_io {
    const char *cmd;
    int n, cap;
    cli_io_path *p;
    bool oom;
} cli_io;

/* Starts an empty list for command cmd. */
void cli_io_init(cli_io *io, const char *cmd);
/* Frees the list. */
void cli_io_free(cli_io *io);
/* Adds an input file (NULL: nothing; "-" is standard input, not checked). */
void cli_io_in(cli_io *io, const char *what, const char *path);
/* Adds an input given as NAME=FILE (or a lone FILE). */
void cli_io_binding_in(cli_io *io, const char *what, const char *spec);
/* Adds an input model and the values file a text IR reads beside it
 * (PATH.safetensors). */
void cli_io_model_in(cli_io *io, const char *what, const char *path);
/* Adds the external data files the loaded ONNX model g was read from. */
void cli_io_graph_in(cli_io *io, const char *what, const nnfx_graph *g);
/* Adds an output file (NULL: nothing; "-" is standard output). */
void cli_io_out(cli_io *io, const char *what, const char *path);
/* Adds an output model and the side file saving it may write beside it:
 * PATH.safetensors for a text IR name, PATH.data (external data) for ONNX. */
void cli_io_model_out(cli_io *io, const char *what, const char *path);
/* The rule, checked before anything is written: no path is empty, no output
 * is an input or another output (the same existing file by device and
 * inode, or the same name once its folder is resolved with realpath), at
 * most one output is standard output. CLI_EXIT_OK, or CLI_EXIT_USAGE after
 * a message naming both paths (CLI_EXIT_BAD_INPUT when out of memory). */
int cli_io_check(cli_io *io);

/* Starts staging this thread's outputs: every file written through the
 * atomic writer (cli_write_file, cli_write_files, cli_save_model,
 * nnfx_npy_save...) stays under its temporary name until cli_out_end. */
void cli_out_begin(void);
/* Marks that a write of the run failed: cli_out_end then renames nothing.
 * (cli_write_file, cli_write_files and cli_save_model call it.) */
void cli_out_failed(void);
/* Ends the run's outputs: unless a write failed, renames every staged file
 * into place, all or none (a failed rename undoes the others and restores
 * the files they replaced). Returns rc, or CLI_EXIT_BAD_INPUT after a
 * message when the commit (or a write) failed and rc was CLI_EXIT_OK. */
int cli_out_end(const char *cmd, int rc);

/* The name a write to path replaces: the real path of its folder plus its
 * last component (a symbolic link as the last component is replaced, not
 * followed). A folder that does not exist yet is resolved from its longest
 * existing ancestor, the rest taken as written ("." and ".." folded).
 * malloc'd; NULL when out of memory. */
char *cli_resolved_name(const char *path);

/* A folder of outputs that does not exist yet, written as a temporary
 * folder beside it and renamed into place at once (core_files_stage_dir). */
typedef struct cli_new_dir {
    const char *dir; /* the folder asked for; NULL: it exists (or has no name of its own) */
    char *tmp;       /* the temporary folder beside it: write the files here */
    char *parent;    /* its parent folder (made if missing) */
    char *made;      /* the first parent folder made here, or NULL */
} cli_new_dir;
/* When dir does not exist: makes its parents and the temporary folder
 * beside it (d->dir set); when it exists (or ends in "." or ".."; then it
 * is made), leaves d->dir NULL (write into dir itself). False after a
 * message when a folder cannot be made. */
bool cli_out_new_dir(cli_new_dir *d, const char *cmd, const char *dir);
/* Frees d; when the run failed (!ok), removes the temporary folder (if
 * still there and empty) and the parent folders made for it. */
void cli_out_new_dir_done(cli_new_dir *d, bool ok);

/* --- model inputs ------------------------------------------------------------ */

/* Tensors bound to a graph's placeholders, in placeholder order. */
typedef struct cli_inputs {
    int n;
    nnfx_tensor **t; /* owned references */
} cli_inputs;

/* Loads --input NAME=FILE bindings (nspec of them) for g's placeholders.
 * A lone FILE binds the only input of a one-input graph. Errors (printed,
 * returned as exit codes): unknown or repeated name, missing input (usage,
 * 2), unreadable file, dtype or shape disagreeing with the model (bad
 * input, 3). Returns CLI_EXIT_OK and fills *in on success. */
int cli_inputs_load(const char *cmd, const nnfx_graph *g, int nspec, char *const *spec, cli_inputs *in);
/* Seeded uniform random inputs for g's placeholders (unknown dims: 1). */
int cli_inputs_random(const char *cmd, const nnfx_graph *g, uint64_t seed, cli_inputs *in);
/* Releases the tensors. */
void cli_inputs_free(cli_inputs *in);
/* Sets each placeholder's meta to the concrete shape of its input so that
 * shape inference gives static shapes everywhere. */
void cli_inputs_pin_shapes(nnfx_graph *g, const cli_inputs *in);

/* --- guards (guard.c) ---------------------------------------------------- */

/* Parses a byte count: "1073741824", "512M", "4G", "1.5GiB" (K/M/G/T are
 * powers of 1024); "0" or "none" give 0 (no limit). False when malformed. */
bool cli_parse_size(const char *s, size_t *out);
/* Sets the memory budget (NNFX_MAX_MEMORY, then --max-memory SIZE, which
 * is removed from argv; default half the physical memory) and installs the
 * SIGINT/SIGTERM/SIGHUP handlers that remove temporary files. Returns an
 * exit code (CLI_EXIT_USAGE for a malformed size). */
int cli_guard_setup(int *argc, char **argv);

/* --- progress ----------------------------------------------------------------- */

/* A progress bar on stderr, drawn only when stderr is a terminal and not
 * quiet. */
typedef struct cli_progress {
    bool on;
    const char *label;
    long total, done;
    int last_pct; /* percent last drawn (redraws only on change) */
} cli_progress;

void cli_progress_start(cli_progress *p, const char *label, long total, bool quiet);
void cli_progress_step(cli_progress *p, long done);
/* Clears the bar's line. */
void cli_progress_end(cli_progress *p);

/* --- JSON ------------------------------------------------------------------ */

/* Appends s as a JSON string literal (quoted, escaped). */
void cli_json_str(sbuf *b, const char *s);
/* Appends a finite double (NaN/Inf become null). */
void cli_json_num(sbuf *b, double v);
/* Appends a meta's shape as a JSON array (symbolic dims as strings, unknown
 * as null; unknown rank as null). */
void cli_json_shape(sbuf *b, const nnfx_meta *m);

/* --- timing ---------------------------------------------------------------- */

/* Monotonic time in milliseconds. */
double cli_now_ms(void);

/* --- provenance (provenance.c) ------------------------------------------------ */

/* The build identity: 16 hex digits of the SHA-256 of the sources this
 * binary was built from (cmake/build_id.cmake); recorded as nnfx.build in
 * every model written and part of every --cache key. */
const char *cli_build_id(void);

/* What a written model records about its making (metadata_props nnfx.*). */
typedef struct cli_provenance {
    int64_t opset;          /* --opset N, 0 for the default                   */
    char source_sha256[65]; /* of the input file                              */
    char *steps;            /* JSON array of the passes and rewrites, malloc'd */
    char *validation;       /* JSON object of the checks, malloc'd, or NULL    */
    int n;                  /* metadata entries built by cli_provenance_use    */
    const char *keys[8], *values[8];
} cli_provenance;

/* Zeroes p and hashes the source model file (error printed, exit code
 * returned). */
int cli_provenance_begin(cli_provenance *p, const char *cmd, const char *source);
/* Makes p what cli_save_model records on this thread (NULL: nothing but
 * nnfx's producer fields); builds its metadata entries from its fields. */
void cli_provenance_use(cli_provenance *p);
/* Fills o's opset and metadata from the thread's provenance (if any). */
void cli_provenance_apply(nnfx_onnx_save_options *o);
/* Checks that g fits the requested opset (error printed, exit 3) and notes
 * on stderr when the default opset had to be raised, and why. */
int cli_provenance_check_opset(const char *cmd, const nnfx_graph *g, const cli_provenance *p, bool quiet);
/* Frees p's strings (and stops using it). */
void cli_provenance_free(cli_provenance *p);

/* --- text IR weights (weights.c) -------------------------------------------- */

/* "<fx_path>.safetensors" (malloc'd), where the values of a text IR live. */
char *cli_weights_path(const char *fx_path);
/* Writes every parameter of g to cli_weights_path(fx_path) (temporary name,
 * then renamed). */
nnfx_status cli_weights_save(const nnfx_graph *g, const char *fx_path, nnfx_error *err);
/* Reads the values of g's parameters from cli_weights_path(fx_path) when
 * that file exists (dtypes and shapes must agree with the text IR); *found
 * (may be NULL) tells whether it existed. */
nnfx_status cli_weights_attach(nnfx_graph *g, const char *fx_path, bool *found, nnfx_error *err);
/* Removes cli_weights_path(fx_path) if it exists (a stale values file). */
nnfx_status cli_weights_remove(const char *fx_path, nnfx_error *err);
/* The message for a text IR at path whose values file is missing. */
void cli_weightless_message(char *buf, size_t size, const char *path);
/* Writes to buf what to tell a person whose option named node `name`,
 * which g does not have: the nnfx name of the ONNX node or ONNX value called
 * that, or how nnfx names nodes and the three closest names among the
 * nodes want accepts (want NULL: all). */
void cli_node_name_hint(const nnfx_graph *g, const char *name, bool (*want)(const nnfx_node *n), char *buf,
                        size_t size);
/* True for the names written as text IR (.fx, .txt, .nnfx). */
bool cli_is_text_ir_path(const char *path);

#endif
