#!/usr/bin/env bash
# Builds nnfx and runs the whole test suite twice: an optimised build, then
# an ASan+UBSan build; then runs each libFuzzer target (ONNX reader, ONNX
# load + run, ONNX writer round trip, text IR, rule language, .npy/.pb,
# .fx.safetensors, registry JSON, registry headers and manifests) for a
# bounded time (NNFX_FUZZ_SECONDS per target, default 30; 0 skips it).
# Usage: tools/test.sh   (after tools/install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)

# the slow label (torchvision models exported on demand: minutes each) is
# left out here; run it with: cmake -DNNFX_SLOW_TESTS=ON ... && ctest -L slow
echo "== release build + tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS"
ctest --test-dir build --output-on-failure -j "$JOBS" -LE slow

echo "== sanitizer build (ASan + UBSan) + tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNNFX_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -LE slow

# each libFuzzer target runs NNFX_FUZZ_SECONDS (default 30: nine targets,
# about 5 minutes in all); 0 skips the stage
FUZZ_SECONDS=${NNFX_FUZZ_SECONDS:-30}
if [ "$FUZZ_SECONDS" -gt 0 ]; then
  echo "== libFuzzer, ${FUZZ_SECONDS}s per target (clang, ASan+UBSan)"
  CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNNFX_FUZZ=ON -DNNFX_SANITIZE=ON \
    -DNNFX_BUILD_TESTS=ON >/dev/null
  for tc in fuzz_onnx_load:corpus fuzz_onnx_run:corpus fuzz_onnx_roundtrip:corpus fuzz_text_parse:corpus_text \
            fuzz_rewrite:corpus_rules fuzz_tensor_files:corpus_tensor \
            fuzz_weights:corpus_weights fuzz_json:corpus_json fuzz_registry:corpus_registry; do
    target=${tc%%:*}
    seeds=tests/fuzz/${tc#*:}
    cmake --build build-fuzz -j "$JOBS" --target "$target"
    # new inputs go to a scratch corpus; the committed seeds are only read
    rm -rf "build-fuzz/corpus_$target" && mkdir -p "build-fuzz/corpus_$target"
    echo "-- $target"
    build-fuzz/tests/"$target" "build-fuzz/corpus_$target" "$seeds" -max_total_time="$FUZZ_SECONDS" -seed=1 \
      -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 -artifact_prefix="build-fuzz/$target-" 2>&1 | tail -n 12
  done
fi
echo "tools/test.sh: all stages passed"
