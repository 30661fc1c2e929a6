#!/usr/bin/env bash
# The worked example at the top of include/nnfx.h is real code: this test
# extracts the lines between BEGIN EXAMPLE and END EXAMPLE, builds them with
# strict warnings against the installed library (pkg-config), runs the
# program, and checks that every relu became a leaky_relu.
# Usage: test_header_example.sh SOURCE_DIR BUILD_DIR WORK_DIR [EXTRA_CFLAGS]
set -euo pipefail
src=$1
build=$2
work=$3
extra=${4:-}
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
sed -n '/^ \* BEGIN EXAMPLE$/,/^ \* END EXAMPLE$/p' "$src/include/nnfx.h" | sed '1d;$d' |
  sed -e 's/^ \*     //' -e 's/^ \*$//' >"$work/example.c"
lines=$(wc -l <"$work/example.c")
if [ "$lines" -lt 20 ]; then
  echo "header_example: could not extract the example from nnfx.h ($lines lines)"
  exit 1
fi
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter $extra "$work/example.c" $(pkg-config --cflags --libs nnfx) \
  -Wl,-rpath,"$work/prefix/lib" -o "$work/example"
"$work/example" >"$work/out.txt"
grep -q 'leaky_relu' "$work/out.txt" || { echo "header_example: no leaky_relu in the printed code"; cat "$work/out.txt"; exit 1; }
if grep -q '= relu(' "$work/out.txt"; then
  echo "header_example: a relu is left"; cat "$work/out.txt"; exit 1
fi
grep -q '^logit 0: ' "$work/out.txt" || { echo "header_example: no output printed"; exit 1; }
cat "$work/out.txt"
echo "header_example: the header's worked example builds against the installed library and runs"
