/* extents.c — the sizes of data-dependent dims as integer expressions
 * (cg_xp): a bounded node's actual dim, constants, and min / max / + / - /
 * * / == / < / select of them (a Shape of such a value carried through
 * Gather, Concat, ReduceMin... into a TopK's K or a Slice's end). Each
 * expression keeps its value at the bound (what the static shapes hold)
 * and whether the run-time value provably stays within it; generated C
 * declares one local per expression where a step first needs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"

static bool is_const(const cg_bounds *b, int e, int64_t *v) {
    if (e < 0 || b->xp[e].kind != CG_X_CONST) return false;
    if (v) *v = b->xp[e].v;
    return true;
}

/* Saturating arithmetic at the bound (constants such as INT64_MAX stand
 * for "no limit"). */
static int64_t sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

static int64_t sat_mul(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    if ((a > 0) == (b > 0)) return (a > 0 ? a > INT64_MAX / b : a < INT64_MAX / b) ? INT64_MAX : a * b;
    return (a > 0 ? b < INT64_MIN / a : a < INT64_MIN / b) ? INT64_MIN : a * b;
}

static int64_t eval(cg_xkind k, int64_t a, int64_t b, int64_t c) {
    switch (k) {
    case CG_X_MIN: return a < b ? a : b;
    case CG_X_MAX: return a > b ? a : b;
    case CG_X_ADD: return sat_add(a, b);
    case CG_X_SUB: return b == INT64_MIN ? INT64_MAX : sat_add(a, -b);
    case CG_X_MUL: return sat_mul(a, b);
    case CG_X_EQ: return a == b;
    case CG_X_LT: return a < b;
    case CG_X_SEL: return c != 0 ? a : b;
    default: return 0;
    }
}

/* The interval of expression (k, operands a, b, c) from its operands'
 * (saturating); a CG_X_SRC or CG_X_DATA one's is set by its maker. */
static void interval(const cg_bounds *b, cg_xkind k, int a, int bb, int cc, int64_t v, int64_t *lo, int64_t *hi) {
    const cg_xp *xa = a >= 0 ? &b->xp[a] : NULL, *xb = bb >= 0 ? &b->xp[bb] : NULL;
    switch (k) {
    case CG_X_CONST: *lo = *hi = v; return;
    case CG_X_SRC: *lo = 0, *hi = INT64_MAX; return;
    case CG_X_DATA: *lo = INT64_MIN, *hi = INT64_MAX; return;
    case CG_X_MIN:
    case CG_X_MAX:
    case CG_X_ADD: *lo = eval(k, xa->lo, xb->lo, 0), *hi = eval(k, xa->hi, xb->hi, 0); return;
    case CG_X_SUB: *lo = eval(k, xa->lo, xb->hi, 0), *hi = eval(k, xa->hi, xb->lo, 0); return;
    case CG_X_MUL: {
        const int64_t p[4] = {sat_mul(xa->lo, xb->lo), sat_mul(xa->lo, xb->hi), sat_mul(xa->hi, xb->lo),
                              sat_mul(xa->hi, xb->hi)};
        *lo = *hi = p[0];
        for (int i = 1; i < 4; i++) {
            if (p[i] < *lo) *lo = p[i];
            if (p[i] > *hi) *hi = p[i];
        }
        return;
    }
    case CG_X_SEL: *lo = xa->lo < xb->lo ? xa->lo : xb->lo, *hi = xa->hi > xb->hi ? xa->hi : xb->hi; return;
    default:
        (void)cc;
        *lo = 0, *hi = 1;
        return; /* == and <: 0 or 1 */
    }
}

/* Whether the run-time value of an expression of kind k (operands a, b, c)
 * is provably >= 0. */
static bool provably_nonneg(const cg_bounds *b, cg_xkind k, int a, int bb, int cc, int64_t v) {
    const cg_xp *xa = a >= 0 ? &b->xp[a] : NULL, *xb = bb >= 0 ? &b->xp[bb] : NULL;
    switch (k) {
    case CG_X_CONST: return v >= 0;
    case CG_X_SRC:
    case CG_X_EQ:
    case CG_X_LT: return true;
    case CG_X_MIN:
    case CG_X_ADD:
    case CG_X_MUL:
    case CG_X_SEL: return xa->nonneg && xb->nonneg;
    case CG_X_MAX: return xa->nonneg || xb->nonneg;
    default: (void)cc; return false;
    }
}

/* Whether the run-time value of x (an expression of kind k, operands a, b)
 * provably lies in [0, at_bound]: each source extent is at most its bound,
 * and min / max / + / * of such values are monotone. */
static bool provably_safe(const cg_bounds *b, cg_xkind k, int a, int bb, int64_t at_bound) {
    const cg_xp *xa = a >= 0 ? &b->xp[a] : NULL, *xb = bb >= 0 ? &b->xp[bb] : NULL;
    int64_t cv;
    switch (k) {
    case CG_X_CONST: return at_bound >= 0;
    case CG_X_SRC: return true;
    case CG_X_MIN: /* below a safe operand whose bound is the minimum, and neither operand negative */
        return xa->nonneg && xb->nonneg &&
               ((xa->safe && xa->at_bound == at_bound) || (xb->safe && xb->at_bound == at_bound));
    case CG_X_MAX:
    case CG_X_ADD:
    case CG_X_MUL: return xa->safe && xb->safe;
    case CG_X_SUB: /* a safe value less a constant, clamped below by nothing: only when it cannot go negative */
        return xa->safe && is_const(b, bb, &cv) && cv <= 0;
    default: return false;
    }
}

int cg_x_make(cg_bounds *b, cg_xkind kind, int a, int bb, int cc, int64_t v) {
    int64_t ka, kb, kc;
    const int nops = kind == CG_X_CONST || kind == CG_X_SRC || kind == CG_X_DATA ? 0 : kind == CG_X_SEL ? 3 : 2;
    if (nops && (a < 0 || bb < 0 || (nops == 3 && cc < 0))) return -1;
    if (nops == 2) cc = -1;
    if (nops == 0) a = bb = cc = -1;
    /* simplifications: constants folded, identities dropped */
    if (nops && is_const(b, a, &ka) && is_const(b, bb, &kb) && (nops == 2 || is_const(b, cc, &kc)))
        return cg_x_const(b, eval(kind, ka, kb, nops == 3 ? kc : 0));
    if (kind == CG_X_SEL && is_const(b, cc, &kc)) return kc != 0 ? a : bb;
    if (kind == CG_X_SEL && a == bb) return a;
    if ((kind == CG_X_MIN || kind == CG_X_MAX || kind == CG_X_ADD || kind == CG_X_MUL || kind == CG_X_EQ) &&
        is_const(b, a, NULL)) { /* the constant second */
        int t = a;
        a = bb, bb = t;
    }
    if (nops == 2 && is_const(b, bb, &kb)) {
        const cg_xp *xa = &b->xp[a];
        if ((kind == CG_X_ADD || kind == CG_X_SUB) && kb == 0) return a;
        if (kind == CG_X_MUL && kb == 1) return a;
        if (kind == CG_X_MIN && xa->safe && kb >= xa->at_bound) return a; /* never below the bound */
        if (kind == CG_X_MAX && xa->safe && kb <= 0) return a;            /* never negative */
        if ((kind == CG_X_EQ && xa->safe && kb < 0) || (kind == CG_X_LT && xa->safe && kb <= 0))
            return cg_x_const(b, 0); /* a size is never negative */
    }
    if ((kind == CG_X_MIN || kind == CG_X_MAX) && a == bb) return a;
    if (kind == CG_X_ADD && b->xp[bb].kind == CG_X_SUB && b->xp[bb].b == a) return b->xp[bb].a; /* a + (k - a) */
    if (kind == CG_X_ADD && b->xp[a].kind == CG_X_SUB && b->xp[a].b == bb) return b->xp[a].a;   /* (k - b) + b */
    for (int i = 0; i < b->nxp; i++) {
        const cg_xp *x = &b->xp[i];
        if (x->kind == kind && x->a == a && x->b == bb && x->c == cc && (nops || x->v == v)) return i;
    }
    if (b->nxp == b->xcap) {
        int cap = b->xcap ? 2 * b->xcap : 64;
        cg_xp *x = realloc(b->xp, sizeof *x * (size_t)cap);
        if (!x) return -1;
        b->xp = x, b->xcap = cap;
    }
    cg_xp *x = &b->xp[b->nxp];
    memset(x, 0, sizeof *x);
    x->kind = kind, x->a = a, x->b = bb, x->c = cc, x->v = v;
    x->at_bound = kind == CG_X_CONST ? v
                  : kind == CG_X_SRC || kind == CG_X_DATA
                      ? 0 /* set by the caller: the bound's dim, the interval's top */
                      : eval(kind, b->xp[a].at_bound, b->xp[bb].at_bound, cc >= 0 ? b->xp[cc].at_bound : 0);
    x->data =
        kind == CG_X_DATA || (a >= 0 && b->xp[a].data) || (bb >= 0 && b->xp[bb].data) || (cc >= 0 && b->xp[cc].data);
    interval(b, kind, a, bb, cc, v, &x->lo, &x->hi);
    x->nonneg = provably_nonneg(b, kind, a, bb, cc, v);
    x->safe = provably_safe(b, kind, a, bb, x->at_bound);
    if (x->data) { /* sized by the most its interval allows; checked at run time */
        x->at_bound = x->hi;
        x->nonneg |= x->lo >= 0;
        x->safe = false;
    }
    return b->nxp++;
}

int cg_x_const(cg_bounds *b, int64_t v) { return cg_x_make(b, CG_X_CONST, -1, -1, -1, v); }

void cg_extent_expr(const cg_bounds *b, int e, char *buf, size_t len) {
    const cg_xp *x = &b->xp[e];
    if (x->kind == CG_X_CONST)
        snprintf(buf, len, x->v == INT64_MIN ? "(-9223372036854775807LL - 1)" : "%lldLL", (long long)x->v);
    else if (x->kind == CG_X_SRC)
        snprintf(buf, len, "bounded%d_dims%d[%d]", (int)(x->v / (4 * NNFX_MAX_RANK)), (int)(x->v / NNFX_MAX_RANK % 4),
                 (int)(x->v % NNFX_MAX_RANK));
    else if (b->depth) /* a loop body's: apart from its enclosing graph's */
        snprintf(buf, len, "ext%d_%d", b->depth, e);
    else
        snprintf(buf, len, "ext%d", e);
}

/* Declares CG_X_DATA extent e: element k of its root's value. */
static void define_data(cg *c, int e) {
    const cg_bounds *b = c->bnd;
    const cg_xp *x = &b->xp[e];
    const nnfx_node *root = b->root[x->v / CG_SYM_MAX];
    char name[64], v[96];
    cg_extent_expr(b, e, name, sizeof name);
    if (cg_value_typed(c, cg_node_value(c, root), root->meta[0].dtype, root, v, sizeof v)) return;
    cg_use_section(c, "read_int");
    sb_printf(&c->body, "    const long long %s = nnfx_rt_read_int(%s, %d, %d); /* a size read from %s */\n", name, v,
              (int)(x->v % CG_SYM_MAX), (int)nnfx_dtype_size(root->meta[0].dtype), root->name);
    sb_printf(&c->body, "    (void)%s;\n", name);
}

void cg_define_extent(cg *c, int e) {
    const cg_bounds *b = c->bnd;
    if (!b || e < 0 || e >= b->nxp || !c->xdef || c->xdef[e]) return;
    const cg_xp *x = &b->xp[e];
    c->xdef[e] = 1;
    if (x->kind == CG_X_DATA) define_data(c, e);
    if (x->kind == CG_X_CONST || x->kind == CG_X_SRC || x->kind == CG_X_DATA) return;
    cg_define_extent(c, x->a);
    cg_define_extent(c, x->b);
    cg_define_extent(c, x->c);
    char a[64], bb[64], cc[64] = "";
    cg_extent_expr(b, x->a, a, sizeof a);
    cg_extent_expr(b, x->b, bb, sizeof bb);
    if (x->c >= 0) cg_extent_expr(b, x->c, cc, sizeof cc);
    char name[64];
    cg_extent_expr(b, e, name, sizeof name);
    sb_printf(&c->body, "    const long long %s = ", name);
    switch (x->kind) {
    case CG_X_MIN: sb_printf(&c->body, "%s < %s ? %s : %s;", a, bb, a, bb); break;
    case CG_X_MAX: sb_printf(&c->body, "%s > %s ? %s : %s;", a, bb, a, bb); break;
    case CG_X_ADD: /* saturating: a constant such as INT64_MAX stands for "no limit" */
    case CG_X_SUB:
    case CG_X_MUL:
        cg_use_section(c, "extent_ops");
        sb_printf(&c->body, "nnfx_rt_x%s(%s, %s);",
                  x->kind == CG_X_ADD   ? "add"
                  : x->kind == CG_X_SUB ? "sub"
                                        : "mul",
                  a, bb);
        break;
    case CG_X_EQ: sb_printf(&c->body, "%s == %s;", a, bb); break;
    case CG_X_LT: sb_printf(&c->body, "%s < %s;", a, bb); break;
    case CG_X_SEL: sb_printf(&c->body, "%s != 0 ? %s : %s;", cc, a, bb); break;
    default: break;
    }
    sb_printf(&c->body, " /* a data-dependent size */\n");
    if (x->dim && !x->safe) { /* it sizes a dim: past the buffer's bound, the run stops */
        c->may_fail = true;
        sb_printf(&c->body, "    if (%s < 0 || %s > %lldLL) return 2; /* past its bound */\n", name, name,
                  (long long)x->at_bound);
    }
}

void cg_define_node_extents(cg *c, const nnfx_node *n) {
    if (!c->bnd) return;
    const int *ext;
    for (int a = 0; a < n->nargs; a++)
        if (n->args[a].kind == NNFX_ARG_NODE && (ext = cg_dyn_of(c->bnd, n->args[a].u.node)))
            for (int d = 0; d < NNFX_MAX_RANK; d++)
                cg_define_extent(c, ext[d]);
    if ((ext = cg_dyn_of(c->bnd, n)))
        for (int d = 0; d < NNFX_MAX_RANK; d++)
            cg_define_extent(c, ext[d]);
    for (int u = 0; u < n->nusers; u++) /* a multi-output node's getitems */
        if (n->users[u]->opcode == NNFX_CALL_FUNCTION && n->users[u]->op == NNFX_OP_GETITEM &&
            (ext = cg_dyn_of(c->bnd, n->users[u])))
            for (int d = 0; d < NNFX_MAX_RANK; d++)
                cg_define_extent(c, ext[d]);
}

void cg_define_data_extents(cg *c, const nnfx_node *n) {
    const cg_bounds *b = c->bnd;
    const int at = cg_node_value(c, n);
    for (int e = 0; b && c->xdef && e < b->nxp; e++)
        if (b->xp[e].kind == CG_X_DATA && !c->xdef[e] && cg_node_value(c, b->root[b->xp[e].v / CG_SYM_MAX]) < at)
            cg_define_extent(c, e);
}
