#!/bin/bash
# Model-level checks of the coverage op families on the committed fixtures
# (tests/data/coverage, exported from PyTorch by make_models.py there):
#  1. every fixture, exported again by nnfx (nnfx export) and optimised by
#     every pass (nnfx optimize), still matches PyTorch's outputs
#     (test_real_models on the rewritten copies: relative error <= 1e-4);
#  2. nnfx analyze counts the MACs of ConvTranspose, 3-d Conv, GRU, LSTM and
#     Einsum as computed by hand from the PyTorch modules (below).
# Usage: test_coverage.sh NNFX TEST_REAL_MODELS DATA_DIR PYTHON
set -u
NNFX=$1 RUNNER=$2 DATA=$3 PY=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../lib/check.sh"

mkdir -p "$TMP/rt" "$TMP/opt"
for m in "$DATA"/*.onnx; do
    name=$(basename "$m" .onnx)
    inputs=() # validate on the fixture's own inputs (int64 ones cannot be random)
    for f in "$DATA/$name".input_*.npy; do
        i=${f##*.input_}
        inputs+=(--input "input_${i%.npy}=$f")
    done
    expect 0 "export $name" -- "$NNFX" export "$m" -o "$TMP/rt/$name.onnx"
    expect 0 "optimize $name" -- "$NNFX" optimize "$m" -o "$TMP/opt/$name.onnx" --pass fold-constants \
        --pass fuse-conv-bn --pass remove-identity --pass cse --pass dce --pass shape-prop --validate "${inputs[@]}"
    cp "$DATA/$name".*.npy "$TMP/rt/"
    cp "$DATA/$name".*.npy "$TMP/opt/"
done
expect 0 "exported copies match torch" -- env NNFX_REAL_MODELS_DIR="$TMP/rt" "$RUNNER"
expect 0 "optimised copies match torch" -- env NNFX_REAL_MODELS_DIR="$TMP/opt" "$RUNNER"

# MACs by hand (convention: ConvTranspose = input elements x (M/group) x
# kernel; RNNs = directions x steps x batch x gates*hidden x (input + hidden);
# Einsum = output elements x summed extent).
macs() { # MODEL OP -> the MACs analyze gives that op
    "$NNFX" analyze "$DATA/$1.onnx" --json - |
        "$PY" -c "import json,sys; print(sum(o['macs'] for o in json.load(sys.stdin)['op_costs'] if o['op']=='$2'))"
}
# up: ConvTranspose2d(16, 8, 2, stride 2) on [16, 8, 8]: 1024 x 8 x 4;
# up3: ConvTranspose2d(8, 8, 3, groups 2) on [8, 8, 8]: 512 x 4 x 9
check "unet ConvTranspose MACs" [ "$(macs unet_block ConvTranspose)" = $((1024 * 32 + 512 * 36)) ]
# stem [8, 8, 8, 8] out x 3*3*5*5; c1 x 8*27; c2 (groups 2) x 4*27
check "video3d Conv MACs" [ "$(macs video3d Conv)" = $((4096 * 225 + 4096 * 216 + 4096 * 108)) ]
# 2 layers x 2 dirs x (25 steps x 2 batch) x 72 x (16 + 24), then (48 + 24)
check "GRU MACs" [ "$(macs gru_kws GRU)" = $((2 * 50 * 72 * 40 + 2 * 50 * 72 * 72)) ]
# LSTM(16, 20) over 30 steps x 2: 60 x 80 x 36; bidirectional LSTM(20, 20): 2 x 60 x 80 x 40
check "LSTM MACs" [ "$(macs lstm_kws LSTM)" = $((60 * 80 * 36 + 2 * 60 * 80 * 40)) ]
# bhqk (800) x d 8, bqhd (640) x k 10, bqhe (640) x d 8
check "Einsum MACs" [ "$(macs einsum_attention Einsum)" = $((800 * 8 + 640 * 10 + 640 * 8)) ]
check_summary coverage
