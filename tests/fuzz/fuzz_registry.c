/* fuzz_registry.c — libFuzzer target for what the registry client reads
 * from HTTP headers and manifests (src/publish): the first line of the
 * input as a WWW-Authenticate challenge (its parameters), as a Location
 * (resolved against an upload URL; its origin) and as a header value; the
 * whole input shown to a person (escaped, the client's password redacted);
 * the rest after the first line as a manifest read for pull (the plan of
 * what to download). Each result is checked against its contract. */
#include "fuzz_common.h"
#include "publish/publish.h"

#define SECRET "s3cret-pw"

static void printable(const char *s, size_t cap) {
    size_t n = strlen(s);
    if (n >= cap) abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) abort();
    if (strstr(s, SECRET)) abort();
}

static void origin_form(const char *o) {
    if (strncmp(o, "http://", 7) != 0 && strncmp(o, "https://", 8) != 0) abort();
    for (const char *p = o; *p; p++)
        if (*p >= 'A' && *p <= 'Z') abort();
    if (!strrchr(o, ':') || strrchr(o, ':') < o + 6) abort(); /* an explicit port */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static pub_client *client;
    if (!client) {
        pub_ref ref;
        nnfx_error e = {0};
        pub_client_options o = {.plain_http = true, .username = "ci", .password = SECRET};
        if (pub_ref_parse("127.0.0.1:5000/fuzz/model:v1", &ref, &e) || !(client = pub_client_new(&ref, &o, &e)))
            abort();
    }
    /* the first line, NUL-terminated */
    char line[4096];
    size_t n = 0;
    while (n < size && n < sizeof line - 1 && data[n] != '\n' && data[n] != '\0') {
        line[n] = (char)data[n];
        n++;
    }
    line[n] = '\0';

    /* challenge parameters: NUL-terminated within the buffer, "" when absent */
    static const char *keys[] = {"realm", "service", "scope", "error"};
    char v[256], small[8];
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        bool found = pub_challenge_param(line, keys[k], v, sizeof v);
        if (strlen(v) >= sizeof v || (!found && v[0])) abort();
    }
    if (pub_challenge_param(line, "realm", small, sizeof small) && strlen(small) >= sizeof small) abort();

    /* header values: safe means printable ASCII only */
    if (pub_header_safe(line, false))
        for (const char *p = line; *p; p++)
            if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) abort();

    /* Location and origin */
    char url[4096], o[600];
    if (pub_resolve_location("http://127.0.0.1:5000/v2/fuzz/model/blobs/uploads/", line, url, sizeof url)) {
        if (!pub_url_origin(url, o, sizeof o) || !pub_header_safe(url, false)) abort();
        origin_form(o);
    } else if (url[0]) {
        abort(); /* a refused Location leaves "" */
    }
    if (pub_url_origin(line, o, sizeof o)) origin_form(o);

    /* shown to a person: printable, bounded, no secret */
    char shown[300];
    pub_show(client, (const char *)data, size, shown, sizeof shown);
    printable(shown, sizeof shown);
    char msg[512];
    size_t m = size < sizeof msg - 1 ? size : sizeof msg - 1;
    memcpy(msg, data, m);
    msg[m] = '\0';
    pub_scrub_message(client, msg, sizeof msg);
    for (const char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
    if (strstr(msg, SECRET)) abort();

    /* the rest as a manifest */
    const char *rest = n < size ? (const char *)data + n + 1 : (const char *)data;
    size_t rl = n < size ? size - n - 1 : size;
    nnfx_error err = {0};
    pub_json *man = pub_json_parse(rest, rl, &err);
    if (!man) return 0;
    pub_pull_plan plan;
    const uint64_t max = 1 << 20;
    if (pub_manifest_plan(man, "model.onnx", max, &plan, &err) == NNFX_OK) {
        if (plan.n < 1 || plan.n > PUB_MAX_PULL_LAYERS || !plan.layers[plan.n - 1].model) abort();
        for (int i = 0; i < plan.n; i++) {
            const pub_pull_layer *l = &plan.layers[i];
            if (l->size > max || strlen(l->digest) != 71 || strncmp(l->digest, "sha256:", 7) != 0) abort();
            if (i < plan.n - 1 && (l->model || !l->title[0] || strchr(l->title, '/') ||
                                   strcmp(l->title, "model.onnx") == 0 || strcmp(l->title, "..") == 0))
                abort();
        }
    } else {
        fz_check_error(&err);
    }
    pub_json_free(man);
    return 0;
}
