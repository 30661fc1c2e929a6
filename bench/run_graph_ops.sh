#!/bin/sh
# run_graph_ops.sh — runs bench_graph_ops (nnfx) and torch_fx_graph_ops.py
# (torch.fx) on the same chains and prints, per model, each timing and the
# ratio torch.fx / nnfx (how many times faster nnfx is).
# Usage: bench/run_graph_ops.sh [build-dir] [N ...]   (default: build, 100 400 1600 25000)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
bin="$build/bench_graph_ops"
[ -x "$bin" ] || { echo "run_graph_ops.sh: $bin not found (build first)" >&2; exit 2; }
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# nnfx"
"$bin" "$@" | tee "$tmp/nnfx.jsonl"
echo "# torch.fx"
"$py" "$here/torch_fx_graph_ops.py" "$@" | tee "$tmp/torch.jsonl"
echo "# torch.fx time / nnfx time"
"$py" - "$tmp/nnfx.jsonl" "$tmp/torch.jsonl" <<'PY'
import json, sys
def load(p):
    return {r["model"]: r for r in map(json.loads, open(p)) if "model" in r}
a, b = load(sys.argv[1]), load(sys.argv[2])
keys = ["trace_s", "relu_to_leaky_incl_trace_s", "dce_recompile_s"]
print("%-10s %8s %8s  %s" % ("model", "nodes", "fx_nodes", "  ".join("%26s" % k for k in keys)))
for m in a:
    if m not in b or "error" in b[m]:
        print("%-10s torch.fx: %s" % (m, b.get(m, {}).get("error", "no result")))
        continue
    cells = []
    for k in keys:
        r = b[m][k] / a[m][k] if a[m][k] > 0 else float("inf")
        cells.append("%26s" % ("%.1fx (%.3fs vs %.3fs)" % (r, b[m][k], a[m][k])))
    print("%-10s %8d %8d  %s" % (m, a[m]["nodes"], b[m]["nodes"], "  ".join(cells)))
PY
