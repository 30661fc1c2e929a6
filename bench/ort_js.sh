# ort_js.sh — sourced by the benchmark scripts (from the repository root):
# sets ORTJS to a runnable copy of bench/ort_bench.js beside an installed
# onnxruntime-node (bench/node_modules, else tests/ort/node_modules), or to
# "" when node or onnxruntime-node is missing. A copy made under tests/ort is
# removed when the calling script exits.
ORTJS=""
if command -v node >/dev/null 2>&1; then
  if [ -d bench/node_modules/onnxruntime-node ]; then ORTJS=bench/ort_bench.js
  elif [ -d tests/ort/node_modules/onnxruntime-node ]; then
    # ort_bench.js loads onnxruntime-node next to itself: run a copy there
    ORTJS=tests/ort/.ort_bench.js
    cp bench/ort_bench.js "$ORTJS"
    trap 'rm -f tests/ort/.ort_bench.js' EXIT INT TERM
  fi
fi
