/* infer_einsum.c — Einsum: parsing of the equation (shared by inference
 * and the kernel) and shape inference. Labels are letters; "..." stands
 * for the leading dims not named by letters (right-aligned across inputs,
 * size-1 dims broadcast). Without "->" the output is the ellipsis dims then
 * the letters that occur once, in alphabetical order. */
#include <ctype.h>
#include <string.h>

#include "ir/infer_int.h"

/* Parses one term of rank `rank` (rank < 0: unknown, no ellipsis sizes)
 * into labels; ellipsis dims get labels 128 + (distance from the right of
 * the ellipsis). Returns the number of labels, -1 on a bad term. */
static int parse_term(const char *s, size_t len, int rank, int *lab, int *nell) {
    int letters = 0, k = 0;
    bool ell = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            if (ell || i + 2 >= len + 0 || s[i + 1] != '.' || s[i + 2] != '.') return -1;
            ell = true;
            i += 2;
        } else if (isalpha((unsigned char)s[i])) {
            letters++;
        } else if (s[i] != ' ') {
            return -1;
        }
    }
    int e = ell ? (rank >= 0 ? rank - letters : 0) : 0;
    if (e < 0 || (!ell && rank >= 0 && rank != letters)) return -1;
    *nell = e;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            for (int j = 0; j < e; j++)
                lab[k++] = 128 + (e - 1 - j);
            i += 2;
        } else if (isalpha((unsigned char)s[i])) {
            lab[k++] = (unsigned char)s[i];
        }
    }
    return k;
}

bool ir_einsum_parse(const char *eq, int nin, const int *ranks, ir_einsum *p, char *why, size_t whylen) {
    memset(p, 0, sizeof *p);
    p->nin = nin;
    if (nin < 1 || nin > IR_EINSUM_MAX_IN) {
        snprintf(why, whylen, "einsum with %d inputs (1 to %d supported)", nin, IR_EINSUM_MAX_IN);
        return false;
    }
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    const char *t = eq;
    int maxell = 0, count[256] = {0};
    for (int i = 0; i < nin; i++) {
        const char *end = memchr(t, ',', (size_t)(eq + lhs_len - t));
        size_t len = end ? (size_t)(end - t) : (size_t)(eq + lhs_len - t);
        if (!end && i != nin - 1) {
            snprintf(why, whylen, "equation '%s' has fewer terms than the %d inputs", eq, nin);
            return false;
        }
        int nell;
        int k = parse_term(t, len, ranks[i], p->lab[i], &nell);
        if (k < 0 || k > NNFX_MAX_RANK) {
            snprintf(why, whylen, "term %d of '%s' does not fit an input of rank %d", i, eq, ranks[i]);
            return false;
        }
        p->nlab[i] = k;
        if (nell > maxell) maxell = nell;
        for (int j = 0; j < k; j++)
            if (p->lab[i][j] < 128) count[p->lab[i][j]]++;
        t = end ? end + 1 : t + len;
    }
    if (t < eq + lhs_len) {
        snprintf(why, whylen, "equation '%s' has more terms than the %d inputs", eq, nin);
        return false;
    }
    p->nout = 0;
    if (arrow) {
        int nell;
        int k = parse_term(arrow + 2, strlen(arrow + 2), -1, p->out, &nell);
        if (k < 0) {
            snprintf(why, whylen, "bad output term in '%s'", eq);
            return false;
        }
        /* re-expand the output ellipsis to maxell dims */
        int tmp[NNFX_MAX_RANK * 2], m = 0;
        const char *o = arrow + 2;
        for (size_t i = 0; o[i]; i++) {
            if (o[i] == '.') {
                for (int j = 0; j < maxell; j++)
                    tmp[m++] = 128 + (maxell - 1 - j);
                i += 2;
            } else if (isalpha((unsigned char)o[i])) {
                tmp[m++] = (unsigned char)o[i];
            }
        }
        if (m > NNFX_MAX_RANK) {
            snprintf(why, whylen, "einsum output rank %d too large", m);
            return false;
        }
        memcpy(p->out, tmp, sizeof(int) * (size_t)m);
        p->nout = m;
    } else {
        for (int j = 0; j < maxell; j++)
            p->out[p->nout++] = 128 + (maxell - 1 - j);
        for (int ch = 0; ch < 128; ch++)
            if (count[ch] == 1 && p->nout < NNFX_MAX_RANK) p->out[p->nout++] = ch;
    }
    return true;
}

/* Einsum(inputs...) -> the output labels' sizes. */
nnfx_status infer_einsum(nnfx_infer_ctx *c) {
    int ranks[IR_EINSUM_MAX_IN];
    if (c->nin > IR_EINSUM_MAX_IN) return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "too many einsum inputs");
    for (int i = 0; i < c->nin; i++) {
        nnfx_status s = infer_need(c, i, "operand");
        if (s) return s;
        ranks[i] = c->in[i]->rank;
        if (ranks[i] < 0) {
            infer_set_unknown(&c->out[0], c->in[0]->dtype);
            return NNFX_OK;
        }
    }
    ir_einsum p;
    char why[200];
    if (!ir_einsum_parse(nnfx_node_attr_string(c->node, "equation", ""), c->nin, ranks, &p, why, sizeof why))
        return infer_fail(c, "%s", why);
    int64_t size[256];
    for (int i = 0; i < 256; i++)
        size[i] = -2; /* not seen */
    for (int i = 0; i < c->nin; i++)
        for (int j = 0; j < p.nlab[i]; j++) {
            int l = p.lab[i][j];
            int64_t v = c->in[i]->dims[j].value;
            if (size[l] == -2 || size[l] == 1 || (size[l] == -1 && v > 1))
                size[l] = v;
            else if (v >= 0 && v != 1 && size[l] >= 0 && v != size[l])
                return infer_fail(c, "einsum label '%c' has sizes %lld and %lld", l < 128 ? l : '.', (long long)size[l],
                                  (long long)v);
        }
    nnfx_meta *o = &c->out[0];
    o->dtype = c->in[0]->dtype;
    o->rank = p.nout;
    for (int j = 0; j < p.nout; j++) {
        if (size[p.out[j]] == -2) return infer_fail(c, "einsum output label '%c' is in no input", p.out[j]);
        o->dims[j] = infer_dim(size[p.out[j]]);
    }
    return NNFX_OK;
}
