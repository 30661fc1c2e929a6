#!/usr/bin/env bash
# `nnfx analyze --html` in a real browser (headless Chromium): the page loads
# with its scripts, the summary cards, findings and the graph's drawn nodes
# are in the rendered DOM, the tables sort when their headers are clicked (numerically
# by the raw figures, both directions), and a screenshot is drawn.
# Not a substitute for looking at the screenshot: it is left in TMP_DIR.
# Usage: check_html.sh NNFX DATA_DIR TMP_DIR
# Exit 77 (a CTest skip) when chromium is not installed.
set -u
NNFX=$1
DATA=$2
TMP=$3
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
    echo "skip: no chromium (Debian: apt-get install --no-install-recommends chromium)"
    exit 77
fi
rm -rf "$TMP" && mkdir -p "$TMP"
"$NNFX" analyze "$DATA/digits_cnn.onnx" --html "$TMP/cnn.html" --quiet || { echo "FAIL: analyze --html"; exit 1; }
browse() { # browse FLAG PAGE: headless Chromium on a local page, nothing else
    local profile
    profile=$(mktemp -d "$TMP/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
        --window-size=1280,2000 "$1" "file://$2" 2>>"$TMP/chromium.log"
}

# The probe clicks headers as a user would and writes what it saw into the
# DOM: first row of the per-node table after sorting by MACs (ascending,
# then descending), by params and by FLOPs (descending), first row of the
# per-op table sorted by op name, and the
# counts of summary cards, finding rows and graph nodes drawn (data-node).
cat >"$TMP/probe.js" <<'JS'
(function () {
  var t = document.querySelectorAll("table.sortable"), r = {};
  function first(tab, col) { return tab.tBodies[0].rows[0].cells[col].textContent; }
  var nodes = t[2], ops = t[1], macs = nodes.tHead.rows[0].cells[5];
  macs.click(); r.asc = first(nodes, 1); macs.click(); r.desc = first(nodes, 1);
  ops.tHead.rows[0].cells[0].click(); r.op = first(ops, 0);
  var params = nodes.tHead.rows[0].cells[4], flops = nodes.tHead.rows[0].cells[6];
  params.click(); params.click(); r.params_desc = first(nodes, 1);
  flops.click(); flops.click(); r.flops_desc = first(nodes, 1);
  r.cards = document.querySelectorAll(".card").length;
  r.findings = t[0].tBodies[0].rows.length;
  r.svg_nodes = document.querySelectorAll("#nnfx-graph svg [data-node]").length;
  var p = document.createElement("pre"); p.id = "probe"; p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
})();
JS
sed 's#</body>#<script src="probe.js"></script></body>#' "$TMP/cnn.html" >"$TMP/probe.html"
browse --dump-dom "$TMP/probe.html" >"$TMP/dom.html"
probe=$(sed -n 's#.*<pre id="probe">\(.*\)</pre>.*#\1#p' "$TMP/dom.html")
echo "probe: ${probe:-(none)}"
status=0
expect() { # expect KEY VALUE: the probe saw "KEY":VALUE
    case $probe in
    *"\"$1\":$2"*) ;;
    *) echo "FAIL: $1 is not $2"; status=1 ;;
    esac
}
# The tables show the model's own (ONNX) value names. conv2 (16x8x3x3 over
# 8x8: 73,728 MACs) is the costliest node; ReLU has 0
expect desc '"/conv2/Conv_output_0"'
expect asc '"/bn1/BatchNormalization_output_0"'
expect op '"BatchNormalization"'
# numeric order, not text order: params 2570 > 1168 > 80 (text: "80" first),
# FLOPs 148 K > 9.73 K (text: "9.73 K" first)
expect params_desc '"logits"'
expect flops_desc '"/conv2/Conv_output_0"'
expect cards 7
expect findings 2
# 9 ops + 1 input + 1 output (parameters are listed in their op's details)
expect svg_nodes 11

browse --screenshot="$TMP/cnn.png" "$TMP/cnn.html" >/dev/null
size=$(wc -c <"$TMP/cnn.png" 2>/dev/null || echo 0)
if [ "$size" -lt 20000 ]; then echo "FAIL: screenshot $TMP/cnn.png is $size bytes"; status=1; fi
echo "screenshot: $TMP/cnn.png ($size bytes)"
exit $status
