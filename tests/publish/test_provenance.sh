#!/usr/bin/env bash
# Provenance of written models: export and optimize record producer nnfx,
# nnfx.version, nnfx.source_sha256, nnfx.steps and nnfx.validation, keep the
# source's node and value names, and honour --opset (an error where the forms
# do not fit). Read back with python3-onnx (check_provenance.py).
# usage: test_provenance.sh NNFX SOURCE_DIR TMP
set -u
NNFX=$1 SRC=$2 TMP=$3
mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
here=$SRC/tests/publish
D=$SRC/tests/data/digits
PY=/usr/bin/python3
if ! $PY -c 'import onnx' 2>/dev/null; then echo "SKIP: python3-onnx is not installed"; exit 77; fi
cnn=$D/digits_cnn.onnx

expect 0 "export writes" -- "$NNFX" export "$cnn" -o "$TMP/exp.onnx"
expect 0 "export provenance" -- $PY "$here/check_provenance.py" "$TMP/exp.onnx" "$cnn" --steps '[]' --opset 13 \
    --names-from "$cnn"
expect 0 "export --opset 17" -- "$NNFX" export "$cnn" -o "$TMP/exp17.onnx" --opset 17
expect 0 "opset 17 written" -- $PY "$here/check_provenance.py" "$TMP/exp17.onnx" "$cnn" --opset 17
expect 3 "export --opset 11 is refused" -- "$NNFX" export "$cnn" -o "$TMP/exp11.onnx" --opset 11
check "the refusal says why" grep -q "opset 11 is not supported.*down-conversion" "$TMP/err"
check "nothing written on refusal" test ! -e "$TMP/exp11.onnx"

# a form that needs a newer opset than asked: HardSwish (opset 14)
cat >"$TMP/hs.fx" <<'FX'
graph():
    %x : [num_users=1] = placeholder[target=x]  # float32[1, 4]
    %y : [num_users=1] = call_function[target=hard_swish](args = (%x,), kwargs = {})  # float32[1, 4]
    return (%y,)
FX
expect 3 "export --opset 13 of a HardSwish is refused" -- "$NNFX" export "$TMP/hs.fx" -o "$TMP/hs13.onnx" --opset 13
check "the refusal names the node and the opset" grep -q "cannot hold node y: HardSwish needs opset 14" "$TMP/err"
expect 0 "export --opset 14 of a HardSwish" -- "$NNFX" export "$TMP/hs.fx" -o "$TMP/hs14.onnx" --opset 14

steps='[{"pass": "fuse-conv-bn", "changed": 2}, {"rewrite": "relu(x) -> relu(x)", "matches": 2}, {"pass": "dce", "changed": 0}]'
expect 0 "optimize with validation and labels" -- "$NNFX" optimize "$cnn" -o "$TMP/opt.onnx" -q --pass fuse-conv-bn \
    --rewrite 'relu(x) -> relu(x)' --pass dce --validate --input "$D/digits_test_x.npy" \
    --labels "$D/digits_test_y.npy" --max-accuracy-drop 0.5
expect 0 "optimize provenance" -- $PY "$here/check_provenance.py" "$TMP/opt.onnx" "$cnn" --steps "$steps" --validation \
    --names-from "$cnn"
expect 0 "optimize without checks" -- "$NNFX" optimize "$cnn" -o "$TMP/opt2.onnx" -q --pass dce --opset 15
expect 0 "no nnfx.validation without checks" -- $PY "$here/check_provenance.py" "$TMP/opt2.onnx" "$cnn" \
    --steps '[{"pass": "dce", "changed": 0}]' --opset 15
# a second round records its own source (the first round's output)
expect 0 "optimize an nnfx output" -- "$NNFX" optimize "$TMP/opt2.onnx" -o "$TMP/opt3.onnx" -q --pass cse
expect 0 "second round's source hash" -- $PY "$here/check_provenance.py" "$TMP/opt3.onnx" "$TMP/opt2.onnx" \
    --steps '[{"pass": "cse", "changed": 0}]'
# --pass a,b is --pass a --pass b (was refused as an unknown pass)
expect 0 "optimize --pass a,b,c" -- "$NNFX" optimize "$cnn" -o "$TMP/opt4.onnx" -q --pass fuse-conv-bn,dce,cse
expect 0 "three passes recorded in order" -- $PY "$here/check_provenance.py" "$TMP/opt4.onnx" "$cnn" \
    --steps '[{"pass": "fuse-conv-bn", "changed": 2}, {"pass": "dce", "changed": 0}, {"pass": "cse", "changed": 0}]'
expect 2 "an empty name in a --pass list" -- "$NNFX" optimize "$cnn" -o "$TMP/opt5.onnx" --pass dce,,cse
check_summary provenance
