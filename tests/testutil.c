/* testutil.c — helpers shared by the cmocka test programs. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
