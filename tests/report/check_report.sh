#!/usr/bin/env bash
# The graph drawn in `nnfx analyze --html` reports, in headless Chromium
# (label browser; exit 77, a CTest skip, without chromium):
#  - before/after: a small ResNet with a BatchNorm after every conv
#    (make_models.py) against its fuse-conv-bn result, in one drawing: every
#    BatchNormalization is marked removed, each conv that fed one changed, no
#    other node marked, every op of both models drawn with data-node; the
#    expected names come from the two models' text, not from the report;
#  - a click on a node opens its details (name, parameters), a click on a
#    group's header closes the group into one box that counts its changes;
#  - a 100,000-node graph: the file stays under 8 MB, the page opens
#    collapsed (at most 300 boxes), finding a node by name opens its groups;
#    the load time is printed (no timing assertion);
#  - nothing overflows the page's width; screenshots are left in TMP_DIR for
#    a person to look at.
# The page runs its scripts and a probe script, and Chromium's --dump-dom
# gives the DOM afterwards, where the probe wrote what it saw.
# Usage: check_report.sh NNFX TMP_DIR
set -u
NNFX=$1
TMP=$2
HERE=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "skip: no chromium (Debian: apt-get install --no-install-recommends chromium)"
    exit 77
fi
rm -rf "$TMP" && mkdir -p "$TMP"
fail() { echo "FAIL: $*"; status=1; }
status=0
python3 "$HERE/make_models.py" "$TMP" 100000 || { echo "FAIL: make_models.py"; exit 1; }
"$NNFX" optimize "$TMP/resnet_bn.fx" -o "$TMP/fused.fx" --pass fuse-conv-bn -q || { echo "FAIL: optimize"; exit 1; }
"$NNFX" analyze "$TMP/resnet_bn.fx" --compare "$TMP/fused.fx" --html "$TMP/compare.html" -q ||
    { echo "FAIL: analyze --compare --html"; exit 1; }
"$NNFX" analyze "$TMP/big.fx" --html "$TMP/big.html" -q || { echo "FAIL: analyze big.fx --html"; exit 1; }

browse() { # browse FLAG PAGE: headless Chromium on a local page, nothing else
    local profile
    profile=$(mktemp -d "$TMP/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
        --window-size=1280,1400 "$1" "file://$2" 2>>"$TMP/chromium.log"
}
probe() { # probe PAGE PROBE.js: the JSON the probe left in the DOM
    sed "s#</body>#<script src=\"$(basename "$2")\"></script></body>#" "$1" >"$1.probe.html"
    browse --dump-dom "$1.probe.html" | sed -n 's#.*<pre id="probe">\(.*\)</pre>.*#\1#p'
}

cat >"$TMP/compare_probe.js" <<'JS'
(function () {
  var G = document.getElementById("nnfx-graph"), r = {};
  function click(e) { e.dispatchEvent(new MouseEvent("click", { bubbles: true })); }
  r.ready = G.dataset.ready;
  r.nodes = Array.prototype.map.call(G.querySelectorAll("svg [data-node]"), function (e) {
    return [e.dataset.node, e.dataset.op, e.dataset.change || ""];
  });
  var conv = G.querySelector('svg [data-node][data-op="Conv"]');
  click(conv.querySelector("rect"));
  var d = G.querySelector(".gdetails");
  r.clicked = conv.dataset.node;
  r.details_hidden = d.hidden;
  r.details_node = d.dataset.node || "";
  r.details_text = d.textContent;
  var box = d.getBoundingClientRect(), area = G.getBoundingClientRect();
  r.details_inside = box.left >= area.left && box.right <= area.right && box.top >= area.top;
  click(G.querySelector('[data-group="layer1"] text.ghead'));
  var closed = G.querySelector('.ggroup.closed[data-group="layer1"]');
  r.closed_changes = closed ? closed.dataset.changes : null;
  r.nodes_after_close = G.querySelectorAll("svg [data-node]").length;
  r.overflow = document.documentElement.scrollWidth > window.innerWidth;
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
JS
probe "$TMP/compare.html" "$TMP/compare_probe.js" >"$TMP/compare_probe.json"
python3 - "$TMP" <<'PY' || status=1
import json, re, sys
tmp = sys.argv[1]
def nodes(path):
    """(name, target) of each op node of a text-IR model, and each op's data inputs."""
    out, args = [], {}
    for line in open(path):
        m = re.match(r"\s*%(\S+) : \[num_users=\d+\] = (call_function|placeholder)\[target=(\w+)\](.*)", line)
        if m:
            out.append((m.group(1), m.group(3)))
            args[m.group(1)] = re.findall(r"%(\w+)", m.group(4).split("kwargs")[0])
    return out, args
before, bargs = nodes(tmp + "/resnet_bn.fx")
after, _ = nodes(tmp + "/fused.fx")
bn = {n for n, t in before if t == "batch_normalization"}
convs = {bargs[n][0] for n in bn}
try:
    r = json.load(open(tmp + "/compare_probe.json"))
except ValueError:
    print("FAIL: no probe output (see chromium.log)"); sys.exit(1)
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
drawn = {n: (op, ch) for n, op, ch in r["nodes"]}
removed = {n for n, (op, ch) in drawn.items() if ch == "removed"}
changed = {n for n, (op, ch) in drawn.items() if ch == "changed"}
added = {n for n, (op, ch) in drawn.items() if ch == "added"}
check(len(bn) == 8 and len(convs) == 8, "the model has 8 BatchNorms after 8 convs (%d, %d)" % (len(bn), len(convs)))
check(removed == bn, "removed %s, want the BatchNorms %s" % (sorted(removed), sorted(bn)))
check(all(drawn[n][0] == "BatchNormalization" for n in removed), "a removed node is not a BatchNormalization")
check(changed == convs, "changed %s, want the convs %s" % (sorted(changed), sorted(convs)))
check(not added, "added %s, want none" % sorted(added))
want = {n for n, _ in before} | {n for n, _ in after}
check(want <= set(drawn), "not drawn: %s" % sorted(want - set(drawn)))
check(r["ready"] == "1", "the drawing's script did not finish")
check(not r["details_hidden"] and r["details_node"] == r["clicked"], "a click on %s did not open its details" % r["clicked"])
check("weight_fused" in r["details_text"], "the details do not list the conv's parameters")
check(r["details_inside"], "the details panel is outside the drawing")
# layer1: 2 blocks x (2 conv + 2 bn + add + relu... ) - its changes are 4 BatchNorms removed, 4 convs changed
check(r["closed_changes"] == "4 removed, 4 changed", "closed layer1 says %r" % r["closed_changes"])
check(r["nodes_after_close"] < len(r["nodes"]), "closing layer1 did not hide its nodes")
check(not r["overflow"], "the page is wider than the window")
print("compare: %d nodes drawn, %d removed, %d changed; details of %s open" %
      (len(drawn), len(removed), len(changed), r["clicked"]))
sys.exit(0 if ok else 1)
PY

size=$(wc -c <"$TMP/big.html")
echo "big.html: $size bytes"
[ "$size" -lt 8000000 ] || fail "the 100,000-node report is $size bytes (want under 8 MB)"
cat >"$TMP/big_probe.js" <<'JS'
(function () {
  var G = document.getElementById("nnfx-graph"), r = {};
  r.ready = G.dataset.ready;
  r.load_ms = +G.dataset.loadMs;
  r.page_ms = Math.round(performance.now());
  r.boxes = G.querySelectorAll("svg .gnode, svg .ggroup.closed").length;
  r.nodes = G.querySelectorAll("svg [data-node]").length;
  var f = G.querySelector("input[data-act=find]");
  f.value = "s57_b3_mul7";
  f.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  r.found = !!G.querySelector('svg [data-node="s57_b3_mul7"]');
  r.found_details = G.querySelector(".gdetails").dataset.node || "";
  r.boxes_after_find = G.querySelectorAll("svg .gnode, svg .ggroup.closed").length;
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
JS
start=$(date +%s.%N)
big=$(probe "$TMP/big.html" "$TMP/big_probe.js")
end=$(date +%s.%N)
echo "big probe: ${big:-(none)}"
echo "big: Chromium start, load and dump took $(python3 -c "print('%.1f s' % ($end - $start))")"
python3 - "$big" <<'PY' || status=1
import json, sys
try:
    r = json.loads(sys.argv[1])
except ValueError:
    print("FAIL: no probe output for big.html"); sys.exit(1)
ok = r["ready"] == "1" and r["boxes"] <= 300 and r["nodes"] <= 300
if not ok:
    print("FAIL: the 100,000-node page did not open collapsed: %s" % r)
if not (r["found"] and r["found_details"] == "s57_b3_mul7" and r["boxes_after_find"] <= 400):
    print("FAIL: finding s57_b3_mul7 did not open its groups and details: %s" % r); ok = False
print("big: %d boxes drawn at first; the drawing's script took %d ms, the page %d ms to its end" %
      (r["boxes"], r["load_ms"], r["page_ms"]))
sys.exit(0 if ok else 1)
PY

browse --screenshot="$TMP/compare.png" "$TMP/compare.html" >/dev/null
browse --screenshot="$TMP/big.png" "$TMP/big.html" >/dev/null
for png in compare big; do
    s=$(wc -c <"$TMP/$png.png" 2>/dev/null || echo 0)
    [ "$s" -gt 20000 ] || fail "screenshot $TMP/$png.png is $s bytes"
done
echo "screenshots: $TMP/compare.png $TMP/big.png"
exit $status
