/* einsum.c — Einsum over any equation ONNX allows (products of the
 * inputs summed over the labels missing from the output; repeated labels
 * take diagonals; ellipsis dims broadcast). Every label has a stride per
 * input (the sum over the dims it names: diagonals), so one odometer over
 * output labels (outer) and summed labels (inner) visits each product
 * once. float32 reads directly; other dtypes go through double. */
#include <string.h>

#include "exec/kernels/kernels_int.h"

nnfx_status kern_einsum(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                        nnfx_error *err) {
    if (nin < 1 || nin > IR_EINSUM_MAX_IN || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "einsum needs 1 to %d inputs", IR_EINSUM_MAX_IN);
    int ranks[IR_EINSUM_MAX_IN];
    bool f32 = out[0]->dtype == NNFX_F32;
    for (int i = 0; i < nin; i++) {
        if (!in[i]) return kern_fail(err, n, NNFX_ERR_RUNTIME, "einsum input %d is missing", i);
        ranks[i] = in[i]->rank;
        f32 = f32 && in[i]->dtype == NNFX_F32;
    }
    ir_einsum p;
    char why[200];
    if (!ir_einsum_parse(nnfx_node_attr_string(n, "equation", ""), nin, ranks, &p, why, sizeof why))
        return kern_fail(err, n, NNFX_ERR_SHAPE, "%s", why);
    int64_t size[256];
    int all[2 * NNFX_MAX_RANK * IR_EINSUM_MAX_IN], nall = 0;
    bool seen[256] = {false};
    for (int i = 0; i < 256; i++)
        size[i] = 1;
    for (int j = 0; j < p.nout; j++) {
        all[nall++] = p.out[j];
        seen[p.out[j]] = true;
    }
    int nouter = nall;
    for (int i = 0; i < nin; i++)
        for (int j = 0; j < p.nlab[i]; j++) {
            int l = p.lab[i][j];
            if (in[i]->shape[j] != 1) size[l] = in[i]->shape[j];
            if (!seen[l]) {
                seen[l] = true;
                all[nall++] = l;
            }
        }
    int64_t lst[IR_EINSUM_MAX_IN][2 * NNFX_MAX_RANK * IR_EINSUM_MAX_IN];
    for (int i = 0; i < nin; i++) {
        int64_t st[NNFX_MAX_RANK];
        kern_strides(in[i]->rank, in[i]->shape, st);
        for (int a = 0; a < nall; a++) {
            lst[i][a] = 0;
            for (int j = 0; j < p.nlab[i]; j++)
                if (p.lab[i][j] == all[a]) {
                    if (in[i]->shape[j] != size[all[a]] && in[i]->shape[j] != 1)
                        return kern_fail(err, n, NNFX_ERR_SHAPE, "einsum label sizes differ");
                    if (in[i]->shape[j] != 1) lst[i][a] += st[j];
                }
        }
    }
    int64_t inner = 1, total = nnfx_tensor_numel(out[0]);
    for (int a = nouter; a < nall; a++)
        inner *= size[all[a]];
    int64_t idx[2 * NNFX_MAX_RANK * IR_EINSUM_MAX_IN] = {0}, off[IR_EINSUM_MAX_IN] = {0};
    float *y32 = f32 ? out[0]->data : NULL;
    for (int64_t o = 0; o < total; o++) {
        double acc = 0;
        for (int64_t s = 0; s < inner; s++) {
            double prod = 1;
            for (int i = 0; i < nin; i++)
                prod *= f32 ? (double)((const float *)in[i]->data)[off[i]] : nnfx_tensor_get(in[i], off[i]);
            acc += prod;
            for (int a = nall - 1; a >= 0; a--) { /* odometer step, offsets follow */
                for (int i = 0; i < nin; i++)
                    off[i] += lst[i][a];
                if (++idx[a] < size[all[a]]) break;
                for (int i = 0; i < nin; i++)
                    off[i] -= lst[i][a] * idx[a];
                idx[a] = 0;
            }
        }
        if (inner == 0) /* an empty sum: advance the output odometer alone */
            for (int a = nouter - 1; a >= 0; a--) {
                for (int i = 0; i < nin; i++)
                    off[i] += lst[i][a];
                if (++idx[a] < size[all[a]]) break;
                for (int i = 0; i < nin; i++)
                    off[i] -= lst[i][a] * idx[a];
                idx[a] = 0;
            }
        if (y32)
            y32[o] = (float)acc;
        else
            kern_set(out[0], o, acc);
    }
    return NNFX_OK;
}
