/* atomic_file.c — writes that never leave a partial file under the target
 * name: a unique temporary beside the target (mkstemp: O_EXCL, mode 0600,
 * so a planted file or symbolic link is never opened), fsync, then rename.
 * Temporaries still open are listed so a signal handler can remove them
 * (nnfx_remove_temporaries). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_int.h"

/* Open temporaries, for removal on a signal. A slot holds a malloc'd path
 * or NULL; handlers only read it. */
#define TMP_SLOTS 32
static _Atomic(char *) tmp_slots[TMP_SLOTS];

static void tmp_register(char *path) {
    for (int i = 0; i < TMP_SLOTS; i++) {
        char *expect = NULL;
        if (atomic_compare_exchange_strong(&tmp_slots[i], &expect, path)) return;
    }
    /* no slot: the file is still removed on failure, only not on a signal */
}

static void tmp_unregister(const char *path) {
    for (int i = 0; i < TMP_SLOTS; i++) {
        char *expect = (char *)path;
        if (atomic_compare_exchange_strong(&tmp_slots[i], &expect, NULL)) return;
    }
}

void nnfx_remove_temporaries(void) {
    for (int i = 0; i < TMP_SLOTS; i++) {
        char *p = atomic_load(&tmp_slots[i]);
        if (p) unlink(p); /* async-signal-safe */
    }
}

/* ---- fault injection on file operations (tests) -------------------------- */

static _Atomic long io_count;
static _Atomic long io_fail_at;

void core_io_fail_at(long k) {
    atomic_store(&io_count, 0);
    atomic_store(&io_fail_at, k > 0 ? k : 0);
}

long core_io_count(void) { return atomic_load(&io_count); }

bool core_io_fails(void) {
    long k = atomic_fetch_add(&io_count, 1) + 1;
    long at = atomic_load(&io_fail_at);
    if (at > 0 && k == at) {
        errno = EIO;
        return true;
    }
    return false;
}

/* ---- staged outputs -------------------------------------------------------- */

/* This thread's staged files: temporaries (still registered for removal on
 * a signal) and their targets, both malloc'd; a folder entry renames a
 * temporary folder (its files staged before it) to a new folder. */
typedef struct staged_file {
    char *tmp, *path;
    bool dir;     /* a folder made by the caller, renamed to path      */
    bool renamed; /* in place (tmp kept to undo it)                     */
} staged_file;

static _Thread_local struct {
    bool on;
    int n, cap;
    staged_file *f;
} staged;

void core_files_stage(void) {
    core_files_abort_staged();
    staged.on = true;
}

/* Appends an entry (takes tmp and path); false when out of memory. */
static bool stage_push(char *tmp, char *path, bool dir) {
    if (staged.n == staged.cap) {
        int cap = staged.cap ? 2 * staged.cap : 8;
        staged_file *g = realloc(staged.f, sizeof *g * (size_t)cap);
        if (!g) return false;
        staged.f = g;
        staged.cap = cap;
    }
    staged.f[staged.n++] = (staged_file){tmp, path, dir, false};
    return true;
}

/* Keeps f's finished temporary for core_files_commit_staged (takes its
 * strings); false when out of memory (f untouched). */
static bool stage_file(core_file *f) {
    if (!stage_push(f->tmp, f->path, false)) return false;
    f->tmp = f->path = NULL;
    return true;
}

nnfx_status core_files_stage_dir(const char *tmpdir, const char *path, nnfx_error *err) {
    char *t = malloc(strlen(tmpdir) + 1), *p = malloc(strlen(path) + 1);
    if (!t || !p || !staged.on || !stage_push(t, p, true)) {
        free(t);
        free(p);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, staged.on ? "out of memory" : "no outputs are being staged");
    }
    strcpy(t, tmpdir);
    strcpy(p, path);
    return NNFX_OK;
}

/* fsync of the folder holding path (the renames reach the disk). */
static void sync_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? malloc((size_t)(slash - path) + 2) : NULL;
    if (dir) {
        memcpy(dir, path, (size_t)(slash - path) + 1);
        dir[slash - path + (slash == path)] = '\0';
    }
    int dfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
}

void core_files_abort_staged(void) {
    /* in order: a folder's files come before the folder, which is then empty */
    for (int i = 0; i < staged.n; i++) {
        staged_file *s = &staged.f[i];
        if (s->dir && !s->renamed)
            (void)rmdir(s->tmp);
        else if (!s->dir && !s->renamed) {
            unlink(s->tmp);
            tmp_unregister(s->tmp);
        }
        free(s->tmp);
        free(s->path);
    }
    free(staged.f);
    staged.f = NULL;
    staged.n = staged.cap = 0;
    staged.on = false;
}

bool core_file_size_staged(const char *path, uint64_t *size) {
    const char *at = path;
    for (int i = staged.n - 1; i >= 0; i--) /* the latest staged version of path */
        if (!staged.f[i].dir && strcmp(staged.f[i].path, path) == 0) {
            at = staged.f[i].tmp;
            break;
        }
    struct stat st;
    if (stat(at, &st) != 0) return false;
    *size = (uint64_t)st.st_size;
    return true;
}

nnfx_status core_files_commit_staged(nnfx_error *err) {
    const int n = staged.n;
    staged.on = false;
    char **bak = calloc((size_t)(n ? n : 1), sizeof *bak);
    if (!bak) {
        core_files_abort_staged();
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < n && !st; i++) {
        staged_file *s = &staged.f[i];
        struct stat lst;
        if (lstat(s->path, &lst) == 0) {
            if (s->dir || S_ISDIR(lst.st_mode)) {
                st = nnfx_error_set(err, NNFX_ERR_IO, "%s: %s", s->path,
                                    s->dir ? "appeared while the run wrote its files" : "is a folder");
                break;
            }
            /* the file replaced is kept under a second name until all are in place */
            size_t len = strlen(s->tmp) + 8;
            if (!(bak[i] = malloc(len))) {
                st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
                break;
            }
            snprintf(bak[i], len, "%s.old", s->tmp);
            if (core_io_fails() || link(s->path, bak[i]) != 0) {
                st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot keep the file it replaces until the end: %s", s->path,
                                    strerror(errno));
                free(bak[i]);
                bak[i] = NULL;
                break;
            }
        }
        if (core_io_fails() || rename(s->tmp, s->path) != 0) {
            st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot rename the temporary %s: %s", s->path,
                                s->dir ? "folder" : "file", strerror(errno));
            if (bak[i]) unlink(bak[i]);
            break;
        }
        s->renamed = true;
        if (!s->dir) tmp_unregister(s->tmp);
    }
    if (st) /* undo, last first: each replaced file back from its backup, each new one removed */
        for (int i = n - 1; i >= 0; i--) {
            staged_file *s = &staged.f[i];
            if (!s->renamed) continue;
            if (s->dir)
                s->renamed = rename(s->path, s->tmp) != 0; /* back to its temporary name, removed below */
            else if (bak[i])
                (void)rename(bak[i], s->path);
            else
                (void)unlink(s->path);
        }
    for (int i = 0; i < n; i++) {
        if (!st && bak[i]) unlink(bak[i]);
        free(bak[i]);
        if (!st) sync_parent(staged.f[i].path);
    }
    free(bak);
    core_files_abort_staged(); /* what was not renamed (or was undone) */
    return st;
}

nnfx_status core_file_begin(core_file *f, const char *path, nnfx_error *err) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    if (!path || !*path) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "write: empty path");
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + 16;
    f->path = malloc(strlen(path) + 1);
    f->tmp = malloc(n);
    if (!f->path || !f->tmp) {
        free(f->path);
        free(f->tmp);
        f->path = f->tmp = NULL;
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    strcpy(f->path, path);
    /* "<dir>/.<name>.XXXXXX": hidden, and in the target's folder so the
     * rename stays on one file system */
    snprintf(f->tmp, n, "%.*s.%s.XXXXXX", (int)dl, path, path + dl);
    f->fd = core_io_fails() ? -1 : mkstemp(f->tmp);
    if (f->fd < 0) {
        nnfx_status st =
            nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot create a temporary file: %s", path, strerror(errno));
        free(f->path);
        free(f->tmp);
        f->path = f->tmp = NULL;
        return st;
    }
    tmp_register(f->tmp);
    return NNFX_OK;
}

nnfx_status core_file_write(core_file *f, const void *data, size_t len, nnfx_error *err) {
    const char *p = data;
    if (f->fd < 0) return nnfx_error_set(err, NNFX_ERR_IO, "write: file not open");
    while (len > 0) {
        ssize_t w = core_io_fails() ? -1 : write(f->fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return nnfx_error_set(err, NNFX_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
        }
        p += w;
        len -= (size_t)w;
        f->written += (size_t)w;
    }
    return NNFX_OK;
}

nnfx_status core_file_finish(core_file *f, nnfx_error *err) {
    if (f->fd < 0) return nnfx_error_set(err, NNFX_ERR_IO, "write: file not open");
    (void)fchmod(f->fd, 0644); /* mkstemp creates 0600 */
    int rc = core_io_fails() ? -1 : fsync(f->fd);
    int saved = errno;
    bool close_failed = core_io_fails(); /* the descriptor is closed either way */
    close_failed = close(f->fd) != 0 || close_failed;
    if (close_failed && rc == 0) {
        rc = -1;
        saved = errno;
    }
    f->fd = -1;
    if (rc != 0) return nnfx_error_set(err, NNFX_ERR_IO, "%s: write failed: %s", f->path, strerror(saved));
    return NNFX_OK;
}

nnfx_status core_file_commit(core_file *f, nnfx_error *err) {
    if (f->fd >= 0) {
        nnfx_status st = core_file_finish(f, err);
        if (st) return st;
    }
    if (staged.on) { /* renamed later, with the run's other files */
        if (!stage_file(f)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NNFX_OK;
    }
    if (core_io_fails() || rename(f->tmp, f->path) != 0)
        return nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot rename the temporary file: %s", f->path, strerror(errno));
    tmp_unregister(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    sync_parent(f->path); /* the rename itself reaches the disk with the folder */
    free(f->path);
    f->path = NULL;
    return NNFX_OK;
}

void core_file_abort(core_file *f) {
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->tmp) {
        unlink(f->tmp);
        tmp_unregister(f->tmp);
    }
    free(f->tmp);
    free(f->path);
    f->tmp = f->path = NULL;
}

nnfx_status core_write_file(const char *path, const void *data, size_t len, nnfx_error *err) {
    core_file f;
    nnfx_status st = core_file_begin(&f, path, err);
    if (!st) st = core_file_write(&f, data, len, err);
    if (!st) st = core_file_commit(&f, err);
    if (st) core_file_abort(&f);
    return st;
}

FILE *core_fopen_read(const char *path, nnfx_error *err) {
    /* O_NONBLOCK so a FIFO cannot block the open; refused below */
    int fd = core_io_fails() ? -1 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}
