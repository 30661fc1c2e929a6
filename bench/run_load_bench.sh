#!/bin/sh
# run_load_bench.sh — ONNX load time and peak memory: nnfx_onnx_load
# (build/bench_load) against onnx.load (python3-onnx), on the models written
# by bench/make_load_models.py (made first if missing).
#
# Per model:
#   nnfx s        median of bench_load's in-process nnfx_onnx_load times
#   onnx.load s   median of in-process onnx.load times (one interpreter)
#   ratio         onnx.load s / nnfx s (how many times faster nnfx is)
#   peak RSS      /usr/bin/time's maximum resident set of one process that
#                 loads once; for onnx.load the RSS of `python3 -c 'import
#                 onnx'` (the interpreter + onnx, measured the same way) is
#                 subtracted, for nnfx nothing is (the whole C process)
#   touch s       nnfx load + reading every weight byte (pages faulted in,
#                 unaligned weights copied): what the first inference pays
#   +recompile s  nnfx load + recompile (lint, shape inference; the plan is
#                 built by the first run)
#   inspect s / RSS MB, analyze s / RSS MB
#                 the CLI commands `nnfx inspect MODEL` and `nnfx analyze
#                 MODEL` (median wall time of the runs, peak RSS of one run,
#                 the whole process): looking at a model reads no weights
# File MB counts the model file plus its external data file, if any;
# mlp_1g_ext is a 1.07 GB model with external data.
#
# Usage: bench/run_load_bench.sh [build-dir] [runs]   (default: build 7)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-7}
bin="$build/bench_load"
[ -x "$bin" ] || { echo "run_load_bench.sh: $bin not found (build first)" >&2; exit 2; }
py=${PYTHON:-/usr/bin/python3}
"$py" -c 'import onnx' 2>/dev/null || { echo "run_load_bench.sh: $py has no onnx (python3-onnx)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run_load_bench.sh: /usr/bin/time not found (Debian: time)" >&2; exit 2; }
models="$here/models"
"$py" "$here/make_load_models.py" "$models"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

peak_kb() { # command...: prints the peak RSS in KiB of running it once
    /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >/dev/null
    cat "$tmp/rss"
}

base_kb=$(peak_kb "$py" -c 'import onnx')
echo "# python3 + onnx baseline peak RSS: $base_kb KiB (subtracted from onnx.load's)"
for m in resnet18 mlp_big mlp_big_ext mlp_1g_ext; do
    f="$models/$m.onnx"
    bytes=$(stat -c %s "$f")
    [ -f "$f.data" ] && bytes=$((bytes + $(stat -c %s "$f.data")))
    "$bin" "$f" --runs "$runs" --touch --recompile >"$tmp/$m.nnfx.json"
    nnfx_kb=$(peak_kb "$bin" "$f" --runs 1)
    "$py" - "$f" "$runs" >"$tmp/$m.onnx.json" <<'PY'
import json, statistics, sys, time
import onnx
path, runs = sys.argv[1], int(sys.argv[2])
ts = []
for _ in range(runs):
    t0 = time.perf_counter()
    m = onnx.load(path)
    ts.append(time.perf_counter() - t0)
    del m
print(json.dumps({"load_s": statistics.median(ts), "nodes": 0}))
PY
    onnx_kb=$(peak_kb "$py" -c 'import sys, onnx; onnx.load(sys.argv[1])' "$f")
    for c in inspect analyze; do
        ts=""
        for _ in $(seq "$runs"); do
            /usr/bin/time -f '%e' -o "$tmp/t" "$build/nnfx" $c "$f" >/dev/null
            ts="$ts $(cat "$tmp/t")"
        done
        kb=$(peak_kb "$build/nnfx" $c "$f")
        echo "{\"s\": $(echo $ts | tr ' ' '\n' | sort -n | sed -n "$(( (runs + 1) / 2 ))p"), \"kb\": $kb}" \
            >"$tmp/$m.$c.json"
    done
    echo "{\"model\": \"$m\", \"bytes\": $bytes, \"nnfx_kb\": $nnfx_kb, \"onnx_kb\": $onnx_kb, \"base_kb\": $base_kb}" \
        >"$tmp/$m.rss.json"
done
echo "# nnfx_onnx_load vs onnx.load ($runs runs each, medians; RSS from /usr/bin/time -f %M)"
"$py" - "$tmp" <<'PY'
import json, os, sys
d = sys.argv[1]
def rd(p):
    return json.loads(open(os.path.join(d, p)).read().strip().splitlines()[-1])
hdr = ("model", "file MB", "nnfx s", "onnx.load s", "speedup", "nnfx RSS MB", "RSS/file", "onnx RSS MB",
       "touch s", "+recompile s", "deferred MB")
print("%-12s %8s %9s %11s %8s %11s %8s %11s %8s %12s %11s" % hdr)
models = ("resnet18", "mlp_big", "mlp_big_ext", "mlp_1g_ext")
for m in models:
    n, o, r = rd(m + ".nnfx.json"), rd(m + ".onnx.json"), rd(m + ".rss.json")
    mb = r["bytes"] / 1e6
    nrss = r["nnfx_kb"] * 1024 / 1e6
    orss = (r["onnx_kb"] - r["base_kb"]) * 1024 / 1e6
    ratio = o["load_s"] / n["load_s"] if n["load_s"] > 0 else float("inf")
    print("%-12s %8.1f %9.5f %11.4f %7.0fx %11.1f %7.2fx %11.1f %8.4f %12.4f %11.1f" % (
        m, mb, n["load_s"], o["load_s"], ratio, nrss, nrss / mb, orss, n["touch_s"], n["recompile_s"],
        n["deferred_bytes"] / 1e6))
print()
print("# the CLI on the same files: nnfx inspect / nnfx analyze (median s; peak RSS of the whole process)")
print("%-12s %8s %10s %14s %9s %10s %14s %9s" % ("model", "file MB", "inspect s", "inspect RSS MB", "RSS/file",
                                                  "analyze s", "analyze RSS MB", "RSS/file"))
for m in models:
    r = rd(m + ".rss.json")
    mb = r["bytes"] / 1e6
    i, a = rd(m + ".inspect.json"), rd(m + ".analyze.json")
    ik, ak = i["kb"] * 1024 / 1e6, a["kb"] * 1024 / 1e6
    print("%-12s %8.1f %10.3f %14.1f %8.3fx %10.3f %14.1f %8.3fx" % (m, mb, i["s"], ik, ik / mb, a["s"], ak, ak / mb))
PY
