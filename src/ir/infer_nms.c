/* infer_nms.c — NonMaxSuppression: the selection itself (its output size
 * depends on the data, so inference at run time runs it too) and the shape
 * inference (int64 [selected, 3]: batch, class, box). */
#include <math.h>
#include <stdlib.h>

#include "ir/infer_int.h"
#include "ir/ir_int.h"

typedef struct nms_ctx {
    const nnfx_tensor *scores;
    int64_t base;
} nms_ctx;

static bool score_before(const void *ctx, int64_t a, int64_t b) {
    const nms_ctx *c = ctx;
    return nnfx_tensor_get(c->scores, c->base + a) > nnfx_tensor_get(c->scores, c->base + b);
}

/* Box i of batch b as [y1, x1, y2, x2] with y1 <= y2, x1 <= x2. */
static void box_at(const nnfx_tensor *boxes, int64_t at, bool center, double *o) {
    double v[4];
    for (int k = 0; k < 4; k++)
        v[k] = nnfx_tensor_get(boxes, at * 4 + k);
    if (center) { /* [x_center, y_center, width, height] */
        o[0] = v[1] - v[3] / 2, o[1] = v[0] - v[2] / 2, o[2] = v[1] + v[3] / 2, o[3] = v[0] + v[2] / 2;
    } else {
        o[0] = fmin(v[0], v[2]), o[1] = fmin(v[1], v[3]), o[2] = fmax(v[0], v[2]), o[3] = fmax(v[1], v[3]);
    }
}

static double iou(const double *a, const double *b) {
    double ih = fmin(a[2], b[2]) - fmax(a[0], b[0]), iw = fmin(a[3], b[3]) - fmax(a[1], b[1]);
    if (ih <= 0 || iw <= 0) return 0;
    double inter = ih * iw, ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
    return ua > 0 ? inter / ua : 0;
}

bool ir_nms_run(const nnfx_node *n, const nnfx_tensor *boxes, const nnfx_tensor *scores, const nnfx_tensor *maxo,
                const nnfx_tensor *iou_t, const nnfx_tensor *score_t, int64_t **sel, int64_t *count, char *why,
                size_t whylen) {
    *sel = NULL;
    *count = 0;
    if (boxes->rank != 3 || scores->rank != 3 || boxes->shape[2] != 4 || boxes->shape[0] != scores->shape[0] ||
        boxes->shape[1] != scores->shape[2]) {
        snprintf(why, whylen, "boxes [B, N, 4] and scores [B, C, N] do not fit");
        return false;
    }
    int64_t B = boxes->shape[0], C = scores->shape[1], N = boxes->shape[1];
    /* PyTorch writes INT64_MAX ("no limit"): read as int64, not through a double */
    int64_t mo = maxo && nnfx_tensor_numel(maxo) > 0 ? ir_tensor_int_at0(maxo) : 0;
    double it = iou_t && nnfx_tensor_numel(iou_t) > 0 ? nnfx_tensor_get(iou_t, 0) : 0;
    bool has_st = score_t && nnfx_tensor_numel(score_t) > 0;
    double st = has_st ? nnfx_tensor_get(score_t, 0) : 0;
    bool center = nnfx_node_attr_int(n, "center_point_box", 0) != 0;
    if (mo > N) mo = N;
    int64_t cap = B * C * (mo > 0 ? mo : 0);
    int64_t *out = malloc(sizeof *out * (size_t)(3 * cap + 3));
    int64_t *ord = malloc(sizeof *ord * (size_t)(N + 1)), *kept = malloc(sizeof *kept * (size_t)(N + 1));
    double *bx = malloc(sizeof *bx * (size_t)(4 * N + 4));
    if (!out || !ord || !kept || !bx) {
        free(out), free(ord), free(kept), free(bx);
        snprintf(why, whylen, "out of memory");
        return false;
    }
    int64_t k = 0;
    for (int64_t b = 0; b < B && mo > 0; b++) {
        for (int64_t i = 0; i < N; i++)
            box_at(boxes, b * N + i, center, bx + 4 * i);
        for (int64_t c = 0; c < C; c++) {
            nms_ctx ctx = {scores, (b * C + c) * N};
            int64_t m = 0;
            for (int64_t i = 0; i < N; i++)
                if (!has_st || nnfx_tensor_get(scores, ctx.base + i) > st) ord[m++] = i;
            if (!ir_sort_idx(ord, m, score_before, &ctx)) {
                free(out), free(ord), free(kept), free(bx);
                snprintf(why, whylen, "out of memory");
                return false;
            }
            int64_t nk = 0;
            for (int64_t i = 0; i < m && nk < mo; i++) {
                bool keep = true;
                for (int64_t j = 0; j < nk && keep; j++)
                    keep = iou(bx + 4 * ord[i], bx + 4 * kept[j]) <= it;
                if (!keep) continue;
                kept[nk++] = ord[i];
                out[3 * k] = b, out[3 * k + 1] = c, out[3 * k + 2] = ord[i];
                k++;
            }
        }
    }
    free(ord), free(kept), free(bx);
    *sel = out;
    *count = k;
    return true;
}

/* NonMaxSuppression(boxes, scores, max_output_boxes_per_class?,
 * iou_threshold?, score_threshold?) -> int64 [selected, 3]. */
nnfx_status infer_nms(nnfx_infer_ctx *c) {
    nnfx_status s = infer_need(c, 0, "boxes");
    if (!s) s = infer_need(c, 1, "scores");
    if (s) return s;
    int64_t cnt = -1;
    bool known = c->in_value && c->in_value[0] && c->in_value[1];
    for (int i = 2; known && i < c->nin; i++)
        known = !c->in[i] || c->in_value[i];
    if (known) {
        int64_t *sel;
        char why[160];
        const nnfx_tensor *opt[3] = {NULL, NULL, NULL};
        for (int i = 2; i < c->nin && i < 5; i++)
            opt[i - 2] = c->in[i] ? c->in_value[i] : NULL;
        if (!ir_nms_run(c->node, c->in_value[0], c->in_value[1], opt[0], opt[1], opt[2], &sel, &cnt, why, sizeof why))
            return infer_fail(c, "%s", why);
        free(sel);
    }
    infer_set_rank(&c->out[0], NNFX_I64, 2);
    c->out[0].dims[0] = infer_dim(cnt);
    c->out[0].dims[1] = infer_dim(3);
    return NNFX_OK;
}
