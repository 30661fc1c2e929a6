/* oci.c — an OCI distribution client (the registry API of Docker Hub, GHCR,
 * Harbor, ECR/ACR, zot and Debian's docker-registry), over libcurl.
 *
 * Blobs: HEAD /v2/<repo>/blobs/<digest> (skip when present), then POST
 * /v2/<repo>/blobs/uploads/ and either one PUT <location>?digest=<d> with the
 * bytes, or PATCH chunks (Content-Range: start-end, each answered 202 with
 * the next Location) and a closing PUT. Manifests: PUT/GET
 * /v2/<repo>/manifests/<tag>. Downloads are bounded by their declared size,
 * hashed on the way and checked before the caller commits them.
 *
 * Auth: a 401's WWW-Authenticate challenge picks Basic (the credentials
 * themselves) or Bearer (a token from the challenge's realm, asked with the
 * credentials, for service and scope). Credentials come from the caller or
 * from the docker config (auths.<host>.auth, base64 "user:password").
 *
 * Where credentials go: the Authorization header (Basic credentials or a
 * Bearer token) is sent only to the registry's origin (scheme, host, port,
 * as libcurl parses them): never to an upload Location or a redirect on
 * another origin (another port, or localhost for 127.0.0.1), and a 401 from
 * another origin is refused rather than answered. The one exception is the
 * token request itself, which carries the Basic credentials to the realm the
 * registry's challenge names, as docker does (the registry could as well
 * have asked for them with a Basic challenge); the realm must be https
 * unless plain_http, and the token it returns goes to the registry origin
 * only. Redirects are followed here, not by libcurl, so each hop gets the
 * header only when it is on the registry's origin; an https registry's
 * redirects and Locations must stay https.
 *
 * Everything a server sends that reaches a message is escaped and has the
 * secrets redacted (pub_show); header values built from credentials or
 * tokens are checked for control bytes (pub_header_safe). Every request runs
 * under the client's deadline and a low-speed limit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/core_int.h"
#include "core/sbuf.h"
#include "publish/publish.h"

#define DEFAULT_CHUNK   ((size_t)8 << 20)
#define MAX_MANIFEST    ((uint64_t)4 << 20) /* the OCI spec's suggested manifest limit */
#define MAX_BODY        ((uint64_t)1 << 20) /* tokens, error bodies, the docker config */
#define MAX_REDIRECTS   5
#define LOW_SPEED_BYTES 1024L /* bytes per second, over timeout_s */

struct pub_client {
    pub_ref ref;
    pub_client_options o;
    char scheme[8];
    char origin[600];  /* the registry's origin, pub_url_origin form  */
    char *user, *pass; /* credentials or NULL                       */
    char *basic;       /* base64 "user:pass" (for redaction), or NULL */
    char *token;       /* a Bearer token, or NULL                    */
    char *auth;        /* "Authorization: ..." header, or NULL       */
    bool tried_auth;   /* an auth header was built by this client   */
    bool pushing;      /* ask tokens for pull,push                  */
    double deadline;   /* monotonic seconds                         */
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

/* Decodes base64 (stops at '='); *len receives the byte count (the
 * result may hold NULs). NULL on a bad character or OOM. */
static char *b64_decode(const char *s, size_t *len) {
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
    *len = k;
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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- showing server bytes ------------------------------------------------------------ */

/* Length of the secret of c that starts at s (n bytes left), or 0. Secrets
 * shorter than 4 bytes are not redacted (they would blank out ordinary
 * words, and are no secret anyway). */
static size_t secret_at(const pub_client *c, const char *s, size_t n) {
    const char *sec[3] = {c ? c->pass : NULL, c ? c->basic : NULL, c ? c->token : NULL};
    for (int i = 0; i < 3; i++) {
        size_t l = sec[i] ? strlen(sec[i]) : 0;
        if (l >= 4 && l <= n && memcmp(s, sec[i], l) == 0) return l;
    }
    return 0;
}

const char *pub_show(const pub_client *c, const char *s, size_t n, char *out, size_t cap) {
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    if (!cap) return out;
    for (size_t i = 0; s && i < n;) {
        size_t sl = secret_at(c, s + i, n - i);
        const char *piece;
        char esc[5];
        size_t pl;
        if (sl) {
            piece = "[redacted]";
            pl = 10;
            i += sl;
        } else {
            unsigned char b = (unsigned char)s[i++];
            if (b >= 0x20 && b < 0x7f && b != '\\') {
                esc[0] = (char)b;
                pl = 1;
            } else {
                esc[0] = '\\';
                esc[1] = 'x';
                esc[2] = hex[b >> 4];
                esc[3] = hex[b & 15];
                pl = 4;
            }
            piece = esc;
        }
        if (k + pl + 4 > cap) { /* keep room for "..." and the NUL */
            if (k + 3 < cap) {
                memcpy(out + k, "...", 3);
                k += 3;
            }
            break;
        }
        memcpy(out + k, piece, pl);
        k += pl;
    }
    out[k < cap ? k : cap - 1] = '\0';
    return out;
}

void pub_scrub_message(const pub_client *c, char *msg, size_t cap) {
    size_t n = strlen(msg);
    char *tmp = malloc(n + 1);
    if (!tmp) { /* no room to redact: say nothing rather than a secret */
        snprintf(msg, cap, "(message withheld: out of memory)");
        return;
    }
    memcpy(tmp, msg, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap;) {
        size_t sl = secret_at(c, tmp + i, n - i);
        if (sl) {
            if (k + 11 > cap) break;
            memcpy(msg + k, "[redacted]", 10);
            k += 10;
            i += sl;
            continue;
        }
        unsigned char b = (unsigned char)tmp[i++];
        /* control bytes (C0, DEL) left by a path of the caller's: shown as ? */
        msg[k++] = b < 0x20 || b == 0x7f ? '?' : (char)b;
    }
    msg[k] = '\0';
    memset(tmp, 0, n);
    free(tmp);
}

/* Shorthand: a server string (NUL-terminated) shown into a local buffer. */
#define SHOW(c, s, buf) pub_show((c), (s), strlen(s), (buf), sizeof(buf))

/* --- URLs, origins, headers ----------------------------------------------------------- */

bool pub_header_safe(const char *s, bool space) {
    if (!s) return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!((*p > 0x20 && *p < 0x7f) || (space && *p == ' '))) return false;
    return true;
}

bool pub_url_origin(const char *url, char *out, size_t cap) {
    if (cap) out[0] = '\0';
    if (!url || !pub_header_safe(url, false)) return false;
    CURLU *u = curl_url();
    if (!u) return false;
    char *scheme = NULL, *host = NULL, *port = NULL, *user = NULL, *pw = NULL;
    bool ok = curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
    /* user info in a URL would be sent as credentials by libcurl */
    if (ok && (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
               curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) == CURLUE_OK))
        ok = false;
    if (ok && strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0) ok = false;
    if (ok) {
        int n = snprintf(out, cap, "%s://%s:%s", scheme, host, port);
        ok = n > 0 && (size_t)n < cap;
        for (char *p = out; ok && *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    }
    if (!ok && cap) out[0] = '\0';
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(user);
    curl_free(pw);
    curl_url_cleanup(u);
    return ok;
}

bool pub_resolve_location(const char *base, const char *loc, char *out, size_t cap) {
    if (cap) out[0] = '\0';
    char origin[600];
    if (!loc || !*loc || !pub_header_safe(loc, false) || !pub_url_origin(base, origin, sizeof origin)) return false;
    CURLU *u = curl_url();
    if (!u) return false;
    char *full = NULL;
    bool ok = curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
              curl_url_set(u, CURLUPART_URL, loc, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK;
    if (ok) {
        int n = snprintf(out, cap, "%s", full);
        ok = n > 0 && (size_t)n < cap && pub_url_origin(out, origin, sizeof origin);
    }
    if (!ok && cap) out[0] = '\0';
    curl_free(full);
    curl_url_cleanup(u);
    return ok;
}

/* RFC 7230 tchar */
static bool tchar(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

bool pub_challenge_param(const char *ch, const char *key, char *out, size_t cap) {
    if (!cap) return false;
    out[0] = '\0';
    if (!ch) return false;
    const char *p = ch;
    while (tchar(*p)) /* the scheme */
        p++;
    bool found = false;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p) break;
        const char *k = p;
        while (tchar(*p))
            p++;
        size_t kl = (size_t)(p - k);
        while (*p == ' ' || *p == '\t')
            p++;
        if (kl && *p != '=') return found; /* a token alone: the next challenge begins */
        if (!kl) {                         /* not auth-param syntax */
            out[0] = '\0';
            return false;
        }
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        bool want = !found && kl == strlen(key) && strncasecmp(k, key, kl) == 0;
        size_t n = 0;
        bool fits = true;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
                if (want && n + 1 < cap)
                    out[n++] = *p;
                else if (want)
                    fits = false;
            }
            if (*p != '"') {
                out[0] = '\0';
                return false; /* unterminated */
            }
            p++;
        } else {
            for (; tchar(*p) || *p == '/' || *p == ':' || *p == '='; p++) {
                if (want && n + 1 < cap)
                    out[n++] = *p;
                else if (want)
                    fits = false;
            }
        }
        if (want) {
            out[n] = '\0';
            if (!fits) {
                out[0] = '\0';
                return false;
            }
            found = true;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != ',') { /* junk after a value */
            out[0] = '\0';
            return false;
        }
    }
    return found;
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

/* Refuses credentials that would not survive a header: control bytes in
 * either part, a colon in the user name (Basic splits at the first one). */
static nnfx_status creds_check(const char *user, const char *pass, const char *where, nnfx_error *err) {
    for (const unsigned char *p = (const unsigned char *)user; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == ':')
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                  "%s: the user name holds a control byte (CR, LF...) or a colon; refused", where);
    for (const unsigned char *p = (const unsigned char *)pass; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return nnfx_error_set(err, NNFX_ERR_INVALID_ARG,
                                  "%s: the password holds a control byte (CR, LF...); refused", where);
    return NNFX_OK;
}

/* user:password for the registry from the docker config, or nothing. The
 * file is opened without blocking and read only when it is a regular file
 * (a FIFO would hang the pull), up to 1 MiB. */
static nnfx_status docker_config_creds(pub_client *c, nnfx_error *err) {
    char path[1024];
    const char *dc = getenv("DOCKER_CONFIG");
    if (c->o.docker_config)
        snprintf(path, sizeof path, "%s", c->o.docker_config);
    else if (dc && *dc)
        snprintf(path, sizeof path, "%s/config.json", dc);
    else if (getenv("HOME"))
        snprintf(path, sizeof path, "%s/.docker/config.json", getenv("HOME"));
    else
        return NNFX_OK;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NNFX_OK;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_BODY) {
        fprintf(stderr, "nnfx: warning: %s: %s; no credentials read from it\n", path,
                S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
        close(fd);
        return NNFX_OK;
    }
    sbuf b = {0};
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 && b.len < MAX_BODY)
        sb_append(&b, buf, (size_t)n);
    close(fd);
    size_t len = b.len;
    char *text = sb_finish(&b);
    if (!text) return NNFX_OK;
    nnfx_error e = {0};
    pub_json *j = pub_json_parse(text, len, &e);
    secret_free(text);
    if (!j && e.status == NNFX_ERR_NOMEM) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    if (!j) {
        fprintf(stderr, "nnfx: warning: %s: not valid JSON (%s); no credentials read from it\n", path, e.msg);
        return NNFX_OK;
    }
    const pub_json *auths = pub_json_get(j, "auths");
    const char *keys[3];
    char k1[300], k2[300];
    snprintf(k1, sizeof k1, "https://%s", c->ref.host);
    snprintf(k2, sizeof k2, "http://%s", c->ref.host);
    keys[0] = c->ref.host;
    keys[1] = k1;
    keys[2] = k2;
    nnfx_status rc = NNFX_OK;
    for (int i = 0; i < 3 && !c->user && !rc; i++) {
        const char *a = pub_json_str(pub_json_get(auths, keys[i]), "auth");
        if (!a) continue;
        size_t ul = 0;
        char *up = b64_decode(a, &ul);
        char *colon = up ? strchr(up, ':') : NULL;
        if (colon) {
            char where[1100];
            snprintf(where, sizeof where, "%s (auths.%s)", path, keys[i]);
            bool nul = strlen(up) != ul;
            *colon = '\0';
            if (nul)
                rc = nnfx_error_set(err, NNFX_ERR_PARSE, "%s: the credentials hold a NUL byte; refused", where);
            else
                rc = creds_check(up, colon + 1, where, err);
            if (rc == NNFX_ERR_INVALID_ARG) err->status = rc = NNFX_ERR_PARSE; /* the file's content, not usage */
            if (!rc) {
                c->user = dupstr(up);
                c->pass = dupstr(colon + 1);
                if (!c->user || !c->pass) rc = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            }
        }
        secret_free(up);
    }
    pub_json_free(j);
    return rc;
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
    bool follow;      /* follow redirects (downloads; done here, hop by hop) */
    const char *auth; /* the token request: this Authorization line whatever the origin */
} http_req;

typedef struct http_resp {
    long status;
    sbuf body;           /* when sink is NULL or the answer is not 2xx */
    uint64_t body_limit; /* most bytes kept in body (0: MAX_BODY)      */
    FILE *sink;          /* download target                            */
    pub_sha256 *hash;    /* hashes what goes to sink                   */
    uint64_t got;        /* bytes written to sink                      */
    uint64_t sink_limit; /* most bytes the sink takes                  */
    bool sink_failed;    /* a write to sink failed                     */
    bool over;           /* more bytes came than a limit allows        */
    bool oom;            /* body could not grow (out of memory)        */
    int read_errno;      /* reading the file to upload failed (errno)  */
    bool header_long;    /* a header this client reads did not fit     */
    char url[4096];      /* the URL that answered (after redirects)    */
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
        if (len > r->sink_limit - r->got) { /* more than the manifest said: stop now */
            r->over = true;
            return 0;
        }
        if (core_io_fails() || fwrite(p, 1, len, r->sink) != len) {
            r->sink_failed = true;
            return 0;
        }
        pub_sha256_update(r->hash, p, len);
        r->got += len;
        return len;
    }
    uint64_t lim = r->body_limit ? r->body_limit : MAX_BODY;
    if (len > lim - r->body.len) {
        r->over = true;
        return 0;
    }
    sb_append(&r->body, p, len);
    if (r->body.oom) { /* a cut body would be read as the registry's answer */
        r->oom = true;
        return 0;
    }
    return len;
}

static void header_value(http_resp *r, char *dst, size_t cap, const char *line, size_t len, const char *name) {
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':') return;
    const char *v = line + nl + 1;
    while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
    size_t vl = (size_t)(line + len - v);
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
    if (vl >= cap) { /* cut short it would mean something else: refused */
        r->header_long = true;
        dst[0] = '\0';
        return;
    }
    memcpy(dst, v, vl);
    dst[vl] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud) {
    http_resp *r = ud;
    size_t len = size * n;
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new response (after a 100) */
        r->location[0] = r->www_auth[0] = r->digest[0] = '\0';
        r->header_long = false;
        const char *sp = memchr(p, ' ', len);
        if (sp && sp + 4 <= p + len) {
            r->status = 0;
            for (int i = 1; i <= 3; i++)
                r->status = r->status * 10 + (sp[i] >= '0' && sp[i] <= '9' ? sp[i] - '0' : 0);
        }
        return len;
    }
    /* a download whose Content-Length already exceeds the manifest's size
     * is refused before its first byte (other answers, e.g. a 401 or a
     * redirect, may carry a body of their own) */
    if (r->sink && r->status / 100 == 2 && len > 15 && strncasecmp(p, "Content-Length:", 15) == 0) {
        char num[32];
        header_value(r, num, sizeof num, p, len, "Content-Length");
        char *end = NULL;
        errno = 0;
        unsigned long long cl = strtoull(num, &end, 10);
        if (num[0] && end && !*end && (errno == ERANGE || cl > r->sink_limit)) {
            r->over = true;
            return 0;
        }
    }
    header_value(r, r->location, sizeof r->location, p, len, "Location");
    header_value(r, r->www_auth, sizeof r->www_auth, p, len, "WWW-Authenticate");
    header_value(r, r->digest, sizeof r->digest, p, len, "Docker-Content-Digest");
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
        if (core_io_fails()) {
            r->read_errno = EIO;
            return CURL_READFUNC_ABORT;
        }
        size_t got = fread(p, 1, want, q->file);
        if (got != want) { /* an error, or the file got shorter since its digest was taken */
            r->read_errno = ferror(q->file) && errno ? errno : -1;
            return CURL_READFUNC_ABORT;
        }
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

/* The message of a registry's JSON error body (": CODE: message", shown
 * escaped and redacted), or "". */
static void registry_error(const pub_client *c, const http_resp *r, char *out, size_t cap) {
    out[0] = '\0';
    if (!r->body.len) return;
    nnfx_error e = {0};
    pub_json *j = pub_json_parse(r->body.s, r->body.len, &e);
    const pub_json *errs = pub_json_get(j, "errors");
    if (errs && errs->kind == PUB_JARR && errs->n > 0) {
        const char *code = pub_json_str(errs->items[0], "code"), *msg = pub_json_str(errs->items[0], "message");
        char sc[128], sm[400];
        snprintf(out, cap, ": %s%s%s", code ? SHOW(c, code, sc) : "", code && msg ? ": " : "",
                 msg ? SHOW(c, msg, sm) : "");
    }
    pub_json_free(j);
}

/* true when url is on the registry's origin. */
static bool same_origin(const pub_client *c, const char *url) {
    char o[600];
    return pub_url_origin(url, o, sizeof o) && strcmp(o, c->origin) == 0;
}

/* Refuses a URL the registry sent (a redirect or Location) that is not an
 * absolute http(s) URL, or is plain http when the registry is https. */
static nnfx_status check_next(const pub_client *c, const char *url, const char *raw, nnfx_error *err) {
    char shown[300];
    if (!url[0])
        return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s sent a Location that is not a usable URL: '%s'",
                              c->ref.host, SHOW(c, raw, shown));
    if (!c->o.plain_http && strncasecmp(url, "https:", 6) != 0)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s sent a Location that is not https: '%s' (refused)",
                              c->ref.host, SHOW(c, url, shown));
    return NNFX_OK;
}

/* One request without auth handling: redirects (when q->follow) are
 * followed here, each hop sending the Authorization header only when it is
 * on the registry's origin. */
static nnfx_status http_once(pub_client *c, const http_req *q, http_resp *r, nnfx_error *err) {
    CURL *h = c->curl;
    char shown[600];
    if (snprintf(r->url, sizeof r->url, "%s", q->url) >= (int)sizeof r->url)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: a URL longer than %zu bytes", c->ref.host,
                              sizeof r->url);
    for (int hop = 0;; hop++) {
        curl_easy_reset(h);
        r->status = 0;
        r->sent = 0;
        r->rq = q;
        r->body.len = 0;
        r->body.oom = false; /* its buffer, if any, is still whole */
        r->over = r->sink_failed = r->header_long = r->oom = false;
        r->read_errno = 0;
        r->location[0] = r->www_auth[0] = r->digest[0] = '\0';
        double left = c->deadline - now_s();
        if (left <= 0)
            return nnfx_error_set(err, NNFX_ERR_IO,
                                  "registry %s: the time limit of %ld s (--timeout) ran out before %s %s", c->ref.host,
                                  c->o.deadline_s, q->method, SHOW(c, r->url, shown));
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
        /* credentials only to the registry's origin (the token request
         * carries its own, see the top of this file) */
        const char *auth = q->auth ? q->auth : same_origin(c, r->url) ? c->auth : NULL;
        if (auth) hd = curl_slist_append(hd, auth);
        curl_easy_setopt(h, CURLOPT_URL, r->url);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);
        curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
        long ms = left * 1000 < 1 ? 1 : (long)(left * 1000);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < 15000 ? ms : 15000L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c->o.timeout_s);
        if (c->o.ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, c->o.ca_file);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        /* a backstop for any answer's declared length; the exact bound of a
         * download is checked on its Content-Length and on every write */
        uint64_t maxfile = r->sink && r->sink_limit > MAX_BODY ? r->sink_limit : MAX_BODY;
        if (!r->sink && r->body_limit > maxfile) maxfile = r->body_limit;
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)maxfile);
        bool upload =
            strcmp(q->method, "PUT") == 0 || strcmp(q->method, "PATCH") == 0 || strcmp(q->method, "POST") == 0;
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
        if (c->o.verbose) fprintf(stderr, "nnfx: %s %s -> %ld\n", q->method, SHOW(c, r->url, shown), r->status);
        if (r->oom) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        if (r->read_errno) /* a local failure, not the registry's */
            return nnfx_error_set(err, NNFX_ERR_IO, "reading the file to upload failed: %s",
                                  r->read_errno > 0 ? strerror(r->read_errno) : "it ended early (changed meanwhile?)");
        if (rc == CURLE_FILESIZE_EXCEEDED) r->over = true;
        if (r->over) {
            uint64_t lim = r->sink && r->status / 100 == 2 ? r->sink_limit : r->body_limit ? r->body_limit : MAX_BODY;
            return nnfx_error_set(err, NNFX_ERR_PARSE,
                                  "registry %s: %s %s: the answer is longer than %llu bytes (%s); stopped", c->ref.host,
                                  q->method, SHOW(c, r->url, shown), (unsigned long long)lim,
                                  r->sink ? "the size the manifest gives" : "the limit for this request");
        }
        if (rc != CURLE_OK) {
            if (r->sink_failed)
                return nnfx_error_set(err, NNFX_ERR_IO, "writing the download failed: %s", strerror(errno));
            if (rc == CURLE_OPERATION_TIMEDOUT && now_s() >= c->deadline - 0.01)
                return nnfx_error_set(err, NNFX_ERR_IO,
                                      "registry %s: %s %s: the time limit of %ld s (--timeout) ran out", c->ref.host,
                                      q->method, SHOW(c, r->url, shown), c->o.deadline_s);
            if (rc == CURLE_OPERATION_TIMEDOUT)
                return nnfx_error_set(err, NNFX_ERR_IO,
                                      "registry %s: %s %s: the transfer stalled (under %ld bytes/s for %ld s)",
                                      c->ref.host, q->method, SHOW(c, r->url, shown), LOW_SPEED_BYTES, c->o.timeout_s);
            const char *what = upload && q->len ? "the upload was interrupted" : "the request failed";
            const char *hint =
                rc == CURLE_SSL_CONNECT_ERROR && !c->o.plain_http ? " (a registry without TLS needs --plain-http)" : "";
            char ce[CURL_ERROR_SIZE * 2];
            return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s %s: %s: %s%s", c->ref.host, q->method,
                                  SHOW(c, r->url, shown), what, cerr[0] ? SHOW(c, cerr, ce) : curl_easy_strerror(rc),
                                  hint);
        }
        if (r->header_long)
            return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: %s %s: a header too long to use", c->ref.host,
                                  q->method, SHOW(c, r->url, shown));
        bool redirect =
            r->status == 301 || r->status == 302 || r->status == 303 || r->status == 307 || r->status == 308;
        if (!q->follow || !redirect) return NNFX_OK;
        if (hop == MAX_REDIRECTS)
            return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: %s: more than %d redirects", c->ref.host,
                                  q->method, MAX_REDIRECTS);
        if (!r->location[0])
            return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: a redirect (HTTP %ld) without a Location",
                                  c->ref.host, r->status);
        char next[sizeof r->url];
        pub_resolve_location(r->url, r->location, next, sizeof next);
        nnfx_status st = check_next(c, next, r->location, err);
        if (st) return st;
        memcpy(r->url, next, sizeof next);
    }
}

/* Builds c->auth from a 401's challenge. */
static nnfx_status authenticate(pub_client *c, const char *challenge, nnfx_error *err) {
    secret_free(c->auth);
    c->auth = NULL;
    c->tried_auth = true;
    nnfx_status st;
    char shown[300];
    if (!c->user && (st = docker_config_creds(c, err))) return st;
    if (c->user && !c->basic) {
        size_t n = strlen(c->user) + strlen(c->pass) + 2;
        char *up = malloc(n);
        if (!up) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        snprintf(up, n, "%s:%s", c->user, c->pass);
        c->basic = b64_encode(up);
        secret_free(up);
        if (!c->basic) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    char *basic_line = NULL;
    if (c->basic) {
        basic_line = malloc(strlen(c->basic) + 32);
        if (!basic_line) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        sprintf(basic_line, "Authorization: Basic %s", c->basic);
    }
    if (strncasecmp(challenge, "Basic", 5) == 0 && !tchar(challenge[5])) {
        if (!basic_line)
            return nnfx_error_set(err, NNFX_ERR_IO,
                                  "registry %s asks for a login: give --username and --password-stdin, or add it "
                                  "to ~/.docker/config.json (docker login)",
                                  c->ref.host);
        c->auth = basic_line;
        return NNFX_OK;
    }
    if (strncasecmp(challenge, "Bearer", 6) != 0 || tchar(challenge[6])) {
        secret_free(basic_line);
        return nnfx_error_set(
            err, NNFX_ERR_UNSUPPORTED, "registry %s: unsupported auth scheme in '%s'", c->ref.host,
            pub_show(c, challenge, strlen(challenge) < 40 ? strlen(challenge) : 40, shown, sizeof shown));
    }
    char realm[1024], service[512], origin[600];
    if (!pub_challenge_param(challenge, "realm", realm, sizeof realm) ||
        !pub_url_origin(realm, origin, sizeof origin) || strchr(realm, '#')) {
        secret_free(basic_line);
        return nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: a Bearer challenge without a usable realm: '%s'",
                              c->ref.host, SHOW(c, challenge, shown));
    }
    if (strncmp(origin, "https://", 8) != 0 && !c->o.plain_http) {
        secret_free(basic_line);
        return nnfx_error_set(err, NNFX_ERR_IO,
                              "registry %s: the token endpoint '%s' is not https (use --plain-http only for a "
                              "registry you trust)",
                              c->ref.host, SHOW(c, realm, shown));
    }
    pub_challenge_param(challenge, "service", service, sizeof service);
    char want_scope[1200];
    snprintf(want_scope, sizeof want_scope, "repository:%s:%s", c->ref.repo, c->pushing ? "pull,push" : "pull");
    CURL *h = c->curl;
    char *es = curl_easy_escape(h, service, 0), *esc = curl_easy_escape(h, want_scope, 0);
    char url[4096];
    snprintf(url, sizeof url, "%s%s%s%s&scope=%s", realm, strchr(realm, '?') ? "&" : "?", service[0] ? "service=" : "",
             service[0] && es ? es : "", esc ? esc : "");
    curl_free(es);
    curl_free(esc);
    /* the token request carries the credentials as Basic (anonymous
     * without) to the realm the registry named, wherever it is */
    http_req q = {.method = "GET", .url = url, .accept = "application/json", .auth = basic_line};
    http_resp r = {0};
    st = http_once(c, &q, &r, err);
    secret_free(basic_line);
    if (!st && r.status != 200) {
        st = nnfx_error_set(err, NNFX_ERR_IO, "registry %s: the token endpoint refused the %s (HTTP %ld)", c->ref.host,
                            c->user ? "credentials" : "anonymous request", r.status);
    }
    if (!st) {
        nnfx_error e = {0};
        pub_json *j = pub_json_parse(r.body.s ? r.body.s : "", r.body.len, &e);
        const char *tok = pub_json_str(j, "token");
        if (!tok) tok = pub_json_str(j, "access_token");
        if (!j && e.status == NNFX_ERR_NOMEM) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        } else if (!tok || !*tok) {
            st = nnfx_error_set(err, NNFX_ERR_PARSE, "registry %s: the token endpoint answered no token", c->ref.host);
        } else if (!pub_header_safe(tok, false) || strlen(tok) > 16384) {
            st = nnfx_error_set(err, NNFX_ERR_PARSE,
                                "registry %s: the token endpoint answered a token with control bytes (CR, LF...), "
                                "spaces or over 16 KiB; refused (it would inject request headers)",
                                c->ref.host);
        } else {
            secret_free(c->token);
            c->token = dupstr(tok);
            c->auth = c->token ? malloc(strlen(tok) + 32) : NULL;
            if (c->auth) sprintf(c->auth, "Authorization: Bearer %s", tok);
            if (!c->auth) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        }
        if (j && r.body.s) memset(r.body.s, 0, r.body.len);
        pub_json_free(j);
    }
    if (r.body.s) memset(r.body.s, 0, r.body.len);
    free(sb_finish(&r.body));
    return st;
}

/* A request with auth: on a 401 from the registry's origin the challenge is
 * answered once and the request repeated (a second 401 is a refused login);
 * a 401 from any other origin is refused, credentials are not sent there. */
static nnfx_status http_do(pub_client *c, const http_req *q, http_resp *r, nnfx_error *err) {
    nnfx_status st = http_once(c, q, r, err);
    if (st || r->status != 401) return st;
    char shown[600];
    if (!same_origin(c, r->url))
        return nnfx_error_set(err, NNFX_ERR_IO,
                              "registry %s: %s %s asks for a login, but is not on the registry's origin (%s): nnfx "
                              "sends credentials only there",
                              c->ref.host, q->method, SHOW(c, r->url, shown), c->origin);
    if (!r->www_auth[0])
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s %s: HTTP 401 without a challenge", c->ref.host,
                              q->method, SHOW(c, r->url, shown));
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
    char detail[600], shown[600];
    registry_error(c, r, detail, sizeof detail);
    if (r->status == 403)
        return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s: access denied (HTTP 403)%s", c->ref.host, what,
                              detail);
    if (r->status == 404)
        return nnfx_error_set(err, NNFX_ERR_NOT_FOUND, "registry %s: %s: not found (HTTP 404)%s", c->ref.host, what,
                              detail);
    return nnfx_error_set(err, NNFX_ERR_IO, "registry %s: %s: %s %s answered HTTP %ld%s", c->ref.host, what, q->method,
                          SHOW(c, r->url, shown), r->status, detail);
}

/* --- client ------------------------------------------------------------------------------ */

pub_client *pub_client_new(const pub_ref *ref, const pub_client_options *o, nnfx_error *err) {
    static bool inited;
    if (!inited) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return nnfx_error_set(err, NNFX_ERR_IO, "libcurl could not start"), NULL;
        inited = true;
    }
    if (o && o->username && creds_check(o->username, o->password ? o->password : "", "the login", err)) return NULL;
    pub_client *c = calloc(1, sizeof *c);
    if (!c) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory"), NULL;
    c->ref = *ref;
    if (o) c->o = *o;
    c->o.username = c->o.password = NULL; /* copied below, not kept by reference */
    if (c->o.timeout_s <= 0) c->o.timeout_s = 30;
    if (c->o.deadline_s <= 0) c->o.deadline_s = PUB_DEFAULT_DEADLINE_S;
    if (!c->o.max_size) c->o.max_size = PUB_DEFAULT_MAX_SIZE;
    c->deadline = now_s() + (double)c->o.deadline_s;
    snprintf(c->scheme, sizeof c->scheme, "%s", c->o.plain_http ? "http" : "https");
    char base[300];
    snprintf(base, sizeof base, "%s://%s/", c->scheme, c->ref.host);
    if (!pub_url_origin(base, c->origin, sizeof c->origin)) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "'%s' is not a registry host name (HOST or HOST:PORT)", c->ref.host);
        free(c);
        return NULL;
    }
    if (c->o.ca_file) { /* a regular file (a FIFO would hang the TLS setup) */
        int fd = open(c->o.ca_file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        bool reg = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (fd >= 0) close(fd);
        if (!reg) {
            nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "--ca-file %s: not a readable regular file", c->o.ca_file);
            free(c);
            return NULL;
        }
    }
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
    secret_free(c->basic);
    secret_free(c->token);
    secret_free(c->auth);
    if (c->curl) curl_easy_cleanup(c->curl);
    free(c);
}

static void url_of(const pub_client *c, char *out, size_t cap, const char *kind, const char *what) {
    snprintf(out, cap, "%s://%s/v2/%s/%s/%s", c->scheme, c->ref.host, c->ref.repo, kind, what);
}

/* The absolute URL of a Location header r sent (relative to the URL that
 * answered), checked by check_next. */
static nnfx_status location_of(const pub_client *c, const http_resp *r, char *out, size_t cap, nnfx_error *err) {
    pub_resolve_location(r->url, r->location, out, cap);
    return check_next(c, out, r->location, err);
}

/* --- blobs ------------------------------------------------------------------------------------- */

nnfx_status pub_blob_prepare(pub_blob *b, nnfx_error *err) {
    char hex[PUB_SHA256_HEX];
    if (b->path) {
        /* a FIFO or device would block or never end: regular files only */
        int fd = core_io_fails() ? -1 : open(b->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        bool reg = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        int e = errno;
        if (fd >= 0) close(fd);
        if (fd < 0) return nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", b->path, strerror(e));
        if (!reg) return nnfx_error_set(err, NNFX_ERR_IO, "%s: not a regular file", b->path);
        nnfx_status rc = pub_sha256_file(b->path, hex, &b->size, err);
        if (rc) return rc;
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
    if (b->path && (core_io_fails() || !(f = fopen(b->path, "rb")))) {
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
    if ((st = location_of(c, &r, loc, 4096, err))) goto close;
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
        if ((st = location_of(c, &r, loc, 4096, err))) goto close;
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
    char url[4096], hex[PUB_SHA256_HEX], digest[72], shown[300];
    if (!pub_sha256_buf(manifest, len, hex)) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    snprintf(digest, sizeof digest, "sha256:%s", hex);
    url_of(c, url, sizeof url, "manifests", c->ref.tag);
    http_req put = {.method = "PUT", .url = url, .content_type = PUB_MT_MANIFEST, .data = manifest, .len = len};
    http_resp r = {0};
    nnfx_status st = http_do(c, &put, &r, err);
    if (!st && r.status != 201) st = unexpected(c, &put, &r, "pushing the manifest", err);
    if (!st && r.digest[0] && strcmp(r.digest, digest) != 0)
        st = nnfx_error_set(err, NNFX_ERR_IO, "registry %s stored the manifest as %s, not %s", c->ref.host,
                            SHOW(c, r.digest, shown), digest);
    if (!st && digest_out) snprintf(digest_out, 72, "%s", digest);
    free(sb_finish(&r.body));
    return st;
}

nnfx_status pub_pull_manifest(pub_client *c, char **out, size_t *len, char *digest_out, nnfx_error *err) {
    char url[4096], hex[PUB_SHA256_HEX], digest[72], shown[300];
    url_of(c, url, sizeof url, "manifests", c->ref.tag);
    http_req get = {.method = "GET", .url = url, .accept = PUB_MT_MANIFEST, .follow = true};
    http_resp r = {0};
    r.body_limit = c->o.max_size < MAX_MANIFEST ? c->o.max_size : MAX_MANIFEST;
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
                                c->ref.host, digest, SHOW(c, want, shown));
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

nnfx_status pub_pull_blob(pub_client *c, const char *digest, uint64_t size, FILE *f, nnfx_error *err) {
    bool hex_ok = strncmp(digest, "sha256:", 7) == 0 && strlen(digest) == 71;
    for (const char *p = digest + 7; hex_ok && *p; p++)
        hex_ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f');
    if (!hex_ok) return nnfx_error_set(err, NNFX_ERR_PARSE, "the manifest names a blob with an unusable digest");
    if (size > c->o.max_size)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "blob %s: %llu bytes, more than the limit of %llu (--max-size)",
                              digest, (unsigned long long)size, (unsigned long long)c->o.max_size);
    char url[4096];
    url_of(c, url, sizeof url, "blobs", digest);
    http_req get = {.method = "GET", .url = url, .follow = true};
    http_resp r = {0};
    r.sink = f;
    r.sink_limit = size;
    r.hash = pub_sha256_new();
    nnfx_status st = r.hash ? http_do(c, &get, &r, err) : nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    char hex[PUB_SHA256_HEX] = "";
    if (r.hash) pub_sha256_final(r.hash, hex);
    if (!st && r.status != 200) st = unexpected(c, &get, &r, "downloading a blob", err);
    if (!st && r.got != size)
        st = nnfx_error_set(err, NNFX_ERR_PARSE, "blob %s: got %llu bytes, the manifest says %llu", digest,
                            (unsigned long long)r.got, (unsigned long long)size);
    if (!st && strcmp(hex, digest + 7) != 0)
        st = nnfx_error_set(err, NNFX_ERR_PARSE, "blob %s: the downloaded bytes hash to sha256:%s (corrupt or altered)",
                            digest, hex);
    if (!st && (core_io_fails() || fflush(f) != 0 || core_io_fails() || fsync(fileno(f)) != 0))
        st = nnfx_error_set(err, NNFX_ERR_IO, "blob %s: writing the download failed: %s", digest, strerror(errno));
    free(sb_finish(&r.body));
    return st;
}
