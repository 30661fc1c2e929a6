#!/usr/bin/python3
"""Generates ONNX's backend node tests (the onnx package's own test cases)
into a directory, for run_node_tests.

Usage: /usr/bin/python3 tests/node_tests/generate.py OUT_DIR

Writes OUT_DIR/node/test_*/model.onnx and test_data_set_0/{input,output}_*.pb
(922 cases with onnx 1.12), then OUT_DIR/.complete. Exits 77 when the onnx
package (Debian's python3-onnx) or numpy is missing, so CTest can report a
skip with the reason printed here.

onnx 1.12's case generators still use numpy's removed aliases np.float,
np.int, np.bool and np.object; on numpy >= 1.24 they are restored as the
builtins they always were before the module runs.
"""

import os
import runpy
import shutil
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: generate.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    try:
        import numpy as np
        import onnx  # noqa: F401
        import onnx.backend.test  # noqa: F401
    except ImportError as e:
        print(f"SKIP: python3-onnx (with numpy) is not installed for {sys.executable}: {e}",
              file=sys.stderr)
        return 77
    for alias, builtin in (("float", float), ("int", int), ("bool", bool), ("object", object)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)

    # Generate into a scratch directory and rename, so an interrupted run
    # never leaves a half-written set that looks complete.
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    sys.argv = ["onnx.backend.test.cmd_tools", "generate-data", "-o", tmp]
    try:
        runpy.run_module("onnx.backend.test.cmd_tools", run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"generate-data failed with {e.code}", file=sys.stderr)
            return 1
    n = len([d for d in os.listdir(os.path.join(tmp, "node")) if d.startswith("test_")])
    with open(os.path.join(tmp, ".complete"), "w") as f:
        f.write(f"{n}\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(f"generated {n} node test cases in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
