/* infer_layout.c — shape inference of the coverage ops that rearrange or
 * create tensors: DepthToSpace, SpaceToDepth, EyeLike, CastLike, the
 * window functions (Hann, Hamming, Blackman) and Det. */
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
