#!/bin/sh
# run_codegen.sh — generated C (nnfx codegen, gcc -O3 -march=native, one
# thread) against nnfx's own runtime (nnfx run --bench, one thread) per
# model: time per inference, code + weights bytes, static RAM; prints a
# Markdown table and the max |diff| between the two engines' outputs.
#
# Usage: bench/run_codegen.sh [RUNS]   (from anywhere; default 20 runs)
#        MODELS="qdq_cnn kws_q" bench/run_codegen.sh [RUNS]   (only these rows)
# The int8 rows: the QDQ fixture tests/data/qdq/qdq_cnn.onnx and the keyword
# model quantized by `nnfx quantize` (64 calibration samples) on demand.
#        ONNX2C=/path/to/onnx2c bench/run_codegen.sh [RUNS]
#        OPTIMIZE=size bench/run_codegen.sh [RUNS]   (nnfx codegen --optimize)
# The two engines take turns, ROUNDS (default 3) times RUNS runs each, so
# load on the machine hits both alike; times are the median of the rounds'
# medians and the fastest run; the ratio divides the fastest times, the
# figure least disturbed by other load.
# NNFX=path/to/nnfx picks another build (default build/nnfx).
# With ONNX2C set (onnx2c built from source: github.com/kraiskil/onnx2c, needs
# libprotobuf-dev and protobuf-compiler), its C for the same models is
# compiled and timed the same way and listed below the table.
# Needs: a build in build/; /usr/bin/python3 with numpy (and torch +
# torchvision to export squeezenet1_1 through bench/export_models.py when
# bench/models/squeezenet1_1_b1.onnx is missing).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-20}
ROUNDS=${ROUNDS:-3}
NNFX=${NNFX:-build/nnfx}
OPTIMIZE=${OPTIMIZE:-}
PY=/usr/bin/python3
CC=${CC:-gcc}
OUT=bench/models
W=$OUT/codegen
[ -x "$NNFX" ] || { echo "build first: cmake -S . -B build -G Ninja && cmake --build build" >&2; exit 1; }
mkdir -p "$W"
MODELS=${MODELS:-}
want() { [ -z "$MODELS" ] || case " $MODELS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if want squeezenet1_1 && [ ! -f "$OUT/squeezenet1_1_b1.onnx" ]; then
  $PY bench/export_models.py "$OUT" 1 >&2
fi
# name | model | input npy | --shape
set -- \
  "squeezenet1_1|$OUT/squeezenet1_1_b1.onnx|$OUT/input_b1.npy|" \
  "mini_resnet|tests/data/real_models/mini_resnet.onnx|tests/data/real_models/mini_resnet.input_0.npy|" \
  "mobile_blocks|tests/data/real_models/mobile_blocks.onnx|tests/data/real_models/mobile_blocks.input_0.npy|" \
  "digits_cnn|tests/data/digits/digits_cnn.onnx|$W/digits_x1.npy|x=1x1x8x8" \
  "kws|tests/data/kws/kws.onnx|$W/kws_x1.npy|x=1x1x31x20" \
  "gru_kws|tests/data/coverage/gru_kws.onnx|tests/data/coverage/gru_kws.input_0.npy|" \
  "lstm_kws|tests/data/coverage/lstm_kws.onnx|tests/data/coverage/lstm_kws.input_0.npy|" \
  "qdq_cnn|tests/data/qdq/qdq_cnn.onnx|tests/data/qdq/qdq_cnn_x.npy|" \
  "kws_q|$W/kws_q.onnx|$W/kws_x1.npy|x=1x1x31x20"
$PY -c "
import numpy as np
np.save('$W/digits_x1.npy', np.load('tests/data/digits/digits_test_x.npy')[:1])
np.save('$W/kws_x1.npy', np.load('tests/data/kws/kws_test_x.npy')[:1])
np.save('$W/kws_calib.npy', np.load('tests/data/kws/kws_test_x.npy')[:64])"
if want kws_q; then
  $NNFX quantize tests/data/kws/kws.onnx -o "$W/kws_q.onnx" --calib x="$W/kws_calib.npy" -q >/dev/null
fi
ONNX2C=${ONNX2C:-}
O2C_ROWS=""
echo "| model | generated C ms (median / min) | nnfx runtime ms (median / min) | ratio (min) | code B | weights B | static RAM B (arena) | nnfx plan arena B | max abs diff |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for spec in "$@"; do
  name=${spec%%|*}; rest=${spec#*|}
  model=${rest%%|*}; rest=${rest#*|}
  input=${rest%%|*}; shape=${rest#*|}
  want "$name" || continue
  d=$W/$name
  rm -rf "$d"
  sarg=""; [ -n "$shape" ] && sarg="--shape $shape"
  [ -n "$OPTIMIZE" ] && sarg="$sarg --optimize $OPTIMIZE"
  # shellcheck disable=SC2086
  $NNFX codegen "$model" -o "$d" --name model $sarg --report "$d/report.json" >/dev/null
  $PY -c "import numpy as np; np.load('$input').astype(np.float32).tofile('$d/in.bin')"
  $CC -O3 -march=native -c -o "$d/model.o" "$d/model.c"
  $CC -O3 -march=native -c -o "$d/model_weights.o" "$d/model_weights.c"
  $CC -O3 -march=native -I"$d" -o "$d/bench" bench/codegen/bench_main.c "$d/model.o" "$d/model_weights.o" -lm
  gen=""; rt=""; k=0
  while [ "$k" -lt "$ROUNDS" ]; do
    gen="$gen $("$d/bench" "$d/in.bin" "$d/out.bin" "$RUNS")"
    # nnfx's runtime on the same graph: the input's batch pinned by the file
    rt="$rt $($NNFX run "$model" --input "$input" --bench "$RUNS" --threads 1 --quiet)"
    k=$((k + 1))
  done
  $NNFX run "$model" --input "$input" -o "$d/ref.npy" --quiet
  code=$(size -A "$d/model.o" | awk '$1 ~ /^\.text/ {s += $2} END {print s + 0}')
  wts=$(size -A "$d/model_weights.o" | awk '$1 ~ /^\.rodata/ {s += $2} END {print s + 0}')
  bss=$(size -A "$d/model.o" | awk '$1 ~ /^\.bss/ {s += $2} END {print s + 0}')
  $PY - "$gen" "$rt" "$d" "$name" "$code" "$wts" "$bss" <<'PYEOF'
import json, sys
import numpy as np
gen, rt, d, name, code, wts, bss = sys.argv[1:8]
def rounds(text):
    d = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return {"median_ms": float(np.median([o["median_ms"] for o in out])),
                    "min_ms": min(o["min_ms"] for o in out)}
        o, i = d.raw_decode(text, i)
        out.append(o)


g, r = rounds(gen), rounds(rt)
rep = json.load(open(d + "/report.json"))
a = np.fromfile(d + "/out.bin", dtype=np.float32)
b = np.load(d + "/ref.npy").astype(np.float32).ravel()
diff = float(np.abs(a - b).max())
print("| %s | %.3f / %.3f | %.3f / %.3f | %.2fx | %s | %s | %s | %s | %.2g |" % (
    name, g["median_ms"], g["min_ms"], r["median_ms"], r["min_ms"], g["min_ms"] / r["min_ms"], code, wts, bss,
    rep["arena_bytes"], diff))
PYEOF
  if [ -n "$ONNX2C" ]; then
    o=$d/onnx2c
    mkdir -p "$o"
    dflag=""; [ -n "$shape" ] && dflag="-d batch:1"
    # shellcheck disable=SC2086
    if ! "$ONNX2C" $dflag "$model" > "$o/model.c" 2> "$o/err.txt"; then
      O2C_ROWS="$O2C_ROWS| $name | onnx2c failed: $(tail -1 "$o/err.txt" | tr '|' ' ') | | | | |
"
      continue
    fi
    if ! $CC -O3 -march=native -w -c -o "$o/model.o" "$o/model.c" 2> "$o/cc.txt"; then
      O2C_ROWS="$O2C_ROWS| $name | does not compile: $(grep -m1 error "$o/cc.txt" | tr '|' ' ' | cut -c1-120) | | | | |
"
      continue
    fi
    $CC -O3 -march=native -o "$o/bench" bench/codegen/onnx2c_main.c "$o/model.o" -lm
    nin=$($PY -c "import numpy as np; print(np.load('$input').size)")
    nout=$($PY -c "import numpy as np; print(np.load('$d/ref.npy').size)")
    res=$("$o/bench" "$d/in.bin" "$nin" "$o/out.bin" "$nout" "$RUNS")
    row=$($PY - "$res" "$o" "$d" <<'PYEOF'
import json, subprocess, sys
import numpy as np
res, o, d = sys.argv[1:4]
r = json.loads(res)
a = np.fromfile(o + "/out.bin", dtype=np.float32)
b = np.load(d + "/ref.npy").astype(np.float32).ravel()
sz = {}
for line in subprocess.run(["size", "-A", o + "/model.o"], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) >= 2 and f[1].isdigit():
        key = f[0].split(".")[1] if f[0].startswith(".") else f[0]
        sz[key] = sz.get(key, 0) + int(f[1])
flash = sz.get("text", 0) + sz.get("rodata", 0) + sz.get("data", 0)
ram = sz.get("bss", 0) + sz.get("data", 0)
print("| %.3f | %d | %d | %.2g |" % (r["median_ms"], flash, ram, float(np.abs(a - b).max())))
PYEOF
)
    O2C_ROWS="$O2C_ROWS| $name $row
"
  fi
done
if [ -n "$ONNX2C" ]; then
  echo
  echo "onnx2c ($ONNX2C), same compiler flags, max abs diff against nnfx's runtime:"
  echo
  echo "| model | onnx2c ms | code + weights B | static RAM B | max abs diff |"
  echo "|---|---:|---:|---:|---:|"
  printf '%s' "$O2C_ROWS"
fi
