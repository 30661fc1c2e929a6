#!/bin/sh
# run_tiny.sh — the MLPerf Tiny shaped models (tests/data/tiny) in nnfx's
# generated C on QEMU's Cortex-M4 (mps2-an386) and Cortex-M55 (mps3-an547):
# accuracy float vs int8, flash, RAM and instructions per inference (QEMU
# -icount: instructions, not cycles), beside MLPerf Tiny's reference figures
# for the keyword model. A benchmark, not a test (bench/tiny_bench.py says
# what each column is). The int8 build is `nnfx quantize --activations int8`
# + `nnfx codegen --int8`; when `nnfx codegen --help` offers --int8-io, the
# integer-only build (`--int8 --int8-io`, NAME_run_int8) is measured too,
# byte-compared with nnfx run, and its Cortex-M0+ soft-float link listed.
#
# Usage: bench/run_tiny.sh                       (all four models, M4 and M55)
#        MODELS=dscnn,ad CORES=m4 bench/run_tiny.sh
#        SAMPLES=4 bench/run_tiny.sh              (inferences per QEMU run; default 2)
#        OPT=-O2 bench/run_tiny.sh                (the model's objects at -O2; default -Os)
# NNFX=path/to/nnfx picks another build (default build/nnfx). Work files and
# tiny_bench.json go to bench/models/tiny.
# Needs: a build in build/; /usr/bin/python3 with numpy and scipy (and
# python3-torch for the synthetic inputs of resnet8 and vww); gcc-arm-none-eabi,
# libnewlib-arm-none-eabi and qemu-system-arm (tools/install-deps.sh).
set -eu
cd "$(dirname "$0")/.."
NNFX=${NNFX:-build/nnfx}
[ -x "$NNFX" ] || { echo "build first: cmake -S . -B build -G Ninja && cmake --build build" >&2; exit 1; }
for t in arm-none-eabi-gcc arm-none-eabi-size arm-none-eabi-nm qemu-system-arm; do
  command -v $t >/dev/null || { echo "run_tiny: $t is not installed (tools/install-deps.sh)" >&2; exit 1; }
done
exec /usr/bin/python3 bench/tiny_bench.py "$NNFX" . bench/models/tiny --models "${MODELS:-dscnn,resnet8,ad,vww}" \
     --cores "${CORES:-m4,m55}" --samples "${SAMPLES:-2}" --opt="${OPT:--Os}"
