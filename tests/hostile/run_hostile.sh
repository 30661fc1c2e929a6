#!/usr/bin/env bash
# Runs every case of the hostile corpus (made by make_hostile.py) through
# nnfx run/analyze/inspect/optimize/export/quantize/prune/codegen: no case
# may end by a signal, a timeout (20 s), a sanitizer report or exit 2
# (usage; codegen may ask for --shape on a dynamic input); bad_* cases must exit
# 3 (bad content) from every command but inspect (a viewer: it prints what it
# could read), big_* cases must exit 3 from run (over the memory budget).
# Usage: run_hostile.sh NNFX SOURCE_DIR SCRATCH_DIR
NNFX=$1
HERE=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP/corpus" || exit 1
if ! /usr/bin/python3 -c "import onnx, numpy" 2>/dev/null; then
    echo "hostile: SKIP: python3-onnx or numpy is missing"
    exit 77
fi
/usr/bin/python3 "$HERE/make_hostile.py" "$TMP/corpus" || exit 1
C=$TMP/corpus
# a budget well below the machine: a case asking for more must be refused
export NNFX_MAX_MEMORY=${NNFX_MAX_MEMORY:-1G}
# under ASan, a single allocation over 2 GiB is itself a failure
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:max_allocation_size_mb=2048:allocator_may_return_null=0
PASS=0
FAIL=0
one() { # CASE EXPECT COMMAND...
    local name=$1 want=$2
    shift 2
    timeout -s KILL 20 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local got=$?
    local bad=""
    if [ "$got" -ge 124 ]; then bad="signal or timeout (exit $got)"; fi
    if grep -q "Sanitizer\|runtime error" "$TMP/err"; then bad="sanitizer report"; fi
    case " $want " in *" $got "*) ;; *) [ -n "$bad" ] || bad="exit $got, expected one of: $want" ;; esac
    if [ -n "$bad" ]; then
        FAIL=$((FAIL + 1))
        echo "FAIL: $name: $bad: $*"
        tail -3 "$TMP/err" | sed 's/^/    err: /'
    else
        PASS=$((PASS + 1))
    fi
}
for f in "$C"/bad_* "$C"/big_* "$C"/odd_*; do
    base=$(basename "$f")
    name=${base%.*}
    case $base in *.onnx | *.fx) ;; *) continue ;; esac
    any="0 1 3"
    want=$any
    run=$any
    case $name in bad_*) want=3 run=3 ;; big_*) run=3 ;; esac
    if grep -qx "$name" "$C/no_input.txt"; then in=(); else in=(--input "x=$C/x.npy"); fi
    ext=${base##*.}
    one "$name" "$run" "$NNFX" run "$f" "${in[@]}" -q
    one "$name" "$want" "$NNFX" analyze "$f"
    one "$name" "0 3" "$NNFX" inspect "$f"
    one "$name" "$want" "$NNFX" optimize "$f" -o "$TMP/opt.$ext"
    one "$name" "$want" "$NNFX" export "$f" -o "$TMP/exp.onnx"
    # the compressing and deploying commands read the same models; usage
    # errors are right where a model needs more than the command line gives
    # (quantize: calibration data for a second input; codegen: --shape for a
    # dynamic input dim)
    more=$want
    case $name in bad_*) ;; *) more="0 1 2 3" ;; esac
    if [ ${#in[@]} -gt 0 ]; then
        one "$name" "$more" "$NNFX" quantize "$f" -o "$TMP/q.onnx" --calib "x=$C/x.npy" -q
    fi
    one "$name" "$want" "$NNFX" prune "$f" -o "$TMP/p.$ext" --ratio 0.5 -q
    rm -rf "$TMP/cg"
    one "$name" "$more" "$NNFX" codegen "$f" -o "$TMP/cg"
done
# --- data safety of writes ---------------------------------------------------
check() { # DESCRIPTION COMMAND...: a condition that must hold
    local what=$1
    shift
    if "$@"; then PASS=$((PASS + 1)); else
        FAIL=$((FAIL + 1))
        echo "FAIL: $what"
    fi
}
D=$TMP/safety
mkdir -p "$D"
"$NNFX" run "$C/data_mul.onnx" --input "x=$C/x4096.npy" -o "$D/ref.npy" -q
# 1. -o whose side file is the input's: src.onnx reads its weights from m.onnx.data (a usage
# error: an output may not replace an input)
"$NNFX" export "$C/data_mul.onnx" -o "$D/m.onnx" --external-data
mv "$D/m.onnx" "$D/src.onnx"
one safety_same_data 2 "$NNFX" optimize "$D/src.onnx" -o "$D/m.onnx" --external-data
one safety_same_data_export 2 "$NNFX" export "$D/src.onnx" -o "$D/m.onnx" --external-data
check "optimize refused an -o whose data file is the input's: no m.onnx" test ! -e "$D/m.onnx"
"$NNFX" run "$D/src.onnx" --input "x=$C/x4096.npy" -o "$D/after.npy" -q
check "the input's weights are intact" cmp -s "$D/ref.npy" "$D/after.npy"
# 2. a symbolic link planted at the old fixed temporary names
echo precious >"$D/victim"
ln -sf "$D/victim" "$D/out.onnx.tmp"
ln -sf "$D/victim" "$D/out.onnx.data.tmp"
one safety_planted_link 0 "$NNFX" export "$C/data_mul.onnx" -o "$D/out.onnx" --external-data
check "a link planted at <out>.tmp is not written through" grep -qx precious "$D/victim"
# 3. a rewrite that makes the graph type-invalid: exit 3, nothing written
for rule in 'mul(x, w) -> mul(cast(x, to=7), w)' 'mul(x, w) -> getitem(mul(x, w), 0)'; do
    rm -f "$D/rw.onnx"
    one "safety_rewrite '$rule'" 3 "$NNFX" optimize "$C/data_mul.onnx" -o "$D/rw.onnx" --rewrite "$rule"
    check "rewrite '$rule': message names the rule" grep -qF "$rule" "$TMP/err"
    check "rewrite '$rule': nothing written" test ! -e "$D/rw.onnx"
done
# 3b. concurrent writers to one -o: each writes its own temporary, the last
# rename wins, and the result is a whole model with its whole side file
for k in 1 2 3 4; do "$NNFX" export "$C/data_mul.onnx" -o "$D/same.onnx" --external-data 2>/dev/null & done
wait
"$NNFX" run "$D/same.onnx" --input "x=$C/x4096.npy" -o "$D/same.npy" -q
check "concurrent exports leave a model that runs as the original" cmp -s "$D/ref.npy" "$D/same.npy"
# 4. --max-memory: a malformed size is a usage error; a small budget refuses a run
one max_memory_malformed 2 "$NNFX" inspect "$C/data_mul.onnx" --max-memory lots
one max_memory_small 3 "$NNFX" run "$C/data_mul.onnx" --input "x=$C/x4096.npy" --max-memory 20K -q
check "the refusal names the budget" grep -q "memory budget" "$TMP/err"
one max_memory_enough 0 "$NNFX" run "$C/data_mul.onnx" --input "x=$C/x4096.npy" --max-memory=64M -q
# 5. no temporary left behind by any of the above
check "no temporaries left" test -z "$(find "$D" -name '.*.??????' -o -name '*.tmp.*')"

echo "hostile: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
