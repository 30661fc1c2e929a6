#!/usr/bin/python3
"""Checks every ONNX model that tests/test_onnx.c exported with
onnx.checker.check_model(full_check=True) (strict shape/type inference).

usage: check_onnx_export.py DIR
Exits 77 (CTest SKIP_RETURN_CODE) when this Python has no onnx package.
"""
import glob
import os
import sys

try:
    import onnx
    import onnx.checker
except ImportError:
    print("SKIP: this python (%s) has no onnx package (Debian: python3-onnx)" % sys.executable)
    sys.exit(77)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    paths = sorted(p for p in glob.glob(os.path.join(sys.argv[1], "*.onnx")))
    if not paths:
        print("no exported models in %s (did test_onnx run?)" % sys.argv[1])
        return 1
    bad = 0
    for p in paths:
        try:
            onnx.checker.check_model(p, full_check=True)
            m = onnx.load(p)
            opset = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
            print("ok   %s (ir %d, opset %s, %d nodes)" % (os.path.basename(p), m.ir_version, opset,
                                                          len(m.graph.node)))
        except Exception as e:  # report every failing model, then fail
            bad += 1
            print("FAIL %s: %s" % (os.path.basename(p), str(e).splitlines()[0] if str(e) else type(e).__name__))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
