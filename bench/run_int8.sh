#!/bin/sh
# run_int8.sh — int8 inference at one thread, batch 1: nnfx's int8 kernels
# and ONNX Runtime (npm onnxruntime-node) on the same QDQ file, beside
# nnfx's own float32 time of the model the file was quantized from.
#
# QDQ files, per model:
#   nnfx-u8  `nnfx quantize` (defaults: uint8 activations, Conv/Gemm/MatMul
#            int8, everything else float), calibrated on 8 seeded random images
#   nnfx-s8  `nnfx quantize --activations int8` (every op int8: tables for
#            SiLU/sigmoid, fixed-point Add/Mul/means)
#   fx       PyTorch FX (prepare_fx/convert_fx, fbgemm) exported by
#            tests/data/quant/make_qdq_models.py (resnet18, mobilenet_v2,
#            resnet50 only); its float32 row is that script's float export
# Models: torchvision, random init (bench/export_models.py), batch 1.
#
# Usage: bench/run_int8.sh [RUNS]          (from the repository root; RUNS 20)
#        MODELS="resnet18 efficientnet_b0" KINDS="nnfx-u8 fx" bench/run_int8.sh
#        ROUNDS=5 bench/run_int8.sh   (default 3: nnfx int8, ORT int8, nnfx
#        fp32 take turns ROUNDS times per row, so a burst of load on a shared
#        machine hits one round, not one engine; times are the median of the
#        rounds' medians, ratios the median of the rounds' ratios)
# NNFX=path/to/nnfx times another build (e.g. a before/after pair);
# NNFX_ISA=avx2 narrows nnfx (int8 and fp32) to its AVX2 paths, as on a host
# without AVX-512 / VNNI (ONNX Runtime keeps its own choice: then only the
# fp32 / int8 column compares like with like).
# Prints a Markdown table; the header names the CPU, the int8 path nnfx's
# run-time dispatch takes, and the load average before and after.
# Needs: a build in build/, /usr/bin/python3 with torch + torchvision, node
# with onnxruntime-node in bench/node_modules or tests/ort/node_modules (ORT
# columns empty without it).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-20}
ROUNDS=${ROUNDS:-3}
MODELS=${MODELS:-"resnet18 mobilenet_v2 efficientnet_b0 resnet50"}
KINDS=${KINDS:-"nnfx-u8 nnfx-s8 fx"}
OUT=bench/models
RES=$OUT/int8_results.jsonl
NNFX=${NNFX:-build/nnfx}
PY=/usr/bin/python3
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"

[ -x "$NNFX" ] || { echo "build first: cmake -S . -B build -G Ninja && cmake --build build" >&2; exit 1; }
mkdir -p "$OUT" "$OUT/fx"
. bench/ort_js.sh   # sets ORTJS
[ -n "$ORTJS" ] || echo "# ONNX Runtime skipped: node or onnxruntime-node missing" >&2

# the files
for m in $MODELS; do
  [ -f "$OUT/${m}_b1.onnx" ] || MODELS="$m" $PY bench/export_models.py "$OUT" 1 >&2
done
[ -f "$OUT/calib8.npy" ] || $PY -c "import numpy as np; np.save('$OUT/calib8.npy', \
np.random.RandomState(7).rand(8, 3, 224, 224).astype(np.float32))"
for m in $MODELS; do
  [ -f "$OUT/${m}_q8u_b1.onnx" ] || $NNFX quantize "$OUT/${m}_b1.onnx" -o "$OUT/${m}_q8u_b1.onnx" --calib "$OUT/calib8.npy" -q
  [ -f "$OUT/${m}_q8i_b1.onnx" ] || $NNFX quantize "$OUT/${m}_b1.onnx" -o "$OUT/${m}_q8i_b1.onnx" --calib "$OUT/calib8.npy" \
    --activations int8 -q
  case "$KINDS $m" in
  *fx*" resnet18" | *fx*" mobilenet_v2" | *fx*" resnet50")
    [ -f "$OUT/fx/${m}_qdq.onnx" ] || $PY tests/data/quant/make_qdq_models.py "$m" "$OUT/fx" >&2 ;;
  esac
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "# CPU: ${cpu:-unknown}, $(nproc) logical cores; nnfx int8 path: $($NNFX run --help >/dev/null 2>&1; \
  $NNFX run "$OUT/$(echo $MODELS | cut -d' ' -f1)_q8u_b1.onnx" --input "$OUT/input_b1.npy" --profile --quiet 2>&1 \
  | grep -o 'avx512-vnni\|avx-vnni\|maddubs\|madd16\|portable' | head -n 1)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$RES"
for m in $MODELS; do
  for k in $KINDS; do
    case $k in
    nnfx-u8) q="$OUT/${m}_q8u_b1.onnx" f="$OUT/${m}_b1.onnx" ;;
    nnfx-s8) q="$OUT/${m}_q8i_b1.onnx" f="$OUT/${m}_b1.onnx" ;;
    fx) q="$OUT/fx/${m}_qdq.onnx" f="$OUT/fx/${m}_float.onnx" ;;
    *) echo "unknown kind $k" >&2; exit 2 ;;
    esac
    [ -f "$q" ] || continue
    echo "== $m $k" >&2
    for round in $(seq "$ROUNDS"); do
      tag="\"model\": \"$m\", \"kind\": \"$k\", \"round\": $round"
      r=$($E $NNFX run "$q" --input "$OUT/input_b1.npy" --bench "$RUNS" --threads 1 --quiet)
      echo "{$tag, \"engine\": \"nnfx\", \"r\": $r}" >> "$RES"
      if [ -n "$ORTJS" ]; then
        r=$($E node "$ORTJS" "$q" "$OUT/input_b1.npy" "$RUNS" 1)
        echo "{$tag, \"engine\": \"ort\", \"r\": $r}" >> "$RES"
      fi
      r=$($E $NNFX run "$f" --input "$OUT/input_b1.npy" --bench "$RUNS" --threads 1 --quiet)
      echo "{$tag, \"engine\": \"fp32\", \"r\": $r}" >> "$RES"
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
$PY - "$RES" <<'PYEOF'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    r = rows.setdefault((d["model"], d["kind"]), {})
    r.setdefault(d["round"], {})[d["engine"]] = d["r"]["median_ms"]
def med(v):
    return statistics.median(v) if v else None
def fmt(v, nd=2):
    return "" if v is None else f"{v:.{nd}f}"
print("| model | QDQ file | nnfx int8 ms | ORT int8 ms | nnfx fp32 ms | int8 / ORT | fp32 / int8 |")
print("|---|---|---:|---:|---:|---:|---:|")
for (m, k), rounds in rows.items():
    t = {e: med([r[e] for r in rounds.values() if e in r]) for e in ("nnfx", "ort", "fp32")}
    q = med([r["nnfx"] / r["ort"] for r in rounds.values() if "ort" in r])
    s = med([r["fp32"] / r["nnfx"] for r in rounds.values()])
    print(f"| {m} | {k} | {fmt(t['nnfx'])} | {fmt(t['ort'])} | {fmt(t['fp32'])} | {fmt(q)}x | {fmt(s)}x |")
PYEOF
