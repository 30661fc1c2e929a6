/* files.h — core's files, the part of core the command uses too (a
 * narrow header: src/cli/ includes it, not core_int.h, for these): files
 * written atomically (a temporary beside the target, renamed when
 * complete; atomic_file.c), one run's outputs staged and committed
 * together, regular files read without blocking on a FIFO, and the
 * test-only fault injection on file operations and heap allocations. */
#ifndef NNFX_CORE_FILES_H
#define NNFX_CORE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nnfx.h"

/* A file written under a unique temporary name beside its target and
 * renamed over it only when complete (see atomic_file.c). */
typedef struct core_file {
    int fd;     /* -1 once finished or aborted */
    char *path; /* the target */
    char *tmp;  /* the temporary, NULL once renamed */
    size_t written;
} core_file;

/* Creates the temporary (mkstemp: O_EXCL, never follows a planted link). */
nnfx_status core_file_begin(core_file *f, const char *path, nnfx_error *err);
/* Appends len bytes. */
nnfx_status core_file_write(core_file *f, const void *data, size_t len, nnfx_error *err);
/* fsync + close, without renaming (for files committed together). */
nnfx_status core_file_finish(core_file *f, nnfx_error *err);
/* Finishes if needed, renames the temporary over the target and frees f. */
nnfx_status core_file_commit(core_file *f, nnfx_error *err);
/* Closes and removes the temporary and frees f. Safe after a commit. */
void core_file_abort(core_file *f);
/* The whole dance for one buffer. */
nnfx_status core_write_file(const char *path, const void *data, size_t len, nnfx_error *err);

/* Staged outputs (one run's files committed together). While staging is on
 * for the calling thread, core_file_commit only finishes the file and keeps
 * its temporary; core_files_commit_staged then renames every staged file
 * over its target, and undoes the renames already done (restoring each
 * replaced file from a hard-link backup, removing new ones) when one fails,
 * so the targets end as all new or all as they were. */
void core_files_stage(void);
/* Stages the rename of folder tmpdir (made by the caller beside path; the
 * files written into it staged before this call) to path, which must not
 * exist then: a new folder of outputs appears at once. An abort removes
 * tmpdir once its staged files are removed. */
nnfx_status core_files_stage_dir(const char *tmpdir, const char *path, nnfx_error *err);
/* Renames the staged files into place (all or none) and ends staging. */
nnfx_status core_files_commit_staged(nnfx_error *err);
/* Removes the staged temporaries and ends staging. */
void core_files_abort_staged(void);
/* The size path will have once the calling thread's staged files are
 * committed: its staged temporary's when one is staged for path, else the
 * file's own; false when neither exists. */
bool core_file_size_staged(const char *path, uint64_t *size);

/* Test-only fault injection on file operations (open, mkstemp, read (of a
 * file push uploads), write, fsync, close, rename, link, mkdir, mmap; the
 * library's, the command's and push/pull's): from now on the k-th one fails
 * with EIO (k >= 1; 0: none); resets the count. Not in the public header:
 * only a test entry point calls it. */
void core_io_fail_at(long k);
/* File operations counted since the last core_io_fail_at call. */
long core_io_count(void);
/* Test-only fault injection on heap allocations, likewise out of the public
 * header (exported, as nnfx_*, for the tests that link the shared library):
 * from now on the k-th heap allocation made by the library fails (k >= 1;
 * 0 turns failures off); also resets the count. */
void nnfx_alloc_fail_at(long k);
/* Library heap allocations since the last nnfx_alloc_fail_at call. */
long nnfx_alloc_count(void);
/* Counts one file operation; true (errno = EIO) when it is the one chosen
 * to fail. Call it just before the operation. */
bool core_io_fails(void);

/* fopen(path, "rb") for a regular file only: a FIFO, device or folder is
 * refused without blocking. */
FILE *core_fopen_read(const char *path, nnfx_error *err);

#endif
