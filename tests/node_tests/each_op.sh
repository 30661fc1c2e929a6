#!/bin/sh
# CTest driver: every op of ops.def that has no kernel-table case (listed by
# `test_kernels uncovered_ops`) must have an ONNX node test that passes in
# the interpreter and the compiled plan at 1 and 2 threads (and the first
# passing case of each op as generated C too).
#
# Usage: each_op.sh TEST_KERNELS PYTHON RUNNER DIR LOG EXPECTED
# Exit: run_ctest.sh's (77, a CTest skip, when python3-onnx is missing).
set -u
kernels=$1
shift
here=$(dirname "$0")
ops=$("$kernels" uncovered_ops) || exit 1
[ -n "$ops" ] || exit 0
args=""
for op in $ops; do
    args="$args --op $op"
done
# shellcheck disable=SC2086 # one word per option
exec sh "$here/run_ctest.sh" "$@" --engines --codegen-per-op 1 --each-op $args
