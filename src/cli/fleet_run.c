/* fleet_run.c — list mode for the one-model commands (quantize, prune,
 * analyze, push): `nnfx CMD --list LIST [--shard K/N] -o DIR [--report
 * R.json] ...` runs the command once per listed model (the shard's models
 * only), with the other options as given, and writes one summary in the
 * shape of `optimize --batch` (so `nnfx report merge` reads it).
 *
 * The split is optimize's (cli_shard_of: by the path as written, balanced by
 * count). Every model's outputs go through the command's own staged writes
 * (cli_out_begin / cli_out_end: temporary names, renamed into place
 * together), the output names are checked over the whole list before any
 * model is run (so every shard refuses what the unsharded run refuses), and
 * as each model is in exactly one shard, two shards sharing DIR never write
 * one file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet.h"
#include "cli/report_graph.h"
#include "publish/publish.h"

#define FLEET_MAX 65536

bool cli_fleet_wanted(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strcmp(argv[i], "--list") == 0 || strcmp(argv[i], "--shard") == 0) return true;
    }
    return false;
}

/* --- notes from the one-model run ------------------------------------------------ */

static _Thread_local sbuf *notes; /* set while a list run runs one model */

void cli_fleet_note(const char *key, const char *value) {
    if (!notes) return;
    sb_printf(notes, "\"%s\": ", key);
    cli_json_str(notes, value);
    sb_printf(notes, ", ");
}

/* --- the list ------------------------------------------------------------------ */

/* Reads LIST (one path a line, # comments, blanks skipped) into models
 * (pointers into *buf). */
static int read_list(const char *cmd, const char *list, char ***models, int *n, char **buf) {
    nnfx_error err = {0};
    size_t len = 0;
    *buf = cli_read_file(list, &len, &err);
    if (!*buf) return cli_fail(cmd, list, &err);
    if (memchr(*buf, '\0', len)) {
        cli_error(cmd, "%s: a NUL byte in the list (a model path cannot hold one; is this a text file?)", list);
        return CLI_EXIT_BAD_INPUT;
    }
    int cap = 0;
    char *save = NULL;
    for (char *line = strtok_r(*buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
            line[--l] = '\0';
        if (!*line || *line == '#') continue;
        if (*n == FLEET_MAX) return cli_usage_error(cmd, "%s: more than %d models", list, FLEET_MAX);
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **m = realloc(*models, (size_t)cap * sizeof *m);
            if (!m) {
                cli_error(cmd, "out of memory");
                return CLI_EXIT_BAD_INPUT;
            }
            *models = m;
        }
        (*models)[(*n)++] = line;
    }
    if (!*n) {
        cli_error(cmd, "%s: the list names no models", list);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

/* NAME (the model's file name) with its last extension cut: push's
 * repository name. malloc'd. */
static char *stem_of(const char *model) {
    char *s = strdup(cli_basename(model));
    char *dot = s ? strrchr(s, '.') : NULL;
    if (dot && dot != s) *dot = '\0';
    return s;
}

/* --- one model --------------------------------------------------------------------- */

typedef struct fleet_entry {
    int rc;
    double ms;
    char *json; /* the report entry */
} fleet_entry;

/* Makes the report entry of one model: the command's own JSON report when
 * it wrote one (rep), with "command", "exit_code", "error" (the last error
 * message, when it failed and the report does not say), "ms" and the notes
 * added in front; otherwise an entry of those fields alone. */
static char *make_entry(const cli_fleet_cmd *c, const char *model, const char *out, const char *rep, int rc, double ms,
                        const char *note, const char *lasterr) {
    nnfx_error err = {0};
    pub_json *j = rep ? pub_json_parse(rep, strlen(rep), &err) : NULL;
    bool obj = j && j->kind == PUB_JOBJ && pub_json_str(j, "model");
    sbuf b = {0};
    sb_printf(&b, "{\"command\": \"%s\", ", c->cmd);
    if (!obj || !pub_json_get(j, "exit_code")) sb_printf(&b, "\"exit_code\": %d, ", rc);
    if (rc && (!obj || !pub_json_get(j, "error"))) {
        sb_printf(&b, "\"error\": ");
        if (lasterr && *lasterr)
            cli_json_str(&b, lasterr);
        else
            sb_printf(&b, "null");
        sb_printf(&b, ", ");
    }
    sb_printf(&b, "%s\"ms\": %.1f, ", note ? note : "", ms);
    if (obj) {
        const char *brace = strchr(rep, '{');
        size_t l = strlen(brace + 1);
        while (l && (brace[l] == '\n' || brace[l] == ' ')) /* the report's own final newline */
            l--;
        sb_printf(&b, "%.*s", (int)l, brace + 1);
    } else {
        sb_printf(&b, "\"model\": ");
        cli_json_str(&b, model);
        sb_printf(&b, ", \"output\": ");
        if (out && rc == CLI_EXIT_OK)
            cli_json_str(&b, out);
        else
            sb_printf(&b, "null");
        sb_printf(&b, ", \"result\": \"%s\"}",
                  rc == CLI_EXIT_OK      ? "ok"
                  : rc == CLI_EXIT_CHECK ? "check failed"
                                         : "error");
    }
    pub_json_free(j);
    return sb_finish(&b);
}

/* Runs the command on one model: argv is [cmd, MODEL, OUTOPT, OUT,
 * REPORTOPT, TMP, -q, the rest...]. */
static void run_one(const cli_fleet_cmd *c, const char *model, const char *out, const char *tmprep, int nrest,
                    char **rest, fleet_entry *e) {
    char *argv[16 + 2 * 64];
    int n = 0;
    argv[n++] = (char *)c->cmd;
    argv[n++] = (char *)model;
    if (c->out_opt) {
        argv[n++] = (char *)c->out_opt;
        argv[n++] = (char *)out;
    }
    if (c->report_opt) {
        argv[n++] = (char *)c->report_opt;
        argv[n++] = (char *)tmprep;
    }
    if (c->quiet_opt) argv[n++] = (char *)c->quiet_opt;
    for (int i = 0; i < nrest; i++)
        argv[n++] = rest[i];
    argv[n] = NULL;
    /* analyze's report is its output: read it only when this run wrote it
     * (a new file renamed in), never a stale one of an earlier run */
    struct stat before;
    bool had = c->out_is_report && stat(out, &before) == 0;
    sbuf nb = {0};
    notes = &nb;
    cli_last_error_clear();
    double t0 = cli_now_ms();
    e->rc = c->one(n, argv);
    e->ms = cli_now_ms() - t0;
    notes = NULL;
    char *note = sb_finish(&nb);
    /* the command's report: the temporary one, or (analyze) its output */
    const char *rpath = c->report_opt ? tmprep : c->out_is_report ? out : NULL;
    char *rep = NULL;
    struct stat after;
    bool fresh = rpath && stat(rpath, &after) == 0;
    if (fresh && had && rpath == out)
        fresh = after.st_ino != before.st_ino || after.st_dev != before.st_dev ||
                after.st_mtim.tv_sec != before.st_mtim.tv_sec || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec;
    if (fresh) {
        nnfx_error err = {0};
        rep = cli_read_file(rpath, NULL, &err);
        if (c->report_opt) unlink(rpath);
    }
    e->json = make_entry(c, model, c->out_opt ? out : NULL, rep, e->rc, e->ms, note, cli_last_error());
    free(rep);
    free(note);
}

/* --- the run ------------------------------------------------------------------------ */

/* The output rule over the whole list (cli_io): the list, every model, every
 * output under dir (reports or models, as c says) and the report; 0 or the
 * exit code of the break, reported. */
static int check_list_outputs(const cli_fleet_cmd *c, const char *cmd, const char *list, char **models, char **outs,
                              int nmodels, const char *dir, const char *report) {
    cli_io io;
    cli_io_init(&io, cmd);
    cli_io_in(&io, "--list", list);
    for (int i = 0; i < nmodels; i++)
        cli_io_model_in(&io, "the model", models[i]);
    for (int i = 0; dir && i < nmodels; i++) {
        if (c->out_is_report)
            cli_io_out(&io, "the output", outs[i]);
        else
            cli_io_model_out(&io, "the output", outs[i]);
    }
    cli_io_out(&io, "--report", report);
    int rc = cli_io_check(&io);
    cli_io_free(&io);
    return rc;
}

/* Prints the table of a list run (each model, its result and time) and the
 * counts; n > 0: shard k of n of the nall listed. */
static void print_list_table(char **models, const fleet_entry *e, int nmodels, int nok, int ncheck, int nerr, int k,
                             int n, int nall) {
    int w = 5;
    for (int i = 0; i < nmodels; i++)
        if ((int)strlen(models[i]) > w) w = (int)strlen(models[i]);
    if (w > 60) w = 60;
    printf("%-*s  %-12s  %9s\n", w, "model", "result", "ms");
    for (int i = 0; i < nmodels; i++)
        printf("%-*s  %-12s  %9.1f\n", w, models[i],
               e[i].rc == CLI_EXIT_OK      ? "ok"
               : e[i].rc == CLI_EXIT_CHECK ? "check failed"
                                           : "error",
               e[i].ms);
    printf("%d model%s: %d ok, %d failed a check, %d error%s", nmodels, nmodels == 1 ? "" : "s", nok, ncheck, nerr,
           nerr == 1 ? "" : "s");
    if (n) printf(" (shard %d/%d of %d listed)", k, n, nall);
    printf("\n");
}

/* Writes the JSON report of a list run to report (the counts, the shard when
 * n > 0, each model's entry); rc: the run's exit code so far. Returns it, or
 * the exit code of a failed write. */
static int write_list_report(const char *cmd, const char *report, const fleet_entry *e, int nmodels, int nok,
                             int ncheck, int nerr, int rc, int k, int n, int nall) {
    sbuf s = {0};
    sb_printf(&s,
              "{\n\"command\": \"%s\", \"models\": %d, \"ok\": %d, \"check_failed\": %d, \"errors\": %d, "
              "\"exit_code\": %d,\n",
              cmd, nmodels, nok, ncheck, nerr, rc);
    if (n) sb_printf(&s, "\"shard\": {\"index\": %d, \"count\": %d, \"listed\": %d},\n", k, n, nall);
    sb_printf(&s, "\"results\": [\n");
    for (int i = 0; i < nmodels; i++)
        sb_printf(&s, "%s%s", i ? ",\n" : "", e[i].json ? e[i].json : "null");
    sb_printf(&s, "\n]\n}\n");
    char *text = sb_finish(&s);
    nnfx_error err = {0};
    cli_out_begin();
    if (cli_write_text(report, text, &err)) {
        cli_fail(cmd, report, &err);
        if (!rc) rc = CLI_EXIT_BAD_INPUT;
    }
    rc = cli_out_end(cmd, rc);
    free(text);
    return rc;
}

int cli_fleet_run(const cli_fleet_cmd *c, int argc, char **argv) {
    const char *cmd = c->cmd, *list = NULL, *shard = NULL, *dir = NULL, *report = NULL, *to = NULL;
    bool quiet = false;
    char *rest[2 * 64];
    int nrest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = strcmp(a, "--list") == 0                                     ? &list
                            : strcmp(a, "--shard") == 0                                  ? &shard
                            : c->out_opt && (!strcmp(a, "-o") || !strcmp(a, "--output")) ? &dir
                            : strcmp(a, "--report") == 0                                 ? &report
                            : !c->out_opt && strcmp(a, "--to") == 0                      ? &to
                                                                                         : NULL;
        if (slot) {
            if (i + 1 >= argc) return cli_usage_error(cmd, "option %s needs a value", a);
            if (*slot) return cli_usage_error(cmd, "option %s given twice", a);
            *slot = argv[++i];
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--jobs") == 0) {
            return cli_usage_error(cmd, "--jobs goes with 'nnfx optimize'; a list run takes its models one by one");
        } else {
            if (nrest == 2 * 64) return cli_usage_error(cmd, "too many options for a list run");
            rest[nrest++] = argv[i];
        }
    }
    if (!list) return cli_usage_error(cmd, "--shard goes with --list LIST");
    if (!*list) return cli_usage_error(cmd, "--list: an empty path (name a list file)");
    if (c->out_opt && !dir) return cli_usage_error(cmd, "--list wants the output folder: -o DIR");
    if (!c->out_opt && !to) return cli_usage_error(cmd, "--list wants --to REGISTRY/PREFIX[:TAG]");
    if ((dir && !*dir) || (to && !*to)) return cli_usage_error(cmd, "an empty output folder or prefix");
    int k = 0, n = 0;
    if (shard && !cli_shard_parse(shard, &k, &n))
        return cli_usage_error(cmd, "--shard wants K/N with 1 <= K <= N <= %d, not '%s'", CLI_SHARD_MAX, shard);
    if (report && (strcmp(report, "-") == 0)) quiet = true;
    if (report && cli_report_is_html(report)) return cli_usage_error(cmd, "a list run's --report is JSON");
    char prefix[1024] = "", tag[256] = "";
    if (to) { /* REGISTRY/PREFIX[:TAG]: each model goes to PREFIX/STEM:TAG */
        const char *slash = strrchr(to, '/'), *colon = strrchr(to, ':');
        size_t pl = colon && (!slash || colon > slash) ? (size_t)(colon - to) : strlen(to);
        if (pl >= sizeof prefix || strlen(to) - pl >= sizeof tag)
            return cli_usage_error(cmd, "--to: too long ('%s')", to);
        memcpy(prefix, to, pl);
        while (pl > 0 && prefix[pl - 1] == '/')
            prefix[--pl] = '\0';
        if (to[pl] == ':') snprintf(tag, sizeof tag, "%s", to + pl);
        if (!strchr(prefix, '/')) return cli_usage_error(cmd, "--to wants REGISTRY/PREFIX[:TAG], not '%s'", to);
    }

    char *buf = NULL, **models = NULL;
    int nmodels = 0, rc = read_list(cmd, list, &models, &nmodels, &buf);
    char **outs = rc ? NULL : calloc((size_t)nmodels, sizeof *outs);
    if (!rc && !outs) rc = CLI_EXIT_BAD_INPUT, cli_error(cmd, "out of memory");
    for (int i = 0; !rc && i < nmodels; i++) {
        sbuf b = {0};
        if (dir)
            sb_printf(&b, "%s%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", cli_basename(models[i]),
                      c->out_suffix ? c->out_suffix : "");
        else {
            char *stem = stem_of(models[i]);
            sb_printf(&b, "%s/%s%s", prefix, stem ? stem : "", tag);
            free(stem);
        }
        if (!(outs[i] = sb_finish(&b))) rc = CLI_EXIT_BAD_INPUT, cli_error(cmd, "out of memory");
    }
    if (!rc) rc = check_list_outputs(c, cmd, list, models, outs, nmodels, dir, report);
    if (!rc && to) /* two models, one repository */
        for (int i = 0; !rc && i < nmodels; i++)
            for (int j = 0; !rc && j < i; j++)
                if (strcmp(outs[i], outs[j]) == 0)
                    rc = cli_usage_error(cmd, "'%s' and '%s' would both go to %s", models[j], models[i], outs[i]);
    char *made = !rc && dir ? cli_missing_dir(dir) : NULL; /* removed again after a usage error */
    if (!rc && dir && !cli_make_dirs(dir)) {
        cli_error(cmd, "%s: cannot create the output folder: %s", dir, strerror(errno));
        rc = CLI_EXIT_BAD_INPUT;
    }
    int nall = nmodels;
    if (!rc && n) { /* this shard's models (after the checks over the whole list) */
        int kept = 0;
        for (int i = 0; i < nall; i++) {
            if (cli_shard_of(models[i], n) != k) continue;
            char *t = outs[kept];
            outs[kept] = outs[i];
            outs[i] = t;
            models[kept++] = models[i];
        }
        nmodels = kept;
    }
    char tmpdir[4096] = "", tmprep[4200] = "";
    if (!rc && c->report_opt) { /* the one-model reports, read back and removed */
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/nnfx-list-XXXXXX", t && *t ? t : P_tmpdir);
        if (!mkdtemp(tmpdir)) {
            cli_error(cmd, "%s: cannot create a temporary folder: %s", tmpdir, strerror(errno));
            rc = CLI_EXIT_BAD_INPUT;
        }
        snprintf(tmprep, sizeof tmprep, "%s/report.json", tmpdir);
    }
    fleet_entry *e = rc ? NULL : calloc((size_t)nmodels + 1, sizeof *e);
    if (!rc && !e) rc = CLI_EXIT_BAD_INPUT, cli_error(cmd, "out of memory");
    int nok = 0, ncheck = 0, nerr = 0;
    if (!rc) {
        cli_progress bar;
        cli_progress_start(&bar, cmd, nmodels, quiet);
        for (int i = 0; i < nmodels; i++) {
            if (to) { /* push: MODEL REF, no output option */
                char *r2[2 * 64 + 1];
                r2[0] = outs[i];
                memcpy(r2 + 1, rest, (size_t)nrest * sizeof *rest);
                run_one(c, models[i], NULL, tmprep, nrest + 1, r2, &e[i]);
            } else {
                run_one(c, models[i], outs[i], tmprep, nrest, rest, &e[i]);
            }
            cli_progress_step(&bar, i + 1);
            if (i == 0 && e[i].rc == CLI_EXIT_USAGE) { /* the options, not the model: stop here */
                cli_progress_end(&bar);
                rc = CLI_EXIT_USAGE;
                nmodels = 1;
                goto out;
            }
            if (e[i].rc > rc) rc = e[i].rc;
            nok += e[i].rc == CLI_EXIT_OK;
            ncheck += e[i].rc == CLI_EXIT_CHECK;
            nerr += e[i].rc > CLI_EXIT_CHECK;
        }
        cli_progress_end(&bar);
        if (!quiet) print_list_table(models, e, nmodels, nok, ncheck, nerr, k, n, nall);
        if (report) rc = write_list_report(cmd, report, e, nmodels, nok, ncheck, nerr, rc, k, n, nall);
    }
out:
    if (tmpdir[0]) rmdir(tmpdir);
    if (rc == CLI_EXIT_USAGE && made) cli_remove_made_dirs(dir, made);
    free(made);
    for (int i = 0; e && i < nmodels; i++)
        free(e[i].json);
    free(e);
    for (int i = 0; outs && i < nall; i++)
        free(outs[i]);
    free(outs);
    free(models);
    free(buf);
    return rc;
}
