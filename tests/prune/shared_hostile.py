#!/usr/bin/python3
"""Parameters read by several ops, in shapes the fixtures do not cover: each
model is built here with onnx.helper (random weights) and `nnfx prune`
must either prune it correctly or keep the group saying why, never fail
with an internal error:

  - `--groups` exits 0; a group the model expects kept says why (the
    reader that does not slice the parameter is named);
  - `--ratio 0.5` (l1) and `--ratio 0.6 --criterion random` exit 0, or 3
    with "nothing can be pruned" where every channel must stay; never
    "a bug";
  - a pruned model passes onnx.checker, and its output is exactly that of
    the original with the removed channels made dead: every element of a
    sliced parameter is found (by value) in the original, which gives the
    indices each axis kept; the original with the others zeroed (BN
    variances 1) is run in ONNX Runtime and must agree with `nnfx run` of
    the pruned model within 1e-5 of the output's scale.

Usage: shared_hostile.py NNFX TMP_DIR ORT_CHECK_JS|'' (no ONNX Runtime)
Prints one line per failure and "shared hostile: P passed, F failed".
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as H
from onnx import numpy_helper as nh

NNFX, TMP, ORT = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
os.makedirs(TMP, exist_ok=True)
rs = np.random.RandomState(0)


def T(name, *shape):
    return nh.from_array(rs.uniform(-1, 1, shape).astype(np.float32), name)


def pos(name, *shape):
    return nh.from_array(rs.uniform(0.5, 1.5, shape).astype(np.float32), name)


def conv(i, w, b, o, **k):
    return H.make_node("Conv", [i, w] + ([b] if b else []), [o], **k)


def relu(i, o):
    return H.make_node("Relu", [i], [o])


def stem(inits):  # x [N, 3, H, W] -> s [N, 8, H, W]
    inits += [T("sw", 8, 3, 3, 3), T("sb", 8)]
    return [conv("x", "sw", "sb", "s0", pads=[1] * 4), relu("s0", "s")]


def head(i, c, inits, o="y"):  # pool, flatten, Linear(c, 4)
    inits += [T("fcw", 4, c), T("fcb", 4)]
    return [H.make_node("GlobalAveragePool", [i], [i + "_p"]), H.make_node("Flatten", [i + "_p"], [i + "_f"]),
            H.make_node("Gemm", [i + "_f", "fcw", "fcb"], [o], transB=1)]


def vec(h):  # s pooled to h [N, 8]
    return [H.make_node("GlobalAveragePool", ["s"], ["p"]), H.make_node("Flatten", ["p"], ["h"])]


MODELS = []  # (name, nodes, initializers, outputs, input shape, prunes, reason kept or None)


def model(name, nodes, inits, prunes, kept=None, outs=("y",), shape=(2, 3, 8, 8)):
    MODELS.append((name, nodes, inits, outs, shape, prunes, kept))


P = [1] * 4
i = []
model("three_readers", stem(i) + [conv("s", "w", "b", "a0", pads=P), relu("a0", "a"), conv("a", "w", "b", "b0", pads=P),
                                  relu("b0", "c"), conv("c", "w", "b", "d0", pads=P), relu("d0", "d")] + head("d", 8, i),
      i + [T("w", 8, 8, 3, 3), T("b", 8)], True)
i = []
model("weight_is_output", stem(i) + [conv("s", "w", None, "a0", pads=P), relu("a0", "a")] + head("a", 8, i),
      i + [T("w", 8, 8, 3, 3)], False, "parameter w is shared with a graph output", outs=("y", "w"))
i = []  # the weight is also returned through an Identity (folded: a copy)
model("weight_identity_output", stem(i) + [conv("s", "w", None, "a0", pads=P), relu("a0", "a"),
                                           H.make_node("Identity", ["w"], ["wo"])] + head("a", 8, i),
      i + [T("w", 8, 8, 3, 3)], True, outs=("y", "wo"))
i = []
model("reader_is_output", stem(i) + [conv("s", "w", None, "a0"), relu("a0", "a"), conv("a", "w", None, "z")] +
      head("a", 8, i), i + [T("w", 8, 8, 1, 1)], False, "reach the graph output", outs=("y", "z"))
i = []  # Linear weight read by Gemm (transB) and by MatMul as the right operand: one group
model("gemm_matmul", stem(i) + vec("h") + [H.make_node("Gemm", ["h", "w", "bw"], ["g"], transB=1), relu("g", "gr"),
                                          H.make_node("MatMul", ["gr", "w"], ["m"]), relu("m", "mr"),
                                          H.make_node("Gemm", ["mr", "ow"], ["y"], transB=1)],
      i + [T("w", 8, 8), T("bw", 8), T("ow", 4, 8)], True)
i = []
model("gemm_trans_both", stem(i) + vec("h") + [H.make_node("Gemm", ["h", "w"], ["g"], transB=1), relu("g", "gr"),
                                              H.make_node("Gemm", ["gr", "w"], ["g2"]), relu("g2", "g2r"),
                                              H.make_node("Gemm", ["g2r", "ow"], ["y"], transB=1)],
      i + [T("w", 8, 8), T("ow", 4, 8)], True)
i = []  # MatMul(W, computed): W is the left operand, not followed
model("matmul_left", stem(i) + vec("h") + [H.make_node("Gemm", ["h", "w"], ["g"], transB=1),
                                          H.make_node("Transpose", ["h"], ["ht"], perm=[1, 0]),
                                          H.make_node("MatMul", ["w", "ht"], ["m"]),
                                          H.make_node("Transpose", ["m"], ["mt"], perm=[1, 0]),
                                          H.make_node("Add", ["g", "mt"], ["ad"]),
                                          H.make_node("Gemm", ["ad", "ow"], ["y"], transB=1)],
      i + [T("w", 8, 8), T("ow", 4, 8)], False, "MatMul")
i = []  # a conv weight [8, 8, 1, 1] also a rank-4 MatMul operand
model("conv_matmul4", stem(i) + [conv("s", "w", None, "a"), H.make_node("MatMul", ["a", "w"], ["m"])] + head("m", 8, i),
      i + [T("w", 8, 8, 1, 1)], False, "parameter w is shared with %m (MatMul, input 1)", shape=(8, 3, 8, 1))
i = []  # Gemm(h, W, W): W's axis 0 is the bias's batch axis
model("gemm_w_as_bias", stem(i) + vec("h") + [H.make_node("Gemm", ["h", "w", "w"], ["g"], transB=1), relu("g", "gr"),
                                             H.make_node("Gemm", ["gr", "ow"], ["y"], transB=1)],
      i + [T("w", 8, 8), T("ow", 4, 8)], False, "parameter w is shared with %g (Gemm, input 2)", shape=(8, 3, 8, 8))
i = []  # two BatchNorms, one scale and one mean
model("shared_bn_scale", stem(i) + [conv("s", "w1", None, "a0", pads=P),
                                    H.make_node("BatchNormalization", ["a0", "g", "be1", "mu", "v1"], ["a1"]),
                                    relu("a1", "a"), conv("a", "w2", None, "b0", pads=P),
                                    H.make_node("BatchNormalization", ["b0", "g", "be2", "mu", "v2"], ["b1"]),
                                    relu("b1", "bb")] + head("bb", 8, i),
      i + [T("w1", 8, 8, 3, 3), T("w2", 8, 8, 3, 3), pos("g", 8), T("be1", 8), T("be2", 8), T("mu", 8), pos("v1", 8),
           pos("v2", 8)], True)
i = []  # the BN scale is also a factor along the width
model("bn_scale_width", stem(i) + [conv("s", "w1", None, "a0", pads=P),
                                   H.make_node("BatchNormalization", ["a0", "g", "be", "mu", "v"], ["a1"]),
                                   H.make_node("Mul", ["a1", "g"], ["a2"]), relu("a2", "a")] + head("a", 8, i),
      i + [T("w1", 8, 8, 3, 3), pos("g", 8), T("be", 8), T("mu", 8), pos("v", 8)], True,
      "parameter g is shared with %a2 (Mul, input 1), which does not slice its axis 0")
i = []
model("bias_add_width", stem(i) + [conv("s", "w1", "b", "a0", pads=P), H.make_node("Add", ["a0", "b"], ["a1"]),
                                   relu("a1", "a")] + head("a", 8, i),
      i + [T("w1", 8, 8, 3, 3), T("b", 8)], True, "parameter b is shared with %a1 (Add, input 1)")
i = []  # a conv's bias is another conv's BN mean
model("bias_is_bn_mean", stem(i) + [conv("s", "w1", "b", "a0", pads=P), relu("a0", "a"),
                                    conv("a", "w2", None, "b0", pads=P),
                                    H.make_node("BatchNormalization", ["b0", "g", "be", "b", "v"], ["b1"]),
                                    relu("b1", "bb")] + head("bb", 8, i),
      i + [T("w1", 8, 8, 3, 3), T("b", 8), T("w2", 8, 8, 3, 3), pos("g", 8), T("be", 8), pos("v", 8)], True)
i = []  # a depthwise weight [8, 1, 3, 3] also read by a conv of a 1-channel value
model("depthwise_and_conv", stem(i) + [conv("s", "dw", None, "d0", pads=P, group=8), relu("d0", "d"),
                                       conv("d", "r", None, "one"), conv("one", "dw", None, "e0", pads=P),
                                       H.make_node("Add", ["d", "e0"], ["e"])] + head("e", 8, i),
      i + [T("dw", 8, 1, 3, 3), T("r", 1, 8, 1, 1)], True)
i = []  # a grouped conv (2 groups) and a plain conv share a weight
model("grouped_and_plain", stem(i) + [conv("s", "w", None, "g0", pads=P, group=2), relu("g0", "g"),
                                      conv("g", "q", None, "h0"), relu("h0", "h"), conv("h", "w", None, "k0", pads=P),
                                      H.make_node("Add", ["g", "k0"], ["k"])] + head("k", 8, i),
      i + [T("w", 8, 4, 3, 3), T("q", 4, 8, 1, 1)], True)
i = []  # the two halves of a Split through one conv, concatenated
model("split_shared", stem(i) + [H.make_node("Split", ["s", "sp"], ["h1", "h2"], axis=1),
                                 conv("h1", "w", "b", "c1", pads=P), conv("h2", "w", "b", "c2", pads=P),
                                 H.make_node("Concat", ["c1", "c2"], ["c"], axis=1), relu("c", "cr")] + head("cr", 12, i),
      i + [T("w", 6, 4, 3, 3), T("b", 6), nh.from_array(np.array([4, 4], np.int64), "sp")], True)
i = []  # a value concatenated with itself, and a weight read on both
model("self_concat", stem(i) + [H.make_node("Concat", ["s", "s"], ["ss"], axis=1), conv("ss", "w", None, "a0"),
                                relu("a0", "a"), H.make_node("Concat", ["a", "s"], ["as"], axis=1),
                                conv("as", "w", None, "b0"), relu("b0", "bb")] + head("bb", 8, i),
      i + [T("w", 8, 16, 1, 1)], True)
i = []
model("conv_and_convtranspose", stem(i) + [conv("s", "w", None, "a0", pads=P), relu("a0", "a"),
                                           H.make_node("ConvTranspose", ["a", "w"], ["t"], pads=P)] + head("t", 8, i),
      i + [T("w", 8, 8, 3, 3)], False, "parameter w is shared with %t (ConvTranspose, input 1)")


def branch(nm):
    return H.make_graph([H.make_node("Conv", ["a", "w"], [nm + "o"])], nm, [],
                        [H.ValueInfoProto(name=nm + "o", type=H.make_tensor_type_proto(TP.FLOAT, None))])


i = []  # a weight also captured by the branches of an If
model("if_capture", stem(i) + [conv("s", "w", None, "a0"), relu("a0", "a"),
                               H.make_node("If", ["cond"], ["f"], then_branch=branch("t"), else_branch=branch("e"))] +
      head("f", 8, i), i + [T("w", 8, 8, 1, 1), nh.from_array(np.array(True), "cond")], False,
      "parameter w is shared with %f (If, input 2)")
i = []  # one per-channel scale: a Mul before a conv, a PRelu slope and a Mul after it
model("shared_scale_prelu", stem(i) + [H.make_node("Mul", ["s", "sc"], ["m1"]), conv("m1", "w1", None, "a0", pads=P),
                                       H.make_node("PRelu", ["a0", "sc"], ["a1"]),
                                       H.make_node("Mul", ["a1", "sc"], ["a"])] + head("a", 8, i),
      i + [pos("sc", 1, 8, 1, 1), T("w1", 8, 8, 3, 3)], True)
i = []  # one conv reads a slice of the channels, then its own output
model("slice_shared", stem(i) + [H.make_node("Slice", ["s", "st", "en", "ax"], ["sl"]),
                                 conv("sl", "w", None, "a0", pads=P), relu("a0", "a"),
                                 conv("a", "w", None, "b0", pads=P), relu("b0", "bb")] + head("bb", 4, i),
      i + [T("w", 4, 4, 3, 3)] + [nh.from_array(np.array([v], np.int64), k) for k, v in (("st", 2), ("en", 6), ("ax", 1))],
      True)
i = []  # the graph input's channels, joined through a square weight
model("input_square", [conv("x", "w", None, "a0"), relu("a0", "a"), conv("a", "w", None, "b0"), relu("b0", "bb")] +
      head("bb", 3, i), i + [T("w", 3, 3, 1, 1)], False, "graph input")


def dead_copy(m, p):
    """m with every index that p's parameters lost zeroed (BN variances 1)."""
    orig = {t.name: nh.to_array(t) for t in m.graph.initializer}
    pruned = {t.name: nh.to_array(t) for t in p.graph.initializer}
    var = {n.input[4] for n in m.graph.node if n.op_type == "BatchNormalization"}
    m2 = onnx.ModelProto()
    m2.CopyFrom(m)
    for t in m2.graph.initializer:
        w, q = orig[t.name], pruned.get(t.name)
        if q is None or w.dtype != np.float32 or q.shape == w.shape:
            continue
        where = {}
        for idx in np.ndindex(w.shape):
            where.setdefault(float(w[idx]), []).append(idx)
        kept = [set() for _ in w.shape]
        for idx in np.ndindex(q.shape):
            locs = where.get(float(q[idx]), [])
            if len(locs) != 1:
                return None, f"{t.name}: a pruned value is not one of the original's"
            for a, c in enumerate(locs[0]):
                kept[a].add(c)
        w = w.copy()
        for a in range(w.ndim):
            if len(kept[a]) != q.shape[a]:
                return None, f"{t.name}: axis {a} is not a selection of the original's indices"
            sl = [slice(None)] * w.ndim
            sl[a] = [c for c in range(w.shape[a]) if c not in kept[a]]
            w[tuple(sl)] = 1.0 if t.name in var else 0.0
        t.CopyFrom(nh.from_array(w, t.name))
    return m2, None


def sh(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


passed = failed = 0


def ok(cond, what):
    global passed, failed
    passed += bool(cond)
    failed += not cond
    if not cond:
        print("FAIL: " + what)


for name, nodes, inits, outs, shape, prunes, kept in MODELS:
    g = H.make_graph(nodes, name, [H.make_tensor_value_info("x", TP.FLOAT, list(shape))],
                     [H.ValueInfoProto(name=o, type=H.make_tensor_type_proto(TP.FLOAT, None)) for o in outs], inits)
    m = H.make_model(g, opset_imports=[H.make_opsetid("", 13)])
    m.ir_version = 8
    path, inp = f"{TMP}/{name}.onnx", f"{TMP}/{name}.input.npy"
    onnx.save(m, path)
    np.save(inp, rs.uniform(-1, 1, shape).astype(np.float32))
    rc, out, err = sh(NNFX, "prune", path, "--groups")
    ok(rc == 0 and "bug" not in err, f"{name}: --groups exit {rc}: {err.strip()}")
    if kept:
        ok(any("prunable; kept: " in ln and kept in ln for ln in out.splitlines()),
           f"{name}: no group says it is kept because of '{kept}':\n{out}")
    for k, opts in enumerate((["--ratio", "0.5"], ["--ratio", "0.6", "--criterion", "random", "--seed", "3"])):
        pp = f"{TMP}/{name}.p{k}.onnx"
        rc, out, err = sh(NNFX, "prune", path, "-o", pp, *opts)
        what = f"{name} {' '.join(opts)}"
        ok("bug" not in err and (rc == 0 or (rc == 3 and "nothing can be pruned" in err)),
           f"{what}: exit {rc}: {err.strip()}")
        ok((rc == 0) == prunes, f"{what}: exit {rc}, expected {'0' if prunes else '3 (nothing can be pruned)'}")
        if rc != 0:
            continue
        p = onnx.load(pp)
        try:
            onnx.checker.check_model(p, full_check=True)
            ok(True, "")
        except onnx.checker.ValidationError as e:
            ok(False, f"{what}: onnx.checker: {e}")
            continue
        m2, why = dead_copy(m, p)
        ok(m2 is not None, f"{what}: {why}")
        if m2 is None:
            continue
        onnx.save(m2, f"{TMP}/{name}.dead.onnx")
        rc, out, err = sh(NNFX, "run", pp, "--input", inp, "-o", f"{TMP}/{name}.p{k}.npy", "-q")
        ok(rc == 0, f"{what}: nnfx run of the pruned model: exit {rc}: {err.strip()}")
        if rc == 0 and ORT:
            rc, out, err = sh("node", ORT, f"{TMP}/{name}.dead.onnx", "--in", inp, "--ref", f"{TMP}/{name}.p{k}.npy",
                              "--tol", "1e-5")
            ok(rc == 0, f"{what}: pruned model differs from the original with those channels dead: {out}{err}")
print(f"shared hostile: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
