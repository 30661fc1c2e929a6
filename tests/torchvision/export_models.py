#!/usr/bin/python3
"""Exports torchvision's resnet18 and mobilenet_v2 (random weights, seeded;
nothing is downloaded) to ONNX for tests/torchvision/check_analyze.sh, and
writes the figures `nnfx analyze` is checked against:

    /usr/bin/python3 tests/torchvision/export_models.py OUT_DIR

OUT_DIR/NAME.onnx     opset 13, input 1x3x224x224, BatchNormalization kept
                      (TrainingMode.PRESERVE on the eval-mode module), its
                      scale, shift and running statistics randomised (else
                      the exporter merges the identical all-ones/all-zeros
                      tensors of a fresh model behind Identity nodes)
OUT_DIR/NAME.json     {"initializer_params": elements of all float
                       initializers (equal to PyTorch's parameters plus its
                       float buffers, checked here);
                       "constant_params": elements of float Constant nodes
                       (mobilenet_v2's Clip bounds);
                       "macs": multiply-accumulates of Conv and Gemm counted
                       here from ONNX shape inference;
                       "published_macs": torchvision's figure (1.81 G, 0.30 G);
                       "batch_norms": BatchNormalization nodes that follow a
                       Conv; "torchvision": version}

Exit status 77 (a skip for CTest) when torch, torchvision or onnx is missing.
"""
import json
import os
import sys

# name -> published GMACs at 224x224 (torchvision's documentation, "GFLOPS"
# column, which counts multiply-accumulates)
MODELS = {"resnet18": 1.81, "mobilenet_v2": 0.30}


def count_macs(m):
    """Multiply-accumulates of every Conv (output elements x input channels
    per group x kernel area) and Gemm (M x N x K), batch 1."""
    import onnx
    g = onnx.shape_inference.infer_shapes(m).graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in g.node:
        if n.op_type == "Conv":
            w = shapes[n.input[1]]                  # [Cout, Cin/groups, kh, kw]
            out_numel = 1
            for d in shapes[n.output[0]]:
                out_numel *= d
            k = 1
            for d in w[1:]:
                k *= d
            total += out_numel * k
        elif n.op_type == "Gemm":
            a, b = shapes[n.input[0]], shapes[n.input[1]]
            trans_b = any(at.name == "transB" and at.i for at in n.attribute)
            total += a[0] * a[1] * (b[0] if trans_b else b[1])
    return total


def conv_bn_pairs(m):
    """BatchNormalization nodes whose input is a Conv's output."""
    conv_outs = {n.output[0] for n in m.graph.node if n.op_type == "Conv"}
    return sum(1 for n in m.graph.node if n.op_type == "BatchNormalization" and n.input[0] in conv_outs)


def build_net(name):
    """torchvision model `name` in eval mode, seeded random weights, with its
    BatchNorm scale, shift and running statistics randomised."""
    import torch
    import torchvision
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    net = getattr(torchvision.models, name)(weights=None).eval()
    with torch.no_grad():
        for mod in net.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                for t, lo, hi in ((mod.weight, 0.75, 1.25), (mod.bias, -0.1, 0.1),
                                  (mod.running_mean, -0.1, 0.1), (mod.running_var, 0.75, 1.25)):
                    t.copy_(torch.rand(t.shape, generator=gen) * (hi - lo) + lo)
    return net


def export_bn_kept(net, example, path):
    """Exports at opset 13 with BatchNormalization nodes kept."""
    import torch
    torch.onnx.export(net, example, path, opset_version=13, input_names=["input"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        import numpy as np
        import onnx
        import torch
        import torchvision
        from onnx import numpy_helper
    except ImportError as e:
        print("skip: %s (Debian: apt-get install python3-torchvision python3-onnx)" % e)
        return 77
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for name, gmacs in MODELS.items():
        path = os.path.join(out, name + ".onnx")
        net = build_net(name)
        torch_count = sum(p.numel() for p in net.parameters()) + \
            sum(b.numel() for b in net.buffers() if b.dtype.is_floating_point)
        export_bn_kept(net, torch.zeros(1, 3, 224, 224), path)
        m = onnx.load(path)
        floats = (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16,
                  onnx.TensorProto.BFLOAT16)
        params = sum(int(np.prod(t.dims)) for t in m.graph.initializer if t.data_type in floats)
        # the same count from the arrays themselves, as a cross-check of dims
        assert params == sum(numpy_helper.to_array(t).size for t in m.graph.initializer
                             if t.data_type in floats)
        assert params == torch_count, (params, torch_count)
        consts = 0
        for n in m.graph.node:
            if n.op_type == "Constant":
                for a in n.attribute:
                    if a.name == "value" and a.t.data_type in floats:
                        consts += int(np.prod(a.t.dims))
                    elif a.name in ("value_float", "value_floats"):
                        consts += 1 if a.name == "value_float" else len(a.floats)
        fig = {"initializer_params": params, "constant_params": consts, "macs": count_macs(m),
               "published_macs": gmacs * 1e9, "batch_norms": conv_bn_pairs(m),
               "torchvision": torchvision.__version__}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(fig, f)
        print("%s: %d float initializer elements (PyTorch: %d), %d in Constant nodes, %d MACs, "
              "%d BatchNorms after a Conv" % (name, params, torch_count, consts, fig["macs"], fig["batch_norms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
