#!/usr/bin/python3
"""The fast int8 conv kernels (nnfx_rt_qpw, nnfx_rt_qdw3, nnfx_rt_qconv1 in
src/rt/nnfx_rt_int8.h) against the reference nnfx_rt_qconv,
byte for byte (tests/codegen/arm/qfast_check.c): built with the host's cc
(the portable path) and run, then cross-built for QEMU's Cortex-M3
(portable), Cortex-M4 (__ARM_FEATURE_DSP: SMLAD; at -Os with GCC's inline
assembly and at -O0 without) and Cortex-M55 and booted.

Usage: check_qfast.py WORKDIR   exit 0 all equal, 1 a mismatch or failure,
77 the cross tools are missing (the host run still counts). CODEGEN_CFLAGS
adds flags to the host build (the sanitizers).
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qemu_arm  # noqa: E402

SRC = os.path.join(HERE, "arm", "qfast_check.c")


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cc = shutil.which("cc") or shutil.which("gcc")
    host = os.path.join(work, "qfast_host")
    r = qemu_arm.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-o", host, SRC] +
                     os.environ.get("CODEGEN_CFLAGS", "").split())
    if r.returncode:
        print("FAIL: host build:\n" + r.stdout)
        return 1
    r = qemu_arm.run([host])
    print("host: " + r.stdout.strip())
    if r.returncode:
        return 1
    tool = qemu_arm.missing_tools()
    if tool:
        print("skip: %s is not installed" % tool)
        return 77
    failed = False
    # the M4 at -O0 too: GCC's inline assembly of the DSP kernels needs an optimizing build, so -O0 takes
    # their intrinsics-only form
    for core, opt in (("m3", None), ("m4", None), ("m4", "-O0"), ("m55", None)):
        c = qemu_arm.CORES[core]
        name = core + (opt or "")
        elf = os.path.join(work, "qfast_%s.elf" % name)
        flags = [f for f in qemu_arm.STRICT if f != "-pedantic"]  # startup.c casts functions
        if opt:
            flags = [opt if f.startswith("-O") else f for f in flags]
        r = qemu_arm.run([qemu_arm.GCC] + c["flags"] + flags +
                         ["-DNNFX_QFAST_SEMIHOST", "-ffreestanding", "-nostartfiles", "--specs=nano.specs",
                          "--specs=nosys.specs", "-T", os.path.join(qemu_arm.ARM, c["ld"]), "-o", elf,
                          os.path.join(qemu_arm.ARM, "startup.c"), SRC])
        if r.returncode:
            print("FAIL: build for %s:\n%s" % (name, r.stdout[-3000:]))
            failed = True
            continue
        r = qemu_arm.run(["timeout", "120", "qemu-system-arm", "-M", c["machine"], "-cpu", c["cpu"], "-nographic",
                          "-monitor", "none", "-serial", "none", "-semihosting-config", "enable=on,target=native",
                          "-kernel", elf])
        print("%s: %s" % (name, r.stdout.strip()))
        if core == "m55" and "Helium (MVE) path" not in r.stdout:  # the M55 must run the MVE kernels
            print("FAIL: m55 did not build the MVE path")
            failed = True
        if r.returncode or "FAIL" in r.stdout or "equal" not in r.stdout:
            print("FAIL: %s (exit %d)" % (name, r.returncode))
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
