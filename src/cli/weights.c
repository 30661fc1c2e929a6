/* weights.c — the values of a text-IR model's parameters. The text IR
 * (`.fx`) keeps parameter shapes only; `-o m.fx` also writes the values to
 * m.fx.safetensors (the safetensors format: an 8-byte little-endian header
 * length, a JSON header {"name": {"dtype", "shape", "data_offsets"}}, then
 * the raw little-endian data), and reading m.fx takes them back from there.
 * A text IR with parameters and no such file is "weightless": fine for
 * inspect and analyze, an error for anything that computes or writes ONNX. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "publish/publish.h"

static const struct {
    nnfx_dtype dt;
    const char *name;
} st_types[] = {{NNFX_F32, "F32"}, {NNFX_F64, "F64"}, {NNFX_F16, "F16"}, {NNFX_I64, "I64"},
                {NNFX_I32, "I32"}, {NNFX_I16, "I16"}, {NNFX_I8, "I8"},   {NNFX_U8, "U8"},
                {NNFX_U16, "U16"}, {NNFX_U32, "U32"}, {NNFX_U64, "U64"}, {NNFX_BOOL, "BOOL"}};

static const char *st_name(nnfx_dtype dt) {
    for (size_t i = 0; i < sizeof st_types / sizeof st_types[0]; i++)
        if (st_types[i].dt == dt) return st_types[i].name;
    return NULL;
}

static nnfx_dtype st_dtype(const char *name) {
    for (size_t i = 0; i < sizeof st_types / sizeof st_types[0]; i++)
        if (strcmp(st_types[i].name, name) == 0) return st_types[i].dt;
    return NNFX_DTYPE_UNDEFINED;
}

char *cli_weights_path(const char *fx_path) {
    size_t n = strlen(fx_path) + sizeof ".safetensors";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.safetensors", fx_path);
    return p;
}

/* safetensors reserves this key for its string-to-string metadata: a
 * parameter of that name is stored under another key, named in the
 * metadata as RENAME_KEY (so every parameter name round-trips). */
#define ST_RESERVED "__metadata__"
#define RENAME_KEY  "nnfx.key.__metadata__"

/* The key a parameter called ST_RESERVED is stored under: ST_RESERVED with
 * '~' appended until no parameter of g has that name (malloc'd, or NULL). */
static char *reserved_key(const nnfx_graph *g) {
    size_t n = strlen(ST_RESERVED);
    char *k = NULL;
    for (size_t extra = 1; extra <= (size_t)nnfx_graph_num_params(g) + 1; extra++) {
        free(k);
        if (!(k = malloc(n + extra + 1))) return NULL;
        memcpy(k, ST_RESERVED, n);
        memset(k + n, '~', extra);
        k[n + extra] = '\0';
        if (!nnfx_graph_param_meta(g, k, &(nnfx_meta){0})) return k;
    }
    return k; /* unreachable: one of num_params + 1 names is free */
}

nnfx_status cli_weights_remove(const char *fx_path, nnfx_error *err) {
    char *path = cli_weights_path(fx_path);
    if (!path) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    nnfx_status st = NNFX_OK;
    if (remove(path) != 0 && errno != ENOENT)
        st = nnfx_error_set(err, NNFX_ERR_IO, "%s: cannot remove a stale values file: %s", path, strerror(errno));
    free(path);
    return st;
}

nnfx_status cli_weights_save(const nnfx_graph *g, const char *fx_path, nnfx_error *err) {
    char *path = cli_weights_path(fx_path);
    if (!path) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    /* every value is written, zeros too: a graph whose values are all zero
     * is a model like any other (a weightless text IR is saved by
     * cli_save_model_weightless, which writes no values file) */
    char *rkey = nnfx_graph_param_meta(g, ST_RESERVED, &(nnfx_meta){0}) ? reserved_key(g) : NULL;
    if (nnfx_graph_param_meta(g, ST_RESERVED, &(nnfx_meta){0}) && !rkey) {
        free(path);
        return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    }
    sbuf h = {0};
    uint64_t off = 0;
    sb_printf(&h, "{\"__metadata__\": {\"format\": \"nnfx\", \"model\": ");
    cli_json_str(&h, cli_basename(fx_path));
    if (rkey) {
        sb_printf(&h, ", \"" RENAME_KEY "\": ");
        cli_json_str(&h, rkey);
    }
    sb_printf(&h, "}");
    nnfx_status st = NNFX_OK;
    for (int i = 0; i < nnfx_graph_num_params(g) && !st; i++) {
        const nnfx_tensor *t = nnfx_graph_param_at(g, i);
        const char *dn = t ? st_name(t->dtype) : NULL;
        if (!dn) {
            st = nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "%s: parameter '%s': dtype %s has no safetensors form", path,
                                nnfx_graph_param_name(g, i), t ? nnfx_dtype_name(t->dtype) : "?");
            break;
        }
        sb_printf(&h, ", ");
        const char *pn = nnfx_graph_param_name(g, i);
        cli_json_str(&h, strcmp(pn, ST_RESERVED) == 0 ? rkey : pn);
        sb_printf(&h, ": {\"dtype\": \"%s\", \"shape\": [", dn);
        for (int d = 0; d < t->rank; d++)
            sb_printf(&h, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
        sb_printf(&h, "], \"data_offsets\": [%llu, %llu]}", (unsigned long long)off,
                  (unsigned long long)(off + t->nbytes));
        off += t->nbytes;
    }
    sb_printf(&h, "}");
    while (!st && (h.len % 8) != 0) /* the data starts 8-byte aligned */
        sb_append(&h, " ", 1);
    size_t hl = h.len;
    char *header = sb_finish(&h);
    char *buf = NULL;
    if (!st && header) {
        size_t total = 8 + hl + (size_t)off;
        buf = malloc(total ? total : 1);
        if (buf) {
            for (int b = 0; b < 8; b++)
                buf[b] = (char)(((uint64_t)hl >> (8 * b)) & 0xFF);
            memcpy(buf + 8, header, hl);
            size_t at = 8 + hl;
            for (int i = 0; i < nnfx_graph_num_params(g); i++) {
                const nnfx_tensor *t = nnfx_graph_param_at(g, i);
                if (t->nbytes) memcpy(buf + at, t->data, t->nbytes);
                at += t->nbytes;
            }
            st = cli_write_file(path, buf, total, err);
        }
    }
    if (!st && (!header || !buf)) st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    free(buf);
    free(header);
    free(rkey);
    free(path);
    return st;
}

nnfx_status cli_weights_attach(nnfx_graph *g, const char *fx_path, bool *found, nnfx_error *err) {
    if (found) *found = false;
    if (nnfx_graph_num_params(g) == 0) return NNFX_OK;
    char *path = cli_weights_path(fx_path);
    if (!path) return nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
    struct stat sb;
    if (stat(path, &sb) != 0) { /* weightless: cli_load_model refuses it where values matter */
        free(path);
        return NNFX_OK;
    }
    if (found) *found = true;
    size_t len = 0;
    char *data = cli_read_file(path, &len, err);
    nnfx_status st = NNFX_OK;
    pub_json *j = NULL;
    uint64_t hl = 0;
    if (!data) {
        st = err->status;
        goto out;
    }
    for (int b = 0; b < 8 && len >= 8; b++)
        hl |= (uint64_t)(unsigned char)data[b] << (8 * b);
    if (len < 8 || hl > len - 8) {
        st = nnfx_error_set(err, NNFX_ERR_PARSE, "%s: not a safetensors file (header length)", path);
        goto out;
    }
    if (!(j = pub_json_parse(data + 8, (size_t)hl, err)) || j->kind != PUB_JOBJ) {
        if (j) nnfx_error_set(err, NNFX_ERR_PARSE, "the header is not a JSON object");
        nnfx_error_prefix(err, "%s", path);
        st = NNFX_ERR_PARSE;
        goto out;
    }
    const char *base = data + 8 + hl;
    uint64_t dlen = len - 8 - hl;
    for (int i = 0; i < nnfx_graph_num_params(g) && !st; i++) {
        const char *name = nnfx_graph_param_name(g, i);
        const nnfx_tensor *want = nnfx_graph_param_at(g, i);
        /* the reserved name is stored under the key the metadata names */
        const char *key =
            strcmp(name, ST_RESERVED) == 0 ? pub_json_str(pub_json_get(j, ST_RESERVED), RENAME_KEY) : name;
        const pub_json *e = key && strcmp(key, ST_RESERVED) != 0 ? pub_json_get(j, key) : NULL;
        const char *dn = pub_json_str(e, "dtype");
        const pub_json *shape = pub_json_get(e, "shape"), *offs = pub_json_get(e, "data_offsets");
        if (!e) {
            st = nnfx_error_set(err, NNFX_ERR_PARSE, "%s: no values for parameter '%s'", path, name);
            break;
        }
        bool ok = dn && st_dtype(dn) == want->dtype && shape && shape->kind == PUB_JARR && shape->n == want->rank &&
                  offs && offs->kind == PUB_JARR && offs->n == 2;
        /* compared as doubles: casting an unchecked JSON number is undefined */
        for (int d = 0; ok && d < want->rank; d++)
            ok = shape->items[d]->kind == PUB_JNUM && shape->items[d]->num == (double)want->shape[d];
        for (int k = 0; ok && k < 2; k++)
            ok = offs->items[k]->kind == PUB_JNUM;
        if (!ok) {
            st = nnfx_error_set(err, NNFX_ERR_PARSE,
                                "%s: parameter '%s' disagrees with the text IR (dtype %s, %d dims expected)", path,
                                name, nnfx_dtype_name(want->dtype), want->rank);
            break;
        }
        double b0 = offs->items[0]->num, b1 = offs->items[1]->num;
        if (!(b0 >= 0) || b1 < b0 || b1 > (double)dlen || b0 != floor(b0) || b1 != floor(b1) ||
            (uint64_t)(b1 - b0) != want->nbytes) {
            st = nnfx_error_set(err, NNFX_ERR_PARSE, "%s: parameter '%s': data_offsets out of range", path, name);
            break;
        }
        nnfx_tensor *t = nnfx_tensor_new(want->dtype, want->rank, want->shape, err);
        if (!t) {
            st = err->status;
            break;
        }
        if (t->nbytes) memcpy(t->data, base + (uint64_t)b0, t->nbytes);
        st = nnfx_graph_set_param(g, name, t, err);
        nnfx_tensor_release(t);
    }
out:
    pub_json_free(j);
    free(data);
    free(path);
    return st;
}

void cli_weightless_message(char *buf, size_t size, const char *path) {
    snprintf(buf, size,
             "%s: this text IR has its parameters' shapes but not their values (%s.safetensors is missing), so it "
             "cannot be computed with or written as ONNX; write it with `-o %s` from a model with weights, or use the "
             ".onnx",
             path, path, cli_basename(path));
}
