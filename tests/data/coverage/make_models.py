#!/usr/bin/python3
"""Exports small PyTorch modules of the op families beyond image classifiers
(recurrent keyword spotters, a U-Net block, a 3-D conv video block, einsum
attention, If/Loop control flow with NMS) to ONNX with PyTorch's outputs, for the CTest case
coverage_models (tests/test_real_models.c run on this directory).

Usage (Debian's /usr/bin/python3 with python3-torch and python3-onnx; the
second form also python3-torchvision):

    /usr/bin/python3 tests/data/coverage/make_models.py [NAME...]
    /usr/bin/python3 tests/data/coverage/make_models.py --torchvision OUT_DIR [NAME...]

The first form rewrites the *.onnx and *.npy files next to this script (only
the models named, when some are; and
in ort/: recurrent nodes with non-default activations, checked against ONNX
Runtime as PyTorch cannot write them). The
second exports big torchvision models of these families (and the detection
model ssdlite320_mobilenet_v3_large, with NMS behind an If) with random weights
into OUT_DIR (not committed; the CTest case coverage_torchvision, label
"slow", runs them). Every model M is M.onnx, M.input_<i>.npy and
M.output_<i>.npy, the outputs being PyTorch's own in eval mode. Exit status
77 when torch (or torchvision) is missing.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/data: gen_real_models.export


def models():
    import torch
    from torch import nn

    class GruKws(nn.Module):
        """Keyword spotter: 2-layer bidirectional GRU over MFCC frames."""

        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(16, 24, num_layers=2, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(48, 12)

        def forward(self, x):  # x [B, T, 16]
            y, _ = self.gru(x)
            return self.fc(y[:, -1])

    class LstmKws(nn.Module):
        """Keyword spotter: Conv1d front end, LSTM (uni- then bidirectional)."""

        def __init__(self):
            super().__init__()
            self.front = nn.Sequential(nn.Conv1d(10, 16, 5, padding=2), nn.ReLU())
            self.lstm1 = nn.LSTM(16, 20, batch_first=True)
            self.lstm2 = nn.LSTM(20, 20, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(40, 12)

        def forward(self, x):  # x [B, 10, T]
            y = self.front(x).transpose(1, 2)
            y, _ = self.lstm1(y)
            y, (h, c) = self.lstm2(y)
            return self.fc(y.mean(1)), h

    class UNetBlock(nn.Module):
        """One U-Net level: conv + InstanceNorm + ReLU, down, up with
        ConvTranspose, skip concatenation."""

        def __init__(self):
            super().__init__()

            def cbr(i, o):
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.InstanceNorm2d(o, affine=True), nn.ReLU())

            self.enc = cbr(3, 8)
            self.down = nn.MaxPool2d(2)
            self.mid = cbr(8, 16)
            self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
            self.up3 = nn.ConvTranspose2d(8, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
            self.dec = cbr(16, 8)
            self.out = nn.Conv2d(16, 2, 1)

        def forward(self, x):
            e = self.enc(x)
            m = self.mid(self.down(e))
            d = self.dec(torch.cat([self.up(m), e], 1))
            return self.out(torch.cat([d, self.up3(self.down(d))], 1))

    class Video3d(nn.Module):
        """3-D conv video block (r3d-like stem and one residual block)."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False),
                                      nn.BatchNorm3d(8), nn.ReLU())
            self.c1 = nn.Conv3d(8, 8, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm3d(8)
            self.c2 = nn.Conv3d(8, 8, 3, padding=(2, 1, 1), dilation=(2, 1, 1), groups=2)
            self.pool = nn.MaxPool3d((1, 2, 2))
            self.fc = nn.Linear(8, 5)

        def forward(self, x):  # x [B, 3, T, H, W]
            x = self.stem(x)
            x = torch.relu(x + self.c2(torch.relu(self.b1(self.c1(x)))))
            x = nn.functional.avg_pool3d(self.pool(x), (2, 2, 2))
            return self.fc(x.mean((2, 3, 4))), x

    class EinsumAttention(nn.Module):
        """Multi-head attention written with einsum (as in many research
        codebases), plus an einsum projection with a batch diagonal."""

        def __init__(self, dim=32, heads=4):
            super().__init__()
            self.h = heads
            self.qkv = nn.Linear(dim, 3 * dim)
            self.w = nn.Parameter(torch.randn(heads, dim // heads, dim // heads) * 0.2)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):  # x [B, N, dim]
            b, n, d = x.shape
            q, k, v = self.qkv(x).reshape(b, n, 3, self.h, d // self.h).unbind(2)
            a = torch.einsum("bqhd,bkhd->bhqk", q, k) * (d // self.h) ** -0.5
            y = torch.einsum("bhqk,bkhd->bqhd", a.softmax(-1), v)
            y = torch.einsum("bqhd,hde->bqhe", y, self.w)
            return self.proj(y.reshape(b, n, d))

    return [
        ("gru_kws", GruKws, [(2, 25, 16)], 14),
        ("lstm_kws", LstmKws, [(2, 10, 30)], 14),
        ("unet_block", UNetBlock, [(1, 3, 16, 16)], 14),
        ("video3d", Video3d, [(1, 3, 8, 16, 16)], 14),
        ("einsum_attention", EinsumAttention, [(2, 10, 32)], 14),
    ]


def control_flow_models():
    """Modules whose ONNX export holds If and Loop (torch.jit.script'ed
    Python control flow): a loop over rows with a data-dependent branch per
    row and one after the loop; a loop whose body's shapes change from trip
    to trip (loop_slices) and nn.EmbeddingBag's (embedding_bag); and detection-style post-processing, a
    score filter then NMS behind `if boxes.numel() == 0` (the If torchvision's
    detection models export around their NMS). Returns (name, module,
    inputs, opset) with the inputs made here (boxes must be valid)."""
    import torch
    import torchvision
    from torch import nn

    class ControlFlow(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):  # x [rows, 8]
            y = self.fc(x)
            acc = torch.zeros(8)
            for i in range(y.size(0)):
                row = y[i]
                if bool(row.sum() > 0):
                    acc = acc + torch.relu(row) * float(i)
                else:
                    acc = acc * 0.5 - row
            if bool(acc.mean() > 0):
                out = acc.softmax(0)
            else:
                out = -acc
            return out, acc

    class NmsPost(nn.Module):
        def forward(self, boxes, scores, labels):
            sel = scores > 0.2
            boxes, scores, labels = boxes[sel], scores[sel], labels[sel]
            if boxes.numel() == 0:
                keep = torch.zeros(0, dtype=torch.long)
            else:
                offsets = labels.to(boxes.dtype) * (boxes.max() + 1)
                keep = torchvision.ops.nms(boxes + offsets[:, None], scores, 0.5)
            return boxes[keep], scores[keep], labels[keep]

    class LoopSlices(nn.Module):
        """A loop over rows whose body slices at the trip number (x[i:i+2])
        and grows a loop-carried value by a row per trip (torch.cat): its
        shapes change from trip to trip."""

        def forward(self, x):  # x [rows, cols]
            y = torch.zeros(1, x.size(1))
            acc = x[0:1]
            for i in range(x.size(0) - 1):
                y = y + x[i:i + 2].sum(0, keepdim=True) * float(i + 1)
                acc = torch.cat([acc, torch.tanh(x[i + 1:i + 2] * y)], 0)
            return y, acc

    class EmbeddingBagMean(nn.Module):
        """nn.EmbeddingBag(mode="mean") over bags of 2, 3 and 3 ids: the
        export is a Loop over the bags whose body slices each bag's ids."""

        def __init__(self):
            super().__init__()
            self.bag = nn.EmbeddingBag(20, 6, mode="mean")
            self.register_buffer("offsets", torch.tensor([0, 2, 5]))

        def forward(self, ids):  # ids [8] int64
            return self.bag(ids, self.offsets)

    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    cf = torch.jit.script(ControlFlow())
    x = torch.randn(6, 8, generator=gen)
    xy = torch.rand(20, 2, generator=gen) * 12
    wh = torch.rand(20, 2, generator=gen) * 20 + 5
    boxes = torch.cat([xy, xy + wh], 1)
    scores = torch.rand(20, generator=gen)
    labels = torch.randint(0, 3, (20,), generator=gen)
    return [
        ("ctrl_flow", cf, [x], 14),
        ("nms_post", torch.jit.script(NmsPost()), [boxes, scores, labels], 14),
        ("loop_slices", torch.jit.script(LoopSlices()), [torch.randn(6, 3, generator=gen)], 14),
        ("embedding_bag", EmbeddingBagMean(), [torch.randint(0, 20, (8,), generator=gen)], 14),
    ]


# torchvision models: (name, module path under torchvision.models, input
# shapes, opset)
TORCHVISION = [
    ("r3d_18", "video", [(1, 3, 8, 112, 112)], 14),
    ("mc3_18", "video", [(1, 3, 8, 112, 112)], 14),
    ("swin_t", "", [(1, 3, 224, 224)], 14),
    ("raft_small", "optical_flow", [(1, 3, 128, 128), (1, 3, 128, 128)], 16),
    ("fcn_resnet50", "segmentation", [(1, 3, 128, 128)], 14),
    ("lraspp_mobilenet_v3_large", "segmentation", [(1, 3, 128, 128)], 14),
]


def export_torchvision(out_dir, only):
    import torch
    import torchvision
    from gen_real_models import detections_module, export, randomise_bn

    class FirstOutput(torch.nn.Module):
        """Segmentation models return a dict and RAFT a list of refinements:
        keep the final tensor."""

        def __init__(self, m, **kw):
            super().__init__()
            self.m = m
            self.kw = kw

        def forward(self, *x):
            y = self.m(*x, **self.kw)
            if isinstance(y, dict):
                return y["out"]
            if isinstance(y, (list, tuple)):
                return y[-1]
            return y

    Detections = detections_module()

    os.makedirs(out_dir, exist_ok=True)
    if not only or DETECTION in only:
        export_detection(out_dir, Detections)
    for name, sub, shapes, opset in TORCHVISION:
        if only and name not in only:
            continue
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(1)
        mod = getattr(torchvision.models, sub) if sub else torchvision.models
        kw = {"num_flow_updates": 4} if name.startswith("raft") else {}
        extra = {"weights_backbone": None} if sub == "segmentation" else {}
        model = getattr(mod, name)(weights=None, **extra)
        randomise_bn(model, gen)
        inputs = [torch.randn(*s, generator=gen) for s in shapes]
        try:
            export(FirstOutput(model, **kw), inputs, out_dir, name, opset)
        except Exception as e:  # an exporter limit, not an nnfx one
            print(f"{name}: torch.onnx.export failed: {e}", file=sys.stderr)


DETECTION = "ssdlite320_mobilenet_v3_large"


def export_detection(out_dir, Detections):
    """SSDlite (its export holds an If around the batched NMS) with random
    weights, made so that the comparison is about the same detections:
    untrained heads give every anchor nearly the same class scores, so
    exact and near ties would decide which boxes NMS keeps and their order
    (a float rounding apart). Here the extra layers and the heads get
    He-initialised convolutions and the class logits are scaled by 6 (bias
    0), the score threshold is 0.3 and at most 50 detections are kept: on
    the fixed input (randn, seed 1) that gives 36 detections, all above the
    threshold (no cut at the cap), whose sorted scores are at least 1.3e-4
    apart, so boxes, scores and labels compare one to one (shapes equal,
    relative error bounded as for every model)."""
    import torch
    import torchvision
    from gen_real_models import detections_module, export, randomise_bn

    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
    randomise_bn(m, gen)
    with torch.no_grad():
        for mod in list(m.backbone.extra.modules()) + list(m.head.modules()):
            if isinstance(mod, torch.nn.Conv2d):
                fan_in = mod.weight[0].numel()
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=gen) * (2.0 / fan_in) ** 0.5)
        for seq in m.head.classification_head.module_list:
            seq[-1].weight.mul_(6.0)
            seq[-1].bias.zero_()
    m.score_thresh = 0.3
    m.detections_per_img = 50
    x = torch.randn(1, 3, 320, 320, generator=gen)
    try:
        export(Detections(m), [x], out_dir, DETECTION, 14)
    except Exception as e:  # an exporter limit, not an nnfx one
        print(f"{DETECTION}: torch.onnx.export failed: {e}", file=sys.stderr)


def rnn_activation_models(out_dir):
    """RNN, GRU and LSTM nodes with non-default `activations` (and their
    alpha/beta), which PyTorch never exports: written with onnx.helper into
    OUT_DIR as M.onnx + M.input_0.npy; tests/ort/test_ort_export.sh checks
    nnfx's outputs on them against ONNX Runtime."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    T, B, I, H = 6, 2, 5, 4
    cases = [
        ("rnn_act_relu", "RNN", 1, "forward", {"activations": ["Relu"]}),
        ("gru_act_hard", "GRU", 3, "bidirectional",
         {"activations": ["HardSigmoid", "Softsign", "Sigmoid", "Elu"], "activation_alpha": [0.3, 0.7],
          "activation_beta": [0.4], "linear_before_reset": 1}),
        ("lstm_act_mixed", "LSTM", 4, "reverse",
         {"activations": ["HardSigmoid", "LeakyRelu", "ScaledTanh"], "activation_alpha": [0.25, 0.1, 0.9],
          "activation_beta": [0.5, 1.5], "clip": 3.0}),
        ("lstm_act_affine", "LSTM", 4, "bidirectional",
         {"activations": ["Sigmoid", "Softplus", "Affine", "Sigmoid", "ThresholdedRelu", "Tanh"],
          "activation_alpha": [0.5, 0.2], "activation_beta": [0.1]}),
    ]
    os.makedirs(out_dir, exist_ok=True)
    for name, op, gates, direction, attrs in cases:
        d = 2 if direction == "bidirectional" else 1
        w = numpy_helper.from_array((rng.standard_normal((d, gates * H, I)) * 0.5).astype(np.float32), "W")
        r = numpy_helper.from_array((rng.standard_normal((d, gates * H, H)) * 0.5).astype(np.float32), "R")
        b = numpy_helper.from_array((rng.standard_normal((d, 2 * gates * H)) * 0.2).astype(np.float32), "B")
        node = helper.make_node(op, ["X", "W", "R", "B"], ["Y", "Y_h"], hidden_size=H, direction=direction, **attrs)
        graph = helper.make_graph(
            [node], name, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [T, B, I])],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [T, d, B, H]),
             helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [d, B, H])], [w, r, b])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, name + ".onnx"))
        np.save(os.path.join(out_dir, name + ".input_0.npy"), rng.standard_normal((T, B, I)).astype(np.float32))
        print(f"{name}: {op} {direction} {attrs['activations']}")


def main():
    try:
        import torch
    except ImportError as e:
        print(f"SKIP: python3-torch is not installed for {sys.executable}: {e}", file=sys.stderr)
        return 77
    from gen_real_models import detections_module, export, randomise_bn

    args = sys.argv[1:]
    if args and args[0] == "--torchvision":
        if len(args) < 2:
            print("usage: make_models.py --torchvision OUT_DIR [NAME...]", file=sys.stderr)
            return 2
        try:
            import torchvision  # noqa: F401
        except ImportError as e:
            print(f"SKIP: python3-torchvision is not installed for {sys.executable}: {e}", file=sys.stderr)
            return 77
        export_torchvision(args[1], set(args[2:]))
        return 0
    if any(a.startswith("-") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    only = set(args)
    if not only:
        rnn_activation_models(os.path.join(HERE, "ort"))
    try:
        import torchvision  # noqa: F401  (torchvision.ops.nms in nms_post)

        for name, model, inputs, opset in control_flow_models():
            if not only or name in only:
                export(model, inputs, HERE, name, opset)
    except ImportError as e:
        print(f"control-flow fixtures skipped: python3-torchvision is missing: {e}", file=sys.stderr)

    for name, ctor, shapes, opset in models():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        gen = torch.Generator().manual_seed(1)
        model = ctor()
        randomise_bn(model, gen)
        for m in model.modules():  # BatchNorm3d: randomise_bn covers 1-d/2-d
            if isinstance(m, torch.nn.BatchNorm3d):
                with torch.no_grad():
                    m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                    m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) * 0.5 + 0.75)
        inputs = [torch.randn(*s, generator=gen) for s in shapes]
        export(model, inputs, HERE, name, opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
