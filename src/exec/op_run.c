/* op_run.c — runs one op on concrete tensors: infer exact output shapes,
 * allocate outputs, call the kernel. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "ir/ir_int.h"
#include "ir/op_table.h"

nnfx_status nnfx_op_run(const nnfx_node *n, int nin, nnfx_tensor *const *in, nnfx_value_set *out, nnfx_error *err) {
    if (!n || !out || (nin > 0 && !in)) return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "op_run: NULL argument");
    memset(out, 0, sizeof *out);
    if (n->opcode != NNFX_CALL_FUNCTION)
        return nnfx_error_set(err, NNFX_ERR_INVALID_ARG, "op_run: node %s is not a call_function", n->name);
    if (ir_op_is_ctrl(n->op)) return exec_ctrl_run(n, nin, in, out, err); /* bodies decide the shapes */
    const nnfx_op_info *info = ir_op_info(n->op);
    if (!info->kernel || !info->infer)
        return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: op %s has no CPU kernel", n->name, info->name);
    if (n->nout > NNFX_MAX_RANK) return nnfx_error_set(err, NNFX_ERR_UNSUPPORTED, "node %s: too many outputs", n->name);
    nnfx_meta metas_stack[16];
    const nnfx_meta *inm_stack[16];
    nnfx_meta *metas = nin <= 16 ? metas_stack : calloc((size_t)nin, sizeof *metas);
    const nnfx_meta **inm = nin <= 16 ? inm_stack : calloc((size_t)nin, sizeof *inm);
    nnfx_status st = NNFX_OK;
    if (!metas || !inm) {
        st = nnfx_error_set(err, NNFX_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < nin; i++) {
        if (in[i]) {
            nnfx_meta_set_shape(&metas[i], in[i]->dtype, in[i]->rank, in[i]->shape);
            inm[i] = &metas[i];
        } else {
            inm[i] = NULL;
        }
    }
    nnfx_meta outm[NNFX_MAX_RANK];
    for (int i = 0; i < n->nout; i++) {
        memset(&outm[i], 0, sizeof outm[i]);
        outm[i].rank = -1;
    }
    nnfx_infer_ctx c = {n, nin, inm, (const nnfx_tensor *const *)in, n->nout, outm, err};
    st = info->infer(&c);
    if (st) goto out;
    for (int i = 0; i < n->nout; i++) {
        if (!nnfx_meta_is_static(&outm[i])) {
            st = nnfx_error_set(err, NNFX_ERR_SHAPE, "node %s: output %d shape is not known at run time", n->name, i);
            goto fail;
        }
        int64_t dims[NNFX_MAX_RANK];
        for (int d = 0; d < outm[i].rank; d++)
            dims[d] = outm[i].dims[d].value;
        out->t[i] = nnfx_tensor_new(outm[i].dtype, outm[i].rank, dims, err);
        if (!out->t[i]) {
            st = err ? err->status : NNFX_ERR_NOMEM;
            if (!st) st = NNFX_ERR_NOMEM;
            goto fail;
        }
        out->num = i + 1;
    }
    st = info->kernel(n, nin, in, n->nout, out->t, err);
    if (st) goto fail;
    goto out;
fail:
    for (int i = 0; i < out->num; i++)
        nnfx_tensor_release(out->t[i]);
    memset(out, 0, sizeof *out);
out:
    if (metas != metas_stack) free(metas);
    if (inm != inm_stack) free(inm);
    return st;
}
