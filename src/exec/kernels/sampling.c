/* sampling.c — kernels that sample an image at computed positions (through
 * double, any float dtype):
 *  - GridSample (2-d; bilinear, nearest or bicubic; zeros, border or
 *    reflection padding; align_corners) with PyTorch's grid_sampler_2d
 *    semantics, which ONNX's GridSample follows: X [N, C, H, W], grid
 *    [N, Ho, Wo, 2] (x, y in [-1, 1]) -> [N, C, Ho, Wo];
 *  - RoiAlign (avg or max over sampling_ratio^2 bilinear samples per bin,
 *    half_pixel or output_half_pixel coordinates) as torchvision/ORT. */
#include <math.h>
#include <string.h>

#include "rt/nnfx_rt_float.h"
#include "rt/nnfx_rt_indexed.h"
#include "exec/kernels/kernels_int.h"

typedef enum { PAD_ZEROS, PAD_BORDER, PAD_REFLECT } pad_mode;

/* The coordinate rules: src/rt/nnfx_rt_float.h (grid_coord), shared with the generated C. */
static double unnormalize(double c, int64_t size, bool align) { return nnfx_rt_gs_unnormalize(c, (long)size, align); }

static double pad_coord(double c, int64_t size, pad_mode pm, bool align) {
    return nnfx_rt_gs_pad(c, (long)size, (int)pm, align);
}

typedef struct plane {
    const nnfx_tensor *x;
    int64_t off, H, W;
} plane;

static double at(const plane *p, int64_t y, int64_t x) {
    if (y < 0 || y >= p->H || x < 0 || x >= p->W) return 0;
    return nnfx_tensor_get(p->x, p->off + y * p->W + x);
}

static double cc1(double x, double A) { return nnfx_rt_gs_cc1(x, A); }
static double cc2(double x, double A) { return nnfx_rt_gs_cc2(x, A); }

nnfx_status kern_grid_sample(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                             nnfx_error *err) {
    if (nin < 2 || !in[0] || !in[1] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "grid_sample needs X and grid");
    const nnfx_tensor *x = in[0], *g = in[1];
    if (x->rank != 4 || g->rank != 4 || g->shape[3] != 2 || g->shape[0] != x->shape[0])
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "grid_sample supports X [N, C, H, W] and grid [N, Ho, Wo, 2]");
    const char *mode = ir_attr_string(n, "mode");
    const char *pms = ir_attr_string(n, "padding_mode");
    bool align = ir_attr_int(n, "align_corners") != 0;
    int m = strcmp(mode, "bilinear") == 0  ? 0
            : strcmp(mode, "nearest") == 0 ? 1
            : strcmp(mode, "bicubic") == 0 ? 2
                                           : -1;
    pad_mode pm = strcmp(pms, "zeros") == 0        ? PAD_ZEROS
                  : strcmp(pms, "border") == 0     ? PAD_BORDER
                  : strcmp(pms, "reflection") == 0 ? PAD_REFLECT
                                                   : (pad_mode)-1;
    if (m < 0 || (int)pm < 0)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "mode '%s' / padding_mode '%s'", mode, pms);
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3], Ho = g->shape[1], Wo = g->shape[2];
    for (int64_t b = 0; b < N; b++)
        for (int64_t oy = 0; oy < Ho; oy++)
            for (int64_t ox = 0; ox < Wo; ox++) {
                int64_t gi = ((b * Ho + oy) * Wo + ox) * 2;
                double gx = nnfx_tensor_get(g, gi), gy = nnfx_tensor_get(g, gi + 1);
                double ix = unnormalize(gx, W, align), iy = unnormalize(gy, H, align);
                for (int64_t c = 0; c < C; c++) {
                    plane p = {x, (b * C + c) * H * W, H, W};
                    double v = 0;
                    if (m == 2) {
                        double x0 = floor(ix), y0 = floor(iy), tx = ix - x0, ty = iy - y0, A = -0.75;
                        double wx[4] = {cc2(tx + 1, A), cc1(tx, A), cc1(1 - tx, A), cc2(2 - tx, A)};
                        double wy[4] = {cc2(ty + 1, A), cc1(ty, A), cc1(1 - ty, A), cc2(2 - ty, A)};
                        for (int j = 0; j < 4; j++)
                            for (int i = 0; i < 4; i++) {
                                double sx = pad_coord(x0 - 1 + i, W, pm, align),
                                       sy = pad_coord(y0 - 1 + j, H, pm, align);
                                v += wy[j] * wx[i] * at(&p, (int64_t)sy, (int64_t)sx);
                            }
                    } else {
                        double sx = pad_coord(ix, W, pm, align), sy = pad_coord(iy, H, pm, align);
                        if (m == 1) {
                            v = at(&p, (int64_t)nearbyint(sy), (int64_t)nearbyint(sx));
                        } else {
                            double x0 = floor(sx), y0 = floor(sy), tx = sx - x0, ty = sy - y0;
                            int64_t xi = (int64_t)x0, yi = (int64_t)y0;
                            v = at(&p, yi, xi) * (1 - tx) * (1 - ty) + at(&p, yi, xi + 1) * tx * (1 - ty) +
                                at(&p, yi + 1, xi) * (1 - tx) * ty + at(&p, yi + 1, xi + 1) * tx * ty;
                        }
                    }
                    kern_set(out[0], ((b * C + c) * Ho + oy) * Wo + ox, v);
                }
            }
    return NNFX_OK;
}

/* RoiAlign(X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R])
 * -> [R, C, output_height, output_width]. */
nnfx_status kern_roi_align(const nnfx_node *n, int nin, nnfx_tensor *const *in, int nout, nnfx_tensor *const *out,
                           nnfx_error *err) {
    if (nin < 3 || !in[0] || !in[1] || !in[2] || nout < 1 || !out[0])
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "roi_align needs X, rois and batch_indices");
    const nnfx_tensor *x = in[0], *rois = in[1], *bi = in[2];
    if (x->rank != 4 || rois->rank != 2 || rois->shape[1] != 4 || nnfx_tensor_numel(bi) != rois->shape[0])
        return kern_fail(err, n, NNFX_ERR_SHAPE, "roi_align needs X [N, C, H, W], rois [R, 4], batch_indices [R]");
    int64_t C = x->shape[1], H = x->shape[2], W = x->shape[3], R = rois->shape[0];
    int64_t PH = ir_attr_int(n, "output_height"), PW = ir_attr_int(n, "output_width");
    int64_t sr = ir_attr_int(n, "sampling_ratio");
    double scale = ir_attr_float(n, "spatial_scale");
    bool half = strcmp(ir_attr_string(n, "coordinate_transformation_mode"), "half_pixel") == 0;
    bool mx = strcmp(ir_attr_string(n, "mode"), "max") == 0;
    const int tx = kern_rt_float_tcode(x->dtype), tr = kern_rt_float_tcode(rois->dtype),
              ty = kern_rt_float_tcode(out[0]->dtype);
    if (tx < 0 || tr < 0 || ty < 0 || bi->dtype != NNFX_I64)
        return kern_fail(err, n, NNFX_ERR_UNSUPPORTED, "roi_align of %s values and %s batch indices",
                         nnfx_dtype_name(x->dtype), nnfx_dtype_name(bi->dtype));
    const long bad =
        nnfx_rt_roi_align(x->data, tx, rois->data, tr, bi->data, out[0]->data, ty, (long)x->shape[0], (long)C, (long)H,
                          (long)W, (long)R, (long)PH, (long)PW, (long)sr, scale, half, mx);
    if (bad)
        return kern_fail(err, n, NNFX_ERR_RUNTIME, "batch index %lld out of range",
                         (long long)((const int64_t *)bi->data)[bad - 1]);
    return NNFX_OK;
}
