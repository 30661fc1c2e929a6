#!/usr/bin/python3
"""Exports real network architectures to ONNX with PyTorch reference outputs,
for tests/test_real_models.c.

Usage (Debian's /usr/bin/python3: python3-torch, python3-onnx and, for the
second form, python3-torchvision):

    /usr/bin/python3 tests/data/gen_real_models.py            # small fixtures
    /usr/bin/python3 tests/data/gen_real_models.py --torchvision OUT_DIR [NAME...]

The first form rewrites tests/data/real_models/ (committed, small: tiny
architectures built here from torch.nn). The second exports torchvision's
classification models with random weights into OUT_DIR (not committed; the
CTest case real_models_torchvision, label "slow", runs them).

Every model M is written as M.onnx, M.input_<i>.npy and M.output_<i>.npy; the
outputs are PyTorch's own (eval mode), the references nnfx is checked against.
BatchNorm running statistics are randomised so that they matter. Exit status
77 when torch (or torchvision for --torchvision) is missing.
"""

import os
import sys

SMALL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_models")

# torchvision models: (name, constructor keyword arguments, input size, opset)
TORCHVISION = [
    ("resnet18", {}, 224, 13),
    ("mobilenet_v2", {}, 224, 13),
    ("mobilenet_v3_small", {}, 224, 13),
    ("efficientnet_b0", {}, 224, 13),
    ("squeezenet1_1", {}, 224, 13),
    ("shufflenet_v2_x1_0", {}, 224, 13),
    ("googlenet", {"aux_logits": False, "init_weights": True}, 224, 13),
    ("densenet121", {}, 224, 13),
    ("mnasnet0_5", {}, 224, 13),
    ("regnet_y_400mf", {}, 224, 13),
    ("convnext_tiny", {}, 224, 17),
    ("vit_b_16", {}, 224, 17),
]


def randomise_bn(model, gen):
    import torch

    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) * 0.5 + 0.75)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(m.weight.shape, generator=gen) * 0.5 + 0.75)
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)


def detections_module():
    """The class wrapping a torchvision detector for export: on one image
    [1, 3, H, W] it returns that image's boxes, scores and labels (torch is
    imported here, so that the scripts using it can skip without torch)."""
    import torch

    class Detections(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            d = self.m([x[0]])[0]
            return d["boxes"], d["scores"], d["labels"]

    return Detections


def export(model, inputs, out_dir, name, opset):
    import numpy as np
    import torch

    model.eval()
    with torch.no_grad():
        outs = model(*inputs)
    if isinstance(outs, torch.Tensor):
        outs = (outs,)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(
        model,
        tuple(inputs),
        path,
        opset_version=opset,
        training=torch.onnx.TrainingMode.EVAL,
        do_constant_folding=True,
        input_names=[f"input_{i}" for i in range(len(inputs))],
        output_names=[f"output_{i}" for i in range(len(outs))],
    )
    for i, t in enumerate(inputs):
        np.save(os.path.join(out_dir, f"{name}.input_{i}.npy"), t.numpy())
    for i, t in enumerate(outs):
        np.save(os.path.join(out_dir, f"{name}.output_{i}.npy"), t.detach().numpy())
    print(f"{name}: {os.path.getsize(path)} bytes, output {tuple(outs[0].shape)}")


# --- Small architectures (committed fixtures) -------------------------------


def small_models():
    import torch
    from torch import nn

    class TinyCNN(nn.Module):
        """conv + BN + ReLU twice, max pool, global pool, linear."""

        def __init__(self):
            super().__init__()
            self.f = nn.Sequential(
                nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

        def forward(self, x):
            return self.f(x)

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    class MiniResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2), BasicBlock(32, 32, 1))
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    class InvertedResidual(nn.Module):
        """MobileNetV2/V3 block: expand 1x1, depthwise 3x3, project 1x1."""

        def __init__(self, c, expand, act):
            super().__init__()
            h = c * expand
            self.b = nn.Sequential(
                nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), act(),
                nn.Conv2d(h, h, 3, 1, 1, groups=h, bias=False), nn.BatchNorm2d(h), act(),
                nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

        def forward(self, x):
            return x + self.b(x)

    class MobileBlocks(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
            self.b1 = InvertedResidual(16, 4, nn.ReLU6)
            self.b2 = InvertedResidual(16, 3, nn.Hardswish)
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 8, 1), nn.ReLU(), nn.Conv2d(8, 16, 1),
                                    nn.Hardsigmoid())
            self.head = nn.Linear(16, 10)

        def forward(self, x):
            x = self.b2(self.b1(self.stem(x)))
            x = x * self.se(x)
            return self.head(x.mean((2, 3)))

    class TinyViT(nn.Module):
        """Patch embedding, one pre-norm transformer block (multi-head
        attention written out: MatMul, Softmax), GELU (exact, via Erf)."""

        def __init__(self, dim=32, heads=4, patch=4, img=16):
            super().__init__()
            self.heads = heads
            self.embed = nn.Conv2d(3, dim, patch, patch)
            n = (img // patch) ** 2
            self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.1)
            self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.1)
            self.ln1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.ln2 = nn.LayerNorm(dim)
            self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
            self.ln3 = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, 10)

        def forward(self, x):
            x = self.embed(x).flatten(2).transpose(1, 2)
            b, n, d = x.shape
            x = torch.cat([self.cls.expand(b, -1, -1), x], 1) + self.pos
            q, k, v = self.qkv(self.ln1(x)).reshape(b, n + 1, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            a = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
            x = x + self.proj((a @ v).transpose(1, 2).reshape(b, n + 1, d))
            x = x + self.mlp(self.ln2(x))
            return self.head(self.ln3(x)[:, 0])

    class Fire(nn.Module):
        def __init__(self, cin, s, e):
            super().__init__()
            self.sq = nn.Conv2d(cin, s, 1)
            self.e1 = nn.Conv2d(s, e, 1)
            self.e3 = nn.Conv2d(s, e, 3, padding=1)

        def forward(self, x):
            x = torch.relu(self.sq(x))
            return torch.cat([torch.relu(self.e1(x)), torch.relu(self.e3(x))], 1)

    class MiniSqueeze(nn.Module):
        def __init__(self):
            super().__init__()
            self.f = nn.Sequential(nn.Conv2d(3, 16, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                                   Fire(16, 8, 16), Fire(32, 8, 16), nn.MaxPool2d(3, 2, ceil_mode=True),
                                   Fire(32, 12, 24))
            # no ReLU after the classifier conv (SqueezeNet has one): with
            # random weights it zeroes most logits and the check says little
            self.cls = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(48, 10, 1), nn.AdaptiveAvgPool2d(1))

        def forward(self, x):
            return torch.flatten(self.cls(self.f(x)), 1)

    return [
        ("tiny_cnn", TinyCNN, (2, 3, 16, 16), 13),
        ("mini_resnet", MiniResNet, (1, 3, 32, 32), 13),
        ("mobile_blocks", MobileBlocks, (1, 3, 24, 24), 13),
        ("tiny_vit", TinyViT, (2, 3, 16, 16), 17),
        ("tiny_vit_opset13", TinyViT, (1, 3, 16, 16), 13),
        ("mini_squeezenet", MiniSqueeze, (1, 3, 39, 39), 13),
    ]


def main():
    try:
        import torch
    except ImportError as e:
        print(f"SKIP: python3-torch is not installed for {sys.executable}: {e}", file=sys.stderr)
        return 77
    args = sys.argv[1:]
    if args and args[0] == "--torchvision":
        if len(args) < 2:
            print("usage: gen_real_models.py --torchvision OUT_DIR [NAME...]", file=sys.stderr)
            return 2
        try:
            import torchvision
        except ImportError as e:
            print(f"SKIP: python3-torchvision is not installed for {sys.executable}: {e}", file=sys.stderr)
            return 77
        out_dir, only = args[1], set(args[2:])
        os.makedirs(out_dir, exist_ok=True)
        for name, kwargs, size, opset in TORCHVISION:
            if only and name not in only:
                continue
            torch.manual_seed(0)
            gen = torch.Generator().manual_seed(1)
            model = getattr(torchvision.models, name)(weights=None, **kwargs)
            randomise_bn(model, gen)
            # ViT's classifier starts at zero (all logits 0): give it weights
            # so that the comparison sees the whole network
            for m in model.modules():
                if name.startswith("vit") and isinstance(m, torch.nn.Linear) and not m.weight.any():
                    with torch.no_grad():
                        m.weight.normal_(0, 0.02, generator=gen)
            x = torch.randn(1, 3, size, size, generator=gen)
            export(model, [x], out_dir, name, opset)
        return 0
    if args:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(SMALL_DIR, exist_ok=True)
    for name, ctor, shape, opset in small_models():
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(1)
        model = ctor()
        randomise_bn(model, gen)
        x = torch.randn(*shape, generator=gen)
        export(model, [x], SMALL_DIR, name, opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
