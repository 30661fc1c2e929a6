/* push.c — `nnfx push` and `nnfx pull`: a model to and from an OCI
 * registry as an artifact (docs/publish.md): the model file as a layer
 * (exact bytes, org.opencontainers.image.title = its file name), its
 * external data as a second layer, and a config blob with nnfx's analysis
 * summary and the model's provenance. The protocol is src/publish/oci.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/fleet.h"
#include "cli/analysis.h"
#include "core/files.h"
#include "io/onnx_info.h"
#include "publish/publish.h"

static const char push_help[] =
    "usage: nnfx push MODEL REGISTRY/REPOSITORY[:TAG] [--annotation KEY=VALUE]...\n"
    "                 [--username USER --password-stdin] [--plain-http] [--external-data FILE]\n"
    "                 [--ca-file FILE] [--timeout SECONDS] [--format nnfx|modelpack]\n"
    "\n"
    "Publishes MODEL (.onnx) to an OCI registry (Docker Hub, GHCR, Harbor, ECR, ACR,\n"
    "zot, docker-registry; the layout ORAS reads): one manifest whose\n"
    "  artifactType  " PUB_MT_ARTIFACT "\n"
    "  layer 1       the model file, its exact bytes, titled with its file name\n"
    "                (" PUB_MT_MODEL ")\n"
    "  layer 2       its external data, if any (" PUB_MT_DATA ")\n"
    "  config        nnfx's analysis summary and the model's provenance (nnfx.*\n"
    "                metadata) (" PUB_MT_CONFIG ")\n"
    "TAG defaults to latest. Blobs the registry already has are not sent again;\n"
    "blobs over one chunk go up in chunks (PATCH). Prints the pushed reference with\n"
    "its digest (REGISTRY/REPO@sha256:...). See docs/publish.md.\n"
    "\n"
    "options:\n"
    "  --format modelpack the CNCF ModelPack layout instead (KitOps, modctl list and\n"
    "                     pull it): artifactType " PUB_MP_ARTIFACT ",\n"
    "                     the model and its external data as " PUB_MP_WEIGHT "\n"
    "                     layers annotated " PUB_MP_FILEPATH " (and titled), a\n"
    "                     " PUB_MP_CONFIG " config (name, format onnx,\n"
    "                     diffIds). 'nnfx pull' reads both. Default: the layout above\n"
    "  --annotation K=V   a manifest annotation (repeatable), e.g.\n"
    "                     org.opencontainers.image.source=https://example.org/repo\n"
    "  --external-data F  the external-data file to publish with the model (default:\n"
    "                     MODEL.data when it exists, as nnfx writes it)\n"
    "  --username USER    log in as USER; the password is read from standard input\n"
    "  --password-stdin   (required with --username). Without --username the login,\n"
    "                     if the registry asks for one, comes from auths.<registry>.auth\n"
    "                     in $DOCKER_CONFIG/config.json or ~/.docker/config.json.\n"
    "                     Credentials are never printed.\n"
    "  --plain-http       talk HTTP instead of HTTPS (a local or test registry only)\n"
    "  --ca-file FILE     trust the CA certificates in FILE (PEM) instead of the\n"
    "                     system's (a registry with a private CA)\n"
    "  --chunk-size BYTES upload chunk size (default 8388608)\n"
    "  --timeout SECONDS  the time limit for the whole push (default 600); a transfer\n"
    "                     slower than 1 KiB/s for 30 s also fails\n"
    "  -v, --verbose      print each request (method, URL, status) on stderr\n"
    "  -h, --help         this text\n"
    "list mode (a fleet of models):\n"
    "  --list LIST        run on every model of LIST (one path a line, # comments)\n"
    "                     to --to REGISTRY/PREFIX[:TAG] (PREFIX/STEM:TAG), and write one summary of\n"
    "                     all (--report R.json: optimize --batch's shape, each model's\n"
    "                     entry with its \"command\", exit_code and error; 'nnfx report\n"
    "                     merge' reads it). Exit status: the worst model's\n"
    "  --shard K/N        with --list: only the models of shard K of N, split as\n"
    "                     'optimize --shard' splits (by path; each model in one shard),\n"
    "                     each model pushed by one shard\n"
    "\n"
    "Credentials (Basic, or a Bearer token from the registry's token service) go\n"
    "only to the registry's own origin (scheme, host, port), never to an upload\n"
    "location or redirect elsewhere. Whatever the registry sends is shown escaped.\n"
    "\n"
    "Exit status: 0 pushed; 2 usage error; 3 unreadable model, or the registry\n"
    "refused, could not be reached, or broke off the upload (the message says which).\n"
    "\n"
    "examples:\n"
    "  nnfx push opt.onnx ghcr.io/team/digits:v3 --annotation org.opencontainers.image.revision=$GIT_SHA\n"
    "  echo \"$TOKEN\" | nnfx push opt.onnx registry.example.org/ml/digits:v3 --username ci --password-stdin\n"
    "  nnfx push opt.onnx localhost:5000/digits:test --plain-http\n";

static const char pull_help[] = "usage: nnfx pull REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST] -o FILE\n"
                                "                 [--username USER --password-stdin] [--plain-http]\n"
                                "                 [--timeout SECONDS] [--max-size BYTES]\n"
                                "\n"
                                "Downloads a model pushed with `nnfx push` (or any OCI artifact with an ONNX\n"
                                "layer) to FILE; its external data, if any, goes beside FILE under the name the\n"
                                "model refers to. Every blob is downloaded to a temporary file beside its\n"
                                "target, stopped as soon as it grows past the size the manifest gives, and\n"
                                "checked against its digest; only when all match are they renamed into place,\n"
                                "together (a failed pull, or one stopped by SIGINT/SIGTERM, leaves no file and\n"
                                "changes none).\n"
                                "\n"
                                "options:\n"
                                "  -o, --output FILE  where the model goes (required)\n"
                                "  --timeout SECONDS  the time limit for the whole pull (default 600); a transfer\n"
                                "                     slower than 1 KiB/s for 30 s also fails\n"
                                "  --max-size BYTES   the largest manifest or blob accepted (default 4G; K, M, G\n"
                                "                     suffixes are powers of 1024)\n"
                                "  --username USER, --password-stdin, --plain-http, --ca-file, -v: as for nnfx push\n"
                                "  -h, --help         this text\n"
                                "\n"
                                "Exit status: 0 pulled; 2 usage error; 3 the registry refused, could not be\n"
                                "reached, has no such tag, ran out of time, or sent bytes that do not match\n"
                                "their digest or size.\n"
                                "\n"
                                "examples:\n"
                                "  nnfx pull ghcr.io/team/digits:v3 -o digits.onnx\n"
                                "  nnfx pull localhost:5000/digits@sha256:0123...cdef -o d.onnx --plain-http\n";

#define PUSH_MAX_ANN 64

typedef struct net_opts {
    pub_client_options o;
    bool password_stdin;
    char *password;
    size_t password_cap; /* bytes getline allocated (all wiped) */
} net_opts;

/* A byte count: digits and an optional K, M or G (powers of 1024), from 1
 * to 2^53; false otherwise. */
static bool parse_size(const char *s, uint64_t *out) {
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > PUB_MAX_SIZE_EXACT) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (p == s) return false;
    int shift = 0;
    if (*p == 'K' || *p == 'k') shift = 10;
    if (*p == 'M' || *p == 'm') shift = 20;
    if (*p == 'G' || *p == 'g') shift = 30;
    if (shift) p++;
    if (*p || v == 0 || v > (PUB_MAX_SIZE_EXACT >> shift)) return false;
    *out = v << shift;
    return true;
}

/* Parses the options push and pull share; true when a[i] was one. */
static bool net_opt(cli_args *a, net_opts *n, int *rc) {
    const char *v;
    if (cli_opt(a, "--username", "-u", &v)) {
        n->o.username = v;
    } else if (cli_flag(a, "--password-stdin", NULL)) {
        n->password_stdin = true;
    } else if (cli_flag(a, "--plain-http", NULL)) {
        n->o.plain_http = true;
    } else if (cli_flag(a, "--verbose", "-v")) {
        n->o.verbose = true;
    } else if (cli_opt(a, "--ca-file", NULL, &v)) {
        n->o.ca_file = v;
    } else if (cli_opt(a, "--timeout", NULL, &v)) {
        long t = 0;
        if (!a->bad && !cli_parse_int(v, 1, 86400 * 7, &t))
            *rc = cli_usage_error(a->cmd, "--timeout wants seconds from 1 to 604800, not '%s'", v);
        else if (!a->bad)
            n->o.deadline_s = t;
    } else if (strcmp(a->cmd, "pull") == 0 && cli_opt(a, "--max-size", NULL, &v)) {
        if (!a->bad && !parse_size(v, &n->o.max_size))
            *rc = cli_usage_error(a->cmd,
                                  "--max-size wants a byte count (K, M, G: powers of 1024) from 1 to 2^53, "
                                  "not '%s'",
                                  v);
    } else if (cli_opt(a, "--chunk-size", NULL, &v)) {
        long cs = 0;
        if (!a->bad && !cli_parse_int(v, 1, 1L << 30, &cs))
            *rc = cli_usage_error(a->cmd, "--chunk-size wants a byte count from 1 to 1073741824, not '%s'", v);
        else if (!a->bad)
            n->o.chunk_size = (size_t)cs;
    } else {
        return false;
    }
    return true;
}

static void net_free(net_opts *n) {
    if (n->password) {
        memset(n->password, 0, n->password_cap);
        free(n->password);
        n->password = NULL;
    }
}

/* Checks the credential options and reads the password from stdin. */
static int net_finish(const char *cmd, net_opts *n) {
    if (n->password_stdin && !n->o.username) return cli_usage_error(cmd, "--password-stdin needs --username");
    if (n->o.username && !n->password_stdin)
        return cli_usage_error(cmd, "--username needs --password-stdin (a password on the command line would show "
                                    "in the process list)");
    if (!n->password_stdin) return CLI_EXIT_OK;
    ssize_t len = getline(&n->password, &n->password_cap, stdin);
    if (len < 0) {
        free(n->password);
        n->password = NULL;
        cli_error(cmd, "--password-stdin: nothing on standard input");
        return CLI_EXIT_USAGE;
    }
    while (len > 0 && (n->password[len - 1] == '\n' || n->password[len - 1] == '\r'))
        n->password[--len] = '\0';
    if (strlen(n->password) != (size_t)len) {
        net_free(n);
        return cli_usage_error(cmd, "--password-stdin: the password holds a NUL byte");
    }
    n->o.password = n->password;
    return CLI_EXIT_OK;
}

/* Appends raw JSON if text parses as JSON, else text as a JSON string (b
 * fails as out of memory when the parse ran out of it). */
static void json_raw_or_str(sbuf *b, const char *text) {
    nnfx_error e = {0};
    pub_json *j = pub_json_parse(text, strlen(text), &e);
    if (j)
        sb_printf(b, "%s", text);
    else if (e.status == NNFX_ERR_NOMEM)
        b->oom = true; /* not "it is no JSON": the config would say otherwise */
    else
        cli_json_str(b, text);
    pub_json_free(j);
}

/* The config blob: the model's file facts, provenance and analysis. */
static char *config_json(const char *model, const char *title, const pub_blob *mb, const nnfx_graph *g,
                         const cli_analysis *an) {
    sbuf b = {0};
    const onnx_model_info *info = onnx_info_of(g);
    sb_printf(&b, "{\"created_by\": \"nnfx %s\", \"model\": {\"title\": ", NNFX_VERSION);
    cli_json_str(&b, title);
    sb_printf(&b, ", \"digest\": \"%s\", \"size\": %llu, \"producer\": ", mb->digest, (unsigned long long)mb->size);
    cli_json_str(&b, info && info->producer_name ? info->producer_name : "");
    sb_printf(&b, ", \"producer_version\": ");
    cli_json_str(&b, info && info->producer_version ? info->producer_version : "");
    sb_printf(&b, ", \"opsets\": {");
    for (int i = 0; info && i < info->nopsets; i++) {
        sb_printf(&b, "%s", i ? ", " : "");
        cli_json_str(&b, info->opsets[i].key[0] ? info->opsets[i].key : "ai.onnx");
        sb_printf(&b, ": %s", info->opsets[i].value);
    }
    sb_printf(&b, "}}, \"provenance\": {");
    int k = 0;
    for (int i = 0; info && i < info->nmeta; i++) {
        if (strncmp(info->meta[i].key, "nnfx.", 5) != 0) continue;
        sb_printf(&b, "%s", k++ ? ", " : "");
        cli_json_str(&b, info->meta[i].key);
        sb_printf(&b, ": ");
        if (strcmp(info->meta[i].key, "nnfx.steps") == 0 || strcmp(info->meta[i].key, "nnfx.validation") == 0)
            json_raw_or_str(&b, info->meta[i].value);
        else
            cli_json_str(&b, info->meta[i].value);
    }
    sb_printf(&b,
              "}, \"analysis\": {\"nodes\": %d, \"params\": %lld, \"param_bytes\": %lld, \"macs\": %lld, "
              "\"flops\": %lld, \"peak_activation_bytes\": %lld, \"findings\": {",
              an->nodes, (long long)an->params, (long long)an->param_bytes, (long long)an->macs, (long long)an->flops,
              (long long)an->peak_activation_bytes);
    for (int i = 0; i < an->nfindings; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(an->findings[j].kind, an->findings[i].kind) == 0;
        if (seen) continue;
        int count = 0;
        for (int j = i; j < an->nfindings; j++)
            if (strcmp(an->findings[j].kind, an->findings[i].kind) == 0) count++;
        sb_printf(&b, "%s", i ? ", " : "");
        cli_json_str(&b, an->findings[i].kind);
        sb_printf(&b, ": %d", count);
    }
    sb_printf(&b, "}}}");
    (void)model;
    return sb_finish(&b);
}

/* The ModelPack config blob: the model's name, its format and the layers'
 * DiffIDs (raw layers: their digests). */
static char *modelpack_config_json(const char *title, const pub_blob *mb, const pub_blob *db, const char *ext) {
    sbuf b = {0};
    size_t n = strlen(title);
    if (n > 5 && strcmp(title + n - 5, ".onnx") == 0) n -= 5;
    sb_printf(&b, "{\"descriptor\": {\"name\": ");
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(n < 255 ? n : 255), title);
    cli_json_str(&b, name);
    sb_printf(&b, "}, \"config\": {\"format\": \"onnx\"}, \"modelfs\": {\"type\": \"layers\", \"diffIds\": [\"%s\"",
              mb->digest);
    if (ext) sb_printf(&b, ", \"%s\"", db->digest);
    sb_printf(&b, "]}}");
    return sb_finish(&b);
}

static void descriptor(sbuf *b, const char *mt, const pub_blob *blob, const char *title) {
    sb_printf(b, "{\"mediaType\": \"%s\", \"digest\": \"%s\", \"size\": %llu", mt, blob->digest,
              (unsigned long long)blob->size);
    if (title) {
        sb_printf(b, ", \"annotations\": {\"org.opencontainers.image.title\": ");
        cli_json_str(b, title);
        if (strcmp(mt, PUB_MP_WEIGHT) == 0) { /* ModelPack's own name for it */
            sb_printf(b, ", \"" PUB_MP_FILEPATH "\": ");
            cli_json_str(b, title);
        }
        sb_printf(b, "}");
    }
    sb_printf(b, "}");
}

/* The OCI image manifest: the config, the model and (when ext) its
 * external data as layers, the --annotation pairs. NULL when out of
 * memory. */
static char *manifest_json(const pub_blob *cb, const pub_blob *mb, const pub_blob *db, const char *title,
                           const char *ext, int nann, const char *const *ann, bool modelpack) {
    sbuf m = {0};
    sb_printf(&m,
              "{\"schemaVersion\": 2, \"mediaType\": \"%s\", \"artifactType\": \"%s\", \"config\": ", PUB_MT_MANIFEST,
              modelpack ? PUB_MP_ARTIFACT : PUB_MT_ARTIFACT);
    descriptor(&m, modelpack ? PUB_MP_CONFIG : PUB_MT_CONFIG, cb, NULL);
    sb_printf(&m, ", \"layers\": [");
    descriptor(&m, modelpack ? PUB_MP_WEIGHT : PUB_MT_MODEL, mb, title);
    if (ext) {
        sb_printf(&m, ", ");
        descriptor(&m, modelpack ? PUB_MP_WEIGHT : PUB_MT_DATA, db, cli_basename(ext));
    }
    sb_printf(&m, "]");
    if (nann) {
        sb_printf(&m, ", \"annotations\": {");
        for (int i = 0; i < nann; i++) {
            const char *eq = strchr(ann[i], '=');
            char key[512];
            snprintf(key, sizeof key, "%.*s", (int)(eq - ann[i]), ann[i]);
            sb_printf(&m, "%s", i ? ", " : "");
            cli_json_str(&m, key);
            sb_printf(&m, ": ");
            cli_json_str(&m, eq + 1);
        }
        sb_printf(&m, "}");
    }
    sb_printf(&m, "}");
    return sb_finish(&m);
}

/* The command on one model (argv as given). */
static int push_one(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(push_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *model = NULL, *refs = NULL, *ext = NULL;
    const char *ann[PUSH_MAX_ANN];
    int nann = 0, rc = CLI_EXIT_OK;
    bool modelpack = false;
    net_opts n = {0};
    cli_args a;
    cli_args_init(&a, "push", argc, argv);
    while (cli_args_more(&a) && !rc) {
        const char *v;
        if (net_opt(&a, &n, &rc)) continue;
        if (cli_opt(&a, "--annotation", "-a", &v)) {
            if (a.bad) break;
            if (nann == PUSH_MAX_ANN) return cli_usage_error("push", "too many --annotation options");
            if (!strchr(v, '=') || v[0] == '=')
                return cli_usage_error("push", "--annotation wants KEY=VALUE, not '%s'", v);
            ann[nann++] = v;
        } else if (cli_opt(&a, "--external-data", NULL, &v)) {
            ext = v;
        } else if (cli_opt(&a, "--format", NULL, &v)) {
            if (a.bad) break;
            if (strcmp(v, "modelpack") != 0 && strcmp(v, "nnfx") != 0)
                return cli_usage_error("push", "--format wants nnfx or modelpack, not '%s'", v);
            modelpack = strcmp(v, "modelpack") == 0;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (!model)
                model = p;
            else if (!refs)
                refs = p;
            else
                return cli_usage_error("push", "unexpected argument '%s' (one MODEL and one REFERENCE)", p);
        }
    }
    if (rc) return rc;
    if (a.bad) return CLI_EXIT_USAGE;
    if (!model || !refs) return cli_usage_error("push", "give MODEL and REGISTRY/REPOSITORY[:TAG]");
    nnfx_error err = {0};
    pub_ref ref;
    if (pub_ref_parse(refs, &ref, &err)) return cli_usage_error("push", "%s", err.msg);
    if (ref.is_digest) return cli_usage_error("push", "push to a tag, not a digest ('%s')", refs);
    if ((rc = net_finish("push", &n))) return rc;

    /* the model must be one nnfx reads; its analysis goes into the config */
    nnfx_graph *g = cli_load_model_shapes(model, NULL, &err);
    if (!g || nnfx_graph_infer_shapes(g, &err)) {
        nnfx_graph_free(g);
        net_free(&n);
        cli_fail("push", model, &err);
        return CLI_EXIT_BAD_INPUT;
    }
    cli_analysis an = {0};
    pub_blob mb = {.path = model}, db = {0}, cb = {0};
    char *config = NULL, *manifest = NULL, *ext_auto = NULL;
    pub_client *c = NULL;
    const char *title = cli_basename(model);
    if (cli_analyze_graph(g, model, &an, &err) || pub_blob_prepare(&mb, &err)) {
        rc = cli_fail("push", model, &err);
        goto out;
    }
    if (!ext) {
        size_t len = strlen(model) + 6;
        ext_auto = malloc(len);
        if (!ext_auto) { /* without the name, MODEL.data would silently stay behind */
            cli_error("push", "out of memory");
            rc = CLI_EXIT_BAD_INPUT;
            goto out;
        }
        snprintf(ext_auto, len, "%s.data", model);
        if (access(ext_auto, R_OK) == 0) ext = ext_auto;
    }
    if (ext) {
        db.path = ext;
        if (pub_blob_prepare(&db, &err)) {
            rc = cli_fail("push", ext, &err);
            goto out;
        }
    }
    config = modelpack ? modelpack_config_json(title, &mb, &db, ext) : config_json(model, title, &mb, g, &an);
    if (!config) {
        cli_error("push", "out of memory");
        rc = CLI_EXIT_BAD_INPUT;
        goto out;
    }
    cb.data = config;
    cb.size = strlen(config);
    if (pub_blob_prepare(&cb, &err)) { /* out of memory: no digest for the config */
        rc = cli_fail("push", model, &err);
        goto out;
    }

    manifest = manifest_json(&cb, &mb, &db, title, ext, nann, ann, modelpack);
    if (!manifest) {
        cli_error("push", "out of memory");
        rc = CLI_EXIT_BAD_INPUT;
        goto out;
    }

    c = pub_client_new(&ref, &n.o, &err);
    char digest[72];
    if (!c || pub_push_blob(c, &mb, &err) || (ext && pub_push_blob(c, &db, &err)) || pub_push_blob(c, &cb, &err) ||
        pub_push_manifest(c, manifest, strlen(manifest), digest, &err)) {
        pub_scrub_message(c, err.msg, sizeof err.msg);
        cli_error("push", "%s: %s", refs, err.msg);
        rc = err.status == NNFX_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
        goto out;
    }
    printf("%s/%s@%s\n", ref.host, ref.repo, digest);
    char pushed[1200];
    snprintf(pushed, sizeof pushed, "%s/%s@%s", ref.host, ref.repo, digest);
    cli_fleet_note("pushed", pushed);
out:
    pub_client_free(c);
    free(manifest);
    free(config);
    free(ext_auto);
    cli_analysis_free(&an);
    nnfx_graph_free(g);
    net_free(&n);
    return rc;
}

int cli_pull(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(pull_help, stdout);
        return CLI_EXIT_OK;
    }
    const char *refs = NULL, *out = NULL;
    int rc = CLI_EXIT_OK;
    net_opts n = {0};
    cli_args a;
    cli_args_init(&a, "pull", argc, argv);
    while (cli_args_more(&a) && !rc) {
        const char *v;
        if (net_opt(&a, &n, &rc)) continue;
        if (cli_opt(&a, "--output", "-o", &v)) {
            out = v;
        } else {
            const char *p = cli_positional(&a);
            if (!p) break;
            if (refs) return cli_usage_error("pull", "one reference at a time ('%s' and '%s' given)", refs, p);
            refs = p;
        }
    }
    if (rc) return rc;
    if (a.bad) return CLI_EXIT_USAGE;
    if (!refs) return cli_usage_error("pull", "no reference given (REGISTRY/REPOSITORY[:TAG])");
    if (!out) return cli_usage_error("pull", "no output given (-o FILE)");
    cli_io io; /* the output rule (an empty -o is refused) */
    cli_io_init(&io, "pull");
    cli_io_out(&io, "-o", out);
    rc = cli_io_check(&io);
    cli_io_free(&io);
    if (rc) return rc;
    if (strcmp(out, "-") == 0 || cli_is_dir(out) || out[strlen(out) - 1] == '/')
        return cli_usage_error("pull", "-o wants a file name, not '%s'", out);
    nnfx_error err = {0};
    pub_ref ref;
    if (pub_ref_parse(refs, &ref, &err)) return cli_usage_error("pull", "%s", err.msg);
    if ((rc = net_finish("pull", &n))) return rc;

    char *text = NULL, digest[72];
    size_t len = 0;
    pub_json *man = NULL;
    pub_pull_plan plan;
    char *tmps[PUB_MAX_PULL_LAYERS] = {0};
    char *targets[PUB_MAX_PULL_LAYERS] = {0};
    int ntmp = 0;
    pub_client *c = pub_client_new(&ref, &n.o, &err);
    if (!c || pub_pull_manifest(c, &text, &len, digest, &err)) goto fail;
    if (!(man = pub_json_parse(text, len, &err))) goto fail;
    if (pub_manifest_plan(man, cli_basename(out), n.o.max_size ? n.o.max_size : PUB_DEFAULT_MAX_SIZE, &plan, &err))
        goto fail;
    /* every layer to a temporary beside its target; all renamed into place
     * only when every one matched its size and digest */
    size_t dl = strrchr(out, '/') ? (size_t)(strrchr(out, '/') - out) + 1 : 0;
    for (int i = 0; i < plan.n; i++) {
        const pub_pull_layer *l = &plan.layers[i];
        size_t tl = l->model ? strlen(out) : dl + strlen(l->title);
        targets[i] = malloc(tl + 1);
        tmps[i] = malloc(tl + 32);
        if (!targets[i] || !tmps[i]) goto fail;
        if (l->model) {
            memcpy(targets[i], out, tl + 1);
        } else {
            memcpy(targets[i], out, dl);
            memcpy(targets[i] + dl, l->title, strlen(l->title) + 1);
        }
        int fd = pub_temp_create(targets[i], tmps[i], tl + 32);
        FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!f) {
            int e = errno;
            if (fd >= 0) {
                close(fd);
                unlink(tmps[i]);
                pub_temp_forget(tmps[i]);
            }
            nnfx_error_set(&err, NNFX_ERR_IO, "%s: cannot create a temporary file beside it: %s", targets[i],
                           strerror(e));
            goto fail;
        }
        ntmp = i + 1;
        nnfx_status st = pub_pull_blob(c, l->digest, l->size, f, &err);
        bool close_failed = core_io_fails(); /* fault injection (tests only); f is closed all the same */
        if ((fclose(f) != 0 || close_failed) && !st)
            st = nnfx_error_set(&err, NNFX_ERR_IO, "%s: write failed: %s", tmps[i], strerror(errno));
        if (st) goto fail;
    }
    if (pub_commit_all(tmps, (const char *const *)targets, plan.n, &err)) {
        ntmp = 0; /* pub_commit_all removed them */
        goto fail;
    }
    ntmp = 0;
    printf("%s -> %s (%s)\n", refs, out, digest);
    goto done;
fail:
    if (!err.msg[0]) nnfx_error_set(&err, NNFX_ERR_NOMEM, "out of memory");
    for (int i = 0; i < ntmp; i++) {
        unlink(tmps[i]);
        pub_temp_forget(tmps[i]);
    }
    pub_scrub_message(c, err.msg, sizeof err.msg);
    cli_error("pull", "%s: %s", refs, err.msg);
    rc = err.status == NNFX_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
done:
    for (int i = 0; i < PUB_MAX_PULL_LAYERS; i++) {
        free(tmps[i]);
        free(targets[i]);
    }
    pub_json_free(man);
    free(text);
    pub_client_free(c);
    net_free(&n);
    return rc;
}

static const cli_fleet_cmd push_list = {"push", push_one, NULL, NULL, NULL, NULL, false};

int cli_push(int argc, char **argv) {
    if (!cli_wants_help(argc, argv) && cli_fleet_wanted(argc, argv)) return cli_fleet_run(&push_list, argc, argv);
    return push_one(argc, argv);
}
