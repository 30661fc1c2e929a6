#!/bin/sh
# run_inference.sh — side-by-side CPU inference benchmark: nnfx, ONNX
# Runtime (npm onnxruntime-node) and PyTorch eager on torchvision models,
# threads 1 and 2, batch 1 and 8; prints a Markdown table. Then int8: QDQ
# versions of resnet18 and mobilenet_v2 (bench/make_qdq_models.py; 8-bit
# weights, and 7-bit weights as ORT's reduce_range makes them) run by
# nnfx (int8 kernels) and ONNX Runtime at one thread, batch 1, beside nnfx's
# float32 time (a second table).
#
# The header names the CPU and the vector ISA it offers (from /proc/cpuinfo)
# and which of those nnfx's own kernels use (they dispatch at run time).
#
# Usage: bench/run_inference.sh [RUNS_B1] [RUNS_B8]   (from the repository root)
#        MODELS="resnet18 mobilenet_v2" bench/run_inference.sh   (a subset)
#        ROUNDS=3 bench/run_inference.sh   (default 3: the engines take turns,
#        ROUNDS times per row, so a burst of load on a shared machine hits
#        one round, not one engine; times are the median of the rounds'
#        medians, the ratios the median of the rounds' ratios)
# Needs: a build in build/ (cmake -S . -B build -G Ninja && cmake --build build);
# /usr/bin/python3 with torch + torchvision (Debian python3-torchvision) to
# export the models; optional: node + `npm install --ignore-scripts
# onnxruntime-node` in bench/. Missing engines are skipped with a note.
# OpenBLAS tuning variables of the environment are dropped, as a user's
# machine would not have them.
set -eu
cd "$(dirname "$0")/.."
RUNS1=${1:-20}
RUNS8=${2:-5}
ROUNDS=${ROUNDS:-3}
MODELS=${MODELS:-"resnet18 mobilenet_v2 efficientnet_b0 squeezenet1_1"}
QMODELS="resnet18 mobilenet_v2"
OUT=bench/models
RES=$OUT/results.jsonl
NNFX=build/nnfx
PY=/usr/bin/python3
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"

[ -x "$NNFX" ] || { echo "build first: cmake -S . -B build -G Ninja && cmake --build build" >&2; exit 1; }

# header: the CPU and its ISA
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
flags=" $(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) "
isa=""
for f in sse4_2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_vnni avx512_bf16 avx_vnni amx_tile amx_int8 \
    amx_bf16; do
  case "$flags" in *" $f "*) isa="$isa $f" ;; esac
done
# what nnfx's run-time dispatch (src/core/cpu.c, src/exec/kernels/qgemm.c) takes on these flags
has() { case "$flags" in *" $1 "*) return 0 ;; esac; return 1; }
used="scalar"
if has avx2 && has fma; then
  used="float avx2+fma"
  if has avx512f && has avx512bw && has avx512vl && has avx512dq; then used="float avx512 (GEMM 6x32)"; fi
  if has avx512_vnni && has avx512f && has avx512bw && has avx512vl && has avx512dq; then used="$used, int8 avx512-vnni"
  elif has avx_vnni; then used="$used, int8 avx-vnni"
  else used="$used, int8 avx2"; fi
fi
echo "# CPU: ${cpu:-unknown}, $(nproc) logical cores"
echo "# ISA:${isa:- none of sse4_2/avx/avx2/avx512*/vnni/amx found}"
echo "# nnfx kernels use: $used (run-time dispatch; NNFX_ISA=avx2|portable narrows it); OpenBLAS picks its own"
dnnl=$(ldd "$NNFX" 2>/dev/null | grep -o 'libdnnl[^ ]*' | head -n 1 || true)
if [ -n "$dnnl" ] && [ "${NNFX_CONV:-}" != own ]; then
  echo "# float convs: oneDNN ($dnnl, its own JIT per ISA; NNFX_ISA=avx2 narrows it, NNFX_CONV=own turns it off)"
else
  echo "# float convs: nnfx's own kernels"
fi
mkdir -p "$OUT"
: > "$RES"
note() { printf '{"note": "%s"}\n' "$1" >> "$RES"; }

have_torch=0
if $PY -c 'import torch, torchvision' 2>/dev/null; then have_torch=1; fi
for m in $MODELS; do
  for b in 1 8; do
    if [ ! -f "$OUT/${m}_b$b.onnx" ]; then
      [ $have_torch = 1 ] || { echo "no $OUT/${m}_b$b.onnx and no torchvision to export it" >&2; exit 1; }
      $PY bench/export_models.py "$OUT" 1 8 >&2
    fi
  done
done
have_ort=0
if command -v node >/dev/null 2>&1 && [ -d bench/node_modules/onnxruntime-node ]; then have_ort=1; fi
[ $have_ort = 1 ] || note "ONNX Runtime skipped: node or bench/node_modules/onnxruntime-node missing"
[ $have_torch = 1 ] || note "PyTorch skipped: /usr/bin/python3 cannot import torch and torchvision"

for t in 1 2; do
  printf '{"peak": %s}\n' "$($E build/gemm_peak 1536 $t)" >> "$RES"
done
for m in $MODELS; do
  macs=$($NNFX analyze "$OUT/${m}_b1.onnx" --json - | sed -n 's/^ *"macs": \([0-9]*\),.*/\1/p')
  for b in 1 8; do
    runs=$RUNS1; [ $b = 8 ] && runs=$RUNS8
    for t in 1 2; do
      echo "== $m batch $b threads $t" >&2
      for round in $(seq "$ROUNDS"); do
        tag="\"name\": \"$m\", \"batch\": $b, \"threads\": $t, \"macs_b1\": $macs, \"round\": $round"
        r=$($E $NNFX run "$OUT/${m}_b$b.onnx" --input "$OUT/input_b$b.npy" --bench "$runs" --threads $t --quiet)
        echo "{$tag, \"engine\": \"nnfx\", \"r\": $r}" >> "$RES"
        if [ $have_ort = 1 ]; then
          r=$($E node bench/ort_bench.js "$OUT/${m}_b$b.onnx" "$OUT/input_b$b.npy" "$runs" $t)
          echo "{$tag, \"engine\": \"ort\", \"r\": $r}" >> "$RES"
        fi
        if [ $have_torch = 1 ] && [ "$round" = 1 ]; then # PyTorch eager: one round (it is the slow yardstick)
          r=$($E $PY bench/torch_bench.py $m "$OUT/$m.pt" "$OUT/input_b$b.npy" "$runs" $t)
          echo "{$tag, \"engine\": \"torch\", \"r\": $r}" >> "$RES"
        fi
      done
    done
  done
done
# int8: the same file in nnfx and ONNX Runtime, one thread, batch 1; the
# QDQ file with full-range (8-bit) weights, and one with 7-bit weights
# (--reduce-range: nnfx's AVX2 GEMM then takes its vpmaddubsw kernel)
for m in $QMODELS; do
  case " $MODELS " in *" $m "*) ;; *) continue ;; esac
  for v in qdq qdq7; do
    label=$m; flag=
    [ $v = qdq7 ] && label="$m, 7-bit weights" && flag=--reduce-range
    if [ ! -f "$OUT/${m}_${v}_b1.onnx" ]; then
      [ $have_torch = 1 ] || { note "int8 $label skipped: no torch to make the QDQ model"; continue; }
      $PY bench/make_qdq_models.py "$OUT" $flag "$m" >&2
    fi
    echo "== $label int8 batch 1 threads 1" >&2
    for round in $(seq "$ROUNDS"); do
      tag="\"name\": \"$label\", \"base\": \"$m\", \"round\": $round"
      r=$($E $NNFX run "$OUT/${m}_${v}_b1.onnx" --input "$OUT/input_b1.npy" --bench "$RUNS1" --threads 1 --quiet)
      echo "{\"int8\": {$tag, \"engine\": \"nnfx\", \"r\": $r}}" >> "$RES"
      if [ $have_ort = 1 ]; then
        r=$($E node bench/ort_bench.js "$OUT/${m}_${v}_b1.onnx" "$OUT/input_b1.npy" "$RUNS1" 1)
        echo "{\"int8\": {$tag, \"engine\": \"ort\", \"r\": $r}}" >> "$RES"
      fi
    done
  done
done
python3 bench/report.py "$RES"
