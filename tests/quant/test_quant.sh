#!/usr/bin/env bash
# int8 quantization end to end (default suite, ~20 s):
#  - `nnfx quantize` on the digits CNN (and the keyword-spotting model of
#    tests/data/kws when the tree has it) calibrated on 64 samples stays within
#    1.0 top-1 point of PyTorch's float accuracy on the held-out split
#    (ONNX Runtime's answers on the written file), the file passes
#    onnx.checker (full), its weights are int8 initializers read through
#    DequantizeLinear, and ONNX Runtime agrees with nnfx on it: exactly
#    with graph optimisations off (the reference QDQ semantics), and within
#    3 % of the output scale with the same top-1 with them on (its fused
#    QLinearConv; --reduce-range, since ORT's AVX2 u8 x s8 kernels saturate
#    int16 pair sums of full-range int8 weights);
#  - every method, int8 activations, per-tensor weights, --exclude and
#    --keep-first-last-float write models that ORT runs and agrees with;
#  - the gate refuses a drop (exit 1, nothing written, the lowest-SQNR
#    layers named) and --auto-exclude keeps layers float until it passes;
#  - a float conv model's weights shrink >= 3.5x;
#  - PyTorch's FX-quantized QDQ fixture (make_qdq_models.py) runs in nnfx
#    and agrees with ORT and PyTorch;
#  - bad input: scale 0 / NaN / negative, per-axis length, int32 zero point,
#    calibration data of the wrong shape -> exit 3 naming the node or input,
#    nothing written; usage errors -> exit 2.
# Usage: test_quant.sh NNFX SOURCE_DIR TMP_DIR
set -u
NNFX=$1
SRC=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
if ! /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null; then
    echo "SKIP: python3-onnx and numpy are needed"
    exit 77
fi
if [ ! -d "$SRC/tests/ort/node_modules/onnxruntime-node" ]; then
    echo "SKIP: onnxruntime-node is not installed in tests/ort (tools/install-deps.sh)"
    exit 77
fi
Q() { /usr/bin/python3 "$SRC/tests/quant/qcheck.py" "$@"; }
ORT() { node "$SRC/tests/quant/ort_run.js" "$@"; }
has() { grep -qF -- "$1" "$TMP/out" "$TMP/err"; }
D=$SRC/tests/data/digits

# --- digits CNN: 64 calibration samples, 386 held out ---------------------------
Q split "$D/digits_test_x.npy" "$D/digits_test_y.npy" 64 "$TMP"
GATE=(--input x="$TMP/held_x.npy" --labels "$TMP/held_y.npy" --max-accuracy-drop 1.0)
expect 0 "quantize the digits CNN (gate 1.0 point)" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/cnn_q.onnx" \
    --calib x="$TMP/calib.npy" "${GATE[@]}" --report "$TMP/rep.json"
check "the summary names the layers and the accuracy" has "3 of 3 layers int8"
check "onnx.checker (full) accepts the file" Q checker "$TMP/cnn_q.onnx"
check "weights are int8 initializers behind DequantizeLinear" Q int8weights "$TMP/cnn_q.onnx"
expect 0 "nnfx runs it" -- "$NNFX" run "$TMP/cnn_q.onnx" --input x="$TMP/held_x.npy" -o "$TMP/cnn_q_nnfx.npy"
expect 0 "ORT runs it (optimisations off)" -- ORT "$TMP/cnn_q.onnx" "$TMP/ort_off" --opt disabled --in x="$TMP/held_x.npy"
check "ORT (reference QDQ semantics) and nnfx agree exactly" Q agree "$TMP/cnn_q_nnfx.npy" "$TMP/ort_off/logits.npy" 1e-6
check "within 1.0 point of PyTorch's float top-1 on the held-out split (ORT's answers)" \
    Q drop "$D/digits_cnn_logits.npy" "$TMP/ort_off/logits.npy" "$TMP/held_y.npy" 1.0
check "the report has every layer's SQNR" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$TMP/rep.json'))
sys.exit(not (len(d['layers']) == 3 and all(l['sqnr_db'] > 20 for l in d['layers']) and d['bn_folded'] == 2))"
expect 0 "quantize with --reduce-range" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/cnn_rr.onnx" \
    --calib x="$TMP/calib.npy" --reduce-range "${GATE[@]}"
expect 0 "nnfx runs it" -- "$NNFX" run "$TMP/cnn_rr.onnx" --input x="$TMP/held_x.npy" -o "$TMP/cnn_rr_nnfx.npy"
expect 0 "ORT runs it (all optimisations: fused int8 kernels)" -- ORT "$TMP/cnn_rr.onnx" "$TMP/ort_rr" --opt all \
    --in x="$TMP/held_x.npy"
check "ORT's int8 kernels agree with nnfx (3 % of the output scale, same top-1)" \
    Q agree "$TMP/cnn_rr_nnfx.npy" "$TMP/ort_rr/logits.npy" 0.03
check "still within 1.0 point (ORT's answers)" Q drop "$D/digits_cnn_logits.npy" "$TMP/ort_rr/logits.npy" \
    "$TMP/held_y.npy" 1.0

# --- the keyword-spotting model (tests/data/kws), when the tree has it ----------------
K=$SRC/tests/data/kws
if [ -f "$K/kws.onnx" ]; then
    mkdir -p "$TMP/kws"
    Q split "$K/kws_test_x.npy" "$K/kws_test_y.npy" 64 "$TMP/kws"
    expect 0 "quantize the keyword model (64 calibration samples, gate 1.0 point)" -- "$NNFX" quantize "$K/kws.onnx" \
        -o "$TMP/kws_q.onnx" --calib x="$TMP/kws/calib.npy" --input x="$TMP/kws/held_x.npy" \
        --labels "$TMP/kws/held_y.npy" --max-accuracy-drop 1.0
    check "kws: onnx.checker (full)" Q checker "$TMP/kws_q.onnx"
    expect 0 "kws: nnfx runs it" -- "$NNFX" run "$TMP/kws_q.onnx" --input x="$TMP/kws/held_x.npy" -o "$TMP/kws_n.npy"
    expect 0 "kws: ORT runs it" -- ORT "$TMP/kws_q.onnx" "$TMP/kws_ort" --opt disabled --in x="$TMP/kws/held_x.npy"
    # 3 % of the output scale, same top-1: an int8 plan may put a tie one step away
    check "kws: ORT and nnfx agree" Q agree "$TMP/kws_n.npy" "$TMP/kws_ort/logits.npy" 0.03
    check "kws: within 1.0 point of PyTorch's float top-1 on the held-out split (ORT's answers)" \
        Q drop "$K/kws_logits.npy" "$TMP/kws_ort/logits.npy" "$TMP/kws/held_y.npy" 1.0
else
    echo "note: tests/data/kws is not in this tree; the keyword model checks did not run"
fi

# --- --activations int8: every op int8 (TFLite's convention) -------------------------
# Element-wise regions with one input (x*sigmoid(x), an erf GELU, HardSwish,
# Tanh...) get Q/DQ at their input and output only, Add/Mul/Concat at each
# input, pooling/means/Softmax at input and output, Reshape-like ops and
# MaxPool keep their input's parameters, graph outputs are DQ(int8) under
# their own names. ORT (both levels) agrees with nnfx within the int8 tolerance (nnfx
# requantizes int8 -> int8 in TFLite's fixed point).
Q allops "$TMP/allops.onnx"
expect 0 "quantize every op (--activations int8)" -- "$NNFX" quantize "$TMP/allops.onnx" -o "$TMP/allq.onnx" \
    --calib x="$TMP/allops_x.npy" --activations int8
check "the summary counts the other ops (a region is one)" has "3 of 3 layers int8, 12 other ops"
check "every op reads int8 values (DQ), outputs DQ(int8)" Q allq "$TMP/allq.onnx"
check "onnx.checker (full)" Q checker "$TMP/allq.onnx"
expect 0 "nnfx runs it" -- "$NNFX" run "$TMP/allq.onnx" --input x="$TMP/allops_x.npy" --output-dir "$TMP/allq_n"
for o in all disabled; do
    expect 0 "ORT runs it ($o)" -- ORT "$TMP/allq.onnx" "$TMP/allq_$o" --opt $o --in x="$TMP/allops_x.npy"
    for y in y p; do
        # nnfx runs the int8 ops in TFLite's fixed point (table lookups exact): a value on a
        # rounding tie may land a step away from ORT's float QDQ reference
        check "ORT ($o) and nnfx agree on $y" Q agree "$TMP/allq_n/$y.npy" "$TMP/allq_$o/$y.npy" 0.03
    done
done
if [ -f "$K/kws.onnx" ]; then
    # MSE ranges: with MinMax's the fixed-point plan drops 1.1 points (93.75 %), with MSE none
    expect 0 "quantize the keyword model int8 everywhere (MSE ranges, gate 1.0 point)" -- "$NNFX" quantize \
        "$K/kws.onnx" -o "$TMP/kws_q8.onnx" --calib x="$TMP/kws/calib.npy" --activations int8 --method mse \
        --input x="$TMP/kws/held_x.npy" \
        --labels "$TMP/kws/held_y.npy" --max-accuracy-drop 1.0
    check "kws: every op int8" Q allq "$TMP/kws_q8.onnx"
    expect 0 "kws int8: nnfx runs it" -- "$NNFX" run "$TMP/kws_q8.onnx" --input x="$TMP/kws/held_x.npy" \
        -o "$TMP/kws_q8_n.npy"
    expect 0 "kws int8: ORT runs it" -- ORT "$TMP/kws_q8.onnx" "$TMP/kws_q8_ort" --opt disabled \
        --in x="$TMP/kws/held_x.npy"
    check "kws int8: ORT and nnfx agree" Q agree "$TMP/kws_q8_n.npy" "$TMP/kws_q8_ort/logits.npy" 0.03
    check "kws int8: within 1.0 point of PyTorch's float top-1 (ORT's answers)" \
        Q drop "$K/kws_logits.npy" "$TMP/kws_q8_ort/logits.npy" "$TMP/kws/held_y.npy" 1.0
fi

# --- options: each writes a model ORT runs the same way --------------------------
variants=("--method percentile" "--method mse" "--method entropy" "--activations int8" "--per-tensor"
    "--exclude Gemm" "--keep-first-last-float" "--exclude _conv2_Conv_output_0")
i=0
for v in "${variants[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    expect 0 "quantize $v" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/v$i.onnx" --calib x="$TMP/calib.npy" $v -q
    expect 0 "$v: nnfx runs it" -- "$NNFX" run "$TMP/v$i.onnx" --input x="$TMP/held_x.npy" -o "$TMP/v$i.npy"
    expect 0 "$v: ORT runs it" -- ORT "$TMP/v$i.onnx" "$TMP/ort_v$i" --opt disabled --in x="$TMP/held_x.npy"
    # nnfx runs the int8 islands as int8 kernels (exact int32 sums, float
    # requantization): a value on a rounding tie may land one step away
    # from ORT's unfused float reference, so the bound is 3 % of the output
    # scale (with the same top-1), not float round-off
    check "$v: ORT and nnfx agree" Q agree "$TMP/v$i.npy" "$TMP/ort_v$i/logits.npy" 0.03
    check "$v: onnx.checker (full)" Q checker "$TMP/v$i.onnx"
done
check "--exclude Gemm leaves the Gemm float" /usr/bin/python3 -c "
import onnx, sys; m = onnx.load('$TMP/v6.onnx'); p = {o: n for n in m.graph.node for o in n.output}
g = [n for n in m.graph.node if n.op_type == 'Gemm'][0]; sys.exit(g.input[1] in p)"
expect 0 "--activations int8 writes int8 activation zero points" -- /usr/bin/python3 -c "
import onnx, sys; m = onnx.load('$TMP/v4.onnx'); z = [t for t in m.graph.initializer if t.name == 'x_zero_point']
sys.exit(not z or z[0].data_type != onnx.TensorProto.INT8)"

# --- the gate ------------------------------------------------------------------------
expect 1 "the gate refuses a drop (entropy, max 0 points)" -- "$NNFX" quantize "$D/digits_cnn.onnx" \
    -o "$TMP/refused.onnx" --calib x="$TMP/calib.npy" --method entropy --input x="$TMP/held_x.npy" \
    --labels "$TMP/held_y.npy" --max-accuracy-drop 0 --report "$TMP/refused.json"
check "nothing written" [ ! -e "$TMP/refused.onnx" ]
check "the error names the lowest-SQNR layers" has "lowest SQNR: _conv2_Conv_output_0"
check "the report says why" grep -q '"check failed"' "$TMP/refused.json"
expect 0 "--auto-exclude keeps layers float until the gate passes" -- "$NNFX" quantize "$D/digits_cnn.onnx" \
    -o "$TMP/auto.onnx" --calib x="$TMP/calib.npy" --method entropy --input x="$TMP/held_x.npy" \
    --labels "$TMP/held_y.npy" --max-accuracy-drop 0 --auto-exclude --report "$TMP/auto.json"
check "it kept _conv2 float" has "keeping _conv2_Conv_output_0"
check "the report has the rounds" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$TMP/auto.json'))
sys.exit(not (d['accuracy']['auto_exclude_rounds'] >= 1 and d['accuracy']['passed']))"

# --- weight bytes: a float conv model shrinks >= 3.5x -----------------------------------
Q convnet "$TMP/convnet.onnx"
expect 0 "quantize the conv model" -- "$NNFX" quantize "$TMP/convnet.onnx" -o "$TMP/convnet_q.onnx" \
    --calib x="$TMP/convnet_x.npy" -q
f=$(Q weights "$TMP/convnet.onnx")
q=$(Q weights "$TMP/convnet_q.onnx")
echo "conv model weights: float $f bytes, int8 $q bytes"
check "int8 weights >= 3.5x smaller ($f -> $q bytes)" [ $((q * 35)) -le $((f * 10)) ]
fs=$(wc -c <"$TMP/convnet.onnx")
qs=$(wc -c <"$TMP/convnet_q.onnx")
echo "conv model files: float $fs bytes, int8 $qs bytes"
check "the int8 file is >= 3.5x smaller ($fs -> $qs bytes)" [ $((qs * 35)) -le $((fs * 10)) ]

# --- PyTorch's FX-quantized fixture ---------------------------------------------------
F=$SRC/tests/data/quant
expect 0 "nnfx runs PyTorch's QDQ export" -- "$NNFX" run "$F/small_qdq.onnx" --input x="$F/small_x.npy" \
    -o "$TMP/small_nnfx.npy"
for o in all disabled; do
    expect 0 "ORT runs it ($o)" -- ORT "$F/small_qdq.onnx" "$TMP/small_$o" --opt $o --in x="$F/small_x.npy"
    check "nnfx agrees with ORT ($o): 3 % of the output scale, same top-1" \
        Q agree "$TMP/small_nnfx.npy" "$TMP/small_$o/y.npy" 0.03
done
check "nnfx agrees with PyTorch's quantized model" Q agree "$TMP/small_nnfx.npy" "$F/small_torch.npy" 0.03

# --- bad input --------------------------------------------------------------------------
Q badqdq "$TMP"
for m in scale0 scale_nan scale_neg axis_len; do
    expect 3 "$m: exit 3" -- "$NNFX" run "$TMP/$m.onnx" --input x="$TMP/x.npy" -o "$TMP/$m.npy"
    check "$m: nothing written" [ ! -e "$TMP/$m.npy" ]
done
expect 3 "scale 0" -- "$NNFX" run "$TMP/scale0.onnx" --input x="$TMP/x.npy"
check "the error names the node and the scale" has "node xq: y_scale[0] = 0; a scale must be finite and > 0"
expect 3 "per-axis length" -- "$NNFX" run "$TMP/axis_len.onnx" --input x="$TMP/x.npy"
check "the error names the node and both lengths" has "per-axis x_scale has 3 values but the quantized axis has length 4"
expect 3 "int32 zero point" -- "$NNFX" run "$TMP/zp_int32.onnx"
check "the error says the zero point is out of range" has "out of range: int32 data takes 0"
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/bad_calib.npy', np.zeros((4, 1, 7, 7), np.float32))"
expect 3 "calibration data of the wrong shape" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/bad.onnx" \
    --calib x="$TMP/bad_calib.npy"
check "the error names the input and both shapes" has "calibration data for input x has shape [4, 1, 7, 7]"
check "nothing written" [ ! -e "$TMP/bad.onnx" ]
expect 0 "nnfx runs the opset-10 Q/DQ form" -- "$NNFX" run "$TMP/opset10.onnx" --input x="$TMP/x.npy" -o "$TMP/o10.npy"
expect 0 "ORT runs it" -- ORT "$TMP/opset10.onnx" "$TMP/ort_o10" --opt disabled --in x="$TMP/x.npy"
check "they agree (saturation at 255 included)" Q agree "$TMP/o10.npy" "$TMP/ort_o10/y.npy" 1e-6
expect 0 "analyze a foldable DQ -> Q pair" -- "$NNFX" analyze "$TMP/foldable.onnx"
check "analyze finds it" has "[foldable_qdq] 1 DequantizeLinear -> QuantizeLinear pair"

# --- analyze: int8 vs float layers, integer weights, float islands ------------------
expect 0 "analyze the quantized CNN" -- "$NNFX" analyze "$TMP/cnn_q.onnx" --json "$TMP/an.json"
check "3 int8 layers, the MaxPool -> Flatten island" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$TMP/an.json')); q = d['quantization']
isl = [f for f in d['findings'] if f['kind'] == 'float_island']
sys.exit(not (q['int8_layers'] == 3 and q['float_layers'] == 0 and q['int8_weight_bytes'] > 3500 and isl
              and len(isl[0]['nodes']) == 2))"
expect 1 "analyze --fail-on float_island fails on the island" -- "$NNFX" analyze "$TMP/cnn_q.onnx" -q --fail-on float_island
# the host finding: NNFX_ISA=avx2 (and portable) take VNNI away on any CPU
expect 1 "analyze, as on a CPU without VNNI, warns about int8 there" -- env NNFX_ISA=avx2 "$NNFX" analyze \
    "$TMP/cnn_q.onnx" -q --fail-on int8_no_vnni
expect 0 "the finding names the int8 layers, in JSON too" -- env NNFX_ISA=portable "$NNFX" analyze "$TMP/cnn_q.onnx" \
    -q --json "$TMP/an_novnni.json"
check "3 int8 layers named" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$TMP/an_novnni.json'))
f = [f for f in d['findings'] if f['kind'] == 'int8_no_vnni']
sys.exit(not (f and len(f[0]['nodes']) == 3 and 'reduce-range' in f[0]['suggestion']))"
expect 0 "no such finding on the float model" -- env NNFX_ISA=avx2 "$NNFX" analyze "$D/digits_cnn.onnx" -q \
    --fail-on int8_no_vnni
if grep -qwE 'avx512_vnni|avx_vnni' /proc/cpuinfo; then
    expect 0 "nor on this CPU, which has VNNI" -- "$NNFX" analyze "$TMP/cnn_q.onnx" -q --fail-on int8_no_vnni
fi
expect 0 "analyze --fail-on foldable_qdq passes (none there)" -- "$NNFX" analyze "$TMP/cnn_q.onnx" -q --fail-on foldable_qdq
expect 0 "analyze the model with the Gemm excluded" -- "$NNFX" analyze "$TMP/v6.onnx" --json "$TMP/an6.json"
check "2 int8 layers, 1 float" /usr/bin/python3 -c "
import json, sys; q = json.load(open('$TMP/an6.json'))['quantization']
sys.exit(not (q['int8_layers'] == 2 and q['float_layers'] == 1))"

expect 2 "no --calib" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/bad.onnx"
expect 2 "unknown method" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/bad.onnx" --calib x="$TMP/calib.npy" \
    --method foo
expect 2 "unknown input" -- "$NNFX" quantize "$D/digits_cnn.onnx" -o "$TMP/bad.onnx" --calib y="$TMP/calib.npy"
expect 0 "--help has an example" -- "$NNFX" quantize --help
check "--help has an example" has "nnfx quantize model.onnx -o model_int8.onnx --calib x=calib.npy"
check_summary quant
