/* common.c — helpers shared by the nnfx subcommands: error lines, option
 * parsing, model/tensor loading, atomic writes, model inputs, progress bars,
 * JSON pieces and timing. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/clock.h"
#include "core/files.h"
#include "core/budget.h"
#include "io/onnx_info.h"

/* ===================================================================== */
/* Error lines                                                           */
/* ===================================================================== */

static _Thread_local char last_error[2048];

const char *cli_last_error(void) { return last_error; }

void cli_last_error_clear(void) { last_error[0] = '\0'; }

void cli_error(const char *cmd, const char *fmt, ...) {
    /* formatted first, then written at once: batch workers share stderr */
    char line[2048];
    int n = snprintf(line, sizeof line, "nnfx %s: ", cmd);
    if (n < 0 || n >= (int)sizeof line) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    snprintf(last_error, sizeof last_error, "%s", line + n);
}

int cli_fail(const char *cmd, const char *file, const nnfx_error *err) {
    const char *msg = err && err->msg[0] ? err->msg : "unknown error";
    /* keep it one line */
    char line[sizeof err->msg];
    snprintf(line, sizeof line, "%s", msg);
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    if (file && !strstr(line, file))
        cli_error(cmd, "%s: %s", file, line);
    else
        cli_error(cmd, "%s", line);
    return err && err->status == NNFX_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error(cmd, "%s (try 'nnfx %s --help')", msg, cmd);
    return CLI_EXIT_USAGE;
}

/* ===================================================================== */
/* Option parsing                                                        */
/* ===================================================================== */

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->i = 1;
    a->cmd = cmd;
}

bool cli_args_more(const cli_args *a) { return a->i < a->argc && !a->bad; }

/* Does arg match option `name`? Returns 1 for an exact match, 2 for
 * "name=value", 0 otherwise. */
static int opt_match(const char *arg, const char *name) {
    if (!name) return 0;
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '\0') return 1;
    if (arg[n] == '=' && name[1] == '-') return 2;
    return 0;
}

bool cli_opt(cli_args *a, const char *name, const char *alias, const char **val) {
    if (a->end_of_opts || a->i >= a->argc) return false;
    const char *arg = a->argv[a->i];
    int m = opt_match(arg, name);
    const char *used = name;
    if (!m) {
        m = opt_match(arg, alias);
        used = alias;
    }
    if (!m) return false;
    if (m == 2) {
        *val = arg + strlen(used) + 1;
        a->i++;
        return true;
    }
    if (a->i + 1 >= a->argc) {
        cli_usage_error(a->cmd, "option %s needs a value", used);
        a->bad = true;
        a->i++;
        return true;
    }
    *val = a->argv[a->i + 1];
    a->i += 2;
    return true;
}

bool cli_opt_once(cli_args *a, const char *name, const char *alias, const char **val) {
    const char *before = *val, *v = NULL;
    if (!cli_opt(a, name, alias, &v)) return false;
    if (before && v && !a->bad) {
        cli_usage_error(a->cmd,
                        "option %s given twice ('%s' and '%s'); give it once (an option taking a list takes it "
                        "comma-separated)",
                        name, before, v);
        a->bad = true;
        return true;
    }
    if (v) *val = v;
    return true;
}

bool cli_flag(cli_args *a, const char *name, const char *alias) {
    if (a->end_of_opts || a->i >= a->argc) return false;
    const char *arg = a->argv[a->i];
    if (strcmp(arg, name) == 0 || (alias && strcmp(arg, alias) == 0)) {
        a->i++;
        return true;
    }
    return false;
}

const char *cli_positional(cli_args *a) {
    const char *arg = a->argv[a->i];
    if (!a->end_of_opts && strcmp(arg, "--") == 0) {
        a->end_of_opts = true;
        a->i++;
        return a->i < a->argc ? a->argv[a->i++] : NULL;
    }
    if (!a->end_of_opts && arg[0] == '-' && arg[1] != '\0') {
        cli_usage_error(a->cmd, "unknown option '%s'", arg);
        a->bad = true;
        return NULL;
    }
    a->i++;
    return arg;
}

bool cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
    }
    return false;
}

bool cli_parse_int(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool cli_parse_nonneg_double(const char *s, double *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0) return false;
    *out = v;
    return true;
}

bool cli_parse_shape(const char *s, nnfx_shape *shape) {
    memset(shape, 0, sizeof *shape);
    if (!s || !*s) return false;
    const char *p = s;
    while (*p) {
        if (shape->rank == NNFX_MAX_RANK) return false;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || v > (1LL << 40)) return false;
        shape->dims[shape->rank++] = v;
        p = end;
        if (*p == 'x' || *p == 'X' || *p == ',') {
            p++;
            if (!*p) return false;
        } else if (*p) {
            return false;
        }
    }
    return shape->rank > 0;
}

bool cli_split_binding(const char *s, char **name, const char **value) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) return false;
    size_t n = (size_t)(eq - s);
    *name = malloc(n + 1);
    if (!*name) return false;
    memcpy(*name, s, n);
    (*name)[n] = '\0';
    *value = eq + 1;
    return true;
}

/* ===================================================================== */
/* Files                                                                 */
/* ===================================================================== */

static bool has_suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_text_ir_name(const char *path) {
    return has_suffix(path, ".fx") || has_suffix(path, ".txt") || has_suffix(path, ".nnfx");
}

char *cli_read_file(const char *path, size_t *len, nnfx_error *err) {
    FILE *f = core_fopen_read(path, err); /* a FIFO or folder is refused */
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && core_budget_check((size_t)st.st_size, "reading the file", err)) {
        fclose(f);
        nnfx_error_prefix(err, "%s", path);
        return NULL;
    }
    sbuf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_append(&b, chunk, got);
    bool failed = ferror(f);
    fclose(f);
    size_t n = b.len;
    char *s = sb_finish(&b);
    if (failed) {
        free(s);
        nnfx_error_set(err, NNFX_ERR_IO, "%s: read error", path);
        return NULL;
    }
    if (!s) s = calloc(1, 1);
    if (!s) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (len) *len = n;
    return s;
}

/* True when the first non-blank bytes of the file are "graph". */
static bool looks_like_text_ir(const char *path) {
    FILE *f = core_fopen_read(path, NULL);
    if (!f) return false;
    char buf[64];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return strncmp(p, "graph", 5) == 0;
}

bool cli_is_text_ir_path(const char *path) { return is_text_ir_name(path); }

/* Loads the model at path; a text IR with parameters and no values file is
 * refused (an error naming the missing file) unless weightless is given,
 * where it is loaded with zero tensors and *weightless set. */
static nnfx_graph *load_model(const char *path, bool *weightless, const nnfx_onnx_load_options *opts, nnfx_error *err) {
    if (weightless) *weightless = false;
    struct stat st;
    if (stat(path, &st) != 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: is a directory, not a model", path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: not a regular file", path);
        return NULL;
    }
    if (is_text_ir_name(path) || (!has_suffix(path, ".onnx") && looks_like_text_ir(path))) {
        char *text = cli_read_file(path, NULL, err);
        if (!text) return NULL;
        nnfx_graph *g = nnfx_graph_parse(text, err);
        free(text);
        if (!g) nnfx_error_prefix(err, "%s", path);
        bool found = false;
        if (g && cli_weights_attach(g, path, &found, err)) { /* the values, from PATH.safetensors */
            nnfx_graph_free(g);
            return NULL;
        }
        if (g && !found && nnfx_graph_num_params(g) > 0) {
            /* the one place every command that reads weights passes: zeros
             * standing in for missing values must never be computed with */
            if (!weightless) {
                char msg[sizeof err->msg];
                cli_weightless_message(msg, sizeof msg, path);
                nnfx_error_set(err, NNFX_ERR_IO, "%s", msg);
                nnfx_graph_free(g);
                return NULL;
            }
            *weightless = true;
        }
        return g;
    }
    nnfx_graph *g = nnfx_onnx_load_opts(path, opts, err);
    if (!g && err && !strstr(err->msg, path)) nnfx_error_prefix(err, "%s", path);
    return g;
}

nnfx_graph *cli_load_model(const char *path, nnfx_error *err) { return load_model(path, NULL, NULL, err); }

nnfx_graph *cli_load_model_shapes(const char *path, bool *weightless, nnfx_error *err) {
    bool ignored;
    return load_model(path, weightless ? weightless : &ignored, NULL, err);
}

nnfx_graph *cli_load_model_opts(const char *path, bool shapes_only, const nnfx_onnx_load_options *opts,
                                nnfx_error *err) {
    bool ignored;
    return load_model(path, shapes_only ? &ignored : NULL, opts, err);
}

nnfx_tensor *cli_load_tensor(const char *path, nnfx_error *err) {
    FILE *f = core_fopen_read(path, err);
    if (!f) return NULL;
    unsigned char magic[6] = {0};
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    nnfx_tensor *t;
    if (n == 6 && memcmp(magic, "\x93NUMPY", 6) == 0)
        t = nnfx_npy_load(path, err);
    else if (has_suffix(path, ".npy"))
        t = nnfx_npy_load(path, err); /* gives the precise "bad magic" error */
    else
        t = nnfx_tensor_pb_load(path, err);
    if (!t && err && !strstr(err->msg, path)) nnfx_error_prefix(err, "%s", path);
    return t;
}

nnfx_status cli_write_file(const char *path, const char *data, size_t len, nnfx_error *err) {
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return nnfx_error_set(err, NNFX_ERR_IO, "cannot write to standard output");
        return NNFX_OK;
    }
    nnfx_status st = core_write_file(path, data, len, err);
    if (st) cli_out_failed();
    return st;
}

nnfx_status cli_write_text(const char *path, const char *text, nnfx_error *err) {
    if (!text) {
        cli_out_failed();
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: out of memory making the text", path);
    }
    return cli_write_file(path, text, strlen(text), err);
}

nnfx_status cli_write_files(int n, const char *const *paths, const char *const *data, nnfx_error *err) {
    core_file *f = calloc((size_t)(n > 0 ? n : 1), sizeof *f);
    if (!f) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    nnfx_status st = NNFX_OK;
    int begun = 0;
    for (; begun < n && !st; begun++) { /* every file to its temporary first */
        if ((st = core_file_begin(&f[begun], paths[begun], err))) break;
        if (!(st = core_file_write(&f[begun], data[begun], strlen(data[begun]), err)))
            st = core_file_finish(&f[begun], err);
    }
    for (int i = 0; i < n && !st; i++) /* then the renames */
        st = core_file_commit(&f[i], err);
    if (st) {
        for (int i = 0; i < begun && i < n; i++)
            core_file_abort(&f[i]);
        cli_out_failed();
    }
    free(f);
    return st;
}

char *cli_missing_dir(const char *path) {
    if (cli_is_dir(path)) return NULL;
    size_t len = strlen(path);
    char *p = malloc(len + 1);
    if (!p) return NULL;
    memcpy(p, path, len + 1);
    for (size_t i = 1; i <= len; i++) /* the shortest prefix ending at a '/' (or the whole path) that is missing */
        if (p[i] == '/' || p[i] == 0) {
            char c = p[i];
            p[i] = 0;
            if (!cli_is_dir(p)) return p;
            p[i] = c;
        }
    free(p);
    return NULL;
}

void cli_remove_made_dirs(const char *path, const char *top) {
    if (!top) return;
    size_t len = strlen(path), tl = strlen(top);
    char *p = malloc(len + 1);
    if (!p) return;
    memcpy(p, path, len + 1);
    /* the leaf, then each parent made with it (empty ones only; the leaf may not have been made) */
    while (strlen(p) >= tl && (rmdir(p) == 0 || errno == ENOENT)) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) break;
        *slash = 0;
    }
    free(p);
}

bool cli_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool cli_make_dirs(const char *path) {
    if (cli_is_dir(path)) return true;
    size_t len = strlen(path);
    char *p = malloc(len + 1);
    if (!p) {
        errno = ENOMEM;
        return false;
    }
    memcpy(p, path, len + 1);
    bool ok = true;
    for (size_t i = 1; i <= len && ok; i++) /* each prefix ending at a '/' (or the whole path) */
        if (p[i] == '/' || p[i] == 0) {
            char c = p[i];
            p[i] = 0;
            ok = cli_is_dir(p) || (!core_io_fails() && mkdir(p, 0777) == 0) || (errno == EEXIST && cli_is_dir(p));
            if (!ok && errno == EEXIST) errno = ENOTDIR; /* a file where a folder should be */
            p[i] = c;
        }
    int saved = errno;
    free(p);
    errno = saved;
    return ok;
}

bool cli_is_dir(const char *path) {
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_basename(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

nnfx_status cli_save_model_weightless(const nnfx_graph *g, const char *path, nnfx_error *err) {
    if (!is_text_ir_name(path))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                              "%s: a model without parameter values can only be written as text IR (.fx)", path);
    nnfx_status st = cli_weights_remove(path, err); /* a stale values file must not pair with it */
    char *text = st ? NULL : nnfx_graph_to_text(g);
    if (!st && !text) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: out of memory printing the graph", path);
    if (!st) st = cli_write_file(path, text, strlen(text), err);
    free(text);
    if (st) cli_out_failed();
    return st;
}

/* cli_save_model's work (cli_save_model marks a failure for cli_out_end). */
static nnfx_status save_model(const nnfx_graph *g, const char *path, bool external_data, nnfx_error *err) {
    if (is_text_ir_name(path)) {
        /* the values go to PATH.safetensors, written first */
        nnfx_status wst = nnfx_graph_num_params(g) > 0 ? cli_weights_save(g, path, err) : NNFX_OK;
        if (wst) return wst;
        char *text = nnfx_graph_to_text(g);
        if (!text) return nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: out of memory printing the graph", path);
        nnfx_status st = cli_write_file(path, text, strlen(text), err);
        free(text);
        return st;
    }
    nnfx_onnx_save_options o = {0};
    o.external_data = external_data;
    cli_provenance_apply(&o);
    return nnfx_onnx_save(g, path, &o, err);
}

nnfx_status cli_save_model(const nnfx_graph *g, const char *path, bool external_data, nnfx_error *err) {
    nnfx_status st = save_model(g, path, external_data, err);
    if (st) cli_out_failed();
    return st;
}

/* ===================================================================== */
/* Model inputs                                                          */
/* ===================================================================== */

void cli_inputs_free(cli_inputs *in) {
    if (!in) return;
    for (int i = 0; i < in->n; i++)
        nnfx_tensor_release(in->t[i]);
    free(in->t);
    in->t = NULL;
    in->n = 0;
}

static int inputs_alloc(const char *cmd, const nnfx_graph *g, cli_inputs *in) {
    in->n = nnfx_graph_num_inputs(g);
    in->t = calloc((size_t)(in->n ? in->n : 1), sizeof *in->t);
    if (!in->t) {
        in->n = 0;
        cli_error(cmd, "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

/* Checks tensor t against placeholder p's meta; prints and returns an exit
 * code on mismatch. */
static int check_input(const char *cmd, const nnfx_node *p, const char *file, const nnfx_tensor *t) {
    const nnfx_meta *m = nnfx_node_meta_c(p, 0);
    char want[256], got[128];
    if (!m || m->rank < 0) return CLI_EXIT_OK;
    nnfx_meta_str(m, want, sizeof want);
    nnfx_shape_str(t->rank, t->shape, got, sizeof got);
    if (m->dtype != NNFX_DTYPE_UNDEFINED && m->dtype != t->dtype) {
        cli_error(cmd, "%s: input '%s' must be %s, the file holds %s%s", file, nnfx_node_name(p), want,
                  nnfx_dtype_name(t->dtype), got);
        return CLI_EXIT_BAD_INPUT;
    }
    bool ok = m->rank == t->rank;
    for (int d = 0; ok && d < m->rank; d++)
        if (m->dims[d].value >= 0 && m->dims[d].value != t->shape[d]) ok = false;
    if (!ok) {
        cli_error(cmd, "%s: input '%s' has shape %s, the model expects %s", file, nnfx_node_name(p), got, want);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

int cli_inputs_load(const char *cmd, const nnfx_graph *g, int nspec, char *const *spec, cli_inputs *in) {
    memset(in, 0, sizeof *in);
    int rc = inputs_alloc(cmd, g, in);
    if (rc) return rc;
    for (int s = 0; s < nspec; s++) {
        char *name = NULL;
        const char *file = NULL;
        int idx = -1;
        if (cli_split_binding(spec[s], &name, &file)) {
            for (int i = 0; i < in->n; i++)
                if (strcmp(nnfx_node_name(nnfx_graph_input(g, i)), name) == 0) idx = i;
            const onnx_model_info *info = idx < 0 ? onnx_info_of(g) : NULL;
            for (int k = 0; info && k < info->nnames && idx < 0; k++) /* the ONNX name nnfx renamed (a.b: a_b) */
                if (strcmp(info->names[k].value, name) == 0)
                    for (int i = 0; i < in->n; i++)
                        if (strcmp(nnfx_node_name(nnfx_graph_input(g, i)), info->names[k].key) == 0) idx = i;
            if (idx < 0) {
                /* maybe a file name containing '=' for a one-input model */
                if (in->n == 1 && access(spec[s], R_OK) == 0) {
                    idx = 0;
                    file = spec[s];
                } else {
                    sbuf names = {0};
                    for (int i = 0; i < in->n; i++)
                        sb_printf(&names, "%s%s", i ? ", " : "", nnfx_node_name(nnfx_graph_input(g, i)));
                    char *list = sb_finish(&names);
                    rc = cli_usage_error(cmd, "--input %s: the model has no input '%s' (inputs: %s)", spec[s], name,
                                         list && *list ? list : "none");
                    free(list);
                    free(name);
                    goto fail;
                }
            }
            free(name);
        } else if (in->n == 1) {
            idx = 0;
            file = spec[s];
        } else {
            rc = cli_usage_error(cmd, "--input %s: write NAME=FILE (the model has %d inputs)", spec[s], in->n);
            goto fail;
        }
        if (!*file) {
            rc = cli_usage_error(cmd, "--input %s: no file given", spec[s]);
            goto fail;
        }
        if (in->t[idx]) {
            rc = cli_usage_error(cmd, "input '%s' is given twice", nnfx_node_name(nnfx_graph_input(g, idx)));
            goto fail;
        }
        nnfx_error err = {0};
        in->t[idx] = cli_load_tensor(file, &err);
        if (!in->t[idx]) {
            cli_fail(cmd, file, &err);
            rc = CLI_EXIT_BAD_INPUT;
            goto fail;
        }
        rc = check_input(cmd, nnfx_graph_input(g, idx), file, in->t[idx]);
        if (rc) goto fail;
    }
    for (int i = 0; i < in->n; i++)
        if (!in->t[i]) {
            char want[256];
            nnfx_meta_str(nnfx_node_meta_c(nnfx_graph_input(g, i), 0), want, sizeof want);
            rc = cli_usage_error(cmd, "missing input '%s' (%s): give --input %s=FILE.npy",
                                 nnfx_node_name(nnfx_graph_input(g, i)), want, nnfx_node_name(nnfx_graph_input(g, i)));
            goto fail;
        }
    return CLI_EXIT_OK;
fail:
    cli_inputs_free(in);
    return rc;
}

int cli_inputs_random(const char *cmd, const nnfx_graph *g, uint64_t seed, cli_inputs *in) {
    memset(in, 0, sizeof *in);
    int rc = inputs_alloc(cmd, g, in);
    if (rc) return rc;
    for (int i = 0; i < in->n; i++) {
        const nnfx_node *p = nnfx_graph_input(g, i);
        const nnfx_meta *m = nnfx_node_meta_c(p, 0);
        if (!m || m->rank < 0) {
            cli_error(cmd, "input '%s' has an unknown shape: give --input %s=FILE", nnfx_node_name(p),
                      nnfx_node_name(p));
            cli_inputs_free(in);
            return CLI_EXIT_USAGE;
        }
        int64_t dims[NNFX_MAX_RANK];
        for (int d = 0; d < m->rank; d++)
            dims[d] = m->dims[d].value >= 0 ? m->dims[d].value : 1;
        nnfx_dtype dt = m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype;
        nnfx_error err = {0};
        in->t[i] = nnfx_tensor_new(dt, m->rank, dims, &err);
        if (!in->t[i]) {
            cli_fail(cmd, NULL, &err);
            cli_inputs_free(in);
            return CLI_EXIT_BAD_INPUT;
        }
        if (dt == NNFX_F32) {
            nnfx_tensor_fill_uniform(in->t[i], seed * 1000003u + (uint64_t)i, -1.0f, 1.0f);
        } else if (dt != NNFX_F32) {
            cli_error(cmd, "input '%s' is %s: random inputs are float32 only; give --input %s=FILE", nnfx_node_name(p),
                      nnfx_dtype_name(dt), nnfx_node_name(p));
            cli_inputs_free(in);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

void cli_inputs_pin_shapes(nnfx_graph *g, const cli_inputs *in) {
    for (int i = 0; i < in->n && i < nnfx_graph_num_inputs(g); i++) {
        nnfx_meta *m = nnfx_node_meta(nnfx_graph_input(g, i), 0);
        if (m && in->t[i]) nnfx_meta_set_shape(m, in->t[i]->dtype, in->t[i]->rank, in->t[i]->shape);
    }
}

/* ===================================================================== */
/* Progress                                                              */
/* ===================================================================== */

void cli_progress_start(cli_progress *p, const char *label, long total, bool quiet) {
    p->on = !quiet && total > 1 && isatty(STDERR_FILENO);
    p->label = label;
    p->total = total;
    p->done = 0;
    p->last_pct = -1;
    cli_progress_step(p, 0);
}

void cli_progress_step(cli_progress *p, long done) {
    p->done = done;
    if (!p->on) return;
    int pct = p->total > 0 ? (int)(100.0 * (double)done / (double)p->total) : 0;
    if (pct == p->last_pct) return;
    p->last_pct = pct;
    int width = 30;
    int fill = p->total > 0 ? (int)((double)done / (double)p->total * width) : 0;
    if (fill > width) fill = width;
    fprintf(stderr, "\r%s [", p->label);
    for (int i = 0; i < width; i++)
        fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %ld/%ld", done, p->total);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
    if (!p->on) return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    p->on = false;
}

/* ===================================================================== */
/* JSON                                                                  */
/* ===================================================================== */

void cli_json_str(sbuf *b, const char *s) {
    sb_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': sb_append(b, "\\\"", 2); break;
        case '\\': sb_append(b, "\\\\", 2); break;
        case '\n': sb_append(b, "\\n", 2); break;
        case '\r': sb_append(b, "\\r", 2); break;
        case '\t': sb_append(b, "\\t", 2); break;
        default:
            if (*p < 0x20)
                sb_printf(b, "\\u%04x", *p);
            else
                sb_append(b, (const char *)p, 1);
        }
    }
    sb_append(b, "\"", 1);
}

void cli_json_num(sbuf *b, double v) {
    if (!isfinite(v))
        sb_printf(b, "null");
    else if (v == floor(v) && fabs(v) < 1e15)
        sb_printf(b, "%.0f", v);
    else
        sb_printf(b, "%.9g", v);
}

void cli_json_shape(sbuf *b, const nnfx_meta *m) {
    if (!m || m->rank < 0) {
        sb_printf(b, "null");
        return;
    }
    sb_printf(b, "[");
    for (int d = 0; d < m->rank; d++) {
        if (d) sb_printf(b, ", ");
        if (m->dims[d].value >= 0)
            sb_printf(b, "%lld", (long long)m->dims[d].value);
        else if (m->dims[d].symbol && m->dims[d].symbol[0])
            cli_json_str(b, m->dims[d].symbol);
        else
            sb_printf(b, "null");
    }
    sb_printf(b, "]");
}

/* ===================================================================== */
/* Timing                                                                */
/* ===================================================================== */

double cli_now_ms(void) { return (double)core_now_ns() / 1e6; }
