#!/bin/sh
# run_families.sh — nnfx vs ONNX Runtime on model families beyond the
# classifiers: r3d_18 (3-D convs), an LSTM keyword spotter, a GRU, espcn
# (super-resolution), a small U-Net (ConvTranspose) and the detector
# ssdlite320_mobilenet_v3_large (NMS and its post-processing) by default; on
# request (FAMILIES=...) inception_v3 (299x299), the segmentation nets
# lraspp and deeplabv3 (mobilenet_v3_large, 520x520, BatchNorm statistics
# from random images) and the vision transformers swin_t and maxvit_t
# (windowed attention), exported by
# bench/export_families.py (torch + torchvision only: Debian
# python3-torchvision). One thread, batch 1; the engines alternate ROUNDS
# times per family (a burst of load on a shared machine hits one round, not
# one engine); each round times RUNS runs after a warm-up; the table gives
# the median over rounds of each engine's median and the median of the
# per-round ratios (nnfx / ORT: below 1 nnfx is faster). Before timing, each
# nnfx output is compared to PyTorch's (max abs difference printed; for a
# model with several outputs, one per output: ssdlite's boxes / scores /
# labels).
#
# Usage: bench/run_families.sh [RUNS]            (from the repository root)
#        FAMILIES="kws_lstm gru" ROUNDS=5 bench/run_families.sh
#        FAMILIES="inception_v3 lraspp deeplabv3" bench/run_families.sh 10
#        BASE=../old/build/nnfx bench/run_families.sh   (also times another
#        nnfx build in the same rounds: a before/after table)
# Needs: a build in build/; /usr/bin/python3 with torch + torchvision to
# export (once, into bench/models/families); node and onnxruntime-node in
# bench/node_modules or tests/ort/node_modules (else ORT is skipped).
# The header gives the host's AVX-512 flags and its load (uptime).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-20}
ROUNDS=${ROUNDS:-5}
FAMILIES=${FAMILIES:-"r3d_18 kws_lstm gru espcn unet ssdlite"}
OUT=${OUT:-bench/models/families}
NNFX=build/nnfx
BASE=${BASE:-}
PY=/usr/bin/python3
E="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"

[ -x "$NNFX" ] || { echo "build first: cmake -S . -B build -G Ninja && cmake --build build" >&2; exit 1; }
for f in $FAMILIES; do
  [ -f "$OUT/$f.onnx" ] && continue
  $PY -c 'import torch, torchvision' 2>/dev/null || { echo "no $OUT/$f.onnx and no torch/torchvision to export it" >&2; exit 1; }
  $PY bench/export_families.py "$OUT" $FAMILIES 2>/dev/null >&2
done
. bench/ort_js.sh   # sets ORTJS
echo "# CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) logical cores"
echo "# AVX-512: $(grep -o 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "# load before: $(uptime)"
[ -n "$ORTJS" ] || echo "# ONNX Runtime skipped: node or onnxruntime-node missing"
med() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ms() { sed -n 's/.*"median_ms": *\([0-9.eE+-]*\).*/\1/p'; }
if [ -n "$BASE" ]; then
  printf '| family | nnfx ms | ORT ms | nnfx/ORT | base ms | base/ORT | max abs diff vs PyTorch |\n'
  printf '|---|---|---|---|---|---|---|\n'
else
  printf '| family | nnfx ms | ORT ms | nnfx/ORT | max abs diff vs PyTorch |\n|---|---|---|---|---|\n'
fi
for f in $FAMILIES; do
  m="$OUT/$f.onnx" x="$OUT/${f}_in.npy"
  diff=$($PY - "$NNFX" "$m" "$x" "$OUT/${f}_ref.npy" <<'PYEOF' 2>/dev/null || echo "?"
import os, subprocess, sys, tempfile
import numpy as np
nnfx, m, x, ref = sys.argv[1:]
d = tempfile.mkdtemp()
subprocess.run([nnfx, "run", m, "--input", x, "--output-dir", d, "--quiet"], check=True)
out = []
for i, f in enumerate(sorted(os.listdir(d))):  # output i vs ref (i = 0) or ref_<i>
    r = ref if i == 0 else ref[:-4] + "_%d.npy" % i
    if not os.path.exists(r):
        break
    y, z = np.load(os.path.join(d, f)), np.load(r)
    out.append("shape %s vs %s" % (y.shape, z.shape) if y.shape != z.shape else
               "%.2e" % (np.abs(y.astype(np.float64) - z).max() if y.size else 0))
print(" / ".join(out))
PYEOF
)
  a="" b="" r="" c="" q=""
  for round in $(seq "$ROUNDS"); do
    ta=$($E $NNFX run "$m" --input "$x" --bench "$RUNS" --threads 1 --quiet | ms)
    a="$a $ta"
    if [ -n "$ORTJS" ]; then
      tb=$($E node "$ORTJS" "$m" "$x" "$RUNS" 1 | ms)
      b="$b $tb"
      r="$r $(awk -v a="$ta" -v b="$tb" 'BEGIN {printf "%.3f", a / b}')"
    fi
    if [ -n "$BASE" ]; then
      tc=$($E "$BASE" run "$m" --input "$x" --bench "$RUNS" --threads 1 --quiet | ms)
      c="$c $tc"
      [ -n "$ORTJS" ] && q="$q $(awk -v a="$tc" -v b="$tb" 'BEGIN {printf "%.3f", a / b}')"
    fi
  done
  ma=$(echo $a | tr ' ' '\n' | med)
  mb=$(echo $b | tr ' ' '\n' | med)
  mr=$(echo $r | tr ' ' '\n' | med)
  if [ -n "$BASE" ]; then
    mc=$(echo $c | tr ' ' '\n' | med)
    mq=$(echo $q | tr ' ' '\n' | med)
    printf "| %s | %.3f | %s | %s | %.3f | %s | %s |\n" "$f" "$ma" "$(test -n "$b" && printf %.3f "$mb")" \
      "${r:+${mr}x}" "$mc" "${q:+${mq}x}" "$diff"
  else
    printf "| %s | %.3f | %s | %s | %s |\n" "$f" "$ma" "$(test -n "$b" && printf %.3f "$mb")" "${r:+${mr}x}" "$diff"
  fi
done
echo "# load after: $(uptime)"
exit 0
