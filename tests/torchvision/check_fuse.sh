#!/usr/bin/env bash
# fuse-conv-bn + dce on torchvision resnet18, mobilenet_v2 and efficientnet_b0
# exported with BatchNormalization kept: no BatchNormalization may remain, and
# the optimised model's output must match PyTorch's (eager, on the same input)
# within 1e-4 of the output's scale (max |diff| / max |ref|).
# Usage: check_fuse.sh TORCH_PYTHON NNFX OUT_DIR
# Exit 77 (a CTest skip) when torch, torchvision or onnx is missing.
set -u
PY=$1
NNFX=$2
OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
MODELS="resnet18 mobilenet_v2 efficientnet_b0"
fresh=1
for m in $MODELS; do
    [ -s "$OUT/$m.onnx" ] && [ -s "$OUT/${m}_ref.npy" ] && [ "$OUT/$m.onnx" -nt "$HERE/fuse_models.py" ] || fresh=0
done
if [ $fresh = 0 ]; then
    command -v "$PY" >/dev/null || { echo "skip: no python at '$PY'"; exit 77; }
    "$PY" "$HERE/fuse_models.py" "$OUT"
    rc=$?
    [ $rc -eq 0 ] || exit $rc
fi
status=0
for m in $MODELS; do
    "$NNFX" optimize "$OUT/$m.onnx" -o "$OUT/${m}_fused.onnx" --pass fuse-conv-bn --pass dce --quiet \
        --report "$OUT/${m}_report.json" || { echo "FAIL: optimize $m"; status=1; continue; }
    "$NNFX" run "$OUT/${m}_fused.onnx" --input "input=$OUT/${m}_input.npy" -o "$OUT/${m}_out.npy" ||
        { echo "FAIL: run $m"; status=1; continue; }
    "$PY" - "$m" "$OUT/${m}_report.json" "$OUT/${m}_out.npy" "$OUT/${m}_ref.npy" <<'PY' || status=1
import json, sys
import numpy as np
name, report, got, ref = sys.argv[1], json.load(open(sys.argv[2])), np.load(sys.argv[3]), np.load(sys.argv[4])
before = report["ops_before"].get("BatchNormalization", 0)
after = report["ops_after"].get("BatchNormalization", 0)
rel = float(np.abs(got - ref).max() / np.abs(ref).max())
print("%s: BatchNormalization %d -> %d; max |diff| / max |ref| = %.2e vs PyTorch" % (name, before, after, rel))
ok = before > 0 and after == 0 and got.shape == ref.shape and rel <= 1e-4
sys.exit(0 if ok else 1)
PY
done
exit $status
