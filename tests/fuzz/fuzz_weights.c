/* fuzz_weights.c — libFuzzer target for the reader of a text IR's parameter
 * values (`m.fx.safetensors`, src/cli/weights.c): the input is written as
 * the values file of a fixed text IR with parameters of several dtypes and
 * ranks. Reading it either fails with a message or gives every parameter
 * exactly its declared bytes; what was read is written back and read again,
 * and must come back byte for byte. */
#include "cli/cli.h"
#include "fuzz_common.h"

static const char *graph_text = "graph():\n"
                                "    # param w : float32[2, 3]\n"
                                "    # param idx : int64[4]\n"
                                "    # param s : float32[]\n"
                                "    # param h : float16[1, 2]\n"
                                "    # param b : bool[3]\n"
                                "    # param e : uint8[0]\n"
                                "    %x : [num_users=1] = placeholder[target=x]  # float32[2, 3]\n"
                                "    %w : [num_users=1] = get_attr[target=w]\n"
                                "    %add : [num_users=1] = call_function[target=add](args = (%x, %w), kwargs = {})\n"
                                "    return add\n";

/* The parameters' bytes, concatenated (NULL when out of memory). */
static uint8_t *param_bytes(const nnfx_graph *g, size_t *len) {
    size_t n = 0;
    for (int i = 0; i < nnfx_graph_num_params(g); i++)
        n += nnfx_graph_param_at(g, i)->nbytes;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return NULL;
    size_t at = 0;
    for (int i = 0; i < nnfx_graph_num_params(g); i++) {
        const nnfx_tensor *t = nnfx_graph_param_at(g, i);
        if (t->nbytes) memcpy(b + at, t->data, t->nbytes);
        at += t->nbytes;
    }
    *len = n;
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_limits();
    char fx[128], values[160];
    fz_path(fx, sizeof fx, "w.fx");
    snprintf(values, sizeof values, "%s.safetensors", fx);
    if (fz_write(values, data, size)) return 0;
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_graph_parse(graph_text, &err);
    if (!g) abort(); /* the fixed graph is valid */
    if (cli_weights_attach(g, fx, NULL, &err)) {
        fz_check_error(&err);
    } else {
        for (int i = 0; i < nnfx_graph_num_params(g); i++) {
            const nnfx_tensor *t = nnfx_graph_param_at(g, i);
            size_t nb = 0;
            if (nnfx_shape_nbytes(t->dtype, t->rank, t->shape, &nb, NULL) || nb != t->nbytes) abort();
        }
        size_t n1 = 0, n2 = 0;
        uint8_t *before = param_bytes(g, &n1);
        remove(values);
        if (before && cli_weights_save(g, fx, &err) == NNFX_OK) {
            nnfx_graph *g2 = nnfx_graph_parse(graph_text, &err);
            if (!g2) abort();
            bool found = false;
            if (cli_weights_attach(g2, fx, &found, &err) || !found) abort(); /* our own file must read back */
            uint8_t *after = param_bytes(g2, &n2);
            /* every set of values, all-zero too, is written and reads back byte for byte */
            if (after && (n1 != n2 || (n1 && memcmp(before, after, n1) != 0))) abort();
            free(after);
            nnfx_graph_free(g2);
        }
        free(before);
    }
    nnfx_graph_free(g);
    remove(values);
    return 0;
}
