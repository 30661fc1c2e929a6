/* shard.c — `nnfx shard K/N LIST`: the models of LIST that shard K of N
 * takes, as `optimize --batch LIST --shard K/N` takes them (fleet.c), so
 * any command can be run over one shard by a shell loop. */
#include <stdlib.h>
#include <string.h>

#include "cli/fleet.h"

static const char shard_help[] = "usage: nnfx shard K/N LIST\n"
                                 "\n"
                                 "Prints the model paths of LIST (one a line, # comments, as for\n"
                                 "'nnfx optimize --batch') that shard K of N takes (1 <= K <= N): the same\n"
                                 "split as '--shard K/N', by rendezvous hashing of each path as written, so\n"
                                 "a model keeps its shard when the list is reordered or grows.\n"
                                 "quantize, prune, analyze and push take the same split themselves\n"
                                 "('--list LIST --shard K/N'); this is for any other command.\n"
                                 "\n"
                                 "Exit status: 0 (also for a shard with no models), 2 usage error, 3 LIST\n"
                                 "cannot be read.\n"
                                 "\n"
                                 "example:\n"
                                 "  nnfx shard 2/8 models.txt | while read -r m; do nnfx analyze \"$m\" --json "
                                 "\"r/$(basename \"$m\").json\"; done\n";

int cli_shard(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(shard_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *spec = NULL, *list = NULL;
    cli_args a;
    cli_args_init(&a, "shard", argc, argv);
    while (cli_args_more(&a)) {
        const char *p = cli_positional(&a);
        if (!p) break;
        if (!spec)
            spec = p;
        else if (!list)
            list = p;
        else
            return cli_usage_error("shard", "unexpected argument '%s'", p);
    }
    if (a.bad) return CLI_EXIT_USAGE;
    if (!spec || !list) return cli_usage_error("shard", "wants K/N and LIST");
    int k = 0, n = 0;
    if (!cli_shard_parse(spec, &k, &n))
        return cli_usage_error("shard", "wants K/N with 1 <= K <= N <= %d, not '%s'", CLI_SHARD_MAX, spec);
    nnfx_error err = {0};
    char *buf = cli_read_file(list, NULL, &err);
    if (!buf) return cli_fail("shard", list, &err);
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (!*line || *line == '#') continue;
        if (cli_shard_of(line, n) == k) printf("%s\n", line);
    }
    free(buf);
    return CLI_EXIT_OK;
}
