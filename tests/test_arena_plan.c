/* test_arena_plan.c — the arena planner (src/exec/arena_plan.c): no two
 * values live at the same time share a byte (brute force over random
 * lifetimes), the offsets are those of the direct quadratic greedy search
 * it replaces, and the arenas of the real fixtures are no larger than they
 * were with that search. */
#include <stdlib.h>
#include <string.h>

#include "exec/arena_plan.h"
#include "testutil.h"

static uint32_t rng = 2024;
static uint32_t next(void) {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

static int64_t rnd(int64_t b) { return b ? (int64_t)FX_ARENA_ALIGN * ((b + FX_ARENA_ALIGN - 1) / FX_ARENA_ALIGN) : 0; }

/* The direct search: values by decreasing size, each moved past every
 * placed value it meets (in time and space) until it meets none. */
static int64_t reference(fx_block *b, int n) {
    int *order = malloc(sizeof *order * (size_t)n);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) {
        int x = order[i], j = i - 1;
        while (j >= 0 && (b[order[j]].bytes < b[x].bytes || (b[order[j]].bytes == b[x].bytes && order[j] > x))) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = x;
    }
    int64_t top = 0;
    for (int i = 0; i < n; i++) {
        fx_block *v = &b[order[i]];
        int64_t off = 0;
        for (bool moved = true; moved;) {
            moved = false;
            for (int j = 0; j < i; j++) {
                const fx_block *o = &b[order[j]];
                if (o->last < v->def || v->last < o->def) continue;
                if (off < o->off + rnd(o->bytes) && o->off < off + rnd(v->bytes)) {
                    off = o->off + rnd(o->bytes);
                    moved = true;
                }
            }
        }
        v->off = off;
        if (off + rnd(v->bytes) > top) top = off + rnd(v->bytes);
    }
    free(order);
    return top;
}

/* Fails unless every block lies in [0, top), is aligned, and no two blocks
 * whose lifetimes meet share a byte. */
static void check_no_overlap(const fx_block *b, int n, int64_t top) {
    for (int i = 0; i < n; i++) {
        assert_true(b[i].off >= 0 && b[i].off % FX_ARENA_ALIGN == 0);
        assert_true(b[i].off + b[i].bytes <= top);
        for (int j = i + 1; j < n; j++) {
            if (b[i].last < b[j].def || b[j].last < b[i].def) continue;
            if (!b[i].bytes || !b[j].bytes) continue;
            if (b[i].off < b[j].off + b[j].bytes && b[j].off < b[i].off + b[i].bytes)
                fail_msg("blocks %d [%d,%d] @%lld+%lld and %d [%d,%d] @%lld+%lld overlap", i, b[i].def, b[i].last,
                         (long long)b[i].off, (long long)b[i].bytes, j, b[j].def, b[j].last, (long long)b[j].off,
                         (long long)b[j].bytes);
        }
    }
}

static void random_blocks(fx_block *b, int n, int steps, int maxlen, int64_t maxbytes) {
    for (int i = 0; i < n; i++) {
        int def = (int)(next() % (uint32_t)steps);
        int len = (int)(next() % (uint32_t)maxlen);
        /* a few sizes repeat, so ties in the order are exercised */
        int64_t bytes = next() % 4 == 0 ? 256 : (int64_t)(next() % (uint32_t)maxbytes);
        b[i] = (fx_block){bytes, def, def + len < steps ? def + len : steps - 1, -1};
    }
}

static void test_random_lifetimes(void **state) {
    (void)state;
    static const struct {
        int n, steps, maxlen;
        int64_t maxbytes;
    } cases[] = {{1, 1, 1, 100},        {2, 2, 2, 100},    {50, 20, 20, 5000},
                 {300, 300, 5, 100000}, {400, 50, 50, 64}, {800, 2000, 400, 1 << 20},
                 {1000, 100, 3, 7000}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int rep = 0; rep < 4; rep++) {
            int n = cases[c].n;
            fx_block *b = malloc(sizeof *b * (size_t)n), *r = malloc(sizeof *r * (size_t)n);
            random_blocks(b, n, cases[c].steps, cases[c].maxlen, cases[c].maxbytes);
            memcpy(r, b, sizeof *b * (size_t)n);
            nnfx_error err = {0};
            int64_t top = fx_arena_assign(b, n, &err);
            assert_true(top >= 0);
            check_no_overlap(b, n, top);
            int64_t rtop = reference(r, n);
            assert_int_equal(top, rtop);
            for (int i = 0; i < n; i++)
                assert_int_equal(b[i].off, r[i].off);
            free(b);
            free(r);
        }
    nnfx_error err = {0};
    assert_int_equal(fx_arena_assign(NULL, 0, &err), 0);
}

/* A long chain of equal values (each read by the next step) packs into two
 * slots, whatever its length; it takes well under a second. */
static void test_chain(void **state) {
    (void)state;
    int n = 200000;
    fx_block *b = malloc(sizeof *b * (size_t)n);
    for (int i = 0; i < n; i++)
        b[i] = (fx_block){1000, i, i + 1, -1};
    nnfx_error err = {0};
    int64_t top = fx_arena_assign(b, n, &err);
    assert_int_equal(top, 2 * rnd(1000));
    for (int i = 0; i + 1 < n; i++)
        assert_true(b[i].off + b[i].bytes <= b[i + 1].off || b[i + 1].off + b[i + 1].bytes <= b[i].off);
    free(b);
}

/* Peak bytes (arena + inputs) of the compiled plans of the real fixtures,
 * measured with the quadratic search this planner replaced: never more;
 * and the layout-only figure (what analyze reports, no weight read) is the
 * built plan's. The tiny_vit figures are their compiled plans' since the
 * plan takes Split (the interpreter's estimate before, 30976 and 15744,
 * counted a tuple as freed once its getitems had run: too low; the live
 * values at the split alone are 30464 bytes of tiny_vit's arena). */
static void test_fixture_arenas(void **state) {
    (void)state;
    static const struct {
        const char *rel;
        int64_t before;
    } fx[] = {{"real_models/mini_resnet.onnx", 32768},
              {"real_models/mini_squeezenet.onnx", 46540},
              {"real_models/mobile_blocks.onnx", 99072},
              {"real_models/tiny_cnn.onnx", 26624},
              {"real_models/tiny_vit.onnx", 40960},
              {"real_models/tiny_vit_opset13.onnx", 20480},
              {"onnx/convnet.onnx", 4096},
              {"onnx/mlp.onnx", 320}};
    int compiled = 0;
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        char path[512];
        nnfx_error err = {0};
        nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, fx[i].rel), &err);
        if (!g) fail_msg("%s: %s", fx[i].rel, err.msg);
        nnfx_gm *gm = nnfx_gm_new(g, &err);
        assert_non_null(gm);
        int64_t peak = nnfx_gm_peak_activation_bytes(gm, &err);
        if (peak < 0) fail_msg("%s: %s", fx[i].rel, err.msg);
        if (peak > fx[i].before)
            fail_msg("%s: arena+inputs %lld > %lld before", fx[i].rel, (long long)peak, (long long)fx[i].before);
        /* that figure came from the plan's layout alone (no kernels built);
         * the built plan has the same arena */
        bool interp = true;
        assert_int_equal(nnfx_gm_compile(gm, &interp, &err), NNFX_OK);
        if (!interp) assert_int_equal(nnfx_gm_peak_activation_bytes(gm, &err), peak);
        compiled += !interp;
        nnfx_gm_free(gm);
    }
    assert_int_equal(compiled, 7); /* convnet: a symbolic batch */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_lifetimes),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_fixture_arenas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
