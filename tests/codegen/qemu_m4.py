#!/usr/bin/python3
"""Cross-compiles the generated C of the keyword model for a Cortex-M4
(arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard
-mfpu=fpv4-sp-d16 -Os), boots it on QEMU's mps2-an386 board with
semihosting, and checks its logits on held-out samples against PyTorch's
(within 1e-4 of the output's scale). Also builds the embedded variant (BN
folded, sigmoid -> hard_sigmoid) and checks that its object needs no
symbol but mem* on the target (no libm, no libc) and the compiler's
soft-double helpers for the float32 ReduceMean's sum (double, in order: the
interpreter's, nnfx_rt_fsum; the M4 has no double FPU), nothing else;
then that variant `nnfx quantize`d (int8 QDQ, 64 calibration samples): its
int8 C needs only those too and gives `nnfx run`'s logits on the host
within 1e-4 of the output's scale (its last layers, ReduceMean and Gemm,
run in float) with the same top-1; flash/RAM against the float one. Last,
the model as exported quantized with int8 activations and generated with
--int8-io (integer arithmetic only): its int8 outputs on the M4 equal
`nnfx run`'s byte for byte, and built for a Cortex-M0+ with soft float its
objects need no float helper or libm symbol.
Prints flash (text+rodata) and RAM (data+bss) of the model code and the
instructions per inference (QEMU runs with -icount shift=0; SysTick ticks
are converted to instructions by a calibration loop, see qemu_arm.py; QEMU
is not cycle-accurate). The build and boot steps are qemu_arm.py's (the
Cortex-M harness shared with the M3, M55 and M0+ checks).

Usage: qemu_m4.py NNFX SOURCE_DIR WORK_DIR   (exit 77: tools missing)
"""
import os
import shutil
import sys

NNFX, SRC, WORK = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(SRC, "tests", "data", "kws")
NSAMPLES = 24

sys.path.insert(0, HERE)
import qemu_arm  # noqa: E402  (the shared Cortex-M harness: build, boot, sizes)

try:
    import numpy as np
except ImportError:
    print("skip: numpy is not installed")
    sys.exit(77)
if qemu_arm.missing_tools():
    print("skip: %s is not installed (tools/install-deps.sh installs gcc-arm-none-eabi, "
          "libnewlib-arm-none-eabi, qemu-system-arm)" % qemu_arm.missing_tools())
    sys.exit(77)
run = qemu_arm.run
sizes = qemu_arm.sizes
undefined = qemu_arm.undefined

# libgcc's soft-double helpers a float32 reduction's double sum uses (convert, add, divide, round)
SUM_HELPERS = {"__aeabi_f2d", "__aeabi_dadd", "__aeabi_ddiv", "__aeabi_d2f", "__aeabi_i2d", "__aeabi_l2d"}


def must(r, what):
    try:
        return qemu_arm.must(r, what)
    except qemu_arm.Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)


def build(model, out, x, optimize="speed", extra=()):
    try:
        return qemu_arm.build(NNFX, model, out, x, "m4", "x=1x1x31x20", ["--optimize", optimize] + list(extra))
    except qemu_arm.Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)


def boot(elf):
    """Outputs (float32, one row per sample) and instructions per inference."""
    try:
        y, insns = qemu_arm.boot(elf, "m4")
    except qemu_arm.Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
    return y, insns


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    x = np.load(os.path.join(DATA, "kws_test_x.npy"))[:NSAMPLES]
    ref = np.load(os.path.join(DATA, "kws_logits.npy"))[:NSAMPLES]
    labels = np.load(os.path.join(DATA, "kws_test_y.npy"))[:NSAMPLES]
    failed = False
    # the model as exported (sigmoid through newlib's expf)
    elf, size = build(os.path.join(DATA, "kws.onnx"), os.path.join(WORK, "kws"), x)
    y, insns = boot(elf)
    scale = float(np.abs(ref).max())
    err = float(np.abs(y - ref).max()) if y.shape == ref.shape else float("inf")
    t, d, b = sizes(size)
    kws_float = (t + d, d + b, float(np.median(insns)))
    print("kws on cortex-m4 (qemu mps2-an386): %d samples, max|diff| vs PyTorch %.3g (bound %.3g), "
          "flash %d B (code + weights), RAM %d B (arena), %.0f instructions/inference (icount)"
          % (len(y), err, 1e-4 * scale, t + d, d + b, float(np.median(insns))))
    if not err <= 1e-4 * scale:
        print("FAIL: kws on the M4 differs from PyTorch")
        failed = True
    # the same with --optimize size (weights as in the model, direct-loop conv)
    elf, size = build(os.path.join(DATA, "kws.onnx"), os.path.join(WORK, "kws_size"), x, "size")
    ys, insns = boot(elf)
    err = float(np.abs(ys - ref).max()) if ys.shape == ref.shape else float("inf")
    t, d, b = sizes(size)
    print("kws --optimize size on cortex-m4: max|diff| vs PyTorch %.3g, flash %d B, RAM %d B, "
          "%.0f instructions/inference" % (err, t + d, d + b, float(np.median(insns))))
    if not err <= 1e-4 * scale:
        print("FAIL: kws --optimize size on the M4 differs from PyTorch")
        failed = True
    # the embedded variant: BN folded, sigmoid -> hard_sigmoid, no libm
    hard = os.path.join(WORK, "kws_hard.onnx")
    must(run([NNFX, "optimize", os.path.join(DATA, "kws.onnx"), "-o", hard, "--pass", "fuse-conv-bn",
              "--rewrite", "sigmoid(x) -> hard_sigmoid(x, alpha=0.2, beta=0.5)"]), "optimize")
    elf, size = build(hard, os.path.join(WORK, "kws_hard"), x)
    y2, insns2 = boot(elf)
    t, d, b = sizes(size)
    agree = int((y2.argmax(1) == labels).sum())
    print("kws_hard on cortex-m4: flash %d B, RAM %d B, %.0f instructions/inference; %d/%d correct "
          "(float model on the M4: %d/%d)" % (t + d, d + b, float(np.median(insns2)), agree, len(y2),
                                              int((y.argmax(1) == labels).sum()), len(y)))
    flash_f, ram_f, ins_f = t + d, d + b, float(np.median(insns2))
    elf, size = build(hard, os.path.join(WORK, "kws_hard_size"), x, "size")
    t, d, b = sizes(size)
    print("kws_hard --optimize size on cortex-m4: flash %d B" % (t + d))
    for variant in ("kws_hard", "kws_hard_size"):
        und = undefined(os.path.join(WORK, variant))
        print("%s undefined symbols on the M4: %s" % (variant, " ".join(und) or "(none)"))
        if [s for s in und if not s.startswith("mem") and s not in SUM_HELPERS]:
            print("FAIL: the hard_sigmoid model needs more than mem* and the sums' double helpers")
            failed = True
    # the same model quantized to int8 (QDQ): int8 kernels on the M4
    calib = os.path.join(WORK, "calib.npy")
    np.save(calib, np.load(os.path.join(DATA, "kws_test_x.npy"))[:64])
    q8 = os.path.join(WORK, "kws_hard_q.onnx")
    must(run([NNFX, "quantize", hard, "-o", q8, "--calib", "x=" + calib]), "quantize")
    elf, size = build(q8, os.path.join(WORK, "kws_q"), x, extra=["--int8"])
    y3, insns3 = boot(elf)
    t, d, b = sizes(size)
    xs = os.path.join(WORK, "x.npy")
    np.save(xs, x)
    must(run([NNFX, "run", q8, "--input", "x=" + xs, "-o", os.path.join(WORK, "q8_host.npy"), "--quiet"]), "nnfx run")
    host = np.load(os.path.join(WORK, "q8_host.npy"))
    err = float(np.abs(y3 - host).max()) if y3.shape == host.shape else float("inf")
    same = int((y3.argmax(1) == host.argmax(1)).sum()) if y3.shape == host.shape else 0
    print("kws_hard int8 on cortex-m4: flash %d B (float: %d B), RAM %d B (float: %d B), %.0f instructions/inference "
          "(float: %.0f); max|diff| vs nnfx run on the host %.3g (bound %.3g), top-1 same in %d/%d, %d/%d correct"
          % (t + d, flash_f, d + b, ram_f, float(np.median(insns3)), ins_f, err,
             1e-4 * float(np.abs(host).max()), same, len(y3), int((y3.argmax(1) == labels).sum()), len(y3)))
    if not err <= 1e-4 * float(np.abs(host).max()) or same != len(y3):
        print("FAIL: the int8 model on the M4 differs from nnfx's runtime")
        failed = True
    und = undefined(os.path.join(WORK, "kws_q"))
    print("kws_hard int8 undefined symbols on the M4: %s" % (" ".join(und) or "(none)"))
    if [s for s in und if not s.startswith("mem") and s not in SUM_HELPERS]:
        print("FAIL: the int8 model needs more than mem* and the sums' double helpers")
        failed = True
    failed |= int8_only(x, calib, labels, kws_float)
    sys.exit(1 if failed else 0)


# integer helpers an M0+ may call (no hardware divide, 64-bit multiply and shifts)
INT_HELPERS = ("__aeabi_idiv", "__aeabi_uidiv", "__aeabi_idivmod", "__aeabi_uidivmod", "__aeabi_ldivmod",
               "__aeabi_uldivmod", "__aeabi_lmul", "__aeabi_llsl", "__aeabi_llsr", "__aeabi_lasr")


def int8_only(x, calib, labels, kws_float):
    """The keyword model as exported (BN kept, six sigmoids) quantized with
    int8 activations (MSE ranges) and generated with --int8-io: on the M4
    its int8 outputs equal `nnfx run`'s on the host byte for byte; built for
    a Cortex-M0+ with -mfloat-abi=soft its objects need no float helper
    (__aeabi_f*, __aeabi_d*) and no libm symbol; flash, RAM and
    instructions per inference beside the float build. True on failure."""
    failed = False
    q8 = os.path.join(WORK, "kws_q8io.onnx")
    must(run([NNFX, "quantize", os.path.join(DATA, "kws.onnx"), "-o", q8, "--calib", "x=" + calib, "--activations",
              "int8", "--method", "mse", "-q"]), "quantize --activations int8")
    out = os.path.join(WORK, "kws_io")
    try:
        qemu_arm.codegen(NNFX, q8, out, "x=1x1x31x20", ["--int8", "--int8-io"])
        si, zi, so, zo = qemu_arm.header_qparams(out)
        xq = qemu_arm.quantize(x, si, zi)  # the model's QuantizeLinear, left to the caller
        qemu_arm.write_samples(out, xq, int8=True)
        t, d, b = sizes(qemu_arm.compile_model(out, "m4"))
        y, insns = qemu_arm.boot(qemu_arm.link(out, "m4"), "m4", int8_io=True)
    except qemu_arm.Failure as e:
        print("FAIL: %s" % e)
        return True
    hdr = open(os.path.join(out, "model.h")).read()
    # the host runs the float model on exactly the values the int8 input stands for
    xs = os.path.join(WORK, "x_io.npy")
    np.save(xs, ((xq.astype(np.float64) - zi) * si).astype(np.float32))
    must(run([NNFX, "run", q8, "--input", "x=" + xs, "-o", os.path.join(WORK, "q8io_host.npy"), "--quiet"]),
         "nnfx run int8")
    host = np.load(os.path.join(WORK, "q8io_host.npy")).reshape(len(x), -1)
    want = qemu_arm.quantize(host, so, zo)  # DQ of the model's int8 output: quantizing it again is exact
    y = y.reshape(len(x), -1) if y.size == want.size else y
    same = y.shape == want.shape and np.array_equal(y, want)
    arena = int(hdr.split("#define model_ARENA_BYTES ")[1].split()[0])
    ins = float(np.median(insns))
    print("kws int8-only (--int8-io) on cortex-m4: flash %d B (code + weights; float build: %d B), RAM %d B "
          "(data + bss: the static arena of %d B; float build: %d B), %.0f instructions/inference (icount; float "
          "build: %.0f, %.2fx fewer); int8 outputs vs nnfx run on the host: %s; %d/%d correct"
          % (t + d, kws_float[0], d + b, arena, kws_float[1], ins, kws_float[2], kws_float[2] / ins,
             "byte for byte" if same else "DIFFER", int((y.argmax(1) == labels).sum()) if same else -1, len(y)))
    if not same:
        print("FAIL: the integer-only model on the M4 differs from nnfx run")
        failed = True
    # a Cortex-M0+, soft float: no float helper and no libm symbol
    m0 = ["-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror",
          "-pedantic", "-c", "model.c", "model_weights.c"]
    must(run([qemu_arm.GCC] + m0, cwd=out), "cross-compile for cortex-m0plus")
    und = undefined(out)
    bad = [u for u in und if not u.startswith("mem") and u not in INT_HELPERS]
    print("kws int8-only on cortex-m0plus (-mfloat-abi=soft): undefined symbols: %s" % (" ".join(und) or "(none)"))
    if bad or [u for u in und if u.startswith(("__aeabi_f", "__aeabi_d"))]:
        print("FAIL: the integer-only model needs float helpers or libm: %s" % " ".join(bad))
        failed = True
    return failed


if __name__ == "__main__":
    main()
