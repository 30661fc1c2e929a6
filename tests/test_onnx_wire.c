/* test_onnx_wire.c — the protobuf wire reader and writer: round trips,
 * bounds checks and error offsets on malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/onnx_wire.h"
#include "testutil.h"

static void test_varint_round_trip(void **state) {
    (void)state;
    const uint64_t vals[] = {0,
                             1,
                             127,
                             128,
                             300,
                             16383,
                             16384,
                             UINT32_MAX,
                             (uint64_t)INT64_MAX,
                             UINT64_MAX,
                             (uint64_t)-1LL,
                             (uint64_t)-12345LL};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        ow_buf b = {0};
        ow_put_varint(&b, vals[i]);
        assert_false(b.oom);
        uint64_t v = 0;
        assert_int_equal(ow_decode_varint(b.p, b.len, &v), b.len);
        assert_true(v == vals[i]);
        /* every proper prefix is truncated */
        for (size_t cut = 0; cut < b.len; cut++)
            assert_int_equal(ow_decode_varint(b.p, cut, &v), 0);
        ow_buf_free(&b);
    }
    /* 11-byte varint and a 10th byte > 1 are malformed */
    uint8_t bad[11];
    memset(bad, 0xff, sizeof bad);
    uint64_t v;
    assert_int_equal(ow_decode_varint(bad, sizeof bad, &v), 0);
    bad[9] = 0x02;
    assert_int_equal(ow_decode_varint(bad, sizeof bad, &v), 0);
}

/* Builds { 1: 150, 2: "hi", 3: { 4: fixed32 7, 5: 300 bytes }, 6: packed [1,-2,300] } */
static ow_buf build_sample(void) {
    ow_buf b = {0};
    ow_put_uint(&b, 1, 150);
    ow_put_string(&b, 2, "hi");
    size_t m = ow_begin_msg(&b, 3);
    ow_put_float(&b, 4, 1.5f);
    uint8_t big[300];
    memset(big, 0xab, sizeof big);
    ow_put_bytes(&b, 5, big, sizeof big);
    ow_end_msg(&b, m);
    int64_t ints[] = {1, -2, 300};
    ow_put_packed_int64(&b, 6, ints, 3);
    return b;
}

static void test_read_back(void **state) {
    (void)state;
    ow_buf b = build_sample();
    assert_false(b.oom);
    nnfx_error err = {0};
    ow_reader r = ow_reader_init(b.p, b.len, "sample", &err);
    ow_field f;
    int seen = 0;
    while (ow_next(&r, &f) > 0) {
        switch (f.num) {
        case 1:
            assert_int_equal(f.v, 150);
            seen |= 1;
            break;
        case 2: {
            char *s;
            assert_int_equal(ow_string(&r, &f, &s), NNFX_OK);
            assert_string_equal(s, "hi");
            free(s);
            seen |= 2;
            break;
        }
        case 3: {
            ow_reader sub;
            assert_int_equal(ow_sub(&r, &f, &sub), NNFX_OK);
            ow_field g;
            assert_int_equal(ow_next(&sub, &g), 1);
            assert_int_equal(g.wire, OW_I32);
            float x;
            uint32_t u = (uint32_t)g.v;
            memcpy(&x, &u, 4);
            assert_true(x == 1.5f);
            assert_int_equal(ow_next(&sub, &g), 1);
            assert_int_equal(g.len, 300);
            assert_int_equal(g.data[299], 0xab);
            assert_int_equal(ow_next(&sub, &g), 0);
            seen |= 4;
            break;
        }
        case 6: {
            assert_int_equal(ow_count_varints(&r, &f), 3);
            int64_t v[3];
            assert_int_equal(ow_get_varints(&r, &f, v), NNFX_OK);
            assert_true(v[0] == 1 && v[1] == -2 && v[2] == 300);
            seen |= 8;
            break;
        }
        default: fail();
        }
    }
    assert_int_equal(seen, 15);
    assert_int_equal(err.status, NNFX_OK);
    ow_buf_free(&b);
}

/* Every truncation of a valid message either parses a prefix cleanly or
 * fails with a parse error naming a byte offset inside the buffer. */
static int walk_all(ow_reader *r) {
    ow_field f;
    int rc;
    while ((rc = ow_next(r, &f)) > 0) {
        if (f.wire == OW_LEN && f.num == 3) {
            ow_reader sub;
            if (ow_sub(r, &f, &sub)) return -1;
            if (walk_all(&sub) < 0) return -1;
        }
    }
    return rc;
}

static void test_truncations(void **state) {
    (void)state;
    ow_buf b = build_sample();
    int failures = 0;
    for (size_t cut = 0; cut < b.len; cut++) {
        nnfx_error err = {0};
        ow_reader r = ow_reader_init(b.p, cut, "cut.onnx", &err);
        if (walk_all(&r) < 0) {
            failures++;
            assert_int_equal(err.status, NNFX_ERR_PARSE);
            assert_non_null(strstr(err.msg, "cut.onnx: "));
            assert_non_null(strstr(err.msg, " at byte "));
        }
    }
    assert_true(failures > 0);
    ow_buf_free(&b);
}

static void test_errors(void **state) {
    (void)state;
    nnfx_error err = {0};
    /* length past the end: field 2, LEN, length 100, 3 bytes of data */
    const uint8_t past[] = {0x12, 0x64, 'a', 'b', 'c'};
    ow_reader r = ow_reader_init(past, sizeof past, "m.onnx", &err);
    ow_field f;
    assert_int_equal(ow_next(&r, &f), -1);
    assert_non_null(strstr(err.msg, "runs past the end"));
    assert_non_null(strstr(err.msg, "at byte 1"));

    /* truncated varint in a value */
    const uint8_t tv[] = {0x08, 0x80, 0x80};
    r = ow_reader_init(tv, sizeof tv, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), -1);
    assert_string_equal(err.msg, "m.onnx: truncated varint (field value) at byte 1");

    /* groups are rejected */
    const uint8_t grp[] = {0x0b};
    r = ow_reader_init(grp, sizeof grp, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), -1);
    assert_non_null(strstr(err.msg, "wire type 3"));

    /* field number 0 */
    const uint8_t zero[] = {0x00, 0x00};
    r = ow_reader_init(zero, sizeof zero, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), -1);

    /* packed fixed32 with a length that is not a multiple of 4 */
    const uint8_t pk[] = {0x22, 0x03, 1, 2, 3};
    r = ow_reader_init(pk, sizeof pk, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), 1);
    assert_int_equal(ow_count_fixed(&r, &f, 4), -1);
    assert_non_null(strstr(err.msg, "not a multiple of 4"));

    /* embedded NUL in a string */
    const uint8_t nul[] = {0x12, 0x02, 'a', 0};
    r = ow_reader_init(nul, sizeof nul, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), 1);
    char *s = NULL;
    assert_int_equal(ow_string(&r, &f, &s), NNFX_ERR_PARSE);
    assert_null(s);

    /* empty buffer: no fields, no error */
    r = ow_reader_init(NULL, 0, "m.onnx", &err);
    assert_int_equal(ow_next(&r, &f), 0);
}

static void test_depth_limit(void **state) {
    (void)state;
    /* 100 nested messages of field 3 */
    ow_buf b = {0};
    size_t marks[100];
    for (int i = 0; i < 100; i++)
        marks[i] = ow_begin_msg(&b, 3);
    ow_put_uint(&b, 1, 1);
    for (int i = 99; i >= 0; i--)
        ow_end_msg(&b, marks[i]);
    assert_false(b.oom);
    nnfx_error err = {0};
    ow_reader r = ow_reader_init(b.p, b.len, "deep.onnx", &err);
    assert_int_equal(walk_all(&r), -1);
    assert_non_null(strstr(err.msg, "nested deeper than"));
    ow_buf_free(&b);
}

static void test_long_message_length(void **state) {
    (void)state;
    /* a nested message over 2^21 bytes needs a 4-byte length prefix */
    ow_buf b = {0};
    size_t m = ow_begin_msg(&b, 7);
    size_t n = (1u << 21) + 5;
    uint8_t *blob = calloc(1, n);
    ow_put_bytes(&b, 9, blob, n);
    ow_end_msg(&b, m);
    free(blob);
    assert_false(b.oom);
    nnfx_error err = {0};
    ow_reader r = ow_reader_init(b.p, b.len, "big", &err);
    ow_field f, g;
    assert_int_equal(ow_next(&r, &f), 1);
    ow_reader sub;
    assert_int_equal(ow_sub(&r, &f, &sub), NNFX_OK);
    assert_int_equal(ow_next(&sub, &g), 1);
    assert_int_equal(g.len, n);
    assert_int_equal(ow_next(&r, &f), 0);
    ow_buf_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_round_trip), cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_truncations),       cmocka_unit_test(test_errors),
        cmocka_unit_test(test_depth_limit),       cmocka_unit_test(test_long_message_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
