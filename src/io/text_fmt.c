/* text_fmt.c — value formatting shared by the text forms (see text_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_int.h"

bool txt_is_bare_char(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '/' || c == '+' || c == '@' || c == '-';
}

void txt_quoted(sbuf *b, const char *s, char quote) {
    sb_append(b, &quote, 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '\\': sb_append(b, "\\\\", 2); break;
        case '\n': sb_append(b, "\\n", 2); break;
        case '\t': sb_append(b, "\\t", 2); break;
        case '\r': sb_append(b, "\\r", 2); break;
        default:
            if (*p == (unsigned char)quote) {
                sb_append(b, "\\", 1);
                sb_append(b, (const char *)p, 1);
            } else if (*p < 0x20 || *p == 0x7f) {
                sb_printf(b, "\\x%02x", *p);
            } else {
                sb_append(b, (const char *)p, 1);
            }
        }
    }
    sb_append(b, &quote, 1);
}

void txt_word(sbuf *b, const char *s) {
    bool bare = s && *s;
    for (const char *p = s; bare && *p; p++)
        bare = txt_is_bare_char((unsigned char)*p);
    if (bare)
        sb_append(b, s, strlen(s));
    else
        txt_quoted(b, s, '"');
}

/* A dim symbol: bare only when it cannot be read as a number. */
static void txt_symbol(sbuf *b, const char *s) {
    bool numberish = (*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.' || strncmp(s, "inf", 3) == 0 ||
                     strncmp(s, "nan", 3) == 0;
    if (numberish)
        txt_quoted(b, s, '"');
    else
        txt_word(b, s);
}

void txt_key(sbuf *b, const char *s) {
    bool ident = s && *s;
    for (const char *p = s; ident && *p; p++)
        ident = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (ident)
        sb_append(b, s, strlen(s));
    else
        txt_quoted(b, s, '"');
}

/* Appends the number text in buf, adding ".0" when it would read as an int. */
static void append_floaty(sbuf *b, const char *buf) {
    sb_append(b, buf, strlen(buf));
    if (!strpbrk(buf, ".eEn")) sb_append(b, ".0", 2); /* 'n': inf, nan */
}

void txt_double(sbuf *b, double v) {
    char buf[40];
    if (isnan(v)) {
        sb_printf(b, "nan");
        return;
    }
    if (isinf(v)) {
        sb_printf(b, v < 0 ? "-inf" : "inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    append_floaty(b, buf);
}

void txt_float(sbuf *b, float v) {
    char buf[40];
    if (isnan(v) || isinf(v)) {
        txt_double(b, v);
        return;
    }
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v) break;
    }
    append_floaty(b, buf);
}

bool txt_meta_known(const nnfx_meta *m) { return m && (m->dtype != NNFX_DTYPE_UNDEFINED || m->rank >= 0); }

void txt_meta(sbuf *b, const nnfx_meta *m) {
    if (!txt_meta_known(m)) {
        sb_printf(b, "?");
        return;
    }
    sb_printf(b, "%s", nnfx_dtype_name(m->dtype));
    if (m->rank < 0) return;
    sb_printf(b, "[");
    for (int i = 0; i < m->rank && i < NNFX_MAX_RANK; i++) {
        if (i) sb_printf(b, ", ");
        const nnfx_dim *d = &m->dims[i];
        if (d->value >= 0)
            sb_printf(b, "%lld", (long long)d->value);
        else if (d->symbol && d->symbol[0])
            txt_symbol(b, d->symbol);
        else
            sb_printf(b, "?");
    }
    sb_printf(b, "]");
}

void txt_arg(sbuf *b, const nnfx_arg *a, bool percent) {
    switch (a->kind) {
    case NNFX_ARG_NONE: sb_printf(b, "None"); break;
    case NNFX_ARG_NODE: sb_printf(b, "%s%s", percent ? "%" : "", a->u.node ? nnfx_node_name(a->u.node) : "?"); break;
    case NNFX_ARG_INT: sb_printf(b, "%lld", (long long)a->u.i); break;
    case NNFX_ARG_FLOAT: txt_double(b, a->u.f); break;
    }
}

/* The text forms' writers for sb_attr_value (ctx: the quote character). */
static void txt_attr_real(sbuf *b, double v, void *ctx) { txt_double(b, v); }
static void txt_attr_real_item(sbuf *b, float v, void *ctx) { txt_float(b, v); }
static void txt_attr_str(sbuf *b, const char *s, void *ctx) { txt_quoted(b, s, *(const char *)ctx); }
static void txt_attr_tensor(sbuf *b, const nnfx_tensor *t, void *ctx) {
    sb_printf(b, "tensor(");
    if (t) {
        nnfx_meta m;
        nnfx_meta_set_shape(&m, t->dtype, t->rank, t->shape);
        txt_meta(b, &m);
    } else {
        sb_printf(b, "?");
    }
    sb_printf(b, ")");
}
static void txt_attr_graph(sbuf *b, const nnfx_graph *g, void *ctx) {
    sb_printf(b, "graph"); /* the body follows the node's line */
}

void txt_attr_value(sbuf *b, const nnfx_attr *a, char q) {
    sb_attr_style st = {"[", "]", txt_attr_real, txt_attr_real_item, txt_attr_str, txt_attr_tensor, txt_attr_graph, &q};
    sb_attr_value(b, a, &st);
}
