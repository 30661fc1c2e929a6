/* testutil.h — small helpers shared by the cmocka test programs. */
#ifndef NNFX_TESTUTIL_H
#define NNFX_TESTUTIL_H

#include <stddef.h>

#include "nnfx.h"

/* Reads a whole file into a malloc'd buffer (*size set); NULL on failure. */
void *tu_read_file(const char *path, size_t *size);
/* Writes size bytes to path; returns 0 on success. */
int tu_write_file(const char *path, const void *data, size_t size);
/* A fresh empty directory under the build tree for this test's files;
 * returns a static buffer holding its path. */
const char *tu_tmpdir(const char *test_name);
/* Largest |a[i] - b[i]| over two float32 tensors of the same shape, or
 * INFINITY when dtypes or shapes differ. */
double tu_max_abs_diff(const nnfx_tensor *a, const nnfx_tensor *b);

#endif
