#!/usr/bin/env bash
# No wrong result passes unnoticed: every command that reads weights refuses a text
# IR whose values file is missing (exit 3, naming the file); the text IR's
# values round-trip for every parameter set and name (all zeros, the
# safetensors-reserved __metadata__), read back independently with numpy and
# python3-onnx; quantize --exclude naming nothing is a usage error that says
# how nnfx names ONNX nodes; a saturating int32 bias is reported and NaN/Inf
# parameters are refused; batch lists with a NUL byte are refused.
# usage: test_refusals.sh NNFX SOURCE_DIR TMP
set -u
NNFX=$1 SRC=$2 TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
PY=/usr/bin/python3
if ! $PY -c "import onnx, numpy" 2>/dev/null; then
    echo "SKIP: needs python3-onnx and python3-numpy"
    exit 77
fi
D=$SRC/tests/data/digits
cnn=$D/digits_cnn.onnx
x=$D/digits_test_x.npy
y=$D/digits_test_y.npy
$PY "$SRC/tests/refusals/make_models.py" "$TMP" || exit 1

# --- a text IR without its values file: refused wherever weights are read ---------------
"$NNFX" inspect "$cnn" >"$TMP/wl.fx"
missing="wl.fx.safetensors is missing"
for cmd in "codegen $TMP/wl.fx -o $TMP/wl_c" \
    "quantize $TMP/wl.fx -o $TMP/wl_q.onnx --calib $x" \
    "prune $TMP/wl.fx -o $TMP/wl_p.onnx --ratio 0.5" \
    "analyze $cnn --compare $TMP/wl.fx --input $x --labels $y" \
    "analyze $TMP/wl.fx --compare $cnn --input $x --labels $y" \
    "analyze $TMP/wl.fx --sparsity" \
    "run $TMP/wl.fx --input $x" \
    "compare $TMP/wl.fx $cnn --random 1" \
    "export $TMP/wl.fx -o $TMP/wl.onnx"; do
    # shellcheck disable=SC2086
    expect 3 "weightless text IR: ${cmd%% *}" -- "$NNFX" $cmd
    check "${cmd%% *}: names the missing values file" grep -q "$missing" "$TMP/err"
done
check "nothing written" test ! -e "$TMP/wl_c" -a ! -e "$TMP/wl_q.onnx" -a ! -e "$TMP/wl_p.onnx" -a ! -e "$TMP/wl.onnx"
expect 0 "shapes only: analyze" -- "$NNFX" analyze "$TMP/wl.fx" -q
expect 0 "shapes only: analyze --compare without labels" -- "$NNFX" analyze "$cnn" --compare "$TMP/wl.fx" -q
expect 0 "shapes only: text to text" -- "$NNFX" export "$TMP/wl.fx" -o "$TMP/wl2.fx"
check "and no values are invented" test ! -e "$TMP/wl2.fx.safetensors"

# --- the values round-trip: all zeros, reserved names ------------------------------------
for m in zero reserved; do
    expect 0 "$m: to text IR" -- "$NNFX" export "$TMP/$m.onnx" -o "$TMP/$m.fx"
    check "$m: the values file is written" test -s "$TMP/$m.fx.safetensors"
    check "$m: safetensors read independently: every initializer under its name" $PY -c "
import json, struct, numpy as np, onnx
from onnx import numpy_helper
b = open('$TMP/$m.fx.safetensors', 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n]); data = b[8 + n:]
meta = h.pop('__metadata__', {})
assert all(isinstance(v, str) for v in meta.values()), meta  # safetensors: a str -> str map
keys = {meta.get('nnfx.key.' + k, k): k for k in ['__metadata__']}
inits = {i.name: numpy_helper.to_array(i) for i in onnx.load('$TMP/$m.onnx').graph.initializer}
got = {keys.get(k, k): v for k, v in h.items()}
assert set(got) == set(inits), (sorted(got), sorted(inits))
for k, a in inits.items():
    e = got[k]; s, t = e['data_offsets']
    v = np.frombuffer(data[s:t], dtype='<f4').reshape(e['shape'])
    assert np.array_equal(v, a), k"
    expect 0 "$m: back to ONNX" -- "$NNFX" export "$TMP/$m.fx" -o "$TMP/${m}_back.onnx"
    check "$m: every initializer as it was (python3-onnx)" $PY -c "
import numpy as np, onnx
from onnx import numpy_helper
a = {i.name: numpy_helper.to_array(i) for i in onnx.load('$TMP/$m.onnx').graph.initializer}
b = {i.name: numpy_helper.to_array(i) for i in onnx.load('$TMP/${m}_back.onnx').graph.initializer}
assert set(a) == set(b), (sorted(a), sorted(b))
assert all(np.array_equal(a[k], b[k]) for k in a)"
done
# --- quantize --exclude naming nothing: a usage error that says how nnfx names nodes ------
q=(quantize "$cnn" -o "$TMP/q.onnx" --calib "$x" -q)
expect 2 "--exclude with the ONNX node name" -- "$NNFX" "${q[@]}" --exclude /conv2/Conv
check "says which nnfx node that is" grep -q "'/conv2/Conv' is the ONNX node's own name; nnfx names each node after the value it computes, here '_conv2_Conv_output_0'" "$TMP/err"
expect 2 "--exclude with the ONNX output name" -- "$NNFX" "${q[@]}" --exclude /conv2/Conv_output_0
check "says which nnfx node that is" grep -q "the ONNX value '/conv2/Conv_output_0' is the node nnfx names '_conv2_Conv_output_0'" "$TMP/err"
expect 2 "--exclude with a name like none" -- "$NNFX" "${q[@]}" --exclude conv2
check "lists the closest layer names" grep -q "the closest: '_conv2_Conv_output_0'" "$TMP/err"
expect 2 "--exclude with an op type the model lacks" -- "$NNFX" "${q[@]}" --exclude MatMul
check "says so" grep -q "has no MatMul node" "$TMP/err"
check "nothing written" test ! -e "$TMP/q.onnx"
expect 0 "--exclude with the nnfx name" -- "$NNFX" "${q[@]}" --exclude _conv2_Conv_output_0 --report "$TMP/q.json"
check "that layer stays float" $PY -c "
import json; r = json.load(open('$TMP/q.json'))
l = [l for l in r['layers'] if l['node'] == '_conv2_Conv_output_0']
assert l and not l[0]['quantized'] and l[0]['float_because'] == 'excluded (--exclude)', l"
# --- int32 bias saturation is reported and fails the check; NaN/Inf parameters refused ---
gq=(--calib "$TMP/calib.npy" -q)
expect 1 "a saturating int32 bias fails the check" -- "$NNFX" quantize "$TMP/gemm_big_bias.onnx" -o "$TMP/gq.onnx" \
    "${gq[@]}" --report "$TMP/gq.json"
check "a warning on stderr names the layer" grep -q "warning: .*the int32 bias of y saturates in 2 channels" "$TMP/err"
check "nothing written" test ! -e "$TMP/gq.onnx"
check "the report marks the layer and has the finding; numpy agrees on the channels" $PY -c "
import json, numpy as np, onnx
from onnx import numpy_helper
r = json.load(open('$TMP/gq.json'))
assert r['exit_code'] == 1 and r['output'] is None, r
L = r['layers'][0]
i = {t.name: numpy_helper.to_array(t) for t in onnx.load('$TMP/gemm_big_bias.onnx').graph.initializer}
x = np.load('$TMP/calib.npy')
xs = (max(x.max(), 0) - min(x.min(), 0)) / 255.0           # uint8 activations
ws = np.abs(i['w']).max(axis=0) / 127.0                     # per output channel (Gemm: axis 1)
want = int((np.abs(np.rint(i['b'] / (xs * ws))) > 2**31 - 1).sum())
assert want == 2 and L['bias_saturated_channels'] == want, (L, want)
f = r['findings']
assert [(e['kind'], e['node'], e['channels']) for e in f] == [('bias_saturated', 'y', want)], f"
expect 0 "--exclude keeps it float" -- "$NNFX" quantize "$TMP/gemm_big_bias.onnx" -o "$TMP/gq2.onnx" "${gq[@]}" \
    --exclude y
expect 0 "--auto-exclude keeps it float" -- "$NNFX" quantize "$TMP/gemm_big_bias.onnx" -o "$TMP/gq3.onnx" "${gq[@]}" \
    --input "$TMP/calib.npy" --labels "$TMP/labels.npy" --max-accuracy-drop 100 --auto-exclude --report "$TMP/gq3.json"
check "the layer is float, no finding left" $PY -c "
import json; r = json.load(open('$TMP/gq3.json'))
assert not r['layers'][0]['quantized'] and r['findings'] == [], r"
expect 3 "a NaN bias is refused" -- "$NNFX" quantize "$TMP/gemm_nan_bias.onnx" -o "$TMP/gq4.onnx" "${gq[@]}"
check "naming the parameter" grep -q "parameter 'b' (the bias of y) holds NaN at index 1" "$TMP/err"
expect 3 "an infinite weight is refused" -- "$NNFX" quantize "$TMP/gemm_inf_weight.onnx" -o "$TMP/gq5.onnx" "${gq[@]}"
check "naming the parameter" grep -q "parameter 'w' (the weight of y) holds inf at index 7" "$TMP/err"
check "nothing written" test ! -e "$TMP/gq4.onnx" -a ! -e "$TMP/gq5.onnx"

# --- a NUL byte in an optimize --batch list: refused, naming the line --------------------
mlp=$D/digits_mlp.onnx
printf '%s\n\0%s\n' "$cnn" "$mlp" >"$TMP/list.txt"
expect 3 "--batch list with a NUL byte" -- "$NNFX" optimize --batch "$TMP/list.txt" -o "$TMP/batch_out" -q
check "names the list and the line" grep -q "list.txt:2: a NUL byte" "$TMP/err"
check "nothing written" test ! -e "$TMP/batch_out/digits_cnn.onnx"
printf '%s\n%s\n' "$cnn" "$mlp" >"$TMP/list2.txt"
expect 0 "the same list without it" -- "$NNFX" optimize --batch "$TMP/list2.txt" -o "$TMP/batch_out2" -q
check "both models written" test -s "$TMP/batch_out2/digits_cnn.onnx" -a -s "$TMP/batch_out2/digits_mlp.onnx"
check_summary refusals
