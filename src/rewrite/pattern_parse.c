/* pattern_parse.c — the pattern language ("relu(x) -> leaky_relu(x,
 * alpha=0.1)") parsed into a pattern graph and a replacement graph, and
 * nnfx_rewrite_text, which applies a rule. Grammar in nnfx.h and
 * docs/patterns.md. Errors name the 1-based column. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ir/ir_int.h"
#include "ir/op_table.h"
#include "core/sbuf.h"
#include "rewrite/rewrite_int.h"

typedef enum tok_kind {
    T_END,
    T_IDENT,
    T_NUMBER,
    T_STRING,
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
    T_EQ,
    T_LBRACK,
    T_RBRACK,
    T_ARROW,
    T_STARSTAR, /* ** (copy a matched node's attributes) */
    T_BAD
} tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *s; /* start in the rule */
    int len;
    int col; /* 1-based */
} tok;

#define PP_MAX_WILDCARDS 64

typedef struct pp {
    const char *text;
    size_t pos;
    tok t;            /* current token */
    nnfx_graph *g;    /* graph being built */
    bool replacement; /* wildcards must already exist */
    nnfx_graph *pat;  /* the pattern, while the replacement is parsed */
    int nw;
    char *wname[PP_MAX_WILDCARDS];
    nnfx_node *wnode[PP_MAX_WILDCARDS]; /* placeholder in g */
    nnfx_error *err;
} pp;

static void next(pp *p) {
    const char *s = p->text;
    while (s[p->pos] && isspace((unsigned char)s[p->pos]))
        p->pos++;
    tok t = {T_END, s + p->pos, 0, (int)p->pos + 1};
    char c = s[p->pos];
    if (!c) {
        p->t = t;
        return;
    }
    size_t start = p->pos;
    if (isalpha((unsigned char)c) || c == '_') {
        while (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_')
            p->pos++;
        t.kind = T_IDENT;
    } else if (isdigit((unsigned char)c) || ((c == '-' || c == '+' || c == '.') &&
                                             (isdigit((unsigned char)s[p->pos + 1]) || s[p->pos + 1] == '.'))) {
        char *end;
        strtod(s + p->pos, &end);
        if (end == s + p->pos) end = (char *)s + p->pos + 1;
        p->pos = (size_t)(end - s);
        t.kind = T_NUMBER;
    } else if (c == '-' && s[p->pos + 1] == '>') {
        p->pos += 2;
        t.kind = T_ARROW;
    } else if (c == '"' || c == '\'') {
        p->pos++;
        while (s[p->pos] && s[p->pos] != c)
            p->pos++;
        if (s[p->pos] == c) {
            p->pos++;
            t.kind = T_STRING;
        } else {
            t.kind = T_BAD;
        }
    } else {
        p->pos++;
        switch (c) {
        case '(': t.kind = T_LPAREN; break;
        case ')': t.kind = T_RPAREN; break;
        case ',': t.kind = T_COMMA; break;
        case '=': t.kind = T_EQ; break;
        case '[': t.kind = T_LBRACK; break;
        case ']': t.kind = T_RBRACK; break;
        case '*':
            t.kind = s[p->pos] == '*' ? T_STARSTAR : T_BAD;
            if (t.kind == T_STARSTAR) p->pos++;
            break;
        default: t.kind = T_BAD; break;
        }
    }
    t.len = (int)(p->pos - start);
    p->t = t;
}

static nnfx_status perr(pp *p, int col, const char *what, const char *extra) {
    return nnfx_error_set(p->err, NNFX_ERR_PARSE, "pattern: column %d: %s%s", col, what, extra ? extra : "");
}

static bool tok_is(const tok *t, const char *word) {
    return t->kind == T_IDENT && (int)strlen(word) == t->len && strncmp(t->s, word, (size_t)t->len) == 0;
}

static void tok_text(const tok *t, char *buf, size_t len) {
    size_t n = (size_t)t->len < len - 1 ? (size_t)t->len : len - 1;
    memcpy(buf, t->s, n);
    buf[n] = 0;
}

/* The placeholder for wildcard name (created in the pattern graph). */
static nnfx_status wildcard(pp *p, const tok *t, nnfx_arg *out) {
    char name[128];
    tok_text(t, name, sizeof name);
    for (int i = 0; i < p->nw; i++)
        if (strcmp(p->wname[i], name) == 0) {
            *out = nnfx_arg_node(p->wnode[i]);
            return NNFX_OK;
        }
    if (p->replacement) {
        char msg[200];
        snprintf(msg, sizeof msg, "'%s' is not a wildcard of the pattern", name);
        return perr(p, t->col, msg, NULL);
    }
    if (p->nw == PP_MAX_WILDCARDS) return perr(p, t->col, "too many wildcards", NULL);
    nnfx_node *n = nnfx_graph_placeholder(p->g, name, NULL, p->err);
    if (!n) return p->err ? p->err->status : NNFX_ERR_NOMEM;
    p->wname[p->nw] = ir_strdup(name);
    if (!p->wname[p->nw]) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
    p->wnode[p->nw++] = n;
    *out = nnfx_arg_node(n);
    return NNFX_OK;
}

static bool number_value(const tok *t, bool *is_int, int64_t *iv, double *fv) {
    char buf[64];
    tok_text(t, buf, sizeof buf);
    char *end;
    *fv = strtod(buf, &end);
    if (*end) return false;
    *is_int = !strpbrk(buf, ".eEnN");
    if (*is_int) *iv = strtoll(buf, NULL, 10);
    return true;
}

/* An attribute value of the schema kind. Arrays go in *ints / *floats
 * (caller frees). */
static nnfx_status attr_value(pp *p, nnfx_op op, const char *name, int col, nnfx_attr *a, int64_t **ints,
                              float **floats) {
    nnfx_attr_kind kind;
    if (!ir_schema_lookup(op, name, &kind, NULL)) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s has no attribute '%s' (schema: %s)", nnfx_op_name(op), name,
                 nnfx_op_attr_schema(op)[0] ? nnfx_op_attr_schema(op) : "none");
        return perr(p, col, msg, NULL);
    }
    a->kind = kind;
    bool is_int;
    int64_t iv = 0;
    double fv = 0;
    switch (kind) {
    case NNFX_ATTR_INT:
    case NNFX_ATTR_FLOAT:
        if (p->t.kind != T_NUMBER || !number_value(&p->t, &is_int, &iv, &fv))
            return perr(p, p->t.col, "expected a number", NULL);
        if (kind == NNFX_ATTR_INT) {
            if (!is_int) return perr(p, p->t.col, "expected an integer for ", name);
            a->u.i = iv;
        } else {
            a->u.f = fv;
        }
        next(p);
        return NNFX_OK;
    case NNFX_ATTR_STRING: {
        if (p->t.kind != T_STRING && p->t.kind != T_IDENT) return perr(p, p->t.col, "expected a string", NULL);
        tok t = p->t;
        int off = t.kind == T_STRING ? 1 : 0;
        char *s = malloc((size_t)t.len + 1);
        if (!s) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
        memcpy(s, t.s + off, (size_t)(t.len - 2 * off));
        s[t.len - 2 * off] = 0;
        a->u.s = s;
        next(p);
        return NNFX_OK;
    }
    case NNFX_ATTR_INTS:
    case NNFX_ATTR_FLOATS: {
        bool list = p->t.kind == T_LBRACK;
        if (list) next(p);
        int n = 0, cap = 8;
        int64_t *iv_arr = kind == NNFX_ATTR_INTS ? malloc(sizeof *iv_arr * (size_t)cap) : NULL;
        float *fv_arr = kind == NNFX_ATTR_FLOATS ? malloc(sizeof *fv_arr * (size_t)cap) : NULL;
        if (kind == NNFX_ATTR_INTS)
            *ints = iv_arr;
        else
            *floats = fv_arr;
        if (!iv_arr && !fv_arr) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
        while (!(list && p->t.kind == T_RBRACK)) {
            if (p->t.kind != T_NUMBER || !number_value(&p->t, &is_int, &iv, &fv))
                return perr(p, p->t.col, "expected a number", NULL);
            if (kind == NNFX_ATTR_INTS && !is_int) return perr(p, p->t.col, "expected an integer", NULL);
            if (n == cap) {
                cap *= 2;
                void *nv = kind == NNFX_ATTR_INTS ? realloc(iv_arr, sizeof *iv_arr * (size_t)cap)
                                                  : realloc(fv_arr, sizeof *fv_arr * (size_t)cap);
                if (!nv) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
                if (kind == NNFX_ATTR_INTS)
                    *ints = iv_arr = nv;
                else
                    *floats = fv_arr = nv;
            }
            if (kind == NNFX_ATTR_INTS)
                iv_arr[n++] = iv;
            else
                fv_arr[n++] = (float)fv;
            next(p);
            if (!list) break;
            if (p->t.kind == T_COMMA)
                next(p);
            else if (p->t.kind != T_RBRACK)
                return perr(p, p->t.col, "expected ']'", NULL);
        }
        if (list) next(p);
        if (kind == NNFX_ATTR_INTS) {
            a->u.ints.v = iv_arr;
            a->u.ints.n = n;
        } else {
            a->u.floats.v = fv_arr;
            a->u.floats.n = n;
        }
        return NNFX_OK;
    }
    case NNFX_ATTR_TENSOR: return perr(p, col, "tensor attributes cannot be written in a pattern: ", name);
    case NNFX_ATTR_GRAPH: return perr(p, col, "graph attributes cannot be written in a pattern: ", name);
    }
    return perr(p, col, "unsupported attribute kind", NULL);
}

#define PP_MAX_ARGS  64
#define PP_MAX_ATTRS 16

static nnfx_status parse_expr(pp *p, nnfx_arg *out);

/* Names other frameworks use. `op` set: an exact synonym, accepted; else
 * only a hint for the error message. */
static const struct {
    const char *name;
    nnfx_op op;
    const char *hint;
} op_aliases[] = {
    {"clamp", NNFX_OP_CLIP, "clip(x, min, max)"},
    {"clamp_", NNFX_OP_CLIP, "clip(x, min, max)"},
    {"batch_norm", NNFX_OP_BATCH_NORM, "batch_normalization(x, scale, bias, mean, var)"},
    {"layer_norm", NNFX_OP_LAYER_NORM, "layer_normalization(x, scale, bias)"},
    {"hardtanh", NNFX_OP_NONE, "clip(x, -1.0, 1.0)"},
    {"relu6", NNFX_OP_NONE, "clip(x, 0.0, 6.0)"},
    {"silu", NNFX_OP_NONE, "mul(x, sigmoid(x))"},
    {"swish", NNFX_OP_NONE, "mul(x, sigmoid(x))"},
    {"linear", NNFX_OP_NONE, "gemm(x, w, b, transB=1)"},
    {"dense", NNFX_OP_NONE, "gemm(x, w, b, transB=1)"},
    {"conv2d", NNFX_OP_CONV, "conv(x, w, b)"},
    {"maxpool2d", NNFX_OP_MAX_POOL, "max_pool(x, kernel_shape=[2, 2])"},
    {"view", NNFX_OP_NONE, "reshape(x, shape)"},
    {"permute", NNFX_OP_NONE, "transpose(x, perm=[...])"},
    {"cat", NNFX_OP_CONCAT, "concat(a, b, axis=1)"},
};

/* Edit distance of a and b, capped (for "did you mean"). */
static int edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

/* The op for name, through the aliases; NNFX_OP_NONE with an error that
 * says what to write instead. */
static nnfx_op find_op(pp *p, const char *name, int col, nnfx_status *st) {
    nnfx_op op = nnfx_op_find(name);
    if (op != NNFX_OP_NONE) return op;
    char msg[256];
    for (size_t i = 0; i < sizeof op_aliases / sizeof op_aliases[0]; i++) {
        if (strcasecmp(op_aliases[i].name, name) != 0) continue;
        if (op_aliases[i].op != NNFX_OP_NONE) return op_aliases[i].op;
        snprintf(msg, sizeof msg, "unknown op '%s' (nnfx has no %s; write %s)", name, name, op_aliases[i].hint);
        *st = perr(p, col, msg, NULL);
        return NNFX_OP_NONE;
    }
    const char *best = NULL;
    int bd = 3;
    for (int i = 0; i < NNFX_OP_COUNT; i++) {
        const char *cand = nnfx_op_name((nnfx_op)i);
        if (!cand || !cand[0]) continue;
        int dd = edit_distance(name, cand);
        if (dd < bd) {
            bd = dd;
            best = cand;
        }
    }
    if (best)
        snprintf(msg, sizeof msg, "unknown op '%s' (did you mean '%s'?)", name, best);
    else
        snprintf(msg, sizeof msg, "unknown op '%s'", name);
    *st = perr(p, col, msg, NULL);
    return NNFX_OP_NONE;
}

/* op "(" args ")" — the current token is "(" after the op name t. */
/* The pieces of one call being parsed (parse_call). */
typedef struct call_parts {
    nnfx_op op;
    nnfx_arg args[PP_MAX_ARGS];
    nnfx_attr attrs[PP_MAX_ATTRS];
    int64_t *ints[PP_MAX_ATTRS];
    float *floats[PP_MAX_ATTRS];
    int nargs, nattrs;
    /* clip's bounds are inputs; min=/max= (PyTorch's clamp) are accepted and
     * become those inputs */
    nnfx_arg clip_min, clip_max;
    bool clip_kw;
} call_parts;

/* **NODE (at the current token): the matched node's attributes, copied by
 * the replacement. */
static nnfx_status parse_copy_attrs(pp *p, call_parts *c) {
    int scol = p->t.col;
    next(p);
    char nn[96];
    tok_text(&p->t, nn, sizeof nn);
    const nnfx_node *src = p->pat && p->t.kind == T_IDENT ? nnfx_graph_find(p->pat, nn) : NULL;
    if (!p->replacement) return perr(p, scol, "**NODE belongs in the replacement (after '->')", NULL);
    if (!src || nnfx_node_opcode(src) != NNFX_CALL_FUNCTION) {
        sbuf names = {0};
        for (const nnfx_node *q = nnfx_graph_first(p->pat); q; q = nnfx_node_next(q))
            if (nnfx_node_opcode(q) == NNFX_CALL_FUNCTION)
                sb_printf(&names, "%s%s", names.len ? ", " : "", nnfx_node_name(q));
        char *list = sb_finish(&names);
        char msg[400];
        snprintf(msg, sizeof msg, "**%s: the pattern has no op node of that name (its op nodes: %s)", nn,
                 list ? list : "");
        free(list);
        return perr(p, p->t.col, msg, NULL);
    }
    if (c->nattrs == PP_MAX_ATTRS) return perr(p, scol, "too many attributes", NULL);
    nnfx_attr *at = &c->attrs[c->nattrs++];
    at->name = ir_strdup(RW_COPY_ATTRS);
    at->kind = NNFX_ATTR_STRING;
    at->u.s = ir_strdup(nn);
    if (!at->name || !at->u.s) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
    next(p);
    return NNFX_OK;
}

/* NAME=VALUE at the current token: an attribute, or clip's min=/max=
 * bound. */
static nnfx_status parse_keyword(pp *p, call_parts *c) {
    if (c->op == NNFX_OP_CLIP) {
        char an[16];
        tok_text(&p->t, an, sizeof an);
        bool is_min = strcmp(an, "min") == 0;
        if (!is_min && strcmp(an, "max") != 0)
            return perr(p, p->t.col, "clip takes min= and max= (or its inputs), not ", an);
        next(p); /* name */
        next(p); /* = */
        c->clip_kw = true;
        return parse_expr(p, is_min ? &c->clip_min : &c->clip_max);
    }
    tok at = p->t;
    if (c->nattrs == PP_MAX_ATTRS) return perr(p, at.col, "too many attributes", NULL);
    char an[64];
    tok_text(&at, an, sizeof an);
    for (int i = 0; i < c->nattrs; i++)
        if (strcmp(c->attrs[i].name, an) == 0) return perr(p, at.col, "attribute given twice: ", an);
    next(p); /* name */
    next(p); /* = */
    char *nm = ir_strdup(an);
    if (!nm) return nnfx_error_set(p->err, NNFX_ERR_NOMEM, "out of memory");
    int k = c->nattrs++;
    c->attrs[k].name = nm;
    return attr_value(p, c->op, nm, at.col, &c->attrs[k], &c->ints[k], &c->floats[k]);
}

/* A positional argument (an expression; None only where the op allows). */
static nnfx_status parse_positional(pp *p, call_parts *c) {
    if (c->nargs == PP_MAX_ARGS) return perr(p, p->t.col, "too many arguments", NULL);
    int acol = p->t.col;
    nnfx_status st = parse_expr(p, &c->args[c->nargs]);
    if (st) return st;
    int mi;
    nnfx_op_arity(c->op, &mi, NULL, NULL);
    if (c->args[c->nargs].kind == NNFX_ARG_NONE && c->nargs < mi && c->op != NNFX_OP_CLIP) {
        char msg[160];
        snprintf(msg, sizeof msg, "argument %d of %s is required (None given)", c->nargs, nnfx_op_name(c->op));
        return perr(p, acol, msg, NULL);
    }
    c->nargs++;
    return NNFX_OK;
}

/* The argument list up to (not past) ')'. */
static nnfx_status parse_call_args(pp *p, call_parts *c) {
    if (p->t.kind == T_RPAREN) return NNFX_OK;
    for (;;) {
        nnfx_status st;
        if (p->t.kind == T_STARSTAR) {
            st = parse_copy_attrs(p, c);
        } else {
            /* name=value: peek past spaces for '=' */
            size_t q = p->pos;
            while (p->text[q] && isspace((unsigned char)p->text[q]))
                q++;
            bool keyword = p->t.kind == T_IDENT && p->text[p->pos] != '(' && p->text[q] == '=';
            st = keyword ? parse_keyword(p, c) : parse_positional(p, c);
        }
        if (st) return st;
        if (p->t.kind == T_COMMA) {
            next(p);
            continue;
        }
        return p->t.kind == T_RPAREN ? NNFX_OK : perr(p, p->t.col, "expected ')'", NULL);
    }
}

/* Clip's min=/max= become its inputs; the argument count fits the op. */
static nnfx_status check_call_args(pp *p, const tok *name_tok, call_parts *c) {
    if (c->clip_kw) {
        if (c->nargs != 1)
            return perr(p, name_tok->col, "clip: give min=/max= or the bounds as inputs, not both", NULL);
        c->args[1] = c->clip_min;
        c->args[2] = c->clip_max;
        c->nargs = c->clip_max.kind == NNFX_ARG_NONE ? 2 : 3;
    }
    int mi, ma;
    nnfx_op_arity(c->op, &mi, &ma, NULL);
    if (c->nargs >= mi && c->nargs <= ma) return NNFX_OK;
    char msg[160];
    if (mi == ma)
        snprintf(msg, sizeof msg, "%s takes %d argument%s, got %d", nnfx_op_name(c->op), mi, mi == 1 ? "" : "s",
                 c->nargs);
    else
        snprintf(msg, sizeof msg, "%s takes %d to %d arguments, got %d", nnfx_op_name(c->op), mi, ma, c->nargs);
    return perr(p, name_tok->col, msg, NULL);
}

/* OP(args, name=value, **NODE): parses the call's arguments (phases
 * above), then adds the op node to the graph being built. */
static nnfx_status parse_call(pp *p, const tok *name_tok, nnfx_arg *out) {
    char name[96];
    tok_text(name_tok, name, sizeof name);
    nnfx_status st = NNFX_OK;
    nnfx_op op = find_op(p, name, name_tok->col, &st);
    if (op == NNFX_OP_NONE) return st;
    call_parts parts, *c = &parts;
    memset(c, 0, sizeof *c);
    c->op = op;
    c->clip_min = c->clip_max = nnfx_arg_none();
    next(p); /* ( */
    st = parse_call_args(p, c);
    if (!st) {
        next(p); /* ) */
        st = check_call_args(p, name_tok, c);
    }
    if (!st) {
        nnfx_node *n = nnfx_graph_call_op(p->g, op, c->nargs, c->args, c->nattrs, c->attrs, p->err);
        if (!n) {
            st = p->err && p->err->status ? p->err->status : NNFX_ERR_PARSE;
            nnfx_error_prefix(p->err, "pattern: column %d", name_tok->col);
        } else {
            *out = nnfx_arg_node(n);
        }
    }
    for (int i = 0; i < c->nattrs; i++) {
        free((char *)c->attrs[i].name);
        if (c->attrs[i].kind == NNFX_ATTR_STRING) free((char *)c->attrs[i].u.s);
        free(c->ints[i]);
        free(c->floats[i]);
    }
    return st;
}

static nnfx_status parse_expr(pp *p, nnfx_arg *out) {
    tok t = p->t;
    if (t.kind == T_NUMBER) {
        bool is_int;
        int64_t iv;
        double fv;
        if (!number_value(&t, &is_int, &iv, &fv)) return perr(p, t.col, "malformed number", NULL);
        *out = is_int ? nnfx_arg_int(iv) : nnfx_arg_float(fv);
        next(p);
        return NNFX_OK;
    }
    if (t.kind == T_IDENT) {
        next(p);
        if (p->t.kind == T_LPAREN) return parse_call(p, &t, out);
        if (tok_is(&t, "None")) {
            *out = nnfx_arg_none();
            return NNFX_OK;
        }
        return wildcard(p, &t, out);
    }
    if (t.kind == T_END) return perr(p, t.col, "unexpected end of the rule", NULL);
    return perr(p, t.col, "expected an op call, a wildcard or a number", NULL);
}

/* exprs := expr { "," expr }, ending at "->" or the end; builds the output. */
static nnfx_status parse_side(pp *p) {
    nnfx_node *vals[PP_MAX_ARGS];
    int n = 0;
    for (;;) {
        tok t = p->t;
        nnfx_arg a;
        nnfx_status st = parse_expr(p, &a);
        if (st) return st;
        if (a.kind != NNFX_ARG_NODE) return perr(p, t.col, "a rule side must be an op call or a wildcard", NULL);
        if (!p->replacement && a.u.node->opcode == NNFX_PLACEHOLDER)
            return perr(p, t.col, "a pattern must return op calls, not the wildcard ", a.u.node->name);
        if (n == PP_MAX_ARGS) return perr(p, t.col, "too many values", NULL);
        vals[n++] = a.u.node;
        if (p->t.kind != T_COMMA) break;
        next(p);
    }
    if (!nnfx_graph_output(p->g, n, vals, p->err)) return p->err ? p->err->status : NNFX_ERR_GRAPH;
    return NNFX_OK;
}

nnfx_status nnfx_pattern_parse(const char *rule, nnfx_graph **pattern, nnfx_graph **replacement, nnfx_error *err) {
    if (pattern) *pattern = NULL;
    if (replacement) *replacement = NULL;
    if (!rule || !pattern) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "pattern_parse: NULL rule or output");
    pp p = {0};
    p.text = rule;
    p.err = err;
    p.g = nnfx_graph_new();
    nnfx_graph *rep = NULL;
    nnfx_status st = NNFX_OK;
    if (!p.g) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto done;
    }
    next(&p);
    if ((st = parse_side(&p))) goto done;
    if (p.t.kind == T_ARROW) {
        next(&p);
        rep = nnfx_graph_new();
        if (!rep) {
            st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
            goto done;
        }
        nnfx_graph *pat = p.g;
        p.g = rep;
        p.pat = pat;
        p.replacement = true;
        for (int i = 0; i < p.nw; i++) {
            p.wnode[i] = nnfx_graph_placeholder(rep, p.wname[i], NULL, err);
            if (!p.wnode[i]) {
                st = err ? err->status : NNFX_ERR_NOMEM;
                p.g = pat;
                goto done;
            }
        }
        st = parse_side(&p);
        p.g = pat;
        if (st) goto done;
    }
    if (p.t.kind != T_END) {
        st = perr(&p, p.t.col, p.t.kind == T_ARROW ? "a rule has one '->'" : "expected '->' or the end of the rule",
                  NULL);
        goto done;
    }
done:
    for (int i = 0; i < p.nw; i++)
        free(p.wname[i]);
    if (st) {
        nnfx_graph_free(p.g);
        nnfx_graph_free(rep);
        return st;
    }
    *pattern = p.g;
    if (replacement)
        *replacement = rep;
    else
        nnfx_graph_free(rep);
    return NNFX_OK;
}

int nnfx_rewrite_text(nnfx_graph *g, const char *rule, nnfx_error *err) {
    if (!g || !rule) {
        nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "rewrite_text: NULL graph or rule");
        return -1;
    }
    nnfx_graph *pat = NULL, *rep = NULL;
    if (nnfx_pattern_parse(rule, &pat, &rep, err)) return -1;
    if (!rep) {
        nnfx_graph_free(pat);
        nnfx_error_set(err, NNFX_ERR_PARSE, "pattern: column %d: expected '->' and a replacement",
                       (int)strlen(rule) + 1);
        return -1;
    }
    nnfx_match_list *l = nnfx_replace_pattern(g, pat, rep, NULL, NULL, err);
    int n = l ? nnfx_match_list_count(l) : -1;
    /* the result must be a valid graph, dtypes included */
    nnfx_error terr = {0};
    if (n > 0 && (nnfx_graph_infer_shapes(g, &terr) || nnfx_graph_check_types(g, &terr))) {
        nnfx_error_set(err, terr.status ? terr.status : NNFX_ERR_GRAPH, "rule '%s' makes the graph invalid: %s", rule,
                       terr.msg);
        n = -1;
    }
    nnfx_match_list_free(l);
    nnfx_graph_free(pat);
    nnfx_graph_free(rep);
    return n;
}
