/* testutil.h — helpers shared by the cmocka test programs: data paths,
 * loading .npy references, comparing tensors with tolerances. */
#ifndef NNFX_TESTUTIL_H
#define NNFX_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the headers above first */
#include <cmocka.h>

#include "nnfx.h"

/* Writes NNFX_TEST_DATA "/" rel into buf; returns buf. */
char *tu_data_path(char *buf, size_t len, const char *rel);

/* True when the file exists and is readable. */
bool tu_file_exists(const char *path);

/* Loads tests/data/<rel> (an .npy file); fails the test when it cannot. */
nnfx_tensor *tu_load_npy(const char *rel);

/* Compares got with want: same dtype and shape, and every element within
 * |g - w| <= atol + rtol * |w| (NaNs must match). On mismatch writes a
 * description with the worst element into msg and returns false. */
bool tu_tensor_close(const nnfx_tensor *got, const nnfx_tensor *want, double atol, double rtol, char *msg, size_t len);

/* tu_tensor_close, failing the running test with its message (prefixed by
 * what) on mismatch. */
void tu_assert_close(const nnfx_tensor *got, const nnfx_tensor *want, double atol, double rtol, const char *what);

/* Fails the running test unless err holds status want and its message
 * contains every one of the given fragments (NULL-terminated list). */
void tu_assert_error(const nnfx_error *err, nnfx_status got, nnfx_status want, ...);

/* Reads a whole file into a malloc'd buffer (*size set); NULL on failure. */
void *tu_read_file(const char *path, size_t *size);
/* Writes size bytes to path; returns 0 on success. */
int tu_write_file(const char *path, const void *data, size_t size);
/* A directory under the build tree for this test's files (created if
 * missing); returns a static buffer holding its path. */
const char *tu_tmpdir(const char *test_name);
/* Largest |a[i] - b[i]| over two tensors of the same dtype and shape, or
 * INFINITY when they differ. */
double tu_max_abs_diff(const nnfx_tensor *a, const nnfx_tensor *b);

#endif
