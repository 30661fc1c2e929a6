/* mapping.c — read-only memory-mapped files shared by mapped tensors. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_int.h"
#include "nnfx.h"

struct nnfx_mapping {
    void *base;
    size_t size;
    int refcount;
    dev_t dev; /* the file mapped, to recognise it as an output */
    ino_t ino;
};

bool core_mapping_is_file(const nnfx_mapping *m, const char *path) {
    struct stat st;
    return m && path && stat(path, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino;
}

nnfx_mapping *nnfx_mapping_open(const char *path, nnfx_error *err) { return core_mapping_open(path, false, err); }

nnfx_mapping *core_mapping_open(const char *path, bool nofollow, nnfx_error *err) {
    if (!path) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "mapping: path is NULL");
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; the S_ISREG
     * check below then refuses it */
    int fd = core_io_fails() ? -1 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        if (nofollow && errno == ELOOP)
            nnfx_error_set(err, NNFX_ERR_IO, "%s: is a symbolic link (not followed)", path);
        else
            nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    nnfx_mapping *m = calloc(1, sizeof *m);
    if (!m) {
        close(fd);
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    m->size = (size_t)st.st_size;
    m->dev = st.st_dev;
    m->ino = st.st_ino;
    m->refcount = 1;
    if (m->size > 0) {
        m->base = core_io_fails() ? MAP_FAILED : mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m->base == MAP_FAILED) {
            nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
            free(m);
            close(fd);
            return NULL;
        }
    }
    close(fd);
    return m;
}

const void *nnfx_mapping_data(const nnfx_mapping *m) { return m ? m->base : NULL; }
size_t nnfx_mapping_size(const nnfx_mapping *m) { return m ? m->size : 0; }

nnfx_mapping *nnfx_mapping_retain(nnfx_mapping *m) {
    if (m) m->refcount++;
    return m;
}

void nnfx_mapping_release(nnfx_mapping *m) {
    if (!m || --m->refcount > 0) return;
    if (m->base) munmap(m->base, m->size);
    free(m);
}

void core_mapping_drop(const nnfx_mapping *m, const void *p, size_t nbytes) {
    long page = sysconf(_SC_PAGESIZE);
    if (!m || !m->base || page <= 0 || !p) return;
    uintptr_t base = (uintptr_t)m->base, end = base + m->size;
    uintptr_t lo = (uintptr_t)p, hi = (uintptr_t)p + nbytes;
    if (lo < base) lo = base;
    if (hi > end) hi = end;
    lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    hi &= ~((uintptr_t)page - 1);
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
