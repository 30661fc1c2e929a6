#!/usr/bin/env bash
# Runs the Python package's pytest suite (python/tests) against a built
# libnnfx.so. Usage: run_pytest.sh PYTHON SOURCE_DIR LIBNNFX NNFX_EXE SANITIZED(0|1) WORKDIR [PYTEST ARGS...]
# Exit 77 (ctest: skipped) with the reason when PYTHON lacks numpy or pytest.
# A sanitized library needs the sanitizer runtime loaded first (python itself
# is not instrumented): libasan is preloaded, with libstdc++ (ASan's
# __cxa_throw interceptor must find it: torch throws C++ exceptions), and
# leak detection is off because CPython keeps memory until exit by design.
set -euo pipefail
py=$1 src=$2 lib=$3 exe=$4 sanitized=$5 work=$6
shift 6
for mod in numpy pytest; do
  if ! "$py" -c "import $mod" 2>/dev/null; then
    echo "SKIP: $py has no $mod (Debian: python3-numpy python3-pytest)"
    exit 77
  fi
done
mkdir -p "$work"
cd "$work"
export NNFX_LIB=$lib NNFX_EXE=$exe PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ "$sanitized" = 1 ]; then
  # the ASan runtime the library links (GCC's libasan), else clang's shared one
  asan=$(ldd "$lib" | grep -o '/[^ ]*libasan\.so[^ ]*' | head -n 1 || true)
  [ -n "$asan" ] || asan=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null || true)
  [ -f "$asan" ] || { echo "SKIP: no AddressSanitizer runtime found to preload for $lib"; exit 77; }
  export LD_PRELOAD="$asan $(gcc -print-file-name=libstdc++.so.6)"
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
exec "$py" -m pytest -q -p no:cacheprovider -p no:hypothesispytest --basetemp="$work/tmp" "$src/python/tests" "$@"
