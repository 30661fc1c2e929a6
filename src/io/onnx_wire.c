/* onnx_wire.c — protobuf wire-format reader (zero-copy, bounds-checked)
 * and writer (growable buffer). See onnx_wire.h for why it is hand-written. */
#include "io/onnx_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ow_reader ow_reader_init(const void *buf, size_t size, const char *what, nnfx_error *err) {
    ow_reader r;
    r.base = buf;
    r.pos = 0;
    r.end = buf ? size : 0;
    r.depth = 0;
    r.what = what ? what : "<buffer>";
    r.err = err;
    return r;
}

nnfx_status ow_fail(const ow_reader *r, nnfx_status s, size_t off, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return nnfx_error_set(r->err, s, "%s: %s at byte %zu", r->what, msg, off);
}

size_t ow_decode_varint(const uint8_t *p, size_t n, uint64_t *v) {
    uint64_t x = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        uint64_t b = p[i];
        /* the 10th byte may only carry the top bit of a 64-bit value */
        if (i == 9 && b > 1) return 0;
        x |= (b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* Reads a varint at r->pos; on failure sets the error and returns false. */
static bool read_varint(ow_reader *r, uint64_t *v, const char *what) {
    size_t used = ow_decode_varint(r->base + r->pos, r->end - r->pos, v);
    if (used == 0) {
        if (r->end - r->pos >= 10)
            ow_fail(r, NNFX_ERR_PARSE, r->pos, "malformed varint (%s)", what);
        else
            ow_fail(r, NNFX_ERR_PARSE, r->pos, "truncated varint (%s)", what);
        return false;
    }
    r->pos += used;
    return true;
}

int ow_next(ow_reader *r, ow_field *f) {
    if (r->pos >= r->end) return 0;
    memset(f, 0, sizeof *f);
    f->tag_off = r->pos;
    uint64_t tag;
    if (!read_varint(r, &tag, "field tag")) return -1;
    uint64_t num = tag >> 3;
    f->wire = (int)(tag & 7);
    if (num == 0 || num > 0x1fffffff) {
        ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "invalid field number %llu", (unsigned long long)num);
        return -1;
    }
    f->num = (uint32_t)num;
    f->off = r->pos;
    switch (f->wire) {
    case OW_VARINT:
        if (!read_varint(r, &f->v, "field value")) return -1;
        return 1;
    case OW_I64:
    case OW_I32: {
        size_t w = f->wire == OW_I64 ? 8 : 4;
        if (r->end - r->pos < w) {
            ow_fail(r, NNFX_ERR_PARSE, r->pos, "truncated fixed%zu field %u", w * 8, f->num);
            return -1;
        }
        uint64_t v = 0;
        for (size_t i = 0; i < w; i++)
            v |= (uint64_t)r->base[r->pos + i] << (8 * i);
        f->v = v;
        r->pos += w;
        return 1;
    }
    case OW_LEN: {
        uint64_t len;
        size_t len_off = r->pos;
        if (!read_varint(r, &len, "length")) return -1;
        if (len > r->end - r->pos) {
            ow_fail(r, NNFX_ERR_PARSE, len_off,
                    "length %llu of field %u runs past the end of its message (%zu bytes left)",
                    (unsigned long long)len, f->num, r->end - r->pos);
            return -1;
        }
        f->off = r->pos;
        f->data = r->base + r->pos;
        f->len = (size_t)len;
        r->pos += (size_t)len;
        return 1;
    }
    default: ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "unsupported wire type %d in field %u", f->wire, f->num); return -1;
    }
}

nnfx_status ow_sub(const ow_reader *r, const ow_field *f, ow_reader *sub) {
    if (f->wire != OW_LEN)
        return ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "field %u should be a message (wire type %d)", f->num, f->wire);
    if (r->depth + 1 > OW_MAX_DEPTH)
        return ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "messages nested deeper than %d levels", OW_MAX_DEPTH);
    *sub = *r;
    sub->pos = f->off;
    sub->end = f->off + f->len;
    sub->depth = r->depth + 1;
    return NNFX_OK;
}

nnfx_status ow_expect(const ow_reader *r, const ow_field *f, int wire, const char *field_name) {
    if (f->wire == wire) return NNFX_OK;
    return ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "field %s (%u) has wire type %d, expected %d", field_name, f->num,
                   f->wire, wire);
}

nnfx_status ow_string(const ow_reader *r, const ow_field *f, char **out) {
    *out = NULL;
    if (f->wire != OW_LEN)
        return ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "field %u should be a string (wire type %d)", f->num, f->wire);
    if (memchr(f->data, 0, f->len))
        return ow_fail(r, NNFX_ERR_PARSE, f->off, "string field %u contains a NUL byte", f->num);
    char *s = malloc(f->len + 1);
    if (!s) return nnfx_error_set(r->err, NNFX_ERR_NOMEM, "out of memory reading a %zu-byte string", f->len);
    memcpy(s, f->data, f->len);
    s[f->len] = 0;
    *out = s;
    return NNFX_OK;
}

int64_t ow_count_varints(const ow_reader *r, const ow_field *f) {
    if (f->wire == OW_VARINT) return 1;
    if (f->wire != OW_LEN) {
        ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "repeated integer field %u has wire type %d", f->num, f->wire);
        return -1;
    }
    int64_t n = 0;
    size_t pos = 0;
    while (pos < f->len) {
        uint64_t v;
        size_t used = ow_decode_varint(f->data + pos, f->len - pos, &v);
        if (!used) {
            ow_fail(r, NNFX_ERR_PARSE, f->off + pos, "truncated varint in packed field %u", f->num);
            return -1;
        }
        pos += used;
        n++;
    }
    return n;
}

nnfx_status ow_get_varints(const ow_reader *r, const ow_field *f, int64_t *out) {
    if (f->wire == OW_VARINT) {
        out[0] = (int64_t)f->v;
        return NNFX_OK;
    }
    size_t pos = 0, i = 0;
    while (pos < f->len) {
        uint64_t v;
        size_t used = ow_decode_varint(f->data + pos, f->len - pos, &v);
        if (!used) return ow_fail(r, NNFX_ERR_PARSE, f->off + pos, "truncated varint in packed field %u", f->num);
        out[i++] = (int64_t)v;
        pos += used;
    }
    return NNFX_OK;
}

int64_t ow_count_fixed(const ow_reader *r, const ow_field *f, int width) {
    int want = width == 4 ? OW_I32 : OW_I64;
    if (f->wire == want) return 1;
    if (f->wire != OW_LEN) {
        ow_fail(r, NNFX_ERR_PARSE, f->tag_off, "repeated fixed%d field %u has wire type %d", width * 8, f->num,
                f->wire);
        return -1;
    }
    if (f->len % (size_t)width) {
        ow_fail(r, NNFX_ERR_PARSE, f->off, "packed field %u has %zu bytes, not a multiple of %d", f->num, f->len,
                width);
        return -1;
    }
    return (int64_t)(f->len / (size_t)width);
}

nnfx_status ow_get_fixed32(const ow_reader *r, const ow_field *f, uint32_t *out) {
    if (f->wire == OW_I32) {
        out[0] = (uint32_t)f->v;
        return NNFX_OK;
    }
    if (ow_count_fixed(r, f, 4) < 0) return r->err ? r->err->status : NNFX_ERR_PARSE;
    for (size_t i = 0; i < f->len / 4; i++) {
        const uint8_t *p = f->data + 4 * i;
        out[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
    return NNFX_OK;
}

nnfx_status ow_get_fixed64(const ow_reader *r, const ow_field *f, uint64_t *out) {
    if (f->wire == OW_I64) {
        out[0] = f->v;
        return NNFX_OK;
    }
    if (ow_count_fixed(r, f, 8) < 0) return r->err ? r->err->status : NNFX_ERR_PARSE;
    for (size_t i = 0; i < f->len / 8; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++)
            v |= (uint64_t)f->data[8 * i + (size_t)k] << (8 * k);
        out[i] = v;
    }
    return NNFX_OK;
}

/* --- Writer ---------------------------------------------------------------- */

void ow_buf_free(ow_buf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

/* Makes room for n more bytes; false (and oom set) on failure. */
static bool buf_reserve(ow_buf *b, size_t n) {
    if (b->oom) return false;
    if (n <= b->cap - b->len) return true;
    if (n > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void ow_put_raw(ow_buf *b, const void *data, size_t n) {
    if (n == 0 || !buf_reserve(b, n)) return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

/* Encodes v into out (10 bytes room); returns the length. */
static size_t encode_varint(uint64_t v, uint8_t *out) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

void ow_put_varint(ow_buf *b, uint64_t v) {
    uint8_t tmp[10];
    ow_put_raw(b, tmp, encode_varint(v, tmp));
}

void ow_put_tag(ow_buf *b, uint32_t num, int wire) { ow_put_varint(b, ((uint64_t)num << 3) | (uint64_t)wire); }

void ow_put_uint(ow_buf *b, uint32_t num, uint64_t v) {
    ow_put_tag(b, num, OW_VARINT);
    ow_put_varint(b, v);
}

void ow_put_int(ow_buf *b, uint32_t num, int64_t v) { ow_put_uint(b, num, (uint64_t)v); }

void ow_put_float(ow_buf *b, uint32_t num, float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    ow_put_tag(b, num, OW_I32);
    ow_put_raw(b, le, 4);
}

void ow_put_bytes(ow_buf *b, uint32_t num, const void *data, size_t n) {
    ow_put_tag(b, num, OW_LEN);
    ow_put_varint(b, n);
    ow_put_raw(b, data, n);
}

void ow_put_string(ow_buf *b, uint32_t num, const char *s) {
    if (s) ow_put_bytes(b, num, s, strlen(s));
}

void ow_put_packed_int64(ow_buf *b, uint32_t num, const int64_t *v, size_t n) {
    if (n == 0) return;
    size_t mark = ow_begin_msg(b, num);
    for (size_t i = 0; i < n; i++)
        ow_put_varint(b, (uint64_t)v[i]);
    ow_end_msg(b, mark);
}

void ow_put_packed_float(ow_buf *b, uint32_t num, const float *v, size_t n) {
    if (n == 0) return;
    ow_put_tag(b, num, OW_LEN);
    ow_put_varint(b, n * 4);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
        ow_put_raw(b, le, 4);
    }
}

size_t ow_begin_msg(ow_buf *b, uint32_t num) {
    ow_put_tag(b, num, OW_LEN);
    uint8_t zero = 0;
    ow_put_raw(b, &zero, 1); /* one byte reserved for the length; widened in ow_end_msg */
    return b->len;
}

void ow_end_msg(ow_buf *b, size_t mark) {
    if (b->oom || mark > b->len || mark == 0) return;
    size_t len = b->len - mark;
    uint8_t tmp[10];
    size_t k = encode_varint(len, tmp);
    if (k > 1) {
        if (!buf_reserve(b, k - 1)) return;
        memmove(b->p + mark + k - 1, b->p + mark, len);
        b->len += k - 1;
    }
    memcpy(b->p + mark - 1, tmp, k);
}
