/* clock.h — core's clock (clock.c), a narrow header the command includes
 * too. */
#ifndef NNFX_CORE_CLOCK_H
#define NNFX_CORE_CLOCK_H

#include <stdint.h>

/* A monotonic clock in nanoseconds (clock.c), for timings and spin limits. */
int64_t core_now_ns(void);

#endif
