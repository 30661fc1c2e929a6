"""Independent checks of nnfx's answers on the digits data, for
tests/digits/test_digits.sh and examples/pipeline.sh. Python 3 standard
library only (its own .npy reader), so it shares no code with nnfx and needs
no NumPy.

  refcheck.py logits OUT.npy REF.npy LABELS.npy RTOL
      OUT and REF have the same shape and every |out - ref| <= RTOL * s,
      s = the largest |ref| of that row (the scale of that sample's logits);
      prints the worst error and OUT's top-1 accuracy, and exits 1 when the
      check fails.
  refcheck.py top1 OUT.npy LABELS.npy
      prints the number of rows whose largest entry is at the label.
  refcheck.py json FILE EXPR
      evaluates the Python expression EXPR with d = the parsed JSON file;
      exits 0 when it is true, 1 (printing the expression) when not.
"""
import json
import re
import struct
import sys

FORMATS = {"<f4": ("f", 4), "<f8": ("d", 8), "<i8": ("q", 8), "<i4": ("i", 4)}


def load_npy(path):
    """(shape, flat list) of a little-endian C-order .npy file, version 1-3."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    if b[6] == 1:
        hl, off = struct.unpack("<H", b[8:10])[0], 10
    else:
        hl, off = struct.unpack("<I", b[8:12])[0], 12
    hdr = b[off:off + hl].decode("latin1")
    descr = re.search(r"'descr':\s*'([^']+)'", hdr).group(1)
    if "'fortran_order': False" not in hdr or descr not in FORMATS:
        raise ValueError("%s: unsupported header %s" % (path, hdr))
    dims = re.search(r"'shape':\s*\(([^)]*)\)", hdr).group(1)
    shape = tuple(int(v) for v in dims.split(",") if v.strip())
    code, size = FORMATS[descr]
    data = b[off + hl:]
    n = 1
    for d in shape:
        n *= d
    if len(data) != n * size:
        raise ValueError("%s: %d data bytes for shape %s" % (path, len(data), shape))
    return shape, list(struct.unpack("<%d%s" % (n, code), data))


def rows(shape, flat):
    k = shape[-1]
    return [flat[i:i + k] for i in range(0, len(flat), k)]


def top1(out_rows, labels):
    return sum(1 for r, y in zip(out_rows, labels) if max(range(len(r)), key=r.__getitem__) == y)


def cmd_logits(out_path, ref_path, labels_path, rtol):
    so, o = load_npy(out_path)
    sr, r = load_npy(ref_path)
    _, y = load_npy(labels_path)
    if so != sr:
        print("shape %s, expected %s" % (so, sr))
        return 1
    worst, where = 0.0, None
    for i, (ro, rr) in enumerate(zip(rows(so, o), rows(sr, r))):
        scale = max(abs(v) for v in rr)
        for j, (a, b) in enumerate(zip(ro, rr)):
            e = abs(a - b) / scale
            if e > worst:
                worst, where = e, (i, j, a, b)
    correct = top1(rows(so, o), y)
    print("max error relative to the row's logit scale: %.3g%s; top-1 %d/%d = %.2f %%" %
          (worst, "" if where is None else " at [%d,%d] (%r vs %r)" % where, correct, len(y),
           100.0 * correct / len(y)))
    return 0 if worst <= rtol else 1


def main(argv):
    if len(argv) == 6 and argv[1] == "logits":
        return cmd_logits(argv[2], argv[3], argv[4], float(argv[5]))
    if len(argv) == 4 and argv[1] == "top1":
        so, o = load_npy(argv[2])
        _, y = load_npy(argv[3])
        print(top1(rows(so, o), y))
        return 0
    if len(argv) == 4 and argv[1] == "json":
        with open(argv[2]) as f:
            d = json.load(f)
        ok = eval("(" + argv[3] + "\n)", {"d": d, "abs": abs, "len": len})
        if not ok:
            print("false: %s" % argv[3])
        return 0 if ok else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
