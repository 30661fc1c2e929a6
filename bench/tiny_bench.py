#!/usr/bin/python3
"""The MLPerf Tiny shaped fixtures (tests/data/tiny) on QEMU's Cortex-M: the
table of issue 33 item 5. Run through bench/run_tiny.sh (a benchmark, not a
test). Per model:

  accuracy  float and int8 (`nnfx quantize --activations int8`, 64
            calibration samples), both by `nnfx run` on the host: dscnn top-1
            on its 360 held-out utterances, ad's AUC on its 200 test windows;
            resnet8 and vww have random weights, so their int8 column is the
            top-1 agreement with the float model on 100 synthetic inputs
  flash     text + data of the generated model's objects (code + weights;
            arm-none-eabi-size, -Os unless --opt, per core's flags)
  RAM       data + bss of the same objects: the static arena and any static
            data (the stack is not counted)
  instr     instructions per inference under QEMU -icount shift=0 (median of
            the samples run): INSTRUCTIONS, NOT CYCLES (QEMU is not
            cycle-accurate; a Cortex-M4 takes 1-3 cycles for most of them)
  builds    float (`nnfx codegen`), int8 (`nnfx codegen --int8` of the
            quantized model: today's int8 islands, float API), and, when
            `nnfx codegen --help` offers --int8-io, int8-io (`--int8
            --int8-io`: NAME_run_int8, int8 in and out), each checked against
            `nnfx run` on the host (float within 1e-4 of the output's scale,
            int8-io byte for byte)
  M0+       the float helpers (__aeabi_f*, __aeabi_d*) and libm functions the
            int8 (and int8-io) objects need when built with -mcpu=cortex-m0plus
            -mfloat-abi=soft (a count; the names go into the JSON)

Usage: tiny_bench.py NNFX SOURCE_DIR WORK_DIR [--models a,b] [--cores m4,m55]
                     [--samples N] [--opt=-O2]
Prints a Markdown table and writes WORK_DIR/tiny_bench.json.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("nnfx")
ap.add_argument("src")
ap.add_argument("work")
ap.add_argument("--models", default="dscnn,resnet8,ad,vww")
ap.add_argument("--cores", default="m4,m55")
ap.add_argument("--samples", type=int, default=2)
ap.add_argument("--opt", default="-Os", help="the cross compiler's optimization flag for the model's objects")
A = ap.parse_args()
A.work = os.path.abspath(A.work)
DATA = os.path.join(A.src, "tests", "data", "tiny")
sys.path.insert(0, os.path.join(A.src, "tests", "codegen"))
import qemu_arm  # noqa: E402

qemu_arm.STRICT = [A.opt] + [f for f in qemu_arm.STRICT if not f.startswith("-O")]

MAKE = os.path.join(DATA, "make_tiny.py")
# MLPerf Tiny v1.0 closed division, KWS DS-CNN on a Cortex-M4 at 120 MHz
# (mlcommons tiny_results, as quoted in issue 33): cycles, not instructions
REFERENCE = ("MLPerf Tiny KWS DS-CNN on a Cortex-M4 @120 MHz (cycles, not instructions): X-CUBE-AI v10.2 43 ms "
             "~5.2 M cycles, 28.6 KB RAM, 68.8 KB flash; microTVM + CMSIS-NN ~12 M cycles; TFLite Micro "
             "reference kernels ~21.8 M cycles")


def sh(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise qemu_arm.Failure("%s (exit %d): %s" % (" ".join(cmd[:3]), r.returncode, r.stdout[-2000:]))
    return r.stdout


def nnfx_run(model, x, tag):
    xs, ys = os.path.join(A.work, tag + "_x.npy"), os.path.join(A.work, tag + "_y.npy")
    np.save(xs, x)
    sh([A.nnfx, "run", model, "--input", "x=" + xs, "-o", ys, "--quiet"])
    return np.load(ys)


def auc(score, label):
    s = np.asarray(score, dtype=np.float64)
    ranks = np.empty(len(s))
    ranks[np.argsort(s, kind="mergesort")] = np.arange(1, len(s) + 1)
    for v in np.unique(s):
        ranks[s == v] = ranks[s == v].mean()
    pos = label == 1
    n1, n0 = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def sets(name):
    """(calibration inputs, evaluation inputs, labels or None)."""
    def gen(n, seed):
        p = os.path.join(A.work, "%s_gen_%d_%d.npy" % (name, n, seed))
        if not os.path.exists(p):
            sh(["/usr/bin/python3", MAKE, "--inputs", name, str(n), str(seed), p])
        return np.load(p)

    if name == "dscnn":
        return (np.load(os.path.join(DATA, "dscnn_calib_x.npy")), np.load(os.path.join(DATA, "dscnn_test_x.npy")),
                np.load(os.path.join(DATA, "dscnn_test_y.npy")))
    if name == "ad":
        return gen(64, 1), np.load(os.path.join(DATA, "ad_test_x.npy")), np.load(os.path.join(DATA, "ad_test_y.npy"))
    return gen(64, 1), gen(100, 2), None


def metric(name, y, x, lab, yf=None):
    if name == "dscnn":
        return "%.2f %%" % (100.0 * float((y.argmax(1) == lab).mean()))
    if name == "ad":
        return "AUC %.4f" % auc(((y - x) ** 2).mean(axis=1), lab)
    if yf is None:
        return "n/a (random weights)"
    return "%.0f %% top-1 = float" % (100.0 * float((y.argmax(1) == yf.argmax(1)).mean()))


def device(model, tag, core, x, host, shape, extra, int8_io):
    """Builds `model` for `core`, runs x on QEMU; returns a dict of sizes,
    instructions, and agreement with host (nnfx run's outputs on x)."""
    out = os.path.join(A.work, tag + "_" + core)
    qemu_arm.codegen(A.nnfx, model, out, shape, extra)
    xin = x
    if int8_io:
        isc, izp, osc, ozp = qemu_arm.header_qparams(out)
        xin = qemu_arm.quantize(x, isc, izp)
    qemu_arm.write_samples(out, xin, int8_io)
    t, d, b = qemu_arm.sizes(qemu_arm.compile_model(out, core))
    res = {"flash": t + d, "ram": d + b}
    if core == "m0plus":
        qemu_arm.link(out, core)
        res["float_symbols"] = qemu_arm.float_symbols(out, core)
        return res
    y, insns = qemu_arm.boot(qemu_arm.link(out, core), core, int8_io, timeout=600)
    res["instructions"] = float(np.median(insns))
    if int8_io:
        # the host ran the float model on what the int8 input stands for
        xs = ((xin.astype(np.float64) - izp) * isc).astype(np.float32)
        hq = qemu_arm.quantize(nnfx_run(model, xs, tag + "_host_io"), osc, ozp).reshape(len(x), -1)
        res["same"] = bool(y.shape == hq.shape and (y == hq).all())
    else:
        h = host.reshape(len(x), -1)
        res["same"] = bool(y.shape == h.shape and float(np.abs(y - h).max()) <= 1e-4 * float(np.abs(h).max()))
    return res


def main():
    os.makedirs(A.work, exist_ok=True)
    with open(os.path.join(DATA, "tiny_ref.json")) as f:
        ref = json.load(f)
    help_text = subprocess.run([A.nnfx, "codegen", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True).stdout
    has_io = "--int8-io" in help_text
    variants = ["float", "int8"] + (["int8-io"] if has_io else [])
    cores = A.cores.split(",")
    results = {}
    for name in A.models.split(","):
        r = ref[name]
        model = os.path.join(DATA, name + ".onnx")
        shape = "x=" + "x".join(str(d) for d in r["input_shape"])
        calib, xe, lab = sets(name)
        cp = os.path.join(A.work, name + "_calib.npy")
        np.save(cp, calib)
        q = os.path.join(A.work, name + "_q.onnx")
        sh([A.nnfx, "quantize", model, "-o", q, "--calib", "x=" + cp, "--activations", "int8", "-q"])
        yf = nnfx_run(model, xe, name + "_float")
        yq = nnfx_run(q, xe, name + "_int8")
        row = {"macs": r["macs"], "weights": r["weights"], "acc_float": metric(name, yf, xe, lab),
               "acc_int8": metric(name, yq, xe, lab, yf), "builds": {}}
        xs = xe[:A.samples]
        hosts = {"float": yf[:A.samples], "int8": yq[:A.samples], "int8-io": None}
        for v in variants:
            m = model if v == "float" else q
            extra = [] if v == "float" else ["--int8"] if v == "int8" else ["--int8", "--int8-io"]
            for core in cores + (["m0plus"] if v != "float" else []):
                tag = "%s_%s" % (name, v.replace("-", ""))
                try:
                    res = device(m, tag, core, xs, hosts[v], shape, extra, v == "int8-io")
                except qemu_arm.Failure as e:
                    res = {"error": " ".join(str(e).split())[:400]}
                row["builds"]["%s/%s" % (v, core)] = res
                print("%s %s %s: %s" % (name, v, core, json.dumps(res)), file=sys.stderr, flush=True)
        results[name] = row
    with open(os.path.join(A.work, "tiny_bench.json"), "w") as f:
        json.dump({"variants": variants, "cores": cores, "opt": A.opt, "results": results}, f, indent=2)
    print_table(results, variants, cores)


def cell(row, v, core, key, fmt):
    b = row["builds"].get("%s/%s" % (v, core), {})
    if "error" in b:
        return "fails"
    if key not in b:
        return "-"
    return fmt(b[key]) + ("" if b.get("same", True) else " (DIFFERS)")


def print_table(results, variants, cores):
    vs = " / ".join(variants)
    print("\nMLPerf Tiny shaped models (tests/data/tiny) in nnfx's generated C on QEMU's Cortex-M. Columns per "
          "build: %s. instr = instructions per inference under QEMU -icount (not cycles). flash = code + weights "
          "(text + data), RAM = data + bss (arena + static data; stack not counted) of the model's objects, "
          "arm-none-eabi-gcc %s. int8 = `nnfx quantize --activations int8` (64 calibration samples) + `nnfx "
          "codegen --int8`%s. \"(DIFFERS)\": the device's outputs differ from nnfx run's on the host.\n"
          % (vs, A.opt, "; int8-io = `--int8 --int8-io`" if "int8-io" in variants else ""))
    head = ["model", "MACs", "weights", "accuracy float", "accuracy int8", "flash KB (M4) %s" % vs,
            "RAM KB (M4) %s" % vs]
    for core in cores:
        head.append("%s M instr %s" % (core.upper(), vs))
    head += ["M4 instr/MAC %s" % vs, "M0+ float/libm symbols %s" % " / ".join(variants[1:])]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, row in results.items():
        cells = [name, "%.2f M" % (row["macs"] / 1e6), row["weights"].split(" ")[0], row["acc_float"],
                 row["acc_int8"]]
        cells.append(" / ".join(cell(row, v, "m4", "flash", lambda n: "%.1f" % (n / 1024.0)) for v in variants))
        cells.append(" / ".join(cell(row, v, "m4", "ram", lambda n: "%.1f" % (n / 1024.0)) for v in variants))
        for core in cores:
            cells.append(" / ".join(cell(row, v, core, "instructions", lambda n: "%.2f" % (n / 1e6))
                                    for v in variants))
        cells.append(" / ".join(cell(row, v, "m4", "instructions", lambda n, m=row["macs"]: "%.1f" % (n / m))
                                for v in variants))
        cells.append(" / ".join(cell(row, v, "m0plus", "float_symbols", lambda s: str(len(s)))
                                for v in variants[1:]))
        print("| " + " | ".join(cells) + " |")
    print("\nReference: " + REFERENCE + ".")
    if "dscnn" in results:
        targets(results["dscnn"], variants)


def targets(row, variants):
    """Issue 33's done-when figures for the DS-CNN on the M4, checked on the
    most integer build measured (int8-io when nnfx has it, else int8)."""
    v = variants[-1]
    b, f = row["builds"].get(v + "/m4", {}), row["builds"].get("float/m4", {})
    if "instructions" not in b or "instructions" not in f:
        print("\nDS-CNN targets: the %s build did not run on the M4" % v)
        return
    fl, q = float(row["acc_float"].split()[0]), float(row["acc_int8"].split()[0])
    checks = [("int8 top-1 within 1 point of float", "%.2f vs %.2f %%" % (q, fl), fl - q <= 1.0),
              ("outputs agree with nnfx run's on the host (int8-io: byte for byte)", str(b.get("same")), bool(b.get("same"))),
              ("RAM <= 28.6 KB (goal 20 KB)", "%.1f KB" % (b["ram"] / 1024.0), b["ram"] <= 28.6 * 1024),
              ("flash <= 68.8 KB", "%.1f KB" % (b["flash"] / 1024.0), b["flash"] <= 68.8 * 1024),
              ("<= 5.2 M instructions (goal 3 M)", "%.2f M" % (b["instructions"] / 1e6), b["instructions"] <= 5.2e6),
              (">= 1.5x fewer instructions than float", "%.2fx" % (f["instructions"] / b["instructions"]),
               f["instructions"] >= 1.5 * b["instructions"])]
    m0 = row["builds"].get(v + "/m0plus", {})
    if "float_symbols" in m0:
        checks.append(("M0+ soft-float: no float helper or libm", " ".join(m0["float_symbols"]) or "none",
                       not m0["float_symbols"]))
    print("\nDS-CNN on the M4, %s build, against issue 33's targets:" % v)
    for what, got, ok in checks:
        print("  %-4s %s: %s" % ("met" if ok else "NOT", what, got))


if __name__ == "__main__":
    main()
