/* clock.c — the one monotonic clock the library and the CLI read. */
#include <time.h>

#include "core/core_int.h"

int64_t core_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
