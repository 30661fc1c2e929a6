#!/bin/sh
# CTest driver for the torchvision real-model check (label "slow"): exports
# torchvision's classification models with random weights into DIR
# (tests/data/gen_real_models.py --torchvision; Debian's python3-torch and
# python3-torchvision) unless already there, then runs test_real_models over
# them. Exit 77 (a CTest skip) when torch or torchvision is missing.
#
# Usage: real_models_ctest.sh PYTHON TEST_PROGRAM DIR run|skip [GENERATOR]
#   GENERATOR: the exporting script (default tests/data/gen_real_models.py;
#   it takes --torchvision DIR)
set -u
python=$1 prog=$2 dir=$3 mode=${4:-run}
here=$(dirname "$0")
gen=${5:-$here/data/gen_real_models.py}
if [ "$mode" != run ]; then
    echo "SKIP: slow test; configure with -DNNFX_SLOW_TESTS=ON to export and run the torchvision models"
    exit 77
fi
if [ ! -f "$dir/.complete" ]; then
    if ! command -v "$python" >/dev/null 2>&1; then
        echo "SKIP: $python not found; the torchvision models need python3-torchvision"
        exit 77
    fi
    "$python" "$gen" --torchvision "$dir" >"$dir.gen.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        cat "$dir.gen.log"
        [ $rc -eq 77 ] && exit 77
        echo "exporting the torchvision models failed (exit $rc)"
        exit 1
    fi
    touch "$dir/.complete"
fi
NNFX_REAL_MODELS_DIR=$dir exec "$prog"
