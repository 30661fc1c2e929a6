#!/usr/bin/env bash
# Tests of the nnfx command line: every subcommand, every exit code
# (0 ok, 1 check failed, 2 usage, 3 bad input), --help, bad flags, missing
# and corrupt files, shape mismatches, no partial outputs, inputs untouched.
# Numbers are checked against PyTorch references made by make_models.py.
# Usage: test_cli.sh NNFX DATA_DIR TMP_DIR
set -u
NNFX=$1
DATA=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
. "$(cd "$(dirname "$0")" && pwd)/../lib/check.sh"
cd "$DATA" || exit 1
one_line_err() { [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "$1" "$TMP/err"; }
sum() { sha256sum "$1" | cut -d' ' -f1; }
# close A.npy B.npy ATOL: the arrays agree within ATOL (read by a tiny
# independent .npy reader: float32 little-endian, C order).
close() {
    python3 - "$1" "$2" "$3" <<'PY'
import re, struct, sys
def load(p):
    b = open(p, "rb").read()
    assert b[:6] == b"\x93NUMPY", p
    hl = struct.unpack("<H", b[8:10])[0]
    hdr = b[10:10 + hl].decode()
    assert "'<f4'" in hdr, hdr
    shape = tuple(int(v) for v in re.findall(r"\d+", hdr.split("'shape':")[1].split(")")[0]))
    data = b[10 + hl:]
    return shape, struct.unpack("<%df" % (len(data) // 4), data)
sa, a = load(sys.argv[1]); sb, b = load(sys.argv[2])
ok = sa == sb and len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= float(sys.argv[3])
sys.exit(0 if ok else 1)
PY
}

M=convbn.onnx
MSUM=$(sum $M)
XSUM=$(sum x.npy)

# --- top level --------------------------------------------------------------
expect 0 "version" -- "$NNFX" --version
check "version text" grep -q "^nnfx [0-9]" "$TMP/out"
expect 0 "top help" -- "$NNFX" --help
check "top help lists commands" grep -q "optimize" "$TMP/out"
expect 2 "no command" -- "$NNFX"
expect 2 "unknown command" -- "$NNFX" frobnicate
check "unknown command: one line" one_line_err "unknown command"
for c in run inspect analyze optimize compare export demo; do
    expect 0 "$c --help" -- "$NNFX" $c --help
    check "$c --help has usage" grep -q "usage: nnfx $c" "$TMP/out"
    [ $c = demo ] || check "$c --help has examples" grep -q "examples:" "$TMP/out"
    expect 0 "help $c" -- "$NNFX" help $c
    expect 2 "$c bad flag" -- "$NNFX" $c --no-such-flag
done

# --- run -----------------------------------------------------------------------
expect 0 "run -o" -- "$NNFX" run $M --input x=x.npy -o "$TMP/y.npy"
check "run output matches PyTorch" close "$TMP/y.npy" y_ref.npy 1e-5
expect 0 "run batch, --output-dir" -- "$NNFX" run $M --input x=batch.npy --output-dir "$TMP/outdir"
check "run batch output matches PyTorch" close "$TMP/outdir/y.npy" batch_ref.npy 1e-5
expect 0 "run --input by its ONNX name (in.x, renamed in_x)" -- "$NNFX" run dotted.onnx --input in.x=x.npy -o "$TMP/yd.npy"
expect 0 "run --input by nnfx's name" -- "$NNFX" run dotted.onnx --input in_x=x.npy -o "$TMP/yd2.npy"
check "run dotted: the same input bound both ways" close "$TMP/yd.npy" "$TMP/yd2.npy" 0
expect 2 "run -o twice" -- "$NNFX" run $M --input x=x.npy -o "$TMP/y1.npy" -o "$TMP/y2.npy"
check "run -o twice: one line naming both" one_line_err "option --output given twice ('$TMP/y1.npy' and '$TMP/y2.npy')"
check "run -o twice: nothing written" test ! -e "$TMP/y1.npy" -a ! -e "$TMP/y2.npy"
check "no partial files left" test -z "$(ls -A "$TMP/outdir" | grep -v '^y.npy$')"
expect 0 "run lone input file" -- "$NNFX" run $M --input x.npy --json
check "run --json" grep -q '"outputs"' "$TMP/out"
expect 0 "run --bench" -- "$NNFX" run $M --input x=x.npy --bench 3 --threads 2
check "bench JSON line" grep -q '"runs": 3, "threads": 2, "median_ms": .*"peak_activation_bytes": [0-9]' "$TMP/out"
check "bench: one line on stdout" test "$(wc -l <"$TMP/out")" -eq 1
check "no progress bar when not a TTY" test ! -s "$TMP/err"
expect 0 "run --bench --profile" -- "$NNFX" run $M --input x=x.npy --bench 4 --profile
check "profile: stdout keeps the one bench line" test "$(wc -l <"$TMP/out")" -eq 1
check "profile header on stderr" grep -q '^# profile: 4 runs, [0-9.]* ms per run in [0-9]* steps, 1 thread' "$TMP/err"
check "profile lists the fused conv step" grep -q '^ *[0-9.]* *[0-9.]*%  *[0-9]*  .* = conv3x3/s1 .*+ bias' "$TMP/err"
expect 0 "run --profile, one run" -- "$NNFX" run $M --input x=x.npy --profile -o "$TMP/yp.npy"
check "one-run profile" grep -q '^# profile: 1 run,' "$TMP/err"
check "profiled output matches PyTorch" close "$TMP/yp.npy" y_ref.npy 1e-5
expect 0 "run text IR model" -- "$NNFX" run waste.fx --input x=x.npy --input unused=u.npy
expect 3 "run shape mismatch" -- "$NNFX" run $M --input x=x_wrong_shape.npy -o "$TMP/bad.npy"
check "shape mismatch message" one_line_err "x_wrong_shape.npy: input 'x' has shape \[1, 3, 9, 9\]"
check "nothing written on failure" test ! -e "$TMP/bad.npy"
expect 2 "run missing input" -- "$NNFX" run $M -o "$TMP/bad.npy"
check "missing input named" one_line_err "missing input 'x'"
expect 2 "run unknown input name" -- "$NNFX" run $M --input nope=x.npy
expect 2 "run no model" -- "$NNFX" run
expect 2 "run -o and --output-dir" -- "$NNFX" run $M --input x=x.npy -o a.npy --output-dir d
expect 2 "run bad --threads" -- "$NNFX" run $M --input x=x.npy --threads zero
expect 2 "run --bench without value" -- "$NNFX" run $M --input x=x.npy --bench
expect 3 "run missing model file" -- "$NNFX" run "$TMP/nope.onnx" --input x=x.npy
check "missing model: one line naming it" one_line_err "nope.onnx"
expect 3 "run missing input file" -- "$NNFX" run $M --input x="$TMP/nope.npy"
head -c 3000 $M >"$TMP/trunc.onnx"
expect 3 "run truncated model" -- "$NNFX" run "$TMP/trunc.onnx" --input x=x.npy
check "truncated model: one line" one_line_err "trunc.onnx"
printf 'garbage\x93\x01\x02\x03' >"$TMP/garbage.onnx"
expect 3 "run corrupt model" -- "$NNFX" run "$TMP/garbage.onnx" --input x=x.npy
printf '\x93NUMPY\x01\x00\xff\xff' >"$TMP/corrupt.npy"
expect 3 "run corrupt .npy" -- "$NNFX" run $M --input x="$TMP/corrupt.npy"
expect 2 "run -o onto the model" -- "$NNFX" run $M --input x=x.npy -o $M
check "model untouched" test "$(sum $M)" = "$MSUM"
check "input untouched" test "$(sum x.npy)" = "$XSUM"

# --- inspect ----------------------------------------------------------------------
expect 0 "inspect text" -- "$NNFX" inspect $M
check "inspect shows conv" grep -q "call_function\[target=conv\]" "$TMP/out"
for f in tabular json dot; do
    expect 0 "inspect $f" -- "$NNFX" inspect $M --format $f -o "$TMP/g.$f"
    check "inspect $f written" test -s "$TMP/g.$f"
done
check "inspect json parses" python3 -c "import json,sys; d=json.load(open('$TMP/g.json')); assert d['inputs'][0]['name']=='x'"
if command -v dot >/dev/null; then
    expect 0 "inspect svg" -- "$NNFX" inspect $M --format svg -o "$TMP/g.svg"
    check "svg written" grep -q "<svg" "$TMP/g.svg"
fi
expect 3 "inspect svg without dot" -- env PATH=/nonexistent "$NNFX" inspect $M --format svg -o "$TMP/nodot.svg"
check "no dot: clear message" one_line_err "Graphviz 'dot' was not found"
check "no dot: nothing written" test ! -e "$TMP/nodot.svg"
expect 2 "inspect bad format" -- "$NNFX" inspect $M --format png
expect 3 "inspect corrupt text IR" -- "$NNFX" inspect "$TMP/bad.fx"
printf 'graph():\n    %%x : [num_users=1] = placeholder[target=x]\n    %%y = what\n' >"$TMP/bad.fx"
expect 3 "inspect bad text IR" -- "$NNFX" inspect "$TMP/bad.fx"
check "text IR error names the line" grep -q "line 3" "$TMP/err"

# --- analyze ------------------------------------------------------------------------
expect 0 "analyze" -- "$NNFX" analyze $M --json "$TMP/a.json"
check "analyze summary" grep -q "foldable_batch_norm" "$TMP/out"
check "analyze JSON keys and numbers" python3 - "$TMP/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["nodes", "params", "param_bytes", "macs", "flops", "ops", "inputs", "outputs", "per_node",
          "peak_activation_bytes", "findings"]:
    assert k in d, k
# Conv 4x3x3x3 + 4, BN 4x4, Gemm 5x256 + 5
assert d["params"] == 108 + 4 + 16 + 1280 + 5, d["params"]
assert d["param_bytes"] == 4 * d["params"]
# MACs: conv 1*4*8*8 outputs x 27, gemm 256*5 (batch dim counts as 1)
assert d["macs"] == 256 * 27 + 1280, d["macs"]
assert d["ops"] == {"Conv": 1, "BatchNormalization": 1, "Relu": 1, "Flatten": 1, "Gemm": 1}, d["ops"]
assert [f["kind"] for f in d["findings"]] == ["foldable_batch_norm"], d["findings"]
assert d["inputs"][0] == {"name": "x", "dtype": "float32", "shape": ["batch", 3, 8, 8]}, d["inputs"]
PY
expect 0 "analyze --input-shape" -- "$NNFX" analyze $M --input-shape x=8x3x8x8 --json -
check "json on stdout, no summary mixed in" python3 -c "import json,sys; d=json.load(open('$TMP/out')); assert d['macs']==8*(256*27+1280), d['macs']"
expect 3 "analyze --input-shape disagrees" -- "$NNFX" analyze $M --input-shape x=1x3x9x9
expect 2 "analyze --input-shape bad" -- "$NNFX" analyze $M --input-shape x=1xAx9
expect 2 "analyze --input-shape unknown input" -- "$NNFX" analyze $M --input-shape q=1x3x8x8
expect 0 "analyze waste" -- "$NNFX" analyze waste.fx --json "$TMP/w.json" --html "$TMP/w.html"
check "all finding kinds" python3 - "$TMP/w.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {f["kind"] for f in d["findings"]}
want = {"foldable_batch_norm", "dead_node", "unused_input", "unused_initializer", "noop", "constant_subgraph"}
assert want <= kinds, kinds
for f in d["findings"]:
    assert f["nodes"] and f["message"] and f["suggestion"], f
PY
check "html page" grep -q "<table class=\"sortable\"" "$TMP/w.html"
# a BN parameter reached through an Identity (torch's exporter does this for
# shared tensors): one noop finding, no duplicate constant_subgraph, and the
# foldable BN suggests removing the identity first
expect 0 "analyze bn via identity" -- "$NNFX" analyze bn_via_identity.fx --json "$TMP/bi.json"
check "bn via identity findings" python3 - "$TMP/bi.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kinds = sorted(f["kind"] for f in d["findings"])
assert kinds == ["foldable_batch_norm", "noop"], kinds
bn = [f for f in d["findings"] if f["kind"] == "foldable_batch_norm"][0]
assert "--pass remove-identity --pass fuse-conv-bn" in bn["suggestion"], bn
PY
expect 0 "optimize bn via identity" -- "$NNFX" optimize bn_via_identity.fx -o "$TMP/bi_opt.onnx" \
    --pass remove-identity --pass fuse-conv-bn --pass dce --validate --random 2 --report "$TMP/bi_rep.json"
check "bn via identity folded" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
a=d['ops_after']; assert 'BatchNormalization' not in a and 'Identity' not in a, a" "$TMP/bi_rep.json"

check "html self-contained" bash -c "! grep -qE '<(link|script) [^>]*(src|href)=' '$TMP/w.html'"
expect 3 "analyze missing model" -- "$NNFX" analyze "$TMP/none.onnx"

# --- optimize -------------------------------------------------------------------------
expect 0 "optimize fuse-conv-bn with validation and gate" -- "$NNFX" optimize $M -o "$TMP/opt.onnx" \
    --pass fuse-conv-bn --pass dce --validate --input x=batch.npy --labels batch_labels.npy \
    --max-accuracy-drop 0.5 --report "$TMP/r.json"
check "optimized model written" test -s "$TMP/opt.onnx"
check "report" python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "ok" and d["exit_code"] == 0
assert [s["pass"] for s in d["steps"]] == ["fuse-conv-bn", "dce"]
assert d["ops_before"]["BatchNormalization"] == 1 and "BatchNormalization" not in d["ops_after"]
assert d["validation"]["passed"] and d["validation"]["max_abs_error"] < 1e-4
assert d["accuracy"]["drop_points"] == 0 and d["accuracy"]["top1_before"] == 100
assert "total" in d["timings_ms"]
PY
expect 0 "optimized model runs like PyTorch" -- "$NNFX" run "$TMP/opt.onnx" --input x=x.npy -o "$TMP/y2.npy"
check "optimized output matches PyTorch" close "$TMP/y2.npy" y_ref.npy 1e-4
expect 1 "harmful rewrite fails validation" -- "$NNFX" optimize $M -o "$TMP/harm.onnx" --pass remove-bn --validate \
    --report "$TMP/harm.json"
check "failure names the first diverging node" grep -q "first diverging node: " "$TMP/err"
check "nothing written on a failed check" test ! -e "$TMP/harm.onnx"
check "report written on a failed check" grep -q '"check failed"' "$TMP/harm.json"
expect 1 "accuracy gate refuses a harmful rewrite" -- "$NNFX" optimize $M -o "$TMP/harm.onnx" --pass remove-bn \
    --input x=batch.npy --labels batch_labels.npy --max-accuracy-drop 0.5
check "gate message" grep -q "accuracy gate failed" "$TMP/err"
check "nothing written" test ! -e "$TMP/harm.onnx"
expect 0 "rewrite rule" -- "$NNFX" optimize $M -o "$TMP/rw.onnx" --rewrite 'relu(x) -> leaky_relu(x, alpha=0.0)' \
    --validate --random 2
expect 2 "bad rewrite rule" -- "$NNFX" optimize $M -o "$TMP/rw2.onnx" --rewrite 'relu(x -> '
expect 2 "unknown pass" -- "$NNFX" optimize $M -o "$TMP/u.onnx" --pass no-such-pass
check "unknown pass lists passes" grep -q "fuse-conv-bn" "$TMP/err"
expect 2 "optimize without -o" -- "$NNFX" optimize $M --pass dce
expect 0 "labels without a gate report the accuracy" -- "$NNFX" optimize $M -o "$TMP/u.onnx" --labels batch_labels.npy --input x=batch.npy
expect 2 "optimize onto its input" -- "$NNFX" optimize $M -o $M --pass dce
check "model untouched" test "$(sum $M)" = "$MSUM"
expect 3 "optimize corrupt model" -- "$NNFX" optimize "$TMP/trunc.onnx" -o "$TMP/t.onnx"
expect 3 "optimize shape mismatch input" -- "$NNFX" optimize $M -o "$TMP/t.onnx" --validate --input x=x_wrong_shape.npy
check "nothing written" test ! -e "$TMP/t.onnx"
# batch: one failing model does not stop the others
cp $M "$TMP/m1.onnx"
cp $M "$TMP/m2.onnx"
printf '%s\n# a comment\n%s\n%s\n' "$TMP/m1.onnx" "$TMP/trunc.onnx" "$TMP/m2.onnx" >"$TMP/list.txt"
expect 3 "batch with one bad model" -- "$NNFX" optimize --batch "$TMP/list.txt" -o "$TMP/bout" --pass fuse-conv-bn \
    --validate --random 2 --jobs 2 --report "$TMP/batch.json"
check "batch wrote the good models" test -s "$TMP/bout/m1.onnx" -a -s "$TMP/bout/m2.onnx"
check "batch summary table" grep -q "1 error" "$TMP/out"
check "batch JSON summary" python3 -c "import json; d=json.load(open('$TMP/batch.json')); assert d['models']==3 and d['ok']==2 and d['errors']==1, d"
expect 0 "batch of good models" -- "$NNFX" optimize "$TMP/m1.onnx" "$TMP/m2.onnx" -o "$TMP/bout2" --pass dce -q

# --- compare -----------------------------------------------------------------------------
expect 0 "compare equal models" -- "$NNFX" compare $M "$TMP/opt.onnx" --random 3
expect 1 "compare different models" -- "$NNFX" compare $M "$TMP/opt.onnx" --input x=x.npy --atol 0 --rtol 0 --json "$TMP/c.json"
check "compare json" python3 -c "import json; d=json.load(open('$TMP/c.json')); assert d['agree'] is False"
expect 2 "compare one model" -- "$NNFX" compare $M
expect 3 "compare corrupt" -- "$NNFX" compare $M "$TMP/garbage.onnx"

# --- export ---------------------------------------------------------------------------------
expect 0 "export text IR to ONNX" -- "$NNFX" export waste.fx -o "$TMP/w.onnx"
expect 0 "exported model loads" -- "$NNFX" inspect "$TMP/w.onnx"
expect 0 "export ONNX with external data" -- "$NNFX" export $M -o "$TMP/ext.onnx" --external-data
expect 0 "external-data model runs" -- "$NNFX" run "$TMP/ext.onnx" --input x=x.npy -o "$TMP/y3.npy"
check "external-data output matches PyTorch" close "$TMP/y3.npy" y_ref.npy 1e-5
expect 2 "export without -o" -- "$NNFX" export $M
expect 3 "export corrupt" -- "$NNFX" export "$TMP/trunc.onnx" -o "$TMP/t2.onnx"
check "nothing written" test ! -e "$TMP/t2.onnx"

# --- demo ----------------------------------------------------------------------------------
expect 2 "demo unknown workflow" -- "$NNFX" demo no-such-workflow

check "no stray temporary files" test -z "$(find "$TMP" -name '*.tmp.*' -o -name '*.partial')"
check_summary "cli tests"
