#!/usr/bin/env bash
# Fleets of models: `optimize --shard K/N` (four shards of a 48-model list
# give exactly the files and report entries of one unsharded run), `--cache
# DIR` (a re-run does no model work; a corrupt entry is redone), `nnfx report
# merge` (every model counted once, exit 1 when one failed) and the
# deployment files under deploy/ (parsed, their commands run on a small
# fleet with the shard index each would get).
# Usage: test_fleet.sh NNFX SOURCE_DIR TMP_DIR   (skipped, 77, without
# Debian's python3-onnx and python3-yaml)
set -u
NNFX=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
TMP=$3
PY=/usr/bin/python3
rm -rf "$TMP" && mkdir -p "$TMP" && TMP=$(cd "$TMP" && pwd)
. "$SRC/tests/lib/check.sh"
$PY -c 'import onnx, yaml' 2>/dev/null || { echo "skipped: needs python3-onnx and python3-yaml"; exit 77; }
cd "$TMP" || exit 1
$PY "$SRC/tests/fleet/make_fleet.py" fleet 48 --broken || exit 1
STEPS=(--pass fuse-conv-bn --validate --random 2)

# --- --shard ---------------------------------------------------------------
for bad in 0/4 5/4 1/0 a/b 1/4x 2 /4 1/ -1/4 "" 1/70000; do
    expect 2 "--shard '$bad' is a usage error" -- "$NNFX" optimize --batch fleet/list.txt -o bad/ "${STEPS[@]}" --shard "$bad"
done
check "bad shards wrote nothing" test ! -e bad
expect 2 "--shard without batch mode" -- "$NNFX" optimize fleet/team0/m000.onnx -o one.onnx --shard 1/2

expect 3 "unsharded run (one broken model: exit 3)" -- "$NNFX" optimize --batch fleet/list.txt -o full "${STEPS[@]}" \
    --jobs 2 --report full.json -q
for k in 1 2 3 4; do
    expect 0 "shard $k/4 runs" -- true
    "$NNFX" optimize --batch fleet/list.txt -o sharded "${STEPS[@]}" --shard $k/4 --report shard$k.json -q 2>/dev/null
done
check "the shards hold the same files as the unsharded run" diff <(cd full && ls) <(cd sharded && ls)
same=1
for f in full/*; do cmp -s "$f" "sharded/${f#full/}" || same=0; done
check "every model is byte-identical" test $same = 1
check "48 models written" test "$(ls full | wc -l)" = 48
# the report entries: each model in exactly one shard, entries equal to the
# unsharded run's but for the output folder and the timings
check "shard reports = the unsharded report" $PY - full.json shard1.json shard2.json shard3.json shard4.json <<'PY'
import json, sys
def norm(e):
    e = dict(e); e.pop("timings_ms", None)
    e["steps"] = [{k: v for k, v in s.items() if k != "ms"} for s in e["steps"]]
    if e.get("output"): e["output"] = e["output"].split("/")[-1]
    return json.dumps(e, sort_keys=True)
full = json.load(open(sys.argv[1]))["results"]
seen = {}
for p in sys.argv[2:]:
    r = json.load(open(p))
    assert r["shard"]["count"] == 4 and r["shard"]["listed"] == 49, r["shard"]
    assert r["models"] == len(r["results"])
    for e in r["results"]:
        assert e["model"] not in seen, ("in two shards", e["model"])
        seen[e["model"]] = norm(e)
assert len(full) == 49 and len(seen) == 49, (len(full), len(seen))
for e in full:
    assert seen[e["model"]] == norm(e), e["model"]
sizes = [json.load(open(p))["models"] for p in sys.argv[2:]]
assert min(sizes) > 0, sizes
PY
# stable when the list is reordered or grows: every model stays in its shard
{ tac fleet/list.txt | grep -v '^#'; echo fleet/team0/m000.onnx.extra; } >grown.txt
cp fleet/team0/m000.onnx fleet/team0/m000.onnx.extra
for k in 1 2 3 4; do
    "$NNFX" optimize --batch grown.txt -o grown "${STEPS[@]}" --shard $k/4 --report grown$k.json -q 2>/dev/null
done
check "a reordered, grown list keeps every model in its shard" $PY - <<'PY'
import json
for k in range(1, 5):
    a = {e["model"] for e in json.load(open(f"shard{k}.json"))["results"]}
    b = {e["model"] for e in json.load(open(f"grown{k}.json"))["results"]}
    assert a <= b and len(b - a) <= 1, (k, a - b, b - a)
PY

# --- --cache ---------------------------------------------------------------
expect 3 "first cached run" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c1.json -q
rm -rf c1
expect 3 "second cached run" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c2.json
check "the summary says cached" grep -q "48 cached" "$TMP/out"
check "first run: all misses; re-run: every model a hit, the broken one redone" $PY - <<'PY'
import json
a, b = json.load(open("c1.json")), json.load(open("c2.json"))
assert a["cache_hits"] == 0 and b["cache_hits"] == 48, (a["cache_hits"], b["cache_hits"])
for x, y in zip(a["results"], b["results"]):
    assert x["model"] == y["model"]
    if x["result"] == "error":
        assert "cache" not in y or y["cache"] != "hit"
        continue
    assert x["cache"] == "miss" and y["cache"] == "hit", x["model"]
    x.pop("cache"); y.pop("cache")
    assert x == y, x["model"]  # the stored entry, timings included
PY
same=1
for f in full/*; do cmp -s "$f" "c1/${f#full/}" || same=0; done
check "cached outputs are byte-identical to the unsharded run" test $same = 1
# corrupt one entry's model, truncate another's manifest: both redone
e1=$(grep -l '"model": "fleet/team1/m005.onnx"' cache/*/MANIFEST | xargs dirname)
e2=$(grep -l '"model": "fleet/team2/m010.onnx"' cache/*/MANIFEST | xargs dirname)
printf 'X' | dd of="$e1/0" bs=1 seek=100 conv=notrunc 2>/dev/null
head -c 50 "$e2/MANIFEST" >"$e2/M" && mv "$e2/M" "$e2/MANIFEST"
rm -rf c1
expect 3 "run over two damaged entries" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c3.json -q
check "the damaged entries are named and redone" test "$(grep -c 'unusable.*redoing' "$TMP/err")" = 2
check "46 hits, the two damaged redone" $PY - <<'PY'
import json
r = {e["model"]: e.get("cache") for e in json.load(open("c3.json"))["results"]}
assert r["fleet/team1/m005.onnx"] == "miss" and r["fleet/team2/m010.onnx"] == "miss", r
assert list(r.values()).count("hit") == 46
PY
same=1
for f in full/*; do cmp -s "$f" "c1/${f#full/}" || same=0; done
check "outputs after redoing are byte-identical" test $same = 1
expect 3 "the replaced entries are used again" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c4.json -q
check "48 hits after the repair" grep -q '"cache_hits": 48' c4.json
# an edited report entry inside a MANIFEST (same length) fails its digest: redone
e3=$(grep -l '"model": "fleet/team3/m007.onnx"' cache/*/MANIFEST | xargs dirname)
sed -i 's/"cache": "miss"/"cache": "MISS"/' "$e3/MANIFEST"
expect 3 "run over an entry with an edited report" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c4b.json -q
check "the edited entry is named and redone" grep -q "$(basename "$e3").*MANIFEST's own digest" "$TMP/err"
check "47 hits, the edited one redone" grep -q '"cache_hits": 47' c4b.json
expect 3 "another option is another key" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --atol 1e-3 --cache cache --report c5.json -q
check "a changed option misses" grep -q '"cache_hits": 0' c5.json
cp fleet/team3/m003.onnx m003.orig && cp fleet/team3/m007.onnx fleet/team3/m003.onnx
expect 3 "a changed model misses" -- "$NNFX" optimize --batch fleet/list.txt -o c1 "${STEPS[@]}" --cache cache --report c6.json -q
check "only the changed model misses" grep -q '"cache_hits": 47' c6.json
cp m003.orig fleet/team3/m003.onnx
expect 0 "single-model mode uses the cache" -- "$NNFX" optimize fleet/team0/m000.onnx -o one.onnx "${STEPS[@]}" --cache cache1
expect 0 "single-model mode, cached" -- "$NNFX" optimize fleet/team0/m000.onnx -o one2.onnx "${STEPS[@]}" --cache cache1
check "a different output path is another key" grep -vq cached "$TMP/out"
expect 0 "single-model mode, cached" -- "$NNFX" optimize fleet/team0/m000.onnx -o one.onnx "${STEPS[@]}" --cache cache1
check "says cached" grep -q "cached" "$TMP/out"
check "cached single output is identical" cmp one.onnx full/m000.onnx
# checked results are keyed by the host's CPU features too (NNFX_ISA stands
# in for another host): an entry checked with other kernels is not reused
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    printf 'fleet/team0/m000.onnx\nfleet/team1/m001.onnx\n' >isa.txt
    expect 0 "checked with the portable kernels" -- env NNFX_ISA=portable "$NNFX" optimize --batch isa.txt -o i1 \
        "${STEPS[@]}" --cache icache --report i1.json -q
    expect 0 "checked with the AVX2 kernels, same cache" -- env NNFX_ISA=avx2 "$NNFX" optimize --batch isa.txt -o i1 \
        "${STEPS[@]}" --cache icache --report i2.json -q
    expect 0 "checked with the AVX2 kernels, no cache" -- env NNFX_ISA=avx2 "$NNFX" optimize --batch isa.txt -o i3 \
        "${STEPS[@]}" --report i3.json -q
    expect 0 "the portable kernels again" -- env NNFX_ISA=portable "$NNFX" optimize --batch isa.txt -o i1 \
        "${STEPS[@]}" --cache icache --report i4.json -q
    check "another host's entries are not reused; each host's are" $PY - <<'PY'
import json
r = [json.load(open(f"i{k}.json")) for k in (1, 2, 3, 4)]
assert [x["cache_hits"] for x in (r[0], r[1], r[3])] == [0, 0, 2], [x.get("cache_hits") for x in r]
for a, c in zip(r[1]["results"], r[2]["results"]):  # the figures of this host's kernels
    assert a["cache"] == "miss" and a["validation"] == c["validation"], (a["model"], a["validation"], c["validation"])
PY
fi

# the entries name the build that made them (the key holds it too)
build=$("$NNFX" --version | sed -n 's/.*(build \([0-9a-f]\{16\}\)).*/\1/p')
check "--version names a 16-digit build identity" test -n "$build"
check "every entry names the build" test "$(grep -l "^build $build\$" cache/*/MANIFEST | wc -l)" = "$(ls cache | wc -l)"
check "the cached models record the build (nnfx.build)" $PY - "$build" <<'PY'
import onnx, sys
m = onnx.load("c1/m000.onnx", load_external_data=False)
assert {p.key: p.value for p in m.metadata_props}.get("nnfx.build") == sys.argv[1]
PY

# the output rule over a long list is checked in n log n, not pairwise with a
# realpath per pair (a 1000-model list took minutes): list 1000 links, take
# one shard of 100
mkdir -p big
for i in $(seq -w 0 999); do ln fleet/team0/m000.onnx big/m$i.onnx; echo big/m$i.onnx; done >big.txt
expect 0 "1000 listed, shard 1/100: the output rule is checked quickly" -- timeout 20 "$NNFX" optimize --batch big.txt \
    -o bigout --pass fuse-conv-bn --shard 1/100 -q
check "the shard's models written" test "$(ls bigout | wc -l)" -gt 0
echo big/m000.onnx >>big.txt
expect 2 "a model listed twice is still refused (two outputs, one file)" -- timeout 20 "$NNFX" optimize --batch big.txt \
    -o bigout --pass fuse-conv-bn --shard 1/100 -q
check "the refusal names the pair" grep -q "bigout/m000.onnx' is the same file as the output 'bigout/m000.onnx'" "$TMP/err"

# --- report merge ----------------------------------------------------------
expect 1 "merge of the four shards: one model failed, exit 1" -- "$NNFX" report merge shard1.json shard2.json \
    shard3.json shard4.json -o fleet.json --html fleet.html
check "the summary says FAIL" grep -q "49 models from 4 reports: 48 ok, 0 failed a check, 1 error.*FAIL" "$TMP/out"
check "the fleet report counts every model once, worst first" $PY - <<'PY'
import json
f = json.load(open("fleet.json")); full = json.load(open("full.json"))
names = [e["model"] for e in f["results"]]
assert f["models"] == 49 and len(names) == 49 and len(set(names)) == 49, f["models"]
assert set(names) == {e["model"] for e in full["results"]}
assert f["ok"] == 48 and f["errors"] == 1 and f["exit_code"] == 1 and f["verdict"] == "fail"
assert f["results"][0]["model"] == "fleet/broken.onnx" and f["results"][0]["result"] == "error"
errs = [e["max_abs_error"] for e in f["results"][1:]]
assert errs == sorted(errs, reverse=True), errs
byname = {e["model"]: e for e in full["results"]}
for e in f["results"][1:]:
    src = byname[e["model"]]
    assert e["nodes_before"] == src["nodes_before"] and e["nodes_after"] == src["nodes_after"]
    assert e["output_bytes"] > 0 and e["input_bytes"] > 0 and e["ms"] > 0
assert f["totals"]["nodes_before"] == sum(e["nodes_before"] for e in full["results"] if "nodes_before" in e)
PY
check "the HTML page is self-contained and lists every model" $PY - <<'PY'
from html.parser import HTMLParser
class P(HTMLParser):
    rows, ext, stack = 0, [], []
    def handle_starttag(self, tag, attrs):
        if tag == "tr": self.rows += 1
        self.ext += [v for k, v in attrs if k in ("src", "href") and v]
text = open("fleet.html").read()
p = P(); p.feed(text)
assert p.rows == 50 and not p.ext, (p.rows, p.ext)   # heading row + 49
assert "FAIL" in text and "fleet/broken.onnx" in text
PY
grep -v broken fleet/list.txt >okl.txt
"$NNFX" optimize --batch okl.txt -o okd "${STEPS[@]}" --shard 1/2 --report ok1.json -q
"$NNFX" optimize --batch okl.txt -o okd "${STEPS[@]}" --shard 2/2 --report ok2.json -q
expect 0 "merge of two passing shards: exit 0" -- "$NNFX" report merge ok1.json ok2.json -o ok.json --html ok.html
check "48 models, pass" grep -q '"models": 48, "ok": 48' ok.json
expect 0 "a model in two reports is counted once" -- "$NNFX" report merge ok1.json ok1.json ok2.json -o dup.json
check "counted once, named" $PY -c 'import json; d = json.load(open("dup.json")); assert d["models"] == 48 and d["duplicates"]'
expect 1 "a missing shard fails the merge" -- "$NNFX" report merge ok1.json -o miss.json
check "the missing shard is named" grep -q "no report of shard 2 of 2" "$TMP/err"
check "missing_shards in the JSON" $PY -c 'import json; assert json.load(open("miss.json"))["missing_shards"] == [2]'
check "nnfx shard lists the models of each --shard run" $PY - "$NNFX" <<'PY'
import json, subprocess, sys
for k in range(1, 5):
    got = subprocess.run([sys.argv[1], "shard", f"{k}/4", "fleet/list.txt"], capture_output=True, text=True,
                         check=True).stdout.split()
    want = [e["model"] for e in json.load(open(f"shard{k}.json"))["results"]]
    assert got == want, (k, got, want)
PY
expect 2 "nnfx shard 0/4" -- "$NNFX" shard 0/4 fleet/list.txt
expect 3 "nnfx shard of a missing list" -- "$NNFX" shard 1/4 nothere.txt
expect 2 "merge without -o" -- "$NNFX" report merge ok1.json
expect 2 "merge without reports" -- "$NNFX" report merge -o x.json
expect 2 "unknown verb" -- "$NNFX" report combine ok1.json -o x.json
expect 3 "a missing report" -- "$NNFX" report merge nothere.json -o x.json
echo '{"something": 1}' >notreport.json
expect 3 "not an nnfx report" -- "$NNFX" report merge notreport.json -o x.json
check "the error names the file" grep -q "notreport.json" "$TMP/err"
check "nothing written on errors" test ! -e x.json

# --- deploy/: the YAML parses, its commands run per shard ------------------
check "deploy/k8s, deploy/ci: parsed, wired, their commands pass on a small fleet" \
    $PY "$SRC/tests/fleet/run_deploy.py" "$NNFX" "$SRC" deploy

check_summary fleet
