/* fuzz_common.h — shared pieces of the libFuzzer targets: a budget so no
 * input can ask for gigabytes, scratch files per process, and running a
 * loaded graph once on small inputs. */
#ifndef NNFX_FUZZ_COMMON_H
#define NNFX_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nnfx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure must say why. */
static inline void fz_check_error(const nnfx_error *err) {
    if (err->status == NNFX_OK || !err->msg[0]) abort();
}

/* 64 MiB of tensors at most: larger requests are refused cleanly. */
static inline void fz_limits(void) {
    if (nnfx_memory_limit() == 0) nnfx_set_memory_limit((size_t)64 << 20);
}

/* A scratch file name for this process: /tmp/nnfx_fuzz_<pid>_<tag>. */
static inline void fz_path(char *buf, size_t len, const char *tag) {
    snprintf(buf, len, "/tmp/nnfx_fuzz_%d_%s", (int)getpid(), tag);
}

static inline int fz_write(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    fclose(f);
    return w == size ? 0 : -1;
}

/* Shape inference, planning and one run of g (consumed) on seeded inputs
 * when every input has a static shape of at most 4096 elements. */
static inline void fz_run_graph(nnfx_graph *g) {
    nnfx_error err = {0};
    int nin = nnfx_graph_num_inputs(g);
    if (nin > 8) {
        nnfx_graph_free(g);
        return;
    }
    nnfx_tensor *in[8] = {0};
    bool ok = true;
    for (int i = 0; i < nin && ok; i++) {
        const nnfx_meta *m = nnfx_node_meta_c(nnfx_graph_input(g, i), 0);
        if (!m || m->rank < 0 || !nnfx_meta_is_static(m)) {
            ok = false;
            break;
        }
        int64_t dims[NNFX_MAX_RANK];
        for (int d = 0; d < m->rank; d++)
            dims[d] = m->dims[d].value;
        int64_t n = nnfx_shape_numel(m->rank, dims);
        if (n < 0 || n > 4096) {
            ok = false;
            break;
        }
        nnfx_dtype dt = m->dtype == NNFX_DTYPE_UNDEFINED ? NNFX_F32 : m->dtype;
        in[i] = nnfx_tensor_new(dt, m->rank, dims, &err);
        if (!in[i]) {
            ok = false;
            break;
        }
        if (dt == NNFX_F32) nnfx_tensor_fill_uniform(in[i], (uint64_t)i + 1, -2.0f, 2.0f);
    }
    nnfx_gm *gm = nnfx_gm_new(g, &err); /* owns g from here */
    if (!gm) {
        nnfx_graph_free(g);
    } else {
        if (nnfx_gm_recompile(gm, &err)) {
            fz_check_error(&err);
        } else if (ok) {
            nnfx_tensor *outs[16] = {0};
            int nout = 0;
            if (nnfx_gm_run(gm, nin, in, 16, outs, &nout, &err)) fz_check_error(&err);
            for (int i = 0; i < nout && i < 16; i++)
                nnfx_tensor_release(outs[i]);
        }
        nnfx_gm_free(gm);
    }
    for (int i = 0; i < nin; i++)
        nnfx_tensor_release(in[i]);
}

#endif
