#!/usr/bin/python3
"""QDQ ONNX models quantized by PyTorch's FX graph-mode quantization
(prepare_fx / convert_fx, fbgemm qconfig, torch 1.13 API) and exported with
torch.onnx.export, for the tests that run them in nnfx and ONNX Runtime.

Usage:
  /usr/bin/python3 tests/data/quant/make_qdq_models.py small OUT_DIR
      the committed fixture (tests/data/quant/): a small CNN with
      Conv-BN-ReLU, a residual Add, MaxPool, AdaptiveAvgPool and Linear
      (random init, seed 0), calibrated on 32 seeded random images
  /usr/bin/python3 tests/data/quant/make_qdq_models.py NAME OUT_DIR
      NAME in resnet18, mobilenet_v2, resnet50: torchvision's architecture
      with its own random init (seeded; no pretrained weights are fetched),
      calibrated on 16 seeded random 224x224 images (the slow tests)

Writes OUT_DIR/NAME_qdq.onnx, NAME_x.npy (4 inputs, float32) and
NAME_torch.npy (PyTorch's output of the quantized model on them); for the
big models also NAME_float.onnx (the float model, before quantization) and
NAME_calib.npy (16 calibration images) for `nnfx quantize`. The big models'
BatchNorm statistics are set from 16 random images first (a random-init
network otherwise has vanishing activations). Exit 77 when torch (or
torchvision for the big models) is missing.

torch 1.13's exporter writes the FX-quantized graph as QuantizeLinear /
DequantizeLinear pairs (with Cast nodes around the quantized activations
and int8 weights as Constant nodes); that form is what the tests load.
"""

import os
import sys


def small_model(torch):
    nn = torch.nn

    class SmallCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(16)
            self.relu1 = nn.ReLU()
            self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(16)
            self.relu2 = nn.ReLU()
            self.pool = nn.MaxPool2d(2)
            self.conv3 = nn.Conv2d(16, 32, 3, padding=1, groups=2)
            self.relu3 = nn.ReLU()
            self.gap = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            y = self.relu1(self.bn1(self.conv1(x)))
            y = self.relu2(self.bn2(self.conv2(y)) + y)
            y = self.relu3(self.conv3(self.pool(y)))
            return self.fc(torch.flatten(self.gap(y), 1))

    m = SmallCNN()
    # non-trivial BatchNorm statistics, so folding matters
    g = torch.Generator().manual_seed(1)
    for bn in (m.bn1, m.bn2):
        bn.running_mean.copy_(torch.randn(16, generator=g) * 0.1)
        bn.running_var.copy_(torch.rand(16, generator=g) + 0.5)
        bn.weight.data.copy_(torch.rand(16, generator=g) + 0.5)
        bn.bias.data.copy_(torch.randn(16, generator=g) * 0.1)
    return m, (3, 16, 16), 32


def export(torch, model, example, path):
    """torch.onnx.export (opset 13, input x, output y, dynamic batch) to a
    temporary name, then renamed."""
    torch.onnx.export(model, (example,), path + ".tmp", opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    name, out = sys.argv[1], sys.argv[2]
    try:
        import numpy as np
        import torch
        from torch.ao.quantization import get_default_qconfig_mapping
        from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    except ImportError as e:
        print(f"SKIP: torch (with FX quantization) is not installed: {e}", file=sys.stderr)
        return 77
    torch.manual_seed(0)
    torch.set_num_threads(1)
    if name == "small":
        model, shape, ncalib = small_model(torch)
    else:
        try:
            import torchvision
        except ImportError as e:
            print(f"SKIP: torchvision is not installed: {e}", file=sys.stderr)
            return 77
        if name not in ("resnet18", "mobilenet_v2", "resnet50"):
            print(f"unknown model {name}", file=sys.stderr)
            return 2
        model = getattr(torchvision.models, name)(weights=None)
        shape, ncalib = (3, 224, 224), 16
    g = torch.Generator().manual_seed(2)
    if name != "small":
        # data-dependent BatchNorm statistics: a random-init network in eval
        # mode with unit running variances has activations that vanish or
        # explode (mobilenet_v2's output is all zeros once quantized)
        for mod in model.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.reset_running_stats()
                mod.momentum = None
        model.train()
        with torch.no_grad():
            for _ in range(4):
                model(torch.rand((4,) + shape, generator=g) * 2 - 0.5)
    model.eval()
    example = torch.rand((1,) + shape, generator=g)
    prepared = prepare_fx(model, get_default_qconfig_mapping("fbgemm"), example_inputs=(example,))
    with torch.no_grad():
        for _ in range(ncalib // 4):
            prepared(torch.rand((4,) + shape, generator=g) * 2 - 0.5)
    if name != "small":  # the float model and calibration data, for `nnfx quantize`
        calib = torch.rand((ncalib,) + shape, generator=g) * 2 - 0.5
        os.makedirs(out, exist_ok=True)
        export(torch, model, example, os.path.join(out, f"{name}_float.onnx"))
        np.save(os.path.join(out, f"{name}_calib.npy"), calib.numpy().astype(np.float32))
    quantized = convert_fx(prepared)
    x = torch.rand((4,) + shape, generator=g) * 2 - 0.5
    with torch.no_grad():
        ref = quantized(x)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}_qdq.onnx")
    export(torch, quantized, example, path)
    np.save(os.path.join(out, f"{name}_x.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out, f"{name}_torch.npy"), ref.numpy().astype(np.float32))
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
