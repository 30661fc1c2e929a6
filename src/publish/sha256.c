/* sha256.c — SHA-256 digests for provenance and OCI content addressing,
 * through OpenSSL's libcrypto (EVP interface; libcurl's TLS already brings
 * the library, so nnfx carries no hand-written hash). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "core/core_int.h"
#include "publish/publish.h"

struct pub_sha256 {
    EVP_MD_CTX *ctx;
};

pub_sha256 *pub_sha256_new(void) {
    pub_sha256 *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(h->ctx);
        free(h);
        return NULL;
    }
    return h;
}

void pub_sha256_update(pub_sha256 *h, const void *data, size_t n) {
    if (h && n) EVP_DigestUpdate(h->ctx, data, n);
}

void pub_sha256_final(pub_sha256 *h, char hex[PUB_SHA256_HEX]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    hex[0] = '\0';
    if (!h) return;
    if (EVP_DigestFinal_ex(h->ctx, md, &len) == 1)
        for (unsigned i = 0; i < len && i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", md[i]);
    EVP_MD_CTX_free(h->ctx);
    free(h);
}

bool pub_sha256_buf(const void *data, size_t n, char hex[PUB_SHA256_HEX]) {
    pub_sha256 *h = pub_sha256_new();
    if (!h) return false;
    pub_sha256_update(h, data, n);
    pub_sha256_final(h, hex);
    return hex[0] != '\0';
}

nnfx_status pub_sha256_file(const char *path, char hex[PUB_SHA256_HEX], uint64_t *size, nnfx_error *err) {
    FILE *f = core_io_fails() ? NULL : fopen(path, "rb");
    if (!f) return nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    pub_sha256 *h = pub_sha256_new();
    unsigned char *buf = malloc(1 << 20);
    if (!h || !buf) {
        fclose(f);
        free(buf);
        if (h) pub_sha256_final(h, hex);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    uint64_t total = 0;
    size_t got;
    bool bad = false;
    while (!(bad = core_io_fails()) && (got = fread(buf, 1, 1 << 20, f)) > 0) {
        pub_sha256_update(h, buf, got);
        total += got;
    }
    bad = bad || ferror(f) != 0;
    int e = errno ? errno : EIO;
    fclose(f);
    free(buf);
    pub_sha256_final(h, hex);
    if (bad) return nnfx_error_set(err, NNFX_ERR_IO, "%s: read failed: %s", path, strerror(e));
    if (!hex[0]) return nnfx_error_set(err, NNFX_ERR_IO, "%s: SHA-256 failed", path);
    if (size) *size = total;
    return NNFX_OK;
}
