#!/usr/bin/python3
"""Independent checks for the quantization tests (numpy and the onnx
package; shares no code with nnfx).

  qcheck.py split X.npy Y.npy N OUT_DIR
      writes OUT_DIR/calib.npy (the first N samples), held_x.npy and
      held_y.npy (the rest: the held-out split).
  qcheck.py checker MODEL.onnx
      onnx.checker.check_model(full_check=True); prints the op counts.
  qcheck.py agree A.npy B.npy FRAC [MIN_TOP1]
      max |a - b| <= FRAC * max |b| (the output's scale) and the top-1 of
      the rows agree on at least MIN_TOP1 of them (default 1.0), counting
      the rows whose top-2 margin in B is over 2 * FRAC * scale (closer
      calls are ties within the tolerance).
  qcheck.py floor NNFX.npy ORT_OFF.npy ORT_ON.npy TORCH.npy
      nnfx's difference from ORT (optimisations off) is at most the larger
      of 3 % of the output scale and ORT's own spread (its fused int8 path
      vs its reference path, ORT vs PyTorch), and its top-1 agreement at
      least theirs, on the rows whose top-2 margin in ORT's output exceeds
      twice that bound; prints every pairwise figure.
  qcheck.py top1 OUT.npy LABELS.npy
      prints the top-1 accuracy in percent.
  qcheck.py drop REF.npy OUT.npy LABELS.npy MAX
      top-1 accuracy of REF and OUT on LABELS; fails when OUT's is lower by
      more than MAX points.
  qcheck.py convnet OUT.onnx
      writes a float conv model with seeded random weights (four 3x3 convs,
      32-64 channels, and a Linear) for the weight-bytes check.
  qcheck.py allops OUT.onnx
      writes a float model with every op `quantize --activations int8`
      quantizes (Conv, x*sigmoid(x), HardSigmoid, an erf GELU, Tanh, HardSwish,
      Add and Mul of two values and of a constant, Concat, MaxPool,
      AveragePool, GlobalAveragePool, ReduceMean, Flatten, Reshape, Gemm,
      Softmax; two outputs) and OUT_x.npy (48 samples).
  qcheck.py allq MODEL.onnx
      every op but Q/DQ reads its float inputs from DequantizeLinear, except
      inside single-input element-wise regions (a value read once by an
      element-wise op) and a layer's own Relu/Clip, and every graph output comes from DequantizeLinear
      of an int8 QuantizeLinear; prints the counts.
  qcheck.py weights MODEL.onnx
      prints the bytes of the model's initializers and Constant tensors.
  qcheck.py badqdq OUT_DIR
      writes small QDQ models with bad quantization parameters:
      scale0, scale_nan, scale_neg, axis_len, zp_int32 (.onnx), and
      foldable.onnx (a DequantizeLinear -> QuantizeLinear pair with the same
      parameters), opset10.onnx (Q -> DQ in the opset-10 form).
  qcheck.py int8weights MODEL.onnx
      every Conv/Gemm/MatMul weight comes from a DequantizeLinear of an int8
      initializer.
"""
import os
import sys

import numpy as np


def top1(out, labels):
    return 100.0 * float(np.mean(out.reshape(len(labels), -1).argmax(1) == labels))


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "split":
        x, y, n, out = np.load(a[0]), np.load(a[1]), int(a[2]), a[3]
        np.save(os.path.join(out, "calib.npy"), x[:n])
        np.save(os.path.join(out, "held_x.npy"), x[n:])
        np.save(os.path.join(out, "held_y.npy"), y[n:])
        return 0
    if cmd == "checker":
        import onnx
        m = onnx.load(a[0])
        onnx.checker.check_model(m, full_check=True)
        ops = {}
        for n in m.graph.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        print("checker ok:", ops)
        return 0
    if cmd == "agree":
        x, y, frac = np.load(a[0]), np.load(a[1]), float(a[2])
        need = float(a[3]) if len(a) > 3 else 1.0
        if x.shape != y.shape:
            print(f"shapes differ: {x.shape} vs {y.shape}")
            return 1
        d, s = float(np.abs(x - y).max()), float(np.abs(y).max())
        rows, ref = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
        # top-1 is compared on the rows whose reference decision is clear:
        # its top-2 margin exceeds twice the difference allowed, so no
        # output within the tolerance could decide otherwise (a random-weight
        # network on noise has near-ties that any rounding flips)
        top2 = np.sort(ref, axis=1)[:, -2:] if ref.shape[1] > 1 else np.zeros((ref.shape[0], 2))
        clear = (top2[:, 1] - top2[:, 0]) > 2 * frac * max(s, 1e-12)
        agree = rows.argmax(1) == ref.argmax(1)
        same = float(np.mean(agree[clear])) if clear.any() else 1.0
        ok = d <= frac * max(s, 1e-12) and same >= need
        print(f"max|diff| {d:.4g} = {d / max(s, 1e-12):.4%} of the output scale {s:.4g}; top-1 agrees on "
              f"{same:.2%} of {int(clear.sum())} rows with a clear top-1 ({rows.shape[0] - int(clear.sum())} "
              f"near-ties left out, {int(agree.sum())} of {rows.shape[0]} agree in all): {'ok' if ok else 'FAIL'}")
        return 0 if ok else 1
    if cmd == "floor":
        # nnfx vs ORT (optimisations off) within ORT's own spread: the larger
        # of 3 % of the output scale and the differences between ORT's two
        # execution paths and between ORT and PyTorch on the same file
        n, off, on, pt = (np.load(f) for f in a[:4])

        def diff(x, y):
            return float(np.abs(x - y).max())

        s = float(np.abs(off).max())
        bound = max(0.03 * s, diff(on, off), diff(off, pt))
        # top-1 is compared on the rows whose decision is clear in ORT's
        # reference output: its top-2 margin exceeds twice the allowed
        # difference (as in `agree`); on random weights most rows are
        # near-ties that any engine's rounding order flips, and which way
        # they flip differs between hosts (ORT's VNNI and AVX2 kernels)
        ref = off.reshape(len(off), -1)
        top2 = np.sort(ref, axis=1)[:, -2:] if ref.shape[1] > 1 else np.zeros((ref.shape[0], 2))
        clear = (top2[:, 1] - top2[:, 0]) > 2 * bound

        def same(x, y):
            eq = x.reshape(len(x), -1).argmax(1) == y.reshape(len(y), -1).argmax(1)
            return float(np.mean(eq[clear])) if clear.any() else 1.0

        need = min(same(on, off), same(off, pt))
        print(f"output scale {s:.4g}: nnfx-ORT {diff(n, off):.4g} (top-1 {same(n, off):.0%}), ORT fused-ORT "
              f"{diff(on, off):.4g} (top-1 {same(on, off):.0%}), ORT-PyTorch {diff(off, pt):.4g} (top-1 "
              f"{same(off, pt):.0%}), nnfx-PyTorch {diff(n, pt):.4g} (top-1 {same(n, pt):.0%}); top-1 on "
              f"{int(clear.sum())} of {len(clear)} rows with a clear decision")
        ok = diff(n, off) <= bound and same(n, off) >= need
        print(f"nnfx within ORT's spread (<= {bound:.4g}, top-1 >= {need:.0%}): {'ok' if ok else 'FAIL'}")
        return 0 if ok else 1
    if cmd == "top1":
        print(f"{top1(np.load(a[0]), np.load(a[1])):.2f}")
        return 0
    if cmd == "drop":
        labels = np.load(a[2])
        ref = np.load(a[0])[-len(labels):]
        r, o = top1(ref, labels), top1(np.load(a[1]), labels)
        ok = r - o <= float(a[3])
        print(f"top-1 float {r:.2f}% -> quantized {o:.2f}% (drop {r - o:.2f}, max {a[3]}): {'ok' if ok else 'FAIL'}")
        return 0 if ok else 1
    if cmd in ("convnet", "badqdq", "allops"):
        import onnx
        from onnx import TensorProto as T
        from onnx import helper as h
        from onnx import numpy_helper as nh
        rng = np.random.default_rng(0)
    if cmd == "convnet":
        chans, nodes, inits, prev = [3, 32, 64, 64, 64], [], [], "x"
        for i in range(4):
            w = (rng.standard_normal((chans[i + 1], chans[i], 3, 3)) * np.sqrt(2.0 / (9 * chans[i]))).astype(np.float32)
            inits += [nh.from_array(w, f"w{i}"), nh.from_array(np.zeros(chans[i + 1], np.float32) + 0.01, f"b{i}")]
            nodes += [h.make_node("Conv", [prev, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1, 1, 1, 1]),
                      h.make_node("Relu", [f"c{i}"], [f"r{i}"])]
            prev = f"r{i}"
        inits += [nh.from_array((rng.standard_normal((10, 64)) * 0.1).astype(np.float32), "fw"),
                  nh.from_array(np.zeros(10, np.float32), "fb")]
        nodes += [h.make_node("GlobalAveragePool", [prev], ["gap"]), h.make_node("Flatten", ["gap"], ["flat"]),
                  h.make_node("Gemm", ["flat", "fw", "fb"], ["y"], transB=1)]
        g = h.make_graph(nodes, "convnet", [h.make_tensor_value_info("x", T.FLOAT, ["n", 3, 16, 16])],
                         [h.make_tensor_value_info("y", T.FLOAT, ["n", 10])], inits)
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), a[0])
        np.save(os.path.splitext(a[0])[0] + "_x.npy", rng.random((16, 3, 16, 16), dtype=np.float32))
        return 0
    if cmd == "allops":
        def w(name, shape, sc):
            inits.append(nh.from_array((rng.standard_normal(shape) * sc).astype(np.float32), name))
        def c(name, v):
            inits.append(nh.from_array(np.array(v, np.float32), name))
        inits = []
        w("w1", (8, 3, 3, 3), 0.3), w("b1", (8,), 0.1), w("w2", (8, 16, 1, 1), 0.3), w("w3", (5, 8), 0.5)
        w("bv", (8,), 0.5)
        c("half", 0.5), c("one", 1.0), c("sqrt2", 1.4142135)
        inits.append(nh.from_array(np.array([-1, 8], np.int64), "shp"))
        N = h.make_node
        nodes = [N("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
                 N("Sigmoid", ["c1"], ["sg"]), N("Mul", ["c1", "sg"], ["a"]),       # swish: one table
                 N("HardSigmoid", ["a"], ["hsg"], alpha=0.25, beta=0.4),
                 N("Div", ["a", "sqrt2"], ["g0"]), N("Erf", ["g0"], ["g1"]), N("Add", ["g1", "one"], ["g2"]),
                 N("Mul", ["a", "half"], ["g3"]), N("Mul", ["g3", "g2"], ["gelu"]),  # erf GELU: one table
                 N("Add", ["hsg", "gelu"], ["s"]), N("Tanh", ["c1"], ["t"]), N("Mul", ["s", "t"], ["m"]),
                 N("HardSwish", ["m"], ["hs"]), N("Concat", ["hs", "a"], ["cc"], axis=1),
                 N("MaxPool", ["cc"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
                 N("AveragePool", ["mp"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
                 N("Conv", ["ap", "w2"], ["c2"]), N("Relu", ["c2"], ["r2"]),
                 N("GlobalAveragePool", ["r2"], ["ga"]), N("Flatten", ["ga"], ["f"]),
                 N("Reshape", ["f", "shp"], ["rs"]), N("Add", ["rs", "bv"], ["rb"]),
                 N("ReduceMean", ["r2"], ["mean"], axes=[2, 3], keepdims=0), N("Add", ["rb", "mean"], ["sum"]),
                 N("Gemm", ["sum", "w3"], ["y"], transB=1), N("Softmax", ["y"], ["p"], axis=1)]
        g = h.make_graph(nodes, "allops", [h.make_tensor_value_info("x", T.FLOAT, ["n", 3, 8, 8])],
                         [h.make_tensor_value_info("y", T.FLOAT, ["n", 5]),
                          h.make_tensor_value_info("p", T.FLOAT, ["n", 5])], inits)
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), a[0])
        np.save(os.path.splitext(a[0])[0] + "_x.npy", rng.standard_normal((48, 3, 8, 8)).astype(np.float32))
        return 0
    if cmd == "allq":
        import onnx
        import onnx.numpy_helper
        m = onnx.load(a[0])
        prod = {o: n for n in m.graph.node for o in n.output}
        users = {}
        for n in m.graph.node:
            for i in n.input:
                users[i] = users.get(i, 0) + 1
        inits = {t.name: t for t in m.graph.initializer}
        ew = {"Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Erf", "Relu", "Clip", "Add", "Sub", "Mul", "Div",
              "Exp", "LeakyRelu", "Elu", "Softplus"}
        bad, ops, inner = [], 0, 0
        for n in m.graph.node:
            if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
                continue
            ops += 1
            for i in n.input:
                if not i or i in inits and inits[i].data_type != onnx.TensorProto.FLOAT:
                    continue
                p = prod.get(i)
                if i in inits:
                    if onnx.numpy_helper.to_array(inits[i]).size == 1 and n.op_type in ew:
                        continue  # a scalar of an element-wise region
                    bad.append(f"{n.name or n.op_type}: reads float initializer {i}")
                elif p is None:
                    bad.append(f"{n.name or n.op_type}: reads graph input {i} directly")
                elif p.op_type == "DequantizeLinear":
                    continue
                elif p.op_type in ew and n.op_type in ew and users[i] == 1:
                    inner += 1
                elif p.op_type in ("Conv", "Gemm", "MatMul") and n.op_type in ("Relu", "Clip") and users[i] == 1:
                    inner += 1  # the layer's own activation, quantized after it
                else:
                    bad.append(f"{n.name or n.op_type}: reads {i} from {p.op_type}")
        for o in m.graph.output:
            p = prod.get(o.name)
            q = prod.get(p.input[0]) if p is not None and p.op_type == "DequantizeLinear" else None
            zp = inits.get(q.input[2]) if q is not None and q.op_type == "QuantizeLinear" and len(q.input) > 2 else None
            if zp is None or zp.data_type != onnx.TensorProto.INT8:
                bad.append(f"output {o.name} is not DequantizeLinear(int8 QuantizeLinear)")
        print(f"{ops} ops, {inner} values inside element-wise regions, {len(bad)} not int8")
        for b in bad[:10]:
            print("  " + b)
        return 1 if bad else 0
    if cmd == "weights":
        import onnx
        from onnx import numpy_helper as nh
        m = onnx.load(a[0])
        b = sum(nh.to_array(t).nbytes for t in m.graph.initializer)
        b += sum(nh.to_array(at.t).nbytes for n in m.graph.node if n.op_type == "Constant" for at in n.attribute
                 if at.name == "value")
        print(b)
        return 0
    if cmd == "int8weights":
        import onnx
        m = onnx.load(a[0])
        inits = {t.name: t for t in m.graph.initializer}
        prod = {o: n for n in m.graph.node for o in n.output}
        for n in m.graph.node:
            if n.op_type not in ("Conv", "Gemm", "MatMul"):
                continue
            d = prod.get(n.input[1])
            if d is None or d.op_type != "DequantizeLinear" or d.input[0] not in inits or \
                    inits[d.input[0]].data_type != onnx.TensorProto.INT8:
                print(f"{n.name}: weight {n.input[1]} is not DequantizeLinear(int8 initializer)")
                return 1
        return 0
    if cmd == "badqdq":
        out = a[0]
        wq = rng.integers(-127, 128, (4, 2, 3, 3)).astype(np.int8)

        def model(name, xs, ws, xz=np.uint8(128), xdtype=T.FLOAT):
            inits = [nh.from_array(wq, "wq"), nh.from_array(np.asarray(ws, np.float32), "ws"),
                     nh.from_array(np.asarray(xs, np.float32), "xs"), nh.from_array(np.asarray(xz), "xz")]
            nodes = [h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quant_x"),
                     h.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dequant_x"),
                     h.make_node("DequantizeLinear", ["wq", "ws"], ["wd"], name="dequant_w", axis=0),
                     h.make_node("Conv", ["xd", "wd"], ["y"], name="conv")]
            g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", xdtype, [1, 2, 5, 5])],
                             [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
            onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, name + ".onnx"))

        ws = np.full(4, 0.01, np.float32)
        model("scale0", 0.0, ws)
        model("scale_nan", np.nan, ws)
        model("scale_neg", -0.5, ws)
        model("axis_len", 0.1, np.full(3, 0.01, np.float32))
        # DequantizeLinear of int32 data takes a zero point of 0 only
        g = h.make_graph([h.make_node("DequantizeLinear", ["b", "bs", "bz"], ["y"], name="dequant_bias")],
                         "zp", [], [h.make_tensor_value_info("y", T.FLOAT, None)],
                         [nh.from_array(np.array([5, 6], np.int32), "b"), nh.from_array(np.float32(0.1), "bs"),
                          nh.from_array(np.int32(7), "bz")])
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, "zp_int32.onnx"))
        # a DQ -> Q pair with the same parameters (analyze: foldable_qdq)
        g = h.make_graph([h.make_node("QuantizeLinear", ["x", "s", "z"], ["q1"]),
                          h.make_node("DequantizeLinear", ["q1", "s", "z"], ["d1"]),
                          h.make_node("QuantizeLinear", ["d1", "s", "z"], ["q2"]),
                          h.make_node("DequantizeLinear", ["q2", "s", "z"], ["y"])],
                         "foldable", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 5, 5])],
                         [h.make_tensor_value_info("y", T.FLOAT, None)],
                         [nh.from_array(np.float32(0.02), "s"), nh.from_array(np.uint8(3), "z")])
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, "foldable.onnx"))
        # the opset-10 form (no axis attribute; per tensor only)
        g = h.make_graph([h.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                          h.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
                         "opset10", [h.make_tensor_value_info("x", T.FLOAT, [1, 2, 5, 5])],
                         [h.make_tensor_value_info("y", T.FLOAT, [1, 2, 5, 5])],
                         [nh.from_array(np.float32(0.004), "s"), nh.from_array(np.uint8(10), "z")])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 10)])
        m.ir_version = 5
        onnx.save(m, os.path.join(out, "opset10.onnx"))
        np.save(os.path.join(out, "x.npy"), rng.random((1, 2, 5, 5), dtype=np.float32))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
