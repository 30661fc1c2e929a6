/* dwconv_x86.h — one output row of a depthwise KxK convolution (K 3 or 5,
 * stride 1 or 2) read in place from unpadded input rows, the columns
 * outside a row counting as zero, with AVX2+FMA when the CPU has it
 * (chosen at run time). */
#ifndef NNFX_DWCONV_X86_H
#define NNFX_DWCONV_X86_H

#include <stdbool.h>
#include <stdint.h>

/* y[ox] = sum over ky, kx < K of k[ky * K + kx] * r[ky][ox * s - pw + kx]
 * for ox in [0, ow), a term whose column is outside [0, w) taken as zero;
 * every r[ky] holds w floats and pw >= 0.
 * Every output sums its taps in the same order. Returns false (and writes
 * nothing) when no vector path applies: the caller computes the row then. */
bool fx_dw_row(int K, int s, const float *const *r, int64_t w, int64_t pw, const float *k, float *y, int64_t ow);

#endif
