#!/bin/sh
# run_graph_ops.sh — runs bench_graph_ops (nnfx) and torch_fx_graph_ops.py
# (torch.fx) on the same chains and prints, per model, each timing and the
# ratio torch.fx / nnfx (how many times faster nnfx is) per key, as a table,
# then nnfx's time per node of each key relative to the smallest chain's
# above 1000 blocks (1.0: linear), and one run of a 200k-node Relu chain.
# chain90909 (1,000,001 nodes) runs in nnfx only: torch.fx gets the chains of
# at most TORCH_MAX blocks (default 25000; it needs minutes per key beyond).
# Usage: bench/run_graph_ops.sh [build-dir] [N ...]
#        (default: build, 100 400 1600 25000 90909)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
bin="$build/bench_graph_ops"
[ -x "$bin" ] || { echo "run_graph_ops.sh: $bin not found (build first)" >&2; exit 2; }
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- 100 400 1600 25000 90909
torch_n=""
for n in "$@"; do
    [ "$n" -le "${TORCH_MAX:-25000}" ] && torch_n="$torch_n $n"
done
echo "# nnfx"
"$bin" "$@" | tee "$tmp/nnfx.jsonl"
"$bin" --relu 200000
echo "# torch.fx"
# shellcheck disable=SC2086
[ -z "$torch_n" ] || "$py" "$here/torch_fx_graph_ops.py" $torch_n | tee "$tmp/torch.jsonl"
touch "$tmp/torch.jsonl"
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
big = [m for m in a if int(m[5:]) >= 1000]
if len(big) > 1:
    base = big[0]
    print("# nnfx time per node relative to %s (%d nodes); 1.00 = linear" % (base, a[base]["nodes"]))
    # each key the best of 3 runs at every size; trace_first: the first run's trace (heap not yet grown)
    lin = keys + ["trace_first_s"]
    print("%-11s %8s  " % ("model", "nodes") + " ".join("%13s" % k[:13] for k in lin))
    for m in big:
        rel = [(a[m][k] / a[m]["nodes"]) / (a[base][k] / a[base]["nodes"]) if a[base].get(k, 0) > 0 else float("nan")
               for k in lin]
        print("%-11s %8d  " % (m, a[m]["nodes"]) + " ".join("%13.2f" % r for r in rel))
    if all("cpu_s" in a[m] for m in big):
        print("# the same from CPU seconds (less sensitive to a loaded machine)")
        for m in big:
            rel = [(a[m]["cpu_s"][i] / a[m]["nodes"]) / (a[base]["cpu_s"][i] / a[base]["nodes"])
                   if a[base]["cpu_s"][i] > 0 else float("nan") for i in range(len(keys))]
            print("%-11s %8d  " % (m, a[m]["nodes"]) + " ".join("%13.2f" % r for r in rel))
PY
