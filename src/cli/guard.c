/* guard.c — process-wide protections of the nnfx command: the memory
 * budget (--max-memory, NNFX_MAX_MEMORY) and the removal of temporary files
 * when the process is interrupted (SIGINT, SIGTERM, SIGHUP). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

bool cli_parse_size(const char *s, size_t *out) {
    if (!s || !*s) return false;
    if (strcmp(s, "none") == 0 || strcmp(s, "0") == 0) {
        *out = 0;
        return true;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0) return false;
    double mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1024.0 * 1024;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1024.0 * 1024 * 1024;
        end++;
        break;
    case 't':
    case 'T':
        mul = 1024.0 * 1024 * 1024 * 1024;
        end++;
        break;
    default: break;
    }
    if (*end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return false;
    v *= mul;
    if (v >= (double)(SIZE_MAX / 2)) return false;
    *out = (size_t)v;
    return *out > 0 || v == 0;
}

static void on_signal(int sig) {
    nnfx_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

int cli_guard_setup(int *argc, char **argv) {
    /* default budget: half the machine's memory */
    size_t phys = nnfx_physical_memory();
    size_t limit = phys / 2;
    const char *env = getenv("NNFX_MAX_MEMORY");
    if (env && *env && !cli_parse_size(env, &limit)) {
        fprintf(stderr, "nnfx: NNFX_MAX_MEMORY='%s' is not a size (e.g. 512M, 4G, none)\n", env);
        return CLI_EXIT_USAGE;
    }
    /* --max-memory SIZE anywhere before "--": taken out of argv */
    int w = 0;
    bool end = false;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!end && strcmp(a, "--") == 0) end = true;
        if (!end && strcmp(a, "--max-memory") == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "nnfx: option --max-memory needs a value (e.g. 4G)\n");
                return CLI_EXIT_USAGE;
            }
            val = argv[++i];
        } else if (!end && strncmp(a, "--max-memory=", 13) == 0) {
            val = a + 13;
        }
        if (val) {
            if (!cli_parse_size(val, &limit)) {
                fprintf(stderr, "nnfx: --max-memory '%s' is not a size (e.g. 512M, 4G, none)\n", val);
                return CLI_EXIT_USAGE;
            }
            continue;
        }
        argv[w++] = argv[i];
    }
    argv[w] = NULL;
    *argc = w;
    nnfx_set_memory_limit(limit);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return CLI_EXIT_OK;
}
