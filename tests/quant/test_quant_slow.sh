#!/usr/bin/env bash
# Label slow (minutes, ~200 MB in TMP_DIR): torchvision resnet18,
# mobilenet_v2 and resnet50 quantized by PyTorch FX (fbgemm) and exported
# as QDQ ONNX by tests/data/quant/make_qdq_models.py run in nnfx and agree
# with ONNX Runtime (optimisations off, the reference QDQ semantics) within
# the larger of 3 % of the output scale and ORT's own spread on the same
# file (its fused int8 path vs its reference path, ORT vs PyTorch), with at
# least their top-1 agreement. (These are random-weight networks: a value
# one rounding tie away from another level flips by one step depending on
# the float conv's summation order, and the flips grow through the layers;
# ORT's two paths differ by 3-17 % of the output scale on them, ORT and
# PyTorch by 7-30 %.) Then `nnfx quantize` on the float resnet18: the file passes
# onnx.checker (full), ORT runs it and agrees with nnfx, and it is >= 3.5x
# smaller than the float file.
# Usage: test_quant_slow.sh NNFX SOURCE_DIR TMP_DIR
set -u
NNFX=$1
SRC=$2
TMP=$3
mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
if [ ! -d "$SRC/tests/ort/node_modules/onnxruntime-node" ]; then
    echo "SKIP: onnxruntime-node is not installed in tests/ort (tools/install-deps.sh)"
    exit 77
fi
Q() { /usr/bin/python3 "$SRC/tests/quant/qcheck.py" "$@"; }
ORT() { node "$SRC/tests/quant/ort_run.js" "$@"; }
for m in resnet18 mobilenet_v2 resnet50; do
    if [ ! -f "$TMP/${m}_torch.npy" ]; then
        /usr/bin/python3 "$SRC/tests/data/quant/make_qdq_models.py" "$m" "$TMP" >"$TMP/$m.log" 2>&1
        rc=$?
        if [ $rc -eq 77 ]; then
            tail -1 "$TMP/$m.log"
            exit 77
        fi
        check "PyTorch FX quantizes and exports $m" [ $rc -eq 0 ]
        [ $rc -eq 0 ] || { tail -5 "$TMP/$m.log"; continue; }
    fi
    expect 0 "$m: nnfx runs PyTorch's QDQ file" -- "$NNFX" run "$TMP/${m}_qdq.onnx" --input x="$TMP/${m}_x.npy" \
        -o "$TMP/${m}_nnfx.npy"
    for o in disabled all; do
        expect 0 "$m: ORT runs it ($o)" -- ORT "$TMP/${m}_qdq.onnx" "$TMP/ort_${m}_$o" --opt $o --in x="$TMP/${m}_x.npy"
    done
    check "$m: nnfx agrees with ORT within ORT's own spread" Q floor "$TMP/${m}_nnfx.npy" \
        "$TMP/ort_${m}_disabled/y.npy" "$TMP/ort_${m}_all/y.npy" "$TMP/${m}_torch.npy"
done

# nnfx quantize on the float resnet18
R=$TMP/resnet18
expect 0 "nnfx quantize resnet18 (16 calibration images)" -- "$NNFX" quantize "${R}_float.onnx" -o "${R}_nnfx_q.onnx" \
    --calib x="${R}_calib.npy" --reduce-range
cat "$TMP/out"
check "onnx.checker (full) accepts it" Q checker "${R}_nnfx_q.onnx"
fs=$(wc -c <"${R}_float.onnx")
qs=$(wc -c <"${R}_nnfx_q.onnx")
echo "resnet18 files: float $fs bytes, int8 $qs bytes"
check "int8 resnet18 is >= 3.5x smaller than the float file ($fs -> $qs bytes)" [ $((qs * 35)) -le $((fs * 10)) ]
expect 0 "nnfx runs it" -- "$NNFX" run "${R}_nnfx_q.onnx" --input x="${R}_x.npy" -o "${R}_nnfx_q.npy"
expect 0 "ORT runs it" -- ORT "${R}_nnfx_q.onnx" "$TMP/ort_r18q" --opt all --in x="${R}_x.npy"
check "ORT agrees with nnfx on it" Q agree "${R}_nnfx_q.npy" "$TMP/ort_r18q/y.npy" 0.03
check_summary quant_torchvision
