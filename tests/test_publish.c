/* test_publish.c — the publishing layer's pure parts: SHA-256 against the
 * FIPS 180-2 test vectors, the JSON reader on what registries send (and on
 * malformed input), OCI reference parsing, and the client's defences:
 * origins of URLs and Locations, WWW-Authenticate parameters, header-value
 * and display escaping with redaction, exact manifest sizes, the pull plan
 * and the all-or-nothing commit. The protocol itself is tested against a
 * real registry in tests/publish/test_registry.sh and a hostile one in
 * tests/publish/test_hostile_registry.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void test_url_origin(void **state) {
    char o[256];
    assert_true(pub_url_origin("http://127.0.0.1:5000/v2/m/blobs/x", o, sizeof o));
    assert_string_equal(o, "http://127.0.0.1:5000");
    /* the default port made explicit, host and scheme lowercased */
    assert_true(pub_url_origin("HTTPS://GHCR.io/v2/", o, sizeof o));
    assert_string_equal(o, "https://ghcr.io:443");
    assert_true(pub_url_origin("http://localhost/x", o, sizeof o));
    assert_string_equal(o, "http://localhost:80");
    /* user info, other schemes, control bytes, relative: refused */
    const char *bad[] = {"http://user:pw@127.0.0.1/",
                         "http://user@127.0.0.1/",
                         "ftp://127.0.0.1/",
                         "file:///etc/x",
                         "/v2/x",
                         "http://127.0.0.1/a\r\nX: y",
                         "http://127.0.0.1/a b",
                         "",
                         "http://"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (pub_url_origin(bad[i], o, sizeof o)) fail_msg("accepted %s as %s", bad[i], o);
    /* parsed as libcurl parses: the backslash trick does not hide a host */
    if (pub_url_origin("http://127.0.0.1:5000\\@evil.example/", o, sizeof o))
        assert_string_not_equal(o, "http://127.0.0.1:5000");
}

static void test_resolve_location(void **state) {
    char u[512], o[256];
    const char *base = "http://127.0.0.1:5000/v2/m/blobs/uploads/";
    assert_true(pub_resolve_location(base, "/v2/m/blobs/uploads/abc?state=1", u, sizeof u));
    assert_string_equal(u, "http://127.0.0.1:5000/v2/m/blobs/uploads/abc?state=1");
    assert_true(pub_resolve_location(base, "abc", u, sizeof u));
    assert_string_equal(u, "http://127.0.0.1:5000/v2/m/blobs/uploads/abc");
    /* another origin stays another origin */
    assert_true(pub_resolve_location(base, "http://localhost:5000/x", u, sizeof u));
    assert_true(pub_url_origin(u, o, sizeof o));
    assert_string_equal(o, "http://localhost:5000");
    assert_true(pub_resolve_location(base, "//127.0.0.1:6000/x", u, sizeof u));
    assert_true(pub_url_origin(u, o, sizeof o));
    assert_string_equal(o, "http://127.0.0.1:6000");
    const char *bad[] = {"", "http://a/\r\nX: y", "ftp://127.0.0.1/x", "http://u:p@127.0.0.1/", "javascript:x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (pub_resolve_location(base, bad[i], u, sizeof u)) fail_msg("accepted Location %s as %s", bad[i], u);
    /* too long for the buffer: refused, not cut */
    assert_false(pub_resolve_location(base, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", u, 40));
}

static void test_challenge(void **state) {
    char v[128];
    const char *ch = "Bearer realm=\"https://auth.example/token\",service=\"registry.example\","
                     "scope=\"repository:a/b:pull\"";
    assert_true(pub_challenge_param(ch, "realm", v, sizeof v));
    assert_string_equal(v, "https://auth.example/token");
    assert_true(pub_challenge_param(ch, "service", v, sizeof v));
    assert_string_equal(v, "registry.example");
    assert_true(pub_challenge_param(ch, "SCOPE", v, sizeof v));
    assert_string_equal(v, "repository:a/b:pull");
    assert_false(pub_challenge_param(ch, "error", v, sizeof v));
    /* a key inside another parameter's quoted value is not a parameter */
    assert_true(
        pub_challenge_param("Bearer service=\"x,realm=http://evil/\", realm=\"https://good/t\"", "realm", v, sizeof v));
    assert_string_equal(v, "https://good/t");
    /* quoted-pair, tokens without quotes, spaces around = */
    assert_true(pub_challenge_param("Bearer realm = \"a\\\"b\" , service=svc", "realm", v, sizeof v));
    assert_string_equal(v, "a\"b");
    assert_true(pub_challenge_param("Bearer realm = \"a\\\"b\" , service=svc", "service", v, sizeof v));
    assert_string_equal(v, "svc");
    /* a second challenge in the same header ends the first one's parameters */
    assert_true(pub_challenge_param("Bearer realm=\"https://a/t\", Basic realm=\"b\"", "realm", v, sizeof v));
    assert_string_equal(v, "https://a/t");
    assert_false(pub_challenge_param("Bearer service=\"s\", Basic realm=\"b\"", "realm", v, sizeof v));
    assert_string_equal(v, "");
    /* junk after a value, unterminated, too long for the buffer: nothing */
    assert_false(pub_challenge_param("Bearer realm=\"x\"y", "realm", v, sizeof v));
    assert_string_equal(v, "");
    assert_false(pub_challenge_param("Bearer realm=\"https://x", "realm", v, sizeof v));
    assert_false(pub_challenge_param("Bearer realm=\"0123456789\"", "realm", v, 8));
    assert_string_equal(v, "");
}

static void test_header_safe_and_show(void **state) {
    assert_true(pub_header_safe("eyJhbGciOi.JIUzI1-_~+/=", false));
    assert_false(pub_header_safe("tok\r\nX-Injected: yes", false));
    assert_false(pub_header_safe("tok\x7f", false));
    assert_false(pub_header_safe("t\xc3\xa9", false));
    assert_false(pub_header_safe("a b", false));
    assert_true(pub_header_safe("a b", true));
    char out[128];
    const char *evil = "\x1b]0;pwned\x07\x1b[31mred\\ \xc2\x9b";
    pub_show(NULL, evil, strlen(evil), out, sizeof out);
    assert_string_equal(out, "\\x1b]0;pwned\\x07\\x1b[31mred\\x5c \\xc2\\x9b");
    /* truncated with "...", always NUL-terminated */
    pub_show(NULL, "0123456789", 10, out, 8);
    assert_string_equal(out, "0123...");
    pub_show(NULL, "\x1b\x1b\x1b", 3, out, 6);
    assert_true(strlen(out) < 6);
    assert_null(strchr(out, '\x1b'));
}

static void test_redaction(void **state) {
    pub_ref ref;
    nnfx_error err = {0};
    assert_int_equal(pub_ref_parse("127.0.0.1:1/m:v1", &ref, &err), NNFX_OK);
    pub_client_options o = {.plain_http = true, .username = "ci", .password = "s3cret-pw"};
    pub_client *c = pub_client_new(&ref, &o, &err);
    assert_non_null(c);
    char out[256], msg[256];
    const char *echo = "denied: password s3cret-pw\x1b[2J";
    pub_show(c, echo, strlen(echo), out, sizeof out);
    assert_string_equal(out, "denied: password [redacted]\\x1b[2J");
    snprintf(msg, sizeof msg, "x s3cret-pw y\r\n");
    pub_scrub_message(c, msg, sizeof msg);
    assert_string_equal(msg, "x [redacted] y??");
    pub_client_free(c);
    /* control bytes in a login are refused before anything is sent */
    pub_client_options bad = {.plain_http = true, .username = "ci\r\nX: y", .password = "pw"};
    memset(&err, 0, sizeof err);
    assert_null(pub_client_new(&ref, &bad, &err));
    assert_int_equal(err.status, NNFX_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "control byte"));
    pub_client_options bad2 = {.plain_http = true, .username = "ci", .password = "pw\n"};
    memset(&err, 0, sizeof err);
    assert_null(pub_client_new(&ref, &bad2, &err));
}

static void test_json_size(void **state) {
    const char *good[] = {"0", "1000", "9007199254740992", "1e3", "17214.0"};
    const uint64_t want[] = {0, 1000, (uint64_t)1 << 53, 1000, 17214};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        nnfx_error err = {0};
        pub_json *j = pub_json_parse(good[i], strlen(good[i]), &err);
        uint64_t v = 1;
        assert_true(pub_json_size(j, &v));
        assert_true(v == want[i]);
        pub_json_free(j);
    }
    const char *bad[] = {"1e999", "-1e999", "-1", "1000.5", "9007199254740994", "1e300", "\"5\"", "null", "-0.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nnfx_error err = {0};
        pub_json *j = pub_json_parse(bad[i], strlen(bad[i]), &err);
        uint64_t v = 7;
        if (pub_json_size(j, &v)) fail_msg("accepted size %s", bad[i]);
        assert_true(v == 7);
        pub_json_free(j);
    }
}

static void test_manifest_plan(void **state) {
    char d1[72] = "sha256:", d2[72] = "sha256:";
    memset(d1 + 7, 'a', 64);
    memset(d2 + 7, 'b', 64);
    d1[71] = d2[71] = '\0';
    char t[1024];
    snprintf(t, sizeof t,
             "{\"layers\": [{\"mediaType\": \"application/vnd.onnx.model.external-data\", \"digest\": \"%s\", "
             "\"size\": 5, \"annotations\": {\"org.opencontainers.image.title\": \"m.onnx.data\"}}, "
             "{\"mediaType\": \"application/vnd.onnx.model\", \"digest\": \"%s\", \"size\": 7}]}",
             d1, d2);
    nnfx_error err = {0};
    pub_json *j = pub_json_parse(t, strlen(t), &err);
    pub_pull_plan p;
    assert_int_equal(pub_manifest_plan(j, "out.onnx", 100, &p, &err), NNFX_OK);
    assert_int_equal(p.n, 2);
    assert_false(p.layers[0].model);
    assert_string_equal(p.layers[0].title, "m.onnx.data");
    assert_true(p.layers[0].size == 5);
    assert_true(p.layers[1].model); /* the model last */
    assert_string_equal(p.layers[1].digest, d2);
    /* over max_size; the data titled as -o */
    assert_int_equal(pub_manifest_plan(j, "out.onnx", 6, &p, &err), NNFX_ERR_PARSE);
    assert_non_null(strstr(err.msg, "--max-size"));
    assert_int_equal(pub_manifest_plan(j, "m.onnx.data", 100, &p, &err), NNFX_ERR_PARSE);
    pub_json_free(j);
    /* unsafe titles and digests */
    const char *titles[] = {"../x", "a/b", "..", "", "a\\\\b", "a\\u001bb"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
        snprintf(t, sizeof t,
                 "{\"layers\": [{\"mediaType\": \"application/vnd.onnx.model.external-data\", \"digest\": \"%s\", "
                 "\"size\": 5, \"annotations\": {\"org.opencontainers.image.title\": \"%s\"}}, "
                 "{\"mediaType\": \"application/vnd.onnx.model\", \"digest\": \"%s\", \"size\": 7}]}",
                 d1, titles[i], d2);
        j = pub_json_parse(t, strlen(t), &err);
        assert_non_null(j);
        if (pub_manifest_plan(j, "out.onnx", 100, &p, &err) == NNFX_OK) fail_msg("accepted title %s", titles[i]);
        pub_json_free(j);
    }
    const char *digests[] = {"sha256:ABCDEF", "sha512:aa", "sha256:../../../../../../../../../../../../../../../../x"};
    for (size_t i = 0; i < sizeof digests / sizeof digests[0]; i++) {
        snprintf(t, sizeof t,
                 "{\"layers\": [{\"mediaType\": \"application/vnd.onnx.model\", \"digest\": \"%s\", "
                 "\"size\": 7}]}",
                 digests[i]);
        j = pub_json_parse(t, strlen(t), &err);
        assert_int_equal(pub_manifest_plan(j, "out.onnx", 100, &p, &err), NNFX_ERR_PARSE);
        pub_json_free(j);
    }
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path) {
    static char buf[256];
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_commit_all(void **state) {
    char dir[] = "nnfx_commit_XXXXXX"; /* in the test's working folder */
    assert_non_null(mkdtemp(dir));
    char a[128], b[128], ta[160], tb[160];
    snprintf(a, sizeof a, "%s/m.onnx", dir);
    snprintf(b, sizeof b, "%s/sub", dir); /* a folder: its rename fails */
    write_file(a, "OLD");
    assert_int_equal(mkdir(b, 0700), 0);
    int fa = pub_temp_create(a, ta, sizeof ta), fb = pub_temp_create(b, tb, sizeof tb);
    assert_true(fa >= 0 && fb >= 0);
    assert_int_equal(write(fa, "NEW", 3), 3);
    close(fa);
    close(fb);
    char *tmps[2] = {ta, tb};
    const char *targets[2] = {a, b};
    nnfx_error err = {0};
    assert_int_equal(pub_commit_all(tmps, targets, 2, &err), NNFX_ERR_IO);
    /* nothing changed, no temporary or backup left */
    assert_string_equal(slurp(a), "OLD");
    assert_int_equal(access(ta, F_OK), -1);
    assert_int_equal(access(tb, F_OK), -1);
    rmdir(b);
    /* the second target unwritable after the first was renamed: rolled back */
    snprintf(b, sizeof b, "%s/nodir/x", dir);
    fa = pub_temp_create(a, ta, sizeof ta);
    assert_true(fa >= 0);
    assert_int_equal(write(fa, "NEW", 3), 3);
    close(fa);
    snprintf(tb, sizeof tb, "%s/absent.tmp", dir);
    assert_int_equal(pub_commit_all(tmps, targets, 2, &err), NNFX_ERR_IO);
    assert_string_equal(slurp(a), "OLD");
    assert_int_equal(access(ta, F_OK), -1);
    /* success replaces */
    fa = pub_temp_create(a, ta, sizeof ta);
    assert_int_equal(write(fa, "NEW", 3), 3);
    close(fa);
    assert_int_equal(pub_commit_all(tmps, targets, 1, &err), NNFX_OK);
    assert_string_equal(slurp(a), "NEW");
    unlink(a);
    assert_int_equal(rmdir(dir), 0); /* empty: no backup left behind */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors), cmocka_unit_test(test_json_manifest),
        cmocka_unit_test(test_json_malformed), cmocka_unit_test(test_ref_parse),
        cmocka_unit_test(test_url_origin),     cmocka_unit_test(test_resolve_location),
        cmocka_unit_test(test_challenge),      cmocka_unit_test(test_header_safe_and_show),
        cmocka_unit_test(test_redaction),      cmocka_unit_test(test_json_size),
        cmocka_unit_test(test_manifest_plan),  cmocka_unit_test(test_commit_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
