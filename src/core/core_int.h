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

#endif
