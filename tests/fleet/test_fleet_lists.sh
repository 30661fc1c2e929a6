#!/usr/bin/env bash
# List mode of the one-model commands: `quantize`, `prune`, `analyze` and
# `push` with --list LIST [--shard K/N]. For each, four shards writing one
# shared folder give exactly the files (byte-identical) and the report
# entries of one unsharded run, each model in exactly one shard, the output
# names are checked over the whole list (every shard refuses what the
# unsharded run refuses), and a model's failure is an entry of the report
# (with its error), so `nnfx report merge` of the steps' reports shows which
# step failed for which model. push runs against Debian's docker-registry
# on 127.0.0.1 when it is installed (that part is skipped otherwise).
# Usage: test_fleet_lists.sh NNFX SOURCE_DIR TMP_DIR   (skipped, 77, without
# Debian's python3-onnx)
set -u
NNFX=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
TMP=$3
PY=/usr/bin/python3
rm -rf "$TMP" && mkdir -p "$TMP" && TMP=$(cd "$TMP" && pwd)
. "$SRC/tests/lib/check.sh"
$PY -c 'import onnx, numpy' 2>/dev/null || { echo "skipped: needs python3-onnx and python3-numpy"; exit 77; }
cd "$TMP" || exit 1
# 16 Conv models of one input shape (one calibration file fits all) and one
# file that is not a model
$PY "$SRC/tests/fleet/make_fleet.py" fleet 16 --uniform --broken || exit 1
$PY -c 'import numpy as np; np.save("calib.npy", np.random.default_rng(0).standard_normal((8, 3, 8, 8)).astype(np.float32))'

# the entries of the unsharded report and of the shards' reports: each model in
# exactly one shard, the same entry (but for the times and the output folder)
cat >same.py <<'PY'
import json, sys
def norm(e):
    e = {k: v for k, v in e.items() if k not in ("ms", "timings_ms")}
    if e.get("output"): e["output"] = e["output"].split("/")[-1]
    if e.get("error"): e["error"] = e["error"].replace(sys.argv[2], "DIR")
    return json.dumps(e, sort_keys=True)
cmd, full = sys.argv[1], json.load(open(sys.argv[3]))
assert full["command"] == cmd and full["models"] == 17 and "shard" not in full, full["models"]
seen = {}
for p in sys.argv[4:]:
    r = json.load(open(p))
    assert r["command"] == cmd and r["shard"]["count"] == 4 and r["shard"]["listed"] == 17, r["shard"]
    assert r["models"] == len(r["results"]) > 0
    for e in r["results"]:
        assert e["command"] == cmd and e["model"] not in seen, ("in two shards", e["model"])
        seen[e["model"]] = norm(e)
assert len(seen) == 17, len(seen)
for e in full["results"]:
    assert seen[e["model"]] == norm(e), (e["model"], seen[e["model"]], norm(e))
bad = [e for e in full["results"] if e["model"] == "fleet/broken.onnx"][0]
assert bad["exit_code"] == 3 and bad["error"] and "broken.onnx" in bad["error"], bad
PY

# one unsharded run and four shards into one folder; the files and entries match
same_run() { # CMD DIR_OPTION EXPECTED_EXIT OPTIONS...
    local cmd=$1 want=$3
    shift 3
    expect "$want" "$cmd --list, unsharded" -- "$NNFX" "$cmd" --list fleet/list.txt -o "full-$cmd" \
        --report "full-$cmd.json" -q "$@"
    for k in 1 2 3 4; do
        "$NNFX" "$cmd" --list fleet/list.txt -o "sh-$cmd" --shard $k/4 --report "sh-$cmd-$k.json" -q "$@" \
            >/dev/null 2>&1
    done
    check "$cmd: the shards wrote the unsharded run's files" diff <(cd "full-$cmd" && ls) <(cd "sh-$cmd" && ls)
    local same=1 n=0
    for f in "full-$cmd"/*; do
        n=$((n + 1))
        cmp -s "$f" "sh-$cmd/${f#full-$cmd/}" || same=0
    done
    check "$cmd: every file byte-identical ($n files)" test $same = 1 -a $n -ge 8
    check "$cmd: the shards' report entries = the unsharded report's" $PY same.py "$cmd" "full-$cmd" \
        "full-$cmd.json" "sh-$cmd"-[1-4].json
    check "$cmd: no temporary file left" test -z "$(ls -a "sh-$cmd" | grep -e '\.nnfx-' -e '\.tmp')"
}
same_run quantize -o 3 --calib x=calib.npy
check "quantize: 16 models written" test "$(ls full-quantize | wc -l)" = 16
check "quantize: the models are QDQ models" $PY -c '
import onnx; m = onnx.load("full-quantize/m000.onnx")
assert any(n.op_type == "QuantizeLinear" for n in m.graph.node)'
same_run prune -o 3 --sparsity 0.5
same_run analyze -o 3
check "analyze: one JSON report a model" test "$(ls full-analyze | grep -c '\.onnx\.json$')" = 16
expect 3 "analyze --fail-on over the list (and the broken model): exit 3" -- "$NNFX" analyze --list fleet/list.txt -o gate --fail-on all \
    --report gate.json -q
check "the failed gates are entries" $PY -c '
import json; r = json.load(open("gate.json"))
assert r["check_failed"] >= 1 and r["errors"] == 1, r
assert all(e["error"] and "fail-on" in e["error"] for e in r["results"] if e["exit_code"] == 1)'

# a model that fails now has no entry from an earlier run's output
mkdir -p stale && cp fleet/team0/m000.onnx stale/s.onnx && echo stale/s.onnx >stale.txt
expect 0 "analyze --list, once" -- "$NNFX" analyze --list stale.txt -o stale-out --report stale1.json -q
echo "not a model" >stale/s.onnx
expect 3 "analyze --list after the model broke" -- "$NNFX" analyze --list stale.txt -o stale-out --report stale2.json -q
check "the entry is the error, not the earlier run's report" $PY -c '
import json; e = json.load(open("stale2.json"))["results"][0]
assert e["exit_code"] == 3 and e["error"] and "nodes" not in e, e'

# optimize takes --list too (the same option as --batch)
"$NNFX" optimize --list fleet/list.txt -o opt-list --pass fuse-conv-bn --shard 2/4 --report opt-list.json -q 2>/dev/null
rc1=$?
"$NNFX" optimize --batch fleet/list.txt -o opt-batch --pass fuse-conv-bn --shard 2/4 --report opt-batch.json -q 2>/dev/null
check "optimize --list: the exit status of --batch" test $rc1 = $?
check "optimize --list = --batch" $PY -c '
import json
a, b = (json.load(open(f))["results"] for f in ("opt-list.json", "opt-batch.json"))
assert [e["model"] for e in a] == [e["model"] for e in b] and len(a) > 0'
expect 2 "optimize --list and --batch together" -- "$NNFX" optimize --list fleet/list.txt --batch fleet/list.txt -o x

# --- usage and the output rule --------------------------------------------
for bad in 0/4 5/4 a/b ""; do
    expect 2 "prune --shard '$bad'" -- "$NNFX" prune --list fleet/list.txt -o bad --sparsity 0.5 --shard "$bad"
done
expect 2 "--shard without --list" -- "$NNFX" prune fleet/team0/m000.onnx -o bad/x.onnx --sparsity 0.5 --shard 1/2
expect 2 "--list without -o" -- "$NNFX" quantize --list fleet/list.txt --calib x=calib.npy
expect 2 "push --list without --to" -- "$NNFX" push --list fleet/list.txt
expect 2 "a wrong option stops at the first model" -- "$NNFX" prune --list fleet/list.txt -o bad --sparsity 7
check "one message, not one a model" test "$(grep -c sparsity "$TMP/err")" = 1
check "nothing written on usage errors" test ! -e bad
mkdir -p other && cp fleet/team1/m001.onnx other/m000.onnx
{ cat fleet/list.txt; echo other/m000.onnx; } >clash.txt
for k in 1 2 3 4; do
    expect 2 "shard $k/4 of a list with two outputs of one name is refused" -- "$NNFX" quantize --list clash.txt \
        -o clash --calib x=calib.npy --shard $k/4
done
check "the refusal names both" grep -q "clash/m000.onnx' is the same file as the output 'clash/m000.onnx'" "$TMP/err"
check "nothing written" test ! -e clash

# --- push -------------------------------------------------------------------
REGISTRY_BIN=${REGISTRY_BIN:-$(command -v docker-registry || echo /usr/bin/docker-registry)}
if [ -x "$REGISTRY_BIN" ] && command -v curl >/dev/null; then
    PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    mkdir -p reg
    printf 'version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: %s/reg}}\nhttp: {addr: 127.0.0.1:%s}\n' \
        "$TMP" "$PORT" >reg.yml
    "$REGISTRY_BIN" serve reg.yml >reg.log 2>&1 &
    REG_PID=$!
    trap 'kill $REG_PID 2>/dev/null; wait $REG_PID 2>/dev/null' EXIT
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/v2/" && break; sleep 0.1; done
    R=127.0.0.1:$PORT
    expect 3 "push --list (the broken model: exit 3)" -- "$NNFX" push --list fleet/list.txt --to "$R/full:v1" \
        --plain-http --report full-push.json
    for k in 1 2 3 4; do
        "$NNFX" push --list fleet/list.txt --to "$R/sh:v1" --plain-http --shard $k/4 --report sh-push-$k.json \
            >/dev/null 2>&1
    done
    check "push: each model pushed once, the same manifest digest as unsharded" $PY - <<'PY'
import json
full = {e["model"]: e for e in json.load(open("full-push.json"))["results"]}
assert len(full) == 17 and full["fleet/broken.onnx"]["exit_code"] == 3 and full["fleet/broken.onnx"]["error"]
seen = {}
for k in range(1, 5):
    r = json.load(open(f"sh-push-{k}.json"))
    assert r["command"] == "push" and r["shard"]["index"] == k
    for e in r["results"]:
        assert e["model"] not in seen
        seen[e["model"]] = e
assert seen.keys() == full.keys()
for m, e in full.items():
    if m == "fleet/broken.onnx":
        continue
    a, b = e["pushed"], seen[m]["pushed"]
    assert a.split("@")[1] == b.split("@")[1], (m, a, b)
    assert a.split("@")[0].endswith("/full/" + m.split("/")[-1][:-5]), a
PY
    expect 0 "the pushed model pulls back" -- "$NNFX" pull "$R/sh/m003:v1" -o pulled.onnx --plain-http
    check "byte-identical" cmp pulled.onnx fleet/team3/m003.onnx
    # a push that fails (the registry is gone) is in the merged report with its step
    kill $REG_PID 2>/dev/null
    wait $REG_PID 2>/dev/null
    trap - EXIT
    expect 3 "push --list to a registry that is gone: exit 3" -- "$NNFX" push --list fleet/list.txt \
        --to "$R/gone:v1" --plain-http --timeout 5 --report gone-push.json -q
    expect 1 "report merge of quantize and the failed push: exit 1" -- "$NNFX" report merge full-quantize.json \
        gone-push.json -o steps.json --html steps.html
    check "one row a model, the push failure named" $PY - <<'PY'
import json
f = json.load(open("steps.json"))
assert f["models"] == 17 and f["errors"] == 17 and not f["duplicates"], (f["models"], f["errors"], f["duplicates"])
for e in f["results"]:
    if e["model"] == "fleet/broken.onnx":
        continue
    assert e["failed_step"] == "push" and "gone" in e["error"] and e["findings"] == 0, e  # quantize's figures kept
PY
    check "the HTML names the failing step" grep -q "push: " steps.html
else
    echo "skipped the push part: docker-registry is not installed"
fi

# report merge: a quantize report and an analyze report of the same models
# are two steps (one row a model), not duplicates
expect 1 "merge of two steps' reports (the broken model fails both)" -- "$NNFX" report merge full-quantize.json \
    full-analyze.json -o two.json
check "17 rows, no duplicates, the broken model's failed step is the first" $PY -c '
import json; f = json.load(open("two.json"))
assert f["models"] == 17 and not f["duplicates"] and f["ok"] == 16, f
assert f["results"][0]["failed_step"] == "quantize"'
expect 1 "a step missing a shard fails the merge" -- "$NNFX" report merge sh-prune-[1-4].json sh-analyze-[1-3].json \
    -o miss.json
check "the missing shard of that step is named" grep -q "no report of shard 4 of 4 from analyze" "$TMP/err"

check_summary fleet_lists
