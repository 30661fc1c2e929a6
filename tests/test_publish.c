/* test_publish.c — the publishing layer's pure parts: SHA-256 against the
 * FIPS 180-2 test vectors, the JSON reader on what registries send (and on
 * malformed input), OCI reference parsing. The protocol itself is tested
 * against a real registry in tests/publish/test_registry.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "publish/publish.h"

static void test_sha256_vectors(void **state) {
    char hex[PUB_SHA256_HEX];
    assert_true(pub_sha256_buf("abc", 3, hex));
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_true(pub_sha256_buf("", 0, hex));
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_true(pub_sha256_buf(m, strlen(m), hex));
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* streamed in pieces: the same digest */
    pub_sha256 *h = pub_sha256_new();
    for (size_t i = 0; i < strlen(m); i += 5)
        pub_sha256_update(h, m + i, strlen(m) - i < 5 ? strlen(m) - i : 5);
    pub_sha256_final(h, hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_json_manifest(void **state) {
    const char *t =
        "{\"schemaVersion\": 2, \"layers\": [{\"mediaType\": \"application/vnd.onnx.model\", "
        "\"size\": 17214, \"annotations\": {\"org.opencontainers.image.title\": \"a\\u00e9\\ud83d\\ude00.onnx\"}}],"
        " \"ok\": true, \"none\": null, \"neg\": -1.5e2}";
    nnfx_error err = {0};
    pub_json *j = pub_json_parse(t, strlen(t), &err);
    assert_non_null(j);
    const pub_json *layers = pub_json_get(j, "layers");
    assert_non_null(layers);
    assert_int_equal(layers->kind, PUB_JARR);
    assert_int_equal(layers->n, 1);
    assert_string_equal(pub_json_str(layers->items[0], "mediaType"), "application/vnd.onnx.model");
    assert_true(pub_json_get(layers->items[0], "size")->num == 17214);
    /* \u00e9 is two UTF-8 bytes, the surrogate pair U+1F600 four */
    assert_string_equal(pub_json_str(pub_json_get(layers->items[0], "annotations"), "org.opencontainers.image.title"),
                        "a\xc3\xa9\xf0\x9f\x98\x80.onnx");
    assert_int_equal(pub_json_get(j, "ok")->kind, PUB_JBOOL);
    assert_int_equal(pub_json_get(j, "none")->kind, PUB_JNULL);
    assert_true(pub_json_get(j, "neg")->num == -150.0);
    assert_null(pub_json_get(j, "absent"));
    assert_null(pub_json_str(j, "schemaVersion")); /* a number, not a string */
    pub_json_free(j);
}

static void test_json_malformed(void **state) {
    const char *bad[] = {"",      "{",        "{\"a\" 1}", "[1,]",     "{\"a\":1}x",
                         "\"abc", "\"\\x\"",  "\"\\u12\"", "tru",      "{1: 2}",
                         "[1 2]", "\"a\nb\"", "-",         "{\"a\":}", "[\"\\ud800\\u0041\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nnfx_error err = {0};
        pub_json *j = pub_json_parse(bad[i], strlen(bad[i]), &err);
        if (j) fail_msg("accepted malformed JSON #%zu: %s", i, bad[i]);
        assert_int_equal(err.status, NNFX_ERR_PARSE);
        assert_non_null(strstr(err.msg, "at byte"));
    }
    /* nesting is limited (no stack overflow on hostile input) */
    char deep[400];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 200);
    nnfx_error err = {0};
    assert_null(pub_json_parse(deep, sizeof deep, &err));
    assert_non_null(strstr(err.msg, "nested too deeply"));
    /* a big array grows correctly */
    char big[4000] = "[";
    for (int i = 0; i < 500; i++)
        strcat(big, i ? ",7" : "7");
    strcat(big, "]");
    pub_json *j = pub_json_parse(big, strlen(big), &err);
    assert_non_null(j);
    assert_int_equal(j->n, 500);
    assert_true(j->items[499]->num == 7);
    pub_json_free(j);
}

static void test_ref_parse(void **state) {
    pub_ref r;
    nnfx_error err = {0};
    assert_int_equal(pub_ref_parse("localhost:5000/team/digits:v1", &r, &err), NNFX_OK);
    assert_string_equal(r.host, "localhost:5000");
    assert_string_equal(r.repo, "team/digits");
    assert_string_equal(r.tag, "v1");
    assert_false(r.is_digest);
    assert_int_equal(pub_ref_parse("ghcr.io/org/model", &r, &err), NNFX_OK);
    assert_string_equal(r.tag, "latest");
    const char *d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char s[200];
    snprintf(s, sizeof s, "127.0.0.1:5000/m@%s", d);
    assert_int_equal(pub_ref_parse(s, &r, &err), NNFX_OK);
    assert_true(r.is_digest);
    assert_string_equal(r.tag, d);
    const char *bad[] = {
        "team/digits:v1",     "digits", "/x", "localhost:5000/Upper:v1", "localhost:5000/m:", "localhost/m@sha256:12",
        "localhost/m:bad/tag"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nnfx_error e = {0};
        if (pub_ref_parse(bad[i], &r, &e) == NNFX_OK) fail_msg("accepted bad reference %s", bad[i]);
        assert_true(e.msg[0] != '\0');
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_json_manifest),
        cmocka_unit_test(test_json_malformed),
        cmocka_unit_test(test_ref_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
