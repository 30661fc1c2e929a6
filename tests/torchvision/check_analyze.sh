#!/usr/bin/env bash
# `nnfx analyze --json` on torchvision's resnet18 and mobilenet_v2, against
# figures computed independently by export_models.py (python onnx, PyTorch):
#  - params = the float initializers' elements (the model's weights); float
#    Constant nodes (mobilenet_v2's 70 Clip bounds) are constants, not weights;
#  - macs = Conv and Gemm multiply-accumulates counted from ONNX shape
#    inference, and within 2 % of torchvision's published 1.81 G and 0.30 G;
#  - one foldable_batch_norm finding per BatchNormalization that follows a Conv.
# The models are exported on demand into OUT_DIR (not committed, ~60 MB).
# Usage: check_analyze.sh TORCH_PYTHON NNFX OUT_DIR
# Exit 77 (a CTest skip) when torch, torchvision or onnx is missing.
set -u
PY=$1
NNFX=$2
OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
EXPORT=$HERE/export_models.py
MODELS="resnet18 mobilenet_v2"

fresh=1
for m in $MODELS; do
    [ -s "$OUT/$m.onnx" ] && [ -s "$OUT/$m.json" ] && [ "$OUT/$m.json" -nt "$EXPORT" ] || fresh=0
done
if [ $fresh = 0 ]; then
    if ! [ -x "$PY" ] && ! command -v "$PY" >/dev/null; then
        echo "skip: no python at '$PY' (Debian: python3-torch python3-torchvision python3-onnx)"
        exit 77
    fi
    "$PY" "$EXPORT" "$OUT"
    rc=$?
    [ $rc -eq 0 ] || exit $rc
fi

status=0
for m in $MODELS; do
    "$NNFX" analyze "$OUT/$m.onnx" --json "$OUT/$m.analysis.json" --quiet || { echo "FAIL: analyze $m"; status=1; continue; }
    python3 - "$m" "$OUT/$m.analysis.json" "$OUT/$m.json" <<'PY' || status=1
import json, sys
name, got, want = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
params = want["initializer_params"]
dev = got["macs"] / want["published_macs"] - 1
folds = sum(1 for f in got["findings"] if f["kind"] == "foldable_batch_norm")
print("%s: params %d (initializers %d; Constant-node elements not counted: %d); macs %d (counted %d; published %.2f G, %+.2f %%); "
      "foldable_batch_norm %d of %d" % (name, got["params"], want["initializer_params"], want["constant_params"],
                                        got["macs"], want["macs"], want["published_macs"] / 1e9, 100 * dev,
                                        folds, want["batch_norms"]))
fails = []
if got["params"] != params:
    fails.append("params %d, expected %d" % (got["params"], params))
if got["macs"] != want["macs"]:
    fails.append("macs %d, counted %d" % (got["macs"], want["macs"]))
if abs(dev) > 0.02:
    fails.append("macs %+.2f %% from the published figure" % (100 * dev))
if folds != want["batch_norms"]:
    fails.append("%d foldable_batch_norm findings, expected %d" % (folds, want["batch_norms"]))
for f in fails:
    print("FAIL: %s: %s" % (name, f))
sys.exit(1 if fails else 0)
PY
done
exit $status
