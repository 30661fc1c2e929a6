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
    f->fd = mkstemp(f->tmp);
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
        ssize_t w = write(f->fd, p, len);
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
    int rc = fsync(f->fd);
    int saved = errno;
    if (close(f->fd) != 0 && rc == 0) {
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
    if (rename(f->tmp, f->path) != 0)
        return nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot rename the temporary file: %s", f->path, strerror(errno));
    tmp_unregister(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    /* the rename itself reaches the disk with the folder */
    const char *slash = strrchr(f->path, '/');
    char *dir = slash ? malloc((size_t)(slash - f->path) + 2) : NULL;
    if (dir) {
        memcpy(dir, f->path, (size_t)(slash - f->path) + 1);
        dir[slash - f->path + (slash == f->path)] = '\0';
    }
    int dfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
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
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
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
