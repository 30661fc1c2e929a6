/* core_int.h — private helpers of the core layer. */
#ifndef NNFX_CORE_INT_H
#define NNFX_CORE_INT_H

#include "nnfx.h"

/* splitmix64 step: next pseudo-random 64-bit value. */
uint64_t core_rng_next(uint64_t *state);
/* Uniform float in [lo, hi) from the generator state. */
float core_rng_uniform(uint64_t *state, float lo, float hi);
/* IEEE half -> float. */
float core_half_to_float(uint16_t h);
/* double -> IEEE half, rounded to nearest even in one step (no double
 * rounding through float); overflow gives +-inf, NaN a quiet NaN. */
uint16_t core_double_to_half(double v);

/* True for a mapped tensor whose data is not aligned for its dtype. The
 * ONNX loader leaves large unaligned initializers (raw_data rarely lands on
 * a 4-byte boundary) in the file instead of copying them at load time; the
 * graph's parameter accessors call core_tensor_materialize on first use. */
bool core_tensor_unaligned(const nnfx_tensor *t);
/* Copies an unaligned mapped tensor into aligned owned memory, in place
 * (same tensor object), releases its mapping reference and drops the file
 * pages it covered from the process. No-op for any other tensor. */
nnfx_status core_tensor_materialize(nnfx_tensor *t, nnfx_error *err);

/* True when the AVX2 + FMA kernel paths may run: the CPU has them and
 * NNFX_ISA=portable is not set in the environment. Probed once. */
bool core_cpu_avx2_fma(void);
/* Name of the vector path the kernels take ("avx2+fma" or "portable"). */
const char *core_cpu_isa_name(void);

/* Unmaps from this process the whole pages of [p, p + nbytes) that lie in
 * mapping m (read-only, private: the file and its page cache are not
 * touched, a later read faults the pages in again). No-op for NULL m or a
 * range outside it. */
void core_mapping_drop(const nnfx_mapping *m, const void *p, size_t nbytes);

#endif
