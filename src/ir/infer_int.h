/* infer_int.h — helpers shared by the shape-inference functions
 * (src/ir/infer_ files), the cost functions and the CPU kernels that must
 * agree with inference on window geometry (conv, pooling). */
#ifndef NNFX_INFER_INT_H
#define NNFX_INFER_INT_H

#include "core/core_int.h"
#include "ir/symbol.h"
#include "ir/op_table.h"

/* Sets c->err to NNFX_ERR_SHAPE with "node <name>: <message>"; returns it. */
nnfx_status infer_fail(const nnfx_infer_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Same as infer_fail with another status (NNFX_ERR_UNSUPPORTED ...). */
nnfx_status infer_fail_status(const nnfx_infer_ctx *c, nnfx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Writes meta m as "float32[1, 3, batch, ?]" ("?" for an unknown rank or
 * dim) into buf; returns buf. */
const char *infer_meta_str(const nnfx_meta *m, char *buf, size_t len);

/* Output meta helpers. */
void infer_set_unknown(nnfx_meta *m, nnfx_dtype dt);        /* rank -1 */
void infer_set_rank(nnfx_meta *m, nnfx_dtype dt, int rank); /* dims -1 */
void infer_set_dims(nnfx_meta *m, nnfx_dtype dt, int rank, const int64_t *dims);
/* A dim holding value v (no symbol; v < 0 means unknown). */
nnfx_dim infer_dim(int64_t v);

/* True when input i is present and its rank is known. */
bool infer_has_rank(const nnfx_infer_ctx *c, int i);

/* Checks that input i is present (with a known meta); error otherwise. */
nnfx_status infer_need(const nnfx_infer_ctx *c, int i, const char *what);

/* When input i's value is known, reads up to max integer elements into v
 * (any integer or float dtype), sets *n and returns true; returns false
 * when the value is unknown. Sets *too_many when it holds more than max. */
bool infer_value_ints(const nnfx_infer_ctx *c, int i, int64_t *v, int max, int *n, bool *too_many);

/* Normalises axis into [0, rank) (rank+1 when allow_end); false if out of
 * range. */
bool infer_axis(int64_t axis, int rank, bool allow_end, int *out);

/* Product of known dims d[lo..hi); -1 if any is unknown. */
int64_t infer_prod(const nnfx_meta *m, int lo, int hi);

/* Largest kernel, stride, dilation or pad a window accepts (2^30): products
 * of two of them stay far inside int64. */
#define IR_WINDOW_MAX ((int64_t)1 << 30)

/* Window geometry of Conv / MaxPool / AveragePool over nsp spatial dims. */
typedef struct ir_window {
    int nsp;
    int64_t k[NNFX_MAX_RANK], s[NNFX_MAX_RANK], d[NNFX_MAX_RANK];
    int64_t pb[NNFX_MAX_RANK], pe[NNFX_MAX_RANK]; /* pads begin / end */
    bool ceil_mode;
} ir_window;

/* Reads strides/dilations/pads/auto_pad/ceil_mode of node n for nsp spatial
 * dims with kernel sizes k (from the weight or kernel_shape), and resolves
 * SAME_UPPER/SAME_LOWER pads from the input sizes in_sp (-1 unknown: pads
 * left 0). Errors (bad attribute lengths or values, a value past
 * IR_WINDOW_MAX) go to err as
 * NNFX_ERR_SHAPE naming the node. */
nnfx_status ir_window_read(const nnfx_node *n, int nsp, const int64_t *k, const int64_t *in_sp, ir_window *w,
                           nnfx_error *err);

/* Output size of one spatial dim (in < 0 gives -1); may be <= 0 when the
 * window does not fit, -1 on overflow. */
int64_t ir_window_out(const ir_window *w, int i, int64_t in);

/* True for integer (and bool) element types. */
bool infer_is_int_dtype(nnfx_dtype dt);

/* Resolves ONNX Slice parameters over a shape dims[0..rank) (dims may be
 * -1): n entries of starts/ends, axes (NULL: 0..n-1) and steps (NULL: 1).
 * Fills start/step/count per dim (count -1 when the dim is unknown; dims
 * not sliced get 0/1/dim). Returns false with a reason in why. */
bool ir_slice_plan(int rank, const int64_t *dims, int n, const int64_t *starts, const int64_t *ends,
                   const int64_t *axes, const int64_t *steps, int64_t *start, int64_t *step, int64_t *count, char *why,
                   size_t whylen);

/* Resolves ONNX Pad's pads (n values; 2 * number of axes) and optional axes
 * (naxes values, NULL for all dims) into per-dim begin/end pads. */
bool ir_pad_plan(int rank, int n, const int64_t *pads, int naxes, const int64_t *axes, int64_t *pb, int64_t *pe,
                 char *why, size_t whylen);

/* The dims [*lo, *hi) that Shape node n copies from an input of rank. */
void ir_shape_op_range(const nnfx_node *n, int rank, int64_t *lo, int64_t *hi);

/* Reduction axes of a ReduceMean/Sum/Max node over rank dims: axes values
 * (n of them; n == 0 or axes NULL means none given). Sets red[d] for the
 * reduced dims; returns false with a reason. When no axes are given, every
 * dim is reduced unless noop_with_empty_axes is set. */
bool ir_reduce_plan(const nnfx_node *n, int rank, int naxes, const int64_t *axes, bool *red, char *why, size_t whylen);

/* Stable merge sort of idx[0..n) by before(ctx, a, b) (true when element a
 * must precede element b); false on out of memory. */
bool ir_sort_idx(int64_t *idx, int64_t n, bool (*before)(const void *ctx, int64_t a, int64_t b), const void *ctx);

/* Unique over the slices of x along axis (axis < 0: over the elements of
 * the flattened x), as ONNX's Unique: *u unique slices; first[u] (index of
 * its first occurrence), counts[u] and inverse[s] for each of the *ns
 * slices, malloc'd (free with free()). Sorted ascending when sorted, else in
 * order of first occurrence. False on out of memory. */
bool ir_unique_plan(const nnfx_tensor *x, int axis, bool sorted, int64_t *u, int64_t *ns, int64_t **first,
                    int64_t **inverse, int64_t **counts);

/* Number of nonzero elements of t[0..lim) (lim < 0: all). */
int64_t ir_count_nonzero(const nnfx_tensor *t, int64_t lim);
/* The same count; the flat indices of the first cap of those elements, in
 * order, are written to pos (when not NULL). Nonzero as nnfx_tensor_get(t,
 * i) != 0 (-0.0 is zero, NaN is not). */
int64_t ir_nonzero_index(const nnfx_tensor *t, int64_t lim, int64_t *pos, int64_t cap);

/* ConvTranspose geometry over nsp spatial dims: kernel k, strides s,
 * dilations d, begin pads pb (negative when output_shape asks for more
 * than the full output) and output sizes out (-1 when the input size is
 * unknown). */
typedef struct ir_convt {
    int nsp;
    int64_t k[NNFX_MAX_RANK], s[NNFX_MAX_RANK], d[NNFX_MAX_RANK], pb[NNFX_MAX_RANK], out[NNFX_MAX_RANK];
} ir_convt;

/* Reads ConvTranspose node n's attributes for input sizes in_sp (-1
 * unknown); errors name the node. */
nnfx_status ir_convt_plan(const nnfx_node *n, int nsp, const int64_t *k, const int64_t *in_sp, ir_convt *g,
                          nnfx_error *err);

/* A parsed Einsum equation: per input its labels (letters; 128 + k for the
 * k-th ellipsis dim from the right), and the output's labels. */
#define IR_EINSUM_MAX_IN 8
typedef struct ir_einsum {
    int nin, nlab[IR_EINSUM_MAX_IN], lab[IR_EINSUM_MAX_IN][NNFX_MAX_RANK];
    int nout, out[NNFX_MAX_RANK];
} ir_einsum;

/* Parses equation eq for nin inputs of the given ranks; false with a
 * reason in why. */
bool ir_einsum_parse(const char *eq, int nin, const int *ranks, ir_einsum *p, char *why, size_t whylen);

/* NonMaxSuppression of node n (center_point_box) over boxes [B, N, 4] and
 * scores [B, C, N] with the optional scalar inputs (NULL: absent): *sel
 * (malloc'd) holds *count rows (batch, class, box). False with a reason. */
bool ir_nms_run(const nnfx_node *n, const nnfx_tensor *boxes, const nnfx_tensor *scores, const nnfx_tensor *maxo,
                const nnfx_tensor *iou_t, const nnfx_tensor *score_t, int64_t **sel, int64_t *count, char *why,
                size_t whylen);

#endif
