/* arena_plan.h — offsets of values in one activation arena, from their
 * sizes and lifetimes (src/exec/arena_plan.c).
 *
 * This is how the compiled plan (fast_plan.c) places its arena values; the
 * plan then keeps each value's offset in its fx_val.off and the arena size in
 * fx_plan.arena_bytes (fx_plan_peak_bytes adds the graph inputs), which is
 * where code that reads the plan (the C generator, other steps) finds them. */
#ifndef NNFX_ARENA_PLAN_H
#define NNFX_ARENA_PLAN_H

#include <stdint.h>

#include "nnfx.h"

/* Offsets are multiples of this, and every block takes its size rounded up
 * to it. */
#define FX_ARENA_ALIGN 64

/* One value to place: it occupies `bytes` from step `def` to step `last`
 * (inclusive, def <= last). `off` is the result. */
typedef struct fx_block {
    int64_t bytes;
    int def, last;
    int64_t off;
} fx_block;

/* Greedy by size: blocks in order of decreasing size (ties: lower index
 * first), each at the lowest offset where it overlaps no placed block whose
 * lifetime meets its own. The placed blocks whose lifetimes meet a block's
 * are found through a max-tree over the blocks sorted by `def`, so the cost
 * is O(n log n + sum k log k), k the number of such blocks per block (the
 * values live at the same time), not O(n^2). Sets every off and returns the
 * arena size in bytes; -1 with err set on out-of-memory. */
int64_t fx_arena_assign(fx_block *b, int n, nnfx_error *err);

#endif
