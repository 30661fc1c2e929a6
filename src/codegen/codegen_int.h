/* codegen_int.h — internals of the C generator (src/codegen/). */
#ifndef NNFX_CODEGEN_INT_H
#define NNFX_CODEGEN_INT_H

/* The portable kernels of src/codegen/runtime/, embedded at build time
 * (CMake turns each file into a string: runtime_text.c in the build tree).
 * Terminated by an entry with name NULL. */
typedef struct cg_runtime_file {
    const char *name; /* file name, e.g. "nnfx_rt_kernels.h" */
    const char *text; /* its whole text */
} cg_runtime_file;

extern const cg_runtime_file cg_runtime_files[];

#endif
