/* outputs.c — the one output rule of every nnfx command: the files a run
 * reads and the files it writes are listed (cli_io), and before anything is
 * written no output may be an input or another output of the same run, and
 * no path may be empty; then every output of the run is staged under a
 * temporary name and renamed into place only when all were written (all or
 * none: cli_out_begin / cli_out_end). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/files.h"
#include "io/onnx_info.h"

bool cli_out_new_dir(cli_new_dir *d, const char *cmd, const char *dir) {
    memset(d, 0, sizeof *d);
    struct stat st;
    if (lstat(dir, &st) == 0) return true; /* exists: written in place, file by file */
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (dir[i] == '/') slash = dir + i;
    const char *base = slash ? slash + 1 : dir;
    size_t bl = len - (size_t)(base - dir);
    if (bl == 0 || (bl == 1 && base[0] == '.') || (bl == 2 && base[0] == '.' && base[1] == '.')) {
        /* no name to make a folder beside: made with its parents, written in place */
        d->made = cli_missing_dir(dir);
        if (!(d->parent = strdup(dir))) goto oom;
        if (cli_make_dirs(dir)) return true;
        cli_error(cmd, "%s: cannot create the folder: %s", dir, strerror(errno));
        goto fail;
    }
    size_t pl = slash ? (size_t)(slash - dir) : 0;
    d->parent = malloc(pl + 2);
    d->tmp = malloc(len + 16);
    if (!d->parent || !d->tmp) goto oom;
    if (slash) {
        memcpy(d->parent, dir, pl ? pl : 1); /* "/x": the parent is "/" */
        d->parent[pl ? pl : 1] = 0;
    } else
        strcpy(d->parent, ".");
    snprintf(d->tmp, len + 16, "%.*s.%.*s.XXXXXX", (int)(base - dir), dir, (int)bl, base);
    d->made = cli_missing_dir(d->parent);
    if (!cli_make_dirs(d->parent)) {
        cli_error(cmd, "%s: cannot create the folder: %s", d->parent, strerror(errno));
        goto fail;
    }
    if (core_io_fails() || !mkdtemp(d->tmp)) {
        cli_error(cmd, "%s: cannot create a temporary folder beside it: %s", dir, strerror(errno));
        goto fail;
    }
    d->dir = dir;
    return true;
oom:
    cli_error(cmd, "out of memory");
fail:
    cli_out_new_dir_done(d, false);
    return false;
}

void cli_out_new_dir_done(cli_new_dir *d, bool ok) {
    if (d->dir && !ok) (void)rmdir(d->tmp); /* still there when the run failed before staging it */
    if (!ok && d->parent) cli_remove_made_dirs(d->parent, d->made);
    free(d->parent);
    free(d->tmp);
    free(d->made);
    memset(d, 0, sizeof *d);
}

void cli_io_init(cli_io *io, const char *cmd) {
    memset(io, 0, sizeof *io);
    io->cmd = cmd;
}

void cli_io_free(cli_io *io) {
    for (int i = 0; i < io->n; i++) {
        free(io->p[i].what);
        free(io->p[i].path);
    }
    free(io->p);
    memset(io, 0, sizeof *io);
}

/* Appends one path (copied); records an allocation failure in io->oom. */
static void io_add(cli_io *io, bool out, const char *what, const char *path, const char *suffix) {
    if (!path) return;
    if (io->n == io->cap) {
        int cap = io->cap ? 2 * io->cap : 16;
        cli_io_path *p = realloc(io->p, sizeof *p * (size_t)cap);
        if (!p) {
            io->oom = true;
            return;
        }
        io->p = p;
        io->cap = cap;
    }
    size_t len = strlen(path) + (suffix ? strlen(suffix) : 0) + 1;
    char *copy = malloc(len), *w = strdup(what);
    if (!copy || !w) {
        free(copy);
        free(w);
        io->oom = true;
        return;
    }
    snprintf(copy, len, "%s%s", path, suffix ? suffix : "");
    io->p[io->n++] = (cli_io_path){w, copy, out};
}

void cli_io_in(cli_io *io, const char *what, const char *path) { io_add(io, false, what, path, NULL); }

void cli_io_out(cli_io *io, const char *what, const char *path) { io_add(io, true, what, path, NULL); }

void cli_io_binding_in(cli_io *io, const char *what, const char *spec) {
    if (!spec) return;
    const char *eq = strchr(spec, '=');
    /* NAME=FILE, or a lone FILE (which may itself contain '=') */
    if (eq && access(spec, F_OK) != 0) spec = eq + 1;
    io_add(io, false, what, spec, NULL);
}

void cli_io_model_in(cli_io *io, const char *what, const char *path) {
    if (!path) return;
    io_add(io, false, what, path, NULL);
    char w[128];
    snprintf(w, sizeof w, "the values of %s", what); /* a text IR's PATH.safetensors */
    io_add(io, false, w, path, ".safetensors");
}

void cli_io_model_out(cli_io *io, const char *what, const char *path) {
    if (!path) return;
    io_add(io, true, what, path, NULL);
    if (!*path || strcmp(path, "-") == 0) return;
    char w[128];
    if (cli_is_text_ir_path(path)) {
        snprintf(w, sizeof w, "the values file of %s", what);
        io_add(io, true, w, path, ".safetensors");
    } else { /* the exporter's side file (--external-data, or a model past 2 GB) */
        snprintf(w, sizeof w, "the external data file of %s", what);
        io_add(io, true, w, path, ".data");
    }
}

void cli_io_graph_in(cli_io *io, const char *what, const nnfx_graph *g) {
    const onnx_model_info *info = onnx_info_of(g);
    char w[128];
    snprintf(w, sizeof w, "the external data of %s", what);
    for (int i = 0; info && i < info->next_files; i++)
        io_add(io, false, w, info->ext_files[i], NULL);
}

char *cli_resolved_name(const char *path) {
    size_t len = strlen(path);
    char *p = malloc(len + 3);
    if (!p) return NULL;
    memcpy(p, path, len + 1);
    while (len > 1 && p[len - 1] == '/') /* "dir/" names dir */
        p[--len] = 0;
    char *rest = p + len; /* p[0..cut) is resolved with realpath, rest kept */
    char *real = NULL;
    for (;;) {
        char *slash = NULL;
        for (char *q = rest - 1; q >= p; q--)
            if (*q == '/') {
                slash = q;
                break;
            }
        char keep = slash ? *slash : 0;
        if (slash) *slash = 0;
        real = realpath(slash ? (slash == p ? "/" : p) : ".", NULL);
        if (slash) *slash = keep;
        if (real || !slash) {
            rest = slash ? slash + 1 : p;
            break;
        }
        rest = slash; /* that folder is missing too: resolve its parent */
    }
    if (!real) {
        free(p);
        return NULL;
    }
    /* real + "/" + rest, folding "." and ".." components of rest */
    size_t rl = strlen(real);
    char *out = malloc(rl + strlen(rest) + 3);
    if (!out) {
        free(real);
        free(p);
        return NULL;
    }
    memcpy(out, real, rl + 1);
    free(real);
    size_t ol = rl;
    for (char *c = rest; *c;) {
        char *e = strchr(c, '/');
        size_t cl = e ? (size_t)(e - c) : strlen(c);
        if (cl == 0 || (cl == 1 && c[0] == '.')) {
        } else if (cl == 2 && c[0] == '.' && c[1] == '.') {
            while (ol > 1 && out[ol - 1] != '/')
                ol--;
            if (ol > 1) ol--;
            out[ol] = 0;
        } else {
            if (ol == 0 || out[ol - 1] != '/') out[ol++] = '/';
            memcpy(out + ol, c, cl);
            ol += cl;
            out[ol] = 0;
        }
        c += cl + (e != NULL);
    }
    free(p);
    return out;
}

/* Whether a and b are one file: the same existing file (device and inode,
 * links followed) or the same resolved name. -1 when out of memory. */
static int same_path(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) return 1;
    char *ra = cli_resolved_name(a), *rb = ra ? cli_resolved_name(b) : NULL;
    int same = !ra || !rb ? -1 : strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* One path of a run with its identity, computed once (io_clash). */
typedef struct io_key {
    const char *name; /* its resolved name */
    dev_t dev;
    ino_t ino;
    int idx; /* in io->p */
    bool exists, output;
} io_key;

static int by_name(const void *pa, const void *pb) {
    return strcmp(((const io_key *)pa)->name, ((const io_key *)pb)->name);
}

static int by_inode(const void *pa, const void *pb) {
    const io_key *a = pa, *b = pb;
    if (a->exists != b->exists) return a->exists ? -1 : 1;
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino) return a->ino < b->ino ? -1 : 1;
    return 0;
}

/* Marks in suspect[] every path of a run of equal sorted keys (cmp) with an
 * output in it (only existing files when inode is set); true if any. */
static bool run_with_output(const io_key *k, int n, int (*cmp)(const void *, const void *), bool inode, bool *suspect) {
    bool any = false;
    for (int i = 0; i < n;) {
        int j = i + 1;
        bool out = k[i].output;
        while (j < n && cmp(&k[i], &k[j]) == 0)
            out |= k[j++].output;
        if (j - i > 1 && out && (!inode || k[i].exists)) {
            any = true;
            for (int t = i; t < j; t++)
                suspect[k[t].idx] = true;
        }
        i = j;
    }
    return any;
}

/* The folders resolved so far by io_clash (a batch names a few folders
 * many times): name as written -> realpath. */
typedef struct dir_memo {
    char *dir[64], *real[64];
    int n;
} dir_memo;

/* cli_resolved_name(path), with the realpath of its folder taken from (or
 * added to) memo when the folder exists and the last component is a plain
 * name: the same result, one realpath per folder. NULL when out of memory. */
static char *resolved_memo(dir_memo *memo, const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash || slash == path || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return cli_resolved_name(path);
    size_t dl = (size_t)(slash - path);
    const char *real = NULL;
    for (int i = 0; i < memo->n && !real; i++)
        if (strlen(memo->dir[i]) == dl && memcmp(memo->dir[i], path, dl) == 0) real = memo->real[i];
    if (!real && memo->n < 64) {
        char *d = strndup(path, dl);
        char *r = d ? realpath(d, NULL) : NULL;
        if (!r) {
            free(d);
            return cli_resolved_name(path); /* missing folder: resolved from its ancestors */
        }
        memo->dir[memo->n] = d;
        real = memo->real[memo->n++] = r;
    }
    if (!real) return cli_resolved_name(path);
    size_t rl = strlen(real), bl = strlen(base);
    char *out = malloc(rl + bl + 2);
    if (out) snprintf(out, rl + bl + 2, "%s%s%s", real, rl && real[rl - 1] == '/' ? "" : "/", base);
    return out;
}

/* Whether any output of io may share a file with another path: each path is
 * stat'ed and resolved once and the keys sorted, so a batch of thousands of
 * models is checked in n log n. The paths of each clash are marked in
 * suspect[] (io->n entries, all false on entry): the pairwise check of
 * cli_io_check, which names the first pair, looks only at those. -1 when
 * out of memory. */
static int io_clash(const cli_io *io, bool *suspect) {
    io_key *k = calloc((size_t)io->n + 1, sizeof *k);
    int n = 0, nstd = 0, rc = 0;
    dir_memo memo = {.n = 0};
    if (!k) return -1;
    for (int i = 0; i < io->n; i++) {
        const cli_io_path *p = &io->p[i];
        if (strcmp(p->path, "-") == 0) {
            nstd += p->output;
            suspect[i] = p->output;
            continue;
        }
        k[n].idx = i;
        struct stat st;
        k[n].exists = stat(p->path, &st) == 0;
        k[n].dev = k[n].exists ? st.st_dev : 0;
        k[n].ino = k[n].exists ? st.st_ino : 0;
        k[n].output = p->output;
        if (!(k[n].name = resolved_memo(&memo, p->path))) {
            rc = -1;
            break;
        }
        n++;
    }
    if (!rc) {
        qsort(k, (size_t)n, sizeof *k, by_name);
        rc = run_with_output(k, n, by_name, false, suspect);
        qsort(k, (size_t)n, sizeof *k, by_inode);
        rc |= run_with_output(k, n, by_inode, true, suspect);
        rc |= nstd > 1;
    }
    for (int i = 0; i < n; i++)
        free((char *)k[i].name);
    for (int i = 0; i < memo.n; i++) {
        free(memo.dir[i]);
        free(memo.real[i]);
    }
    free(k);
    return rc;
}

int cli_io_check(cli_io *io) {
    if (io->oom) {
        cli_error(io->cmd, "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < io->n; i++)
        if (!io->p[i].path[0]) return cli_usage_error(io->cmd, "%s: an empty path (name a file)", io->p[i].what);
    bool *suspect = calloc((size_t)io->n + 1, sizeof *suspect);
    int clash = suspect ? io_clash(io, suspect) : -1;
    if (clash < 0) {
        free(suspect);
        cli_error(io->cmd, "out of memory");
        return CLI_EXIT_BAD_INPUT;
    }
    int rc = CLI_EXIT_OK;
    for (int i = 0; clash && !rc && i < io->n; i++) {
        const cli_io_path *o = &io->p[i];
        if (!o->output || !suspect[i]) continue;
        for (int j = 0; !rc && j < io->n; j++) {
            const cli_io_path *x = &io->p[j];
            if (j == i || !suspect[j] || (x->output && j > i)) continue; /* each pair of outputs once */
            bool o_std = strcmp(o->path, "-") == 0, x_std = strcmp(x->path, "-") == 0;
            if (o_std || x_std) {
                if (o_std && x_std && x->output)
                    rc = cli_usage_error(io->cmd, "%s - and %s - cannot share standard output", x->what, o->what);
                continue;
            }
            int same = same_path(o->path, x->path);
            if (same < 0) {
                cli_error(io->cmd, "out of memory");
                rc = CLI_EXIT_BAD_INPUT;
            } else if (same) {
                rc = cli_usage_error(io->cmd, "%s '%s' is the same file as %s '%s': %s", o->what, o->path, x->what,
                                     x->path,
                                     x->output ? "two outputs of one run cannot share a file"
                                               : "an output cannot replace an input of the same run");
            }
        }
    }
    free(suspect);
    return rc;
}

/* ---- all outputs of a run at once ------------------------------------------- */

static _Thread_local bool write_failed;

void cli_out_begin(void) {
    write_failed = false;
    core_files_stage();
}

void cli_out_failed(void) { write_failed = true; }

int cli_out_end(const char *cmd, int rc) {
    if (write_failed) {
        core_files_abort_staged();
        write_failed = false;
        return rc ? rc : CLI_EXIT_BAD_INPUT;
    }
    nnfx_error err = {0};
    if (core_files_commit_staged(&err)) {
        cli_fail(cmd, NULL, &err);
        return rc ? rc : CLI_EXIT_BAD_INPUT;
    }
    return rc;
}
