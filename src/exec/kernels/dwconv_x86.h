/* dwconv_x86.h — one output row of a depthwise KxK convolution (K 3 or 5,
 * stride 1 or 2) over zero-bordered input rows, with AVX2+FMA when the CPU
 * has it (chosen at run time). */
#ifndef NNFX_DWCONV_X86_H
#define NNFX_DWCONV_X86_H

#include <stdbool.h>
#include <stdint.h>

/* y[ox] = sum over ky, kx < K of k[ky * K + kx] * r[ky][ox * s + kx] for ox
 * in [0, ow), in that order of taps; every r[ky] holds wp >= (ow - 1) * s + K
 * floats. Returns false (and writes nothing) when no vector path applies:
 * the caller computes the row then. */
bool fx_dw_row(int K, int s, const float *const *r, int64_t wp, const float *k, float *y, int64_t ow);

#endif
