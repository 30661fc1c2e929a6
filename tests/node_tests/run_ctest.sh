#!/bin/sh
# CTest driver for ONNX's node tests: generates the cases into DIR when they
# are not there yet (tests/node_tests/generate.py, Debian's python3-onnx),
# then runs run_node_tests over all of them.
#
# Usage: run_ctest.sh PYTHON RUNNER DIR LOG EXPECTED [RUNNER-OPTION...]
# Exit: the runner's status; 77 (a CTest skip) when python3-onnx is missing.
set -u
python=$1 runner=$2 dir=$3 log=$4 expected=$5
shift 5
here=$(dirname "$0")
if [ ! -f "$dir/.complete" ]; then
    if ! command -v "$python" >/dev/null 2>&1; then
        echo "SKIP: $python not found; the node tests need Debian's python3-onnx"
        exit 77
    fi
    "$python" "$here/generate.py" "$dir" >"$dir.gen.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        cat "$dir.gen.log"
        [ $rc -eq 77 ] && exit 77
        echo "generating the node tests failed (exit $rc)"
        exit 1
    fi
fi
exec "$runner" --log "$log" --expected "$expected" "$@" "$dir"
