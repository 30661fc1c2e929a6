#!/usr/bin/env bash
# Builds nnfx and runs the whole test suite twice: an optimised build, then
# an ASan+UBSan build; then fuzzes the ONNX reader with libFuzzer for a
# bounded time (NNFX_FUZZ_SECONDS, default 60; 0 skips it).
# Usage: tools/test.sh   (after tools/install-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)

echo "== release build + tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$JOBS"
ctest --test-dir build --output-on-failure -j "$JOBS"

echo "== sanitizer build (ASan + UBSan) + tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNNFX_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -LE slow

FUZZ_SECONDS=${NNFX_FUZZ_SECONDS:-60}
if [ "$FUZZ_SECONDS" -gt 0 ]; then
  echo "== libFuzzer on the ONNX reader for ${FUZZ_SECONDS}s (clang, ASan+UBSan)"
  CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNNFX_FUZZ=ON -DNNFX_SANITIZE=ON \
    -DNNFX_BUILD_TESTS=ON >/dev/null
  cmake --build build-fuzz -j "$JOBS" --target fuzz_onnx_load
  # new inputs go to a scratch corpus; the committed seeds are only read
  rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
  build-fuzz/tests/fuzz_onnx_load build-fuzz/corpus tests/fuzz/corpus -max_total_time="$FUZZ_SECONDS" \
    -seed=1 -print_final_stats=1 -artifact_prefix=build-fuzz/ 2>&1 | tail -n 12
fi
echo "tools/test.sh: all stages passed"
