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
    long timeout_s;            /* per-request stall limit (0: 30 s without progress) */
    bool verbose;              /* print each request's method, URL and status (never credentials) */
} pub_client_options;

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
/* Downloads a blob to path (through a temporary name), checking the size
 * and digest before the rename. */
nnfx_status pub_pull_blob(pub_client *c, const char *digest, uint64_t size, const char *path, nnfx_error *err);

#endif
