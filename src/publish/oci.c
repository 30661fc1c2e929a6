/* oci.c — an OCI distribution client (the registry API of Docker Hub, GHCR,
 * Harbor, ECR/ACR, zot and Debian's docker-registry), over libcurl.
 *
 * Blobs: HEAD /v2/<repo>/blobs/<digest> (skip when present), then POST
 * /v2/<repo>/blobs/uploads/ and either one PUT <location>?digest=<d> with the
 * bytes, or PATCH chunks (Content-Range: start-end, each answered 202 with
 * the next Location) and a closing PUT. Manifests: PUT/GET
 * /v2/<repo>/manifests/<tag>. Downloads go to a temporary file, hashed on
 * the way, and are renamed only when size and digest match.
 *
 * Auth: a 401's WWW-Authenticate challenge picks Basic (the credentials
 * themselves) or Bearer (a token from the challenge's realm, asked with the
 * credentials, for service and scope). Credentials come from the caller or
 * from the docker config (auths.<host>.auth, base64 "user:password"); they
 * are sent only in Authorization headers and never printed. TLS is on unless
 * plain_http. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/sbuf.h"
#include "publish/publish.h"

#define DEFAULT_CHUNK ((size_t)8 << 20)
#define MAX_BODY      ((size_t)16 << 20) /* manifests, tokens, error bodies */

struct pub_client {
    pub_ref ref;
    pub_client_options o;
    char scheme[8];
    char *user, *pass; /* credentials or NULL                       */
    char *auth;        /* "Authorization: ..." header, or NULL       */
    bool tried_auth;   /* an auth header was built by this client   */
    bool pushing;      /* ask tokens for pull,push                  */
    CURL *curl;
};

/* --- small helpers -------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const char *s) {
    size_t n = strlen(s);
    char *o = malloc(4 * ((n + 2) / 3) + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n) v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)s[i + 2];
        o[k++] = b64[(v >> 18) & 63];
        o[k++] = b64[(v >> 12) & 63];
        o[k++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        o[k++] = i + 2 < n ? b64[v & 63] : '=';
    }
    o[k] = '\0';
    return o;
}

static char *b64_decode(const char *s) {
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    if (!o) return NULL;
    size_t k = 0;
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        const char *p = strchr(b64, s[i]);
        if (!p || !s[i]) {
            free(o);
            return NULL;
        }
        v = (v << 6) | (unsigned)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[k++] = (char)((v >> bits) & 0xFF);
        }
    }
    o[k] = '\0';
    return o;
}

/* Scrubs and frees a secret. */
static void secret_free(char *s) {
    if (!s) return;
    volatile char *p = s;
    while (*p)
        *p++ = '\0';
    free(s);
}

static char *dupstr(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* --- references ------------------------------------------------------------------------ */

nnfx_status pub_ref_parse(const char *s, pub_ref *ref, nnfx_error *err) {
    memset(ref, 0, sizeof *ref);
    const char *slash = strchr(s, '/');
    if (!slash || slash == s)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                              "'%s' is not REGISTRY/REPOSITORY[:TAG] (e.g. localhost:5000/models/digits:v1)", s);
    size_t hl = (size_t)(slash - s);
    if (hl >= sizeof ref->host) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s': registry name too long", s);
    memcpy(ref->host, s, hl);
    if (!strchr(ref->host, '.') && !strchr(ref->host, ':') && strcmp(ref->host, "localhost") != 0)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                              "'%s': the first part '%s' is not a registry (a host name with a dot or a port, or "
                              "localhost): nnfx has no default registry",
                              s, ref->host);
    const char *rest = slash + 1;
    const char *at = strchr(rest, '@');
    const char *colon = at ? NULL : strrchr(rest, ':');
    size_t rl = at ? (size_t)(at - rest) : colon ? (size_t)(colon - rest) : strlen(rest);
    if (!rl || rl >= sizeof ref->repo) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s': no repository", s);
    memcpy(ref->repo, rest, rl);
    for (const char *p = ref->repo; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._-/", *p)))
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                  "'%s': repository '%s' may hold only lowercase letters, digits and . _ - /", s,
                                  ref->repo);
    const char *tag = at ? at + 1 : colon ? colon + 1 : "latest";
    if (!*tag || strlen(tag) >= sizeof ref->tag)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s': empty or too long tag", s);
    snprintf(ref->tag, sizeof ref->tag, "%s", tag);
    ref->is_digest = at != NULL;
    if (ref->is_digest && (strncmp(tag, "sha256:", 7) != 0 || strlen(tag) != 71))
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s': a digest is sha256: and 64 hex digits", s);
    for (const char *p = tag; !ref->is_digest && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("._-", *p)))
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s': tag '%s' may hold only letters, digits and . _ -",
                                  s, tag);
    return NNFX_OK;
}

/* --- credentials -------------------------------------------------------------------------- */

/* user:password for host from the docker config, or nothing. */
static void docker_config_creds(pub_client *c) {
    char path[1024];
    const char *dc = getenv("DOCKER_CONFIG");
    if (c->o.docker_config)
        snprintf(path, sizeof path, "%s", c->o.docker_config);
    else if (dc && *dc)
        snprintf(path, sizeof path, "%s/config.json", dc);
    else if (getenv("HOME"))
        snprintf(path, sizeof path, "%s/.docker/config.json", getenv("HOME"));
    else
        return;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    sbuf b = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && b.len < MAX_BODY)
        sb_append(&b, buf, n);
    fclose(f);
    size_t len = b.len;
    char *text = sb_finish(&b);
    if (!text) return;
    nnfx_error e = {0};
    pub_json *j = pub_json_parse(text, len, &e);
    secret_free(text);
    if (!j) {
        fprintf(stderr, "nnfx: warning: %s: not valid JSON (%s); no credentials read from it\n", path, e.msg);
        return;
    }
    const pub_json *auths = pub_json_get(j, "auths");
    const char *keys[3];
    char k1[300], k2[300];
    snprintf(k1, sizeof k1, "https://%s", c->ref.host);
    snprintf(k2, sizeof k2, "http://%s", c->ref.host);
    keys[0] = c->ref.host;
    keys[1] = k1;
    keys[2] = k2;
    for (int i = 0; i < 3 && !c->user; i++) {
        const char *a = pub_json_str(pub_json_get(auths, keys[i]), "auth");
        if (!a) continue;
        char *up = b64_decode(a);
        char *colon = up ? strchr(up, ':') : NULL;
        if (colon) {
            *colon = '\0';
            c->user = dupstr(up);
            c->pass = dupstr(colon + 1);
        }
        secret_free(up);
    }
    pub_json_free(j);
}

/* --- HTTP ------------------------------------------------------------------------------------ */

typedef struct http_req {
    const char *method; /* GET HEAD POST PUT PATCH        */
    const char *url;
    const char *content_type;
    const char *accept;
    const char *content_range;
    const void *data; /* memory body, or                */
    FILE *file;       /* a file body from off, len bytes */
    uint64_t off, len;
    bool follow; /* follow redirects (downloads)   */
} http_req;

typedef struct http_resp {
    long status;
    sbuf body;        /* when sink is NULL (capped)       */
    FILE *sink;       /* download target                  */
    pub_sha256 *hash; /* hashes what goes to sink         */
    uint64_t got;     /* bytes written to sink            */
    bool sink_failed; /* a write to sink failed           */
    char location[4096];
    char www_auth[2048];
    char digest[128]; /* Docker-Content-Digest            */
    /* request body cursor */
    const http_req *rq;
    uint64_t sent;
} http_resp;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
    http_resp *r = ud;
    size_t len = size * n;
    if (r->sink && r->status / 100 == 2) {
        if (fwrite(p, 1, len, r->sink) != len) {
            r->sink_failed = true;
            return 0;
        }
        pub_sha256_update(r->hash, p, len);
        r->got += len;
        return len;
    }
    if (r->body.len + len > MAX_BODY) return 0;
    sb_append(&r->body, p, len);
    return len;
}

static void header_value(char *dst, size_t cap, const char *line, size_t len, const char *name) {
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':') return;
    const char *v = line + nl + 1;
    while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
    size_t vl = (size_t)(line + len - v);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
        vl--;
    if (vl >= cap) vl = cap - 1;
    memcpy(dst, v, vl);
    dst[vl] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud) {
    http_resp *r = ud;
    size_t len = size * n;
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new response (after a redirect or 100) */
        r->location[0] = r->www_auth[0] = r->digest[0] = '\0';
        const char *sp = memchr(p, ' ', len);
        if (sp) r->status = strtol(sp + 1, NULL, 10);
        return len;
    }
    header_value(r->location, sizeof r->location, p, len, "Location");
    header_value(r->www_auth, sizeof r->www_auth, p, len, "WWW-Authenticate");
    header_value(r->digest, sizeof r->digest, p, len, "Docker-Content-Digest");
    return len;
}

static size_t on_read(char *p, size_t size, size_t n, void *ud) {
    http_resp *r = ud;
    const http_req *q = r->rq;
    uint64_t left = q->len - r->sent;
    size_t want = size * n;
    if (want > left) want = (size_t)left;
    if (!want) return 0;
    if (q->file) {
        size_t got = fread(p, 1, want, q->file);
        if (got != want) return CURL_READFUNC_ABORT;
    } else {
        memcpy(p, (const char *)q->data + r->sent, want);
    }
    r->sent += want;
    return want;
}

/* Lets libcurl resend a body from offset (after a dropped connection). */
static int on_seek(void *ud, curl_off_t offset, int origin) {
    http_resp *r = ud;
    const http_req *q = r->rq;
    if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > q->len) return CURL_SEEKFUNC_CANTSEEK;
    if (q->file && fseeko(q->file, (off_t)(q->off + (uint64_t)offset), SEEK_SET) != 0) return CURL_SEEKFUNC_FAIL;
    r->sent = (uint64_t)offset;
    return CURL_SEEKFUNC_OK;
}

/* The message of a registry's JSON error body ("CODE: message"), or "". */
static void registry_error(const http_resp *r, char *out, size_t cap) {
    out[0] = '\0';
    if (!r->body.len) return;
    nnfx_error e = {0};
    pub_json *j = pub_json_parse(r->body.s, r->body.len, &e);
    const pub_json *errs = pub_json_get(j, "errors");
    if (errs && errs->kind == PUB_JARR && errs->n > 0) {
        const char *code = pub_json_str(errs->items[0], "code"), *msg = pub_json_str(errs->items[0], "message");
        snprintf(out, cap, ": %s%s%s", code ? code : "", code && msg ? ": " : "", msg ? msg : "");
    }
    pub_json_free(j);
}

/* One request without auth handling. */
static nnfx_status http_once(pub_client *c, const http_req *q, http_resp *r, nnfx_error *err) {
    CURL *h = c->curl;
    curl_easy_reset(h);
    r->status = 0;
    r->sent = 0;
    r->rq = q;
    r->body.len = 0;
    if (q->file && fseeko(q->file, (off_t)q->off, SEEK_SET) != 0)
        return nnfx_error_set(err, NNFX_ERR_IO, "cannot seek the file to upload: %s", strerror(errno));
    struct curl_slist *hd = NULL;
    char line[8192];
    hd = curl_slist_append(hd, "Expect:");
    hd = curl_slist_append(hd, "User-Agent: nnfx/" NNFX_VERSION);
    if (q->content_type) {
        snprintf(line, sizeof line, "Content-Type: %s", q->content_type);
        hd = curl_slist_append(hd, line);
    }
    if (q->accept) {
        snprintf(line, sizeof line, "Accept: %s", q->accept);
        hd = curl_slist_append(hd, line);
    }
    if (q->content_range) {
        snprintf(line, sizeof line, "Content-Range: %s", q->content_range);
        hd = curl_slist_append(hd, line);
    }
    if (c->auth) hd = curl_slist_append(hd, c->auth);
    curl_easy_setopt(h, CURLOPT_URL, q->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c->o.timeout_s > 0 ? c->o.timeout_s : 30L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    if (q->follow) {
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    }
    bool upload = strcmp(q->method, "PUT") == 0 || strcmp(q->method, "PATCH") == 0 || strcmp(q->method, "POST") == 0;
    if (strcmp(q->method, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (upload) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, q->method);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, r);
        curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(h, CURLOPT_SEEKDATA, r);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)q->len);
    }
    char cerr[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(hd);
    if (c->o.verbose) fprintf(stderr, "nnfx: %s %s -> %ld\n", q->method, q->url, r->status);
    if (rc != CURLE_OK) {
        if (r->sink_failed) return nnfx_error_set(err, NNFX_ERR_IO, "writing the download failed: %s", strerror(errno));
        const char *what = upload && q->len ? "the upload was interrupted" : "the request failed";
        const char *hint =
            rc == CURLE_SSL_CONNECT_ERROR && !c->o.plain_http ? " (a registry without TLS needs --plain-http)" : "";
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s %s: %s: %s%s", c->ref.host, q->method, q->url, what,
                              cerr[0] ? cerr : curl_easy_strerror(rc), hint);
    }
    return NNFX_OK;
}

/* Value of parameter key in a challenge (key="value" pairs), or "". */
static void challenge_param(const char *ch, const char *key, char *out, size_t cap) {
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = ch; (p = strstr(p, key)) != NULL; p += kl) {
        if (p != ch && p[-1] != ' ' && p[-1] != ',') continue;
        if (p[kl] != '=') continue;
        const char *v = p + kl + 1;
        size_t n = 0;
        if (*v == '"') {
            v++;
            while (v[n] && v[n] != '"' && n + 1 < cap)
                n++;
        } else {
            while (v[n] && v[n] != ',' && n + 1 < cap)
                n++;
        }
        memcpy(out, v, n);
        out[n] = '\0';
        return;
    }
}

/* Builds c->auth from a 401's challenge. */
static nnfx_status authenticate(pub_client *c, const char *challenge, nnfx_error *err) {
    free(c->auth);
    c->auth = NULL;
    c->tried_auth = true;
    if (!c->user) docker_config_creds(c);
    if (strncasecmp(challenge, "Basic", 5) == 0) {
        if (!c->user)
            return nnfx_error_set(err, NNFX_ERR_IO,
                                  "registry %s asks for a login: give --username and --password-stdin, or add it "
                                  "to ~/.docker/config.json (docker login)",
                                  c->ref.host);
        size_t n = strlen(c->user) + strlen(c->pass) + 2;
        char *up = malloc(n);
        if (!up) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        snprintf(up, n, "%s:%s", c->user, c->pass);
        char *enc = b64_encode(up);
        secret_free(up);
        if (!enc) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        c->auth = malloc(strlen(enc) + 32);
        if (c->auth) sprintf(c->auth, "Authorization: Basic %s", enc);
        secret_free(enc);
        return c->auth ? NNFX_OK : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    if (strncasecmp(challenge, "Bearer", 6) != 0)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "registry %s: unsupported auth scheme in '%.40s'", c->ref.host,
                              challenge);
    char realm[1024], service[512], scope[1024];
    challenge_param(challenge, "realm", realm, sizeof realm);
    challenge_param(challenge, "service", service, sizeof service);
    challenge_param(challenge, "scope", scope, sizeof scope);
    if (!realm[0])
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: a Bearer challenge without realm", c->ref.host);
    if (strncmp(realm, "https://", 8) != 0 && !(c->o.plain_http && strncmp(realm, "http://", 7) == 0))
        return nnfx_error_set(err, NNFX_ERR_IO,
                              "registry %s: the token endpoint '%s' is not https (use --plain-http only for a "
                              "registry you trust)",
                              c->ref.host, realm);
    char want_scope[1200];
    snprintf(want_scope, sizeof want_scope, "repository:%s:%s", c->ref.repo, c->pushing ? "pull,push" : "pull");
    CURL *h = c->curl;
    char *es = curl_easy_escape(h, service, 0), *esc = curl_easy_escape(h, want_scope, 0);
    char url[4096];
    snprintf(url, sizeof url, "%s%s%s%s&scope=%s", realm, strchr(realm, '?') ? "&" : "?", service[0] ? "service=" : "",
             es ? es : "", esc ? esc : "");
    curl_free(es);
    curl_free(esc);
    (void)scope;
    /* the token request carries the credentials as Basic (anonymous without) */
    if (c->user) {
        size_t n = strlen(c->user) + strlen(c->pass) + 2;
        char *up = malloc(n);
        char *enc = NULL;
        if (up) {
            snprintf(up, n, "%s:%s", c->user, c->pass);
            enc = b64_encode(up);
            secret_free(up);
        }
        if (!enc) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        c->auth = malloc(strlen(enc) + 32);
        if (c->auth) sprintf(c->auth, "Authorization: Basic %s", enc);
        secret_free(enc);
    }
    http_req q = {.method = "GET", .url = url, .accept = "application/json"};
    http_resp r = {0};
    nnfx_status st = http_once(c, &q, &r, err);
    secret_free(c->auth);
    c->auth = NULL;
    if (!st && r.status != 200) {
        st = nnfx_error_set(err, NNFX_ERR_IO, "registry %s: the token endpoint refused the %s (HTTP %ld)", c->ref.host,
                            c->user ? "credentials" : "anonymous request", r.status);
    }
    if (!st) {
        nnfx_error e = {0};
        pub_json *j = pub_json_parse(r.body.s ? r.body.s : "", r.body.len, &e);
        const char *tok = pub_json_str(j, "token");
        if (!tok) tok = pub_json_str(j, "access_token");
        if (!tok || !*tok) {
            st = nnfx_error_set(err, NNFX_ERR_IO, "registry %s: the token endpoint answered no token", c->ref.host);
        } else {
            c->auth = malloc(strlen(tok) + 32);
            if (c->auth) sprintf(c->auth, "Authorization: Bearer %s", tok);
            if (!c->auth) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        }
        if (j && r.body.s) memset(r.body.s, 0, r.body.len);
        pub_json_free(j);
    }
    free(sb_finish(&r.body));
    return st;
}

/* A request with auth: on a 401 the challenge is answered once and the
 * request repeated (a second 401 is a refused login). */
static nnfx_status http_do(pub_client *c, const http_req *q, http_resp *r, nnfx_error *err) {
    nnfx_status st = http_once(c, q, r, err);
    if (st || r->status != 401) return st;
    if (!r->www_auth[0])
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s %s: HTTP 401 without a challenge", c->ref.host,
                              q->method, q->url);
    bool again = c->tried_auth;
    char challenge[sizeof r->www_auth];
    memcpy(challenge, r->www_auth, sizeof challenge);
    if (again && strncasecmp(challenge, "Basic", 5) == 0)
        return nnfx_error_set(err, NNFX_ERR_IO,
                              "registry %s refused the login (HTTP 401): check the user name and "
                              "password",
                              c->ref.host);
    if ((st = authenticate(c, challenge, err))) return st;
    st = http_once(c, q, r, err);
    if (!st && r->status == 401)
        return nnfx_error_set(err, NNFX_ERR_IO,
                              "registry %s refused the login (HTTP 401): check the user name and "
                              "password",
                              c->ref.host);
    return st;
}

static nnfx_status unexpected(pub_client *c, const http_req *q, http_resp *r, const char *what, nnfx_error *err) {
    char detail[600];
    registry_error(r, detail, sizeof detail);
    if (r->status == 403)
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s: access denied (HTTP 403)%s", c->ref.host, what,
                              detail);
    if (r->status == 404)
        return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "registry %s: %s: not found (HTTP 404)%s", c->ref.host, what,
                              detail);
    return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s: %s %s answered HTTP %ld%s", c->ref.host, what, q->method,
                          q->url, r->status, detail);
}

/* --- client ------------------------------------------------------------------------------ */

pub_client *pub_client_new(const pub_ref *ref, const pub_client_options *o, nnfx_error *err) {
    static bool inited;
    if (!inited) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return nnfx_error_set(err, NNFX_ERR_IO, "libcurl could not start"), NULL;
        inited = true;
    }
    pub_client *c = calloc(1, sizeof *c);
    if (!c) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory"), NULL;
    c->ref = *ref;
    if (o) c->o = *o;
    c->o.username = c->o.password = NULL; /* copied below, not kept by reference */
    snprintf(c->scheme, sizeof c->scheme, "%s", c->o.plain_http ? "http" : "https");
    if (o && o->username) {
        c->user = dupstr(o->username);
        c->pass = dupstr(o->password ? o->password : "");
    }
    c->curl = curl_easy_init();
    if (!c->curl || (o && o->username && (!c->user || !c->pass))) {
        pub_client_free(c);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory"), NULL;
    }
    return c;
}

void pub_client_free(pub_client *c) {
    if (!c) return;
    secret_free(c->user);
    secret_free(c->pass);
    secret_free(c->auth);
    if (c->curl) curl_easy_cleanup(c->curl);
    free(c);
}

static void url_of(const pub_client *c, char *out, size_t cap, const char *kind, const char *what) {
    snprintf(out, cap, "%s://%s/v2/%s/%s/%s", c->scheme, c->ref.host, c->ref.repo, kind, what);
}

/* An absolute URL for a Location header (which may be a path). */
static void absolute(const pub_client *c, const char *loc, char *out, size_t cap) {
    if (strncmp(loc, "http://", 7) == 0 || strncmp(loc, "https://", 8) == 0)
        snprintf(out, cap, "%s", loc);
    else
        snprintf(out, cap, "%s://%s%s%s", c->scheme, c->ref.host, loc[0] == '/' ? "" : "/", loc);
}

/* --- blobs ------------------------------------------------------------------------------------- */

nnfx_status pub_blob_prepare(pub_blob *b, nnfx_error *err) {
    char hex[PUB_SHA256_HEX];
    if (b->path) {
        nnfx_status st = pub_sha256_file(b->path, hex, &b->size, err);
        if (st) return st;
    } else if (!pub_sha256_buf(b->data, (size_t)b->size, hex)) {
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    snprintf(b->digest, sizeof b->digest, "sha256:%s", hex);
    return NNFX_OK;
}

nnfx_status pub_push_blob(pub_client *c, const pub_blob *b, nnfx_error *err) {
    c->pushing = true;
    char url[4096], what[200];
    snprintf(what, sizeof what, "blob %.19s", b->digest);
    http_resp r = {0};
    nnfx_status st;
    url_of(c, url, sizeof url, "blobs", b->digest);
    http_req head = {.method = "HEAD", .url = url};
    if ((st = http_do(c, &head, &r, err))) goto out;
    if (r.status == 200) goto out; /* already there */

    FILE *f = NULL;
    if (b->path && !(f = fopen(b->path, "rb"))) {
        st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", b->path, strerror(errno));
        goto out;
    }
    url_of(c, url, sizeof url, "blobs", "uploads/");
    http_req post = {.method = "POST", .url = url, .data = ""};
    if ((st = http_do(c, &post, &r, err))) goto close;
    if (r.status != 202 || !r.location[0]) {
        st = unexpected(c, &post, &r, "starting an upload", err);
        goto close;
    }
    char loc[4096 + 512];
    absolute(c, r.location, loc, sizeof loc);
    size_t chunk = c->o.chunk_size ? c->o.chunk_size : DEFAULT_CHUNK;
    uint64_t off = 0;
    bool mono = b->size <= chunk;
    while (!mono && off < b->size) {
        uint64_t n = b->size - off < chunk ? b->size - off : chunk;
        char range[64];
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)off, (unsigned long long)(off + n - 1));
        http_req patch = {.method = "PATCH",
                          .url = loc,
                          .content_type = "application/octet-stream",
                          .content_range = range,
                          .data = b->data ? (const char *)b->data + off : NULL,
                          .file = f,
                          .off = off,
                          .len = n};
        if (!f) patch.off = 0;
        if ((st = http_do(c, &patch, &r, err))) goto close;
        if (r.status != 202 || !r.location[0]) {
            st = unexpected(c, &patch, &r, "uploading a chunk", err);
            goto close;
        }
        absolute(c, r.location, loc, sizeof loc);
        off += n;
    }
    char *ed = curl_easy_escape(c->curl, b->digest, 0);
    size_t ll = strlen(loc);
    snprintf(loc + ll, sizeof loc - ll, "%sdigest=%s", strchr(loc, '?') ? "&" : "?", ed ? ed : b->digest);
    curl_free(ed);
    http_req put = {.method = "PUT", .url = loc, .content_type = "application/octet-stream", .data = ""};
    if (mono) {
        put.data = b->data;
        put.file = f;
        put.len = b->size;
    }
    if ((st = http_do(c, &put, &r, err))) goto close;
    if (r.status != 201) st = unexpected(c, &put, &r, what, err);
close:
    if (f) fclose(f);
out:
    free(sb_finish(&r.body));
    return st;
}

/* --- manifests ------------------------------------------------------------------------------- */

nnfx_status pub_push_manifest(pub_client *c, const char *manifest, size_t len, char *digest_out, nnfx_error *err) {
    c->pushing = true;
    char url[4096], hex[PUB_SHA256_HEX], digest[72];
    if (!pub_sha256_buf(manifest, len, hex)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    snprintf(digest, sizeof digest, "sha256:%s", hex);
    url_of(c, url, sizeof url, "manifests", c->ref.tag);
    http_req put = {.method = "PUT", .url = url, .content_type = PUB_MT_MANIFEST, .data = manifest, .len = len};
    http_resp r = {0};
    nnfx_status st = http_do(c, &put, &r, err);
    if (!st && r.status != 201) st = unexpected(c, &put, &r, "pushing the manifest", err);
    if (!st && r.digest[0] && strcmp(r.digest, digest) != 0)
        st = nnfx_error_set(err, NNFX_ERR_IO, "registry %s stored the manifest as %s, not %s", c->ref.host, r.digest,
                            digest);
    if (!st && digest_out) snprintf(digest_out, 72, "%s", digest);
    free(sb_finish(&r.body));
    return st;
}

nnfx_status pub_pull_manifest(pub_client *c, char **out, size_t *len, char *digest_out, nnfx_error *err) {
    char url[4096], hex[PUB_SHA256_HEX], digest[72];
    url_of(c, url, sizeof url, "manifests", c->ref.tag);
    http_req get = {.method = "GET", .url = url, .accept = PUB_MT_MANIFEST, .follow = true};
    http_resp r = {0};
    *out = NULL;
    nnfx_status st = http_do(c, &get, &r, err);
    if (!st && r.status != 200) st = unexpected(c, &get, &r, "the manifest", err);
    if (!st && !pub_sha256_buf(r.body.s ? r.body.s : "", r.body.len, hex))
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    if (!st) {
        snprintf(digest, sizeof digest, "sha256:%s", hex);
        const char *want = c->ref.is_digest ? c->ref.tag : r.digest[0] ? r.digest : NULL;
        if (want && strcmp(want, digest) != 0)
            st = nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: the manifest's digest is %s, expected %s",
                                c->ref.host, digest, want);
    }
    if (!st) {
        *len = r.body.len;
        *out = sb_finish(&r.body);
        if (!*out) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        if (digest_out) snprintf(digest_out, 72, "%s", digest);
    } else {
        free(sb_finish(&r.body));
    }
    return st;
}

nnfx_status pub_pull_blob(pub_client *c, const char *digest, uint64_t size, const char *path, nnfx_error *err) {
    if (strncmp(digest, "sha256:", 7) != 0 || strlen(digest) != 71)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "the manifest names a blob with an unsupported digest '%.80s'",
                              digest);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    snprintf(tmp, n, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        nnfx_status st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        free(tmp);
        return st;
    }
    char url[4096];
    url_of(c, url, sizeof url, "blobs", digest);
    http_req get = {.method = "GET", .url = url, .follow = true};
    http_resp r = {0};
    r.sink = f;
    r.hash = pub_sha256_new();
    nnfx_status st = r.hash ? http_do(c, &get, &r, err) : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    char hex[PUB_SHA256_HEX] = "";
    if (r.hash) pub_sha256_final(r.hash, hex);
    bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (!st && r.status != 200) st = unexpected(c, &get, &r, "downloading a blob", err);
    if (!st && r.got != size)
        st = nnfx_error_set(err, NNFX_ERR_PARSE, "blob %s: got %llu bytes, the manifest says %llu", digest,
                            (unsigned long long)r.got, (unsigned long long)size);
    if (!st && strcmp(hex, digest + 7) != 0)
        st = nnfx_error_set(err, NNFX_ERR_PARSE, "blob %s: the downloaded bytes hash to sha256:%s (corrupt or altered)",
                            digest, hex);
    if (!st && !ok) st = nnfx_error_set(err, NNFX_ERR_IO, "%s: write failed: %s", tmp, strerror(errno));
    if (!st && rename(tmp, path) != 0)
        st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot rename: %s", path, strerror(errno));
    if (st) remove(tmp);
    free(tmp);
    free(sb_finish(&r.body));
    return st;
}
