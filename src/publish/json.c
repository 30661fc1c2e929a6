/* json.c — a small JSON reader for what a registry sends back (manifests,
 * token responses, error bodies) and ~/.docker/config.json. Builds a tree;
 * strings are decoded (\uXXXX to UTF-8, surrogate pairs joined). */
#include <stdlib.h>
#include <string.h>

#include "publish/publish.h"

typedef struct jp {
    const char *s;
    size_t len, i;
    nnfx_error *err;
    bool failed;
} jp;

static pub_json *fail(jp *p, const char *what) {
    if (!p->failed)
        nnfx_error_set(p->err, strcmp(what, "out of memory") == 0 ? NNFX_ERR_NOMEM : NNFX_ERR_PARSE,
                       "JSON: %s at byte %zu", what, p->i);
    p->failed = true;
    return NULL;
}

static void ws(jp *p) {
    while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static void put_utf8(char *o, size_t *k, unsigned cp) {
    if (cp < 0x80) {
        o[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (char)(0xC0 | (cp >> 6));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xE0 | (cp >> 12));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | (cp >> 18));
        o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static bool hex4(jp *p, unsigned *v) {
    if (p->i + 4 > p->len) return false;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15) return false;
        *v = *v * 16 + d;
    }
    return true;
}

/* Reads a string at p->i (the opening quote); malloc'd. */
static char *str(jp *p) {
    p->i++;
    size_t start = p->i;
    while (p->i < p->len && p->s[p->i] != '"') {
        if (p->s[p->i] == '\\') p->i++;
        p->i++;
    }
    if (p->i >= p->len) return fail(p, "unterminated string"), NULL;
    char *o = malloc(p->i - start + 1);
    if (!o) return fail(p, "out of memory"), NULL;
    size_t k = 0;
    p->i = start;
    while (p->s[p->i] != '"') {
        char c = p->s[p->i++];
        if ((unsigned char)c < 0x20) {
            free(o);
            return fail(p, "control character in a string"), NULL;
        }
        if (c != '\\') {
            o[k++] = c;
            continue;
        }
        c = p->s[p->i++];
        switch (c) {
        case '"': o[k++] = '"'; break;
        case '\\': o[k++] = '\\'; break;
        case '/': o[k++] = '/'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (!hex4(p, &cp)) goto bad;
            if (cp >= 0xD800 && cp < 0xDC00 && p->i + 6 <= p->len && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
                p->i += 2;
                if (!hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) goto bad;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(o, &k, cp); /* at most 4 bytes for 6+ bytes of input */
            break;
        }
        default: goto bad;
        }
    }
    p->i++;
    o[k] = '\0';
    return o;
bad:
    free(o);
    return fail(p, "bad escape in a string"), NULL;
}

static pub_json *value(jp *p, int depth);

static bool push(pub_json *j, char *key, pub_json *item) {
    if (j->n == 0 || (j->n >= 4 && (j->n & (j->n - 1)) == 0)) { /* capacity 4, 8, 16... */
        size_t nc = j->n ? (size_t)j->n * 2 : 4;
        pub_json **ni = realloc(j->items, nc * sizeof *ni);
        if (!ni) return false;
        j->items = ni;
        if (j->kind == PUB_JOBJ) {
            char **nk = realloc(j->keys, nc * sizeof *nk);
            if (!nk) return false;
            j->keys = nk;
        }
    }
    if (j->kind == PUB_JOBJ) j->keys[j->n] = key;
    j->items[j->n++] = item;
    return true;
}

static pub_json *value(jp *p, int depth) {
    ws(p);
    if (p->i >= p->len) return fail(p, "unexpected end");
    if (depth > 64) return fail(p, "nested too deeply");
    pub_json *j = calloc(1, sizeof *j);
    if (!j) return fail(p, "out of memory");
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        j->kind = c == '{' ? PUB_JOBJ : PUB_JARR;
        char close = c == '{' ? '}' : ']';
        p->i++;
        ws(p);
        if (p->i < p->len && p->s[p->i] == close) {
            p->i++;
            return j;
        }
        for (;;) {
            char *key = NULL;
            ws(p);
            if (j->kind == PUB_JOBJ) {
                if (p->i >= p->len || p->s[p->i] != '"') goto bad_key;
                if (!(key = str(p))) goto err;
                ws(p);
                if (p->i >= p->len || p->s[p->i] != ':') {
                    free(key);
                    fail(p, "expected ':'");
                    goto err;
                }
                p->i++;
            }
            pub_json *item = value(p, depth + 1);
            if (!item || !push(j, key, item)) {
                free(key);
                pub_json_free(item);
                if (!p->failed) fail(p, "out of memory");
                goto err;
            }
            ws(p);
            if (p->i < p->len && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->len && p->s[p->i] == close) {
                p->i++;
                return j;
            }
            fail(p, j->kind == PUB_JOBJ ? "expected ',' or '}'" : "expected ',' or ']'");
            goto err;
        }
    bad_key:
        fail(p, "expected a member name");
        goto err;
    }
    if (c == '"') {
        j->kind = PUB_JSTR;
        if (!(j->str = str(p))) goto err;
        return j;
    }
    static const struct {
        const char *w;
        pub_jkind k;
        double v;
    } words[] = {{"true", PUB_JBOOL, 1}, {"false", PUB_JBOOL, 0}, {"null", PUB_JNULL, 0}};
    for (size_t w = 0; w < 3; w++) {
        size_t n = strlen(words[w].w);
        if (p->i + n <= p->len && memcmp(p->s + p->i, words[w].w, n) == 0) {
            p->i += n;
            j->kind = words[w].k;
            j->num = words[w].v;
            return j;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char buf[64];
        size_t n = 0;
        while (p->i < p->len && n < sizeof buf - 1 && strchr("+-0123456789.eE", p->s[p->i]))
            buf[n++] = p->s[p->i++];
        buf[n] = '\0';
        char *end;
        j->kind = PUB_JNUM;
        j->num = strtod(buf, &end);
        if (*end) {
            fail(p, "bad number");
            goto err;
        }
        return j;
    }
    fail(p, "unexpected character");
err:
    pub_json_free(j);
    return NULL;
}

pub_json *pub_json_parse(const char *text, size_t len, nnfx_error *err) {
    jp p = {text, len, 0, err, false};
    pub_json *j = value(&p, 0);
    if (!j) return NULL;
    ws(&p);
    if (p.i != p.len) {
        pub_json_free(j);
        fail(&p, "trailing characters");
        return NULL;
    }
    return j;
}

void pub_json_free(pub_json *j) {
    if (!j) return;
    for (int i = 0; i < j->n; i++) {
        if (j->keys) free(j->keys[i]);
        pub_json_free(j->items[i]);
    }
    free(j->keys);
    free(j->items);
    free(j->str);
    free(j);
}

const pub_json *pub_json_get(const pub_json *j, const char *key) {
    if (!j || j->kind != PUB_JOBJ) return NULL;
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->keys[i], key) == 0) return j->items[i];
    return NULL;
}

const char *pub_json_str(const pub_json *j, const char *key) {
    const pub_json *v = pub_json_get(j, key);
    return v && v->kind == PUB_JSTR ? v->str : NULL;
}
