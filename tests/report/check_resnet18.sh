#!/usr/bin/env bash
# The before/after drawing on torchvision resnet18 exported with its
# BatchNorms (tests/torchvision/fuse_models.py) against its fuse-conv-bn +
# dce result, in headless Chromium: every BatchNormalization drawn is marked
# removed and there are as many as the foldable_batch_norm findings of the
# before model, each conv those findings name is marked changed, nothing
# else is marked, a click opens a node's details, nothing overflows the page;
# the screenshot is left in OUT_DIR for a person to look at.
# Label slow (the export takes a while); exit 77 (a CTest skip) without
# chromium or without torch/torchvision/onnx.
# Usage: check_resnet18.sh TORCH_PYTHON NNFX OUT_DIR [MODEL.onnx]
#   (MODEL: a conv-bn model to use instead of the resnet18 export)
set -u
PY=$1
NNFX=$2
OUT=$3
MODEL=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROMIUM" ] || { echo "skip: no chromium (Debian: apt-get install --no-install-recommends chromium)"; exit 77; }
mkdir -p "$OUT"
if [ -z "$MODEL" ]; then
    MODEL=$OUT/resnet18.onnx
    if ! [ -s "$MODEL" ] || ! [ "$MODEL" -nt "$HERE/../torchvision/fuse_models.py" ]; then
        command -v "$PY" >/dev/null || { echo "skip: no python at '$PY'"; exit 77; }
        "$PY" "$HERE/../torchvision/fuse_models.py" "$OUT"
        rc=$?
        [ $rc -eq 0 ] || exit $rc
    fi
fi
ext=${MODEL##*.}
"$NNFX" optimize "$MODEL" -o "$OUT/fused.$ext" --pass fuse-conv-bn --pass dce -q || { echo "FAIL: optimize"; exit 1; }
"$NNFX" analyze "$MODEL" --json "$OUT/before.json" -q || { echo "FAIL: analyze"; exit 1; }
"$NNFX" analyze "$MODEL" --compare "$OUT/fused.$ext" --html "$OUT/compare.html" -q || { echo "FAIL: analyze --compare"; exit 1; }
cat >"$OUT/probe.js" <<'JS'
(function () {
  var G = document.getElementById("nnfx-graph"), r = {};
  r.ready = G.dataset.ready;
  r.nodes = Array.prototype.map.call(G.querySelectorAll("svg [data-node]"), function (e) {
    return [e.dataset.node, e.dataset.op, e.dataset.change || ""];
  });
  var conv = G.querySelector('svg [data-node][data-change="changed"]');
  if (conv) conv.querySelector("rect").dispatchEvent(new MouseEvent("click", { bubbles: true }));
  var d = G.querySelector(".gdetails");
  r.clicked = conv ? conv.dataset.node : "";
  r.details_node = d.hidden ? "" : d.dataset.node;
  r.overflow = document.documentElement.scrollWidth > window.innerWidth;
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
JS
browse() { # browse FLAG PAGE: headless Chromium on a local page, nothing else
    local profile
    profile=$(mktemp -d "$OUT/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
        --window-size=1280,1400 "$1" "file://$2" 2>>"$OUT/chromium.log"
}
sed 's#</body>#<script src="probe.js"></script></body>#' "$OUT/compare.html" >"$OUT/probe.html"
browse --dump-dom "$OUT/probe.html" | sed -n 's#.*<pre id="probe">\(.*\)</pre>.*#\1#p' >"$OUT/probe.json"
browse --screenshot="$OUT/compare.png" "$OUT/compare.html" >/dev/null
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
try:
    r = json.load(open(out + "/probe.json"))
except ValueError:
    print("FAIL: no probe output (see chromium.log)"); sys.exit(1)
before = json.load(open(out + "/before.json"))
pairs = [f["nodes"] for f in before["findings"] if f["kind"] == "foldable_batch_norm"]
bn, convs = {p[1] for p in pairs}, {p[0] for p in pairs}
marks = {}
for name, op, ch in r["nodes"]:
    marks.setdefault(ch, {})[name] = op
ok = True
def check(cond, what):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
check(pairs, "the model has no foldable BatchNorm")
check(set(marks.get("removed", {})) == bn, "removed %d nodes, want the %d BatchNorms" % (len(marks.get("removed", {})), len(bn)))
check(set(marks.get("removed", {}).values()) <= {"BatchNormalization"}, "a removed node is not a BatchNormalization")
check(set(marks.get("changed", {})) == convs, "changed %d nodes, want the %d convs" % (len(marks.get("changed", {})), len(convs)))
check(not marks.get("added"), "added %s" % sorted(marks.get("added", {})))
check(r["ready"] == "1" and r["details_node"] == r["clicked"], "a click on %s did not open its details" % r["clicked"])
check(not r["overflow"], "the page is wider than the window")
print("%d nodes drawn: %d BatchNorms removed, %d convs changed; screenshot %s/compare.png" %
      (len(r["nodes"]), len(marks.get("removed", {})), len(marks.get("changed", {})), out))
sys.exit(0 if ok else 1)
PY
