#!/usr/bin/python3
"""Runs generated C on QEMU's Arm Cortex-M boards (a module, and a command).

Cores (--core):
  m3      Cortex-M3, no FPU (-mfloat-abi=soft), QEMU mps2-an385
  m4      Cortex-M4F (-mfloat-abi=hard -mfpu=fpv4-sp-d16), QEMU mps2-an386
  m55     Cortex-M55 with Helium/MVE and its FPU (-mfloat-abi=hard), QEMU
          mps3-an547 (runs in the secure state; tests/codegen/arm/mps3_an547.ld)
  m0plus  Cortex-M0+ (-mfloat-abi=soft): QEMU has no M0+ board, so this only
          compiles and links the model, and lists the float helpers
          (__aeabi_f*, __aeabi_d*) and libm functions its objects need

The model is cross-compiled (-Os, strict C99, warnings as errors), linked
with tests/codegen/arm/startup.c and main.c (semihosting, no newlib start
files) and booted with `-icount shift=0`. main.c first times a loop of a
known instruction count with SysTick, so SysTick ticks convert to
instructions on any board; the figures are instructions executed under
QEMU, not cycles (QEMU is not cycle-accurate).

Command:
  qemu_arm.py --core m3 [--core m55 ...] NNFX MODEL --input X.npy --work DIR
              [--shape x=1x1x31x20] [--int8] [--int8-io] [--samples N] [--tol T]
              [--ref Y.npy] [--calib C.npy] [--expect-call F,G]
    generates MODEL's C, runs it on each core and compares the outputs with
    `nnfx run MODEL` on the host: float within T (default 1e-4) of the output's
    scale (max |y|), and with --ref's outputs (e.g. PyTorch's) the same way;
    with --int8-io byte for byte (the float input quantized with the
    header's NAME_INPUT0_SCALE / _ZERO_POINT; nnfx run's dequantized output
    quantized again with NAME_OUTPUT0's). For m0plus: the link and the
    symbol list only (--no-float: fail when any float helper or libm symbol
    is needed; --expect-float A,B: fail unless A and B are listed). Prints flash (text + data of the model's objects), RAM (data +
    bss: the arena and any static data) and instructions per inference.
    --calib: quantize MODEL first (`nnfx quantize --activations int8`, the
    first 64 samples of C.npy for the input --shape names) and run that.
    --expect-call: fail unless the generated model.c calls these functions
    (the kernels a test means to cover).
  exit 0 all agree, 1 a mismatch or a build/run failure, 77 tools missing.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ARM = os.path.join(HERE, "arm")
GCC = "arm-none-eabi-gcc"
STRICT = ["-Os", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
CALIB_INSNS = 2 * 100000  # main.c's calibration loop: 100000 x (subs, bne)

CORES = {
    "m0plus": {"flags": ["-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"], "machine": None, "cpu": None,
               "ld": "mps2_an385.ld"},
    "m3": {"flags": ["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"], "machine": "mps2-an385",
           "cpu": "cortex-m3", "ld": "mps2_an385.ld"},
    "m4": {"flags": ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
           "machine": "mps2-an386", "cpu": "cortex-m4", "ld": "mps2_an386.ld"},
    "m55": {"flags": ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"], "machine": "mps3-an547",
            "cpu": "cortex-m55", "ld": "mps3_an547.ld"},
}


def missing_tools():
    """The name of the first cross tool that is not installed, or None."""
    for tool in (GCC, "arm-none-eabi-size", "arm-none-eabi-nm", "qemu-system-arm"):
        if not shutil.which(tool):
            return tool
    return None


def run(cmd, **kw):
    """Runs cmd, stdout and stderr together as text."""
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


class Failure(Exception):
    """A build or run step failed; the message names it and its output."""


def must(r, what):
    """r if it exited 0, else raises Failure naming `what`."""
    if r.returncode:
        raise Failure("%s (exit %d):\n%s" % (what, r.returncode, r.stdout[-4000:]))
    return r


def codegen(nnfx, model, out, shape=None, extra=()):
    """`nnfx codegen MODEL -o OUT --name model` (+ --shape, extra options)."""
    cmd = [nnfx, "codegen", model, "-o", out, "--name", "model"]
    if shape:
        cmd += ["--shape", shape]
    must(run(cmd + list(extra)), "codegen " + model)


def write_samples(out, x, int8=False):
    """Writes OUT/samples.h: the rows of x as float bits, or as int8 bytes
    with IO_INT8 defined (main.c then calls model_run_int8)."""
    import numpy as np

    with open(os.path.join(out, "samples.h"), "w") as f:
        n = x.shape[0]
        size = int(np.prod(x.shape[1:]))
        if int8:
            f.write("#define IO_INT8 1\n#define NSAMPLES %d\nstatic const int8_t samples[%d][%d] = {\n" % (n, n, size))
            for s in x:
                f.write("  {" + ", ".join(str(int(v)) for v in np.asarray(s, dtype=np.int8).ravel()) + "},\n")
        else:
            f.write("#define NSAMPLES %d\nstatic const uint32_t samples[%d][%d] = {\n" % (n, n, size))
            for s in x:
                bits = np.ascontiguousarray(s, dtype=np.float32).view(np.uint32).ravel()
                f.write("  {" + ", ".join("0x%08x" % b for b in bits) + "},\n")
        f.write("};\n")


def compile_model(out, core):
    """Cross-compiles OUT/model.c and model_weights.c for `core` (strict C99);
    returns arm-none-eabi-size's table of the two objects."""
    must(run([GCC] + CORES[core]["flags"] + STRICT + ["-c", "model.c", "model_weights.c"], cwd=out),
         "cross-compile for " + core)
    return must(run(["arm-none-eabi-size", "model.o", "model_weights.o"], cwd=out), "size").stdout


def link(out, core):
    """Links the compiled model with the start-up code for `core`; returns
    the ELF's path."""
    elf = os.path.join(os.path.abspath(out), "model_%s.elf" % core)
    must(run([GCC] + CORES[core]["flags"] + ["-Os", "-ffreestanding", "-I.", "-nostartfiles", "--specs=nano.specs",
                                            "--specs=nosys.specs", "-T", os.path.join(ARM, CORES[core]["ld"]),
                                            "-o", elf, os.path.join(ARM, "startup.c"), os.path.join(ARM, "main.c"),
                                            "model.o", "model_weights.o", "-lm"], cwd=out), "link for " + core)
    return elf


def build(nnfx, model, out, x, core, shape=None, extra=(), int8_io=False):
    """codegen + samples + compile + link; returns (elf, size table)."""
    codegen(nnfx, model, out, shape, extra)
    write_samples(out, x, int8_io)
    size = compile_model(out, core)
    return link(out, core), size


def boot(elf, core, int8_io=False, timeout=300):
    """Boots elf on `core`'s QEMU board; returns (outputs, instructions per
    inference): outputs float32 (or int8 with int8_io) one row per sample,
    instructions from SysTick ticks scaled by the calibration loop."""
    import numpy as np

    c = CORES[core]
    r = run(["timeout", str(timeout), "qemu-system-arm", "-M", c["machine"], "-cpu", c["cpu"], "-nographic",
             "-monitor", "none", "-serial", "none", "-semihosting-config", "enable=on,target=native",
             "-icount", "shift=0", "-kernel", elf])
    must(r, "qemu run on " + core)
    rows = [line.split() for line in r.stdout.splitlines() if line.strip()]
    if not rows or rows[0][0] != "c":
        raise Failure("qemu run on %s: no calibration line:\n%s" % (core, r.stdout[-2000:]))
    per_tick = CALIB_INSNS / float(int(rows[0][1], 16))
    rows = rows[1:]
    if int8_io:
        y = np.array([[int(v, 16) for v in row[:-1]] for row in rows], dtype=np.uint8).view(np.int8)
    else:
        y = np.array([[int(v, 16) for v in row[:-1]] for row in rows], dtype=np.uint32).view(np.float32)
    insns = np.array([int(row[-1], 16) for row in rows]) * per_tick
    return y, insns


def undefined(out):
    """Symbols the model's objects in out need from elsewhere (not its own weights)."""
    nm = must(run(["arm-none-eabi-nm", "-u", "model.o", "model_weights.o"], cwd=out), "nm").stdout
    und = sorted(set(ln.split()[-1] for ln in nm.splitlines() if ln.strip() and not ln.endswith(":")))
    return [s for s in und if not s.startswith("model_w")]


def libm_symbols(core):
    """The functions newlib's libm for `core`'s multilib defines."""
    path = must(run([GCC] + CORES[core]["flags"] + ["-print-file-name=libm.a"]), "libm path").stdout.strip()
    nm = run(["arm-none-eabi-nm", "--defined-only", "-g", path]).stdout
    return set(ln.split()[-1] for ln in nm.splitlines() if len(ln.split()) == 3 and ln.split()[1] in "TW")


def float_symbols(out, core):
    """The undefined symbols of OUT's model objects that are soft-float
    helpers (__aeabi_f*, __aeabi_d*, and the __aeabi_*2f/2d conversions) or
    libm functions (per newlib's libm for `core`)."""
    lm = libm_symbols(core)
    conv = ("__aeabi_i2f", "__aeabi_ui2f", "__aeabi_l2f", "__aeabi_ul2f", "__aeabi_i2d", "__aeabi_ui2d",
            "__aeabi_l2d", "__aeabi_ul2d")
    return [s for s in undefined(out) if s.startswith(("__aeabi_f", "__aeabi_d")) or s in conv or s in lm]


def header_qparams(out):
    """(input scale, input zero point, output scale, output zero point) of
    input 0 / output 0 from OUT/model.h's NAME_INPUT0_SCALE... macros
    (`nnfx codegen --int8-io`)."""
    import re

    vals = {}
    with open(os.path.join(out, "model.h")) as f:
        for m in re.finditer(r"#define\s+model_(INPUT0|OUTPUT0)_(SCALE|ZERO_POINT)\s+(.+)", f.read()):
            v = m.group(3).strip().strip("()").rstrip("fF").strip()
            v = v.split("/*")[0].strip().rstrip("fF")
            vals[m.group(1) + m.group(2)] = float.fromhex(v) if "0x" in v.lower() and "p" in v.lower() else float(v)
    try:
        return (vals["INPUT0SCALE"], int(vals["INPUT0ZERO_POINT"]), vals["OUTPUT0SCALE"],
                int(vals["OUTPUT0ZERO_POINT"]))
    except KeyError as e:
        raise Failure("model.h has no %s macro (expected from --int8-io)" % e)


def quantize(x, scale, zp):
    """ONNX QuantizeLinear to int8: round half to even, saturate."""
    import numpy as np

    return np.clip(np.rint(np.asarray(x, dtype=np.float64) / scale) + zp, -128, 127).astype(np.int8)


def sizes(text):
    """Sums arm-none-eabi-size's table: (text incl. const weights, data, bss)."""
    tot = [0, 0, 0]
    for line in text.splitlines()[1:]:
        f = line.split()
        for i in range(3):
            tot[i] += int(f[i])
    return tot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--core", action="append", choices=list(CORES), required=True)
    ap.add_argument("nnfx")
    ap.add_argument("model")
    ap.add_argument("--input", required=True, help="X.npy: float samples, batch first (with --int8-io quantized "
                                                   "with the header's input scale and zero point)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--shape")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--ref", help="Y.npy: an independent reference's float outputs (PyTorch) for the same "
                                  "samples, checked within --tol too")
    ap.add_argument("--int8", action="store_true", help="pass --int8 to nnfx codegen")
    ap.add_argument("--int8-io", action="store_true", help="pass --int8 --int8-io; compare bytes")
    ap.add_argument("--no-float", action="store_true", help="m0plus: fail when a float helper or libm is needed")
    ap.add_argument("--expect-float", help="m0plus: fail unless these comma-separated symbols are listed (a float "
                                           "model's, to show the listing sees them)")
    ap.add_argument("--calib", help="C.npy: quantize MODEL first with --activations int8 on its first 64 samples")
    ap.add_argument("--expect-call", help="fail unless model.c calls these comma-separated functions")
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("skip: numpy is not installed")
        return 77
    tool = missing_tools()
    if tool:
        print("skip: %s is not installed (tools/install-deps.sh installs gcc-arm-none-eabi, "
              "libnewlib-arm-none-eabi, qemu-system-arm)" % tool)
        return 77
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    x = np.load(a.input)[:a.samples]
    if a.calib:
        if not a.shape:
            ap.error("--calib needs --shape (it names the input)")
        cp = os.path.join(a.work, "calib.npy")
        np.save(cp, np.load(a.calib)[:64])
        qm = os.path.join(a.work, "model_int8.onnx")
        r = run([a.nnfx, "quantize", a.model, "-o", qm, "--calib", a.shape.split("=")[0] + "=" + cp, "--activations",
                 "int8", "-q"])
        if r.returncode:
            print("FAIL: nnfx quantize (exit %d):\n%s" % (r.returncode, r.stdout[-4000:]))
            return 1
        a.model = qm
    extra = ["--int8", "--int8-io"] if a.int8_io else ["--int8"] if a.int8 else []
    failed = False
    host = None
    for core in a.core:
        out = os.path.join(a.work, core)
        try:
            codegen(a.nnfx, a.model, out, a.shape, extra)
            xin = x
            if a.int8_io:
                isc, izp, osc, ozp = header_qparams(out)
                xin = quantize(x, isc, izp)
                # the host runs the float model on exactly the values the int8 input stands for
                x = ((xin.astype(np.float64) - izp) * isc).astype(np.float32)
            write_samples(out, xin, a.int8_io)
            if a.expect_call:
                with open(os.path.join(out, "model.c")) as f:
                    src = f.read()
                # a call is a statement line starting with the name (the definition starts with its type)
                lost = [fn for fn in a.expect_call.split(",")
                        if not any(ln.lstrip().startswith(fn + "(") for ln in src.splitlines())]
                if lost:
                    raise Failure("model.c for %s does not call %s" % (core, " ".join(lost)))
            t, d, b = sizes(compile_model(out, core))
            link(out, core)
            if core == "m0plus":
                fl = float_symbols(out, core)
                print("%s: links; flash %d B, RAM %d B; float helpers and libm needed: %s"
                      % (core, t + d, d + b, " ".join(fl) or "(none)"))
                if a.no_float and fl:
                    print("FAIL: the model's objects need float helpers or libm on the %s" % core)
                    failed = True
                lost = [e for e in (a.expect_float or "").split(",") if e and e not in fl]
                if lost:
                    print("FAIL: expected %s among the %s float symbols" % (" ".join(lost), core))
                    failed = True
                continue
            y, insns = boot(os.path.join(out, "model_%s.elf" % core), core, a.int8_io)
        except Failure as e:
            print("FAIL: %s" % e)
            failed = True
            continue
        if host is None:
            xs = os.path.join(a.work, "x.npy")
            np.save(xs, x)
            hy = os.path.join(a.work, "host_y.npy")
            must(run([a.nnfx, "run", a.model, "--input", xs, "-o", hy, "--quiet"]), "nnfx run")
            host = np.load(hy).reshape(len(x), -1)
        y = y.reshape(len(x), -1) if y.size == host.size else y
        if a.int8_io:
            # nnfx run's output is DequantizeLinear of the model's int8 output: quantizing it again is exact
            ok = y.shape == host.shape and bool((y == quantize(host, osc, ozp)).all())
            what = "bytes equal to nnfx run's: %s" % ok
        else:
            err = float(np.abs(y - host).max()) if y.shape == host.shape else float("inf")
            bound = a.tol * float(np.abs(host).max())
            ok = err <= bound
            what = "max|diff| vs nnfx run %.3g (bound %.3g)" % (err, bound)
        if a.ref and not a.int8_io:
            r = np.load(a.ref)[:len(x)].reshape(len(x), -1)
            err = float(np.abs(y - r).max()) if y.shape == r.shape else float("inf")
            bound = a.tol * float(np.abs(r).max())
            ok = ok and err <= bound
            what += ", vs %s %.3g (bound %.3g)" % (os.path.basename(a.ref), err, bound)
        print("%s (qemu %s): %d samples, %s; flash %d B (code + weights), RAM %d B (data + bss), "
              "%.0f instructions/inference (QEMU -icount: instructions, not cycles)"
              % (core, CORES[core]["machine"], len(x), what, t + d, d + b, float(np.median(insns))))
        if not ok:
            print("FAIL: %s outputs differ from nnfx run on the host" % core)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
