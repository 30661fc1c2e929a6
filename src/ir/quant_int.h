/* quant_int.h — quantization parameters shared by the inference of the
 * quantized ops (src/ir/infer_quant.c), their reference kernels
 * (src/exec/kernels/quant.c) and the quantization library (src/quant/).
 *
 * ONNX's affine quantization: q = saturate(round_half_even(x / scale) + zp),
 * x = (q - zp) * scale. Scale and zero point are scalars (per tensor) or
 * 1-D of the length of the quantized axis (per axis). */
#ifndef NNFX_QUANT_INT_H
#define NNFX_QUANT_INT_H

#include <math.h>

#include "rt/nnfx_rt_scalar.h"
#include "nnfx.h"

/* True for the integer element types a quantized tensor may have
 * (int8, uint8, int16, uint16). */
bool ir_quant_is_qtype(nnfx_dtype dt);

/* Smallest and largest value of quantized type dt (a qtype). */
void ir_quant_range(nnfx_dtype dt, int32_t *lo, int32_t *hi);

/* Checks the values of a scale tensor and an optional zero-point tensor of
 * node n: every scale finite and > 0, zero point of a qtype (or int32 when
 * allow_i32, where it must be 0) and of the scale's shape; `axis_len` (>= 0
 * when the quantized axis length is known) must equal the number of scales
 * when they are per axis. `what` names the pair ("y_scale", "w_scale").
 * NNFX_ERR_SHAPE naming the node and the bad element otherwise. */
nnfx_status ir_quant_check(const nnfx_node *n, const char *what, const nnfx_tensor *scale, const nnfx_tensor *zp,
                           int64_t axis_len, bool allow_i32, nnfx_error *err);

/* q = saturate(round_half_even(x / scale) + zp) into [lo, hi], computed in
 * float32 as the ONNX reference does; a NaN input quantizes to the zero
 * point. One definition with the generated C: nnfx_rt_quantize. */
static inline int32_t ir_quant_one(float x, float scale, int32_t zp, int32_t lo, int32_t hi) {
    return nnfx_rt_quantize(x, scale, zp, lo, hi);
}

#endif
