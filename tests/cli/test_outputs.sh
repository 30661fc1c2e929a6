#!/usr/bin/env bash
# The one output rule of every nnfx command: no output may be an input or
# another output of the same run (same file, a link to it, another spelling
# of its path, the side file a model output writes, the external data or
# values file a model input reads), an empty path is a usage error (exit 2),
# nothing is written when the rule is broken, and a run whose files cannot
# all be put in place leaves every output as it was.
# Usage: test_outputs.sh NNFX DATA_DIR TMP_DIR
set -u
NNFX=$1
DATA=$2
TMP=$3
rm -rf "$TMP" && mkdir -p "$TMP"
. "$(cd "$(dirname "$0")" && pwd)/../lib/check.sh"
sum() { sha256sum "$1" | cut -d' ' -f1; }
names_both() { grep -qF -e "$1" "$TMP/err" && grep -qF -e "$2" "$TMP/err"; }
# the files of a folder with their checksums (what "unchanged" compares)
snapshot() { (cd "$1" && find . -print0 | sort -z | xargs -0 -I{} sh -c 'if [ -f "{}" ]; then sha256sum "{}"; else echo "{}"; fi'); }

W=$TMP/w
mkdir -p "$W"
cp "$DATA/convbn.onnx" "$DATA/x.npy" "$DATA/batch.npy" "$DATA/batch_labels.npy" "$W/"
cd "$W" || exit 1
M=convbn.onnx
MSUM=$(sum $M)
Q="--calib x=batch.npy"

# --- a report onto the input model ------------------------------------------
expect 2 "quantize --report MODEL" -- "$NNFX" quantize $M -o q.onnx $Q --report $M
check "quantize --report MODEL: both named" names_both "--report '$M'" "the model '$M'"
check "quantize --report MODEL: model intact, nothing written" test "$(sum $M)" = "$MSUM" -a ! -e q.onnx
expect 2 "prune --report MODEL" -- "$NNFX" prune $M -o p.onnx --ratio 0.5 --report $M
check "prune --report MODEL: model intact, nothing written" test "$(sum $M)" = "$MSUM" -a ! -e p.onnx
expect 2 "codegen --report MODEL" -- "$NNFX" codegen $M -o cg --shape x=1x3x8x8 --report $M
check "codegen --report MODEL: model intact, nothing written" test "$(sum $M)" = "$MSUM" -a ! -e cg
expect 2 "optimize --report MODEL" -- "$NNFX" optimize $M -o o.onnx --pass dce --report $M
check "optimize --report MODEL: model intact" test "$(sum $M)" = "$MSUM" -a ! -e o.onnx
expect 2 "analyze --json MODEL" -- "$NNFX" analyze $M --json ./$M
check "analyze --json MODEL: model intact" test "$(sum $M)" = "$MSUM"
expect 2 "compare --json MODEL" -- "$NNFX" compare $M $M --json $M
check "compare --json MODEL: model intact" test "$(sum $M)" = "$MSUM"

# --- --report equal to -o -------------------------------------------------------
expect 2 "quantize --report = -o" -- "$NNFX" quantize $M -o q.onnx $Q --report q.onnx
check "quantize --report = -o: names both" grep -q "two outputs of one run cannot share a file" "$TMP/err"
check "quantize --report = -o: nothing written" test ! -e q.onnx
expect 2 "prune --report = -o" -- "$NNFX" prune $M -o p.onnx --ratio 0.5 --report ./p.onnx
check "prune --report = -o: nothing written" test ! -e p.onnx
expect 2 "optimize --report = -o" -- "$NNFX" optimize $M -o o.onnx --pass dce --report o.onnx
check "optimize --report = -o: nothing written" test ! -e o.onnx
expect 2 "analyze --json = --html" -- "$NNFX" analyze $M --json a.out --html a.out
check "analyze --json = --html: nothing written" test ! -e a.out

# --- codegen --report onto a generated file -----------------------------------------
mkdir -p cg2 && echo "my header" >cg2/convbn.h
expect 2 "codegen --report DIR/NAME.h" -- "$NNFX" codegen $M -o cg2 --shape x=1x3x8x8 --report cg2/convbn.h
check "codegen --report DIR/NAME.h: header untouched" grep -qx "my header" cg2/convbn.h
check "codegen --report DIR/NAME.h: nothing else written" test "$(ls -A cg2)" = convbn.h
expect 2 "codegen --report DIR/../DIR/NAME.c" -- "$NNFX" codegen $M -o cg2 --shape x=1x3x8x8 --report cg2/../cg2/convbn.c
ln -s cg2 cg2link
expect 2 "codegen -o LINK --report DIR/NAME.c (the folder through a link)" -- "$NNFX" codegen $M -o cg2link \
    --shape x=1x3x8x8 --report cg2/convbn.c
expect 2 "codegen -o NEW --report NEW/NAME.h (a folder not made yet)" -- "$NNFX" codegen $M -o new/dir \
    --shape x=1x3x8x8 --report new/dir/convbn.h
check "codegen: the new folder not made" test ! -e new
expect 2 "codegen --report DIR/NAME_weights.c (folder named with a slash)" -- "$NNFX" codegen $M -o cg2/ \
    --shape x=1x3x8x8 --report ./cg2/convbn_weights.c

# --- analyze A --compare B --json B ---------------------------------------------------
cp $M b.onnx
BSUM=$(sum b.onnx)
expect 2 "analyze A --compare B --json B" -- "$NNFX" analyze $M --compare b.onnx --json b.onnx
check "analyze --compare B --json B: names both" names_both "--json 'b.onnx'" "--compare 'b.onnx'"
check "analyze --compare B --json B: B intact" test "$(sum b.onnx)" = "$BSUM"
expect 2 "analyze A --compare B --html B" -- "$NNFX" analyze $M --compare b.onnx --html "$W/b.onnx"
check "B intact" test "$(sum b.onnx)" = "$BSUM"

# --- other inputs: tensors, labels, links, the values and external data files ---------------
XSUM=$(sum x.npy)
expect 2 "run -o onto --input" -- "$NNFX" run $M --input x=x.npy -o x.npy
expect 2 "run -o onto a lone --input" -- "$NNFX" run $M --input x.npy -o ./x.npy
check "x.npy intact" test "$(sum x.npy)" = "$XSUM"
mkdir -p od && ln -s ../x.npy od/y.npy
expect 2 "run --output-dir whose file is a link to the input" -- "$NNFX" run $M --input x=x.npy --output-dir od
check "x.npy intact after --output-dir" test "$(sum x.npy)" = "$XSUM"
LSUM=$(sum batch_labels.npy)
expect 2 "quantize --report onto --labels" -- "$NNFX" quantize $M -o q.onnx $Q --input x=batch.npy \
    --labels batch_labels.npy --max-accuracy-drop 5 --report batch_labels.npy
check "labels intact" test "$(sum batch_labels.npy)" = "$LSUM"
expect 2 "quantize -o onto --calib" -- "$NNFX" quantize $M -o batch.npy $Q
ln -s $M link.onnx
expect 2 "optimize -o a link to the model" -- "$NNFX" optimize link.onnx -o $M --pass dce
expect 2 "prune -o the model through a link" -- "$NNFX" prune $M -o link.onnx --ratio 0.5
check "model intact after the links" test "$(sum $M)" = "$MSUM"
"$NNFX" export $M -o ext.onnx --external-data
ESUM=$(sum ext.onnx.data)
expect 2 "optimize --report onto the input's external data" -- "$NNFX" optimize ext.onnx -o o.onnx --pass dce \
    --report ext.onnx.data
check "external data named" grep -q "the external data of the model 'ext.onnx.data'\|the external data of the model '.*ext.onnx.data'" "$TMP/err"
check "external data intact" test "$(sum ext.onnx.data)" = "$ESUM" -a ! -e o.onnx
expect 2 "quantize --report onto -o's external data" -- "$NNFX" quantize $M -o q.onnx $Q --report q.onnx.data
cp $M v.fx.safetensors
VSUM=$(sum v.fx.safetensors)
expect 2 "export -o X.fx whose values file X.fx.safetensors is the input" -- "$NNFX" export v.fx.safetensors -o v.fx
check "the values file of -o named" grep -qF "the values file of -o 'v.fx.safetensors'" "$TMP/err"
check "input intact" test "$(sum v.fx.safetensors)" = "$VSUM" -a ! -e v.fx
"$NNFX" export $M -o t.fx
TSUM=$(sum t.fx.safetensors)
expect 2 "inspect -o onto a text IR's values file" -- "$NNFX" inspect t.fx -o t.fx.safetensors
check "values file intact" test "$(sum t.fx.safetensors)" = "$TSUM"
expect 2 "optimize -o X.fx --report X.fx.safetensors" -- "$NNFX" optimize $M -o y.fx --pass dce \
    --report y.fx.safetensors
check "nothing written" test ! -e y.fx -a ! -e y.fx.safetensors
printf '%s\n' "$W/$M" >list.txt
expect 2 "optimize --batch --report onto the list" -- "$NNFX" optimize --batch list.txt -o bout --pass dce \
    --report list.txt
check "batch: nothing made" test ! -e bout
cp $M sub_a.onnx && mkdir -p d1 d2 && cp $M d1/m.onnx && cp $M d2/m.onnx
expect 2 "optimize batch: two models to one output" -- "$NNFX" optimize d1/m.onnx d2/m.onnx -o bout2 --pass dce
check "batch: nothing made" test ! -e bout2

# --- empty paths ------------------------------------------------------------------------------
ROOT_BEFORE=$(ls -A /)
expect 2 "optimize -o ''" -- "$NNFX" optimize $M -o '' --pass dce
expect 2 "quantize -o ''" -- "$NNFX" quantize $M -o '' $Q
expect 2 "prune -o ''" -- "$NNFX" prune $M -o '' --ratio 0.5
expect 2 "export -o ''" -- "$NNFX" export $M -o ''
expect 2 "inspect -o ''" -- "$NNFX" inspect $M -o ''
expect 2 "run -o ''" -- "$NNFX" run $M --input x=x.npy -o ''
expect 2 "run --output-dir ''" -- "$NNFX" run $M --input x=x.npy --output-dir ''
expect 2 "codegen -o ''" -- "$NNFX" codegen $M -o '' --shape x=1x3x8x8
check "codegen -o '': one line naming the option" grep -q "^nnfx codegen: -o: an empty path" "$TMP/err"
expect 2 "codegen --report ''" -- "$NNFX" codegen $M -o cg3 --shape x=1x3x8x8 --report ''
expect 2 "analyze --json ''" -- "$NNFX" analyze $M --json ''
expect 2 "compare --json ''" -- "$NNFX" compare $M $M --json ''
expect 2 "pull -o ''" -- "$NNFX" pull 127.0.0.1:1/m:latest -o ''
expect 2 "optimize --batch ''" -- "$NNFX" optimize --batch '' -o bout3 --pass dce
expect 2 "quantize --calib x=''" -- "$NNFX" quantize $M -o q.onnx --calib x=
check "nothing written into /" test "$(ls -A /)" = "$ROOT_BEFORE"
check "nothing written here" test ! -e q.onnx -a ! -e cg3 -a ! -e p.onnx -a ! -e o.onnx

# --- all or none: a codegen whose second file cannot be put in place -------------------------
mkdir -p cg4 && echo "old header" >cg4/convbn.h && mkdir cg4/convbn.c && echo keep >cg4/other.txt
BEFORE=$(snapshot cg4)
expect 3 "codegen: a generated file's name is taken by a folder" -- "$NNFX" codegen $M -o cg4 --shape x=1x3x8x8
check "codegen failure: the folder exactly as it was" test "$(snapshot cg4)" = "$BEFORE"
expect 3 "codegen: the same, with --report" -- "$NNFX" codegen $M -o cg4 --shape x=1x3x8x8 --report r4.json
check "codegen failure: the folder exactly as it was" test "$(snapshot cg4)" = "$BEFORE"
check "codegen failure: no report" test ! -e r4.json
# a report that cannot be put in place: the model is not written either
mkdir -p rdir
expect 3 "quantize: --report is a folder" -- "$NNFX" quantize $M -o q.onnx $Q --report rdir
check "quantize: no model without its report" test ! -e q.onnx
expect 3 "optimize: --report is a folder" -- "$NNFX" optimize $M -o o.onnx --pass dce --report rdir
check "optimize: no model without its report" test ! -e o.onnx
expect 3 "analyze: --html is a folder" -- "$NNFX" analyze $M --json a.json --html rdir
check "analyze: no JSON without its page" test ! -e a.json
# and a working run replaces every file at once
expect 0 "codegen into a folder with other files" -- "$NNFX" codegen $M -o cg2 --shape x=1x3x8x8 --report r2.json
check "codegen wrote its files, kept the others" test -s cg2/convbn.c -a -s cg2/convbn_weights.c -a -s r2.json
check "codegen replaced the old header" grep -q "convbn_run" cg2/convbn.h

check "no stray temporary files" test -z "$(find "$W" -name '.*.??????*')"
check_summary "output rule tests"
