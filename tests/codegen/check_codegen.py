#!/usr/bin/python3
"""Checks `nnfx codegen`: the generated C for the committed real-model
fixtures, the digits models and the keyword-spotting model compiles with
`cc -std=c99 -Wall -Wextra -Werror -pedantic` and gives PyTorch's outputs
(committed .npy files) within 1e-4 of the output's scale; generation is
deterministic; --forbid, unsupported ops and dynamic shapes fail as
documented with nothing written; the keyword model with BN folded and
sigmoid -> hard_sigmoid compiles to an object whose only undefined symbols
are mem* and matches PyTorch's accuracy for that rewrite; single-op models
(tests/codegen/op_cases.py: Pad in every mode and cropping, nearest /
linear / cubic / tf_crop_and_resize Resize, recurrent layers with constant
or computed weights, TopK's int64 indices and a uint8 input through
NAME_run's void-pointer form, ...) give numpy's outputs within 1e-4 of the
output's scale, as nnfx's runtime does on the same models. The harness
reads and writes each input and output as its NAME_INPUTk_TYPE /
NAME_OUTPUTk_TYPE.

Usage: check_codegen.py NNFX SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("skip: numpy is not installed for %s" % sys.executable)
    sys.exit(77)

NNFX, SRC, WORK = sys.argv[1:4]
DATA = os.path.join(SRC, "tests", "data")
CC = os.environ.get("CC", "cc")
# CODEGEN_CFLAGS adds flags to every compile and link (e.g. sanitizers)
EXTRA = os.environ.get("CODEGEN_CFLAGS", "").split()
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"] + EXTRA
failures = []

# A harness: reads N samples of every input (raw values of its
# NAME_INPUTk_TYPE, one file per input), runs NAME_run on each, writes the
# outputs one after the other (raw values of their NAME_OUTPUTk_TYPE), with
# @DIMS@ 1 each output's actual dims after them (NAME_run_dims: 8 int64 per
# output); exits 3 when the run does not return 0. A model may have no
# inputs.
HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "@NAME@.h"

static const size_t in_bytes[@NIN@ + 1] = {@IN_BYTES@};
static const size_t out_bytes[@NOUT@ + 1] = {@OUT_BYTES@};

int main(int argc, char **argv) {
    long n = atol(argv[1]), k, i;
    int rc = 0;
    long long dim_rows[@NOUT@ + 1][8];
    long long *dims[@NOUT@ + 1];
    unsigned char *in[@NIN@ + 1];
    @NAME@_IO_TYPE *out[@NOUT@ + 1];
    FILE *fo = fopen(argv[2 + @NIN@], "wb");
    if (argc != 3 + @NIN@ || !fo) return 2;
    for (i = 0; i < @NIN@; i++) {
        FILE *f = fopen(argv[2 + i], "rb");
        in[i] = malloc(in_bytes[i] * n + 1);
        if (!f || fread(in[i], 1, in_bytes[i] * n, f) != in_bytes[i] * n) return 2;
        fclose(f);
    }
    for (i = 0; i < @NOUT@; i++) {
        out[i] = malloc(out_bytes[i] + 1);
        dims[i] = dim_rows[i];
    }
    (void)dims;
    for (k = 0; k < n && !rc; k++) {
        const @NAME@_IO_TYPE *ins[@NIN@ + 1];
        for (i = 0; i < @NIN@; i++)
            ins[i] = (const @NAME@_IO_TYPE *)(const void *)(in[i] + k * in_bytes[i]);
        if (@RUN@ != 0) {
            rc = 3;
            break;
        }
        for (i = 0; i < @NOUT@; i++)
            fwrite(out[i], 1, out_bytes[i], fo);
        if (@DIMS@) fwrite(dim_rows, sizeof dim_rows, 1, fo);
    }
    fclose(fo);
    for (i = 0; i < @NIN@; i++)
        free(in[i]);
    for (i = 0; i < @NOUT@; i++)
        free(out[i]);
    return rc; /* everything freed either way: no leak report under the sanitizers */
}
"""

# the numpy type of each NAME_INPUTk_TYPE / NAME_OUTPUTk_TYPE
CTYPES = {"float": np.float32, "double": np.float64, "int64_t": np.int64, "int32_t": np.int32, "int8_t": np.int8,
          "uint8_t": np.uint8, "uint16_t": np.uint16, "int16_t": np.int16, "uint32_t": np.uint32,
          "uint64_t": np.uint64}  # uint16_t: also a float16's bits


def fail(msg):
    print("FAIL: " + msg)
    failures.append(msg)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def expect_refused(label, r, out, words, width=12):
    """A refused generation (r: its process): exit 3, the output naming each
    of words, and nothing written at out."""
    if r.returncode != 3 or any(w not in r.stdout for w in words) or os.path.exists(out):
        fail("%s: want exit 3 naming %s, nothing written; got %d: %s" % (label, words, r.returncode, r.stdout))
    else:
        print("%-*s exit 3: %s" % (width, label, r.stdout.strip().splitlines()[0]))


def generate(model, out, name, shapes=(), extra=()):
    cmd = [NNFX, "codegen", model, "-o", out, "--name", name]
    for s in shapes:
        cmd += ["--shape", s]
    return run(cmd + list(extra))


def header_macro(out, name, m):
    """The value of NAME_m in out/NAME.h."""
    for line in open(os.path.join(out, name + ".h")).read().splitlines():
        if line.startswith("#define %s_%s " % (name, m)):
            return line.split()[2]
    raise KeyError(m)


def header_says(out, name, words):
    """Whether out/NAME.h's comments say words (their line breaks and
    leading " * " read as spaces)."""
    text = " ".join(line.strip().lstrip("*").strip() for line in open(os.path.join(out, name + ".h")))
    return words in text


def build_program(out, name, weights_o0=False, opt="-O2", dims=False):
    """Compiles the generated C in out strictly and links it with HARNESS
    into out/run. Returns (the inputs' numpy types, the outputs' numpy
    types, the outputs' sizes), or an error string. weights_o0: the weights
    file (only data) compiles at -O0, the same strict flags else. dims: the
    program runs NAME_run_dims and writes the outputs' dims too."""
    def macro(m):
        return header_macro(out, name, m)

    nin, nout = int(macro("NUM_INPUTS")), int(macro("NUM_OUTPUTS"))
    in_t = [CTYPES[macro("INPUT%d_TYPE" % i)] for i in range(nin)]
    out_t = [CTYPES[macro("OUTPUT%d_TYPE" % i)] for i in range(nout)]
    out_n = [int(macro("OUTPUT%d_SIZE" % i)) for i in range(nout)]
    h = HARNESS.replace("@RUN@", "@NAME@_run_dims(ins, out, dims)" if dims else "@NAME@_run(ins, out)")
    h = h.replace("@DIMS@", "1" if dims else "0")
    h = h.replace("@NAME@", name).replace("@NIN@", str(nin)).replace("@NOUT@", str(nout))
    h = h.replace("@IN_BYTES@", ", ".join(["%s * sizeof(%s)" % (macro("INPUT%d_SIZE" % i), macro("INPUT%d_TYPE" % i))
                                           for i in range(nin)] or ["0"]))
    h = h.replace("@OUT_BYTES@", ", ".join(["%d * sizeof(%s)" % (out_n[i], macro("OUTPUT%d_TYPE" % i))
                                            for i in range(nout)] or ["0"]))
    with open(os.path.join(out, "main.c"), "w") as f:
        f.write(h)
    if weights_o0:
        r = run([CC] + STRICT + ["-c", name + ".c"], cwd=out)
        if not r.returncode:
            r = run([CC] + [f for f in STRICT if not f.startswith("-O")] + ["-O0", "-c", name + "_weights.c"], cwd=out)
    else:
        r = run([CC] + STRICT + ["-c", name + ".c", name + "_weights.c"], cwd=out)
    if r.returncode:
        return "strict C99 compile failed:\n" + r.stdout[-3000:]
    r = run([CC, opt] + EXTRA + ["-o", os.path.join(out, "run"), "main.c", name + ".o", name + "_weights.o", "-lm"],
            cwd=out)
    if r.returncode:
        return "link failed:\n" + r.stdout[-3000:]
    return in_t, out_t, out_n


def write_inputs(out, inputs, in_t):
    """Writes each input array as out/in<i>.bin in its NAME_INPUTi_TYPE (in_t);
    returns the files' paths."""
    files = []
    for i, x in enumerate(inputs):
        p = os.path.join(out, "in%d.bin" % i)
        np.ascontiguousarray(x, dtype=in_t[i]).tofile(p)
        files.append(p)
    return files


def build_and_run(out, name, inputs, nsamples, weights_o0=False):
    """Compiles the generated C strictly, runs it on the samples (each input
    written as its NAME_INPUTk_TYPE); returns the outputs (any type) as one
    float32 array [nsamples, the outputs' sizes together]."""
    built = build_program(out, name, weights_o0)
    if isinstance(built, str):
        fail("%s: %s" % (name, built))
        return None
    in_t, out_t, out_n = built
    res = os.path.join(out, "out.bin")
    r = run([os.path.join(out, "run"), str(nsamples)] + write_inputs(out, inputs, in_t) + [res])
    if r.returncode:
        fail("%s: generated program exited %d" % (name, r.returncode))
        return None
    raw, rows, at = open(res, "rb").read(), [], 0
    for _ in range(nsamples):
        row = []
        for t, cnt in zip(out_t, out_n):
            row.append(np.frombuffer(raw, dtype=t, count=cnt, offset=at).astype(np.float32))
            at += cnt * np.dtype(t).itemsize
        rows.append(np.concatenate(row) if row else np.zeros(0, np.float32))
    return np.array(rows, np.float32).reshape(nsamples, -1)


def run_bounded(label, out, name, inputs):
    """Compiles the generated C in out (a model with outputs whose size
    depends on the data) and runs it once on inputs (arrays) through
    NAME_run_dims: per output its values over the bound (flat) and the 8
    dims it reports; None on a failure already reported."""
    built = build_program(out, name, dims=True)
    if isinstance(built, str):
        fail("%s: %s" % (label, built))
        return None
    in_t, out_t, out_n = built
    res = os.path.join(out, "out.bin")
    r = run([os.path.join(out, "run"), "1"] + write_inputs(out, inputs, in_t) + [res])
    if r.returncode:
        fail("%s: generated program exited %d" % (label, r.returncode))
        return None
    raw, at, vals = open(res, "rb").read(), 0, []
    for t, cnt in zip(out_t, out_n):
        vals.append(np.frombuffer(raw, dtype=t, count=cnt, offset=at))
        at += cnt * np.dtype(t).itemsize
    return vals, np.frombuffer(raw, np.int64, len(out_t) * 8, at).reshape(len(out_t), 8)


def check_bounded(label, out, name, inputs, refs):
    """run_bounded, then each output against refs (PyTorch's arrays): the
    dims it reports are the reference's shape, its values the reference's
    within 1e-4 of the output's scale (integers exactly), zeros after them
    up to the bound. Returns the reported shapes (None on a failure already
    reported)."""
    got = run_bounded(label, out, name, inputs)
    if got is None:
        return None
    vals, dims = got
    shapes = []
    for k, (v, ref) in enumerate(zip(vals, refs)):
        ref = np.asarray(ref)
        shape = tuple(int(d) for d in dims[k][:ref.ndim])
        shapes.append(shape)
        n = int(np.prod(shape)) if shape else 1
        if shape != ref.shape or v[n:].any():
            fail("%s: output %d: dims %s (want %s), %d nonzero values past them" %
                 (label, k, shape, ref.shape, int(np.count_nonzero(v[n:]))))
        elif np.issubdtype(ref.dtype, np.integer) or ref.dtype == bool:
            if not np.array_equal(v[:n].reshape(shape), ref):
                fail("%s: output %d differs from PyTorch's" % (label, k))
        else:
            compare("%s output %d %s" % (label, k, list(shape)), v[:n].astype(np.float32), ref.ravel())
    return shapes


def size_as_data_model():
    """An ONNX model scaling x by the count of its positive values
    (NonZero -> Shape -> Gather -> Cast -> Mul): the size of a data-dependent
    value read as data, which generated C refuses. Returns its path."""
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph(
        [helper.make_node("Greater", ["x", "zero"], ["pos"]), helper.make_node("NonZero", ["pos"], ["nz"]),
         helper.make_node("Shape", ["nz"], ["nz_shape"]), helper.make_node("Gather", ["nz_shape", "one"], ["count"]),
         helper.make_node("Cast", ["count"], ["count_f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "count_f"], ["y"])], "size_as_data",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]), helper.make_tensor("one", TensorProto.INT64, [], [1])])
    path = os.path.join(WORK, "size_as_data.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def check_nms_post():
    """The coverage fixture nms_post (torch.jit.script: boxes[scores > 0.2],
    then `if boxes.numel() == 0: empty else: torchvision.ops.nms(...)`,
    then the kept rows) generates: the If becomes its else branch cut to
    no rows when nothing passes. Against torchvision on the fixture's
    inputs, a sample where no score passes and one where every score does."""
    try:
        import torch
        import torchvision
    except ImportError as e:
        fail("nms_post needs python3-torch and python3-torchvision: %s" % e)
        return

    def reference(boxes, scores, labels):
        b, s, lab = (torch.from_numpy(a) for a in (boxes, scores, labels))
        sel = s > 0.2
        b, s, lab = b[sel], s[sel], lab[sel]
        if b.numel() == 0:
            keep = torch.zeros(0, dtype=torch.long)
        else:
            keep = torchvision.ops.nms(b + (lab.to(b.dtype) * (b.max() + 1))[:, None], s, 0.5)
        return [b[keep].numpy(), s[keep].numpy(), lab[keep].numpy()]

    cov = os.path.join(DATA, "coverage")
    out = os.path.join(WORK, "nms_post")
    r = generate(os.path.join(cov, "nms_post.onnx"), out, "np")
    if r.returncode:
        fail("nms_post: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    base = [np.load(os.path.join(cov, "nms_post.input_%d.npy" % i)) for i in range(3)]
    if not all(np.array_equal(a, b) for a, b in zip(reference(*base), [
            np.load(os.path.join(cov, "nms_post.output_%d.npy" % k)) for k in range(3)])):
        fail("nms_post: the test's torchvision reference differs from the fixture's outputs")
    rng = np.random.default_rng(7)
    samples = [("fixture", base), ("none pass", [base[0], base[1] * np.float32(0.1), base[2]]),
               ("all pass", [base[0], (rng.random(20) * 0.7 + 0.25).astype(np.float32), base[2]])]
    for label, ins in samples:
        shapes = check_bounded("nms_post " + label, out, "np", ins, reference(*ins))
        print("nms_post %s: output dims %s" % (label, shapes))


def check_loop_over_rows():
    """Loops over the rows x[keep] selects (torch.cat in a scripted loop over sel.size(0), as
    torchvision writes its per-detection loops): the trip count is the data-dependent count, the body
    reads sel[i], and the growing result becomes a scan output. `rows`: one such loop; `chained`: a
    loop carrying a running sum (static) beside the rows it appends, then a second loop over the first
    one's rows; `minus1`: range(sel.size(0) - 1), no trip (not -1) when nothing is selected. Exported by torch at test time and checked against PyTorch on samples selecting some,
    no and every row; a body that also reads the whole selection (sel.sum(0)) is refused naming why."""
    try:
        import torch
    except ImportError as e:
        fail("loop_over_rows needs python3-torch: %s" % e)
        return

    @torch.jit._script_if_tracing
    def per_row(sel, w):
        out = torch.zeros(0, 4)
        for i in range(sel.size(0)):
            r = sel[i]
            out = torch.cat((out, (r * w + r.sum()).unsqueeze(0)))
        return out

    @torch.jit._script_if_tracing
    def per_row_whole(sel, w):
        out = torch.zeros(0, 4)
        for i in range(sel.size(0)):
            out = torch.cat((out, (sel[i] * w + sel.sum(0)).unsqueeze(0)))
        return out

    @torch.jit._script_if_tracing
    def running_sum(sel, w):
        out = torch.zeros(0, 4)
        acc = torch.zeros(4)
        for i in range(sel.size(0)):
            acc = acc + sel[i]
            out = torch.cat((out, (acc * w).unsqueeze(0)))
        return out, acc

    @torch.jit._script_if_tracing
    def all_but_one(sel, w):
        out = torch.zeros(0, 4)
        for i in range(sel.size(0) - 1):
            out = torch.cat((out, (w * float(i)).unsqueeze(0)))
        return out

    @torch.jit._script_if_tracing
    def max_min(rows):
        out = torch.zeros(0, 2)
        for i in range(rows.size(0)):
            r = rows[i]
            out = torch.cat((out, torch.stack((r.max(), r.min())).unsqueeze(0)))
        return out

    class PerRow(torch.nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.kind = kind
            self.w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5, 3.0]))

        def forward(self, x):
            sel = x[x[:, 0] > 0]
            if self.kind == "chained":
                rows, acc = running_sum(sel, self.w)
                return max_min(rows) * 2, acc
            if self.kind == "minus1":
                return all_but_one(sel, self.w), sel.sum(1)
            return (per_row_whole if self.kind == "whole" else per_row)(sel, self.w), sel.sum(1)

    for kind in ("rows", "chained", "minus1", "whole"):
        model = PerRow(kind).eval()
        path = os.path.join(WORK, "loop_over_%s.onnx" % kind)
        torch.onnx.export(model, (torch.randn(8, 4),), path, opset_version=17, input_names=["x"])
        out = os.path.join(WORK, "loop_over_" + kind)
        r = generate(path, out, "lr")
        if kind == "whole":
            expect_refused("loop_over_whole", r, out, ["(Loop)", "other than as the row at the trip number"])
            continue
        if r.returncode:
            fail("loop_over_%s: codegen exited %d: %s" % (kind, r.returncode, r.stdout))
            continue
        rng = np.random.default_rng(1)
        x = rng.standard_normal((8, 4)).astype(np.float32)
        for label, xs in (("some", x), ("none", -np.abs(x)), ("every", np.abs(x) + 0.1)):
            with torch.no_grad():
                refs = [t.numpy() for t in model(torch.from_numpy(xs))]
            shapes = check_bounded("loop_over_%s %s" % (kind, label), out, "lr", [xs], refs)
            print("loop_over_%s %s: output dims %s" % (kind, label, shapes))


def check_paste_masks():
    """torchvision's mask pasting (roi_heads.paste_masks_in_image, as Mask
    R-CNN's export runs it: a Loop over the selected detections whose body
    resizes each 28x28 mask to its box's size, read from the box, slices it
    by the part inside the image and pads it to the image with zeros of
    data-dependent sizes). The boxes are clipped to the image first (as the
    detection heads do), which bounds every size the body reads: `clipped`
    generates and, on samples selecting some, no and every detection (boxes
    at the edges, tiny, larger than half the image; an image of 40 x 56 so
    that rows and columns differ), gives PyTorch's own run of the same
    pasting loop; `unclipped` (the boxes straight from the input) is
    refused, exit 3, saying that a size read from data has no range."""
    try:
        import torch
        from torchvision.models.detection import roi_heads
        from torchvision.ops import boxes as box_ops
    except ImportError as e:
        fail("paste_masks needs python3-torch and python3-torchvision: %s" % e)
        return
    H, W = 40, 56

    class Paste(torch.nn.Module):
        def __init__(self, clip):
            super().__init__()
            self.clip = clip

        def forward(self, masks, boxes, scores):
            keep = scores > 0
            b = boxes[keep]
            if self.clip:
                b = box_ops.clip_boxes_to_image(b, (H, W))
            return roi_heads.paste_masks_in_image(masks[keep], b, (H, W), padding=1)

    def reference(masks, boxes, scores):  # the exported loop's own code, run by PyTorch
        keep = scores > 0
        m, scale = roi_heads.expand_masks(masks[keep], padding=1)
        b = roi_heads.expand_boxes(box_ops.clip_boxes_to_image(boxes[keep], (H, W)), scale).to(torch.int64)
        return roi_heads._onnx_paste_masks_in_image_loop(m, b, torch.scalar_tensor(H, dtype=torch.int64),
                                                         torch.scalar_tensor(W, dtype=torch.int64))[:, None]

    rng = np.random.default_rng(7)
    masks = rng.random((6, 1, 28, 28)).astype(np.float32)
    boxes = np.array([[-5, -3, 20, 12], [30, 25, 70, 50], [10, 10, 10.4, 10.3], [0, 0, 56, 40],
                      [50, 2, 55.9, 39.9], [3.5, 17.2, 31.7, 33.1]], np.float32)
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], np.float32)
    for clip in (True, False):
        kind = "clipped" if clip else "unclipped"
        path = os.path.join(WORK, "paste_%s.onnx" % kind)
        ex = tuple(torch.from_numpy(a) for a in (masks, boxes, scores))
        torch.onnx.export(Paste(clip).eval(), ex, path, opset_version=17, input_names=["masks", "boxes", "scores"])
        out = os.path.join(WORK, "paste_" + kind)
        r = generate(path, out, "pm")
        if not clip:
            expect_refused("paste_unclipped", r, out, ["(Loop)", "no range"])
            continue
        if r.returncode:
            fail("paste_%s: codegen exited %d: %s" % (kind, r.returncode, r.stdout))
            continue
        for label, sc in (("some", scores * np.array([1, -1, 1, 1, -1, 1], np.float32)), ("none", -scores),
                          ("every", scores)):
            with torch.no_grad():
                ref = reference(*(torch.from_numpy(a) for a in (masks, boxes, sc))).numpy()
            shapes = check_bounded("paste_%s %s" % (kind, label), out, "pm", [masks, boxes, sc], [ref])
            print("paste_%s %s: output dims %s" % (kind, label, shapes))


def check_loop_sizes_arith():
    """A loop over detections whose body takes sizes and a start from its
    box by integer division and remainder (h = (y1 - y0) // 2 + 1, w = (x1 -
    x0) % 7 + 2, a column start x0 % 3), resizes its mask to them (nearest),
    slices from that start and pads to 24 x 24 with zeros sized from the
    slice's own shape: values the generator cannot follow as expressions,
    read at run time instead and bounded by their ranges. Exported by torch
    at test time; checked against PyTorch running the same function, on
    samples selecting some, no and every detection."""
    try:
        import torch
    except ImportError as e:
        fail("loop_sizes_arith needs python3-torch: %s" % e)
        return

    @torch.jit._script_if_tracing
    def paste_arith(masks, boxes):
        res = torch.zeros(0, 24, 24)
        one = torch.ones(1, dtype=torch.int64)
        for i in range(masks.size(0)):
            b = boxes[i]
            h = torch.max(torch.cat((((b[3] - b[1]) // 2 + 1).unsqueeze(0), one)))
            w = torch.max(torch.cat((((b[2] - b[0]) % 7 + 2).unsqueeze(0), one)))
            m = torch.nn.functional.interpolate(masks[i][None], size=(int(h), int(w)), mode="nearest")[0, 0]
            m = m[:, b[0] % 3:]
            m = torch.cat((m, torch.zeros(m.size(0), 24 - m.size(1))), 1)
            m = torch.cat((m, torch.zeros(24 - m.size(0), 24)), 0)
            res = torch.cat((res, m.unsqueeze(0)))
        return res

    class Arith(torch.nn.Module):
        def forward(self, masks, boxes, scores):
            keep = scores > 0
            return paste_arith(masks[keep], boxes[keep].clamp(0, 40).to(torch.int64))

    rng = np.random.default_rng(11)
    masks = rng.random((5, 1, 14, 14)).astype(np.float32)
    boxes = np.array([[0, 0, 40, 40], [3, 5, 9, 30], [17, 2, 18, 3], [-4, 39, 50, 60], [6, 6, 6, 6]], np.float32)
    scores = np.ones(5, np.float32)
    model = Arith().eval()
    path = os.path.join(WORK, "loop_sizes_arith.onnx")
    torch.onnx.export(model, tuple(torch.from_numpy(a) for a in (masks, boxes, scores)), path, opset_version=17,
                      input_names=["masks", "boxes", "scores"])
    out = os.path.join(WORK, "loop_sizes_arith")
    r = generate(path, out, "la")
    if r.returncode:
        fail("loop_sizes_arith: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    for label, sc in (("some", scores * np.array([1, -1, 1, 1, -1], np.float32)), ("none", -scores),
                      ("every", scores)):
        with torch.no_grad():
            ref = model(*(torch.from_numpy(a) for a in (masks, boxes, sc))).numpy()
        shapes = check_bounded("loop_sizes_arith %s" % label, out, "la", [masks, boxes, sc], [ref])
        print("loop_sizes_arith %s: output dims %s" % (label, shapes))


def check_size_from_values():
    """A model whose output size is read from its input's values, not from a
    NonZero's count: y = x[:, :n] * 2 with n = clamp(4 x[0, 0], 0, 6) as
    int64 (ONNX Slice to a computed end), exported by torch; also x[:, n:]
    (from a computed start to the end: torch's end is INT64_MAX), its row
    sums, and x's row means. Generated C gives the outputs room for the
    most the clamp allows and reports the actual dims; checked against
    PyTorch on samples giving 1, 0, 6 (8 clamped) and 4 columns, and one
    whose sums are +inf (an inf, and two 3e38 that overflow float); there
    x's row means are numpy's double means: the row with the two 3e38 has
    a finite mean (7.5e37) that PyTorch's float sum loses to +inf, and
    generated C sums in double as nnfx run does.
    Unclamped (n = 4 x[0, 0]), it has no range and is refused, exit 3,
    nothing written."""
    try:
        import torch
    except ImportError as e:
        fail("size_from_values needs python3-torch: %s" % e)
        return

    class Cols(torch.nn.Module):
        def __init__(self, clamp):
            super().__init__()
            self.clamp = clamp

        def forward(self, x):
            v = x[0, 0] * 4
            n = (torch.clamp(v, 0, 6) if self.clamp else v).long()
            return x[:, :n] * 2, x[:, n:] - 1, x[:, n:].sum(1), x.mean(1)

    rng = np.random.default_rng(5)
    for clamp in (True, False):
        kind = "clamped" if clamp else "unclamped"
        model = Cols(clamp).eval()
        path = os.path.join(WORK, "size_from_values_%s.onnx" % kind)
        torch.onnx.export(model, (torch.randn(4, 8),), path, opset_version=17, input_names=["x"])
        out = os.path.join(WORK, "size_from_values_" + kind)
        r = generate(path, out, "sv")
        if not clamp:
            expect_refused("size_from_values_unclamped", r, out, ["(Slice)", "no range"])
            continue
        if r.returncode:
            fail("size_from_values: codegen exited %d: %s" % (r.returncode, r.stdout))
            continue
        for v in (0.3, -1.0, 2.0, 1.1, "inf"):
            x = rng.standard_normal((4, 8)).astype(np.float32)
            x[0, 0] = 1.1 if v == "inf" else v
            if v == "inf":
                x[1, 7], x[2, 6], x[2, 7] = np.inf, 3e38, 3e38
            with torch.no_grad():
                refs = [t.numpy() for t in model(torch.from_numpy(x))]
            if v == "inf" and not (np.isposinf(refs[2][1:3]).all() and np.isposinf(refs[3][1:3]).all()):
                fail("size_from_values: PyTorch's sums are not +inf where the sample makes them so")
            if v == "inf":  # the exact means: +inf for the row with an inf, finite for the one with 3e38 twice
                refs[3] = x.astype(np.float64).mean(1).astype(np.float32)
                if not (np.isposinf(refs[3][1]) and np.isfinite(refs[3][2])):
                    fail("size_from_values: numpy's double means are not +inf, finite for rows 1, 2")
            shapes = check_bounded("size_from_values x00=%s" % v, out, "sv", [x], refs)
            print("size_from_values x00=%s: output dims %s" % (v, shapes))


def bounded_vs_ort(label, sample, ort_model, out, name, ranks):
    """Runs the generated C in out (a model with outputs sized by the data)
    on sample (an .npy input), writes each output over the dims it reports
    (ranks: each output's rank) and has ONNX Runtime compare ort_model's
    first outputs with them (tests/ort/ort_check.js). Returns the reported
    shapes, None on a failure already reported, or "skip" (said why)
    without node or onnxruntime-node."""
    got = run_bounded(label, out, name, [np.load(sample)])
    if got is None:
        return None
    vals, dims = got
    refs, shapes = [], []
    for k, rank in enumerate(ranks):
        shape = tuple(int(d) for d in dims[k][:rank])
        shapes.append(shape)
        v = vals[k][:int(np.prod(shape))].reshape(shape)
        path = os.path.join(out, "%s_out%d.npy" % (label.replace(" ", "_"), k))
        np.save(path, v if v.dtype in (np.float32, np.int64) else v.astype(np.float32))  # what ort_check reads
        refs += ["--ref", path]
    try:
        r = run(["node", os.path.join(SRC, "tests", "ort", "ort_check.js"), ort_model, "--in", sample] + refs)
    except OSError as e:
        print("%s: skipped, node is missing: %s" % (label, e))
        return "skip"
    said = [line for line in r.stdout.splitlines() if "VerifyOutputSizes" not in line]  # a Loop's own shapes
    print("%s: %d rows; ONNX Runtime: %s" % (label, shapes[0][0], "\n  ".join(said)))
    if r.returncode == 77:
        print("%s: skipped against ONNX Runtime (onnxruntime-node is not installed)" % label)
        return "skip"
    if r.returncode:
        fail("%s: the generated C's outputs differ from ONNX Runtime's" % label)
    return shapes


def check_frcnn_ort():
    """torchvision's Faster R-CNN on a two-conv backbone (detect_frcnn:
    RPN, RoIAlign of the proposals per level through Range, Expand and
    ScatterElements, a box head, per-class post-processing). Its ONNX export
    does not give eager PyTorch's detections (ONNX Runtime and nnfx's
    interpreter agree with each other, not with PyTorch), so the generated
    C's detections (dims as reported) are checked against ONNX Runtime
    on both samples. Skipped, saying so, without node or onnxruntime-node."""
    model = os.path.join(DATA, "split_plan", "detect_frcnn.onnx")
    out = os.path.join(WORK, "bounded_detect_frcnn")
    r = generate(model, out, "fr")
    if r.returncode:
        fail("detect_frcnn: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    for j in (0, 1):
        sample = os.path.join(DATA, "split_plan", "detect_frcnn.s%d.in0.npy" % j)
        if bounded_vs_ort("detect_frcnn s%d" % j, sample, model, out, "fr", (2, 1, 1)) == "skip":
            return


def check_mrcnn_ort():
    """torchvision's Mask R-CNN on a two-conv backbone (detect_mrcnn): its
    masks are pasted into the image by a Loop over the detections whose
    body resizes each mask to its box's size, read from the box (data), then
    slices and pads it to the image by data-dependent amounts. Generated C
    sizes those values by the range interval analysis finds for the box
    coordinates and checks the actual sizes at run time; its boxes, scores,
    labels and pasted masks (dims as reported) are checked against ONNX
    Runtime's on both samples, one row per detection. Skipped, saying so,
    without node or onnxruntime-node."""
    model = os.path.join(DATA, "split_plan", "detect_mrcnn.onnx")
    out = os.path.join(WORK, "bounded_detect_mrcnn")
    r = generate(model, out, "mr")
    if r.returncode:
        fail("detect_mrcnn: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    for j in (0, 1):
        sample = os.path.join(DATA, "split_plan", "detect_mrcnn.s%d.in0.npy" % j)
        shapes = bounded_vs_ort("detect_mrcnn s%d" % j, sample, model, out, "mr", (2, 1, 1, 4))
        if shapes == "skip":
            return
        if shapes and any(sh[0] != shapes[0][0] for sh in shapes):
            fail("detect_mrcnn s%d: outputs of %s rows, not one per detection" % (j, [sh[0] for sh in shapes]))


def check_krcnn_ort():
    """torchvision's Keypoint R-CNN on a two-conv backbone (detect_krcnn):
    its Loop over the detections resizes each box's heatmaps (bicubic) to
    the box's size read from data, flattens them (the valid values compacted
    to the front) and takes the arg-max, whose position it divides by the
    width read as data; the carried keypoints and scores it grows by
    torch.cat become scan outputs once the bounds make their shapes static.
    The generated C's boxes, scores, labels and keypoint scores (dims as
    reported) are checked against ONNX Runtime's on both samples, and so are
    the keypoints, where a keypoint may differ only where its score (the
    heatmap's maximum) equals ONNX Runtime's: a tie. (A box two rows high
    resized from 56 rows gives two equal rows; generated C and the
    interpreter take the first, as ArgMax does, and ONNX Runtime's bicubic
    rows differ in their last bit.) Skipped, saying so, without node or
    onnxruntime-node."""
    model = os.path.join(DATA, "split_plan", "detect_krcnn.onnx")
    out = os.path.join(WORK, "bounded_detect_krcnn")
    r = generate(model, out, "kr")
    if r.returncode:
        fail("detect_krcnn: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    for j in (0, 1):
        label = "detect_krcnn s%d" % j
        sample = os.path.join(DATA, "split_plan", "detect_krcnn.s%d.in0.npy" % j)
        got = run_bounded(label, out, "kr", [np.load(sample)])
        if got is None:
            continue
        vals, dims = got
        outs = []
        for k, rank in enumerate((2, 1, 1, 3, 2)):
            shape = tuple(int(d) for d in dims[k][:rank])
            outs.append(vals[k][:int(np.prod(shape))].reshape(shape))
            np.save(os.path.join(out, "s%d_out%d.npy" % (j, k)), outs[-1].astype(np.float32))
        refs = sum((["--ref", os.path.join(out, "s%d_out%d.npy" % (j, k))] for k in range(3)), [])
        try:
            r = run(["node", os.path.join(SRC, "tests", "ort", "ort_check.js"), model, "--in", sample, "--save", out] + refs)
        except OSError as e:
            print("%s: skipped, node is missing: %s" % (label, e))
            return
        if r.returncode == 77:
            print("%s: skipped against ONNX Runtime (onnxruntime-node is not installed)" % label)
            return
        said = [line for line in r.stdout.splitlines() if "VerifyOutputSizes" not in line]
        print("%s: %d rows; ONNX Runtime: %s" % (label, outs[0].shape[0], "\n  ".join(said)))
        if r.returncode:
            fail("%s: the generated C's boxes, scores or labels differ from ONNX Runtime's" % label)
            continue
        kp, kps = np.load(os.path.join(out, "ort_out3.npy")), np.load(os.path.join(out, "ort_out4.npy"))
        if kp.shape != outs[3].shape or kps.shape != outs[4].shape:
            fail("%s: keypoints of dims %s and %s, ONNX Runtime's %s and %s" %
                 (label, outs[3].shape, outs[4].shape, kp.shape, kps.shape))
            continue
        compare("%s keypoint scores" % label, outs[4].ravel(), kps.ravel())
        tol = 1e-4 * max(np.abs(kp).max(), 1e-6)
        moved = np.abs(outs[3] - kp).max(axis=2) > tol
        ties = moved & (np.abs(outs[4] - kps) <= 1e-4 * max(np.abs(kps).max(), 1e-6))
        if (moved & ~ties).any():
            fail("%s: %d keypoints differ from ONNX Runtime's where their scores differ too" %
                 (label, int((moved & ~ties).sum())))
        else:
            print("%s: %d keypoints as ONNX Runtime's, %d at a tied maximum" %
                  (label, int((~moved).sum()), int(ties.sum())))


def positive_values_model(name, tail, outputs, inits):
    """Saves WORK/name.onnx: input x [8] float32, vals = x[x > 0] (Greater,
    NonZero, Transpose, GatherND: a count known at run time), then the
    nodes tail reading vals (and inits); outputs: (name, shape) pairs,
    float32. Returns its path."""
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph(
        [helper.make_node("Greater", ["x", "zero"], ["pos"]), helper.make_node("NonZero", ["pos"], ["nz"]),
         helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
         helper.make_node("GatherND", ["x", "idx"], ["vals"])] + tail, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, shape) for o, shape in outputs],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])] + inits)
    path = os.path.join(WORK, name + ".onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def save_and_generate(label, nodes, inputs, outputs, name):
    """Saves WORK/label.onnx, a graph of nodes whose inputs and outputs are
    (name, ONNX type, shape) triples (opset 17), and generates its C into
    WORK/label as NAME. Returns (model path, out dir), or None after
    reporting a codegen failure."""
    import onnx
    from onnx import helper
    g = helper.make_graph(nodes, label, [helper.make_tensor_value_info(*v) for v in inputs],
                          [helper.make_tensor_value_info(*v) for v in outputs])
    path, out = os.path.join(WORK, label + ".onnx"), os.path.join(WORK, label)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    r = generate(path, out, name)
    if r.returncode:
        fail("%s: codegen exited %d: %s" % (label, r.returncode, r.stdout))
        return None
    return path, out


def nnfx_run_named(path, out, named):
    """nnfx run on model path with named inputs ((name, array) pairs, saved
    as out/NAME.npy), its outputs into out/runtime. Returns its process."""
    args = []
    for nm, v in named:
        np.save(os.path.join(out, nm + ".npy"), v)
        args += ["--input", "%s=%s" % (nm, os.path.join(out, nm + ".npy"))]
    return run([NNFX, "run", path, "-q", "--output-dir", os.path.join(out, "runtime")] + args)


def expect_run_refused(label, out, name, inputs, words):
    """Runs the program already built in out once on inputs (arrays, written
    in their own types): NAME_run must return 2 (the harness exits 3), as
    the interpreter refuses them, and NAME.h's comments must say so (words).
    Returns the program's exit status."""
    files = write_inputs(out, inputs, [np.asarray(a).dtype for a in inputs])
    r = run([os.path.join(out, "run"), "1"] + files + [os.path.join(out, "refused_out.bin")])
    doc = header_says(out, name, words)
    print("%s: program exit %d, header documents 2: %s" % (label, r.returncode, doc))
    if r.returncode != 3 or not doc:
        fail("%s: %s_run must return 2 (documented); exit %d" % (label, name, r.returncode))
    return r.returncode


def check_topk_past_count():
    """x[x > 0].topk(3): a constant K along a data-dependent dim. With five
    positive values the three largest (against numpy); with two, fewer
    than K, the interpreter refuses and NAME_run returns 2 (the harness
    exits 3), the header saying when it may."""
    from onnx import TensorProto, helper
    path = positive_values_model("topk_count", [helper.make_node("TopK", ["vals", "k"], ["top", "top_i"], axis=0)],
                                 [("top", [3])], [helper.make_tensor("k", TensorProto.INT64, [1], [3])])
    out = os.path.join(WORK, "topk_count")
    r = generate(path, out, "tk")
    if r.returncode:
        fail("topk_count: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    x = np.array([0.5, -1.0, 2.5, 0.25, -0.5, 4.0, 1.5, -2.0], np.float32)
    got = build_and_run(out, "tk", [x[None]], 1)
    if got is not None:
        compare("topk_count", got[0], np.sort(x[x > 0])[::-1][:3].copy())
    expect_run_refused("topk_count with 2 values for K=3", out, "tk",
                       [np.array([[0.5, -1.0, -2.5, -0.25, -0.5, 4.0, -1.5, -2.0]], np.float32)],
                       "a TopK's K past the values along a data-dependent")


def check_cumsum_count():
    """CumSum along a data-dependent dim (x[x > 0]): forward, exclusive and
    reversed (which reads past the count, so its padding is zeroed first),
    on two samples keeping 5 and 1 values, against numpy."""
    from onnx import TensorProto, helper
    path = positive_values_model("cumsum_count", [
        helper.make_node("CumSum", ["vals", "ax"], ["y0"]),
        helper.make_node("CumSum", ["vals", "ax"], ["y1"], exclusive=1),
        helper.make_node("CumSum", ["vals", "ax"], ["y2"], reverse=1)],
        [("y%d" % k, [None]) for k in range(3)], [helper.make_tensor("ax", TensorProto.INT32, [], [0])])
    out = os.path.join(WORK, "cumsum_count")
    r = generate(path, out, "cs")
    if r.returncode:
        fail("cumsum_count: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    for x in (np.array([0.5, -1.0, 2.5, 0.25, -0.5, 4.0, 1.5, -2.0], np.float32),
              np.array([-0.5, -1.0, -2.5, -0.25, 3.0, -4.0, -1.5, -2.0], np.float32)):
        v = x[x > 0].astype(np.float64)
        refs = [np.cumsum(v), np.cumsum(v) - v, np.cumsum(v[::-1])[::-1]]
        shapes = check_bounded("cumsum_count", out, "cs", [x], [r_.astype(np.float32) for r_ in refs])
        print("cumsum_count: %d values kept, output dims %s" % (len(v), shapes))


def check_cumsum_axis_input():
    """CumSum of float32 values along an axis given as a model input: along
    axis 1 and -2 against numpy; an axis out of range makes NAME_run return
    2 (the harness exits 3), as the interpreter refuses it."""
    from onnx import TensorProto, helper
    made = save_and_generate("cumsum_axis", [helper.make_node("CumSum", ["x", "a"], ["y"])],
                             [("x", TensorProto.FLOAT, [3, 4]), ("a", TensorProto.INT64, [])],
                             [("y", TensorProto.FLOAT, [3, 4])], "ca")
    if not made:
        return
    out = made[1]
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    for axis in (1, -2):
        got = build_and_run(out, "ca", [x[None], np.array([axis], np.int64)], 1)
        if got is not None:
            compare("cumsum_axis %d" % axis, got[0], np.cumsum(x.astype(np.float64), axis=axis).ravel())
    expect_run_refused("cumsum_axis with axis 5", out, "ca", [x[None], np.array([5], np.int64)],
                       "a CumSum axis read at run time out of range")


def check_dropout_inputs():
    """Dropout whose ratio and training_mode are model inputs: the data and
    a mask of ones (against numpy) for ratio 0 in training mode and ratio
    0.5 out of it; training mode with ratio 0.5 draws random masks, which
    the interpreter refuses (nnfx run exits 3) and NAME_run returns 2 for
    (the harness exits 3)."""
    from onnx import TensorProto, helper
    made = save_and_generate("dropout_inputs", [helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"])],
                             [("x", TensorProto.FLOAT, [2, 3]), ("r", TensorProto.FLOAT, []),
                              ("t", TensorProto.BOOL, [])],
                             [("y", TensorProto.FLOAT, [2, 3]), ("mask", TensorProto.BOOL, [2, 3])], "di")
    if not made:
        return
    path, out = made
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    for ratio, training in ((0.0, True), (0.5, False)):
        got = build_and_run(out, "di", [x[None], np.array([ratio], np.float32), np.array([training])], 1)
        if got is not None:
            compare("dropout_inputs ratio %g training %s" % (ratio, training), got[0],
                    np.concatenate([x.ravel(), np.ones(6, np.float32)]))
    expect_run_refused("dropout_inputs in training mode with ratio 0.5", out, "di",
                       [x[None], np.array([0.5], np.float32), np.array([True])],
                       "a Dropout in training mode with a ratio other than 0")
    rr = nnfx_run_named(path, out, [("x", x), ("r", np.array(0.5, np.float32)), ("t", np.array(True))])
    print("dropout_inputs in training mode with ratio 0.5: nnfx run exit %d" % rr.returncode)
    if rr.returncode != 3:
        fail("dropout_inputs: nnfx run must refuse training mode with ratio 0.5 (exit 3); exit %d" % rr.returncode)


def check_uint64():
    """uint64 inputs and outputs: BitShift exact past 2^63 (the bits), Max
    and Mod in double as the interpreter (exact below 2^53), against numpy;
    and nnfx run on the same model. A uint64 Add (the interpreter has
    none) is refused, exit 3."""
    import onnx
    from onnx import TensorProto, helper
    u64 = TensorProto.UINT64
    made = save_and_generate("uint64_ops", [helper.make_node("BitShift", ["x", "s"], ["y0"], direction="RIGHT"),
                                            helper.make_node("BitShift", ["x", "s"], ["y1"], direction="LEFT"),
                                            helper.make_node("Max", ["s", "z"], ["y2"]),
                                            helper.make_node("Mod", ["z", "s"], ["y3"])],
                             [(n, u64, [4]) for n in "xsz"], [("y%d" % k, u64, [4]) for k in range(4)], "u6")
    if not made:
        return
    path, out = made
    x = np.array([2**64 - 1, 2**63 + 5, 12345, 1], np.uint64)
    sh = np.array([1, 4, 63, 64], np.uint64)
    z = np.array([7, 2**52 + 3, 0, 9], np.uint64)
    want = [x >> np.minimum(sh, 63) * (sh < 64), x << np.minimum(sh, 63) * (sh < 64), np.maximum(sh, z), z % sh]
    want[0][sh >= 64] = 0
    want[1][sh >= 64] = 0
    built = build_program(out, "u6")
    if isinstance(built, str):
        fail("uint64_ops: %s" % built)
        return
    files = write_inputs(out, [x, sh, z], built[0])
    r = run([os.path.join(out, "run"), "1"] + files + [os.path.join(out, "out.bin")])
    got = np.fromfile(os.path.join(out, "out.bin"), np.uint64)[:16].reshape(4, 4) if not r.returncode else None
    rr = nnfx_run_named(path, out, [("x", x), ("s", sh), ("z", z)])
    rt = [np.load(os.path.join(out, "runtime", "y%d.npy" % k)) for k in range(4)] if not rr.returncode else None
    ok = got is not None and rt is not None and all(np.array_equal(got[k], want[k]) and np.array_equal(rt[k], want[k])
                                                    for k in range(4))
    print("uint64_ops: BitShift past 2^63, Max, Mod: generated C and nnfx run %s numpy's" % ("equal" if ok else "DIFFER"))
    if not ok:
        fail("uint64_ops: want %s; generated C %s, nnfx run %s" % (want, got, rt))
    g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "uint64_add",
                          [helper.make_tensor_value_info("x", u64, [4])], [helper.make_tensor_value_info("y", u64, [4])])
    path = os.path.join(WORK, "uint64_add.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    expect_refused("uint64_add", generate(path, os.path.join(WORK, "uint64_add"), "ua"), os.path.join(WORK, "uint64_add"),
                   ["on uint64 values only"])


def check_index_range():
    """Indices read at run time by Gather, GatherND, GatherElements and
    ScatterElements: in range (3 and -3), the generated C against numpy;
    one out of range (4), as the interpreter refuses it: NAME_run returns 2
    (documented) and nnfx run exits 3."""
    from onnx import TensorProto, helper
    import onnx
    from onnx import numpy_helper
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    g = helper.make_graph([
        helper.make_node("Gather", ["x", "i"], ["y0"], axis=0),
        helper.make_node("Reshape", ["i", "col"], ["ic"]),
        helper.make_node("GatherND", ["x", "ic"], ["y1"]),
        helper.make_node("Expand", ["ic", "wide"], ["iw"]),
        helper.make_node("GatherElements", ["x", "iw"], ["y2"], axis=0),
        helper.make_node("Add", ["y2", "y2"], ["u"]),
        helper.make_node("ScatterElements", ["x", "iw", "u"], ["y3"], axis=0)], "index_range",
        [helper.make_tensor_value_info("x", f32, [4, 3]), helper.make_tensor_value_info("i", i64, [2])],
        [helper.make_tensor_value_info(n, f32, sh) for n, sh in (("y0", [2, 3]), ("y1", [2, 3]), ("y2", [2, 3]),
                                                                 ("y3", [4, 3]))],
        [numpy_helper.from_array(np.array([2, 1], np.int64), "col"),
         numpy_helper.from_array(np.array([2, 3], np.int64), "wide")])
    path, out = os.path.join(WORK, "index_range.onnx"), os.path.join(WORK, "index_range")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    r = generate(path, out, "ir")
    if r.returncode:
        fail("index_range: codegen exited %d: %s" % (r.returncode, r.stdout))
        return
    x = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    i = np.array([3, -3], np.int64)
    iw = np.broadcast_to(i.reshape(2, 1) % 4, (2, 3))
    y3 = x.copy()
    y3[iw, np.arange(3)[None, :]] = 2 * np.take_along_axis(x, iw, 0)
    got = build_and_run(out, "ir", [x[None], i[None]], 1)
    if got is not None:
        compare("index_range", got[0], np.concatenate([x[i].ravel(), x[i].ravel(), np.take_along_axis(x, iw, 0).ravel(),
                                                       y3.ravel()]))
    bad = np.array([4, 0], np.int64)
    expect_run_refused("index_range with index 4 of 4", out, "ir", [x, bad], "GatherND, ScatterElements")
    rr = nnfx_run_named(path, out, [("x", x), ("i", bad)])
    print("index_range: nnfx run on index 4 exits %d" % rr.returncode)
    if rr.returncode != 3:
        fail("index_range: nnfx run on an index out of range exited %d, want 3" % rr.returncode)


def check_dynamic_quantize():
    """DynamicQuantizeLinear computes its scale at run time: against the ONNX
    reference's formula in numpy; NAME_run returns 2 (the harness exits 3)
    for an input holding NaN, which no scale fits (the interpreter refuses
    it too)."""
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError as e:
        fail("DynamicQuantizeLinear needs python3-onnx: %s" % e)
        return
    g = helper.make_graph([helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "ys", "yz"])], "dql",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [2, 5]),
                           helper.make_tensor_value_info("ys", TensorProto.FLOAT, []),
                           helper.make_tensor_value_info("yz", TensorProto.UINT8, [])])
    path, out = os.path.join(WORK, "dql.onnx"), os.path.join(WORK, "dql")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    x = np.array([[-1.5, 0.25, 3.0, -0.75, 2.5], [1.0, -0.5, 0.0, 4.25, -2.0]], np.float32)
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = np.float32((np.float32(hi) - np.float32(lo)) / np.float32(255))
    zp = np.float32(np.rint(np.clip(np.float32(0) - np.float32(lo) / scale, 0, 255)))
    want = np.clip(np.rint(x / scale) + zp, 0, 255)
    r = generate(path, out, "dql")
    if r.returncode:
        fail("dql: codegen exited %d: %s" % (r.returncode, r.stdout))
    else:
        got = build_and_run(out, "dql", [x[None]], 1)
        if got is not None:
            compare("dynamic_quantize", got[0], np.concatenate([want.ravel(), [scale, zp]]).astype(np.float32))
        np.full((1, 2, 5), np.nan, np.float32).tofile(os.path.join(out, "nan.bin"))
        r = run([os.path.join(out, "run"), "1", os.path.join(out, "nan.bin"), os.path.join(out, "nan_out.bin")])
        doc = "2 when an op meets values the interpreter refuses too: a DynamicQuantizeLinear of NaN" in \
            open(os.path.join(out, "dql.h")).read()
        print("dynamic_quantize NaN input: program exit %d, header documents 2: %s" % (r.returncode, doc))
        if r.returncode != 3 or not doc:
            fail("dql: a NaN input must make dql_run return 2 (documented); the program exited %d" % r.returncode)


def compare(label, got, ref):
    """got within 1e-4 of the output's scale of ref; exactly when ref holds
    integers (quantized or integer outputs)."""
    exact = np.issubdtype(np.asarray(ref).dtype, np.integer)
    ref = ref.reshape(got.shape).astype(np.float32)
    nan = np.isnan(ref)  # NaN where the reference has NaN, numbers elsewhere
    if not np.array_equal(np.isnan(got), nan):
        fail("%s: NaN at %d places, the reference at %d" % (label, int(np.isnan(got).sum()), int(nan.sum())))
    inf = np.isinf(ref)  # the same infinities, signs too
    if not np.array_equal(np.isinf(got), inf) or not np.array_equal(got[inf], ref[inf]):
        fail("%s: infinities at %d places, the reference's at %d" % (label, int(np.isinf(got).sum()), int(inf.sum())))
    got, ref = np.where(nan | inf, 0, got), np.where(nan | inf, 0, ref)
    scale = float(np.max(np.abs(ref), initial=0)) or 1.0
    err = float(np.max(np.abs(got - ref), initial=0))
    bound = 0.0 if exact else 1e-4 * scale
    ok = err <= bound
    print("%-22s max|diff| %.3g (scale %.3g, bound %.3g) %s" % (label, err, scale, bound, "ok" if ok else "FAIL"))
    if not ok:
        fail("%s: max|diff| %g > %g" % (label, err, bound))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    # 1. committed real-model fixtures (static shapes, one sample each)
    # (tiny_vit*: a qkv Split of attention; qkv_attention: a qkv Split of the last axis and an uneven one,
    # tests/data/split_plan/make_models.py)
    rm = os.path.join(DATA, "real_models")
    sp = os.path.join(DATA, "split_plan")
    fixtures = [(m, os.path.join(rm, m + ".onnx"), os.path.join(rm, m + ".input_0.npy"),
                 os.path.join(rm, m + ".output_0.npy"))
                for m in ["tiny_cnn", "mini_resnet", "mini_squeezenet", "mobile_blocks", "tiny_vit", "tiny_vit_opset13"]]
    fixtures.append(("qkv_attention", os.path.join(sp, "qkv_attention.onnx"), os.path.join(sp, "qkv_attention.s0.in0.npy"),
                     os.path.join(sp, "qkv_attention.s0.out0.npy")))
    # the recurrent keyword spotters of the coverage tests (tests/data/coverage/make_models.py): a 2-layer
    # bidirectional GRU; a Conv1d front end, an LSTM and a bidirectional LSTM whose h is the second output;
    # attention written with torch.einsum (three Einsum equations); a 3-d conv net (grouped, dilated,
    # residual 3-d convs, 3-d max and average pooling); torch.jit.script'ed loops: over rows with an If per row
    # (ctrl_flow), and one whose body slices at the trip number and grows a carried value by a row per trip
    # (loop_slices: its shapes change from trip to trip, so generated C unrolls it); nn.EmbeddingBag(mode="mean")
    # over int64 ids (a Loop over the bags, unrolled; its body's condition a Cast of a constant true)
    cov = os.path.join(DATA, "coverage")
    for m, nout in (("gru_kws", 1), ("lstm_kws", 2), ("einsum_attention", 1), ("video3d", 2), ("ctrl_flow", 2),
                    ("loop_slices", 2), ("embedding_bag", 1)):
        fixtures.append((m, os.path.join(cov, m + ".onnx"), os.path.join(cov, m + ".input_0.npy"),
                         [os.path.join(cov, "%s.output_%d.npy" % (m, k)) for k in range(nout)]))
    for m, onnx_path, xf, yf in fixtures:
        out = os.path.join(WORK, m)
        r = generate(onnx_path, out, m)
        if r.returncode:
            fail("%s: codegen exited %d: %s" % (m, r.returncode, r.stdout))
            continue
        got = build_and_run(out, m, [np.load(xf)], 1)
        if got is not None:  # several outputs: one after the other
            compare(m, got, np.concatenate([np.load(f).ravel() for f in (yf if isinstance(yf, list) else [yf])]))
    # 2. digits and keyword models: batch 1, looped over the test split
    models = [("digits_cnn", os.path.join(DATA, "digits", "digits_cnn.onnx"), "x=1x1x8x8",
               os.path.join(DATA, "digits", "digits_test_x.npy"), os.path.join(DATA, "digits", "digits_cnn_logits.npy")),
              ("digits_mlp", os.path.join(DATA, "digits", "digits_mlp.onnx"), "x=1x1x8x8",
               os.path.join(DATA, "digits", "digits_test_x.npy"), os.path.join(DATA, "digits", "digits_mlp_logits.npy")),
              ("kws", os.path.join(DATA, "kws", "kws.onnx"), "x=1x1x31x20",
               os.path.join(DATA, "kws", "kws_test_x.npy"), os.path.join(DATA, "kws", "kws_logits.npy"))]
    for name, onnx, shape, xf, lf in models:
        out = os.path.join(WORK, name)
        r = generate(onnx, out, name, [shape])
        if r.returncode:
            fail("%s: codegen exited %d: %s" % (name, r.returncode, r.stdout))
            continue
        x = np.load(xf)
        got = build_and_run(out, name, [x], len(x))
        if got is not None:
            compare(name, got, np.load(lf))
    # 3. determinism: the same model twice gives the same bytes
    again = os.path.join(WORK, "nested", "dirs", "kws_again")  # -o creates the missing folders
    generate(os.path.join(DATA, "kws", "kws.onnx"), again, "kws", ["x=1x1x31x20"])
    for suffix in (".h", ".c", "_weights.c"):
        a = open(os.path.join(WORK, "kws", "kws" + suffix), "rb").read()
        b = open(os.path.join(again, "kws" + suffix), "rb").read()
        if a != b:
            fail("kws%s differs between two runs" % suffix)
    print("determinism: two runs, same bytes")
    # 4. errors: nothing written
    kws = os.path.join(DATA, "kws", "kws.onnx")
    leaf = os.path.join(WORK, "leaf.fx")
    with open(leaf, "w") as f:
        f.write("graph():\n"
                "    %x : [num_users=1] = placeholder[target=x]  # float32[2, 3, 3]\n"
                "    %h : [num_users=1] = call_module[target=my_filter](args = (%x,), kwargs = {})\n"
                "    return h\n")
    cases = [("no_kernel", leaf, [], 3, ["node h", "leaf module my_filter has no C kernel"]),("forbid", kws, ["--shape", "x=1x1x31x20", "--forbid", "Exp,Sigmoid,Tanh"], 1,
              ["Sigmoid", "hard_sigmoid(x, alpha=0.2, beta=0.5)"]),
             ("dynamic", kws, [], 2, ["--shape x="]),
             ("data_dependent", size_as_data_model(), [], 3,
              ["node count_f (Cast)", "size depends on the input data", "as data"]),
             ("bad_name", kws, ["--shape", "x=1x1x31x20", "--name", "9x"], 2, ["identifier"]),
             ("bad_optimize", kws, ["--shape", "x=1x1x31x20", "--optimize", "fast"], 2, ["speed or size"]),
             ("value_count", kws, ["--shape", "x=1x1x31x20", "--value", "x=1,2"], 2,
              ["--value x", "2 float32 values given", "620 values"]),
             ("value_word", kws, ["--shape", "x=1x1x31x20", "--value", "x=1,two"], 2,
              ["--value x=1,two", "comma-separated float32 values"]),
             ("value_input", kws, ["--shape", "x=1x1x31x20", "--value", "y=1"], 2, ["no input named 'y'"]),
             ("shape_static_dim", kws, ["--shape", "x=1x1x32x20"], 2, ["--shape x=1x1x32x20", "dim 2 is 31"]),
             ("shape_rank", kws, ["--shape", "x=1x31x20"], 2, ["--shape x=1x31x20", "of rank 4"]),
             # an option given twice is refused, not silently taken last
             ("shape_twice", kws, ["--shape", "x=1x1x31x20", "--shape", "x=2x1x31x20"], 2,
              ["--shape given twice for input 'x'"]),
             ("name_twice", kws, ["--shape", "x=1x1x31x20", "--name", "a", "--name", "b"], 2,
              ["option --name given twice ('a' and 'b')"]),
             ("forbid_twice", kws, ["--shape", "x=1x1x31x20", "--forbid", "Exp", "--forbid", "Tanh"], 2,
              ["option --forbid given twice", "comma-separated"]),
             # the report cannot be written: neither are the C files (all or none)
             ("report_unwritable", kws, ["--shape", "x=1x1x31x20", "--report", os.path.join(WORK, "no", "dir", "r.json")],
              3, ["r.json", "cannot create"]),
             ("name_too_long", kws, ["--shape", "x=1x1x31x20", "--name", "x" * 240], 3, ["File name too long"]),
             ("value_file", kws, ["--shape", "x=1x1x31x20", "--value", "x=" + os.path.join(WORK, "none.npy")], 3,
              ["none.npy", "cannot open"])]
    for label, model, extra, code, words in cases:
        out = os.path.join(WORK, "err_" + label)
        r = run([NNFX, "codegen", model, "-o", out] + extra)
        if r.returncode != code:
            fail("%s: exit %d, want %d: %s" % (label, r.returncode, code, r.stdout))
        for w in words:
            if w not in r.stdout:
                fail("%s: message lacks %r: %s" % (label, w, r.stdout))
        if os.path.exists(out):  # not even an empty folder (-o's folders made for the run are removed again)
            fail("%s: %s was left behind: %s" % (label, out, os.listdir(out)))
        print("%-12s exit %d: %s" % (label, r.returncode, r.stdout.strip().splitlines()[0]))
    # 5. the embedded target's model: BN folded, sigmoid -> hard_sigmoid
    opt = os.path.join(WORK, "kws_hard.onnx")
    r = run([NNFX, "optimize", kws, "-o", opt, "--pass", "fuse-conv-bn", "--rewrite",
             "sigmoid(x) -> hard_sigmoid(x, alpha=0.2, beta=0.5)"])
    if r.returncode:
        fail("optimize failed: %s" % r.stdout)
    else:
        out = os.path.join(WORK, "kws_hard")
        r = generate(opt, out, "kws_hard", ["x=1x1x31x20"], ["--forbid", "Exp,Sigmoid,Tanh"])
        if r.returncode:
            fail("kws_hard: codegen exited %d: %s" % (r.returncode, r.stdout))
        else:
            x = np.load(os.path.join(DATA, "kws", "kws_test_x.npy"))
            y = np.load(os.path.join(DATA, "kws", "kws_test_y.npy"))
            got = build_and_run(out, "kws_hard", [x], len(x))
            ref = json.load(open(os.path.join(DATA, "kws", "kws_ref.json")))["sigmoid_to_hard_sigmoid"]
            if got is not None:
                correct = int((got.argmax(1) == y).sum())
                print("kws_hard: %d/%d correct (PyTorch with the same rewrite: %d)" % (correct, len(y),
                                                                                       ref["correct"]))
                if abs(correct - ref["correct"]) > 1:
                    fail("kws_hard: %d correct, PyTorch %d" % (correct, ref["correct"]))
            # one relocatable object; its undefined symbols
            if EXTRA:
                print("kws_hard: symbol check skipped (CODEGEN_CFLAGS set)")
            r = run(["ld", "-r", "-o", "all.o", "kws_hard.o", "kws_hard_weights.o"], cwd=out)
            nm = run(["nm", "-u", "all.o"], cwd=out)
            syms = sorted(set(line.split()[-1] for line in nm.stdout.splitlines() if line.strip()))
            print("kws_hard: undefined symbols: %s" % (" ".join(syms) or "(none)"))
            bad = [s for s in syms if not s.startswith("mem")]
            if not EXTRA and (r.returncode or nm.returncode or bad):
                fail("kws_hard: undefined symbols other than mem*: %s" % bad)
    # 6. single-op models against numpy references
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import onnx
        import op_cases
    except ImportError as e:
        fail("single-op cases need python3-onnx: %s" % e)
    else:
        for name, model, x, ref in op_cases.cases():
            path = os.path.join(WORK, name + ".onnx")
            onnx.save(model, path)
            out = os.path.join(WORK, name)
            r = generate(path, out, name)
            if r.returncode:
                fail("%s: codegen exited %d: %s" % (name, r.returncode, r.stdout))
                continue
            got = build_and_run(out, name, [x[None]], 1)
            if got is not None:
                compare(name, got, ref)
            # nnfx's runtime on the same model and reference (the generated C's twin)
            np.save(os.path.join(out, "x.npy"), x)
            r = run([NNFX, "run", path, "--input", os.path.join(out, "x.npy"), "--output-dir",
                     os.path.join(out, "runtime"), "-q"])
            if r.returncode:
                fail("%s: nnfx run exited %d: %s" % (name, r.returncode, r.stdout))
            else:
                rt = np.concatenate([np.load(os.path.join(out, "runtime", o.name + ".npy")).astype(np.float32).ravel()
                                     for o in model.graph.output])
                compare(name + " (runtime)", rt, ref)
                # cases whose generated C must give the interpreter's bits (one shared definition)
                if got is not None and name in op_cases.SAME_BITS_AS_RUNTIME:
                    same = got.size == rt.size and np.array_equal(got.ravel().view(np.uint32), rt.view(np.uint32))
                    print("%-22s generated C and nnfx run: %s" % (name, "the same bits" if same else "FAIL"))
                    if not same:
                        fail("%s: generated C %s, nnfx run %s" % (name, got.ravel(), rt))
        for name, model, words in op_cases.refused():
            path = os.path.join(WORK, name + ".onnx")
            onnx.save(model, path)
            out = os.path.join(WORK, "err_" + name)
            expect_refused(name, generate(path, out, name), out, words)
    # 6b. a bounded output: NonMaxSuppression with a constant max_output_boxes_per_class of 3 bounds
    # its output to 3 rows; two boxes survive (the others overlap them or score below 0.1), so
    # NAME_run_dims reports [2, 3] and the third row is zeros; nnfx run gives the same two rows
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        pass
    else:
        boxes = np.array([[[0, 0, 1, 1], [0, 0.05, 1, 1.05], [0.05, 0, 1.05, 1], [5, 5, 6, 6],
                           [5, 5.1, 6, 6.1], [10, 10, 11, 11]]], np.float32)
        scores = np.array([[[0.9, 0.8, 0.7, 0.6, 0.5, 0.05]]], np.float32)
        g = helper.make_graph([helper.make_node("NonMaxSuppression", ["b", "s", "mo", "iou", "st"], ["y"])], "nms",
                              [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 6, 4]),
                               helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 1, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [None, 3])],
                              [numpy_helper.from_array(np.array([3], np.int64), "mo"),
                               numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
                               numpy_helper.from_array(np.array([0.1], np.float32), "st")])
        path, out = os.path.join(WORK, "nms_bounded.onnx"), os.path.join(WORK, "nms_bounded")
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
        want = np.array([[0, 0, 0], [0, 0, 3]], np.int64)
        r = generate(path, out, "nms")
        built = build_program(out, "nms", dims=True) if not r.returncode else r.stdout
        if isinstance(built, str):
            fail("nms_bounded: %s" % built)
        else:
            files = write_inputs(out, [boxes, scores], built[0])
            r = run([os.path.join(out, "run"), "1"] + files + [os.path.join(out, "out.bin")])
            raw = open(os.path.join(out, "out.bin"), "rb").read() if not r.returncode else b""
            got = np.frombuffer(raw, np.int64)
            ok = (len(got) >= 9 + 8 and int(header_macro(out, "nms", "OUTPUT0_SIZE")) == 9 and
                  list(got[9:11]) == [2, 3] and np.array_equal(got[:6].reshape(2, 3), want) and not got[6:9].any())
            print("nms_bounded: bound 3 rows, dims %s, rows %s %s" % (list(got[9:11]), got[:6].tolist(),
                                                                       "ok" if ok else "FAIL"))
            if not ok:
                fail("nms_bounded: want rows %s then zeros and dims [2, 3]; got %s (exit %d)" %
                     (want.tolist(), got.tolist(), r.returncode))
            np.save(os.path.join(out, "b.npy"), boxes)
            np.save(os.path.join(out, "s.npy"), scores)
            r = run([NNFX, "run", path, "--input", "b=" + os.path.join(out, "b.npy"), "--input",
                     "s=" + os.path.join(out, "s.npy"), "--output-dir", os.path.join(out, "runtime"), "-q"])
            if r.returncode or not np.array_equal(np.load(os.path.join(out, "runtime", "y.npy")), want):
                fail("nms_bounded: nnfx run differs (exit %d): %s" % (r.returncode, r.stdout))
    # 6c. --outputs: the static part of masked_tokens before its NonZero (the refusal's suggestion):
    # the score map and its mask, against PyTorch computing the same stem from the model's weights
    try:
        import torch
        import torch.nn.functional as F
        from onnx import numpy_helper
    except ImportError as e:
        print("skip: --outputs against PyTorch needs torch and onnx: %s" % e)
    else:
        path = os.path.join(DATA, "split_plan", "masked_tokens.onnx")
        w = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()).double()
             for i in onnx.load(path).graph.initializer}
        x = np.load(os.path.join(DATA, "split_plan", "masked_tokens.s0.in0.npy"))
        h = torch.from_numpy(x).double()
        for i, stride in ((0, 1), (2, 2), (4, 1)):
            h = F.relu(F.conv2d(h, w["stem.%d.weight" % i], w["stem.%d.bias" % i], stride=stride, padding=1))
        score = F.conv2d(h, w["score.weight"], w["score.bias"]).float().numpy().ravel()
        r = run([NNFX, "codegen", path, "-o", os.path.join(WORK, "mt_none"), "--outputs", "nope"])
        if r.returncode != 2 or "no value named 'nope'" not in r.stdout:
            fail("--outputs nope: want exit 2 naming it; got %d: %s" % (r.returncode, r.stdout))
        out = os.path.join(WORK, "mt_cut")
        r = generate(path, out, "mt", extra=["--outputs", "_score_Conv_output_0,_Greater_output_0"])
        if r.returncode:
            fail("masked_tokens --outputs: codegen exited %d: %s" % (r.returncode, r.stdout))
        else:
            got = build_and_run(out, "mt", [x], 1)
            if got is not None:
                compare("masked_tokens --outputs (scores)", got[0, :score.size], score)
                mask = got[0, score.size:] != 0
                bad = (mask != (score > 0)) & (np.abs(score) > 1e-4)  # a score at 0 may round either way
                print("masked_tokens --outputs (mask): %d of %d differ from PyTorch's score > 0" %
                      (int(bad.sum()), score.size))
                if mask.size != score.size or bad.any():
                    fail("masked_tokens --outputs: the mask differs from PyTorch's score > 0")
    # 6d. values after data-dependent nodes, computed over their bounds: masked_tokens (NonZero ->
    # Gather -> an MLP -> NonZero of a data-dependent value -> ReduceSum over it), select_attend
    # (a mean, softmax attention, a MatMul summing over the selected rows, their max,
    # torch.nonzero of a 2-d mask and x[mask]: NonZero -> Transpose -> GatherND) and detect_post (torchvision's nms -> Gather of the kept boxes),
    # two samples each selecting different numbers, against PyTorch
    # and detect_classes (torchvision's SSD post-processing in small: TopK of min(5, count) per class,
    # ConstantOfShape labels, Concat along the counts, batched_nms), and torchvision's FCOS and RetinaNet
    # whole on a two-conv backbone (box decoding and clipping too), and masked_batch (x[mask] along the
    # batch, then ConvTranspose, InstanceNorm, Resize, LRN and DepthToSpace per sample)
    for model, name, nin, nout in (("masked_tokens", "mt", 1, 2), ("select_attend", "sa", 1, 7),
                                   ("detect_post", "dp", 2, 2), ("detect_classes", "dc", 2, 3),
                                   ("detect_fcos", "fc", 1, 3), ("detect_retina", "rt", 1, 3),
                                   ("masked_batch", "mb", 1, 1)):
        out = os.path.join(WORK, "bounded_" + model)
        r = generate(os.path.join(DATA, "split_plan", model + ".onnx"), out, name)
        if r.returncode:
            fail("%s: codegen exited %d: %s" % (model, r.returncode, r.stdout))
            continue
        for j in (0, 1):
            sample = os.path.join(DATA, "split_plan", "%s.s%d" % (model, j))
            shapes = check_bounded("%s s%d" % (model, j), out, name,
                                   [np.load("%s.in%d.npy" % (sample, i)) for i in range(nin)],
                                   [np.load("%s.out%d.npy" % (sample, k)) for k in range(nout)])
            print("%s sample %d: output dims %s" % (model, j, shapes))
    # 6e. torchvision's batched_nms (an If around nms reading masked values, inlined) and a detector's
    # sizes computed from a data-dependent count (a TopK's K, Concat along the count)
    check_nms_post()
    check_frcnn_ort()
    check_mrcnn_ort()
    check_krcnn_ort()
    check_loop_over_rows()
    check_paste_masks()
    check_loop_sizes_arith()
    check_size_from_values()
    check_topk_past_count()
    check_cumsum_count()
    check_cumsum_axis_input()
    check_dropout_inputs()
    check_uint64()
    check_index_range()
    # 6f. DynamicQuantizeLinear computes its scale at run time
    check_dynamic_quantize()
    # 7. conv kernels in both --optimize modes (pooling and Gemm have one)
    # against PyTorch; three real models in the size mode too
    try:
        import onnx
        import conv_cases
    except ImportError as e:
        fail("conv cases need python3-onnx and python3-torch: %s" % e)
    else:
        for name, model, x, ref in conv_cases.cases():
            path = os.path.join(WORK, name + ".onnx")
            onnx.save(model, path)
            for mode in ("speed", "size") if name.startswith("conv") else ("speed",):  # one pool/gemm kernel
                out = os.path.join(WORK, name + "_" + mode)
                r = generate(path, out, name, extra=["--optimize", mode])
                if r.returncode:
                    fail("%s: codegen --optimize %s exited %d: %s" % (name, mode, r.returncode, r.stdout))
                    continue
                got = build_and_run(out, name, [x[None]], 1)
                if got is not None:  # NaN where PyTorch has NaN (a max over a NaN), close elsewhere
                    nan = np.isnan(ref.ravel())
                    if not np.array_equal(np.isnan(got.ravel()), nan):
                        fail("%s (%s): NaN at other places than PyTorch's" % (name, mode))
                    compare("%s (%s)" % (name, mode), np.where(nan, 0, got.ravel()), np.where(nan, 0, ref.ravel()))
    for name, onnx_path, shape, xf, lf in [models[2]] + [
            (m, os.path.join(rm, m + ".onnx"), None, os.path.join(rm, m + ".input_0.npy"),
             os.path.join(rm, m + ".output_0.npy")) for m in ("mini_resnet", "mobile_blocks")]:
        out = os.path.join(WORK, name + "_size")
        r = generate(onnx_path, out, name, [shape] if shape else [], ["--optimize", "size"])
        if r.returncode:
            fail("%s: codegen --optimize size exited %d: %s" % (name, r.returncode, r.stdout))
            continue
        x = np.load(xf)
        n = len(x) if shape else 1
        got = build_and_run(out, name, [x], n)
        if got is not None:
            compare(name + " (size)", got, np.load(lf))
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("all codegen checks passed")


if __name__ == "__main__":
    main()
