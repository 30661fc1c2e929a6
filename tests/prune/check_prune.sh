#!/usr/bin/env bash
# `nnfx prune` on the fixtures of tests/data/prune (one per coupling kind:
# residual, concat, depthwise, grouped, squeeze-excite, channel shuffle,
# flatten->linear; and parameters read by several ops: a conv called twice,
# a bias shared by two convs, one conv in two branches that are added or
# concatenated, a BN scale also read along the width; made by
# make_models.py with half of every prunable group's channels dead on
# purpose). For each, at --ratio 0.5 --criterion l1:
#  - exactly the dead channels go: every zeroed parameter of the fixture
#    (make_models.py lists them) has lost exactly those rows, the other
#    rows are the original ones in order; every other parameter is intact;
#  - the pruned model passes onnx.checker (full check) and gives PyTorch's
#    output of the original model within 1e-5 of the output's scale, in
#    nnfx and in ONNX Runtime;
#  - the report has per-group channels and MACs; MACs went down.
# Then bad input: ratio outside [0, 1), unknown --exclude node, nothing
# prunable; --sparsity; --exclude; --round-to; the accuracy gate.
# Usage: check_prune.sh NNFX SOURCE_DIR TMP_DIR PYTHON
set -u
NNFX=$1
SRC=$2
TMP=$3
PY=${4:-/usr/bin/python3}
rm -rf "$TMP" && mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
D=$SRC/tests/data/prune
ORT_DIR=$SRC/tests/ort
have_ort=0
if command -v node >/dev/null && [ -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then have_ort=1; else
    echo "note: ONNX Runtime runs skipped (node or tests/ort/node_modules/onnxruntime-node missing)"
fi
"$PY" -c "import onnx, numpy" 2>/dev/null || { echo "skip: $PY lacks onnx or numpy"; exit 77; }

for m in residual concat depthwise grouped squeeze_excite shuffle flatten_linear \
    shared_conv shared_bias shared_add shared_cat shared_kept; do
    expect 0 "prune $m" -- "$NNFX" prune "$D/$m.onnx" -o "$TMP/$m.onnx" --ratio 0.5 --criterion l1 \
        --report "$TMP/$m.json"
    expect 0 "run pruned $m" -- "$NNFX" run "$TMP/$m.onnx" --input "$D/$m.input.npy" -o "$TMP/$m.out.npy"
    check "$m: dead channels removed, others kept, onnx.checker, output = PyTorch's" "$PY" - "$D" "$TMP" "$m" <<'PYEOF'
import json, sys
import numpy as np, onnx
from onnx import numpy_helper
d, t, m = sys.argv[1:4]
orig = {i.name: numpy_helper.to_array(i) for i in onnx.load(f"{d}/{m}.onnx").graph.initializer}
pm = onnx.load(f"{t}/{m}.onnx")
onnx.checker.check_model(pm, full_check=True)
pruned = {i.name: numpy_helper.to_array(i) for i in pm.graph.initializer}
ok = True
for name, cuts in json.load(open(f"{d}/{m}.zeroed.json")).items():
    want = orig[name]
    for axis, idx in cuts:
        want = np.delete(want, idx, axis=axis)
    got = pruned.get(name)
    if got is None or got.shape != want.shape or not np.array_equal(got, want):
        print(f"{m}: {name}: expected {cuts} (axis, indices) of {orig[name].shape} removed, got shape "
              f"{None if got is None else got.shape}")
        ok = False
zeroed = json.load(open(f"{d}/{m}.zeroed.json"))
for name, w in orig.items():  # every other parameter is the original one
    if name not in zeroed and name in pruned and not (pruned[name].shape == w.shape and np.array_equal(pruned[name], w)):
        print(f"{m}: {name} changed: {w.shape} -> {pruned[name].shape}")
        ok = False
ref = np.load(f"{d}/{m}.output.npy")
out = np.load(f"{t}/{m}.out.npy")
err = np.abs(out - ref).max() / max(np.abs(ref).max(), 1e-6)
if not err <= 1e-5:
    print(f"{m}: pruned output differs from PyTorch's by {err:.3g} of its scale")
    ok = False
rep = json.load(open(f"{t}/{m}.json"))
if not (rep["macs_after"] < rep["macs_before"] and rep["channels_removed"] > 0 and
        all("macs_before" in g and "kept" in g for g in rep["groups"])):
    print(f"{m}: report {rep}")
    ok = False
sys.exit(0 if ok else 1)
PYEOF
    if [ $have_ort = 1 ]; then
        check "$m: ONNX Runtime runs the pruned model (PyTorch's output)" \
            node "$ORT_DIR/ort_check.js" "$TMP/$m.onnx" --in "$D/$m.input.npy" --ref "$D/$m.output.npy" --tol 1e-5
    fi
done

# parameters read by several ops (make_models.py checks the export shares
# them): sliced once for every reader above; where a reader does not slice
# it by channel, the group stays and says why, in --groups and the report
check "shared_conv: one group for the stem and both calls of the shared conv" "$PY" -c "
import json,sys; r=json.load(open('$TMP/shared_conv.json'))
g=[x for x in r['groups'] if x['channels'] == 8]
sys.exit(0 if len(g) == 1 and g[0]['removed'] == 4 and r['channels_removed'] == 4 else 1)"
check "shared_kept: the report says why c's channels stay" "$PY" -c "
import json,sys; r=json.load(open('$TMP/shared_kept.json'))
g=[x for x in r['groups'] if 'b.weight is shared with' in x.get('kept_because', '')]
sys.exit(0 if len(g) == 1 and g[0]['kept'] == 8 and g[0]['prunable'] == 0 else 1)"
expect 0 "--groups on shared_conv" -- "$NNFX" prune "$D/shared_conv.onnx" --groups
check "--groups marks c.weight's members (both calls) as one slice" test "$(grep -c \
    'c.weight axis [01] .*; shared: one slice for all its readers' "$TMP/out")" -eq 4
expect 0 "--groups on shared_kept" -- "$NNFX" prune "$D/shared_kept.onnx" --groups
check "--groups says why the shared BN scale's group stays" grep -q \
    "0 prunable; kept: parameter b.weight is shared with %_Mul_output_0 (Mul, input 1), which does not slice its axis 0" \
    "$TMP/out"
# more sharing shapes, built by the script (a weight that is a graph output,
# read by a MatMul, a ConvTranspose, an If, as a Gemm's bias; shared BN
# scale and mean, depthwise, grouped, Split, Slice...): pruned exactly or
# kept with a reason, never an internal error
ORTJS=
[ $have_ort = 1 ] && ORTJS=$ORT_DIR/ort_check.js
check "shared parameters in hostile shapes (tests/prune/shared_hostile.py)" \
    "$PY" "$SRC/tests/prune/shared_hostile.py" "$NNFX" "$TMP/hostile" "$ORTJS"

# scopes, criteria and rounding keep the model valid (numbers: onnx.checker + ORT)
m=residual
for opts in "--scope global" "--criterion l2" "--criterion bn-scale" "--criterion random --seed 3" "--round-to 4"; do
    # shellcheck disable=SC2086
    expect 0 "prune $m $opts" -- "$NNFX" prune "$D/$m.onnx" -o "$TMP/v.onnx" --ratio 0.5 $opts
    check "$m $opts: onnx.checker" "$PY" -c "import onnx; onnx.checker.check_model(onnx.load('$TMP/v.onnx'), full_check=True)"
done
expect 0 "round-to 4 keeps multiples of 4" -- "$NNFX" prune "$D/concat.onnx" -o "$TMP/r.onnx" --ratio 0.5 \
    --round-to 4 --report "$TMP/r.json"
check "round-to: kept counts" "$PY" -c "
import json,sys; r=json.load(open('$TMP/r.json'))
sys.exit(0 if all(g['kept'] % 4 == 0 or g['kept'] == g['channels'] for g in r['groups']) else 1)"
expect 0 "exclude keeps a node's channels" -- "$NNFX" prune "$D/concat.onnx" -o "$TMP/x.onnx" --ratio 0.5 \
    --exclude _a_Conv_output_0 --report "$TMP/x.json"
check "exclude: conv a keeps 6 channels" "$PY" -c "
import onnx,sys; from onnx import numpy_helper
w={i.name: i for i in onnx.load('$TMP/x.onnx').graph.initializer}
sys.exit(0 if list(w['a.weight'].dims)[0] == 6 and list(w['b.weight'].dims)[0] == 2 else 1)"

# unstructured sparsity: shapes stay, the share of zeros is reported
expect 0 "sparsity 0.6" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/s.onnx" --sparsity 0.6 --report "$TMP/s.json"
check "sparsity: 60% of each weight is zero, shapes unchanged" "$PY" -c "
import json,sys,numpy as np,onnx; from onnx import numpy_helper
o={i.name: numpy_helper.to_array(i) for i in onnx.load('$D/residual.onnx').graph.initializer}
p={i.name: numpy_helper.to_array(i) for i in onnx.load('$TMP/s.onnx').graph.initializer}
r=json.load(open('$TMP/s.json'))
ok = all(p[k].shape == o[k].shape for k in o) and len(r['layers']) == 4
for k in ['stem.weight', 'c1.weight', 'c2.weight', 'fc.weight']:
    ok &= abs((p[k] == 0).mean() - 0.6) < 0.02
    keep = p[k] != 0
    ok &= bool(np.array_equal(p[k][keep], o[k][keep]))
    ok &= bool(np.abs(o[k][~keep]).max() <= np.abs(o[k][keep]).min())
sys.exit(0 if ok else 1)"

# a weight shared with an excluded node keeps its values (for every reader)
expect 0 "sparsity, a shared weight's reader excluded" -- "$NNFX" prune "$D/shared_conv.onnx" -o "$TMP/se.onnx" \
    --sparsity 0.6 --exclude _c_1_Conv_output_0
check "sparsity: c.weight (read by the excluded conv) unchanged, stem.weight 60% zeros" "$PY" -c "
import sys,numpy as np,onnx; from onnx import numpy_helper as nh
o={i.name: nh.to_array(i) for i in onnx.load('$D/shared_conv.onnx').graph.initializer}
p={i.name: nh.to_array(i) for i in onnx.load('$TMP/se.onnx').graph.initializer}
sys.exit(0 if np.array_equal(o['c.weight'], p['c.weight']) and abs((p['stem.weight'] == 0).mean() - 0.6) < 0.02 else 1)"

# analyze reports per-layer channel counts and sparsity
expect 0 "analyze sparse model" -- "$NNFX" analyze "$TMP/s.onnx" --sparsity --json "$TMP/sa.json" -q
expect 0 "analyze pruned model" -- "$NNFX" analyze "$TMP/concat.onnx" --json "$TMP/ca.json" -q
check "analyze: layers with channels and sparsity" "$PY" -c "
import json,sys
s={l['name']: l for l in json.load(open('$TMP/sa.json'))['layers']}
c={l['name']: l for l in json.load(open('$TMP/ca.json'))['layers']}
ok = abs(s['_c1_Conv_output_0']['sparsity'] - 0.6) < 0.02 and s['_c1_Conv_output_0']['in_channels'] == 8
ok &= c['_c_Conv_output_0']['in_channels'] == 5 and c['_c_Conv_output_0']['out_channels'] == 4
ok &= 'sparsity' not in c['_c_Conv_output_0']  # without --sparsity no weight is read
sys.exit(0 if ok else 1)"

# the accuracy gate (labels = the original model's own top-1: drop 0 passes)
"$PY" -c "import numpy as np; np.save('$TMP/lab.npy', np.load('$D/residual.output.npy').argmax(1).astype(np.int64))"
expect 0 "accuracy gate passes" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/g.onnx" --ratio 0.5 \
    --input "$D/residual.input.npy" --labels "$TMP/lab.npy" --max-accuracy-drop 0
DG=$SRC/tests/data/digits
expect 1 "accuracy gate fails (digits CNN, live channels removed)" -- "$NNFX" prune "$DG/digits_cnn.onnx" \
    -o "$TMP/gf.onnx" --ratio 0.9 --criterion random --input "$DG/digits_test_x.npy" --labels "$DG/digits_test_y.npy" \
    --max-accuracy-drop 1
check "failed gate writes nothing" test ! -e "$TMP/gf.onnx"

# bad input: clear error, nothing written
expect 2 "ratio 1" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/bad.onnx" --ratio 1
expect 2 "ratio -0.1" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/bad.onnx" --ratio -0.1
expect 2 "unknown --exclude" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/bad.onnx" --ratio 0.5 --exclude nope
check "unknown --exclude names the node" grep -q "'nope'" "$TMP/err"
printf 'graph():\n    %%x : [num_users=1] = placeholder[target=x]  # float32[1, 4]\n    %%r : [num_users=1] = call_function[target=relu](args = (%%x,), kwargs = {})\n    return r\n' >"$TMP/relu.fx"
expect 3 "nothing prunable" -- "$NNFX" prune "$TMP/relu.fx" -o "$TMP/bad.onnx" --ratio 0.5
check "nothing prunable says so" grep -q "nothing can be pruned" "$TMP/err"
expect 3 "bn-scale on a model without BatchNormalization" -- "$NNFX" prune "$D/concat.onnx" -o "$TMP/bad.onnx" \
    --ratio 0.5 --criterion bn-scale
check "bn-scale says why" grep -q "BatchNormalization" "$TMP/err"
expect 2 "neither --ratio nor --sparsity" -- "$NNFX" prune "$D/residual.onnx" -o "$TMP/bad.onnx"
check "no output written on errors" test ! -e "$TMP/bad.onnx"
expect 0 "--groups lists groups" -- "$NNFX" prune "$D/squeeze_excite.onnx" --groups
check "--groups names members" grep -q "consumer" "$TMP/out"
expect 0 "--help" -- "$NNFX" prune --help
check_summary "nnfx prune"
