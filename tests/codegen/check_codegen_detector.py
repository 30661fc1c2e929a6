#!/usr/bin/env python3
"""Slow: the generated C of torchvision's ssdlite320_mobilenet_v3_large (a
whole detector: backbone, heads, and its post-processing of 180 NonZeros,
90 TopKs of min(300, count), a Concat along the counts and batched_nms)
against PyTorch's detections. The model is exported on demand by
tests/data/coverage/make_models.py --torchvision (random weights, an
input that yields detections).

Usage: check_codegen_detector.py NNFX SRC WORK   (exit 77 without torchvision)
"""
import os
import subprocess
import sys

import numpy as np

import check_codegen as cg

MODEL = "ssdlite320_mobilenet_v3_large"


def main():
    try:
        import torchvision  # noqa: F401
    except ImportError as e:
        print("skip: python3-torchvision is missing: %s" % e)
        return 77
    models = os.path.join(cg.WORK, "models")
    os.makedirs(models, exist_ok=True)
    if not os.path.exists(os.path.join(models, MODEL + ".output_2.npy")):
        r = subprocess.run([sys.executable, os.path.join(cg.SRC, "tests", "data", "coverage", "make_models.py"),
                            "--torchvision", models, MODEL])
        if r.returncode:
            print("FAIL: exporting %s exited %d" % (MODEL, r.returncode))
            return 1
    out = os.path.join(cg.WORK, "ssdlite")
    r = cg.generate(os.path.join(models, MODEL + ".onnx"), out, "ssdlite")
    if r.returncode:
        print("FAIL: codegen exited %d: %s" % (r.returncode, r.stdout))
        return 1
    x = np.load(os.path.join(models, MODEL + ".input_0.npy"))
    refs = [np.load(os.path.join(models, "%s.output_%d.npy" % (MODEL, k))) for k in range(3)]
    shapes = cg.check_bounded(MODEL, out, "ssdlite", [x], refs)
    print("%s: %s detections, PyTorch %d" % (MODEL, shapes and shapes[0][0], len(refs[0])))
    if cg.failures:
        print("%d failure(s)" % len(cg.failures))
        return 1
    print("the detector's generated C gives PyTorch's detections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
