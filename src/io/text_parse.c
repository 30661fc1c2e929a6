/* text_parse.c — reads the text form printed by nnfx_graph_to_text (and
 * torch.fx's plain printed form) back into a graph.
 *
 * Grammar, one item a line (blank lines and other '#' lines are skipped):
 *
 *   header   := 'graph' '(' ... ')' ':'
 *   param    := '#' 'param' WORD ':' META            (zero tensor of that type)
 *   node     := '%' NAME ':' [TYPE] '[' ('num_users'|'#users') '=' INT ']' '='
 *               OPCODE '[' 'target' '=' WORD ']' [CALL] [SUFFIX]
 *   CALL     := '(' 'args' '=' '(' [ARG {',' ARG} [',']] ')' ','
 *                   'kwargs' '=' '{' [KEY ':' VALUE {',' KEY ':' VALUE}] '}' ')'
 *   return   := 'return' (RET | '(' [RET {',' RET} [',']] ')') [SUFFIX]
 *   ARG      := '%' NAME | INT | FLOAT | 'None' | 'True' | 'False'
 *   RET      := ARG | NAME
 *   VALUE    := INT | FLOAT | STRING | NAME (a string) | '[' nums ']' | '(' nums ')'
 *               | 'tensor' '(' META ')' | 'True' | 'False'
 *   SUFFIX   := '#' [META | '(' META {',' META} ')'] ['{' EXTRA {',' EXTRA} '}']
 *   EXTRA    := 'module' ':' WORD | 'source' ':' STRING    ("file:line")
 *   META     := '?' | DTYPE ['[' [DIM {',' DIM}] ']']      DIM := INT | '?' | WORD
 *   body     := NAME '=' 'graph' '(' ')' ':'   on the lines after a node whose
 *               kwargs hold `NAME: graph`, indented deeper than the node; the
 *               body's own lines follow, indented deeper still (If, Loop, Scan)
 *
 * WORD is bare or quoted as text_int.h says. Errors name the line and
 * column. Nothing here trusts the input: every read is bounded by the line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

#define TP_MAX_ARGS 65536
#define TP_MAX_LIST 65536

typedef struct tp {
    const char *line; /* start of the current line */
    const char *end;  /* end of the current line (no newline) */
    const char *p;    /* cursor */
    int lineno;
    nnfx_graph *g;
    nnfx_error *err;
    nnfx_status st;   /* first error */
    const char *next; /* start of the line after the current one */
    int depth;        /* nesting of subgraph bodies */
} tp;

/* Records "line L, column C: msg" (at == NULL: "line L: msg"); returns the status. */
static nnfx_status tp_fail(tp *s, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static nnfx_status tp_fail(tp *s, const char *at, const char *fmt, ...) {
    if (s->st) return s->st;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at)
        nnfx_error_set(s->err, NNFX_ERR_PARSE, "line %d, column %d: %s", s->lineno, (int)(at - s->line) + 1, msg);
    else
        nnfx_error_set(s->err, NNFX_ERR_PARSE, "line %d: %s", s->lineno, msg);
    s->st = NNFX_ERR_PARSE;
    return s->st;
}

/* Takes over an error from the IR layer, prefixed with the line. */
static nnfx_status tp_fail_ir(tp *s, nnfx_status st) {
    if (s->st) return s->st;
    nnfx_error_prefix(s->err, "line %d", s->lineno);
    s->st = st ? st : NNFX_ERR_PARSE;
    return s->st;
}

static nnfx_status tp_oom(tp *s) {
    if (!s->st) s->st = nnfx_error_set(s->err, NNFX_ERR_NOMEM, "line %d: out of memory", s->lineno);
    return s->st;
}

/* --- lexing -------------------------------------------------------------- */

static void skip_ws(tp *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r'))
        s->p++;
}

static bool at_end(tp *s) {
    skip_ws(s);
    return s->p >= s->end;
}

static bool peek(tp *s, char c) {
    skip_ws(s);
    return s->p < s->end && *s->p == c;
}

static bool accept(tp *s, char c) {
    if (!peek(s, c)) return false;
    s->p++;
    return true;
}

/* Expects c; the error says "expected 'c' <context>". */
static bool expect(tp *s, char c, const char *context) {
    if (accept(s, c)) return true;
    if (s->p >= s->end)
        tp_fail(s, s->p, "expected '%c' %s, found the end of the line", c, context);
    else
        tp_fail(s, s->p, "expected '%c' %s", c, context);
    return false;
}

static bool is_name_char(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Reads [A-Za-z0-9_]+ into buf (truncation is an error). */
static bool read_name(tp *s, char *buf, size_t len, const char *what) {
    skip_ws(s);
    const char *st = s->p;
    while (s->p < s->end && is_name_char((unsigned char)*s->p))
        s->p++;
    size_t n = (size_t)(s->p - st);
    if (n == 0) {
        tp_fail(s, st, "expected %s", what);
        return false;
    }
    if (n >= len) {
        tp_fail(s, st, "%s is too long (%zu characters, at most %zu)", what, n, len - 1);
        return false;
    }
    memcpy(buf, st, n);
    buf[n] = 0;
    return true;
}

/* True when the next token is the keyword kw (not followed by a name char). */
static bool accept_kw(tp *s, const char *kw) {
    skip_ws(s);
    size_t n = strlen(kw);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, kw, n) != 0) return false;
    if (s->p + n < s->end && is_name_char((unsigned char)s->p[n])) return false;
    s->p += n;
    return true;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads a quoted string ('...' or "...") into a malloc'd *out. */
static bool read_string(tp *s, char **out) {
    skip_ws(s);
    const char *st = s->p;
    char q = *s->p++;
    sbuf b = {0};
    for (;;) {
        if (s->p >= s->end) {
            free(sb_finish(&b));
            tp_fail(s, st, "unterminated string");
            return false;
        }
        char c = *s->p++;
        if (c == q) break;
        if (c != '\\') {
            sb_append(&b, &c, 1);
            continue;
        }
        if (s->p >= s->end) continue; /* reported as unterminated */
        const char *esc = s->p - 1;
        char e = *s->p++;
        switch (e) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case '\\':
        case '"':
        case '\'': c = e; break;
        case 'x': {
            int h = s->p + 1 < s->end ? hexval((unsigned char)s->p[0]) : -1;
            int l = h >= 0 ? hexval((unsigned char)s->p[1]) : -1;
            if (l < 0 || (h == 0 && l == 0)) {
                free(sb_finish(&b));
                tp_fail(s, esc, "bad \\x escape in string (two hex digits, not 00)");
                return false;
            }
            c = (char)(h * 16 + l);
            s->p += 2;
            break;
        }
        default:
            free(sb_finish(&b));
            tp_fail(s, esc, "unknown escape '\\%c' in string", e);
            return false;
        }
        sb_append(&b, &c, 1);
    }
    *out = sb_finish(&b);
    if (!*out) {
        tp_oom(s);
        return false;
    }
    return true;
}

/* Reads a bare word ([A-Za-z0-9_.:/+@-]+) or a quoted string; malloc'd. */
static bool read_word(tp *s, char **out, const char *what) {
    skip_ws(s);
    if (s->p < s->end && (*s->p == '"' || *s->p == '\'')) return read_string(s, out);
    const char *st = s->p;
    while (s->p < s->end && txt_is_bare_char((unsigned char)*s->p))
        s->p++;
    if (s->p == st) {
        tp_fail(s, st, "expected %s", what);
        return false;
    }
    size_t n = (size_t)(s->p - st);
    *out = malloc(n + 1);
    if (!*out) {
        tp_oom(s);
        return false;
    }
    memcpy(*out, st, n);
    (*out)[n] = 0;
    return true;
}

/* A number token: ints and floats (with '.', or an exponent), inf, nan. */
typedef struct tp_num {
    bool is_float;
    int64_t i;
    double f;
} tp_num;

/* True when a number starts at the cursor. */
static bool at_number(tp *s) {
    skip_ws(s);
    const char *q = s->p;
    if (q < s->end && (*q == '-' || *q == '+')) q++;
    if (q >= s->end) return false;
    if (*q >= '0' && *q <= '9') return true;
    if (*q == '.' && q + 1 < s->end && q[1] >= '0' && q[1] <= '9') return true;
    size_t left = (size_t)(s->end - q);
    for (int k = 0; k < 2; k++) {
        const char *kw = k ? "nan" : "inf";
        if (left >= 3 && memcmp(q, kw, 3) == 0 && (left == 3 || !is_name_char((unsigned char)q[3]))) return true;
    }
    return false;
}

static bool read_number(tp *s, tp_num *out) {
    skip_ws(s);
    const char *st = s->p, *q = s->p;
    bool neg = false;
    if (q < s->end && (*q == '-' || *q == '+')) neg = *q++ == '-';
    size_t left = (size_t)(s->end - q);
    if (left >= 3 && (memcmp(q, "inf", 3) == 0 || memcmp(q, "nan", 3) == 0)) {
        out->is_float = true;
        out->f = q[0] == 'i' ? (neg ? -HUGE_VAL : HUGE_VAL) : (double)NAN;
        s->p = q + 3;
        return true;
    }
    bool is_float = false, digits = false;
    while (q < s->end && *q >= '0' && *q <= '9')
        q++, digits = true;
    if (q < s->end && *q == '.') {
        is_float = true;
        q++;
        while (q < s->end && *q >= '0' && *q <= '9')
            q++, digits = true;
    }
    if (!digits) {
        tp_fail(s, st, "expected a number");
        return false;
    }
    if (q < s->end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < s->end && (*e == '-' || *e == '+')) e++;
        if (e >= s->end || *e < '0' || *e > '9') {
            tp_fail(s, q, "bad exponent in number");
            return false;
        }
        while (e < s->end && *e >= '0' && *e <= '9')
            e++;
        q = e;
        is_float = true;
    }
    if (q < s->end && (is_name_char((unsigned char)*q) || *q == '.')) {
        tp_fail(s, q, "unexpected '%c' in number", *q);
        return false;
    }
    char buf[128];
    size_t n = (size_t)(q - st);
    if (n >= sizeof buf) {
        tp_fail(s, st, "number too long");
        return false;
    }
    memcpy(buf, st, n);
    buf[n] = 0;
    errno = 0;
    out->is_float = is_float;
    if (is_float) {
        out->f = strtod(buf, NULL);
    } else {
        out->i = strtoll(buf, NULL, 10);
        if (errno == ERANGE) {
            tp_fail(s, st, "integer %s is out of range", buf);
            return false;
        }
    }
    s->p = q;
    return true;
}

/* --- meta ---------------------------------------------------------------- */

static bool read_meta(tp *s, nnfx_meta *m) {
    memset(m, 0, sizeof *m);
    m->rank = -1;
    if (accept(s, '?')) return true;
    skip_ws(s);
    const char *at = s->p;
    char dt[32];
    if (!read_name(s, dt, sizeof dt, "a dtype (float32, int64, ...) or '?'")) return false;
    m->dtype = nnfx_dtype_from_name(dt);
    if (m->dtype == NNFX_DTYPE_UNDEFINED && strcmp(dt, "undefined") != 0) {
        tp_fail(s, at, "unknown dtype '%s'", dt);
        return false;
    }
    if (!accept(s, '[')) return true;
    m->rank = 0;
    if (accept(s, ']')) return true;
    for (;;) {
        skip_ws(s);
        const char *dat = s->p;
        if (m->rank == NNFX_MAX_RANK) {
            tp_fail(s, dat, "more than %d dims", NNFX_MAX_RANK);
            return false;
        }
        nnfx_dim *d = &m->dims[m->rank++];
        d->value = -1;
        if (accept(s, '?')) {
        } else if (at_number(s)) {
            tp_num v;
            if (!read_number(s, &v)) return false;
            if (v.is_float || v.i < 0) {
                tp_fail(s, dat, "a dim must be a non-negative integer, a name or '?'");
                return false;
            }
            d->value = v.i;
        } else {
            char *w = NULL;
            if (!read_word(s, &w, "a dim (number, name or '?')")) return false;
            size_t n = strlen(w);
            if (n == 0 || n > NNFX_SYMBOL_MAX) {
                free(w);
                tp_fail(s, dat, "symbolic dim name must have 1 to %d characters", NNFX_SYMBOL_MAX);
                return false;
            }
            d->symbol = nnfx_symbol(w);
            free(w);
            if (!d->symbol) {
                tp_fail(s, dat, "out of memory");
                return false;
            }
        }
        if (accept(s, ']')) return true;
        if (!expect(s, ',', "or ']' in shape")) return false;
    }
}

/* --- parameters ------------------------------------------------------------- */

/* A zero tensor for meta (float32 when the dtype is unknown, a scalar when
 * the shape is unknown); reports a parse error at `at` when it cannot be made. */
static nnfx_tensor *zero_tensor(tp *s, const nnfx_meta *m, const char *at) {
    int64_t shape[NNFX_MAX_RANK];
    int rank = m->rank < 0 ? 0 : m->rank;
    for (int i = 0; i < rank; i++) {
        if (m->dims[i].value < 0) {
            tp_fail(s, at, "a parameter or tensor needs a static shape");
            return NULL;
        }
        shape[i] = m->dims[i].value;
    }
    nnfx_dtype dt = m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype;
    if (nnfx_shape_numel(rank, shape) < 0 || nnfx_shape_numel(rank, shape) > ((int64_t)1 << 40)) {
        tp_fail(s, at, "tensor shape too large");
        return NULL;
    }
    nnfx_error e = {0};
    nnfx_tensor *t = nnfx_tensor_new(dt, rank, shape, &e);
    if (!t) tp_fail(s, at, "cannot create a zero tensor: %s", e.msg);
    return t;
}

static void parse_param(tp *s) {
    skip_ws(s);
    const char *at = s->p;
    char *name = NULL;
    nnfx_meta m;
    if (!read_word(s, &name, "a parameter name")) return;
    if (!expect(s, ':', "after the parameter name")) goto out;
    skip_ws(s);
    const char *mat = s->p;
    if (!read_meta(s, &m)) goto out;
    if (!at_end(s)) {
        tp_fail(s, s->p, "unexpected text after the parameter declaration");
        goto out;
    }
    if (nnfx_graph_param(s->g, name)) {
        tp_fail(s, at, "parameter '%s' is declared twice", name);
        goto out;
    }
    nnfx_tensor *t = zero_tensor(s, &m, mat);
    if (!t) goto out;
    nnfx_status st = nnfx_graph_set_param(s->g, name, t, s->err);
    nnfx_tensor_release(t);
    if (st) tp_fail_ir(s, st);
out:
    free(name);
}

/* --- suffix ------------------------------------------------------------------ */

typedef struct tp_suffix {
    int nmeta; /* 0: none given */
    nnfx_meta meta[NNFX_MAX_RANK];
    char *module;
    char *src_file;
    int src_line;
    const char *at; /* where the metas start */
} tp_suffix;

static void suffix_free(tp_suffix *x) {
    free(x->module);
    free(x->src_file);
}

static bool parse_extras(tp *s, tp_suffix *x) {
    for (;;) {
        skip_ws(s);
        const char *kat = s->p;
        char key[32];
        if (!read_name(s, key, sizeof key, "'module' or 'source'")) return false;
        if (!expect(s, ':', "after the key")) return false;
        if (strcmp(key, "module") == 0 && !x->module) {
            if (!read_word(s, &x->module, "a module path")) return false;
        } else if (strcmp(key, "source") == 0 && !x->src_file) {
            skip_ws(s);
            const char *sat = s->p;
            char *loc = NULL;
            if (s->p >= s->end || (*s->p != '"' && *s->p != '\'')) {
                tp_fail(s, sat, "expected a quoted \"file:line\" after 'source:'");
                return false;
            }
            if (!read_string(s, &loc)) return false;
            char *colon = strrchr(loc, ':');
            char *endp = NULL;
            long line = colon ? strtol(colon + 1, &endp, 10) : -1;
            if (!colon || colon == loc || !endp || *endp || endp == colon + 1 || line < 0 || line > 0x7fffffffL) {
                free(loc);
                tp_fail(s, sat, "source must be \"file:line\"");
                return false;
            }
            *colon = 0;
            x->src_file = loc;
            x->src_line = (int)line;
        } else {
            tp_fail(s, kat, "unknown or repeated key '%s' (expected module or source)", key);
            return false;
        }
        if (accept(s, '}')) return true;
        if (!expect(s, ',', "or '}' after the value")) return false;
    }
}

/* Parses an optional "# ..." suffix up to the end of the line. */
static bool parse_suffix(tp *s, tp_suffix *x) {
    if (at_end(s)) return true;
    if (!accept(s, '#')) {
        tp_fail(s, s->p, "unexpected text after the node");
        return false;
    }
    skip_ws(s);
    x->at = s->p;
    if (at_end(s)) return true;
    if (accept(s, '(')) {
        for (;;) {
            if (x->nmeta == NNFX_MAX_RANK) {
                tp_fail(s, s->p, "more than %d outputs", NNFX_MAX_RANK);
                return false;
            }
            if (!read_meta(s, &x->meta[x->nmeta++])) return false;
            if (accept(s, ')')) break;
            if (!expect(s, ',', "or ')' in the output list")) return false;
        }
    } else if (!peek(s, '{')) {
        if (!read_meta(s, &x->meta[0])) return false;
        x->nmeta = 1;
    }
    if (accept(s, '{') && !parse_extras(s, x)) return false;
    if (!at_end(s)) {
        tp_fail(s, s->p, "unexpected text after the meta comment");
        return false;
    }
    return true;
}

/* Applies parsed metas, module path and source to n. */
static void apply_suffix(tp *s, nnfx_node *n, const tp_suffix *x) {
    if (x->nmeta > 0) {
        if (x->nmeta != n->nout) {
            bool variable =
                n->opcode == NNFX_CALL_MODULE || (n->opcode == NNFX_CALL_FUNCTION && ir_op_info(n->op)->outputs < 0);
            if (!variable) {
                tp_fail(s, x->at, "%s produces %d value%s, the comment lists %d", n->name, n->nout,
                        n->nout == 1 ? "" : "s", x->nmeta);
                return;
            }
            nnfx_status st = ir_node_set_num_outputs(n, x->nmeta, s->err);
            if (st) {
                tp_fail_ir(s, st);
                return;
            }
        }
        for (int i = 0; i < x->nmeta; i++)
            n->meta[i] = x->meta[i];
    }
    nnfx_status st = NNFX_OK;
    if (x->module) st = nnfx_node_set_module_path(n, x->module, s->err);
    if (!st && x->src_file) {
        nnfx_node_set_src(n, x->src_file, x->src_line);
        if (!n->src_file) st = nnfx_error_set(s->err, NNFX_ERR_NOMEM, "out of memory");
    }
    if (st) tp_fail_ir(s, st);
}

/* --- args and kwargs ----------------------------------------------------------- */

typedef struct tp_args {
    int n, cap;
    nnfx_arg *v;
} tp_args;

static bool args_push(tp *s, tp_args *a, nnfx_arg v) {
    if (a->n == TP_MAX_ARGS) {
        tp_fail(s, s->p, "too many arguments (at most %d)", TP_MAX_ARGS);
        return false;
    }
    if (a->n == a->cap) {
        int nc = a->cap ? a->cap * 2 : 8;
        nnfx_arg *nv = realloc(a->v, sizeof *nv * (size_t)nc);
        if (!nv) {
            tp_oom(s);
            return false;
        }
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = v;
    return true;
}

/* Looks up %name; bare names are allowed in return (FX prints them so). */
static bool read_arg(tp *s, nnfx_arg *out, bool bare_names) {
    skip_ws(s);
    const char *at = s->p;
    if (s->p >= s->end) {
        tp_fail(s, at, "expected an argument, found the end of the line");
        return false;
    }
    bool percent = *s->p == '%';
    if (percent || (bare_names && is_name_char((unsigned char)*s->p) && !at_number(s) &&
                    !(s->end - s->p >= 4 && memcmp(s->p, "None", 4) == 0 &&
                      (s->end - s->p == 4 || !is_name_char((unsigned char)s->p[4]))))) {
        if (percent) s->p++;
        char name[256];
        if (!read_name(s, name, sizeof name, "a node name after '%'")) return false;
        nnfx_node *n = nnfx_graph_find(s->g, name);
        if (!n || n->opcode == NNFX_OUTPUT) {
            tp_fail(s, at, "undefined value %%%s", name);
            return false;
        }
        *out = nnfx_arg_node(n);
        return true;
    }
    if (accept_kw(s, "None")) {
        *out = nnfx_arg_none();
        return true;
    }
    if (accept_kw(s, "True") || accept_kw(s, "False")) {
        *out = nnfx_arg_int(s->p[-1] == 'e' && s->p[-2] == 'u');
        return true;
    }
    if (at_number(s)) {
        tp_num v;
        if (!read_number(s, &v)) return false;
        *out = v.is_float ? nnfx_arg_float(v.f) : nnfx_arg_int(v.i);
        return true;
    }
    if (*s->p == '(' || *s->p == '[')
        tp_fail(s, at, "nested tuples and lists are not supported as arguments");
    else
        tp_fail(s, at, "expected an argument (%%name, a number or None)");
    return false;
}

/* '(' [ARG {',' ARG} [',']] ')' */
static bool parse_tuple(tp *s, tp_args *a, bool bare_names, const char *what) {
    if (!expect(s, '(', what)) return false;
    if (accept(s, ')')) return true;
    for (;;) {
        nnfx_arg v;
        if (!read_arg(s, &v, bare_names) || !args_push(s, a, v)) return false;
        if (accept(s, ')')) return true;
        if (!expect(s, ',', "or ')' after an argument")) return false;
        if (accept(s, ')')) return true;
    }
}

typedef struct tp_attrs {
    int n, cap;
    nnfx_attr *v; /* deep-owned (ir_attr_free) */
} tp_attrs;

static void attrs_free(tp_attrs *a) {
    for (int i = 0; i < a->n; i++)
        ir_attr_free(&a->v[i]);
    free(a->v);
}

/* Number list for an ints/floats attribute: '[' or '(' already consumed. */
static bool read_num_list(tp *s, char close, nnfx_attr_kind want, nnfx_attr *out) {
    int n = 0, cap = 0;
    tp_num *v = NULL;
    bool any_float = false;
    if (!accept(s, close)) {
        for (;;) {
            if (!at_number(s)) {
                free(v);
                tp_fail(s, s->p, "expected a number in the list");
                return false;
            }
            if (n == TP_MAX_LIST) {
                free(v);
                tp_fail(s, s->p, "list too long (at most %d)", TP_MAX_LIST);
                return false;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                tp_num *nv = realloc(v, sizeof *nv * (size_t)cap);
                if (!nv) {
                    free(v);
                    tp_oom(s);
                    return false;
                }
                v = nv;
            }
            if (!read_number(s, &v[n])) {
                free(v);
                return false;
            }
            any_float |= v[n++].is_float;
            if (accept(s, close)) break;
            if (!accept(s, ',')) {
                free(v);
                tp_fail(s, s->p, "expected ',' or '%c' in the list", close);
                return false;
            }
            if (accept(s, close)) break;
        }
    }
    bool floats = any_float || (n == 0 && want == NNFX_ATTR_FLOATS);
    if (floats) {
        float *f = malloc(sizeof *f * (size_t)(n ? n : 1));
        if (!f) goto oom;
        for (int i = 0; i < n; i++)
            f[i] = (float)(v[i].is_float ? v[i].f : (double)v[i].i);
        out->kind = NNFX_ATTR_FLOATS;
        out->u.floats.v = f;
        out->u.floats.n = n;
    } else {
        int64_t *iv = malloc(sizeof *iv * (size_t)(n ? n : 1));
        if (!iv) goto oom;
        for (int i = 0; i < n; i++)
            iv[i] = v[i].i;
        out->kind = NNFX_ATTR_INTS;
        out->u.ints.v = iv;
        out->u.ints.n = n;
    }
    free(v);
    return true;
oom:
    free(v);
    tp_oom(s);
    return false;
}

/* Reads one attribute value into out (name already set, owned parts malloc'd). */
static bool read_attr_value(tp *s, nnfx_attr *out, nnfx_attr_kind want, bool *skip) {
    skip_ws(s);
    const char *at = s->p;
    *skip = false;
    if (s->p >= s->end) {
        tp_fail(s, at, "expected a value, found the end of the line");
        return false;
    }
    if (at_number(s)) {
        tp_num v;
        if (!read_number(s, &v)) return false;
        if (v.is_float) {
            out->kind = NNFX_ATTR_FLOAT;
            out->u.f = v.f;
        } else {
            out->kind = NNFX_ATTR_INT;
            out->u.i = v.i;
        }
        return true;
    }
    if (*s->p == '"' || *s->p == '\'') {
        char *str = NULL;
        if (!read_string(s, &str)) return false;
        out->kind = NNFX_ATTR_STRING;
        out->u.s = str;
        return true;
    }
    if (accept(s, '[')) return read_num_list(s, ']', want, out);
    if (accept(s, '(')) return read_num_list(s, ')', want, out);
    if (accept_kw(s, "None")) {
        *skip = true;
        return true;
    }
    if (accept_kw(s, "True") || accept_kw(s, "False")) {
        out->kind = NNFX_ATTR_INT;
        out->u.i = s->p[-2] == 'u';
        return true;
    }
    if (accept_kw(s, "tensor")) {
        if (!expect(s, '(', "after 'tensor'")) return false;
        skip_ws(s);
        const char *mat = s->p;
        nnfx_meta m;
        if (!read_meta(s, &m) || !expect(s, ')', "after the tensor type")) return false;
        if (m.rank < 0) {
            tp_fail(s, mat, "a tensor attribute needs a shape, e.g. tensor(float32[2, 3])");
            return false;
        }
        nnfx_tensor *t = zero_tensor(s, &m, mat);
        if (!t) return false;
        out->kind = NNFX_ATTR_TENSOR;
        out->u.t = t;
        return true;
    }
    if (want == NNFX_ATTR_GRAPH && accept_kw(s, "graph")) { /* the body follows on the next lines */
        out->kind = NNFX_ATTR_GRAPH;
        out->u.g = NULL;
        return true;
    }
    if (is_name_char((unsigned char)*s->p)) { /* FX prints strings unquoted */
        char *w = NULL;
        if (!read_word(s, &w, "a value")) return false;
        out->kind = NNFX_ATTR_STRING;
        out->u.s = w;
        return true;
    }
    tp_fail(s, at, "expected a value (number, string, list or tensor(...))");
    return false;
}

static const char *kind_name(nnfx_attr_kind k) {
    switch (k) {
    case NNFX_ATTR_INT: return "an int";
    case NNFX_ATTR_FLOAT: return "a float";
    case NNFX_ATTR_STRING: return "a string";
    case NNFX_ATTR_INTS: return "a list of ints";
    case NNFX_ATTR_FLOATS: return "a list of floats";
    case NNFX_ATTR_TENSOR: return "a tensor";
    case NNFX_ATTR_GRAPH: return "a graph";
    }
    return "?";
}

/* '{' [KEY ':' VALUE {',' KEY ':' VALUE}] '}'; op checks names and kinds
 * against the op schema (NNFX_OP_NONE: any). */
static bool parse_kwargs(tp *s, tp_attrs *a, nnfx_op op) {
    if (!expect(s, '{', "to start kwargs")) return false;
    if (accept(s, '}')) return true;
    for (;;) {
        skip_ws(s);
        const char *kat = s->p;
        char *key = NULL;
        if (s->p < s->end && (*s->p == '"' || *s->p == '\'')) {
            if (!read_string(s, &key)) return false;
        } else {
            char buf[128];
            if (!read_name(s, buf, sizeof buf, "an attribute name")) return false;
            key = ir_strdup(buf);
            if (!key) {
                tp_oom(s);
                return false;
            }
        }
        nnfx_attr_kind want = NNFX_ATTR_INT;
        bool known = op == NNFX_OP_NONE || ir_schema_lookup(op, key, &want, NULL);
        for (int i = 0; known && i < a->n; i++)
            if (strcmp(a->v[i].name, key) == 0) {
                tp_fail(s, kat, "attribute '%s' is given twice", key);
                free(key);
                return false;
            }
        if (!known) {
            const char *schema = nnfx_op_attr_schema(op);
            tp_fail(s, kat, "%s has no attribute '%s' (schema: %s)", nnfx_op_name(op), key, *schema ? schema : "none");
            free(key);
            return false;
        }
        if (!expect(s, ':', "after the attribute name")) {
            free(key);
            return false;
        }
        skip_ws(s);
        const char *vat = s->p;
        nnfx_attr v = {0};
        bool skip;
        if (!read_attr_value(s, &v, op == NNFX_OP_NONE ? NNFX_ATTR_INTS : want, &skip)) {
            free(key);
            return false;
        }
        v.name = key;
        if (skip) {
            free(key);
        } else {
            bool ok = op == NNFX_OP_NONE || v.kind == want || (want == NNFX_ATTR_FLOAT && v.kind == NNFX_ATTR_INT) ||
                      (want == NNFX_ATTR_FLOATS && v.kind == NNFX_ATTR_INTS);
            if (!ok) {
                tp_fail(s, vat, "attribute '%s' of %s takes %s, not %s", key, nnfx_op_name(op), kind_name(want),
                        kind_name(v.kind));
                ir_attr_free(&v);
                return false;
            }
            if (a->n == a->cap) {
                int nc = a->cap ? a->cap * 2 : 8;
                nnfx_attr *nv = realloc(a->v, sizeof *nv * (size_t)nc);
                if (!nv) {
                    ir_attr_free(&v);
                    tp_oom(s);
                    return false;
                }
                a->v = nv;
                a->cap = nc;
            }
            a->v[a->n++] = v;
        }
        if (accept(s, '}')) return true;
        if (!expect(s, ',', "or '}' after an attribute")) return false;
    }
}

/* '(' 'args' '=' TUPLE ',' 'kwargs' '=' DICT ')' */
static bool parse_call(tp *s, tp_args *args, tp_attrs *attrs, nnfx_op op) {
    if (!expect(s, '(', "after the target (args = ..., kwargs = ...)")) return false;
    if (!accept_kw(s, "args")) {
        tp_fail(s, s->p, "expected 'args'");
        return false;
    }
    if (!expect(s, '=', "after 'args'") || !parse_tuple(s, args, false, "to start args")) return false;
    if (!expect(s, ',', "after args")) return false;
    if (!accept_kw(s, "kwargs")) {
        tp_fail(s, s->p, "expected 'kwargs'");
        return false;
    }
    if (!expect(s, '=', "after 'kwargs'") || !parse_kwargs(s, attrs, op)) return false;
    return expect(s, ')', "after kwargs");
}

/* --- lines ---------------------------------------------------------------------- */

static nnfx_status leaf_unavailable(void *user, int nin, nnfx_tensor *const *in, nnfx_tensor **out, nnfx_error *err) {
    return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED,
                          "leaf has no implementation in a parsed graph (register its function on the graph with "
                          "nnfx_graph_register_leaf)");
}

/* Renames n to the name written in the text (which must be free). */
static bool adopt_name(tp *s, nnfx_node *n, const char *name, const char *at) {
    nnfx_status st = nnfx_node_set_name(n, name, s->err);
    if (st) {
        tp_fail_ir(s, st);
        return false;
    }
    if (strcmp(n->name, name) != 0) {
        tp_fail(s, at, "'%s' is not a valid node name (it must not start with a digit)", name);
        return false;
    }
    return true;
}

/* Prepares getitem(src, k): checks k, widening variable-output ops. */
static bool check_getitem(tp *s, const tp_args *args, const char *at) {
    if (args->n != 2 || args->v[0].kind != NNFX_ARG_NODE || args->v[1].kind != NNFX_ARG_INT) {
        tp_fail(s, at, "getitem takes (%%node, index)");
        return false;
    }
    nnfx_node *src = args->v[0].u.node;
    int64_t k = args->v[1].u.i;
    if (k >= 0 && k < src->nout) return true;
    bool variable =
        src->opcode == NNFX_CALL_MODULE || (src->opcode == NNFX_CALL_FUNCTION && ir_op_info(src->op)->outputs < 0);
    if (k < 0 || k >= NNFX_MAX_RANK || !variable) {
        tp_fail(s, at, "getitem index %lld is out of range: %%%s has %d output%s", (long long)k, src->name, src->nout,
                src->nout == 1 ? "" : "s");
        return false;
    }
    nnfx_status st = ir_node_set_num_outputs(src, (int)k + 1, s->err);
    if (st) tp_fail_ir(s, st);
    return st == NNFX_OK;
}

/* Moves to the next line of the text; false at its end. */
static bool next_line(tp *s) {
    if (!s->next || !*s->next) return false;
    const char *p = s->next, *nl = strchr(p, '\n');
    s->line = s->p = p;
    s->end = nl ? nl : p + strlen(p);
    s->lineno++;
    s->next = nl ? nl + 1 : s->end;
    return true;
}

static int indent_of(const char *p, const char *end) {
    int k = 0;
    while (p + k < end && (p[k] == ' ' || p[k] == '\t'))
        k++;
    return k;
}

/* Indentation of the next line with text (-1 when there is none). */
static int next_indent(const tp *s) {
    for (const char *p = s->next; p && *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        int k = indent_of(p, end);
        const char *q = p + k;
        while (q < end && *q == '\r')
            q++;
        if (q < end) return k;
        p = nl ? nl + 1 : end;
    }
    return -1;
}

static void parse_lines(tp *s, int indent, bool top);
static void parse_header(tp *s);

/* The bodies of the graph attributes left pending on a node's line: each
 * `NAME = graph():` block on the following, deeper-indented lines. */
static bool parse_bodies(tp *s, tp_attrs *attrs, const char *at) {
    int ind = indent_of(s->line, s->end);
    for (;;) {
        int pending = 0;
        for (int i = 0; i < attrs->n; i++)
            pending += attrs->v[i].kind == NNFX_ATTR_GRAPH && !attrs->v[i].u.g;
        if (!pending) return true;
        if (next_indent(s) <= ind) {
            tp_fail(s, at, "expected the bodies of its graph attributes ('NAME = graph():') on the next lines");
            return false;
        }
        next_line(s);
        skip_ws(s);
        const char *bat = s->p;
        char name[128];
        if (!read_name(s, name, sizeof name, "a graph attribute name")) return false;
        nnfx_attr *a = NULL;
        for (int i = 0; i < attrs->n && !a; i++)
            if (attrs->v[i].kind == NNFX_ATTR_GRAPH && !attrs->v[i].u.g && strcmp(attrs->v[i].name, name) == 0)
                a = &attrs->v[i];
        if (!a) {
            tp_fail(s, bat, "'%s' is not a graph attribute of the node above waiting for its body", name);
            return false;
        }
        if (!expect(s, '=', "after the graph attribute name")) return false;
        if (!accept_kw(s, "graph") || !expect(s, '(', "after 'graph'") || !expect(s, ')', "after 'graph('") ||
            !expect(s, ':', "after 'graph()'"))
            return s->st ? false : (tp_fail(s, bat, "expected 'NAME = graph():'"), false);
        if (s->depth + 1 > IR_MAX_GRAPH_DEPTH) {
            tp_fail(s, bat, "graph bodies nested deeper than %d levels", IR_MAX_GRAPH_DEPTH);
            return false;
        }
        nnfx_graph *outer = s->g, *body = nnfx_graph_new();
        if (!body) {
            tp_oom(s);
            return false;
        }
        s->g = body;
        s->depth++;
        parse_lines(s, indent_of(s->line, s->end), false);
        s->depth--;
        s->g = outer;
        if (!s->st && !nnfx_graph_output_node(body)) tp_fail(s, bat, "the body of '%s' has no return line", name);
        if (s->st) {
            nnfx_graph_free(body);
            return false;
        }
        nnfx_inserting_at_end(body);
        a->u.g = body;
    }
}

/* Reads "NAME : [num_users=N] =" after a node's '%' (at: the '%'); an FX
 * type between ':' and '[' is skipped. False on error (reported). */
static bool parse_node_head(tp *s, const char *at, char *name, size_t len) {
    if (!read_name(s, name, len, "a node name after '%'")) return false;
    if (nnfx_graph_find(s->g, name)) {
        tp_fail(s, at, "node %%%s is defined twice", name);
        return false;
    }
    if (!expect(s, ':', "after the node name")) return false;
    skip_ws(s);
    if (s->p < s->end && *s->p != '[') { /* FX may print a type here: "%x : torch.Tensor [num_users=1]" */
        while (s->p < s->end && *s->p != '[')
            s->p++;
    }
    if (!expect(s, '[', "before num_users")) return false;
    if (!accept_kw(s, "num_users") && !accept(s, '#')) {
        tp_fail(s, s->p, "expected 'num_users'");
        return false;
    }
    if (s->p[-1] == '#' && !accept_kw(s, "users")) {
        tp_fail(s, s->p, "expected '#users'");
        return false;
    }
    tp_num users;
    if (!expect(s, '=', "after num_users")) return false;
    if (!at_number(s)) {
        tp_fail(s, s->p, "expected the number of users");
        return false;
    }
    return read_number(s, &users) && expect(s, ']', "after the number of users") && expect(s, '=', "before the opcode");
}

/* Reads "OPCODE[target=TARGET]": the opcode (*oc), the target (*target,
 * caller frees; *tat where it starts) and, for call_function, its op.
 * False on error (reported). */
static bool parse_opcode_target(tp *s, nnfx_opcode *oc, char **target, const char **tat, nnfx_op *op) {
    skip_ws(s);
    const char *oat = s->p;
    char opcode[32];
    if (!read_name(s, opcode, sizeof opcode, "an opcode")) return false;
    if (strcmp(opcode, "placeholder") == 0)
        *oc = NNFX_PLACEHOLDER;
    else if (strcmp(opcode, "get_attr") == 0)
        *oc = NNFX_GET_ATTR;
    else if (strcmp(opcode, "call_function") == 0)
        *oc = NNFX_CALL_FUNCTION;
    else if (strcmp(opcode, "call_module") == 0)
        *oc = NNFX_CALL_MODULE;
    else if (strcmp(opcode, "call_method") == 0) {
        tp_fail(s, oat, "call_method is not supported (in nnfx a method is a call_function)");
        return false;
    } else {
        tp_fail(s, oat, "unknown opcode '%s' (placeholder, get_attr, call_function or call_module)", opcode);
        return false;
    }
    if (!expect(s, '[', "after the opcode")) return false;
    if (!accept_kw(s, "target")) {
        tp_fail(s, s->p, "expected 'target'");
        return false;
    }
    if (!expect(s, '=', "after 'target'")) return false;
    skip_ws(s);
    *tat = s->p;
    if (!read_word(s, target, "a target") || !expect(s, ']', "after the target")) return false;
    *op = NNFX_OP_NONE;
    if (*oc != NNFX_CALL_FUNCTION) return true;
    *op = nnfx_op_find(*target);
    const char *dot = strrchr(*target, '.');
    if (*op == NNFX_OP_NONE && dot) *op = nnfx_op_find(dot + 1); /* "torch.relu", "operator.getitem" */
    if (*op == NNFX_OP_NONE) {
        tp_fail(s, NULL, "unknown op '%s'", *target);
        return false;
    }
    return true;
}

/* get_attr TARGET: the parameter, created (zeros of the comment's type,
 * x) when the text does not declare it. NULL on error. */
static nnfx_node *make_get_attr(tp *s, const char *target, const char *tat, const tp_suffix *x) {
    if (!nnfx_graph_param(s->g, target)) { /* not declared: create it from the comment's type */
        nnfx_meta m = {.rank = -1};
        if (x->nmeta == 1) m = x->meta[0];
        nnfx_tensor *t = zero_tensor(s, &m, x->at ? x->at : tat);
        if (!t) return NULL;
        nnfx_status st = nnfx_graph_set_param(s->g, target, t, s->err);
        nnfx_tensor_release(t);
        if (st) {
            tp_fail_ir(s, st);
            return NULL;
        }
    }
    return nnfx_graph_get_attr(s->g, target, s->err);
}

/* call_module TARGET(args, attrs): the leaf registered as unavailable when
 * the graph lacks it. NULL on error. */
static nnfx_node *make_call_module(tp *s, const char *target, const tp_args *args, const tp_attrs *attrs) {
    nnfx_status st = NNFX_OK;
    if (!ir_graph_leaf(s->g, target) &&
        (st = nnfx_graph_register_leaf(s->g, target, leaf_unavailable, NULL, NULL, s->err))) {
        tp_fail_ir(s, st);
        return NULL;
    }
    nnfx_node *n = nnfx_graph_call_module(s->g, target, args->n, args->v, s->err);
    for (int i = 0; n && i < attrs->n && !st; i++)
        st = nnfx_node_set_attr(n, &attrs->v[i], s->err);
    if (st) {
        tp_fail_ir(s, st);
        return NULL;
    }
    return n;
}

/* The node a parsed line describes, added to the graph; NULL on error
 * (reported here or by the caller from s->err). */
static nnfx_node *make_node(tp *s, nnfx_opcode oc, nnfx_op op, const char *target, const char *tat, const tp_args *args,
                            const tp_attrs *attrs, const tp_suffix *x) {
    nnfx_node *n = NULL;
    switch (oc) {
    case NNFX_PLACEHOLDER:
        n = nnfx_graph_placeholder(s->g, target, NULL, s->err);
        if (n && strcmp(n->target, target) != 0 && !ir_node_set_target(n, target)) { /* keep it as written */
            tp_fail_ir(s, nnfx_error_set(s->err, NNFX_ERR_NOMEM, "out of memory"));
            return NULL;
        }
        return n;
    case NNFX_GET_ATTR: return make_get_attr(s, target, tat, x);
    case NNFX_CALL_FUNCTION:
        if (op == NNFX_OP_GETITEM && !check_getitem(s, args, tat)) return NULL;
        n = nnfx_graph_call_op(s->g, op, args->n, args->v, attrs->n, attrs->v, s->err);
        if (n && op == NNFX_OP_GETITEM) n->meta[0] = args->v[0].u.node->meta[args->v[1].u.i];
        return n;
    case NNFX_CALL_MODULE: return make_call_module(s, target, args, attrs);
    case NNFX_OUTPUT: break;
    }
    return NULL;
}

/* One node line: "%NAME : [num_users=N] = OPCODE[target=T](args, attrs)
 * # meta", then the bodies of its graph attributes on the lines below. */
static void parse_node(tp *s) {
    const char *at = s->p; /* at '%' */
    s->p++;
    char name[256];
    tp_args args = {0};
    tp_attrs attrs = {0};
    tp_suffix x = {0};
    char *target = NULL;
    const char *tat = NULL;
    nnfx_opcode oc;
    nnfx_op op;
    if (!parse_node_head(s, at, name, sizeof name) || !parse_opcode_target(s, &oc, &target, &tat, &op)) goto out;
    if ((oc == NNFX_CALL_FUNCTION || oc == NNFX_CALL_MODULE) && !parse_call(s, &args, &attrs, op)) goto out;
    if (!parse_suffix(s, &x) || !parse_bodies(s, &attrs, at)) goto out;
    nnfx_node *n = make_node(s, oc, op, target, tat, &args, &attrs, &x);
    if (!n) {
        tp_fail_ir(s, s->err ? s->err->status : NNFX_ERR_PARSE); /* a no-op when already reported */
        goto out;
    }
    if (!adopt_name(s, n, name, at)) goto out;
    apply_suffix(s, n, &x);
out:
    free(target);
    free(args.v);
    attrs_free(&attrs);
    suffix_free(&x);
}

static void parse_return(tp *s) {
    const char *at = s->p;
    tp_args args = {0};
    tp_suffix x = {0};
    if (nnfx_graph_output_node(s->g)) {
        tp_fail(s, at, "a second return");
        goto out;
    }
    s->p += 6; /* "return" */
    if (peek(s, '(')) {
        if (!parse_tuple(s, &args, true, "")) goto out;
    } else if (!at_end(s) && !peek(s, '#')) {
        nnfx_arg v;
        if (!read_arg(s, &v, true) || !args_push(s, &args, v)) goto out;
    }
    if (!parse_suffix(s, &x)) goto out;
    nnfx_node *out = nnfx_graph_output(s->g, 0, NULL, s->err);
    if (!out) {
        tp_fail_ir(s, s->err ? s->err->status : NNFX_ERR_PARSE);
        goto out;
    }
    nnfx_status st = nnfx_node_set_args(out, args.n, args.v, s->err);
    if (st) {
        tp_fail_ir(s, st);
        goto out;
    }
    apply_suffix(s, out, &x);
out:
    free(args.v);
    suffix_free(&x);
}

/* The lines of one graph: the whole text (top, from its 'graph():' line),
 * or a body's lines, those indented deeper than indent. */
static void parse_lines(tp *s, int indent, bool top) {
    bool header = !top, returned = false;
    while (!s->st && (top || next_indent(s) > indent) && next_line(s)) {
        if (at_end(s)) continue;
        if (*s->p == '#') {
            s->p++;
            if (accept_kw(s, "param")) {
                if (!header)
                    tp_fail(s, s->line, "expected 'graph():' before parameter declarations");
                else
                    parse_param(s);
            }
            continue;
        }
        if (!header) {
            parse_header(s);
            header = true;
            continue;
        }
        if (returned) {
            tp_fail(s, s->p, "unexpected text after the return line");
            break;
        }
        if (*s->p == '%') {
            parse_node(s);
        } else if (accept_kw(s, "return")) {
            s->p -= 6;
            parse_return(s);
            returned = true;
        } else {
            tp_fail(s, s->p, "expected a node ('%%name : ...'), 'return' or a comment");
        }
    }
    if (top && !s->st && !header) {
        nnfx_error_set(s->err, NNFX_ERR_PARSE, "line %d: empty text: expected 'graph():'", s->lineno + 1);
        s->st = NNFX_ERR_PARSE;
    }
}

/* "graph" "(" anything ")" ":" */
static void parse_header(tp *s) {
    if (!accept_kw(s, "graph")) {
        tp_fail(s, s->p, "expected 'graph():' first");
        return;
    }
    if (!expect(s, '(', "after 'graph'")) return;
    while (s->p < s->end && *s->p != ')')
        s->p++;
    if (!expect(s, ')', "to close 'graph('") || !expect(s, ':', "after 'graph()'")) return;
    if (!at_end(s)) tp_fail(s, s->p, "unexpected text after 'graph():'");
}

nnfx_graph *nnfx_graph_parse(const char *text, nnfx_error *err) {
    if (!text) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "graph_parse: NULL text");
        return NULL;
    }
    nnfx_error local = {0};
    tp s = {.err = err ? err : &local};
    s.g = nnfx_graph_new();
    if (!s.g) {
        nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s.next = text;
    parse_lines(&s, -1, true);
    if (s.st) {
        nnfx_graph_free(s.g);
        return NULL;
    }
    nnfx_inserting_at_end(s.g);
    return s.g;
}
