/* graphviz.c — renders DOT text to SVG with Graphviz's `dot` program found
 * on PATH (no shell involved). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/graphviz.h"

char *cli_find_program(const char *name) {
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t nlen = strlen(name);
    const char *p = path;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char *full = malloc(dlen + nlen + 2);
        if (!full) return NULL;
        if (dlen == 0)
            snprintf(full, nlen + 3, "./%s", name);
        else
            snprintf(full, dlen + nlen + 2, "%.*s/%s", (int)dlen, p, name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) return full;
        free(full);
        if (!colon) break;
        p = colon + 1;
    }
    return NULL;
}

/* Creates a temporary file holding data; returns its malloc'd name. */
static char *temp_with(const char *data, size_t len, nnfx_error *err) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *name = malloc(n);
    if (!name) return NULL;
    snprintf(name, n, "%s/nnfx-dot-XXXXXX", dir);
    int fd = mkstemp(name);
    if (fd < 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "cannot create a temporary file in %s: %s", dir, strerror(errno));
        free(name);
        return NULL;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            nnfx_error_set(err, NNFX_ERR_IO, "cannot write a temporary file: %s", strerror(errno));
            close(fd);
            unlink(name);
            free(name);
            return NULL;
        }
        off += (size_t)w;
    }
    close(fd);
    return name;
}

char *cli_dot_to_svg(const char *dot_text, nnfx_error *err) {
    char *dot = cli_find_program("dot");
    if (!dot) {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                       "Graphviz 'dot' was not found on PATH; install Graphviz (Debian: apt-get install graphviz) "
                       "or use --format dot");
        return NULL;
    }
    char *in = temp_with(dot_text, strlen(dot_text), err);
    char *out = in ? temp_with("", 0, err) : NULL;
    char *svg = NULL;
    if (!in || !out) goto done;
    pid_t pid = fork();
    if (pid < 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "cannot start %s: %s", dot, strerror(errno));
        goto done;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        char *argv[] = {dot, "-Tsvg", "-o", out, in, NULL};
        execv(dot, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s failed to render the graph (exit status %d)", dot,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        goto done;
    }
    FILE *f = fopen(out, "rb");
    if (!f) {
        nnfx_error_set(err, NNFX_ERR_IO, "cannot read the SVG that %s wrote", dot);
        goto done;
    }
    sbuf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sb_append(&b, chunk, got);
    fclose(f);
    svg = sb_finish(&b);
    if (!svg) nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory reading the SVG");
done:
    if (in) unlink(in);
    if (out) unlink(out);
    free(in);
    free(out);
    free(dot);
    return svg;
}
