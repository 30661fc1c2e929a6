#!/bin/sh
# run_graph_ops.sh — runs bench_graph_ops (nnfx) and torch_fx_graph_ops.py
# (torch.fx) on the same chains and prints, per model, each timing and the
# ratio torch.fx / nnfx (how many times faster nnfx is) per key, as a table.
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
echo "# torch.fx time / nnfx time (how many times faster nnfx is), one row per model and key"
"$py" - "$tmp/nnfx.jsonl" "$tmp/torch.jsonl" <<'PY'
import json, sys
def load(p):
    return {r["model"]: r for r in map(json.loads, open(p)) if "model" in r}
a, b = load(sys.argv[1]), load(sys.argv[2])
keys = ["trace_s", "relu_to_leaky_incl_trace_s", "dce_recompile_s", "fuse_conv_bn_s",
        "replace_pattern_incl_trace_s"]
print("%-11s %7s %7s  %-29s %11s %11s %9s" % ("model", "nodes", "fx_nodes", "key", "torch.fx_s", "nnfx_s", "ratio"))
for m in a:
    if m not in b or "error" in b[m]:
        print("%-11s torch.fx: %s" % (m, b.get(m, {}).get("error", "no result")))
        continue
    for k in keys:
        if k not in a[m] or k not in b[m]:
            continue
        r = b[m][k] / a[m][k] if a[m][k] > 0 else float("inf")
        print("%-11s %7d %7d  %-29s %11.6f %11.6f %8.1fx" % (m, a[m]["nodes"], b[m]["nodes"], k, b[m][k], a[m][k], r))
PY
