/* fleet.c — running one pipeline over a fleet of models.
 *
 * --shard K/N: rendezvous (highest-random-weight) hashing. Each path gets a
 * weight per shard, w(path, s) = mix(hash(path) ^ mix(s)), and belongs to the
 * shard of highest weight: deterministic, each path in exactly one shard,
 * and a path keeps its shard when the list is reordered or grows (adding
 * models moves none of the others). Balanced by model count (in
 * expectation), not by size: a size-balanced split would move models
 * between shards whenever one is added.
 *
 * --cache DIR: one folder per key (DIR/KEY, KEY = SHA-256 of the recipe,
 * nnfx's version, its build identity and the model's bytes; for results a
 * run of the model computes, the host's CPU features too) holding the
 * output files (0, 1, ...) and MANIFEST: the key and build, each file with its
 * SHA-256 and size, the meta line and the report entry (inline, so a hit
 * opens only the MANIFEST and the stored outputs), and last the digest of
 * the manifest itself. An entry
 * is built in a temporary folder and renamed into place (atomic); a reader
 * checks every digest before using any of it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet.h"
#include "core/files.h"
#include "publish/publish.h"

/* --- shards ------------------------------------------------------------------------ */

bool cli_shard_parse(const char *s, int *k, int *n) {
    long a = 0, b = 0;
    const char *p = s;
    if (!s || !*s) return false;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((a = a * 10 + (*p - '0')) > CLI_SHARD_MAX) return false;
    if (p == s || *p != '/') return false;
    const char *q = ++p;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((b = b * 10 + (*p - '0')) > CLI_SHARD_MAX) return false;
    if (p == q || *p) return false;
    if (a < 1 || b < 1 || a > b) return false;
    *k = (int)a;
    *n = (int)b;
    return true;
}

static uint64_t mix64(uint64_t x) { /* splitmix64's finaliser */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int cli_shard_of(const char *path, int n) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    int best = 1;
    uint64_t bw = 0;
    for (int s = 1; s <= n; s++) {
        uint64_t w = mix64(h ^ mix64((uint64_t)s));
        if (s == 1 || w > bw) bw = w, best = s;
    }
    return best;
}

/* --- cache key --------------------------------------------------------------------- */

void cli_cache_recipe_file(sbuf *recipe, const char *tag, const char *path) {
    char hex[PUB_SHA256_HEX] = "-";
    nnfx_error err = {0};
    if (pub_sha256_file(path, hex, NULL, &err)) snprintf(hex, sizeof hex, "-");
    sb_printf(recipe, "%s ", tag);
    cli_json_str(recipe, path);
    sb_printf(recipe, " %s\n", hex);
}

void cli_cache_recipe_host(sbuf *recipe) {
    const unsigned f = nnfx_cpu_features();
    sb_printf(recipe, "host-cpu %s%s%s%s%s\n", f & NNFX_CPU_AVX2_FMA ? "avx2+fma " : "",
              f & NNFX_CPU_AVX512 ? "avx512 " : "", f & NNFX_CPU_INT8_DOT ? "int8-dot " : "",
              f & NNFX_CPU_AVX512_VBMI ? "avx512vbmi " : "", f ? "" : "portable");
}

nnfx_status cli_cache_key(const char *recipe, const char *model, char key[65], nnfx_error *err) {
    char hex[PUB_SHA256_HEX];
    sbuf b = {0};
    sb_printf(&b, "nnfx-cache 1\nversion %s\nbuild %s\n%s", NNFX_VERSION, cli_build_id(), recipe);
    if (pub_sha256_file(model, hex, NULL, err)) {
        free(sb_finish(&b));
        return NNFX_ERR_IO;
    }
    sb_printf(&b, "model-bytes %s\n", hex);
    static const char *const sidecars[] = {".data", ".safetensors"};
    for (int i = 0; i < 2; i++) {
        sbuf p = {0};
        sb_printf(&p, "%s%s", model, sidecars[i]);
        char *side = sb_finish(&p);
        struct stat st;
        if (side && stat(side, &st) == 0) cli_cache_recipe_file(&b, "sidecar", side);
        free(side);
    }
    char *text = sb_finish(&b);
    if (!text || !pub_sha256_buf(text, strlen(text), key)) {
        free(text);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    free(text);
    return NNFX_OK;
}

/* --- cache entries ------------------------------------------------------------------ */

static char *join(const char *dir, const char *name) {
    sbuf b = {0};
    sb_printf(&b, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return sb_finish(&b);
}

/* Removes a folder of plain files (an entry or a temporary), then the folder. */
static void remove_entry_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = join(dir, e->d_name);
            if (p) unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Places src at target: a hard link (else a copy) under a temporary name
 * beside target, renamed over it; nothing to do when target is src's own
 * inode. */
static bool place_file(const char *src, const char *target) {
    struct stat a, b;
    if (stat(src, &a) == 0 && stat(target, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return true; /* already that very file (linked by an earlier hit or store) */
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.nnfx-XXXXXX", target);
    if (n < 0 || (size_t)n >= sizeof tmp) return false;
    int fd = mkstemp(tmp); /* a fresh name (thread-safe: batch workers place files at once) */
    if (fd < 0) return false;
    close(fd);
    unlink(tmp);
    bool ok = link(src, tmp) == 0;
    if (!ok) {
        size_t len = 0;
        nnfx_error err = {0};
        char *data = cli_read_file(src, &len, &err);
        ok = data && core_write_file(tmp, data, len, &err) == NNFX_OK;
        free(data);
    }
    if (ok && rename(tmp, target) != 0) ok = false;
    if (!ok) unlink(tmp);
    return ok;
}

/* Reads a whole small file (a MANIFEST) with one open; NULL when it cannot
 * be read or holds a NUL byte. */
static char *slurp(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 30) &&
        (buf = malloc((size_t)st.st_size + 1))) {
        size_t n = 0, want = (size_t)st.st_size;
        ssize_t r = 1;
        while (n < want && (r = read(fd, buf + n, want - n)) > 0)
            n += (size_t)r;
        if (n != want || memchr(buf, '\0', n)) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            *len = n;
        }
    }
    close(fd);
    return buf;
}

/* Takes the next "\n"-ended line of the manifest at *p (NUL-terminated in
 * place); NULL at the end. */
static char *next_line(char **p, char *end) {
    char *nl = *p < end ? memchr(*p, '\n', (size_t)(end - *p)) : NULL;
    if (!nl) return NULL;
    char *line = *p;
    *nl = '\0';
    *p = nl + 1;
    return line;
}

/* Takes a "TAG LEN\n" line and the LEN bytes and "\n" after it: a text of
 * the manifest, copied into *text (malloc'd). */
static bool take_text(char **p, char *end, const char *tag, char **text) {
    char *line = next_line(p, end), *e = NULL;
    size_t tl = strlen(tag);
    if (!line || strncmp(line, tag, tl) != 0 || line[tl] != ' ') return false;
    unsigned long long n = strtoull(line + tl + 1, &e, 10);
    if (*e || e == line + tl + 1 || n > (unsigned long long)(end - *p) || (*p)[n] != '\n') return false;
    if (!(*text = malloc((size_t)n + 1))) return false;
    memcpy(*text, *p, (size_t)n);
    (*text)[n] = '\0';
    *p += n + 1;
    return true;
}

/* Validates the entry: the MANIFEST's own digest (its last line), the key,
 * every stored file's digest and size; the meta line and the report entry
 * are inside the MANIFEST, so a hit reads two files (the MANIFEST and each
 * stored output). On success fills have[i] and *report, *meta. why says
 * what failed. */
static bool entry_valid(const char *entry, const char *key, int nout, bool *have, char **report, char **meta,
                        const char **why) {
    char *mpath = join(entry, "MANIFEST");
    size_t len = 0;
    char *m = mpath ? slurp(mpath, &len) : NULL;
    free(mpath);
    *why = "no readable MANIFEST";
    if (!m) return false;
    bool ok = false;
    char hex[PUB_SHA256_HEX];
    const size_t dl = 7 + 64 + 1; /* "digest " HEX "\n" */
    *why = "the MANIFEST's own digest does not match";
    if (len < dl || (len > dl && m[len - dl - 1] != '\n') || strncmp(m + len - dl, "digest ", 7) != 0 ||
        m[len - 1] != '\n' || !pub_sha256_buf(m, len - dl, hex) || strncmp(m + len - dl + 7, hex, 64) != 0)
        goto done;
    char *p = m, *end = m + len - dl;
    *why = "the MANIFEST names another key or build";
    char want[160];
    snprintf(want, sizeof want, "nnfx-cache-entry 2\nkey %s\nbuild %s\n", key, cli_build_id());
    if (strncmp(m, want, strlen(want)) != 0) goto done;
    p += strlen(want);
    *why = "a file does not match its digest";
    while (p < end && strncmp(p, "file ", 5) == 0) {
        char *line = next_line(&p, end), *e = NULL;
        char sha[PUB_SHA256_HEX];
        unsigned long long size = 0;
        if (!line) goto done; /* no end of line before the digest */
        long i = strtol(line + 5, &e, 10);
        if (e == line + 5 || *e != ' ' || i < 0 || i >= nout || sscanf(e, " %64s %llu", sha, &size) != 2) goto done;
        char name[16];
        snprintf(name, sizeof name, "%ld", i);
        char *fp = join(entry, name);
        uint64_t n = 0;
        nnfx_error err = {0};
        bool good = fp && pub_sha256_file(fp, hex, &n, &err) == NNFX_OK && strcmp(hex, sha) == 0 && n == size;
        free(fp);
        if (!good) goto done;
        have[i] = true;
    }
    *why = "the meta line or the report is missing";
    ok = take_text(&p, end, "meta", meta) && take_text(&p, end, "report", report) && p == end;
done:
    free(m);
    if (!ok) {
        free(*report);
        free(*meta);
        *report = *meta = NULL;
    }
    return ok;
}

bool cli_cache_get(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs, char **report,
                   char **meta) {
    *report = *meta = NULL;
    char *entry = join(dir, key);
    if (!entry) return false;
    bool have[16] = {false};
    const char *why = "";
    bool ok = nout <= 16 && entry_valid(entry, key, nout, have, report, meta, &why);
    if (!ok && strcmp(why, "no readable MANIFEST") == 0) {
        struct stat st;
        if (lstat(entry, &st) != 0) { /* a miss: no entry at all */
            free(entry);
            return false;
        }
    }
    for (int i = 0; ok && i < nout; i++) {
        if (!have[i]) continue;
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        char *src = join(entry, name);
        if (!src || !place_file(src, outs[i])) {
            why = "a stored file could not be placed";
            ok = false;
        }
        free(src);
    }
    if (!ok) {
        fprintf(stderr, "nnfx %s: cache entry %s is unusable (%s): redoing it\n", cmd, entry, why);
        free(*report);
        free(*meta);
        *report = *meta = NULL;
        /* out of the way first (atomic), then removed */
        sbuf b = {0};
        sb_printf(&b, "%s.bad-%ld", entry, (long)getpid());
        char *bad = sb_finish(&b);
        if (bad && rename(entry, bad) == 0) remove_entry_dir(bad);
        free(bad);
    }
    free(entry);
    return ok;
}

/* Appends "TAG NAME SHA SIZE" for the file dir/name to the manifest. */
static bool manifest_line(sbuf *m, const char *dir, const char *tag, const char *name) {
    char *p = join(dir, name);
    char hex[PUB_SHA256_HEX];
    uint64_t n = 0;
    nnfx_error err = {0};
    bool ok = p && pub_sha256_file(p, hex, &n, &err) == NNFX_OK;
    if (ok) sb_printf(m, "%s %s %s %llu\n", tag, name, hex, (unsigned long long)n);
    free(p);
    return ok;
}

/* Writes a text file of an entry under construction (no fsync: the
 * folder is renamed in whole, and readers check every digest). */
static bool put_text(const char *dir, const char *name, const char *text) {
    char *p = join(dir, name);
    FILE *f = p ? fopen(p, "wbx") : NULL;
    bool ok = f && fwrite(text, 1, strlen(text), f) == strlen(text);
    if (f && fclose(f) != 0) ok = false;
    free(p);
    return ok;
}

void cli_cache_put(const char *cmd, const char *dir, const char *key, int nout, const char *const *outs,
                   bool with_files, const char *report, const char *meta) {
    if (!cli_make_dirs(dir)) {
        fprintf(stderr, "nnfx %s: warning: %s: cannot create the cache folder: %s\n", cmd, dir, strerror(errno));
        return;
    }
    sbuf t = {0};
    sb_printf(&t, "%s%s.tmp-%s-XXXXXX", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", key);
    char *tmp = sb_finish(&t);
    if (!tmp || !mkdtemp(tmp)) {
        fprintf(stderr, "nnfx %s: warning: %s: cannot write to the cache: %s\n", cmd, dir, strerror(errno));
        free(tmp);
        return;
    }
    sbuf m = {0};
    sb_printf(&m, "nnfx-cache-entry 2\nkey %s\nbuild %s\n", key, cli_build_id());
    bool ok = true;
    for (int i = 0; ok && with_files && i < nout && i < 16; i++) {
        struct stat st;
        if (stat(outs[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        char *dst = join(tmp, name);
        ok = dst && place_file(outs[i], dst) && manifest_line(&m, tmp, "file", name);
        free(dst);
    }
    sb_printf(&m, "meta %zu\n%s\nreport %zu\n%s\n", strlen(meta), meta, strlen(report), report);
    char *man = sb_finish(&m);
    char hex[PUB_SHA256_HEX];
    if (ok && man && pub_sha256_buf(man, strlen(man), hex)) {
        sbuf f = {0};
        sb_printf(&f, "%sdigest %s\n", man, hex);
        char *full = sb_finish(&f);
        ok = full && put_text(tmp, "MANIFEST", full);
        free(full);
    } else {
        ok = false;
    }
    free(man);
    char *entry = join(dir, key);
    if (ok && entry && rename(tmp, entry) != 0 && errno != EEXIST && errno != ENOTEMPTY)
        fprintf(stderr, "nnfx %s: warning: %s: cannot store the cache entry: %s\n", cmd, entry, strerror(errno));
    else if (!ok)
        fprintf(stderr, "nnfx %s: warning: %s: cannot write the cache entry\n", cmd, tmp);
    remove_entry_dir(tmp); /* gone after the rename; else the leftovers */
    free(entry);
    free(tmp);
}
