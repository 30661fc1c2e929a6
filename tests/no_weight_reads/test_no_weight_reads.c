/* test_no_weight_reads.c — inspect and analyze read no weight byte.
 *
 * A real model is written with its weights as ONNX external data, loaded
 * (the data file is mapped), and the data file is then truncated to zero
 * bytes: from then on, touching any page of a weight raises SIGBUS, which
 * fails the test. The same is done with inline weights (the model file
 * itself truncated after loading), where large weights stay unaligned in
 * the file until first read. What `nnfx inspect` (every format but svg)
 * and `nnfx analyze` (summary, JSON, HTML) compute after loading then runs on
 * the loaded graph, and its figures are checked against the same model
 * with inline weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/analysis.h"
#include "cli/graph_json.h"
#include "testutil.h"

/* Loads tests/data/<rel>, writes it to a temporary model whose tensors of
 * 1 KiB or more go to a side file (path in ext), and the same graph with
 * inline weights to inl. */
static void write_external(const char *rel, char *model, size_t mlen, char *ext, size_t elen, char *inl, size_t ilen) {
    char path[1024];
    nnfx_error err = {0};
    nnfx_graph *g = nnfx_onnx_load(tu_data_path(path, sizeof path, rel), &err);
    if (!g) fail_msg("%s: %s", rel, err.msg);
    const char *dir = tu_tmpdir("no_weight_reads");
    snprintf(model, mlen, "%s/model.onnx", dir);
    snprintf(ext, elen, "%s/weights.bin", dir);
    nnfx_onnx_save_options o = {.external_data = true, .external_threshold = 1024, .external_name = "weights.bin"};
    if (nnfx_onnx_save(g, model, &o, &err)) fail_msg("saving %s: %s", model, err.msg);
    snprintf(inl, ilen, "%s/inline.onnx", dir);
    if (nnfx_onnx_save(g, inl, NULL, &err)) fail_msg("saving %s: %s", inl, err.msg);
    nnfx_graph_free(g);
    assert_true(tu_file_exists(ext));
}

static void check_model(const char *rel, int64_t peak, bool inline_weights) {
    char model[1024], ext[1024], inl[1024];
    write_external(rel, model, sizeof model, ext, sizeof ext, inl, sizeof inl);
    nnfx_error err = {0};

    /* the reference: the same model with inline weights */
    nnfx_graph *ref = nnfx_onnx_load(inl, &err);
    assert_non_null(ref);
    assert_int_equal(nnfx_graph_infer_shapes(ref, &err), NNFX_OK);
    cli_analysis want;
    assert_int_equal(cli_analyze_graph(ref, rel, &want, &err), NNFX_OK);

    if (inline_weights) { /* the model file itself holds the weights */
        snprintf(model, sizeof model, "%s", inl);
        snprintf(ext, sizeof ext, "%s", inl);
    }
    nnfx_graph *g = nnfx_onnx_load(model, &err);
    if (!g) fail_msg("%s: %s", model, err.msg);
    assert_int_equal(truncate(ext, 0), 0);

    /* nnfx inspect: shapes, then each text form */
    assert_int_equal(nnfx_graph_infer_shapes(g, &err), NNFX_OK);
    char *forms[4] = {nnfx_graph_to_text(g), nnfx_graph_tabular(g), cli_graph_to_json(g), nnfx_graph_to_dot(g)};
    for (int i = 0; i < 4; i++) {
        assert_non_null(forms[i]);
        free(forms[i]);
    }
    /* nnfx analyze: the analysis and its three reports */
    cli_analysis an;
    assert_int_equal(cli_analyze_graph(g, model, &an, &err), NNFX_OK);
    char *reports[3] = {cli_analysis_summary(&an, model), cli_analysis_json(&an, model), cli_analysis_html(&an, model)};
    for (int i = 0; i < 3; i++) {
        assert_non_null(reports[i]);
        free(reports[i]);
    }
    assert_true(an.params > 0);
    assert_int_equal(an.params, want.params);
    assert_int_equal(an.param_bytes, want.param_bytes);
    assert_int_equal(an.macs, want.macs);
    assert_int_equal(an.flops, want.flops);
    assert_int_equal(an.peak_activation_bytes, want.peak_activation_bytes);
    assert_int_equal(an.peak_activation_bytes, peak);
    cli_analysis_free(&an);
    cli_analysis_free(&want);
    nnfx_graph_free(g);
    nnfx_graph_free(ref);
}

static void test_conv_nets(void **state) {
    (void)state;
    /* peak activation bytes of their compiled plans (test_arena_plan) */
    for (int inl = 0; inl < 2; inl++) {
        check_model("real_models/mini_resnet.onnx", 32768, inl);
        check_model("real_models/mobile_blocks.onnx", 99072, inl);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_nets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
