#!/usr/bin/env bash
# examples/pipeline.sh end to end: on the digits CNN it publishes a model
# that still matches PyTorch (BatchNorms folded, accuracy unchanged) with a
# report holding every step; a harmful rewrite stops it at the accuracy gate
# with exit 1 and nothing published; bad input and bad usage give 3 and 2.
# Usage: test_pipeline.sh NNFX SOURCE_DIR TMP_DIR
set -u
NNFX=$1
SRC=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
DATA=$SRC/tests/data/digits
PIPE=$SRC/examples/pipeline.sh
REFCHECK=$SRC/tests/digits/refcheck.py
. "$(cd "$(dirname "$0")" && pwd)/../lib/check.sh"
absent() { [ ! -e "$1" ]; }
json() { python3 "$REFCHECK" json "$@"; }

# --- the default run: the digits CNN with its labelled test split ------------
O=$TMP/cnn
expect 0 "pipeline on the digits CNN" -- bash "$PIPE" -o "$O" --nnfx "$NNFX"
for f in analysis.json analysis.html optimize.json optimized.onnx model.onnx analysis.after.json report.json; do
    check "writes $f" [ -s "$O/$f" ]
done
check "runs the four steps in order" eval \
    '[ "$(grep -o "^== step [0-9]: [a-z]*" "$TMP/out" | cut -c9 | tr -d "\n")" = "12334" ]'
check "before/after page with its verdict" grep -q '<p class="verdict good"><b>Improvement.</b>' "$O/report.html"
check "findings chose fuse-conv-bn" grep -q "passes from the findings: --pass fuse-conv-bn" "$TMP/out"
check "HTML report is a page with a picture of the graph" eval \
    'grep -q "<html" "$O/analysis.html" && grep -q "<svg" "$O/analysis.html"'
# 2 BatchNorms of 8 and 16 channels hold 4 x (8 + 16) = 96 parameters
check "report: the figures of every step" json "$O/report.json" "
    len([f for f in d['analysis_before']['findings'] if f['kind'] == 'foldable_batch_norm']) == 2
    and d['analysis_after']['findings'] == []
    and d['analysis_before']['ops']['BatchNormalization'] == 2
    and 'BatchNormalization' not in d['analysis_after']['ops']
    and d['analysis_after']['params'] == d['analysis_before']['params'] - 96
    and d['analysis_after']['macs'] == d['analysis_before']['macs']
    and d['optimize']['result'] == 'ok' and d['optimize']['validation']['passed'] is True
    and d['optimize']['accuracy']['samples'] == 450 and d['optimize']['accuracy']['drop_points'] == 0
    and d['published'].endswith('model.onnx')"
expect 0 "run the published model" -- "$NNFX" run "$O/model.onnx" --input x="$DATA/digits_test_x.npy" -o "$TMP/pub.npy"
check "published model: PyTorch's logits (1e-4)" \
    python3 "$REFCHECK" logits "$TMP/pub.npy" "$DATA/digits_cnn_logits.npy" "$DATA/digits_test_y.npy" 1e-4

# --- a harmful rewrite stops it at the gate -----------------------------------
O=$TMP/harm
expect 1 "pipeline refuses relu -> sigmoid" -- bash "$PIPE" -o "$O" --nnfx "$NNFX" --rewrite 'relu(x) -> sigmoid(x)'
check "harmful: stopped at step 2" grep -q "step 2 (optimize) failed with exit status 1; nothing published" "$TMP/err"
check "harmful: the gate's figures" grep -q "99.33% -> 16.00%, a drop of 83.33 points" "$TMP/err"
check "harmful: no optimized.onnx" absent "$O/optimized.onnx"
check "harmful: no model.onnx" absent "$O/model.onnx"
check "harmful: no report.json" absent "$O/report.json"
check "harmful: optimize.json says why" json "$O/optimize.json" \
    "d['exit_code'] == 1 and d['accuracy']['passed'] is False and d['output'] is None"
# a rerun into a folder with a published model must not leave it there
expect 0 "pipeline again into the first folder" -- bash "$PIPE" -o "$TMP/cnn" --nnfx "$NNFX"
expect 1 "a failing run over it" -- bash "$PIPE" -o "$TMP/cnn" --nnfx "$NNFX" --rewrite 'relu(x) -> x'
check "old model.onnx removed by the failing run" absent "$TMP/cnn/model.onnx"

# --- findings left after optimisation fail the run (--fail-on) ---------------
# identity nodes added by a harmless rewrite pass validation and the accuracy
# gate, but are 'noop' findings in the published model: the default gate stops
O=$TMP/gate
expect 1 "pipeline fails on findings left" -- bash "$PIPE" -o "$O" --nnfx "$NNFX" --rewrite 'relu(x) -> relu(identity(x))'
check "gate: stopped at step 4 with the findings named" grep -q "2 findings of the kinds in --fail-on remain: noop" "$TMP/err"
check "gate: nothing published" absent "$O/model.onnx"
expect 0 "--fail-on none publishes it" -- bash "$PIPE" -o "$O" --nnfx "$NNFX" --rewrite 'relu(x) -> relu(identity(x))' \
    --fail-on none
expect 0 "--max-accuracy-drop and --pass a,b accepted" -- bash "$PIPE" -o "$TMP/flags" --nnfx "$NNFX" \
    --max-accuracy-drop 1 --pass dce,cse
check "both passes ran" json "$TMP/flags/optimize.json" \
    "[s.get('pass') for s in d['steps']] == ['fuse-conv-bn', 'dce', 'cse']"
expect 1 "analyze --fail-on on the original model" -- "$NNFX" analyze "$DATA/digits_cnn.onnx" -q \
    --fail-on foldable_batch_norm
expect 0 "analyze --fail-on: no such findings" -- "$NNFX" analyze "$DATA/digits_cnn.onnx" -q --fail-on dead_node,noop
expect 2 "analyze --fail-on: unknown kind" -- "$NNFX" analyze "$DATA/digits_cnn.onnx" -q --fail-on folded_bn

# --- another model, given as an argument, without labels ---------------------
O=$TMP/mlp
expect 0 "pipeline on the MLP with data, no labels" -- bash "$PIPE" "$DATA/digits_mlp.onnx" -o "$O" --nnfx "$NNFX" \
    --data "$DATA/digits_test_x.npy"
check "MLP: no findings, no passes" grep -q "passes from the findings: (none)" "$TMP/out"
check "MLP: no accuracy gate" json "$O/report.json" "'accuracy' not in d['optimize']"
expect 0 "pipeline on the MLP with random inputs" -- bash "$PIPE" "$DATA/digits_mlp.onnx" -o "$TMP/mlp_r" \
    --nnfx "$NNFX" --random 3
check "random: 3 samples validated" json "$TMP/mlp_r/report.json" "d['optimize']['validation']['samples'] == 3"

# --- exit statuses ------------------------------------------------------------
expect 3 "missing model" -- bash "$PIPE" "$TMP/no_such.onnx" -o "$TMP/x" --nnfx "$NNFX"
check "missing model: stopped at step 1" grep -q "step 1 (analyze) failed with exit status 3" "$TMP/err"
printf 'not a model' >"$TMP/corrupt.onnx"
expect 3 "corrupt model" -- bash "$PIPE" "$TMP/corrupt.onnx" -o "$TMP/x" --nnfx "$NNFX"
expect 2 "unknown option" -- bash "$PIPE" --frobnicate --nnfx "$NNFX"
expect 2 "labels without data" -- bash "$PIPE" "$DATA/digits_mlp.onnx" --labels "$DATA/digits_test_y.npy" --nnfx "$NNFX"
expect 2 "no nnfx binary" -- bash "$PIPE" -o "$TMP/x" --nnfx "$TMP/no_nnfx"
expect 0 "--help" -- bash "$PIPE" --help
check "--help shows usage" grep -q "usage: examples/pipeline.sh" "$TMP/out"

check_summary "pipeline"
