/* fuzz_json.c — libFuzzer target for what the registry client parses
 * (src/publish): the JSON reader (manifests, token answers, error bodies,
 * docker config), walked the way the client reads it; the same bytes as an
 * image reference (REGISTRY/REPOSITORY[:TAG|@DIGEST]); and as a docker
 * config file read for credentials when a client is made (no network). */
#include "fuzz_common.h"
#include "publish/publish.h"

/* Visits every value; strings must be NUL-terminated, counts sane. */
static void walk(const pub_json *j, int depth) {
    if (!j || depth > 10000) abort();
    switch (j->kind) {
    case PUB_JSTR:
        if (!j->str) abort();
        (void)strlen(j->str);
        break;
    case PUB_JARR:
    case PUB_JOBJ:
        if (j->n < 0 || (j->n > 0 && !j->items)) abort();
        for (int i = 0; i < j->n; i++) {
            if (j->kind == PUB_JOBJ && (!j->keys || !j->keys[i])) abort();
            walk(j->items[i], depth + 1);
        }
        break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    nnfx_error err = {0};
    pub_json *j = pub_json_parse((const char *)data, size, &err);
    bool valid = j != NULL;
    if (!j) {
        fz_check_error(&err);
    } else {
        walk(j, 0);
        static const char *keys[] = {"layers", "config", "errors", "token", "access_token", "auths", "mediaType"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const pub_json *v = pub_json_get(j, keys[k]);
            (void)pub_json_str(j, keys[k]);
            if (v && v->kind == PUB_JARR)
                for (int i = 0; i < v->n; i++)
                    (void)pub_json_str(v->items[i], "digest");
        }
        pub_json_free(j);
    }
    /* the bytes as a reference, up to the first NUL */
    char ref_text[512];
    size_t n = size < sizeof ref_text - 1 ? size : sizeof ref_text - 1;
    memcpy(ref_text, data, n);
    ref_text[n] = '\0';
    pub_ref ref;
    memset(&err, 0, sizeof err);
    if (pub_ref_parse(ref_text, &ref, &err)) fz_check_error(&err);
    /* valid JSON as a docker config: credentials for localhost:5000 (the
     * client warns about invalid JSON on stderr: the parse above covers it) */
    char path[128];
    fz_path(path, sizeof path, "docker_config.json");
    if (valid && fz_write(path, data, size) == 0) {
        pub_ref local;
        memset(&err, 0, sizeof err);
        if (pub_ref_parse("localhost:5000/fuzz/model:v1", &local, &err)) abort();
        pub_client_options o = {0};
        o.docker_config = path;
        pub_client *c = pub_client_new(&local, &o, &err);
        if (c)
            pub_client_free(c);
        else
            fz_check_error(&err);
        remove(path);
    }
    return 0;
}
