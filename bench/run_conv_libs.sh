#!/bin/sh
# run_conv_libs.sh — nnfx's own conv kernels against oneDNN (libdnnl-dev)
# and XNNPACK (libxnnpack-dev, libpthreadpool-dev) on the convolutions of
# resnet18 and mobilenet_v2 (batch 1, one thread: OMP_NUM_THREADS=1), per
# distinct conv and in total (count x median time). A measurement only:
# nnfx does not link either library. bench/conv_libs/conv_libs.c says what
# each column times. Models come from bench/export_models.py (torchvision).
# Usage: bench/run_conv_libs.sh [build-dir] [runs]   (default: build 15)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-15}
[ -f "$build/libnnfx.a" ] || { echo "run_conv_libs.sh: $build/libnnfx.a not found (build first)" >&2; exit 2; }
for h in dnnl.h xnnpack.h pthreadpool.h; do
  [ -f "/usr/include/$h" ] || {
    echo "run_conv_libs.sh: /usr/include/$h missing (apt-get install libdnnl-dev libxnnpack-dev libpthreadpool-dev)" >&2
    exit 2
  }
done
out=bench/models
for m in resnet18 mobilenet_v2; do
  [ -f "$out/${m}_b1.onnx" ] || /usr/bin/python3 bench/export_models.py "$out" 1 >&2
done
bin=$build/conv_libs
cc -O2 -std=c11 -D_DEFAULT_SOURCE -Iinclude -Isrc bench/conv_libs/conv_libs.c "$build/libnnfx.a" -ldnnl -lXNNPACK \
  $(pkg-config --libs openblas) -lm -lpthread -o "$bin"
echo "# $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); one thread; median of $runs runs; ms"
OMP_NUM_THREADS=1 "$bin" "$runs" "$out/resnet18_b1.onnx" "$out/mobilenet_v2_b1.onnx" | tee "$build/conv_libs.jsonl"
/usr/bin/python3 - "$build/conv_libs.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("%-16s %8s %10s %10s %10s %12s %12s" % ("model", "convs", "nnfx ms", "oneDNN ms", "XNNPACK ms", "nnfx/oneDNN",
                                              "nnfx/XNNPACK"))
for r in rows:
    if r.get("total"):
        m = r["model"].split("/")[-1].replace("_b1.onnx", "")
        print("%-16s %8d %10.2f %10.2f %10.2f %11.2fx %11.2fx" % (m, r["convs"], r["nnfx_ms"], r["onednn_ms"],
              r["xnnpack_ms"], r["nnfx_ms"] / r["onednn_ms"], r["nnfx_ms"] / r["xnnpack_ms"]))
PY
