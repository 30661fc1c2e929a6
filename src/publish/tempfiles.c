/* tempfiles.c — the temporaries a pull writes: created beside their target,
 * registered so a signal (SIGINT, SIGTERM, SIGHUP) removes them before the
 * process dies, and committed all together or not at all.
 *
 * The registry is a fixed table of path buffers: a slot's path is written
 * while the slot is unused (signals blocked), then the slot is marked used;
 * the handler only reads slots marked used, calls unlink (async-signal-safe),
 * restores the default action and re-raises the signal. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_int.h"
#include "publish/publish.h"

#define SLOTS 48 /* a pull's temporaries and backups (PUB_MAX_PULL_LAYERS each) */

static char slot_path[SLOTS][PATH_MAX];
static volatile sig_atomic_t slot_used[SLOTS];
static bool handlers_installed;
static const int guarded[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig) {
    int saved = errno;
    for (int i = 0; i < SLOTS; i++)
        if (slot_used[i]) unlink(slot_path[i]);
    errno = saved;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installs the handlers once (a signal that is ignored stays ignored). */
static void install_handlers(void) {
    if (handlers_installed) return;
    handlers_installed = true;
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(guarded[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(guarded[i], &sa, NULL);
    }
}

/* Blocks (or, with old, restores) the guarded signals. */
static void block_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++)
        sigaddset(&set, guarded[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Registers path (signals blocked by the caller); false when the table is full. */
static bool slot_add(const char *path) {
    for (int i = 0; i < SLOTS; i++) {
        if (slot_used[i]) continue;
        snprintf(slot_path[i], sizeof slot_path[i], "%s", path);
        slot_used[i] = 1;
        return true;
    }
    return false;
}

void pub_temp_forget(const char *tmp) {
    for (int i = 0; i < SLOTS; i++)
        if (slot_used[i] && strcmp(slot_path[i], tmp) == 0) slot_used[i] = 0;
}

int pub_temp_create(const char *target, char *tmp, size_t cap) {
    install_handlers();
    int n = snprintf(tmp, cap, "%s.nnfx-XXXXXX", target);
    if (n < 0 || (size_t)n >= cap || (size_t)n >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    sigset_t old;
    block_signals(&old);
    int fd = core_io_fails() ? -1 : mkstemp(tmp);
    if (fd >= 0 && !slot_add(tmp)) {
        close(fd);
        unlink(tmp);
        fd = -1;
        errno = EMFILE;
    }
    int saved = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return fd;
}

/* A name beside target for a hard link to it (kept until the commit is
 * done); false when target does not exist or no link could be made. */
static bool backup_of(const char *target, char *out, size_t cap) {
    struct stat st;
    if (lstat(target, &st) != 0) return false;
    for (int k = 0; k < 100; k++) {
        int n = snprintf(out, cap, "%s.nnfx-bak-%ld-%d", target, (long)getpid(), k);
        if (n < 0 || (size_t)n >= cap) return false;
        if (!core_io_fails() && link(target, out) == 0) return true;
        if (errno != EEXIST) return false;
    }
    return false;
}

nnfx_status pub_commit_all(char *const *tmps, const char *const *targets, int n, nnfx_error *err) {
    char(*bak)[PATH_MAX] = calloc(n > 0 ? (size_t)n : 1, PATH_MAX);
    /* per target: 0 absent, 1 present and kept under bak, 2 present, no backup
     * could be made (a file system without hard links) */
    char *had = calloc(n > 0 ? (size_t)n : 1, 1);
    nnfx_status st = NNFX_OK;
    if (!bak || !had) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    sigset_t old;
    block_signals(&old);
    int done = 0;
    for (int i = 0; !st && i < n; i++) {
        struct stat s;
        bool exists = lstat(targets[i], &s) == 0;
        if (exists && S_ISDIR(s.st_mode)) {
            st = nnfx_error_set(err, NNFX_ERR_IO, "%s: is a folder", targets[i]);
            break;
        }
        if (exists) {
            had[i] = backup_of(targets[i], bak[i], PATH_MAX) ? 1 : 2;
            if (had[i] == 1) slot_add(bak[i]);
        }
    }
    while (!st && done < n) {
        if (core_io_fails() || rename(tmps[done], targets[done]) != 0)
            st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot rename into place: %s", targets[done], strerror(errno));
        else
            done++;
    }
    if (st) {
        /* undo: put back what was there, remove what was not (a file
         * replaced without a backup stays replaced: removing it would leave
         * nothing at all) */
        for (int i = 0; i < done && bak && had; i++) {
            if (had[i] == 1)
                rename(bak[i], targets[i]);
            else if (had[i] == 0)
                unlink(targets[i]);
        }
        for (int i = done; i < n; i++)
            unlink(tmps[i]);
    }
    for (int i = 0; i < n; i++) {
        if (bak && had && had[i] == 1) {
            if (!st || i >= done) unlink(bak[i]); /* i < done after a failure: renamed back */
            pub_temp_forget(bak[i]);
        }
        pub_temp_forget(tmps[i]);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(bak);
    free(had);
    return st;
}
