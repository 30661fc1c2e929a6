#!/usr/bin/env bash
# Models that nnfx writes run in ONNX Runtime with PyTorch's outputs: every
# real-model fixture, the coverage fixtures (RNNs, ConvTranspose, 3-d conv,
# Einsum, If/Loop control flow) and the digits CNN, (1) exported as they are, (2) after
# fuse-conv-bn + fold-constants + cse + dce (a rewritten graph), (3) exported
# with external data. References are PyTorch's outputs saved by the fixture
# scripts, so neither nnfx nor ONNX Runtime checks itself.
# Usage: test_ort_export.sh NNFX SOURCE_DIR TMP_DIR
# Exit 77 (a CTest skip) when node or onnxruntime-node is missing.
set -u
NNFX=$1
SRC=$2
TMP=$3
HERE=$SRC/tests/ort
command -v node >/dev/null || { echo "skip: node is not installed"; exit 77; }
[ -d "$HERE/node_modules/onnxruntime-node" ] ||
    { echo "skip: onnxruntime-node is not installed in tests/ort (tools/install-deps.sh installs it)"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP"
pass=0
fail=0
ort() { # ort MODEL INPUTS REFS (comma-separated .npy lists, in input / output order)
    local args=() f
    IFS=',' read -ra ins <<<"$2"
    IFS=',' read -ra refs <<<"$3"
    for f in "${ins[@]}"; do args+=(--in "$f"); done
    for f in "${refs[@]}"; do args+=(--ref "$f"); done
    if node "$HERE/ort_check.js" "$1" "${args[@]}"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
# every input_K / output_K of a fixture, K in order
npys() { # npys DIR BASE KIND
    local k=0 list=""
    while [ -f "$1/$2.$3_$k.npy" ]; do
        list="$list${list:+,}$1/$2.$3_$k.npy"
        k=$((k + 1))
    done
    echo "$list"
}
cases=""
for RM in "$SRC/tests/data/real_models" "$SRC/tests/data/coverage"; do
    for m in "$RM"/*.onnx; do
        b=$(basename "$m" .onnx)
        cases="$cases $m|$(npys "$RM" "$b" input)|$(npys "$RM" "$b" output)"
    done
done
D=$SRC/tests/data/digits
cases="$cases $D/digits_cnn.onnx|$D/digits_test_x.npy|$D/digits_cnn_logits.npy"
for c in $cases; do
    IFS='|' read -r model input ref <<<"$c"
    b=$(basename "$model" .onnx)
    if "$NNFX" export "$model" -o "$TMP/$b.onnx"; then ort "$TMP/$b.onnx" "$input" "$ref"; else
        echo "FAIL: nnfx export $b"
        fail=$((fail + 1))
    fi
    if "$NNFX" optimize "$model" -o "$TMP/${b}_opt.onnx" --pass fuse-conv-bn --pass fold-constants --pass cse \
        --pass dce --quiet; then ort "$TMP/${b}_opt.onnx" "$input" "$ref"; else
        echo "FAIL: nnfx optimize $b"
        fail=$((fail + 1))
    fi
    if "$NNFX" export "$model" -o "$TMP/${b}_ext.onnx" --external-data; then
        ort "$TMP/${b}_ext.onnx" "$input" "$ref"
    else
        echo "FAIL: nnfx export --external-data $b"
        fail=$((fail + 1))
    fi
done
# Recurrent nodes with non-default activations (no PyTorch reference: ONNX
# Runtime is the reference): nnfx's outputs on the model as written and ONNX
# Runtime's on nnfx's export of it must both agree with ONNX Runtime.
RA=$SRC/tests/data/coverage/ort
for m in "$RA"/*.onnx; do
    b=$(basename "$m" .onnx)
    if "$NNFX" run "$m" --input "X=$RA/$b.input_0.npy" --output-dir "$TMP/$b.out" --quiet &&
        "$NNFX" export "$m" -o "$TMP/${b}_rt.onnx"; then
        for mm in "$m" "$TMP/${b}_rt.onnx"; do
            if node "$HERE/ort_check.js" "$mm" --in "X=$RA/$b.input_0.npy" --ref "$TMP/$b.out/Y.npy" \
                --ref "$TMP/$b.out/Y_h.npy"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
        done
    else
        echo "FAIL: nnfx run/export $b"
        fail=$((fail + 1))
    fi
done
echo "onnx runtime on nnfx-written models: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
