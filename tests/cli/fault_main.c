/* fault_main.c — the nnfx command with test-only fault injection, for the
 * whole-workflow sweep (tests/cli/fault_sweep.py). The shipped nnfx binary
 * never reads these variables: only this test entry point does.
 *   NNFX_FAULT_ALLOC=k   the k-th heap allocation (library and command) fails
 *   NNFX_FAULT_IO=k      the k-th file operation (open, mkstemp, read, write,
 *                        fsync, close, rename, link, mkdir, mmap) fails with EIO
 *   NNFX_FAULT_COUNTS=F  at exit, writes "ALLOCATIONS FILE_OPERATIONS" to F
 * It is src/cli/main.c with its main renamed, called after arming. */
#include <stdio.h>
#include <stdlib.h>

#include "core/core_int.h"

int nnfx_command_main(int argc, char **argv);
#define main nnfx_command_main
#include "cli/main.c"
#undef main

static const char *counts_file;

/* Writes the counts of the run (atexit, so that a command's exit() counts). */
static void write_counts(void) {
    long allocs = nnfx_alloc_count(), ios = core_io_count();
    FILE *f = fopen(counts_file, "w");
    if (!f) return;
    fprintf(f, "%ld %ld\n", allocs, ios);
    fclose(f);
}

int main(int argc, char **argv) {
    const char *a = getenv("NNFX_FAULT_ALLOC"), *io = getenv("NNFX_FAULT_IO");
    counts_file = getenv("NNFX_FAULT_COUNTS");
    if (counts_file && *counts_file) atexit(write_counts);
    nnfx_alloc_fail_at(a ? atol(a) : 0);
    core_io_fail_at(io ? atol(io) : 0);
    return nnfx_command_main(argc, argv);
}
