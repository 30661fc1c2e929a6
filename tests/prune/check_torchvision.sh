#!/usr/bin/env bash
# Slow test: `nnfx prune --ratio 0.5` on torchvision families with coupled
# channels (residual, inverted residual, squeeze-excite, dense concat,
# inception concat, grouped conv, channel shuffle), random weights. Each
# pruned model must pass onnx.checker (full check), ONNX Runtime must agree
# with nnfx on it (1e-4 of the output's scale), and its MACs must be at
# most 0.6x the original's.
# Usage: check_torchvision.sh NNFX SOURCE_DIR TMP_DIR PYTHON [NAME ...]
# Exit 77 (a CTest skip) when torchvision, onnx or ONNX Runtime is missing.
set -u
NNFX=$1
SRC=$2
TMP=$3
PY=$4
shift 4
mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
command -v node >/dev/null && [ -d "$SRC/tests/ort/node_modules/onnxruntime-node" ] ||
    { echo "skip: node or onnxruntime-node (tests/ort) is missing"; exit 77; }
"$PY" "$SRC/tests/prune/export_torchvision.py" "$TMP" "$@" >"$TMP/export.log" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$TMP/export.log"; exit 77; }
[ $rc -eq 0 ] || { tail -20 "$TMP/export.log"; exit 1; }
names=${*:-resnet18 mobilenet_v2 mobilenet_v3_large efficientnet_b0 densenet121 googlenet regnet_y_400mf shufflenet_v2_x1_0 squeezenet1_1 mnasnet1_0}
for m in $names; do
    expect 0 "prune $m" -- "$NNFX" prune "$TMP/$m.onnx" -o "$TMP/${m}_p.onnx" --ratio 0.5 --report "$TMP/$m.json"
    cat "$TMP/out"
    expect 0 "run pruned $m" -- "$NNFX" run "$TMP/${m}_p.onnx" --input "$TMP/input.npy" -o "$TMP/${m}_p.out.npy"
    check "$m: onnx.checker, MACs <= 0.6x" "$PY" -c "
import json, sys, onnx
onnx.checker.check_model(onnx.load('$TMP/${m}_p.onnx'), full_check=True)
r = json.load(open('$TMP/$m.json'))
print('$m: MACs %.3fx, params %.3fx' % (r['macs_after'] / r['macs_before'], r['params_after'] / r['params_before']))
sys.exit(0 if r['macs_after'] <= 0.6 * r['macs_before'] else 1)"
    check "$m: ONNX Runtime agrees with nnfx" node "$SRC/tests/ort/ort_check.js" "$TMP/${m}_p.onnx" \
        --in "$TMP/input.npy" --ref "$TMP/${m}_p.out.npy" --tol 1e-4
done
check_summary "prune torchvision"
