#!/usr/bin/python3
"""Exports the model families bench/run_families.sh times (random init, eval
mode, batch 1) to ONNX, with one fixed random input each.

Usage: export_families.py OUTDIR [NAME ...]
Writes OUTDIR/<name>.onnx and OUTDIR/<name>_in.npy. Families: r3d_18
(torchvision video, 3-D convs), kws_lstm (a keyword spotter: two LSTM
layers over 49 frames of 40 MFCCs), gru (one GRU layer, 100 steps), espcn
(super-resolution x3 with PixelShuffle), unet (a small U-Net with
ConvTranspose up-sampling), inception_v3 (torchvision, 299x299: 1x7/7x1
convs, AvgPool, Concat), lraspp and deeplabv3 (torchvision's
lraspp_mobilenet_v3_large and deeplabv3_mobilenet_v3_large at 520x520, the
"out" head: hard-swish, SE, dilated convs, bilinear Resize), swin_t and
maxvit_t (torchvision vision transformers: windowed attention, LayerNorm,
GELU, relative position bias; 224x224), r2plus1d_18 (torchvision video,
(2+1)-D convs), the families the first table found at parity (resnet50,
resnext50 (32x4d), efficientnet_v2_s at 384x384, fcn_resnet50 at 520x520,
mobilenet_v3_large; BatchNorm statistics from random images), ssdlite (torchvision's detector
ssdlite320_mobilenet_v3_large with its post-processing: score filter, TopK,
batched NMS behind an If; made as tests/data/coverage/make_models.py
--torchvision makes it: random init, seed 0/1, heads scaled so that the
detections do not tie). Needs only torch + torchvision (Debian
python3-torchvision). A family with several outputs also writes
OUTDIR/<name>_ref_<i>.npy for output i >= 1 (output 0 is <name>_ref.npy).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class KwsLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(40, 128, num_layers=2, batch_first=True)
        self.fc = nn.Linear(128, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(64, 256, batch_first=True)
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Espcn(nn.Module):
    def __init__(self, r=3):
        super().__init__()
        self.c1 = nn.Conv2d(1, 64, 5, padding=2)
        self.c2 = nn.Conv2d(64, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, r * r, 3, padding=1)
        self.ps = nn.PixelShuffle(r)

    def forward(self, x):
        return self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x))))))


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, ch=(16, 32, 64, 128)):
        super().__init__()
        self.downs = nn.ModuleList()
        c = 3
        for o in ch:
            self.downs.append(block(c, o))
            c = o
        self.ups = nn.ModuleList()
        self.upb = nn.ModuleList()
        for o in reversed(ch[:-1]):
            self.ups.append(nn.ConvTranspose2d(c, o, 2, stride=2))
            self.upb.append(block(2 * o, o))
            c = o
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        skips = []
        for i, d in enumerate(self.downs):
            x = d(x)
            if i < len(self.downs) - 1:
                skips.append(x)
                x = nn.functional.max_pool2d(x, 2)
        for up, b in zip(self.ups, self.upb):
            x = up(x)
            x = b(torch.cat([x, skips.pop()], 1))
        return self.head(x)


class SegOut(nn.Module):
    """torchvision's segmentation models return a dict: keep "out"."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def seg(make, shape):
    return calibrated(lambda: SegOut(make(weights=None, weights_backbone=None)), shape)


def calibrated(make, shape):
    """make() with its BatchNorm statistics taken from two random images of
    shape (a batch of 2: a pooled branch's BatchNorm sees one value per
    channel per image). With the defaults (mean 0, var 1) random-init
    activations explode (inception_v3's logits reach 1e12) or vanish
    (mobilenet_v3's features fall to 1e-8), and the comparison with PyTorch
    would say little."""

    def build():
        model = make()
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.momentum = None
        model.train()
        with torch.no_grad():
            model(torch.from_numpy(np.random.RandomState(2).rand(2, *shape[1:]).astype(np.float32)))
        return model

    return build


FAMILIES = {
    "r3d_18": (lambda: torchvision.models.video.r3d_18(weights=None), (1, 3, 16, 112, 112)),
    "kws_lstm": (KwsLstm, (1, 49, 40)),
    "gru": (Gru, (1, 100, 64)),
    "espcn": (Espcn, (1, 1, 224, 224)),
    "unet": (UNet, (1, 3, 256, 256)),
    "inception_v3": (calibrated(lambda: torchvision.models.inception_v3(weights=None, aux_logits=False,
                                                                        init_weights=True), (1, 3, 299, 299)),
                     (1, 3, 299, 299)),
    "lraspp": (seg(torchvision.models.segmentation.lraspp_mobilenet_v3_large, (1, 3, 520, 520)), (1, 3, 520, 520)),
    "deeplabv3": (seg(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large, (1, 3, 520, 520)),
                  (1, 3, 520, 520)),
    "ssdlite": (None, (1, 3, 320, 320)),  # export_ssdlite
    "swin_t": (lambda: torchvision.models.swin_t(weights=None), (1, 3, 224, 224)),
    "r2plus1d_18": (lambda: torchvision.models.video.r2plus1d_18(weights=None), (1, 3, 16, 112, 112)),
    "resnet50": (calibrated(lambda: torchvision.models.resnet50(weights=None), (1, 3, 224, 224)), (1, 3, 224, 224)),
    "resnext50": (calibrated(lambda: torchvision.models.resnext50_32x4d(weights=None), (1, 3, 224, 224)),
                  (1, 3, 224, 224)),
    "efficientnet_v2_s": (calibrated(lambda: torchvision.models.efficientnet_v2_s(weights=None), (1, 3, 384, 384)),
                          (1, 3, 384, 384)),
    "fcn_resnet50": (seg(torchvision.models.segmentation.fcn_resnet50, (1, 3, 520, 520)), (1, 3, 520, 520)),
    "mobilenet_v3_large": (calibrated(lambda: torchvision.models.mobilenet_v3_large(weights=None), (1, 3, 224, 224)),
                           (1, 3, 224, 224)),
    "maxvit_t": (lambda: torchvision.models.maxvit_t(weights=None), (1, 3, 224, 224)),
}


def export_ssdlite(out, name):
    """ssdlite320_mobilenet_v3_large as the coverage test exports it (its
    weights, input and outputs: boxes, scores, labels), renamed for
    run_families.sh."""
    import shutil
    import tempfile

    cov = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "coverage")
    sys.path.insert(0, cov)
    import make_models  # also puts tests/data (gen_real_models) on sys.path
    from gen_real_models import detections_module

    tmp = tempfile.mkdtemp()
    make_models.export_detection(tmp, detections_module())
    stem = os.path.join(tmp, make_models.DETECTION)
    os.replace(stem + ".onnx", os.path.join(out, name + ".onnx"))
    os.replace(stem + ".input_0.npy", os.path.join(out, name + "_in.npy"))
    for i in range(3):
        ref = name + ("_ref.npy" if i == 0 else "_ref_%d.npy" % i)
        os.replace(stem + ".output_%d.npy" % i, os.path.join(out, ref))
    shutil.rmtree(tmp)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/models/families"
    names = sys.argv[2:] or list(FAMILIES)
    os.makedirs(out, exist_ok=True)
    for name in names:
        make, shape = FAMILIES[name]
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        if name == "ssdlite":
            export_ssdlite(out, name)
            print("exported", path, flush=True)
            continue
        torch.manual_seed(0)
        model = make().eval()
        x = torch.from_numpy(np.random.RandomState(1).rand(*shape).astype(np.float32))
        np.save(os.path.join(out, name + "_in.npy"), x.numpy())
        with torch.no_grad():
            torch.onnx.export(model, x, path, opset_version=13, input_names=["input"], output_names=["output"],
                              do_constant_folding=True)
            np.save(os.path.join(out, name + "_ref.npy"), model(x).numpy())
        print("exported", path, flush=True)


if __name__ == "__main__":
    main()
