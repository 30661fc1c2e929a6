/* fleet.h — running one pipeline over a fleet of models: --shard K/N (which
 * models this process takes) and --cache DIR (a content-addressed store of
 * earlier results). See fleet.c. */
#ifndef NNFX_CLI_FLEET_H
#define NNFX_CLI_FLEET_H

#include "cli/cli.h"

#define CLI_SHARD_MAX 65536

/* Parses "K/N" (decimal, 1 <= K <= N <= CLI_SHARD_MAX, nothing else) into
 * *k and *n; false when malformed or out of range. */
bool cli_shard_parse(const char *s, int *k, int *n);

/* The shard (1..n) that owns path: rendezvous (highest-random-weight)
 * hashing of the path string as given, so a model keeps its shard when the
 * list is reordered or grows, and each path is in exactly one shard. */
int cli_shard_of(const char *path, int n);

/* The SHA-256 (hex) of recipe (every option that changes the result, one
 * a line), NNFX_VERSION, the build identity (cli_build_id) and the contents of model and its sidecars
 * (MODEL.data and MODEL.safetensors when they exist). Non-zero (with err)
 * when the model cannot be read. */
nnfx_status cli_cache_key(const char *recipe, const char *model, char key[65], nnfx_error *err);

/* Appends "TAG PATH SHA256\n" for the file path (its digest; "-" when it
 * cannot be read) to a recipe. */
void cli_cache_recipe_file(sbuf *recipe, const char *tag, const char *path);

/* Looks key up in the cache dir. On a valid entry: every stored file is
 * placed at outs[i] (hard link, else copy; atomically renamed in), and
 * *report and *meta get the stored texts (malloc'd); returns true. An entry
 * that fails its digests (corrupt, partial) is reported on stderr (cmd),
 * removed and false returned; so is a miss (silently). */
bool cli_cache_get(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs, char **report,
                   char **meta);

/* Stores the result of key: the files outs[i] that exist (none when
 * with_files is false), the report and a one-line meta text. The entry is
 * built in a temporary folder, every file with its digest, and renamed into
 * place; an entry already there is left alone. Failures are warnings. */
void cli_cache_put(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs,
                   bool with_files, const char *report, const char *meta);

#endif
