#!/usr/bin/env bash
# The rough edges a new user met walking the seed workflows, each checked
# against what fixes it: --explain / --expect-matches / a warning for a rule
# that matches nothing; op aliases and hints in the rule language (clamp);
# **NODE copying a matched node's attributes; numbers checked by --validate
# (nnfx against the original model, atol = rtol = 0) and the written ONNX read
# back with python3-onnx.
# usage: test_rough_edges.sh NNFX SOURCE_DIR TMP
set -u
NNFX=$1 SRC=$2 TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
D=$SRC/tests/data/digits
cnn=$D/digits_cnn.onnx
val=(--validate --input "$D/digits_test_x.npy")

# --- a rewrite that matches nothing ------------------------------------------------
expect 0 "a rule matching nothing still runs" -- "$NNFX" optimize "$cnn" -o "$TMP/a.onnx" --rewrite 'sigmoid(x) -> relu(x)'
check "and warns" grep -q "warning: .*--rewrite 'sigmoid(x) -> relu(x)' matched nothing" "$TMP/err"
expect 1 "--expect-matches fails a rule matching too few" -- "$NNFX" optimize "$cnn" -o "$TMP/b.onnx" \
    --rewrite 'relu(conv(x, w, b)) -> relu(x)' --expect-matches 1
check "names the rule and the count" grep -q "matched 0 times, --expect-matches wants 1" "$TMP/err"
check "nothing written" test ! -e "$TMP/b.onnx"
expect 0 "--expect-matches met" -- "$NNFX" optimize "$cnn" -o "$TMP/c.onnx" --rewrite 'relu(x) -> relu(x)' \
    --expect-matches 2
expect 2 "--expect-matches before any --rewrite" -- "$NNFX" optimize "$cnn" -o "$TMP/d.onnx" --expect-matches 2
expect 1 "--explain says why candidates were rejected" -- "$NNFX" optimize "$cnn" -o "$TMP/e.onnx" --explain \
    --rewrite 'relu(conv(x, w, b)) -> relu(x)' --expect-matches 2
check "explain lines" grep -q "rejected (op differs): .*is batch_normalization, the pattern expects conv" "$TMP/out"

# --- op aliases and hints ------------------------------------------------------------
# clamp(x, min=0) is relu: validation against the original must pass exactly
expect 0 "clamp is clip, min= accepted" -- "$NNFX" optimize "$cnn" -o "$TMP/clamp.onnx" -q \
    --rewrite 'relu(x) -> clamp(x, min=0.0)' --expect-matches 2 "${val[@]}" --atol 0 --rtol 0
check "the written model has Clip, no Relu" /usr/bin/python3 -c "
import onnx; m = onnx.load('$TMP/clamp.onnx'); t = [n.op_type for n in m.graph.node]
assert t.count('Clip') == 2 and 'Relu' not in t, t"
expect 2 "relu6 gets a hint" -- "$NNFX" optimize "$cnn" -o "$TMP/f.onnx" --rewrite 'relu(x) -> relu6(x)'
check "hint: write clip" grep -q "unknown op 'relu6' (nnfx has no relu6; write clip(x, 0.0, 6.0))" "$TMP/err"
expect 2 "a typo gets the closest op" -- "$NNFX" optimize "$cnn" -o "$TMP/g.onnx" --rewrite 'relu(x) -> leaky_rel(x)'
check "did you mean" grep -q "did you mean 'leaky_relu'" "$TMP/err"

# --- **NODE: a rebuilt node keeps the matched node's attributes ----------------------
rule='batch_normalization(conv(x, w, b), s, bb, m, v) -> batch_normalization(conv(x, w, b, **conv), s, bb, m, v)'
expect 0 "rebuilt conv with **conv: same values" -- "$NNFX" optimize "$cnn" -o "$TMP/h.onnx" -q --rewrite "$rule" \
    --expect-matches 2 "${val[@]}" --atol 0 --rtol 0
expect 3 "without **conv the conv loses its pads (the old failure)" -- "$NNFX" optimize "$cnn" -o "$TMP/i.onnx" -q \
    --rewrite "${rule/, \*\*conv/}"
rule='relu(batch_normalization(conv(x, w, b), s, bb, m, v)) -> relu(conv(x, w, b, **conv))'
expect 0 "the issue's rule runs: BatchNorms dropped, convs keep their pads" -- "$NNFX" optimize "$cnn" -o "$TMP/j.onnx" \
    -q --rewrite "$rule" --expect-matches 2
check "no BatchNormalization left, pads kept" /usr/bin/python3 -c "
import onnx; m = onnx.load('$TMP/j.onnx'); t = [n.op_type for n in m.graph.node]
src = {n.name: n for n in onnx.load('$cnn').graph.node if n.op_type == 'Conv'}
convs = [n for n in m.graph.node if n.op_type == 'Conv']
assert 'BatchNormalization' not in t and len(convs) == 2, t
for c in convs:
    pads = [a.ints for a in c.attribute if a.name == 'pads']
    assert pads and list(pads[0]) == [1, 1, 1, 1], (c.name, pads)"
expect 2 "**NODE naming no pattern node" -- "$NNFX" optimize "$cnn" -o "$TMP/k.onnx" --rewrite 'relu(x) -> relu(x, **conv)'
check "lists the pattern's nodes" grep -q "\*\*conv: the pattern has no op node of that name (its op nodes: relu)" "$TMP/err"
# --- the text IR keeps its values (PATH.safetensors); weightless text IR cannot compute ---------
expect 0 "export to text IR" -- "$NNFX" export "$cnn" -o "$TMP/m.fx"
check "writes the values beside it" test -s "$TMP/m.fx.safetensors"
check "safetensors read independently: every initializer's values" /usr/bin/python3 -c "
import json, struct, numpy as np, onnx
from onnx import numpy_helper
b = open('$TMP/m.fx.safetensors', 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n]); data = b[8 + n:]
inits = {i.name: numpy_helper.to_array(i) for i in onnx.load('$cnn').graph.initializer}
assert set(k for k in h if k != '__metadata__') == set(inits), (sorted(h), sorted(inits))
for k, a in inits.items():
    e = h[k]; s, t = e['data_offsets']
    v = np.frombuffer(data[s:t], dtype={'F32': '<f4', 'I64': '<i8'}[e['dtype']]).reshape(e['shape'])
    assert np.array_equal(v, a), k"
expect 0 "text IR back to ONNX" -- "$NNFX" export "$TMP/m.fx" -o "$TMP/m_back.onnx"
expect 0 "same outputs as the original, exactly" -- "$NNFX" compare "$TMP/m_back.onnx" "$cnn" \
    --input "$D/digits_test_x.npy" --atol 0 --rtol 0
"$NNFX" inspect "$cnn" >"$TMP/weightless.fx"
expect 3 "export of a weightless text IR is an error" -- "$NNFX" export "$TMP/weightless.fx" -o "$TMP/wl.onnx"
check "says the values are missing" grep -q "has its parameters' shapes but not their values" "$TMP/err"
check "nothing written" test ! -e "$TMP/wl.onnx"
expect 3 "run of a weightless text IR is an error" -- "$NNFX" run "$TMP/weightless.fx" --input "$D/digits_test_x.npy"
expect 3 "compare with a weightless text IR is an error" -- "$NNFX" compare "$TMP/weightless.fx" "$cnn" --random 1
expect 3 "optimize --validate of a weightless text IR" -- "$NNFX" optimize "$TMP/weightless.fx" -o "$TMP/wl2.fx" \
    --validate
expect 0 "inspect and analyze still work on it" -- "$NNFX" analyze "$TMP/weightless.fx" -q
expect 0 "and structural edits text to text" -- "$NNFX" optimize "$TMP/weightless.fx" -o "$TMP/wl3.fx" -q --pass dce
check "without inventing values" test ! -e "$TMP/wl3.fx.safetensors"
# --- compare --labels; sample counts of a batch; --labels without a gate ----------------------
# PyTorch's figures (digits_ref.json): the CNN gets 447 of 450 right, with relu -> leaky_relu(0.5) 440
"$NNFX" optimize "$cnn" -o "$TMP/leaky.onnx" -q --rewrite 'relu(x) -> leaky_relu(x, alpha=0.5)'
expect 0 "compare --labels (no gate)" -- "$NNFX" compare "$cnn" "$TMP/leaky.onnx" --input "$D/digits_test_x.npy" \
    --labels "$D/digits_test_y.npy" --atol 100 --json "$TMP/cmp.json"
check "accuracies are PyTorch's" /usr/bin/python3 -c "
import json
ref = json.load(open('$D/digits_ref.json'))['models']['cnn']
d = json.load(open('$TMP/cmp.json'))['accuracy']
assert d['samples'] == 450 and abs(d['top1_before'] - 100.0 * ref['correct'] / 450) < 1e-6, d
assert abs(d['top1_after'] - ref['relu_replaced_by']['leaky_relu_0.5']['top1_percent']) < 1e-3, d
assert d['max_drop_points'] is None and d['passed'] is True"
expect 1 "compare --max-accuracy-drop fails the drop" -- "$NNFX" compare "$cnn" "$TMP/leaky.onnx" \
    --input "$D/digits_test_x.npy" --labels "$D/digits_test_y.npy" --max-accuracy-drop 1 --atol 100
check "names the drop" grep -q "accuracy gate failed: top-1 99.33% -> 97.78%, a drop of 1.56 points (max 1)" "$TMP/err"
expect 2 "compare --labels needs --input" -- "$NNFX" compare "$cnn" "$TMP/leaky.onnx" --labels "$D/digits_test_y.npy"
expect 0 "compare counts the rows of a batch" -- "$NNFX" compare "$cnn" "$cnn" --input "$D/digits_test_x.npy"
check "450 samples, not 1" grep -q "agree on 450 samples" "$TMP/out"
expect 0 "optimize --labels without --max-accuracy-drop reports, no gate" -- "$NNFX" optimize "$cnn" \
    -o "$TMP/l.onnx" --rewrite 'relu(x) -> leaky_relu(x, alpha=0.5)' --input "$D/digits_test_x.npy" \
    --labels "$D/digits_test_y.npy"
check "the accuracy line" grep -q "99.33% -> 97.78% (drop 1.56 points; no gate" "$TMP/out"
# --- analyze reports ops nnfx lacks as findings, and counts the rest -----------------------------
/usr/bin/python3 "$SRC/tests/rough/make_unsupported.py" "$TMP/uns.onnx"
expect 0 "analyze a model with unknown ops" -- "$NNFX" analyze "$TMP/uns.onnx" --json "$TMP/uns.json" --html "$TMP/uns.html"
check "two unsupported_op findings, the Conv's MACs counted (4*3*3*3*8*8)" /usr/bin/python3 -c "
import json; d = json.load(open('$TMP/uns.json'))
k = [f for f in d['findings'] if f['kind'] == 'unsupported_op']
assert len(k) == 2 and 'FooBar' in k[0]['message'] and 'com.example:Scale' in k[1]['message'], k
assert d['macs'] == 4 * 3 * 3 * 3 * 8 * 8, d['macs']"
expect 1 "analyze --fail-on unsupported_op" -- "$NNFX" analyze "$TMP/uns.onnx" -q --fail-on unsupported_op
expect 3 "running it is still an error" -- "$NNFX" compare "$TMP/uns.onnx" "$TMP/uns.onnx" --random 1
check "naming the op" grep -q "unsupported op FooBar" "$TMP/err"
# --- analyze A --compare B: the before/after report with a verdict -------------------------------
"$NNFX" optimize "$cnn" -o "$TMP/folded.onnx" -q --pass fuse-conv-bn
expect 0 "analyze --compare with labels" -- "$NNFX" analyze "$cnn" --compare "$TMP/folded.onnx" \
    --input "$D/digits_test_x.npy" --labels "$D/digits_test_y.npy" --json "$TMP/ba.json" --html "$TMP/ba.html"
check "verdict on the terminal" grep -q "improvement: 2 findings fewer, 2 ops fewer, 96 parameters fewer" "$TMP/out"
# 2 BatchNorms of 8 and 16 channels hold 4 x (8 + 16) = 96 parameters; accuracy is PyTorch's 447/450 both times
check "JSON: before, after, verdict, accuracy" /usr/bin/python3 -c "
import json; d = json.load(open('$TMP/ba.json'))
assert d['verdict']['result'] == 'improvement', d['verdict']
assert d['before']['params'] - d['after']['params'] == 96
assert d['before']['macs'] == d['after']['macs']
assert abs(d['verdict']['accuracy']['top1_before'] - 100.0 * 447 / 450) < 1e-6
assert d['verdict']['accuracy']['drop_points'] == 0"
check "HTML leads with the comparison" grep -q '<h2>Before and after</h2><p class="verdict good"><b>Improvement.</b>' "$TMP/ba.html"
check "HTML shows the accuracy row" grep -q "top-1 accuracy (450 labelled samples)</td><td class=\"n\">99.33%" "$TMP/ba.html"
expect 1 "--fail-on regression fails a harmful change" -- "$NNFX" analyze "$cnn" --compare "$TMP/leaky.onnx" -q \
    --input "$D/digits_test_x.npy" --labels "$D/digits_test_y.npy" --max-accuracy-drop 0.5 --fail-on regression
check "names the drop" grep -q "a regression (--fail-on regression): .*99.33% -> 97.78% (-1.56 points, over the allowed drop)" "$TMP/err"
expect 0 "HTML report of the original" -- "$NNFX" analyze "$cnn" -q --html "$TMP/one.html"
check "one suggestion for both BatchNorms" grep -q "(one command for all 2)" "$TMP/one.html"
check "the second says so instead of repeating it" grep -q "<i>the same command as above</i>" "$TMP/one.html"
check "flagged nodes carry their finding in the graph's data" python3 - "$TMP/one.html" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="nnfx-graph-data">(.*?)</script>', page, re.S).group(1))
finds = {n[0]: (n[10] if len(n) > 10 else "") for n in d["nodes"]}
assert finds["_bn1_BatchNormalization_output_0"] == "foldable_batch_norm", finds
assert finds["_conv1_Conv_output_0"] == "foldable_batch_norm", finds
assert finds["_relu1_Relu_output_0"] == "", finds
PY
check "names as in the source model" grep -q '<span title="nnfx: _bn1_BatchNormalization_output_0">/bn1/BatchNormalization_output_0</span>' "$TMP/one.html"
expect 2 "--labels without --compare" -- "$NNFX" analyze "$cnn" --labels "$D/digits_test_y.npy"
# --- a BatchNorm that fuse-conv-bn must leave (its conv feeds another node too) ------
/usr/bin/python3 - "$TMP/shared_conv.onnx" <<'PYEOF'
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(3)
init = [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b"),
        numpy_helper.from_array(np.ones(4, np.float32), "g"), numpy_helper.from_array(np.zeros(4, np.float32), "be"),
        numpy_helper.from_array(np.zeros(4, np.float32), "m"), numpy_helper.from_array(np.ones(4, np.float32), "v")]
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["y", "g", "be", "m", "v"], ["z"]),
         helper.make_node("Add", ["z", "y"], ["out"])]
g = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 4, 8, 8])], init)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PYEOF
expect 0 "fuse-conv-bn leaves a BatchNorm whose conv has two users" -- "$NNFX" optimize "$TMP/shared_conv.onnx" \
    -o "$TMP/shared_opt.onnx" --pass fuse-conv-bn -q
expect 1 "analyze --fail-on unfoldable_batch_norm fails on it (the pipeline's gate)" -- "$NNFX" analyze \
    "$TMP/shared_opt.onnx" -q --fail-on unfoldable_batch_norm
check "the finding names the conv's users" grep -q "unfoldable_batch_norm" "$TMP/err"
expect 0 "not a foldable_batch_norm finding" -- "$NNFX" analyze "$TMP/shared_opt.onnx" -q --fail-on foldable_batch_norm

check_summary rough_edges
