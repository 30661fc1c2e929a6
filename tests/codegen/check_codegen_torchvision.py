#!/usr/bin/python3
"""Slow check (label "slow"): `nnfx codegen` on every torchvision model a
slow test exports (random weights; DIR/M.onnx with PyTorch's inputs and
outputs as DIR/M.input_K.npy and DIR/M.output_K.npy): the classifiers of
real_models_torchvision (codegen_torchvision) and the video, swin_t, RAFT,
segmentation and detection models of coverage_torchvision
(codegen_coverage_torchvision). The generated C compiles with
`cc -std=c99 -Wall -Wextra -Werror -pedantic` (NAME.c at -O2, the weights
file at -O0: it is only data) and gives PyTorch's outputs within 1e-4 of
each output's scale; a detector's outputs (sized by the data) are checked
over the dims NAME_run_dims reports.

A model of more than 100 MB (vit_b_16's 346 MB of weights, convnext_tiny's
114 MB) is generated but not compiled: gcc takes about 90 bytes of memory and
2 microseconds per weight of a C initializer (resnet18's 11.7 million: 2.6 GB
and 90 s; convnext_tiny's 28.6 million: over 4 GB and 10 minutes).

Usage: check_codegen_torchvision.py NNFX SOURCE_DIR WORK_DIR MODELS_DIR
Exit: 0 all pass, 1 a failure, 77 (skip) without numpy or the exported models.
"""
import os
import shutil
import sys
import time

try:
    import numpy as np
except ImportError:
    print("skip: numpy is not installed for %s" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_codegen as cg  # noqa: E402  (harness, compile flags, comparison)

NNFX, WORK = cg.NNFX, cg.WORK
COMPILE_LIMIT = 100 << 20  # bytes of model file


def numbered(models_dir, name, kind):
    """The files NAME.KIND_0.npy, NAME.KIND_1.npy, ... in models_dir, in order."""
    files = []
    while os.path.isfile(os.path.join(models_dir, "%s.%s_%d.npy" % (name, kind, len(files)))):
        files.append(os.path.join(models_dir, "%s.%s_%d.npy" % (name, kind, len(files))))
    return files


def main():
    models_dir = sys.argv[4]
    if not os.path.isfile(os.path.join(models_dir, ".complete")):
        print("skip: no exported torchvision models in %s (real_models_torchvision or coverage_torchvision "
              "exports them)" % models_dir)
        sys.exit(77)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    names = sorted(f[:-5] for f in os.listdir(models_dir) if f.endswith(".onnx"))
    skipped = 0
    for name in names:
        out = os.path.join(WORK, name)
        t0 = time.time()
        r = cg.generate(os.path.join(models_dir, name + ".onnx"), out, name)
        if r.returncode:
            cg.fail("%s: codegen exited %d: %s" % (name, r.returncode, r.stdout[-1000:]))
            continue
        size = os.path.getsize(os.path.join(models_dir, name + ".onnx"))
        if size > COMPILE_LIMIT:
            skipped += 1
            print("%-20s generated in %.1f s; not compiled: %d MB of weights as C initializers take gcc minutes "
                  "and gigabytes" % (name, time.time() - t0, size >> 20))
            shutil.rmtree(out, ignore_errors=True)
            continue
        xs = [np.load(f) for f in numbered(models_dir, name, "input")]
        refs = [np.load(f) for f in numbered(models_dir, name, "output")]
        if any(line.startswith("#define %s_OUTPUT" % name) and "_BOUNDED " in line
               for line in open(os.path.join(out, name + ".h"))):
            # a detector: outputs sized by the data, each against PyTorch's over its reported dims
            shapes = cg.check_bounded(name, out, name, xs, refs)
            print("%-20s %.1f s (generate, compile, run); output dims %s" % (name, time.time() - t0, shapes))
        else:
            got = cg.build_and_run(out, name, [x[None] for x in xs], 1, weights_o0=True)
            if got is not None:
                cg.compare(name, got[0], np.concatenate([r.astype(np.float32).ravel() for r in refs]))
                print("%-20s %.1f s (generate, compile, run)" % (name, time.time() - t0))
        shutil.rmtree(out, ignore_errors=True)
    if cg.failures:
        print("%d failure(s)" % len(cg.failures))
        sys.exit(1)
    print("all %d torchvision models generate; %d compiled and match PyTorch" % (len(names), len(names) - skipped))


if __name__ == "__main__":
    main()
