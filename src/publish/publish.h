/* publish.h — the publishing layer: SHA-256 digests (sha256.c), a small
 * JSON reader (json.c) and an OCI distribution client (oci.c, over
 * libcurl) that pushes a model as an OCI artifact and pulls it back.
 * Internal to nnfx (linked by the command line, not part of libnnfx); the
 * prefix is pub_. */
#ifndef NNFX_PUBLISH_H
#define NNFX_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nnfx.h"

/* --- SHA-256 ----------------------------------------------------------------- */

#define PUB_SHA256_HEX 65 /* 64 hex digits and a NUL */

typedef struct pub_sha256 pub_sha256;
/* A running hash (NULL on OOM). */
pub_sha256 *pub_sha256_new(void);
void pub_sha256_update(pub_sha256 *h, const void *data, size_t n);
/* Writes the lowercase hex digest and frees h. */
void pub_sha256_final(pub_sha256 *h, char hex[PUB_SHA256_HEX]);
/* Digest of a buffer; false on OOM. */
bool pub_sha256_buf(const void *data, size_t n, char hex[PUB_SHA256_HEX]);
/* Digest (and byte count, may be NULL) of a file. */
nnfx_status pub_sha256_file(const char *path, char hex[PUB_SHA256_HEX], uint64_t *size, nnfx_error *err);

/* --- JSON (read only) ---------------------------------------------------------- */

typedef enum { PUB_JNULL, PUB_JBOOL, PUB_JNUM, PUB_JSTR, PUB_JARR, PUB_JOBJ } pub_jkind;

typedef struct pub_json {
    pub_jkind kind;
    double num;  /* PUB_JNUM; PUB_JBOOL: 0 or 1 */
    char *str;   /* PUB_JSTR (decoded, NUL-terminated)           */
    int n;       /* PUB_JARR / PUB_JOBJ: number of members       */
    char **keys; /* PUB_JOBJ: member names                       */
    struct pub_json **items;
} pub_json;

/* Parses text (len bytes) into a tree; NULL with a message in err when
 * malformed (the message gives the byte offset). Depth is limited to 64. */
pub_json *pub_json_parse(const char *text, size_t len, nnfx_error *err);
void pub_json_free(pub_json *j);
/* Member `key` of an object (NULL when absent or j is not an object). */
const pub_json *pub_json_get(const pub_json *j, const char *key);
/* The string of member `key`, or NULL. */
const char *pub_json_str(const pub_json *j, const char *key);

/* --- OCI distribution client ------------------------------------------------------ */

/* Media types nnfx writes (docs/publish.md). */
#define PUB_MT_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define PUB_MT_ARTIFACT "application/vnd.nnfx.model.v1"
#define PUB_MT_CONFIG   "application/vnd.nnfx.model.config.v1+json"
#define PUB_MT_MODEL    "application/vnd.onnx.model"
#define PUB_MT_DATA     "application/vnd.onnx.model.external-data"
/* The CNCF ModelPack layout (github.com/modelpack/model-spec, v1): push
 * --format modelpack; pull reads it too. */
#define PUB_MP_ARTIFACT "application/vnd.cncf.model.manifest.v1+json"
#define PUB_MP_CONFIG   "application/vnd.cncf.model.config.v1+json"
#define PUB_MP_WEIGHT   "application/vnd.cncf.model.weight.v1.raw"
#define PUB_MP_FILEPATH "org.cncf.model.filepath"

/* A reference REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST]. */
typedef struct pub_ref {
    char host[256]; /* "localhost:5000", "ghcr.io"                 */
    char repo[512]; /* "team/digits"                               */
    char tag[256];  /* "v1" (default "latest"), or a digest         */
    bool is_digest; /* tag holds "sha256:..."                      */
} pub_ref;

/* Parses a reference; the first component is the registry (a host name
 * with a dot or a port, or "localhost"). Errors say what is wrong. */
nnfx_status pub_ref_parse(const char *s, pub_ref *ref, nnfx_error *err);

typedef struct pub_client_options {
    bool plain_http;           /* http:// instead of https://              */
    const char *username;      /* basic credentials (NULL: docker config)  */
    const char *password;      /*                                         */
    const char *docker_config; /* config.json path (NULL: $DOCKER_CONFIG/config.json or ~/.docker/config.json) */
    size_t chunk_size;         /* upload chunk bytes (0: 8 MiB); blobs larger than one chunk go up in PATCH chunks */
    long timeout_s;            /* low-speed limit: a transfer slower than 1 KiB/s for this long fails (0: 30 s) */
    long deadline_s;           /* the time limit of all requests, counted from pub_client_new (0: 600 s) */
    uint64_t max_size;         /* the largest manifest or blob accepted (0: PUB_DEFAULT_MAX_SIZE) */
    bool verbose;              /* print each request's method, URL and status (never credentials) */
    const char *ca_file;       /* PEM CA certificates to trust instead of the system's (NULL: the system's) */
} pub_client_options;

#define PUB_DEFAULT_DEADLINE_S 600
#define PUB_DEFAULT_MAX_SIZE   ((uint64_t)4 << 30)
#define PUB_MAX_SIZE_EXACT     ((uint64_t)1 << 53) /* sizes beyond this are not exact in JSON numbers */

typedef struct pub_client pub_client;

/* A client for one registry and repository; NULL with err on failure. */
pub_client *pub_client_new(const pub_ref *ref, const pub_client_options *o, nnfx_error *err);
void pub_client_free(pub_client *c);

/* A blob to upload: a file (path) or memory (data/len). */
typedef struct pub_blob {
    const char *path;
    const void *data;
    uint64_t size;
    char digest[8 + PUB_SHA256_HEX]; /* "sha256:<hex>" (filled by pub_blob_prepare) */
} pub_blob;

/* Computes the blob's size and digest. */
nnfx_status pub_blob_prepare(pub_blob *b, nnfx_error *err);
/* Uploads the blob unless the registry has it (HEAD first): one PUT when
 * it fits a chunk, else POST + PATCH chunks (Content-Range) + PUT. */
nnfx_status pub_push_blob(pub_client *c, const pub_blob *b, nnfx_error *err);
/* PUTs the manifest under ref's tag; *digest_out (may be NULL; 72 bytes)
 * receives its digest. */
nnfx_status pub_push_manifest(pub_client *c, const char *manifest, size_t len, char *digest_out, nnfx_error *err);
/* GETs the manifest of ref's tag or digest (checked against the digest
 * when the reference is one, or the registry's Docker-Content-Digest);
 * *out is malloc'd. */
nnfx_status pub_pull_manifest(pub_client *c, char **out, size_t *len, char *digest_out, nnfx_error *err);
/* Downloads a blob into f (an open temporary file): the size the manifest
 * declares bounds it (the transfer stops as soon as more arrives, and
 * CURLOPT_MAXFILESIZE refuses a longer Content-Length up front); the bytes
 * are hashed on the way and checked against digest at the end. The caller
 * renames f into place only on NNFX_OK. */
nnfx_status pub_pull_blob(pub_client *c, const char *digest, uint64_t size, FILE *f, nnfx_error *err);

/* For showing server-sent bytes to a person: writes s (n bytes) to out
 * (cap bytes, always NUL-terminated, truncated with "...") with every
 * occurrence of the client's password, its Basic credentials and any token
 * replaced by "[redacted]" (c may be NULL), and every byte outside printable
 * ASCII (and the backslash) escaped as \xNN. Returns out. */
const char *pub_show(const pub_client *c, const char *s, size_t n, char *out, size_t cap);
/* Redacts the client's secrets in msg (in place) and escapes any control
 * byte left in it: the last pass over a message before it is printed. */
void pub_scrub_message(const pub_client *c, char *msg, size_t cap);

/* --- HTTP pieces (exposed for tests and the fuzz target) ----------------------------- */

/* The origin of an absolute http(s) URL as "scheme://host:port" (lowercase,
 * the default port made explicit), parsed by libcurl as the request will be.
 * false when url is not such a URL, carries user info, or is malformed. */
bool pub_url_origin(const char *url, char *out, size_t cap);
/* Resolves a Location header value (absolute, or relative to base) to an
 * absolute URL; false when either is malformed or the result is not http(s). */
bool pub_resolve_location(const char *base, const char *loc, char *out, size_t cap);
/* The value of parameter key (case-insensitive) in a WWW-Authenticate
 * challenge `Scheme k=v, k="quoted \"v\""`; false (out "") when absent,
 * malformed, or longer than cap - 1 bytes. */
bool pub_challenge_param(const char *ch, const char *key, char *out, size_t cap);
/* true when s may go into a header value: printable ASCII only (0x21-0x7e,
 * and space when space is true); no CR, LF or other control byte. */
bool pub_header_safe(const char *s, bool space);

/* --- reading a manifest for pull -------------------------------------------------------- */

#define PUB_MAX_PULL_LAYERS 16

typedef struct pub_pull_layer {
    char digest[72]; /* sha256:<64 lowercase hex>                       */
    uint64_t size;   /* exact, <= max_size                              */
    char title[256]; /* data layers: a plain file name; model: ""       */
    bool model;      /* the model layer (goes to -o)                    */
} pub_pull_layer;

typedef struct pub_pull_plan {
    int n;
    pub_pull_layer layers[PUB_MAX_PULL_LAYERS]; /* the model layer last */
} pub_pull_plan;

/* An exact byte count from a JSON value: a number that is a non-negative
 * integer no larger than 2^53 (checked before any cast). */
bool pub_json_size(const pub_json *v, uint64_t *out);
/* Reads a pulled manifest (nnfx's layout or ModelPack's): the model layer
 * (media type application/vnd.onnx.model, else a title or ModelPack file
 * path ending in .onnx, else the first layer) and each external-data layer
 * (nnfx's external-data type, or another ModelPack raw weight layer), with digests (sha256, 64 lowercase
 * hex digits), sizes (pub_json_size, at most max_size) and titles (plain
 * file names, distinct, not out_base, the base name of -o). NNFX_ERR_PARSE
 * with a message saying which layer and what is wrong. */
nnfx_status pub_manifest_plan(const pub_json *man, const char *out_base, uint64_t max_size, pub_pull_plan *plan,
                              nnfx_error *err);

/* --- temporaries removed on signals -------------------------------------------------------- */

/* Creates a temporary file beside target (TARGET.nnfx-XXXXXX, mode 0600)
 * and registers it so SIGINT, SIGTERM and SIGHUP remove it (handlers
 * installed on first use, async-signal-safe: unlink and re-raise). Writes
 * its name to tmp (cap bytes); returns the open fd, or -1 with errno. */
int pub_temp_create(const char *target, char *tmp, size_t cap);
/* Unregisters tmp (after it was renamed or removed). */
void pub_temp_forget(const char *tmp);
/* Renames tmps[i] to targets[i] for all n, all or nothing: a target that
 * existed is first kept under a hard-linked backup name, and when any rename
 * fails the ones done are undone (backups renamed back, new files removed)
 * and every temporary is removed. Where no hard link can be made the
 * replacement of that target cannot be undone. */
nnfx_status pub_commit_all(char *const *tmps, const char *const *targets, int n, nnfx_error *err);

#endif
