/* onnx_wire.h — protobuf wire format: a zero-copy reader and a growable
 * writer, enough for ONNX's ModelProto and TensorProto (io/ layer only).
 *
 * Why hand-written: protobuf-c copies every bytes field (a model's weights
 * would be duplicated in memory before we could map them) and the C++
 * runtime refuses messages over 2 GB. This reader hands out pointers into
 * the caller's buffer (usually a mapped file), so initializer data can be
 * used in place, and it has no size limit beyond size_t.
 *
 * Reading: an ow_reader walks the fields of one message. Every length is
 * checked against the end of the enclosing message, nesting depth is
 * bounded (OW_MAX_DEPTH) and every error names the absolute byte offset in
 * the buffer, e.g. "model.onnx: truncated varint at byte 1234".
 *
 *     ow_reader r = ow_reader_init(buf, size, "model.onnx", err);
 *     ow_field f;
 *     int rc;
 *     while ((rc = ow_next(&r, &f)) > 0) {
 *         if (f.num == 7 && f.wire == OW_LEN) { ow_reader sub; ow_sub(&r, &f, &sub); ... }
 *     }
 *     if (rc < 0) return err->status;   // err already set
 */
#ifndef NNFX_ONNX_WIRE_H
#define NNFX_ONNX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nnfx.h"

/* Wire types. */
enum { OW_VARINT = 0, OW_I64 = 1, OW_LEN = 2, OW_SGROUP = 3, OW_EGROUP = 4, OW_I32 = 5 };

/* Deepest message nesting the reader accepts (ModelProto -> GraphProto ->
 * NodeProto -> AttributeProto -> TensorProto is 5; types nest further). */
#define OW_MAX_DEPTH 32

typedef struct ow_reader {
    const uint8_t *base; /* start of the whole buffer (offsets are relative to it) */
    size_t pos, end;     /* current position and end of this message              */
    int depth;           /* nesting depth of this message (0: top level)           */
    const char *what;    /* name for messages ("model.onnx", "<buffer>")           */
    nnfx_error *err;
} ow_reader;

typedef struct ow_field {
    uint32_t num;        /* field number                                  */
    int wire;            /* OW_VARINT, OW_I64, OW_LEN or OW_I32            */
    uint64_t v;          /* value of VARINT / I64 / I32 fields             */
    const uint8_t *data; /* payload of LEN fields (points into the buffer) */
    size_t len;          /* its length                                     */
    size_t off;          /* byte offset of the payload (or value) in base  */
    size_t tag_off;      /* byte offset of the field's tag                 */
} ow_field;

/* A reader over buf[0..size); what names the source in errors (borrowed). */
ow_reader ow_reader_init(const void *buf, size_t size, const char *what, nnfx_error *err);
/* Reads the next field of r into *f. Returns 1 when a field was read, 0 at
 * the end of the message, -1 on malformed input (err set with the offset).
 * Groups (deprecated wire types 3/4) are rejected. */
int ow_next(ow_reader *r, ow_field *f);
/* A reader over the payload of LEN field f (read from r); fails with an
 * error when nesting would exceed OW_MAX_DEPTH. Returns NNFX_OK or the status. */
nnfx_status ow_sub(const ow_reader *r, const ow_field *f, ow_reader *sub);
/* Sets the reader's error: "<what>: <message> at byte <off>". Returns the status. */
nnfx_status ow_fail(const ow_reader *r, nnfx_status s, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Copies LEN field f into a new NUL-terminated string (*out, malloc'd);
 * embedded NULs are rejected. Returns NNFX_OK or the status. */
nnfx_status ow_string(const ow_reader *r, const ow_field *f, char **out);
/* Checks that f has wire type `wire` (an error naming the field and the
 * offset otherwise). */
nnfx_status ow_expect(const ow_reader *r, const ow_field *f, int wire, const char *field_name);

/* Repeated scalar fields arrive packed (one LEN field) or one by one. These
 * count / decode the elements of one occurrence f:
 *   ow_count_*  number of elements in f (1 for an unpacked field), -1 on error
 *   ow_get_*    writes them to out (room for ow_count_* elements)          */
int64_t ow_count_varints(const ow_reader *r, const ow_field *f);
nnfx_status ow_get_varints(const ow_reader *r, const ow_field *f, int64_t *out);
int64_t ow_count_fixed(const ow_reader *r, const ow_field *f, int width);
nnfx_status ow_get_fixed32(const ow_reader *r, const ow_field *f, uint32_t *out);
nnfx_status ow_get_fixed64(const ow_reader *r, const ow_field *f, uint64_t *out);

/* Decodes one varint from p[0..n); returns bytes used, 0 when truncated or
 * longer than 10 bytes. */
size_t ow_decode_varint(const uint8_t *p, size_t n, uint64_t *v);

/* --- Writer ---------------------------------------------------------------- */

/* A growable output buffer. Allocation failures are sticky: `oom` is set,
 * later writes do nothing, and the caller checks it once at the end. */
typedef struct ow_buf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} ow_buf;

/* Frees the buffer's memory and resets it. */
void ow_buf_free(ow_buf *b);
/* Appends raw bytes. */
void ow_put_raw(ow_buf *b, const void *data, size_t n);
void ow_put_varint(ow_buf *b, uint64_t v);
void ow_put_tag(ow_buf *b, uint32_t num, int wire);
/* Field helpers: tag + value. */
void ow_put_uint(ow_buf *b, uint32_t num, uint64_t v); /* VARINT          */
void ow_put_int(ow_buf *b, uint32_t num, int64_t v);   /* VARINT (int64)  */
void ow_put_float(ow_buf *b, uint32_t num, float v);   /* I32             */
void ow_put_bytes(ow_buf *b, uint32_t num, const void *data, size_t n);
void ow_put_string(ow_buf *b, uint32_t num, const char *s); /* skipped if NULL */
/* Packed repeated fields. */
void ow_put_packed_int64(ow_buf *b, uint32_t num, const int64_t *v, size_t n);
void ow_put_packed_float(ow_buf *b, uint32_t num, const float *v, size_t n);
/* Starts an embedded message field; returns a mark for ow_end_msg. */
size_t ow_begin_msg(ow_buf *b, uint32_t num);
/* Ends the message begun at mark (writes its length prefix). */
void ow_end_msg(ow_buf *b, size_t mark);

#endif
