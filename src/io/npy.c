/* npy.c — NumPy .npy files (format versions 1-3, C order, little-endian):
 * reading with full header validation, writing via a temporary file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_int.h"

static const struct {
    const char *descr;
    nnfx_dtype dt;
} npy_types[] = {{"<f4", NNFX_F32}, {"<f8", NNFX_F64}, {"<i8", NNFX_I64},  {"<i4", NNFX_I32},
                 {"|u1", NNFX_U8},  {"|i1", NNFX_I8},  {"|b1", NNFX_BOOL}, {"<f2", NNFX_F16},
                 {"<u2", NNFX_U16}, {"<i2", NNFX_I16}, {"<u4", NNFX_U32},  {"<u8", NNFX_U64}};

/* Finds the value text after 'key': in the header dict; NULL if absent. */
static const char *npy_find_key(const char *h, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\"", key);
        p = strstr(h, pat);
    }
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

/* Parses the header dict text h into dtype and shape. */
static nnfx_status npy_parse_header(const char *path, const char *h, nnfx_dtype *dt, int *rank, int64_t *shape,
                                    nnfx_error *err) {
    const char *d = npy_find_key(h, "descr");
    if (!d || (*d != '\'' && *d != '"'))
        return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header has no 'descr'", path);
    char q = *d++;
    const char *e = strchr(d, q);
    if (!e || e - d > 15) return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header has a bad 'descr'", path);
    char descr[16];
    memcpy(descr, d, (size_t)(e - d));
    descr[e - d] = 0;
    /* one-byte types may be written with '<', '>' or '=' too */
    if (strlen(descr) == 3 && descr[2] == '1' && descr[0] != '|') descr[0] = '|';
    if (descr[0] == '=') descr[0] = '<';
    *dt = NNFX_DTYPE_UNDEFINED;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
        if (strcmp(npy_types[i].descr, descr) == 0) *dt = npy_types[i].dt;
    if (*dt == NNFX_DTYPE_UNDEFINED)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                              "%s: npy dtype '%s' is not supported (little-endian f4, f8, f2, i8, i4, u1, i1, b1)",
                              path, descr);
    const char *f = npy_find_key(h, "fortran_order");
    if (!f) return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header has no 'fortran_order'", path);
    if (strncmp(f, "True", 4) == 0)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: Fortran-order npy arrays are not supported", path);
    if (strncmp(f, "False", 5) != 0)
        return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy 'fortran_order' is neither True nor False", path);
    const char *s = npy_find_key(h, "shape");
    if (!s || *s != '(') return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header has no 'shape' tuple", path);
    s++;
    *rank = 0;
    for (;;) {
        while (*s == ' ')
            s++;
        if (*s == ')') break;
        if (*s < '0' || *s > '9') return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy shape is malformed", path);
        if (*rank >= NNFX_MAX_RANK)
            return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: npy array has more than %d dims", path,
                                  NNFX_MAX_RANK);
        errno = 0;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (errno || v < 0) return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy shape dim is out of range", path);
        shape[(*rank)++] = v;
        s = end;
        while (*s == ' ' || *s == 'L')
            s++;
        if (*s == ',')
            s++;
        else if (*s != ')')
            return nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy shape is malformed", path);
    }
    return NNFX_OK;
}

/* Reads a whole .npy file into a new owned tensor; NULL with err set
 * (IO, PARSE, UNSUPPORTED, NOMEM) when the file is unreadable, the header is
 * malformed, the dtype or layout is unsupported, or the data length does not
 * match the shape. */
nnfx_tensor *nnfx_npy_load(const char *path, nnfx_error *err) {
    if (!path) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "npy_load: path is NULL");
        return NULL;
    }
    FILE *fp = core_fopen_read(path, err);
    if (!fp) return NULL;
    nnfx_tensor *t = NULL;
    char *hdr = NULL;
    unsigned char pre[12];
    long fsize = -1;
    if (fseek(fp, 0, SEEK_END) == 0) fsize = ftell(fp);
    if (fsize < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot determine the file size", path);
        goto done;
    }
    if (fsize < 10 || fread(pre, 1, 10, fp) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        nnfx_error_set(err, NNFX_ERR_PARSE, "%s: not an npy file (bad magic)", path);
        goto done;
    }
    int major = pre[6];
    size_t hlen, hoff;
    if (major == 1) {
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
        hoff = 10;
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, fp) != 2) {
            nnfx_error_set(err, NNFX_ERR_PARSE, "%s: truncated npy header", path);
            goto done;
        }
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
        hoff = 12;
    } else {
        nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: npy format version %d is not supported", path, major);
        goto done;
    }
    if (hlen > (size_t)fsize - hoff || hlen > (1u << 24)) {
        nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header length %zu exceeds the file (%ld bytes)", path, hlen,
                       fsize);
        goto done;
    }
    hdr = malloc(hlen + 1);
    if (!hdr) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "%s: out of memory for the npy header", path);
        goto done;
    }
    if (fread(hdr, 1, hlen, fp) != hlen) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot read the npy header", path);
        goto done;
    }
    hdr[hlen] = 0;
    if (memchr(hdr, 0, hlen) || !strchr(hdr, '{')) {
        nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy header is not a dict", path);
        goto done;
    }
    nnfx_dtype dt = NNFX_DTYPE_UNDEFINED;
    int rank = 0;
    int64_t shape[NNFX_MAX_RANK] = {0};
    if (npy_parse_header(path, hdr, &dt, &rank, shape, err)) goto done;
    size_t data_len = (size_t)fsize - hoff - hlen, nbytes = 0;
    bool absurd = nnfx_shape_nbytes(dt, rank, shape, &nbytes, NULL) != NNFX_OK;
    if (absurd || nbytes != data_len) {
        char b[160];
        nnfx_error_set(err, NNFX_ERR_PARSE, "%s: npy shape %s of %s needs %lld data bytes, the file has %zu", path,
                       nnfx_shape_str(rank, shape, b, sizeof b), nnfx_dtype_name(dt), absurd ? -1LL : (long long)nbytes,
                       data_len);
        goto done;
    }
    t = nnfx_tensor_new(dt, rank, shape, err);
    if (!t) goto done;
    if (data_len && fread(t->data, 1, data_len, fp) != data_len) {
        nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot read the npy data", path);
        nnfx_tensor_release(t);
        t = NULL;
    }
done:
    free(hdr);
    fclose(fp);
    return t;
}

/* Writes t as a version-1 .npy file to a unique temporary name beside path,
 * then renames it over path; on failure the temporary file is removed and
 * path is untouched. */
nnfx_status nnfx_npy_save(const char *path, const nnfx_tensor *t, nnfx_error *err) {
    if (!path || !t) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "npy_save: NULL argument");
    const char *descr = NULL;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
        if (npy_types[i].dt == t->dtype) descr = npy_types[i].descr;
    if (!descr)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: cannot save dtype %s as npy", path,
                              nnfx_dtype_name(t->dtype));
    char shp[NNFX_MAX_RANK * 24 + 8];
    size_t off = (size_t)snprintf(shp, sizeof shp, "(");
    for (int i = 0; i < t->rank; i++)
        off += (size_t)snprintf(shp + off, sizeof shp - off, "%lld,%s", (long long)t->shape[i],
                                i + 1 < t->rank ? " " : "");
    snprintf(shp + off, sizeof shp - off, ")");
    char hdr[512];
    int hl = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shp);
    /* pad with spaces so the data starts on a 64-byte boundary */
    size_t total = 10 + (size_t)hl + 1;
    size_t pad = (64 - total % 64) % 64;
    if ((size_t)hl + pad + 1 >= sizeof hdr)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "%s: npy header too long", path);
    memset(hdr + hl, ' ', pad);
    hdr[(size_t)hl + pad] = '\n';
    size_t hlen = (size_t)hl + pad + 1;
    unsigned char pre[10] = {
        0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    size_t nbytes = t->nbytes;
    core_file f;
    nnfx_status s = core_file_begin(&f, path, err);
    if (!s) s = core_file_write(&f, pre, 10, err);
    if (!s) s = core_file_write(&f, hdr, hlen, err);
    if (!s && nbytes) s = core_file_write(&f, t->data, nbytes, err);
    if (!s) s = core_file_commit(&f, err);
    core_file_abort(&f); /* removes the temporary after a failure; no-op after the commit */
    return s;
}
