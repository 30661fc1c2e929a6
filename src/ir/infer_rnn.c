/* infer_rnn.c — shape inference of RNN, GRU and LSTM:
 *   X [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1)
 *   Y   [seq, dirs, batch, hidden]  (layout 1: [batch, seq, dirs, hidden])
 *   Y_h, Y_c [dirs, batch, hidden]  (layout 1: [batch, dirs, hidden])
 * dirs is 2 for direction "bidirectional", else 1. */
#include <string.h>

#include "ir/infer_int.h"

nnfx_status infer_rnn(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "W");
    if (!s) s = infer_need(c, 2, "R");
    if (s) return s;
    int maxout = nnfx_node_op(c->node) == NNFX_OP_LSTM ? 3 : 2;
    if (c->nout > maxout) return infer_fail(c, "%d outputs (at most %d)", c->nout, maxout);
    const nnfx_meta *x = c->in[0];
    const char *dir = nnfx_node_attr_string(c->node, "direction", "forward");
    if (strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0 && strcmp(dir, "bidirectional") != 0)
        return infer_fail(c, "direction '%s' is not forward, reverse or bidirectional", dir);
    int64_t dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    int64_t hidden = nnfx_node_attr_int(c->node, "hidden_size", -1);
    if (hidden < 0 && c->in[2]->rank == 3) hidden = c->in[2]->dims[2].value;
    bool bw = nnfx_node_attr_int(c->node, "layout", 0) != 0;
    if (x->rank >= 0 && x->rank != 3) return infer_fail(c, "X must have rank 3, got %d", x->rank);
    nnfx_dim seq = x->rank == 3 ? x->dims[bw ? 1 : 0] : infer_dim(-1);
    nnfx_dim batch = x->rank == 3 ? x->dims[bw ? 0 : 1] : infer_dim(-1);
    for (int o = 0; o < c->nout; o++) {
        nnfx_meta *m = &c->out[o];
        m->dtype = x->dtype;
        if (o == 0) {
            m->rank = 4;
            m->dims[bw ? 1 : 0] = seq;
            m->dims[bw ? 2 : 1] = infer_dim(dirs);
            m->dims[bw ? 0 : 2] = batch;
            m->dims[3] = infer_dim(hidden);
        } else {
            m->rank = 3;
            m->dims[bw ? 1 : 0] = infer_dim(dirs);
            m->dims[bw ? 0 : 1] = batch;
            m->dims[2] = infer_dim(hidden);
        }
    }
    return NNFX_OK;
}
