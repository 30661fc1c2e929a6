#!/usr/bin/env bash
# QDQ models run by nnfx's compiled plan (int8 kernels, each ISA path the CPU
# has) agree with ONNX Runtime on the same file: max |diff| <= 3 % of the
# largest output and the same top-1 per row.
# qdq_matmul is checked at ONNX Runtime's "basic" optimization level: its
# QDQ MatMul fusion ("all", onnxruntime-node 1.30) gives wrong values for
# per-column weight scales (the unfused graph, PyTorch and nnfx agree).
# Usage: check_qdq_ort.sh NNFX SOURCE_DIR TMP_DIR   (exit 77: ORT missing)
set -u
NNFX=$1
SRC=$2
TMP=$3
ORT=$SRC/tests/ort
D=$SRC/tests/data/qdq
command -v node >/dev/null || { echo "skip: node is not installed"; exit 77; }
[ -d "$ORT/node_modules/onnxruntime-node" ] ||
    { echo "skip: onnxruntime-node is not installed in tests/ort (tools/install-deps.sh installs it)"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP"
fail=0
for c in qdq_cnn:all qdq_matmul:basic qdq_fx_small:all; do
    m=${c%%:*}
    opt=${c##*:}
    for isa in portable avx2 default; do
        if ! NNFX_ISA=$isa "$NNFX" run "$D/$m.onnx" --input "$D/${m}_x.npy" -o "$TMP/${m}_$isa.npy" --quiet; then
            echo "FAIL: nnfx run $m ($isa)"
            fail=1
            continue
        fi
        echo "$m, nnfx int8 path $isa:"
        node "$ORT/ort_check.js" "$D/$m.onnx" --in "$D/${m}_x.npy" --ref "$TMP/${m}_$isa.npy" --tol 0.03 --top1 \
            --opt "$opt" || fail=1
    done
done
exit $fail
