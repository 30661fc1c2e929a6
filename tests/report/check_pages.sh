#!/usr/bin/env bash
# The charts of the HTML reports (no browser needed: the page's SVG is
# read as text):
#  - prune --report FILE.html: one bar per group whose kept/total channels
#    are the output channels of that conv's weight in the pruned and in the
#    original model (read from the models' text, not from the report);
#  - quantize --report FILE.html: one SQNR bar per layer with the figures
#    of the JSON report of the same run, and the drawing's data marks each
#    Conv/Gemm changed and int8;
#  - analyze --html: the MACs bars are the per-node MACs of --json and sum
#    to its total; the live-activation chart is there;
#  - optimize --report FILE.html: the drawing's data marks every
#    BatchNormalization removed and each conv that fed one changed;
#  - codegen --report FILE.html: the flash bars are the weight bytes per op
#    of the JSON report, and the activations chart is there;
#  - run --profile-html: one time bar per step of the plan, the steps that
#    `run --profile` prints, and the drawing's data is shaded by time;
#  - every page is self-contained (no src= or href= to load).
# Usage: check_pages.sh NNFX SOURCE_DIR TMP_DIR
set -u
NNFX=$1
SRC=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
python3 "$SRC/tests/report/make_models.py" "$TMP" 10 || { echo "FAIL: make_models.py"; exit 1; }
T=$SRC/tests/data/tiny
set -e
"$NNFX" prune "$TMP/resnet_bn.fx" -o "$TMP/pruned.fx" --ratio 0.5 --report "$TMP/prune.html" -q
"$NNFX" quantize "$T/resnet8.onnx" -o "$TMP/q.onnx" --calib "x=$T/resnet8_ref_x.npy" --report "$TMP/q.html" -q
"$NNFX" quantize "$T/resnet8.onnx" -o "$TMP/q2.onnx" --calib "x=$T/resnet8_ref_x.npy" --report "$TMP/q.json" -q
"$NNFX" analyze "$TMP/resnet_bn.fx" --html "$TMP/a.html" --json "$TMP/a.json" -q
"$NNFX" optimize "$TMP/resnet_bn.fx" -o "$TMP/fused.fx" --pass fuse-conv-bn --report "$TMP/o.html" -q
"$NNFX" codegen "$T/resnet8.onnx" -o "$TMP/cg" --shape x=1x3x32x32 --report "$TMP/cg.html" >/dev/null
"$NNFX" codegen "$T/resnet8.onnx" -o "$TMP/cg2" --shape x=1x3x32x32 --report "$TMP/cg.json" >/dev/null
"$NNFX" run "$T/resnet8.onnx" --input "x=$T/resnet8_ref_x.npy" -o "$TMP/y.npy" --profile-html "$TMP/prof.html"
"$NNFX" run "$T/resnet8.onnx" --input "x=$T/resnet8_ref_x.npy" -o "$TMP/y.npy" --profile 2>"$TMP/prof.txt"
set +e
python3 - "$TMP" <<'PY'
import html, json, re, sys
tmp = sys.argv[1]
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
def bars(page, chart):
    m = re.search(r'<figure class="chart" data-chart="%s">(.*?)</figure>' % chart, page, re.S)
    if not m:
        return None
    return [(html.unescape(a), float(v), float(t) if t else None)
            for a, v, t in re.findall(r'<g class="bar" data-bar="([^"]*)" data-value="([^"]*)"(?: data-total="([^"]*)")?', m.group(1))]
def graph(page):
    m = re.search(r'<script type="application/json" id="nnfx-graph-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1)) if m else None
def weights(path):
    """param name -> shape, from a text-IR model's '# param' lines"""
    return {m.group(1): [int(d) for d in m.group(2).split(",") if d.strip()]
            for m in re.finditer(r"# param (\S+) : float32\[([0-9, ]*)\]", open(path).read())}
pages = {}
for name in ("prune.html", "q.html", "a.html", "o.html", "cg.html", "prof.html"):
    pages[name] = open(tmp + "/" + name).read()
    check(not re.search(r'<(script|link|img)[^>]*(src|href)=', pages[name]), name + " loads something")
# prune: kept / channels per conv group against the models' weights
before, after = weights(tmp + "/resnet_bn.fx"), weights(tmp + "/pruned.fx")
b = bars(pages["prune.html"], "kept")
check(b, "prune.html has no channels-kept chart")
convs = {"stem_conv_conv": "stem.conv.weight", "layer1_0_conv1_conv": "layer1.0.conv1.weight",
         "layer1_1_conv1_conv": "layer1.1.conv1.weight", "layer2_0_conv1_conv": "layer2.0.conv1.weight"}
seen = 0
for label, kept, total in b or []:
    if label in convs:
        w = convs[label]
        check(kept == after[w][0] and total == before[w][0],
              "%s: chart %g of %g, models %d of %d" % (label, kept, total, after[w][0], before[w][0]))
        seen += 1
check(seen == len(convs), "prune chart rows %s" % [x[0] for x in b or []])
g = graph(pages["prune.html"])
check(g and g["compare"], "prune.html has no before/after drawing")
# quantize: the SQNR bars are the JSON report's layers
q = json.load(open(tmp + "/q.json"))
b = bars(pages["q.html"], "sqnr")
check(b is not None and len(b) == len(q["layers"]), "q.html: %s bars for %d layers" % (b and len(b), len(q["layers"])))
for (label, v, _), L in zip(b or [], q["layers"]):
    check(label == L["node"] and abs(v - L["sqnr_db"]) < 0.05, "sqnr bar %s %g vs %s %s" % (label, v, L["node"], L["sqnr_db"]))
g = graph(pages["q.html"])
ops = g["ops"] if g else []
mm = [n for n in (g["nodes"] if g else []) if ops[n[3]] in ("Conv", "Gemm")]
check(len(mm) == len(q["layers"]), "q.html draws %d Conv/Gemm for %d layers" % (len(mm), len(q["layers"])))
for n in mm:
    check(len(n) > 14 and n[11] == "changed" and n[14] == 1, "%s is not marked changed and int8" % n[0])
# analyze: MACs bars = per-node MACs of the JSON
a = json.load(open(tmp + "/a.json"))
b = bars(pages["a.html"], "macs")
want = {r["name"]: r["macs"] for r in a["per_node"] if r["macs"] > 0}
got = {label: v for label, v, _ in b or []}
check(got == want, "MACs chart %s vs JSON %s" % (got, want))
check(sum(got.values()) == a["macs"], "MACs bars sum to %g, the model has %d" % (sum(got.values()), a["macs"]))
check(bars(pages["a.html"], "memory"), "a.html has no live-activation chart")
# optimize: BatchNorms removed, the convs that fed them changed, nothing else
text = open(tmp + "/resnet_bn.fx").read()
bn = re.findall(r"%(\w+) : \[num_users=\d+\] = call_function\[target=batch_normalization\]\(args = \(%(\w+)", text)
g = graph(pages["o.html"])
marks = {}
for n in (g["nodes"] if g else []):
    if len(n) > 11 and n[11]:
        marks.setdefault(n[11], set()).add(n[0])
check(len(bn) == 8 and marks.get("removed") == {b for b, _ in bn}, "o.html removed %s" % marks.get("removed"))
check(marks.get("changed") == {c for _, c in bn}, "o.html changed %s" % marks.get("changed"))
check(not marks.get("added"), "o.html added %s" % marks.get("added"))
check("<b>Optimized.</b> ops 29 &rarr; 21." in pages["o.html"], "o.html does not give the outcome")
# codegen: flash per op type = the JSON report's weight bytes
cg = json.load(open(tmp + "/cg.json"))
got = {label: v for label, v, _ in bars(pages["cg.html"], "flash") or []}
check(got == {o["op"]: o["weight_bytes"] for o in cg["ops"]}, "codegen flash chart %s vs %s" % (got, cg["ops"]))
check(bars(pages["cg.html"], "memory"), "cg.html has no activations chart")
# run --profile-html: the steps of --profile's text
steps = set(re.findall(r"^\s+[0-9.]+\s+[0-9.]+%\s+\d+\s+(\S+)", open(tmp + "/prof.txt").read(), re.M))
got = {label for label, v, _ in bars(pages["prof.html"], "time") or []}
check(steps and got == steps, "profile chart %s vs --profile %s" % (sorted(got), sorted(steps)))
g = graph(pages["prof.html"])
timed = {n[0] for n in (g["nodes"] if g else []) if len(n) > 15 and n[15] > 0}
check(g and g["timed"] and timed and timed <= steps, "profile drawing: timed %s" % sorted(timed))
print("pages: prune, quantize, analyze, codegen and profile charts, the optimize page checked")
sys.exit(0 if ok else 1)
PY
