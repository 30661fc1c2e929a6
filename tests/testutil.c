/* testutil.c — helpers shared by the cmocka test programs. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/stat.h>

char *tu_data_path(char *buf, size_t len, const char *rel) {
    snprintf(buf, len, "%s/%s", NNFX_TEST_DATA, rel);
    return buf;
}

bool tu_file_exists(const char *path) { return access(path, R_OK) == 0; }

nnfx_tensor *tu_load_npy(const char *rel) {
    char path[1024];
    nnfx_error err = {0};
    nnfx_tensor *t = nnfx_npy_load(tu_data_path(path, sizeof path, rel), &err);
    if (!t) fail_msg("cannot load %s: %s", rel, err.msg);
    return t;
}

bool tu_tensor_close(const nnfx_tensor *got, const nnfx_tensor *want, double atol, double rtol, char *msg, size_t len) {
    char b1[160], b2[160];
    if (!got || !want) {
        snprintf(msg, len, "missing tensor (got %p, want %p)", (const void *)got, (const void *)want);
        return false;
    }
    if (got->dtype != want->dtype || got->rank != want->rank ||
        memcmp(got->shape, want->shape, sizeof(int64_t) * (size_t)got->rank) != 0) {
        snprintf(msg, len, "got %s%s, want %s%s", nnfx_dtype_name(got->dtype),
                 nnfx_shape_str(got->rank, got->shape, b1, sizeof b1), nnfx_dtype_name(want->dtype),
                 nnfx_shape_str(want->rank, want->shape, b2, sizeof b2));
        return false;
    }
    int64_t n = nnfx_tensor_numel(got), worst = -1, bad = 0;
    double worst_excess = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = nnfx_tensor_get(got, i), w = nnfx_tensor_get(want, i);
        if (isnan(g) || isnan(w)) {
            if (isnan(g) != isnan(w)) {
                bad++;
                if (worst < 0 || worst_excess < INFINITY) worst = i, worst_excess = INFINITY;
            }
            continue;
        }
        if (got->dtype == NNFX_I64 && ((const int64_t *)got->data)[i] != ((const int64_t *)want->data)[i]) {
            bad++;
            if (worst < 0) worst = i, worst_excess = 1;
            continue;
        }
        double excess = fabs(g - w) - (atol + rtol * fabs(w));
        if (excess > 0) {
            bad++;
            if (excess > worst_excess || worst < 0) worst = i, worst_excess = excess;
        }
    }
    if (!bad) return true;
    /* the multi-index of the worst element */
    int64_t idx[NNFX_MAX_RANK], rem = worst;
    for (int d = got->rank - 1; d >= 0; d--) {
        idx[d] = got->shape[d] ? rem % got->shape[d] : 0;
        rem = got->shape[d] ? rem / got->shape[d] : 0;
    }
    snprintf(msg, len, "%lld of %lld elements differ (atol %g, rtol %g); worst at %s: got %.9g, want %.9g",
             (long long)bad, (long long)n, atol, rtol, nnfx_shape_str(got->rank, idx, b1, sizeof b1),
             nnfx_tensor_get(got, worst), nnfx_tensor_get(want, worst));
    return false;
}

void tu_assert_close(const nnfx_tensor *got, const nnfx_tensor *want, double atol, double rtol, const char *what) {
    char msg[512];
    if (!tu_tensor_close(got, want, atol, rtol, msg, sizeof msg)) fail_msg("%s: %s", what, msg);
}

void tu_assert_error(const nnfx_error *err, nnfx_status got, nnfx_status want, ...) {
    if (got != want)
        fail_msg("expected status '%s', got '%s' (%s)", nnfx_status_name(want), nnfx_status_name(got), err->msg);
    if (err->status != want)
        fail_msg("err->status is '%s', expected '%s'", nnfx_status_name(err->status), nnfx_status_name(want));
    va_list ap;
    va_start(ap, want);
    for (const char *frag; (frag = va_arg(ap, const char *));) {
        if (!strstr(err->msg, frag)) {
            va_end(ap);
            fail_msg("error message '%s' lacks '%s'", err->msg, frag);
        }
    }
    va_end(ap);
}

void *tu_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *size = (size_t)n;
    }
    return buf;
}

int tu_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    int rc = fclose(f);
    return (w == size && rc == 0) ? 0 : -1;
}

const char *tu_tmpdir(const char *test_name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/test_tmp", NNFX_BINARY_DIR);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/test_tmp/%s", NNFX_BINARY_DIR, test_name);
    mkdir(path, 0755);
    return path;
}

double tu_max_abs_diff(const nnfx_tensor *a, const nnfx_tensor *b) {
    if (!a || !b || a->dtype != b->dtype || a->rank != b->rank) return INFINITY;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i]) return INFINITY;
    double m = 0;
    int64_t n = nnfx_tensor_numel(a);
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(nnfx_tensor_get(a, i) - nnfx_tensor_get(b, i));
        if (d > m || d != d) m = d != d ? INFINITY : d;
    }
    return m;
}
