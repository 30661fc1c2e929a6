#!/usr/bin/python3
"""The MLPerf Tiny shaped fixtures (tests/data/tiny, made by make_tiny.py)
are what they claim:
  - `nnfx analyze --json`: the input and output shapes of tiny_ref.json and
    MLPerf Tiny's, and the MAC count PyTorch's forward hooks counted (and
    MLPerf's published figure within 2 %);
  - ONNX Runtime (tests/ort) on NAME_ref_x.npy gives PyTorch's outputs
    NAME_ref_y.npy (1e-4 of the output's scale; skipped, saying so, without
    node / onnxruntime-node), and so does `nnfx run`;
  - the trained ones: `nnfx run` on the committed held-out sets reaches the
    accuracy PyTorch recorded (dscnn top-1 within one sample; ad's AUC
    within 0.005), and dscnn's keyword top-1 is far above chance.

Usage: check_tiny.py NNFX SOURCE_DIR WORK_DIR   (exit 0 ok, 1 a check failed)
"""
import json
import os
import shutil
import subprocess
import sys

NNFX, SRC, WORK = sys.argv[1:4]
DATA = os.path.join(SRC, "tests", "data", "tiny")
ORT = os.path.join(SRC, "tests", "ort")
# MLPerf Tiny v1.0 reference models: input shape (batch first), outputs, MACs
MLPERF = {"dscnn": ([1, 1, 49, 10], [1, 12], 2.66e6), "resnet8": ([1, 3, 32, 32], [1, 10], 12.5e6),
          "ad": ([1, 640], [1, 640], 0.264e6), "vww": ([1, 3, 96, 96], [1, 2], 7.49e6)}

try:
    import numpy as np
except ImportError:
    print("skip: numpy is not installed")
    sys.exit(77)

sys.path.insert(0, DATA)
failed = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failed.append(what)


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def auc(score, label):
    """Area under the ROC curve (Mann-Whitney; ties averaged)."""
    s = np.asarray(score, dtype=np.float64)
    ranks = np.empty(len(s))
    ranks[np.argsort(s, kind="mergesort")] = np.arange(1, len(s) + 1)
    for v in np.unique(s):
        ranks[s == v] = ranks[s == v].mean()
    pos = label == 1
    n1, n0 = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def nnfx_run(model, x, name):
    xs, ys = os.path.join(WORK, name + "_x.npy"), os.path.join(WORK, name + "_y.npy")
    np.save(xs, x)
    r = run([NNFX, "run", model, "--input", "x=" + xs, "-o", ys, "--quiet"])
    if r.returncode:
        check(False, "nnfx run %s (exit %d): %s" % (model, r.returncode, r.stdout[-500:]))
        return None
    return np.load(ys)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    with open(os.path.join(DATA, "tiny_ref.json")) as f:
        ref = json.load(f)
    have_ort = bool(shutil.which("node")) and os.path.isdir(os.path.join(ORT, "node_modules", "onnxruntime-node"))
    if not have_ort:
        print("note: node or onnxruntime-node missing: the ONNX Runtime comparisons are skipped")
    for name, (ishape, oshape, macs_mlperf) in MLPERF.items():
        model = os.path.join(DATA, name + ".onnx")
        r = ref[name]
        check(r["input_shape"] == ishape and r["output_shape"] == oshape,
              "%s: tiny_ref.json shapes %s -> %s are MLPerf's %s -> %s"
              % (name, r["input_shape"], r["output_shape"], ishape, oshape))
        a = run([NNFX, "analyze", model, "--json", "-"])
        if a.returncode:
            check(False, "%s: nnfx analyze exit %d: %s" % (name, a.returncode, a.stdout[-500:]))
            continue
        rep = json.loads(a.stdout)
        dims = [d if isinstance(d, int) else 1 for d in rep["inputs"][0]["shape"]] if isinstance(
            rep["inputs"][0], dict) else None
        check(dims == ishape, "%s: nnfx analyze input shape %s (batch dim as 1) == %s" % (name, dims, ishape))
        check(int(rep["macs"]) == r["macs"], "%s: nnfx analyze MACs %s == PyTorch hooks' %d"
              % (name, rep["macs"], r["macs"]))
        check(abs(int(rep["macs"]) - macs_mlperf) <= 0.02 * macs_mlperf,
              "%s: MACs %s within 2 %% of MLPerf Tiny's %.3g" % (name, rep["macs"], macs_mlperf))
        x = np.load(os.path.join(DATA, name + "_ref_x.npy"))
        y = np.load(os.path.join(DATA, name + "_ref_y.npy"))
        check(list(x.shape[1:]) == ishape[1:] and list(y.shape[1:]) == oshape[1:],
              "%s: reference inputs %s, outputs %s" % (name, x.shape, y.shape))
        got = nnfx_run(model, x, name + "_ref")
        if got is not None:
            err = float(np.abs(got - y).max()) if got.shape == y.shape else float("inf")
            check(err <= 1e-4 * float(np.abs(y).max()), "%s: nnfx run vs PyTorch max|diff| %.3g (scale %.3g)"
                  % (name, err, float(np.abs(y).max())))
        if have_ort:
            o = run(["node", os.path.join(ORT, "ort_check.js"), model, "--in", "x=" + os.path.join(DATA, name + "_ref_x.npy"),
                     "--ref", os.path.join(DATA, name + "_ref_y.npy"), "--tol", "1e-4"])
            check(o.returncode == 0, "%s: ONNX Runtime vs PyTorch (ort_check.js --tol 1e-4): %s"
                  % (name, o.stdout.strip().splitlines()[-1] if o.stdout.strip() else "exit %d" % o.returncode))
    # the trained fixtures reach the accuracy PyTorch recorded
    x = np.load(os.path.join(DATA, "dscnn_test_x.npy"))
    lab = np.load(os.path.join(DATA, "dscnn_test_y.npy"))
    y = nnfx_run(os.path.join(DATA, "dscnn.onnx"), x, "dscnn_test")
    if y is not None:
        correct = int((y.argmax(1) == lab).sum())
        check(abs(correct - ref["dscnn"]["correct"]) <= 1 and correct >= 0.7 * len(lab),
              "dscnn: nnfx run %d/%d correct on the held-out voices (PyTorch %d; chance %d)"
              % (correct, len(lab), ref["dscnn"]["correct"], len(lab) // 12))
    x = np.load(os.path.join(DATA, "ad_test_x.npy"))
    lab = np.load(os.path.join(DATA, "ad_test_y.npy"))
    y = nnfx_run(os.path.join(DATA, "ad.onnx"), x, "ad_test")
    if y is not None:
        a = auc(((y - x) ** 2).mean(axis=1), lab)
        check(abs(a - ref["ad"]["auc"]) <= 0.005 and a > 0.8, "ad: nnfx run AUC %.4f (PyTorch %.4f)"
              % (a, ref["ad"]["auc"]))
    if failed:
        print("%d check(s) failed" % len(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
