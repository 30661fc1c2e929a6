#!/usr/bin/env bash
# nnfx on real labelled data: the UCI digits models of tests/data/digits.
#  - `nnfx run` reproduces PyTorch's logits (within 1e-4 of each row's logit
#    scale) and its top-1 accuracy, for the CNN and the MLP;
#  - the accuracy gate passes a harmless rewrite (fuse-conv-bn: drop 0.00,
#    OUT written, the fused model still matches PyTorch) and refuses harmful
#    ones (exit 1, OUT not written, both accuracies and the drop on stderr);
#  - the gate's figures equal PyTorch's accuracy for the same rewrites
#    (digits_ref.json, made by make_digits.py), and the --report JSON has them;
#  - bad label files are bad input (exit 3).
# The references are checked by tests/digits/refcheck.py (standard library
# only), which shares no code with nnfx.
# Usage: test_digits.sh NNFX DATA_DIR TMP_DIR
set -u
NNFX=$1
DATA=$2
TMP=$3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$TMP" && mkdir -p "$TMP"
. "$(cd "$(dirname "$0")" && pwd)/../lib/check.sh"
cd "$DATA" || exit 1
refcheck() { python3 "$HERE/refcheck.py" "$@"; }
# PyTorch's figures from digits_ref.json, read once into shell variables:
# N_TEST, OK_cnn, OK_mlp (correct answers), and OK_<model>_<variant> for the
# model with every ReLU replaced (variant: sigmoid, leaky_relu_0_1, ...).
eval "$(python3 -c '
import json
d = json.load(open("digits_ref.json"))
print("N_TEST=%d" % d["n_test"])
for m, r in d["models"].items():
    print("OK_%s=%d" % (m, r["correct"]))
    for v, a in r["relu_replaced_by"].items():
        print("OK_%s_%s=%d" % (m, v.replace(".", "_"), a["correct"]))
')"
has() { cat "$TMP/out" "$TMP/err" | grep -qF -- "$1"; }
absent() { [ ! -e "$1" ]; }
# pct CORRECT: the accuracy as the CLI prints it (two decimals, '%').
pct() { awk -v c="$1" -v n="$N_TEST" 'BEGIN { printf "%.2f%%", 100.0 * c / n }'; }

X=digits_test_x.npy
Y=digits_test_y.npy
GATE=(--input x=$X --labels $Y --max-accuracy-drop 0.5)
CNN_OK=$OK_cnn
CNN_SUM=$(sha256sum digits_cnn.onnx | cut -d' ' -f1)

# --- the reference check itself can fail ----------------------------------
check "refcheck rejects other logits (MLP's vs the CNN's)" \
    eval '! refcheck logits digits_mlp_logits.npy digits_cnn_logits.npy $Y 1e-4 >/dev/null'

# --- nnfx run reproduces PyTorch ---------------------------------------------
for m in cnn mlp; do
    expect 0 "run $m" -- "$NNFX" run digits_$m.onnx --input x=$X -o "$TMP/$m.npy"
    check "run $m: logits within 1e-4 of PyTorch's" refcheck logits "$TMP/$m.npy" digits_${m}_logits.npy $Y 1e-4
    want=$(eval echo "\$OK_$m")
    check "run $m: top-1 is PyTorch's ($want/$N_TEST)" [ "$(refcheck top1 "$TMP/$m.npy" $Y)" = "$want" ]
done
check "the CNN is a real classifier (> 95 % on held-out data)" [ $((CNN_OK * 100)) -gt $((N_TEST * 95)) ]

# --- the gate passes a harmless rewrite ----------------------------------------
expect 0 "gate passes fuse-conv-bn" -- "$NNFX" optimize digits_cnn.onnx -o "$TMP/fused.onnx" \
    --pass fuse-conv-bn --validate "${GATE[@]}" --report "$TMP/fused.json"
check "fused model written" [ -s "$TMP/fused.onnx" ]
check "fuse-conv-bn: drop 0.00 printed" grep -q "drop 0.00 points" "$TMP/out" "$TMP/err"
check "fuse-conv-bn: accuracy printed" has "$(pct $CNN_OK) -> $(pct $CNN_OK)"
check "fuse-conv-bn report: figures" refcheck json "$TMP/fused.json" "
    d['result'] == 'ok' and d['exit_code'] == 0 and d['output'] is not None
    and d['accuracy']['samples'] == $N_TEST and d['accuracy']['passed'] is True
    and abs(d['accuracy']['top1_before'] - 100.0 * $CNN_OK / $N_TEST) < 1e-6
    and abs(d['accuracy']['top1_after'] - 100.0 * $CNN_OK / $N_TEST) < 1e-6
    and d['accuracy']['drop_points'] == 0 and d['accuracy']['max_drop_points'] == 0.5
    and d['validation']['passed'] is True and d['validation']['max_abs_error'] < 1e-4
    and d['steps'][0]['pass'] == 'fuse-conv-bn' and d['steps'][0]['changed'] == 2
    and d['ops_before']['BatchNormalization'] == 2 and 'BatchNormalization' not in d['ops_after']
    and d['ops_after']['Conv'] == 2 and len(d['nodes_removed']) == 2"
expect 0 "run the fused model" -- "$NNFX" run "$TMP/fused.onnx" --input x=$X -o "$TMP/fused.npy"
check "fused model: logits within 1e-4 of PyTorch's" refcheck logits "$TMP/fused.npy" digits_cnn_logits.npy $Y 1e-4
check "fused model: top-1 is PyTorch's" [ "$(refcheck top1 "$TMP/fused.npy" $Y)" = "$CNN_OK" ]
expect 0 "compare original and fused" -- "$NNFX" compare digits_cnn.onnx "$TMP/fused.onnx" --input x=$X
expect 0 "the fused model has no BatchNorm" -- "$NNFX" inspect "$TMP/fused.onnx" --format json -o "$TMP/fused_graph.json"
check "fused graph: no batch_norm node" eval '! grep -qi "batch_norm\|BatchNormalization" "$TMP/fused_graph.json"'

# --- the gate refuses a harmful rewrite ---------------------------------------
SIG_OK=$OK_cnn_sigmoid
DROP=$(awk -v a="$CNN_OK" -v b="$SIG_OK" -v n="$N_TEST" 'BEGIN { printf "%.2f", 100.0 * (a - b) / n }')
expect 1 "gate refuses relu -> sigmoid" -- "$NNFX" optimize digits_cnn.onnx -o "$TMP/sig.onnx" \
    --rewrite 'relu(x) -> sigmoid(x)' --validate "${GATE[@]}" --report "$TMP/sig.json"
check "relu -> sigmoid: OUT not written" absent "$TMP/sig.onnx"
check "relu -> sigmoid: no temporary left" eval '[ -z "$(ls "$TMP" | grep "^sig\.onnx.")" ]'
check "relu -> sigmoid: gate message" grep -q "accuracy gate failed" "$TMP/err"
check "relu -> sigmoid: both accuracies" has "$(pct $CNN_OK) -> $(pct $SIG_OK)"
check "relu -> sigmoid: the drop ($DROP points)" has "drop of $DROP points"
check "relu -> sigmoid: validation also failed" grep -q "validation failed" "$TMP/err"
check "relu -> sigmoid report: figures" refcheck json "$TMP/sig.json" "
    d['result'] == 'check failed' and d['exit_code'] == 1 and d['output'] is None
    and d['accuracy']['passed'] is False
    and abs(d['accuracy']['top1_before'] - 100.0 * $CNN_OK / $N_TEST) < 1e-6
    and abs(d['accuracy']['top1_after'] - 100.0 * $SIG_OK / $N_TEST) < 1e-6
    and abs(d['accuracy']['drop_points'] - 100.0 * ($CNN_OK - $SIG_OK) / $N_TEST) < 1e-6
    and d['validation']['passed'] is False and d['ops_after']['Sigmoid'] == 2"
check "input model untouched" [ "$(sha256sum digits_cnn.onnx | cut -d' ' -f1)" = "$CNN_SUM" ]

# --- the gate's figures are PyTorch's, and its threshold is where it says -----
# Without --validate: only the gate decides. Each rule swaps every ReLU, as
# make_digits.py does in PyTorch.
gate_case() { # MODEL VARIANT RULE MAXDROP
    local m=$1 v=$2 rule=$3 max=$4
    local base after drop want
    base=$(eval echo "\$OK_$m")
    after=$(eval echo "\$OK_${m}_${v//./_}")
    drop=$(awk -v a="$base" -v b="$after" -v n="$N_TEST" 'BEGIN { printf "%.4f", 100.0 * (a - b) / n }')
    want=$(awk -v d="$drop" -v m="$max" 'BEGIN { print (d <= m) ? 0 : 1 }')
    rm -f "$TMP/g.onnx"
    expect "$want" "$m, $rule, max drop $max (PyTorch: drop $drop)" -- "$NNFX" optimize digits_$m.onnx \
        -o "$TMP/g.onnx" --rewrite "$rule" --input x=$X --labels $Y --max-accuracy-drop "$max" --report "$TMP/g.json"
    check "$m, $rule: accuracy after is PyTorch's ($after/$N_TEST)" refcheck json "$TMP/g.json" \
        "abs(d['accuracy']['top1_after'] - 100.0 * $after / $N_TEST) < 1e-6 and 'validation' not in d"
    if [ "$want" = 0 ]; then check "$m, $rule: OUT written" [ -s "$TMP/g.onnx" ]
    else check "$m, $rule: OUT not written" absent "$TMP/g.onnx"; fi
}
gate_case cnn leaky_relu_0.1 'relu(x) -> leaky_relu(x, alpha=0.1)' 0.5
gate_case cnn leaky_relu_0.1 'relu(x) -> leaky_relu(x, alpha=0.1)' 0.1
gate_case cnn leaky_relu_0.5 'relu(x) -> leaky_relu(x, alpha=0.5)' 0.5
gate_case cnn leaky_relu_0.5 'relu(x) -> leaky_relu(x, alpha=0.5)' 2
gate_case cnn identity 'relu(x) -> x' 0.5
gate_case mlp identity 'relu(x) -> x' 0.5
gate_case mlp leaky_relu_0.1 'relu(x) -> leaky_relu(x, alpha=0.1)' 0.5
gate_case mlp sigmoid 'relu(x) -> sigmoid(x)' 50

# --- bad label files are bad input ------------------------------------------
# write_labels FILE N VALUE: an int64 .npy of N copies of VALUE.
write_labels() {
    python3 - "$@" <<'PY'
import struct, sys
path, n, v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hdr = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    f.write(struct.pack("<%dq" % n, *([v] * n)))
PY
}
write_labels "$TMP/short.npy" $((N_TEST - 1)) 0
write_labels "$TMP/ten.npy" "$N_TEST" 10
write_labels "$TMP/neg.npy" "$N_TEST" -1
for bad in short ten neg; do
    expect 3 "labels $bad.npy" -- "$NNFX" optimize digits_cnn.onnx -o "$TMP/b.onnx" --pass fuse-conv-bn \
        --input x=$X --labels "$TMP/$bad.npy" --max-accuracy-drop 0.5
    check "labels $bad.npy: OUT not written" absent "$TMP/b.onnx"
    check "labels $bad.npy: one line naming the file" eval '[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$bad.npy" "$TMP/err"'
done

check_summary "digits"
