#!/usr/bin/python3
"""Writes the report tests' models (text IR) into OUTDIR:
  resnet_bn.fx (+ .safetensors): a small ResNet with BatchNorm after every
      conv and module paths (stem, layer1.0, layer1.1, layer2.0 with a
      downsample branch, fc), seeded normal weights (Python's random), positive variances;
  big.fx: N op nodes (default 100000) in modules stageS.blockB of ten
      elementwise ops each (no parameters): the large-graph report.
usage: make_models.py OUTDIR [N]"""
import json
import random
import struct
import sys

out = sys.argv[1]
nbig = int(sys.argv[2]) if len(sys.argv) > 2 else 100000


class G:
    def __init__(self):
        self.lines, self.params, self.users = [], [], {}

    def node(self, name, opcode, target, args=(), kwargs="", meta="", module=""):
        for a in args:
            if a.startswith("%"):
                self.users[a[1:]] = self.users.get(a[1:], 0) + 1
        call = ""
        if opcode not in ("placeholder", "get_attr"):
            call = "(args = (%s%s), kwargs = {%s})" % (", ".join(args), "," if len(args) == 1 else "", kwargs)
        suffix = ""
        if meta or module:
            suffix = "  # " + (meta or "?") + (" {module: %s}" % module if module else "")
        self.lines.append((name, "%s[target=%s]%s%s" % (opcode, target, call, suffix)))
        return "%" + name

    def param(self, target, shape, module):
        self.params.append((target, shape))
        return self.node(target.replace(".", "_"), "get_attr", target, meta="float32%s" % list(shape), module=module)

    def text(self, ret):
        self.users[ret[1:]] = self.users.get(ret[1:], 0) + 1
        s = ["graph():"]
        for t, shape in self.params:
            s.append("    # param %s : float32%s" % (t, list(shape)))
        for name, rest in self.lines:
            s.append("    %%%s : [num_users=%d] = %s" % (name, self.users.get(name, 0), rest))
        s.append("    return %s" % ret[1:])
        return "\n".join(s) + "\n"


def resnet():
    g = G()
    x = g.node("x", "placeholder", "x", meta="float32[1, 3, 16, 16]")

    def conv_bn(x, cin, cout, mod, stride=1, k=3, relu=True):
        w = g.param(mod + ".conv.weight" if mod.endswith("downsample") else mod + ".weight", (cout, cin, k, k),
                    mod)
        c = g.node(mod.replace(".", "_") + "_conv", "call_function", "conv", (x, w),
                   "kernel_shape: [%d, %d], pads: [%d, %d, %d, %d], strides: [%d, %d]" %
                   (k, k, k // 2, k // 2, k // 2, k // 2, stride, stride), module=mod)
        bnm = mod.replace("conv", "bn") if "conv" in mod else mod + "_bn"
        ps = [g.param(bnm + "." + p, (cout,), bnm) for p in ("weight", "bias", "running_mean", "running_var")]
        y = g.node(bnm.replace(".", "_"), "call_function", "batch_normalization", (c,) + tuple(ps),
                   "epsilon: 1e-05", module=bnm)
        if relu:
            y = g.node(bnm.replace(".", "_") + "_relu", "call_function", "relu", (y,), module=mod.rsplit(".", 1)[0])
        return y

    y = conv_bn(x, 3, 8, "stem.conv")

    def block(x, cin, cout, mod, stride):
        h = conv_bn(x, cin, cout, mod + ".conv1", stride)
        h = conv_bn(h, cout, cout, mod + ".conv2", 1, relu=False)
        sc = x
        if stride != 1 or cin != cout:
            sc = conv_bn(x, cin, cout, mod + ".downsample", stride, k=1, relu=False)
        a = g.node(mod.replace(".", "_") + "_add", "call_function", "add", (h, sc), module=mod)
        return g.node(mod.replace(".", "_") + "_relu", "call_function", "relu", (a,), module=mod)

    y = block(y, 8, 8, "layer1.0", 1)
    y = block(y, 8, 8, "layer1.1", 1)
    y = block(y, 8, 16, "layer2.0", 2)
    y = g.node("pool", "call_function", "global_average_pool", (y,), module="avgpool")
    y = g.node("flat", "call_function", "flatten", (y,), "axis: 1")
    w = g.param("fc.weight", (10, 16), "fc")
    b = g.param("fc.bias", (10,), "fc")
    y = g.node("logits", "call_function", "gemm", (y, w, b), "transB: 1", module="fc")
    open(out + "/resnet_bn.fx", "w").write(g.text(y))
    rng = random.Random(7)
    header, blobs, off = {}, [], 0
    for name, shape in g.params:
        n = 1
        for d in shape:
            n *= d
        a = [rng.gauss(0.0, 0.5) for _ in range(n)]
        if "var" in name:
            a = [abs(v) + 0.5 for v in a]
        bts = struct.pack("<%df" % n, *a)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [off, off + len(bts)]}
        blobs.append(bts)
        off += len(bts)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(out + "/resnet_bn.fx.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def big():
    lines, prev = ["graph():", "    %x : [num_users=2] = placeholder[target=x]  # float32[1, 8]"], "x"
    ops = ["relu", "add", "sigmoid", "mul", "tanh", "add", "neg", "mul", "abs", "add"]
    for i in range(nbig):
        s, b, k = i // 1000, (i // 10) % 100, i % 10
        op = ops[k]
        name = "s%d_b%d_%s%d" % (s, b, op, k)
        args = "%%%s," % prev if op in ("relu", "sigmoid", "tanh", "neg", "abs") else "%%%s, %%%s" % (prev, prev)
        users = 2 if i + 1 < nbig and ops[(i + 1) % 10] in ("add", "mul") else 1
        lines.append("    %%%s : [num_users=%d] = call_function[target=%s](args = (%s), kwargs = {})"
                     "  # float32[1, 8] {module: stage%d.block%d}" % (name, users, op, args, s, b))
        prev = name
    lines.append("    return " + prev)
    open(out + "/big.fx", "w").write("\n".join(lines) + "\n")


resnet()
big()
