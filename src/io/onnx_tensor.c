/* onnx_tensor.c — TensorProto <-> nnfx_tensor: raw data mapped in place
 * when aligned, typed repeated fields decoded, external data files mapped.
 * Assumes a little-endian host (as ONNX's raw_data is little-endian). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core_int.h"
#include "io/onnx_int.h"

nnfx_dtype onnx_dtype(int64_t t) {
    switch (t) {
    case 1: return NNFX_F32;
    case 2: return NNFX_U8;
    case 3: return NNFX_I8;
    case 4: return NNFX_U16;
    case 5: return NNFX_I16;
    case 6: return NNFX_I32;
    case 7: return NNFX_I64;
    case 9: return NNFX_BOOL;
    case 10: return NNFX_F16;
    case 11: return NNFX_F64;
    case 12: return NNFX_U32;
    case 13: return NNFX_U64;
    default: return NNFX_DTYPE_UNDEFINED;
    }
}

const char *onnx_dtype_name(int64_t t) {
    static const char *names[] = {"UNDEFINED", "FLOAT",  "UINT8",     "INT8",       "UINT16",  "INT16",
                                  "INT32",     "INT64",  "STRING",    "BOOL",       "FLOAT16", "DOUBLE",
                                  "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
    if (t >= 0 && t < (int64_t)(sizeof names / sizeof names[0])) return names[t];
    return "unknown";
}

void onnx_load_ctx_done(onnx_load_ctx *c) {
    for (int i = 0; i < c->next; i++) {
        free(c->ext[i].path);
        nnfx_mapping_release(c->ext[i].m);
    }
    free(c->ext);
    c->ext = NULL;
    c->next = 0;
}

/* Maps (once) the external data file `loc`, relative to the model's
 * directory. Rejects absolute paths and ".." so a model cannot read files
 * outside its directory. */
static nnfx_mapping *ext_mapping(onnx_load_ctx *c, const char *tname, const char *loc) {
    if (!c->dir) {
        nnfx_error_set(c->err, NNFX_ERR_UNSUPPORTED,
                       "%s: tensor '%s' has external data ('%s'), which needs the model's file path "
                       "(use nnfx_onnx_load)",
                       c->what, tname, loc);
        return NULL;
    }
    if (!loc[0] || loc[0] == '/' || strstr(loc, "..")) {
        nnfx_error_set(c->err, NNFX_ERR_PARSE,
                       "%s: tensor '%s': external data location '%s' must be a relative path inside the "
                       "model's directory",
                       c->what, tname, loc);
        return NULL;
    }
    size_t n = strlen(c->dir) + strlen(loc) + 2;
    char *path = malloc(n);
    if (!path) {
        nnfx_error_set(c->err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(path, n, "%s/%s", c->dir, loc);
    for (int i = 0; i < c->next; i++)
        if (strcmp(c->ext[i].path, path) == 0) {
            free(path);
            return c->ext[i].m;
        }
    nnfx_error sub = {0};
    /* no symbolic links inside the model's directory: a link could point
     * the model at any file the reader can open */
    for (char *q = path + strlen(c->dir) + 1;; q++) {
        if (*q != '/' && *q) continue;
        char keep = *q;
        *q = '\0';
        struct stat lst;
        bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
        *q = keep;
        if (link) {
            nnfx_error_set(c->err, NNFX_ERR_PARSE,
                           "%s: tensor '%s': external data location '%s' goes through a symbolic link (refused)",
                           c->what, tname, loc);
            free(path);
            return NULL;
        }
        if (!keep) break;
    }
    nnfx_mapping *m = core_mapping_open(path, true, &sub);
    if (!m) {
        nnfx_error_set(c->err, NNFX_ERR_IO, "%s: tensor '%s': external data file: %s", c->what, tname, sub.msg);
        free(path);
        return NULL;
    }
    void *grown = realloc(c->ext, sizeof *c->ext * (size_t)(c->next + 1));
    if (!grown) {
        nnfx_mapping_release(m);
        free(path);
        nnfx_error_set(c->err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->ext = grown;
    c->ext[c->next].path = path;
    c->ext[c->next].m = m;
    c->next++;
    return m;
}

/* Unaligned tensors at least this large stay in the file at load time. */
#define DEFER_UNALIGNED_BYTES 4096

/* A tensor over bytes [p, p+nbytes) of mapping m (NULL: copy). Protobuf
 * puts raw_data wherever the field lands, so most tensors are not aligned
 * for their dtype; large ones are mapped anyway and copied into aligned
 * memory on first access through the graph (core_tensor_materialize), so
 * loading reads no weight pages. Small ones are copied now: the importer
 * reads some (shapes, axes) as values. */
static nnfx_tensor *tensor_from_bytes(nnfx_dtype dt, int rank, const int64_t *dims, const uint8_t *p, size_t nbytes,
                                      nnfx_mapping *m, bool defer, nnfx_error *err) {
    size_t es = nnfx_dtype_size(dt);
    if (m && nbytes > 0 && (((uintptr_t)p % es) == 0 || (defer && nbytes >= DEFER_UNALIGNED_BYTES))) {
        /* Reading the fields around the weights faults in the file pages
         * (whole large folios) that hold them: drop those mappings again, so
         * a load, inspect or analyze keeps no weight bytes resident; a
         * kernel that reads the weight later faults them back from the
         * page cache. */
        if (nbytes >= ONNX_DROP_MAPPED_BYTES) core_mapping_drop(m, p, nbytes);
        return nnfx_tensor_mapped(dt, rank, dims, (void *)(uintptr_t)p, m, err);
    }
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, dims, err);
    if (t && nbytes) memcpy(t->data, p, nbytes);
    return t;
}

/* Parses a decimal uint64 key value; false when malformed. */
static bool parse_u64(const char *s, uint64_t *v) {
    if (!s || !*s) return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        if (x > (UINT64_MAX - 9) / 10) return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return true;
}

/* The fields of one TensorProto, as the first scan finds them. */
typedef struct tensor_fields {
    int64_t dims[NNFX_MAX_RANK];
    int rank;
    int64_t dtype_code;
    char *name;
    bool has_raw;
    ow_field raw;
    int64_t typed_count[16]; /* elements per typed field number */
    int64_t location;
    char *ext_loc;
    uint64_t ext_off, ext_len;
    bool has_len;
} tensor_fields;

/* The status of a read that failed in the wire reader (its error is set). */
static nnfx_status read_failed(const onnx_load_ctx *c) {
    return (c->err && c->err->status) ? c->err->status : NNFX_ERR_PARSE;
}

/* One external_data key/value entry (location, offset, length) of field f. */
static nnfx_status read_external_entry(onnx_load_ctx *c, ow_reader *scan, const ow_field *f, tensor_fields *tf) {
    ow_reader kv;
    if (ow_sub(scan, f, &kv)) return read_failed(c);
    char *key = NULL, *val = NULL;
    ow_field g;
    int rc2;
    nnfx_status st = NNFX_OK;
    while ((rc2 = ow_next(&kv, &g)) > 0) {
        char **dst = g.num == PB_KV_KEY ? &key : g.num == PB_KV_VALUE ? &val : NULL;
        if (!dst) continue;
        free(*dst);
        if (ow_string(&kv, &g, dst)) {
            rc2 = -1;
            break;
        }
    }
    if (rc2 < 0) {
        st = read_failed(c);
    } else if (key && strcmp(key, "location") == 0) {
        free(tf->ext_loc);
        tf->ext_loc = val;
        val = NULL;
    } else if (key && (strcmp(key, "offset") == 0 || strcmp(key, "length") == 0)) {
        uint64_t v;
        if (!parse_u64(val, &v)) {
            st = ow_fail(scan, NNFX_ERR_PARSE, f->off, "external data %s '%s' is not a number", key, val ? val : "");
        } else if (key[0] == 'o') {
            tf->ext_off = v;
        } else {
            tf->ext_len = v;
            tf->has_len = true;
        }
    }
    free(key);
    free(val);
    return st;
}

/* Scans the tensor's fields into tf, counting the typed values. */
static nnfx_status scan_fields(onnx_load_ctx *c, const ow_reader *r, tensor_fields *tf) {
    ow_field f;
    int rc;
    ow_reader scan = *r;
    nnfx_status st;
    while ((rc = ow_next(&scan, &f)) > 0) {
        switch (f.num) {
        case PB_T_DIMS: {
            int64_t n = ow_count_varints(&scan, &f);
            if (n < 0) return read_failed(c);
            if (tf->rank + n > NNFX_MAX_RANK)
                return ow_fail(&scan, NNFX_ERR_UNSUPPORTED, f.tag_off, "tensor has more than %d dims", NNFX_MAX_RANK);
            if (ow_get_varints(&scan, &f, tf->dims + tf->rank)) return read_failed(c);
            for (int64_t i = 0; i < n; i++)
                if (tf->dims[tf->rank + i] < 0)
                    return ow_fail(&scan, NNFX_ERR_PARSE, f.off, "tensor dim %" PRId64 " is negative",
                                   tf->dims[tf->rank + i]);
            tf->rank += (int)n;
            break;
        }
        case PB_T_DATA_TYPE:
            if (ow_expect(&scan, &f, OW_VARINT, "data_type")) return read_failed(c);
            tf->dtype_code = (int64_t)f.v;
            break;
        case PB_T_NAME:
            free(tf->name);
            tf->name = NULL;
            if (ow_string(&scan, &f, &tf->name)) return read_failed(c);
            break;
        case PB_T_RAW_DATA:
            if (ow_expect(&scan, &f, OW_LEN, "raw_data")) return read_failed(c);
            tf->raw = f;
            tf->has_raw = true;
            break;
        case PB_T_FLOAT_DATA:
        case PB_T_INT32_DATA:
        case PB_T_INT64_DATA:
        case PB_T_UINT64_DATA:
        case PB_T_DOUBLE_DATA: {
            int64_t n = f.num == PB_T_FLOAT_DATA    ? ow_count_fixed(&scan, &f, 4)
                        : f.num == PB_T_DOUBLE_DATA ? ow_count_fixed(&scan, &f, 8)
                                                    : ow_count_varints(&scan, &f);
            if (n < 0) return read_failed(c);
            tf->typed_count[f.num] += n;
            break;
        }
        case PB_T_SEGMENT:
            return ow_fail(&scan, NNFX_ERR_UNSUPPORTED, f.tag_off, "segmented tensors are not supported");
        case PB_T_DATA_LOCATION:
            if (ow_expect(&scan, &f, OW_VARINT, "data_location")) return read_failed(c);
            tf->location = (int64_t)f.v;
            break;
        case PB_T_EXTERNAL_DATA:
            if ((st = read_external_entry(c, &scan, &f, tf))) return st;
            break;
        default: break; /* doc_string, string_data (rejected below by dtype) */
        }
    }
    return rc < 0 ? read_failed(c) : NNFX_OK;
}

/* The tensor's bytes from its external data file. */
static nnfx_status read_external(onnx_load_ctx *c, const ow_reader *r, size_t start, const tensor_fields *tf,
                                 nnfx_dtype dt, size_t nbytes, nnfx_tensor **out) {
    const char *tname = tf->name ? tf->name : "";
    if (!tf->ext_loc)
        return ow_fail(r, NNFX_ERR_PARSE, start, "tensor '%s' has external data without a location", tname);
    nnfx_mapping *m = ext_mapping(c, tname, tf->ext_loc);
    if (!m) return c->err ? c->err->status : NNFX_ERR_IO;
    size_t fsize = nnfx_mapping_size(m);
    if (tf->has_len && tf->ext_len != nbytes)
        return nnfx_error_set(c->err, NNFX_ERR_PARSE,
                              "%s: tensor '%s': external data length %" PRIu64 " does not match its shape "
                              "(%zu bytes)",
                              c->what, tname, tf->ext_len, nbytes);
    if (tf->ext_off > fsize || nbytes > fsize - tf->ext_off)
        return nnfx_error_set(c->err, NNFX_ERR_IO,
                              "%s: tensor '%s': external data file '%s' is too short (%zu bytes; the tensor "
                              "needs %zu bytes at offset %" PRIu64 ")",
                              c->what, tname, tf->ext_loc, fsize, nbytes, tf->ext_off);
    const uint8_t *p = (const uint8_t *)nnfx_mapping_data(m) + tf->ext_off;
    *out = tensor_from_bytes(dt, tf->rank, tf->dims, p, nbytes, m, c->defer_unaligned, c->err);
    return NNFX_OK;
}

/* The tensor's bytes from raw_data (mapped when the buffer is the file's
 * mapping). */
static nnfx_status read_raw(onnx_load_ctx *c, const ow_reader *r, const tensor_fields *tf, nnfx_dtype dt, size_t nbytes,
                            nnfx_tensor **out) {
    const ow_field *raw = &tf->raw;
    if (raw->len != nbytes)
        return ow_fail(r, NNFX_ERR_PARSE, raw->off, "tensor '%s': raw_data has %zu bytes, its shape needs %zu",
                       tf->name ? tf->name : "", raw->len, nbytes);
    nnfx_mapping *m = c->map;
    if (m) { /* only map when the buffer is the mapping */
        const uint8_t *b = nnfx_mapping_data(m);
        if (raw->data < b || raw->data + raw->len > b + nnfx_mapping_size(m)) m = NULL;
    }
    *out = tensor_from_bytes(dt, tf->rank, tf->dims, raw->data, nbytes, m, c->defer_unaligned, c->err);
    return NNFX_OK;
}

/* Stores varint value v as element idx of t (dtype dt). */
static void store_varint(nnfx_tensor *t, nnfx_dtype dt, size_t idx, int64_t v) {
    switch (dt) {
    case NNFX_I64: ((int64_t *)t->data)[idx] = v; break;
    case NNFX_I32: ((int32_t *)t->data)[idx] = (int32_t)v; break;
    case NNFX_F16: ((uint16_t *)t->data)[idx] = (uint16_t)v; break;
    case NNFX_I8: ((int8_t *)t->data)[idx] = (int8_t)v; break;
    case NNFX_U16: ((uint16_t *)t->data)[idx] = (uint16_t)v; break;
    case NNFX_I16: ((int16_t *)t->data)[idx] = (int16_t)v; break;
    case NNFX_U32: ((uint32_t *)t->data)[idx] = (uint32_t)v; break;
    case NNFX_U64: ((uint64_t *)t->data)[idx] = (uint64_t)v; break;
    default: ((uint8_t *)t->data)[idx] = (uint8_t)(dt == NNFX_BOOL ? v != 0 : v); break;
    }
}

/* The tensor's values from the typed field its dtype uses (float_data,
 * int32_data, ...), which must hold exactly numel values. */
static nnfx_status read_typed(onnx_load_ctx *c, const ow_reader *r, size_t start, const tensor_fields *tf,
                              nnfx_dtype dt, int64_t numel, nnfx_tensor **out) {
    int field;
    switch (dt) {
    case NNFX_F32: field = PB_T_FLOAT_DATA; break;
    case NNFX_F64: field = PB_T_DOUBLE_DATA; break;
    case NNFX_I64: field = PB_T_INT64_DATA; break;
    case NNFX_U32:
    case NNFX_U64: field = PB_T_UINT64_DATA; break;
    default: field = PB_T_INT32_DATA; break;
    }
    if (tf->typed_count[field] != numel)
        return ow_fail(r, NNFX_ERR_PARSE, start,
                       "tensor '%s' of shape with %" PRId64 " elements has %" PRId64 " values",
                       tf->name ? tf->name : "", numel, tf->typed_count[field]);
    nnfx_tensor *t = nnfx_tensor_new(dt, tf->rank, tf->dims, c->err);
    if (!t) return read_failed(c);
    size_t idx = 0, es = nnfx_dtype_size(dt);
    ow_field f;
    int rc;
    ow_reader scan = *r;
    while ((rc = ow_next(&scan, &f)) > 0) {
        if ((int)f.num != field) continue;
        uint8_t *dst = (uint8_t *)t->data + idx * es;
        if (field == PB_T_FLOAT_DATA) {
            int64_t n = ow_count_fixed(&scan, &f, 4);
            if (ow_get_fixed32(&scan, &f, (uint32_t *)(void *)dst)) break;
            idx += (size_t)n;
        } else if (field == PB_T_DOUBLE_DATA) {
            int64_t n = ow_count_fixed(&scan, &f, 8);
            if (ow_get_fixed64(&scan, &f, (uint64_t *)(void *)dst)) break;
            idx += (size_t)n;
        } else {
            int64_t n = ow_count_varints(&scan, &f);
            int64_t *tmp = malloc(sizeof *tmp * (size_t)(n ? n : 1));
            if (!tmp || ow_get_varints(&scan, &f, tmp)) {
                free(tmp);
                rc = -1;
                break;
            }
            for (int64_t i = 0; i < n; i++, idx++)
                store_varint(t, dt, idx, tmp[i]);
            free(tmp);
        }
    }
    if (rc < 0) {
        nnfx_tensor_release(t);
        return read_failed(c);
    }
    *out = t;
    return NNFX_OK;
}

/* Reads a TensorProto in two phases: scan its fields (scan_fields), then
 * take its data from where the fields say (read_external, read_raw or
 * read_typed). */
nnfx_status onnx_read_tensor(onnx_load_ctx *c, ow_reader *r, char **name_out, nnfx_tensor **out) {
    *out = NULL;
    if (name_out) *name_out = NULL;
    size_t start = r->pos;
    tensor_fields tf;
    memset(&tf, 0, sizeof tf);
    nnfx_status st = scan_fields(c, r, &tf);
    if (st) goto done;
    const char *tname = tf.name ? tf.name : "";
    nnfx_dtype dt = onnx_dtype(tf.dtype_code);
    if (dt == NNFX_DTYPE_UNDEFINED) {
        st = ow_fail(r, NNFX_ERR_UNSUPPORTED, start, "tensor '%s' has unsupported data type %s (%" PRId64 ")", tname,
                     onnx_dtype_name(tf.dtype_code), tf.dtype_code);
        goto done;
    }
    size_t nbytes = 0;
    if (nnfx_shape_nbytes(dt, tf.rank, tf.dims, &nbytes, NULL)) {
        st = ow_fail(r, NNFX_ERR_PARSE, start, "tensor '%s' has an absurd shape", tname);
        goto done;
    }
    if (tf.location == 1)
        st = read_external(c, r, start, &tf, dt, nbytes, out);
    else if (tf.has_raw)
        st = read_raw(c, r, &tf, dt, nbytes, out);
    else
        st = read_typed(c, r, start, &tf, dt, nnfx_shape_numel(tf.rank, tf.dims), out);
    if (st) goto done;
    if (!*out) {
        st = read_failed(c);
        goto done;
    }
    if (name_out) {
        *name_out = tf.name;
        tf.name = NULL;
    }
done:
    free(tf.name);
    free(tf.ext_loc);
    return st;
}

void onnx_write_tensor(ow_buf *b, uint32_t num, const char *name, const nnfx_tensor *t, const char *loc,
                       uint64_t offset) {
    size_t m = ow_begin_msg(b, num);
    ow_put_packed_int64(b, PB_T_DIMS, t->shape, (size_t)t->rank);
    ow_put_int(b, PB_T_DATA_TYPE, (int64_t)t->dtype); /* nnfx dtype codes are ONNX's */
    if (name) ow_put_string(b, PB_T_NAME, name);
    if (loc) {
        char num_text[32];
        size_t k = ow_begin_msg(b, PB_T_EXTERNAL_DATA);
        ow_put_string(b, PB_KV_KEY, "location");
        ow_put_string(b, PB_KV_VALUE, loc);
        ow_end_msg(b, k);
        k = ow_begin_msg(b, PB_T_EXTERNAL_DATA);
        ow_put_string(b, PB_KV_KEY, "offset");
        snprintf(num_text, sizeof num_text, "%" PRIu64, offset);
        ow_put_string(b, PB_KV_VALUE, num_text);
        ow_end_msg(b, k);
        k = ow_begin_msg(b, PB_T_EXTERNAL_DATA);
        ow_put_string(b, PB_KV_KEY, "length");
        snprintf(num_text, sizeof num_text, "%zu", t->nbytes);
        ow_put_string(b, PB_KV_VALUE, num_text);
        ow_end_msg(b, k);
        ow_put_int(b, PB_T_DATA_LOCATION, 1);
    } else {
        ow_put_bytes(b, PB_T_RAW_DATA, t->data, t->nbytes);
    }
    ow_end_msg(b, m);
}
