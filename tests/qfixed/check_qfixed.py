#!/usr/bin/python3
"""src/rt/nnfx_rt_qfixed.h against TFLite's requantization
formulas reimplemented here in Python's unbounded integers (gemmlowp's
SaturatingRoundingDoublingHighMul and RoundingDivideByPOT, TFLite's
MultiplyByQuantizedMultiplier, QuantizeMultiplier with exact rational
rounding, the int8 Add and Mul kernels of tensorflow/lite/kernels/internal/
reference/integer_ops), over fixed edge cases (INT32_MIN * INT32_MIN, ties,
exponents 0 and 31, positive and negative shifts, multipliers that round
up to 2^31 or flush to zero) and many random ones. The header is compiled
with -fsanitize=undefined where the compiler has it, so an overflow or a
bad shift in it fails too.

Usage: check_qfixed.py SOURCE_DIR WORK_DIR
"""
import math
import os
import random
import shutil
import struct
import subprocess
import sys
from fractions import Fraction

SRC, WORK = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))
I32_MIN, I32_MAX = -2**31, 2**31 - 1


def srdhm(a, b):
    if a == b == I32_MIN:
        return I32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    q = abs(v) // (1 << 31)  # C's division truncates toward zero
    return q if v >= 0 else -q


def rdbpot(x, e):
    mask = (1 << e) - 1
    rem = x & mask            # Python's & on negatives is two's complement
    thr = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > thr else 0)  # >> is floor, as an arithmetic shift


def wrap32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def mbqm(x, qm, shift):
    ls, rs = (shift, 0) if shift > 0 else (0, -shift)
    return rdbpot(srdhm(wrap32(x * (1 << ls)), qm), rs)


def quantize_multiplier(m):
    if m == 0:
        return 0, 0
    q, shift = math.frexp(m)
    v = Fraction(q) * (1 << 31)       # exact
    f = math.floor(v + Fraction(1, 2))  # round half away from zero (v > 0)
    if f == 1 << 31:
        f //= 2
        shift += 1
    if shift < -31:
        f, shift = 0, 0
    return f, shift


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def add_ref(a, azp, b, bzp, sa, sb, sy, yzp, lo, hi, sub):
    twice = 2 * max(sa, sb)
    am, ash = quantize_multiplier(sa / twice)
    bm, bsh = quantize_multiplier(sb / twice)
    ym, ysh = quantize_multiplier(twice / ((1 << 20) * sy))
    av = mbqm((a - azp) * (1 << 20), am, ash)
    bv = mbqm((b - bzp) * (1 << 20), bm, bsh)
    return clamp(mbqm(av - bv if sub else av + bv, ym, ysh) + yzp, lo, hi)


def bits(d):
    return "%x" % struct.unpack("<Q", struct.pack("<d", d))[0]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        print("skip: no C compiler")
        sys.exit(77)
    exe = os.path.join(WORK, "qfixed_driver")
    base = [cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic",
            "-I" + os.path.join(SRC, "src", "rt"), os.path.join(HERE, "qfixed_driver.c"), "-o", exe]
    san = ["-fsanitize=undefined", "-fno-sanitize-recover=all"]
    r = subprocess.run(base + san, capture_output=True, text=True)
    if r.returncode:
        r = subprocess.run(base, capture_output=True, text=True)
        if r.returncode:
            print("FAIL: compiling the driver:\n" + r.stderr)
            sys.exit(1)
        print("note: built without -fsanitize=undefined")

    rnd = random.Random(33)
    cases, want = [], []

    def case(line, expect):
        cases.append(line)
        want.append(str(expect))

    # ---- SaturatingRoundingDoublingHighMul
    edge = [I32_MIN, I32_MIN + 1, -1, 0, 1, 2, I32_MAX, I32_MAX - 1, 1 << 30, -(1 << 30), (1 << 30) + 1, 46341,
            -46341, 3, -3]
    for a in edge:
        for b in edge:
            case("s %d %d" % (a, b), srdhm(a, b))
    assert srdhm(I32_MIN, I32_MIN) == I32_MAX and srdhm(I32_MIN, I32_MAX) == -I32_MAX
    # ties: a * b = (2k + 1) * 2^30 -> away from zero
    for k in range(-40, 40):
        case("s %d %d" % ((2 * k + 1), 1 << 30), srdhm(2 * k + 1, 1 << 30))
    for _ in range(4000):
        a, b = rnd.randint(I32_MIN, I32_MAX), rnd.randint(I32_MIN, I32_MAX)
        case("s %d %d" % (a, b), srdhm(a, b))
    # ---- RoundingDivideByPOT
    for e in range(0, 32):
        for x in [I32_MIN, I32_MIN + 1, -1, 0, 1, I32_MAX, 3, -3, 5, -5]:
            case("r %d %d" % (x, e), rdbpot(x, e))
        if e:
            for k in range(-6, 6):  # exact ties (2k + 1) * 2^(e - 1)
                x = (2 * k + 1) * (1 << (e - 1))
                if I32_MIN <= x <= I32_MAX:
                    case("r %d %d" % (x, e), rdbpot(x, e))
    assert rdbpot(-3, 1) == -2 and rdbpot(3, 1) == 2 and rdbpot(-5, 2) == -1 and rdbpot(-6, 2) == -2
    for _ in range(3000):
        x, e = rnd.randint(I32_MIN, I32_MAX), rnd.randint(0, 31)
        case("r %d %d" % (x, e), rdbpot(x, e))
    # ---- MultiplyByQuantizedMultiplier
    assert mbqm(100, 1 << 30, 0) == 50 and mbqm(-100, 1 << 30, 0) == -50 and mbqm(3, 1 << 30, 0) == 2
    for _ in range(6000):
        qm = rnd.randint(1 << 30, I32_MAX)
        shift = rnd.randint(-31, 0) if rnd.random() < 0.8 else rnd.randint(1, 8)
        lim = I32_MAX >> max(shift, 0)
        x = rnd.randint(-lim - 1, lim) if rnd.random() < 0.5 else rnd.randint(-70000, 70000)
        case("m %d %d %d" % (x, qm, shift), mbqm(x, qm, shift))
    for x in (I32_MIN, I32_MAX, 0, -1, 1):
        for qm in (1 << 30, I32_MAX, 0):
            for shift in (0, -1, -31, 1):
                case("m %d %d %d" % (x, qm, shift), mbqm(x, qm, shift))
    # ---- the fast form (nnfx_rt_qf_fast): mbqm + zp wherever nnfx_rt_qf_fast_k accepts
    def fast_case(x, qm, shift, zp):
        ok = qm >= 0 and -20 <= shift <= -1 and -128 <= zp <= 127
        case("f %d %d %d %d" % (x, qm, shift, zp), mbqm(x, qm, shift) + zp if ok else "-")

    xs = [I32_MIN, I32_MIN + 1, -(1 << 30) - (1 << 27), -1, 0, 1, I32_MAX, I32_MAX - 1, (1 << 30) + (1 << 27)]
    for shift in (1, 0, -1, -2, -7, -19, -20, -21, -31):
        for qm in (0, 1 << 30, (1 << 30) + 1, I32_MAX, I32_MIN, -5):
            for zp in (-128, -3, 0, 127, 128, -129):
                for x in xs:
                    fast_case(x, qm, shift, zp)
                # ties of either rounding: x qm = (2k + 1) 2^30 (s's tie) or s = (2k + 1) 2^(e - 1)
                if 1 <= -shift <= 20 and qm:
                    for k in range(-5, 5):
                        fast_case(2 * k + 1, 1 << 30, shift, zp)
                        fast_case((2 * k + 1) * (1 << (-shift - 1)) * 2, 1 << 30, shift, zp)
                        fast_case(-((2 * k + 1) * (1 << (-shift - 1)) * 2) - 1, 1 << 30, shift, zp)
    for _ in range(20000):
        qm = rnd.randint(1 << 30, I32_MAX) if rnd.random() < 0.95 else 0
        shift = rnd.randint(-20, -1) if rnd.random() < 0.9 else rnd.randint(-31, 2)
        x = rnd.randint(I32_MIN, I32_MAX) if rnd.random() < 0.3 else rnd.randint(-(1 << 20), 1 << 20)
        fast_case(x, qm, shift, rnd.randint(-128, 127))
    # ---- QuantizeMultiplier
    ms = [0.0, 1.0, 0.5, 0.25, 2.0, 1 - 2**-40, 0.5 - 2**-45, 2**-31, 2**-32, 2**-33, 3 * 2**-34, 0.75, 1e-9, 1e-10,
          123.456, 0.0039215689, 1 / 3, 2 / 3, 2**-20 * 0.999999999]
    for _ in range(3000):
        ms.append(math.ldexp(rnd.random() + 0.5, rnd.randint(-36, 12)))
    for _ in range(500):  # ratios of float32 scales, as the plan forms them
        f = [struct.unpack("<f", struct.pack("<f", rnd.uniform(1e-4, 0.5)))[0] for _ in range(3)]
        ms.append(f[0] * f[1] / f[2])
    for m in ms:
        qm, sh = quantize_multiplier(m)
        case("q %s" % bits(m), "%d %d" % (qm, sh))
        # and the multiplier's rounding of a product: x * m rounded, within 1 of the exact value
        if qm and sh <= 0:
            x = rnd.randint(-100000, 100000)
            got = mbqm(x, qm, sh)
            assert abs(Fraction(x) * Fraction(m) - got) <= 1 + abs(x) * Fraction(1, 1 << 30), (x, m, got)
    assert quantize_multiplier(1 - 2**-40) == (1 << 30, 1)  # rounds up to 2^31: halved, shift + 1
    assert quantize_multiplier(2**-33) == (0, 0)
    # ---- int8 Add / Sub and Mul
    for _ in range(3000):
        sa, sb, sy = [struct.unpack("<f", struct.pack("<f", rnd.uniform(0.002, 0.2)))[0] for _ in range(3)]
        azp, bzp, yzp = rnd.randint(-128, 127), rnd.randint(-128, 127), rnd.randint(-128, 127)
        a, b = rnd.randint(-128, 127), rnd.randint(-128, 127)
        lo = rnd.choice([-128, yzp, -100])
        hi = max(lo, rnd.choice([127, 100]))
        sub = rnd.randint(0, 1)
        case("a %d %d %d %d %s %s %s %d %d %d %d" % (a, azp, b, bzp, bits(sa), bits(sb), bits(sy), yzp, lo, hi, sub),
             add_ref(a, azp, b, bzp, sa, sb, sy, yzp, lo, hi, sub))
        qm, sh = quantize_multiplier(sa * sb / sy)
        case("u %d %d %d %d %d %d %d %d %d" % (a, azp, b, bzp, qm, sh, yzp, lo, hi),
             clamp(mbqm((a - azp) * (b - bzp), qm, sh) + yzp, lo, hi))
        # the int8 add stays within a unit of the real sum requantized
        if lo == -128 and hi == 127:
            real = (sa * (a - azp) + (-1 if sub else 1) * sb * (b - bzp)) / sy + yzp
            got = add_ref(a, azp, b, bzp, sa, sb, sy, yzp, lo, hi, sub)
            assert abs(clamp(round(real), -128, 127) - got) <= 1, (real, got)

    r = subprocess.run([exe], input="\n".join(cases) + "\n", capture_output=True, text=True)
    if r.returncode:
        print("FAIL: driver exit %d: %s" % (r.returncode, r.stderr[-2000:]))
        sys.exit(1)
    got = r.stdout.splitlines()
    bad = [(c, w, g) for c, w, g in zip(cases, want, got) if w != g]
    if len(got) != len(want) or bad:
        print("FAIL: %d of %d cases differ (%d answers)" % (len(bad), len(cases), len(got)))
        for c, w, g in bad[:20]:
            print("  %s: want %s, got %s" % (c, w, g))
        sys.exit(1)
    print("qfixed: %d cases equal TFLite's formulas" % len(cases))


if __name__ == "__main__":
    main()
