/* loop_append.c — a Loop that grows a carried value by appending rows each
 * trip (torch.cat in a loop: `acc = cat((acc, piece))`), for generated C
 * (static shapes). The carried value changes shape from trip to trip; the
 * same result is a scan output of the pieces, their trips along a new
 * first axis merged with the pieces' rows, after the initial value. The
 * Loop then keeps static shapes and stays one C loop, whatever its trip
 * count (unroll_loop.c copies the body per trip, up to a limit), and its
 * trip count may be known only at run time when it is bounded (a loop over
 * detections: bounds.c). Taken only where the body reads the carried value
 * in that Concat alone, the pieces have a static number of rows (their
 * other dims, where unknown, are the initial value's: generated C checks
 * them at run time) and nothing stops the loop early (a scan output's
 * length is then the trip count). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_int.h"
#include "ir/ir_int.h"

bool cg_loop_runs_all_trips(const nnfx_graph *g, const nnfx_node *n, const nnfx_graph *body) {
    if (n->nargs < 2 || n->args[1].kind == NNFX_ARG_NONE) return true;
    const nnfx_node *v = n->args[1].kind == NNFX_ARG_NODE ? n->args[1].u.node : NULL;
    const nnfx_tensor *t = v && v->opcode == NNFX_GET_ATTR ? nnfx_graph_param(g, v->target) : NULL;
    return t && nnfx_tensor_numel(t) == 1 && nnfx_tensor_get(t, 0) != 0 && ir_loop_keeps_condition(body);
}

/* What a carried body input `in` reaches through no-op Casts (to its own
 * type) and Identities, each read by the next alone (torchvision's
 * `torch.cat((acc.to(torch.float32), ...))`): the value a Concat appends to. */
static nnfx_node *through_no_ops(nnfx_node *in) {
    nnfx_node *v = in;
    while (v->nusers == 1) {
        nnfx_node *u = v->users[0];
        const bool same = u->op == NNFX_OP_IDENTITY ||
                          (u->op == NNFX_OP_CAST && nnfx_node_attr_int(u, "to", -1) == (int64_t)in->meta[0].dtype);
        if (u->opcode != NNFX_CALL_FUNCTION || !same || u->nargs != 1 || in->meta[0].dtype == NNFX_DTYPE_UNDEFINED)
            break;
        v = u;
    }
    return v;
}

/* The piece carried value k of Loop n (layout cs) appends each trip, or
 * NULL when k is not grown that way: body result 1 + k is Concat(input
 * 2 + k, piece) along axis 0, read by the body's output alone, the input
 * read by that Concat alone, the initial value static, the piece of one
 * type with it and equal past their first dim, of a static number of rows
 * (one or more). The piece's shape into *pm: a dim past the first known
 * only at run time is the initial value's (the Concat needs them equal;
 * generated C checks it: bounds.c sizes such a body). */
static nnfx_node *appended_piece(const nnfx_node *n, const ir_ctrl_shape *cs, int k, nnfx_meta *pm) {
    nnfx_graph *body = cs->body[0];
    const nnfx_node *o = nnfx_graph_output_node(body);
    nnfx_node *in = nnfx_graph_input(body, 2 + k);
    const nnfx_node *init = n->args[2 + k].kind == NNFX_ARG_NODE ? n->args[2 + k].u.node : NULL;
    if (!o || !in || !init || o->nargs <= 1 + k || o->args[1 + k].kind != NNFX_ARG_NODE) return NULL;
    nnfx_node *cat = o->args[1 + k].u.node, *acc = through_no_ops(in);
    if (cat->opcode != NNFX_CALL_FUNCTION || cat->op != NNFX_OP_CONCAT || cat->nargs != 2 ||
        cat->args[0].kind != NNFX_ARG_NODE || cat->args[0].u.node != acc || cat->args[1].kind != NNFX_ARG_NODE ||
        acc->nusers != 1 || cat->nusers != 1)
        return NULL;
    for (int a = 0; a < o->nargs; a++)
        if (a != 1 + k && o->args[a].kind == NNFX_ARG_NODE && o->args[a].u.node == cat) return NULL;
    nnfx_node *piece = cat->args[1].u.node;
    const nnfx_meta *im = &init->meta[0];
    *pm = piece->meta[0];
    int64_t axis = ir_attr_int(cat, "axis");
    if (!nnfx_meta_is_static(im) || pm->rank < 1 || pm->rank + 1 > NNFX_MAX_RANK || im->rank != pm->rank ||
        im->dtype != pm->dtype || pm->dims[0].value < 1 || (axis != 0 && axis != -pm->rank))
        return NULL;
    for (int d = 1; d < pm->rank; d++) {
        if (pm->dims[d].value < 0) pm->dims[d] = im->dims[d];
        if (pm->dims[d].value != im->dims[d].value) return NULL;
    }
    return piece;
}

/* The new index of Loop output j once carried value k becomes the last
 * scan output (N carried, S scan outputs before). */
static int moved_index(int j, int k, int N, int S) {
    if (j == k) return N + S - 1;
    return j < k ? j : j - 1;
}

/* The Loop's result v (the scan output of the pieces, [trips, p, ...])
 * made the value the carried one was: merged to [trips * p, ...] and put
 * after the initial value when that has rows; every other reader of v
 * reads that instead. */
static nnfx_status merge_rows(nnfx_graph *g, nnfx_node *n, nnfx_node *v, nnfx_node *init, const nnfx_meta *pm,
                              nnfx_error *err) {
    nnfx_inserting_after(g, v);
    int64_t dims[NNFX_MAX_RANK], one = pm->rank;
    dims[0] = -1;
    for (int d = 1; d < pm->rank; d++)
        dims[d] = pm->dims[d].value;
    nnfx_tensor *t = nnfx_tensor_new(NNFX_I64, 1, &one, err);
    if (!t) return err && err->status ? err->status : NNFX_ERR_NOMEM;
    memcpy(t->data, dims, sizeof dims[0] * (size_t)pm->rank);
    nnfx_node *shape = cg_param_node(g, n, "rows", t, err);
    nnfx_tensor_release(t);
    nnfx_arg ra[2] = {nnfx_arg_node(v), shape ? nnfx_arg_node(shape) : nnfx_arg_none()};
    nnfx_node *rows = shape ? nnfx_graph_call_op(g, NNFX_OP_RESHAPE, 2, ra, 0, NULL, err) : NULL;
    nnfx_node *res = rows;
    if (rows && init->meta[0].dims[0].value > 0) {
        nnfx_arg ca[2] = {nnfx_arg_node(init), nnfx_arg_node(rows)};
        nnfx_attr ax = nnfx_attr_int("axis", 0);
        res = nnfx_graph_call_op(g, NNFX_OP_CONCAT, 2, ca, 1, &ax, err);
    }
    nnfx_inserting_at_end(g);
    if (!res) return err && err->status ? err->status : NNFX_ERR_NOMEM;
    /* every reader of v but the reshape now reads the result */
    for (int u = v->nusers - 1; u >= 0; u--) {
        nnfx_node *user = v->users[u];
        if (user == rows) continue;
        nnfx_status st = nnfx_replace_input_with(user, v, res, err);
        if (st) return st;
    }
    return NNFX_OK;
}

/* Carried value k of Loop n (layout cs), grown by appending `piece`, made
 * the last scan output. */
static nnfx_status to_scan_output(nnfx_graph *g, nnfx_node *n, const ir_ctrl_shape *cs, int k, nnfx_node *piece,
                                  const nnfx_meta *piece_meta, nnfx_error *err) {
    nnfx_graph *body = cs->body[0];
    nnfx_node *o = nnfx_graph_output_node(body);
    nnfx_node *in = nnfx_graph_input(body, 2 + k);
    nnfx_node *cat = o->args[1 + k].u.node;
    nnfx_node *init = n->args[2 + k].u.node;
    const int N = cs->ncarried, S = cs->nscan_out;
    const nnfx_meta pm = *piece_meta;
    nnfx_arg *args = calloc((size_t)(o->nargs > n->nargs ? o->nargs : n->nargs) + 1, sizeof *args);
    if (!args) return nnfx_error_set(err, NNFX_ERR_NOMEM, "codegen: out of memory");
    /* the body: its result 1 + k moves to the end, as the piece */
    int m = 0;
    for (int a = 0; a < o->nargs; a++)
        if (a != 1 + k) args[m++] = o->args[a];
    args[m++] = nnfx_arg_node(piece);
    nnfx_status st = nnfx_node_set_args(o, m, args, err);
    nnfx_node *acc = through_no_ops(in);
    if (!st) st = nnfx_erase_node(body, cat, err);
    while (!st && acc != in) { /* the no-op Casts between, last first */
        nnfx_node *prev = acc->args[0].u.node;
        st = nnfx_erase_node(body, acc, err);
        acc = prev;
    }
    if (!st) st = nnfx_erase_node(body, in, err);
    /* the Loop: without initial value k; its results renumbered */
    m = 0;
    for (int a = 0; a < n->nargs && !st; a++)
        if (a != 2 + k) args[m++] = n->args[a];
    if (!st) st = nnfx_node_set_args(n, m, args, err);
    free(args);
    if (st) return st;
    if (n->nout == 1) return merge_rows(g, n, n, init, &pm, err);
    for (int u = 0; u < n->nusers && !st; u++) { /* merge_rows adds readers of the getitem, not of n */
        nnfx_node *gi = n->users[u];
        if (gi->opcode != NNFX_CALL_FUNCTION || gi->op != NNFX_OP_GETITEM || gi->args[1].kind != NNFX_ARG_INT) continue;
        int j = (int)gi->args[1].u.i;
        st = nnfx_node_set_arg(gi, 1, nnfx_arg_int(moved_index(j, k, N, S)), err);
        if (!st && j == k) st = merge_rows(g, n, gi, init, &pm, err);
    }
    return st;
}

nnfx_status cg_loop_append_in(nnfx_graph *g, nnfx_node *n, bool *changed, nnfx_error *err) {
    ir_ctrl_shape cs;
    nnfx_error e = {0};
    *changed = false;
    if (n->op != NNFX_OP_LOOP || ir_ctrl_layout(n, &cs, &e) || !cg_loop_runs_all_trips(g, n, cs.body[0]))
        return NNFX_OK;
    for (int k = 0; k < cs.ncarried; k++) {
        nnfx_meta pm;
        nnfx_node *piece = appended_piece(n, &cs, k, &pm);
        if (!piece) continue;
        *changed = true;
        return to_scan_output(g, n, &cs, k, piece, &pm, err);
    }
    return NNFX_OK;
}

/* One carried value of a Loop in g or its bodies made a scan output, when
 * one can be (*changed then). */
static nnfx_status convert_one(nnfx_graph *g, bool *changed, nnfx_error *err) {
    for (nnfx_node *n = g->head; n && !*changed; n = n->next) {
        if (n->opcode != NNFX_CALL_FUNCTION || !ir_op_is_ctrl(n->op)) continue;
        ir_ctrl_shape cs;
        nnfx_error e = {0};
        if (ir_ctrl_layout(n, &cs, &e)) continue;
        for (int b = 0; b < cs.nbodies && !*changed; b++) {
            nnfx_status st = convert_one(cs.body[b], changed, err);
            if (st) return st;
        }
        if (*changed || n->op != NNFX_OP_LOOP) continue;
        nnfx_status st = cg_loop_append_in(g, n, changed, err);
        if (st || *changed) return st;
    }
    return NNFX_OK;
}

nnfx_status cg_loop_appends_to_scans(nnfx_graph *g, nnfx_error *err) {
    /* one at a time, shapes inferred again after each: a loop reading an
     * earlier one's result sees its pieces' shapes then */
    for (int round = 0; round < 1024; round++) {
        bool changed = false;
        nnfx_status st = convert_one(g, &changed, err);
        if (st || !changed) return st;
        if ((st = nnfx_graph_lint(g, err)) || (st = nnfx_graph_infer_shapes(g, err))) return st;
    }
    return NNFX_OK;
}
