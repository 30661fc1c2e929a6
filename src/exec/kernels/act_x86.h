/* act_x86.h — sigmoid, x * sigmoid(x) and tanh over a row with AVX-512 or
 * AVX2+FMA when the CPU has it (chosen at run time), for the fused conv
 * epilogue. */
#ifndef NNFX_ACT_X86_H
#define NNFX_ACT_X86_H

#include <stdbool.h>
#include <stdint.h>

/* y[i] = sigmoid(y[i]) (silu false) or y[i] * sigmoid(y[i]) (silu true) for
 * i in [0, n), exp by the same clamped degree-6 polynomial as
 * fx_sigmoid_fast, with its error bounds (fast_int.h). Returns false (y
 * untouched) when the CPU lacks AVX2+FMA. */
bool fx_sigmoid_row(float *y, int64_t n, bool silu);

/* y[i] = tanh(y[i]) for i in [0, n) by the rational function of
 * fx_tanh_fast (same error bound, fast_int.h). Returns false (y untouched)
 * when the CPU lacks AVX2+FMA. */
bool fx_tanh_row(float *y, int64_t n);

#endif
