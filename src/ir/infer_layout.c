/* infer_layout.c — shape inference of the coverage ops that rearrange or
 * create tensors: DepthToSpace, SpaceToDepth, EyeLike, CastLike, the
 * window functions (Hann, Hamming, Blackman), Det and GridSample. */
#include "ir/infer_int.h"

/* DepthToSpace / SpaceToDepth on [N, C, H, W] with blocksize b. */
static nnfx_status infer_block(nnfx_infer_ctx *c, bool to_space) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    int64_t b = nnfx_node_attr_int(c->node, "blocksize", 0);
    if (b <= 0) return infer_fail(c, "blocksize must be positive, got %lld", (long long)b);
    if (x->rank < 0) {
        infer_set_rank(&c->out[0], x->dtype, 4);
        return NNFX_OK;
    }
    if (x->rank != 4) return infer_fail(c, "input must have rank 4, got %d", x->rank);
    c->out[0] = *x;
    int64_t ch = x->dims[1].value, h = x->dims[2].value, w = x->dims[3].value;
    if (to_space) {
        if (ch >= 0 && ch % (b * b)) return infer_fail(c, "channels %lld not divisible by blocksize^2", (long long)ch);
        c->out[0].dims[1] = infer_dim(ch < 0 ? -1 : ch / (b * b));
        c->out[0].dims[2] = infer_dim(h < 0 ? -1 : h * b);
        c->out[0].dims[3] = infer_dim(w < 0 ? -1 : w * b);
    } else {
        if ((h >= 0 && h % b) || (w >= 0 && w % b))
            return infer_fail(c, "spatial dims %lldx%lld not divisible by blocksize %lld", (long long)h, (long long)w,
                              (long long)b);
        c->out[0].dims[1] = infer_dim(ch < 0 ? -1 : ch * b * b);
        c->out[0].dims[2] = infer_dim(h < 0 ? -1 : h / b);
        c->out[0].dims[3] = infer_dim(w < 0 ? -1 : w / b);
    }
    return NNFX_OK;
}

nnfx_status infer_depth_to_space(nnfx_infer_ctx *c) { return infer_block(c, true); }
nnfx_status infer_space_to_depth(nnfx_infer_ctx *c) { return infer_block(c, false); }

/* EyeLike(input): input's 2-d shape; dtype attribute or the input's. */
nnfx_status infer_eye_like(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->rank >= 0 && x->rank != 2) return infer_fail(c, "eye_like input must have rank 2, got %d", x->rank);
    int64_t dt = nnfx_node_attr_int(c->node, "dtype", x->dtype);
    if (dt <= 0 || dt > 0x7fffffff || nnfx_dtype_size((nnfx_dtype)dt) == 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "eye_like dtype code %lld is not supported", (long long)dt);
    c->out[0] = *x;
    c->out[0].dtype = (nnfx_dtype)dt;
    return NNFX_OK;
}

/* CastLike(input, target_type): input's shape, target's dtype. */
nnfx_status infer_cast_like(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (!s) s = infer_need(c, 1, "target_type");
    if (s) return s;
    if (nnfx_dtype_size(c->in[1]->dtype) == 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "cast_like to unsupported dtype %s",
                                 nnfx_dtype_name(c->in[1]->dtype));
    c->out[0] = *c->in[0];
    c->out[0].dtype = c->in[1]->dtype;
    return NNFX_OK;
}

/* HannWindow / HammingWindow / BlackmanWindow(size) -> [size] of
 * output_datatype (default float32). */
nnfx_status infer_window(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "size");
    if (s) return s;
    int64_t dt = nnfx_node_attr_int(c->node, "output_datatype", NNFX_F32);
    if (dt <= 0 || dt > 0x7fffffff || nnfx_dtype_size((nnfx_dtype)dt) == 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "window output_datatype %lld is not supported",
                                 (long long)dt);
    int64_t v[1];
    int n = 0;
    bool many = false;
    int64_t size = -1;
    if (infer_value_ints(c, 0, v, 1, &n, &many) && n == 1) {
        if (v[0] < 0) return infer_fail(c, "window size %lld is negative", (long long)v[0]);
        size = v[0];
    }
    int64_t d[1] = {size};
    infer_set_rank(&c->out[0], (nnfx_dtype)dt, 1);
    c->out[0].dims[0] = infer_dim(d[0]);
    return NNFX_OK;
}

/* Det(X [..., M, M]) -> [...]. */
nnfx_status infer_det(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    if (x->rank < 2) return infer_fail(c, "det needs rank >= 2, got %d", x->rank);
    c->out[0] = *x;
    c->out[0].rank = x->rank - 2;
    return NNFX_OK;
}

/* GridSample(X [N, C, H, W], grid [N, Ho, Wo, 2]) -> [N, C, Ho, Wo]. */
nnfx_status infer_grid_sample(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "grid");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *g = c->in[1];
    if ((x->rank >= 0 && x->rank != 4) || (g->rank >= 0 && g->rank != 4))
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "grid_sample supports 4-d X and grid only");
    infer_set_rank(&c->out[0], x->dtype, 4);
    if (x->rank == 4) c->out[0].dims[0] = x->dims[0], c->out[0].dims[1] = x->dims[1];
    if (g->rank == 4) c->out[0].dims[2] = g->dims[1], c->out[0].dims[3] = g->dims[2];
    return NNFX_OK;
}

/* RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) ->
 * [R, C, output_height, output_width]. */
nnfx_status infer_roi_align(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "rois");
    if (s) return s;
    const nnfx_meta *x = c->in[0], *r = c->in[1];
    infer_set_rank(&c->out[0], x->dtype, 4);
    c->out[0].dims[0] = r->rank == 2 ? r->dims[0] : infer_dim(-1);
    c->out[0].dims[1] = x->rank == 4 ? x->dims[1] : infer_dim(-1);
    c->out[0].dims[2] = infer_dim(nnfx_node_attr_int(c->node, "output_height", 1));
    c->out[0].dims[3] = infer_dim(nnfx_node_attr_int(c->node, "output_width", 1));
    return NNFX_OK;
}

/* MaxUnpool(X, I, output_shape?): output_shape's value, else per spatial
 * dim (in - 1) * stride + kernel - pads. */
nnfx_status infer_max_unpool(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "X");
    if (!s) s = infer_need(c, 1, "I");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (c->nin > 2 && c->in[2]) {
        int64_t v[NNFX_MAX_RANK];
        int nv = 0;
        bool many = false;
        if (infer_value_ints(c, 2, v, NNFX_MAX_RANK, &nv, &many)) {
            infer_set_dims(&c->out[0], x->dtype, nv, v);
        } else {
            infer_set_unknown(&c->out[0], x->dtype);
        }
        return NNFX_OK;
    }
    if (x->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    int nsp = x->rank - 2;
    const nnfx_attr *ks = nnfx_node_attr(c->node, "kernel_shape"), *st = nnfx_node_attr(c->node, "strides"),
                    *pd = nnfx_node_attr(c->node, "pads");
    if (nsp < 1 || !ks || ks->kind != NNFX_ATTR_INTS || ks->u.ints.n != nsp)
        return infer_fail(c, "max_unpool needs kernel_shape with %d values", nsp);
    c->out[0] = *x;
    for (int i = 0; i < nsp; i++) {
        int64_t in = x->dims[2 + i].value, sv = st && st->u.ints.n == nsp ? st->u.ints.v[i] : 1;
        int64_t pads = pd && pd->u.ints.n == 2 * nsp ? pd->u.ints.v[i] + pd->u.ints.v[i + nsp] : 0;
        c->out[0].dims[2 + i] = infer_dim(in < 0 ? -1 : (in - 1) * sv + ks->u.ints.v[i] - pads);
    }
    return NNFX_OK;
}

/* DFT(input [..., 1|2], dft_length?): complex output (last dim 2) with
 * dft_length (onesided: dft_length / 2 + 1) along axis. */
nnfx_status infer_dft(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "input");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    if (x->rank < 0) {
        infer_set_unknown(&c->out[0], x->dtype);
        return NNFX_OK;
    }
    int axis;
    if (x->rank < 2 || !infer_axis(nnfx_node_attr_int(c->node, "axis", 1), x->rank - 1, false, &axis))
        return infer_fail(c, "dft axis out of range for rank %d", x->rank);
    int64_t len = x->dims[axis].value, v[1];
    int nv = 0;
    bool many = false;
    if (c->nin > 1 && c->in[1]) {
        len = infer_value_ints(c, 1, v, 1, &nv, &many) && nv == 1 ? v[0] : -1;
        if (nv == 1 && len < 1) return infer_fail(c, "dft_length %lld must be positive", (long long)len);
    }
    if (nnfx_node_attr_int(c->node, "onesided", 0) && len >= 0) len = len / 2 + 1;
    c->out[0] = *x;
    c->out[0].dims[axis] = infer_dim(len);
    c->out[0].dims[x->rank - 1] = infer_dim(2);
    return NNFX_OK;
}

/* STFT(signal [B, len, 1|2], frame_step, window?, frame_length?) ->
 * [B, frames, bins, 2]: frames = (len - frame_length) / frame_step + 1,
 * bins = frame_length (onesided: frame_length / 2 + 1). */
nnfx_status infer_stft(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "signal");
    if (!s) s = infer_need(c, 1, "frame_step");
    if (s) return s;
    const nnfx_meta *x = c->in[0];
    int64_t v[1], step = -1, fl = -1;
    int nv = 0;
    bool many = false;
    if (infer_value_ints(c, 1, v, 1, &nv, &many) && nv == 1) step = v[0];
    if (nv == 1 && step < 1) return infer_fail(c, "stft frame_step %lld must be positive", (long long)step);
    if (c->nin > 3 && c->in[3]) {
        if (infer_value_ints(c, 3, v, 1, &nv, &many) && nv == 1) fl = v[0];
    } else if (c->nin > 2 && c->in[2] && c->in[2]->rank == 1) {
        fl = c->in[2]->dims[0].value;
    }
    int64_t T = x->rank == 3 ? x->dims[1].value : -1;
    int64_t frames = T >= 0 && fl > 0 && step > 0 && T >= fl ? (T - fl) / step + 1 : -1;
    int64_t bins = fl > 0 ? (nnfx_node_attr_int(c->node, "onesided", 1) ? fl / 2 + 1 : fl) : -1;
    infer_set_rank(&c->out[0], x->dtype, 4);
    c->out[0].dims[0] = x->rank == 3 ? x->dims[0] : infer_dim(-1);
    c->out[0].dims[1] = infer_dim(frames);
    c->out[0].dims[2] = infer_dim(bins);
    c->out[0].dims[3] = infer_dim(2);
    return NNFX_OK;
}

/* MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
 * upper_edge_hertz) -> [dft_length / 2 + 1, num_mel_bins] of
 * output_datatype. */
nnfx_status infer_mel_weight_matrix(nnfx_infer_ctx *c) {
    for (int i = 0; i < 5; i++) {
        nnfx_status s = infer_need(c, i, "input");
        if (s) return s;
    }
    int64_t dt = nnfx_node_attr_int(c->node, "output_datatype", NNFX_F32), v[1], bins = -1, len = -1;
    if (dt <= 0 || dt > 0x7fffffff || nnfx_dtype_size((nnfx_dtype)dt) == 0)
        return infer_fail_status(c, NNFX_ERR_UNSUPPORTED, "output_datatype %lld is not supported", (long long)dt);
    int nv = 0;
    bool many = false;
    if (infer_value_ints(c, 0, v, 1, &nv, &many) && nv == 1) bins = v[0];
    if (infer_value_ints(c, 1, v, 1, &nv, &many) && nv == 1) len = v[0];
    if ((bins >= 0 && bins < 1) || (len >= 0 && len < 1))
        return infer_fail(c, "num_mel_bins and dft_length must be positive");
    infer_set_rank(&c->out[0], (nnfx_dtype)dt, 2);
    c->out[0].dims[0] = infer_dim(len < 0 ? -1 : len / 2 + 1);
    c->out[0].dims[1] = infer_dim(bins);
    return NNFX_OK;
}
