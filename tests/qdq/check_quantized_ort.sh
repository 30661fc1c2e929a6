#!/usr/bin/env bash
# Files written by `nnfx quantize` (uint8 activations, the default, and
# --activations int8) from a small efficientnet-like CNN (make_se_block.py:
# SiLU, depthwise, squeeze-excitation, residual Add) run by nnfx's compiled
# plan on each ISA path the CPU has agree with ONNX Runtime on the same file:
# max |diff| <= 3 % of the largest output and the same top-1 per row. The
# uint8 file's float islands run as the plan's fast steps (DequantizeLinear
# -> SiLU as one 256-entry table to float, the vector sigmoid and mean),
# the int8 file's SiLU / sigmoid as int8 tables: the profile's step names
# say so.
# On a CPU without VNNI, ONNX Runtime's fused u8 x s8 kernels (vpmaddubsw)
# saturate on full-range int8 weights (its documentation says to quantize
# with reduced-range weights there; measured: 40 % off on this model). There
# the default file is checked against ORT with its QDQ fusion off (--opt
# basic: each DequantizeLinear / QuantizeLinear run as written), and a
# --reduce-range file against ORT's fused kernels.
# Usage: check_quantized_ort.sh NNFX SOURCE_DIR TMP_DIR   (exit 77: ORT, python3 onnx missing)
set -u
NNFX=$1
SRC=$2
TMP=$3
ORT=$SRC/tests/ort
PY=/usr/bin/python3
command -v node >/dev/null || { echo "skip: node is not installed"; exit 77; }
[ -d "$ORT/node_modules/onnxruntime-node" ] ||
    { echo "skip: onnxruntime-node is not installed in tests/ort (tools/install-deps.sh installs it)"; exit 77; }
$PY -c 'import onnx, numpy' 2>/dev/null || { echo "skip: python3 with onnx and numpy is needed"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP"
$PY "$SRC/tests/qdq/make_se_block.py" "$TMP" || exit 1
fail=0
if grep -qwE 'avx512_vnni|avx_vnni' /proc/cpuinfo 2>/dev/null; then
    ORT_OPT=all
    VARIANTS=""
else
    ORT_OPT=basic
    VARIANTS=rr
    echo "note: no VNNI on this CPU: ORT's fused int8 kernels saturate on full-range weights; the default files are"
    echo "      checked with ORT's QDQ fusion off, --reduce-range files with it on"
fi
for act in uint8 int8; do
    q=$TMP/se_$act.onnx
    "$NNFX" quantize "$TMP/se_float.onnx" -o "$q" --calib "$TMP/se_calib.npy" --activations $act -q || {
        echo "FAIL: nnfx quantize --activations $act"
        exit 1
    }
    for v in $VARIANTS; do
        r=$TMP/se_${act}_$v.onnx
        "$NNFX" quantize "$TMP/se_float.onnx" -o "$r" --calib "$TMP/se_calib.npy" --activations $act --reduce-range \
            -q || { echo "FAIL: nnfx quantize --activations $act --reduce-range"; exit 1; }
        for isa in portable avx2 default; do
            NNFX_ISA=$isa "$NNFX" run "$r" --input "$TMP/se_x.npy" -o "$TMP/se_${act}_${v}_$isa.npy" --quiet ||
                { echo "FAIL: nnfx run se_${act}_$v ($isa)"; fail=1; continue; }
            echo "se_${act} --reduce-range, nnfx int8 path $isa (ORT fused kernels):"
            node "$ORT/ort_check.js" "$r" --in "$TMP/se_x.npy" --ref "$TMP/se_${act}_${v}_$isa.npy" --tol 0.03 --top1 ||
                fail=1
        done
    done
    for isa in portable avx2 default; do
        if ! NNFX_ISA=$isa "$NNFX" run "$q" --input "$TMP/se_x.npy" -o "$TMP/se_${act}_$isa.npy" --quiet --profile \
            2> "$TMP/se_${act}_$isa.prof"; then
            echo "FAIL: nnfx run se_$act ($isa)"
            cat "$TMP/se_${act}_$isa.prof"
            fail=1
            continue
        fi
        echo "se_$act, nnfx int8 path $isa:"
        node "$ORT/ort_check.js" "$q" --in "$TMP/se_x.npy" --ref "$TMP/se_${act}_$isa.npy" --tol 0.03 --top1 \
            --opt $ORT_OPT || fail=1
    done
    if [ $act = uint8 ]; then
        want="x * sigmoid(x) of the dequantized int8 input (256-entry table)|= sigmoid (vector)|= global_average_pool (vector)"
    else want="int8 table (256 entries) s8 -> s8"; fi
    IFS='|'
    for w in $want; do
        grep -qF "$w" "$TMP/se_${act}_default.prof" || { echo "FAIL: se_$act: no '$w' step in the profile"; fail=1; }
    done
    unset IFS
done
[ $fail = 0 ] && echo "ok"
exit $fail
